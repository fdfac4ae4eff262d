//! trec_eval's own regression outputs (the repository's one copy, `tests/data/trec_eval` at its
//! root, with NIST's notice): every value of every implemented measure must print as trec_eval
//! prints it (4 decimals, counts as integers), read by the core's readers, streamed or not.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rankscope_core::stream::{evaluate_run_file, Grouping, StreamOptions};
use rankscope_core::trec::{read_qrels_file, read_run_file, ReadOptions};
use rankscope_core::{evaluate, parse_measure, Conventions, EvalOptions, Evaluation, Measure};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/trec_eval")
        .join(name)
}

/// `(measure name, query) -> printed value` of a trec_eval output file.
fn expected(name: &str) -> Vec<(String, String, String)> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (
                fields[0].trim().to_string(),
                fields[1].to_string(),
                fields[2].to_string(),
            )
        })
        .collect()
}

struct Case {
    expected: &'static str,
    qrels: &'static str,
    run: &'static str,
    complete: bool,
    max_documents: Option<usize>,
    relevance_level: i64,
    at_least: usize,
}

const CASES: [Case; 8] = [
    Case {
        expected: "out.test",
        qrels: "qrels.test",
        run: "results.test",
        complete: false,
        max_documents: None,
        relevance_level: 1,
        at_least: 20,
    },
    Case {
        expected: "out.test",
        qrels: "qrels.test.with-comments",
        run: "results.test",
        complete: false,
        max_documents: None,
        relevance_level: 1,
        at_least: 20,
    },
    Case {
        expected: "out.comment.test",
        qrels: "qrels.comment.test",
        run: "results.comment.test",
        complete: false,
        max_documents: None,
        relevance_level: 1,
        at_least: 20,
    },
    Case {
        expected: "out.test.a",
        qrels: "qrels.test",
        run: "results.test",
        complete: false,
        max_documents: None,
        relevance_level: 1,
        at_least: 60,
    },
    Case {
        expected: "out.test.aq",
        qrels: "qrels.test",
        run: "results.test",
        complete: false,
        max_documents: None,
        relevance_level: 1,
        at_least: 60,
    },
    Case {
        expected: "out.test.aqc",
        qrels: "qrels.test",
        run: "results.trunc",
        complete: true,
        max_documents: None,
        relevance_level: 1,
        at_least: 60,
    },
    Case {
        expected: "out.test.aqcM",
        qrels: "qrels.test",
        run: "results.trunc",
        complete: true,
        max_documents: Some(100),
        relevance_level: 1,
        at_least: 60,
    },
    Case {
        expected: "out.test.aql",
        qrels: "qrels.rel_level",
        run: "results.test",
        complete: false,
        max_documents: None,
        relevance_level: 2,
        at_least: 60,
    },
];

fn check(case: &Case, evaluation: &Evaluation, measures: &[(String, Measure)]) -> usize {
    let index: HashMap<&str, usize> = evaluation
        .query_ids
        .iter()
        .enumerate()
        .map(|(i, q)| (q.as_str(), i))
        .collect();
    let mut checked = 0;
    for (name, query, value) in expected(case.expected) {
        let Some(m) = measures.iter().position(|(n, _)| *n == name) else {
            continue;
        };
        let got = if query == "all" {
            evaluation.aggregate(m)
        } else {
            evaluation.scores(m)[index[query.as_str()]]
        };
        let printed = if value.contains('.') {
            format!("{got:.4}")
        } else {
            format!("{}", got.round())
        };
        assert_eq!(printed, value, "{} {name} {query}", case.expected);
        checked += 1;
    }
    checked
}

#[test]
fn every_value_matches_trec_eval() {
    for case in &CASES {
        let mut measures: Vec<(String, Measure)> = Vec::new();
        for (name, _, _) in expected(case.expected) {
            if measures.iter().any(|(n, _)| *n == name) {
                continue;
            }
            // `RBP` is ir_measures' measure; trec_eval's rbp is TrecRBP.
            let ours = match name.as_str() {
                "rbp" => "TrecRBP",
                "rbp_resid" => "TrecRBPResid",
                other => other,
            };
            if let Ok(measure) = parse_measure(ours) {
                measures.push((name, measure));
            }
        }
        assert!(
            measures.len() >= case.at_least,
            "{}: {} measures",
            case.expected,
            measures.len()
        );
        let read = ReadOptions::default();
        let qrels = read_qrels_file(&data(case.qrels), case.qrels, &read)
            .unwrap()
            .table;
        let run = read_run_file(&data(case.run), case.run, &read)
            .unwrap()
            .table;
        let mut options = EvalOptions::new(Conventions::profile("trec").unwrap());
        options.complete = case.complete;
        options.max_documents = case.max_documents;
        options.relevance_level = case.relevance_level;
        let wanted: Vec<Measure> = measures.iter().map(|(_, m)| m.clone()).collect();
        let whole = evaluate(&qrels, &run, &wanted, &options).unwrap();
        assert!(check(case, &whole, &measures) >= 20);
        assert_eq!(
            whole.run_name,
            expected(case.expected)
                .iter()
                .find(|(n, _, _)| n == "runid")
                .unwrap()
                .2
        );

        // Streamed in small chunks, grouped and partitioned: the same values.
        for grouping in [Grouping::Detect, Grouping::Partitioned] {
            let stream = StreamOptions {
                chunk_bytes: 4096,
                grouping,
                partitions: 3,
                ..StreamOptions::default()
            };
            let streamed = evaluate_run_file(
                &qrels,
                &data(case.run),
                case.run,
                &wanted,
                &options,
                &stream,
            )
            .unwrap();
            assert_eq!(
                streamed.evaluation.query_ids, whole.query_ids,
                "{}",
                case.expected
            );
            assert_eq!(
                streamed.evaluation.values, whole.values,
                "{} {grouping:?}",
                case.expected
            );
            assert_eq!(streamed.evaluation.missing_queries, whole.missing_queries);
        }
    }
}
