//! Properties over random qrels and runs: bounded measures stay in [0, 1], a perfect ranking
//! scores 1, shifting every score or reordering the lines changes nothing (`trec`), and
//! streaming in any chunk size gives the values of reading whole.

use rankscope_core::measures::{families, CutoffKind, Kind};
use rankscope_core::stream::{evaluate_stream, Grouping, StreamOptions};
use rankscope_core::trec::{parse_qrels, parse_run, ReadOptions};
use rankscope_core::{evaluate, parse_measures, Conventions, EvalOptions, Measure, Qrels};

mod common;
use common::Random;

/// Every ranking family, with a cutoff where one is needed.
fn all_measures() -> Vec<Measure> {
    let names: Vec<String> = families()
        .filter(|f| matches!(f.kind, Kind::Ranking(_)))
        .flat_map(|f| match f.name {
            "Success" => vec!["Success@3".to_string()],
            "IPrec" => vec!["IPrec@0.3".to_string()],
            "RprecMult" => vec!["RprecMult@0.5".into(), "RprecMult@2.0".into()],
            "Unjudged" => vec!["Unjudged@5".to_string()],
            "RelP" => vec!["RelP".into(), "RelP@4".into()],
            "nDCG" => vec!["nDCG".into(), "nDCG@3".into(), "nDCG(gain=exp)@5".into()],
            "P" | "R" | "AP" | "RR" => vec![f.name.to_string(), format!("{}@4", f.name)],
            "SDCG" | "NERR8" | "NERR9" | "BPM" => vec![format!("{}(max_rel=3)@4", f.name)],
            "NERR10" | "NERR11" | "INST" | "INSQ" => vec![format!("{}(max_rel=2)", f.name)],
            other if f.cutoff == CutoffKind::Required => vec![format!("{other}@5")],
            other => vec![other.to_string()],
        })
        .collect();
    parse_measures(&names).unwrap()
}

/// Qrels and run lines of a random case: queries q0.., documents d0.. with grades 0-3, scores
/// with many ties; the run grouped by query (in random query order) or not.
fn case(random: &mut Random, grouped: bool) -> (String, Vec<String>) {
    let mut qrels = String::new();
    let mut run = Vec::new();
    for q in 0..1 + random.below(6) {
        for d in 0..random.below(12) {
            if random.below(3) > 0 {
                qrels.push_str(&format!("q{q} 0 d{d} {}\n", random.below(4)));
            }
        }
        let mut docs: Vec<u64> = (0..12).filter(|_| random.below(2) == 0).collect();
        if docs.is_empty() {
            docs.push(0);
        }
        for d in docs {
            run.push(format!("q{q} Q0 d{d} 0 {} t", random.below(5) as f64 / 2.0));
        }
    }
    if qrels.is_empty() {
        qrels.push_str("q0 0 d0 1\n");
    }
    if !grouped {
        for i in (1..run.len()).rev() {
            run.swap(i, random.below(i as u64 + 1) as usize);
        }
    }
    (qrels, run)
}

fn read_qrels(text: &str) -> Qrels {
    parse_qrels(text.as_bytes(), "qrels", &ReadOptions::default())
        .unwrap()
        .table
}

fn values(qrels: &Qrels, run_lines: &[String], options: &EvalOptions) -> Option<Vec<Vec<f64>>> {
    let text = run_lines.join("\n") + "\n";
    let run = parse_run(text.as_bytes(), "run", &ReadOptions::default())
        .unwrap()
        .table;
    evaluate(qrels, &run, &all_measures(), options)
        .ok()
        .map(|e| e.values)
}

#[test]
fn bounded_measures_stay_in_the_unit_interval_and_order_does_not_matter() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let measures = all_measures();
    for profile in ["trec", "trec9"] {
        let options = EvalOptions {
            complete: true,
            ..EvalOptions::new(Conventions::profile(profile).unwrap())
        };
        for _ in 0..300 {
            let (qrels_text, mut run) = case(&mut random, false);
            let qrels = read_qrels(&qrels_text);
            let Some(base) = values(&qrels, &run, &options) else {
                continue;
            };
            for (m, column) in measures.iter().zip(&base) {
                if m.family.bounded {
                    assert!(
                        // Up to rounding (rbp_resid's sums can end at 1 + 2e-16).
                        column.iter().all(|v| (0.0..=1.0 + 1e-12).contains(v)),
                        "{m}: {column:?}"
                    );
                }
            }
            // Lines in another order, every score shifted: the same values.
            run.reverse();
            let shifted: Vec<String> = run
                .iter()
                .map(|line| {
                    let mut fields: Vec<String> = line.split(' ').map(str::to_string).collect();
                    fields[4] = (fields[4].parse::<f64>().unwrap() + 8.0).to_string();
                    fields.join(" ")
                })
                .collect();
            assert_eq!(values(&qrels, &shifted, &options).unwrap(), base);
        }
    }
}

#[test]
fn a_perfect_ranking_scores_one() {
    let mut random = Random(42);
    let measures = parse_measures(&[
        "nDCG",
        "nDCG@5",
        "AP",
        "RR",
        "Rprec",
        "R",
        "Bpref",
        "IPrec@0.5",
        "NCG",
        "NCG@5",
    ])
    .unwrap();
    let options = EvalOptions::new(Conventions::profile("trec").unwrap());
    for _ in 0..200 {
        // Every judged document retrieved, best grade first, non-relevant ones last.
        let grades: Vec<u64> = (0..1 + random.below(10)).map(|_| random.below(4)).collect();
        if !grades.iter().any(|&g| g > 0) {
            continue;
        }
        let qrels: String = grades
            .iter()
            .enumerate()
            .map(|(d, g)| format!("q 0 d{d} {g}\n"))
            .collect();
        let run: String = grades
            .iter()
            .enumerate()
            .map(|(d, g)| format!("q Q0 d{d} 0 {g} t\n"))
            .collect();
        let qrels = read_qrels(&qrels);
        let run = parse_run(run.as_bytes(), "run", &ReadOptions::default())
            .unwrap()
            .table;
        let out = evaluate(&qrels, &run, &measures, &options).unwrap();
        for (m, column) in measures.iter().zip(&out.values) {
            assert!((column[0] - 1.0).abs() < 1e-12, "{m}: {}", column[0]);
        }
    }
}

#[test]
fn streaming_in_any_chunk_size_gives_the_values_of_reading_whole() {
    let mut random = Random(7);
    let measures = all_measures();
    for profile in ["trec", "weknora"] {
        let wanted: Vec<Measure> = if profile == "weknora" {
            parse_measures(&["nDCG@3", "AP", "RR", "P", "R"]).unwrap()
        } else {
            measures.clone()
        };
        let options = EvalOptions::new(Conventions::profile(profile).unwrap());
        for _ in 0..100 {
            let grouped = random.below(2) == 0;
            let (qrels_text, run) = case(&mut random, grouped);
            let qrels = read_qrels(&qrels_text);
            let text = run.join("\n") + "\n";
            let whole_run = parse_run(text.as_bytes(), "run", &ReadOptions::default())
                .unwrap()
                .table;
            let whole = evaluate(&qrels, &whole_run, &wanted, &options);
            let stream = StreamOptions {
                chunk_bytes: 1 + random.below(200) as usize,
                grouping: Grouping::Detect,
                partitions: 1 + random.below(4) as usize,
                ..StreamOptions::default()
            };
            let streamed = evaluate_stream(
                &qrels,
                || Ok(text.as_bytes()),
                "run",
                &wanted,
                &options,
                &stream,
            );
            match (whole, streamed) {
                (Ok(whole), Ok(streamed)) => {
                    assert_eq!(streamed.evaluation.values, whole.values);
                    assert_eq!(streamed.evaluation.query_ids, whole.query_ids);
                    assert_eq!(streamed.evaluation.unjudged_queries, whole.unjudged_queries);
                }
                (Err(whole), Err(streamed)) => {
                    assert_eq!(streamed.kind(), whole.kind());
                }
                (whole, streamed) => panic!("{whole:?} but streamed {streamed:?}"),
            }
        }
    }
}
