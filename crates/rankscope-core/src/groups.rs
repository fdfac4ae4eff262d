//! Qrels with judgement groups, trec_eval's `-R qrels_jg`: lines `query_id group doc_id grade`
//! whose second column names a judgement group (one assessor, say). Each measure is computed
//! against each group's qrels, and a query's value is the mean over the groups that judge it
//! (trec_eval's map_avgjg, P_avgjg, Rprec_mult_avgjg).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use crate::error::{quoted, Error, InputProblem, Result, Skipped};
use crate::evaluate::{evaluate, EvalOptions, Evaluation};
use crate::measures::Measure;
use crate::table::{Qrels, Run};
use crate::trec::{byte_problem, empty_error, io_error, parse_integer, split_fields, strip_bom};

const FIELDS: &str = "query_id group doc_id relevance";

/// Qrels split by judgement group.
#[derive(Debug, Clone)]
pub struct JudgementGroups {
    /// Where they came from, for messages.
    pub source: String,
    /// Each group's name and qrels, groups in byte-wise order of their names (the order
    /// trec_eval adds them in).
    pub groups: Vec<(String, Qrels)>,
}

/// Read qrels with judgement groups from a file (`source` names it in messages).
pub fn read_judgement_groups_file(path: &Path, source: &str) -> Result<JudgementGroups> {
    let data = std::fs::read(path).map_err(|e| io_error(&e, source))?;
    parse_judgement_groups(&data, source)
}

/// Read qrels with judgement groups from bytes. Grades are integers (trec_eval reads them with
/// `atol`, which would read `1e1` as 1); a document judged twice in one group of a query is an
/// error. Blank lines and lines starting with `#` are skipped.
pub fn parse_judgement_groups(data: &[u8], source: &str) -> Result<JudgementGroups> {
    let data = strip_bom(data);
    let mut groups: BTreeMap<Vec<u8>, Qrels> = BTreeMap::new();
    let mut seen: HashSet<(&[u8], &[u8], &[u8])> = HashSet::new();
    for (index, raw) in data.split(|&b| b == b'\n').enumerate() {
        let number = index as u64 + 1;
        let located = |message: String, text: String| {
            Error::Parse(
                InputProblem::new(message)
                    .in_source(source)
                    .at_line(number, text),
            )
        };
        if let Some((message, text)) = byte_problem(raw) {
            return Err(located(message, text));
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = || String::from_utf8_lossy(line).into_owned();
        let (fields, count) = split_fields::<5>(line);
        if count == 0 || fields[0].starts_with(b"#") {
            continue;
        }
        if count != 4 {
            let message = format!("expected 4 fields ({FIELDS}); found {count}");
            return Err(located(message, text()));
        }
        let field = |i: usize| String::from_utf8_lossy(fields[i]).into_owned();
        let Some(grade) = parse_integer(fields[3]) else {
            let message = format!(
                "relevance must be an integer grade; found {}",
                quoted(&field(3))
            );
            return Err(located(message, text()));
        };
        if !seen.insert((fields[0], fields[1], fields[2])) {
            let message = format!(
                "document {} is judged twice in group {} of query {}",
                quoted(&field(2)),
                quoted(&field(1)),
                quoted(&field(0))
            );
            return Err(located(message, text()));
        }
        groups
            .entry(fields[1].to_vec())
            .or_insert_with(|| Qrels::new(source))
            .push(&field(0), &field(2), grade);
    }
    if groups.is_empty() {
        return Err(empty_error(
            data,
            source,
            "qrels with judgement groups",
            FIELDS,
            &Skipped::default(),
        ));
    }
    Ok(JudgementGroups {
        source: source.to_string(),
        groups: groups
            .into_iter()
            .map(|(name, qrels)| (String::from_utf8_lossy(&name).into_owned(), qrels))
            .collect(),
    })
}

/// Each measure against each group, and per query the mean over the groups judging it (added
/// in group order, as trec_eval adds them). A group judging no query of the run is left out;
/// queries of the run no group judges are listed as unjudged.
pub fn evaluate_groups(
    groups: &JudgementGroups,
    run: &Run,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<Evaluation> {
    let mut evaluations = Vec::with_capacity(groups.groups.len());
    for (_, qrels) in &groups.groups {
        match evaluate(qrels, run, measures, options) {
            Ok(evaluation) => evaluations.push(evaluation),
            Err(Error::NoCommonQueries(_)) => {}
            Err(other) => return Err(other),
        }
    }
    if evaluations.is_empty() {
        return Err(Error::NoCommonQueries(
            InputProblem::new(format!(
                "no query of the run ({}) is judged in any judgement group",
                run.source
            ))
            .in_source(&groups.source),
        ));
    }
    // Per query: the sum over groups of each measure, and how many groups judge it.
    let mut sums: BTreeMap<&str, (Vec<f64>, usize)> = BTreeMap::new();
    for evaluation in &evaluations {
        for (q, query) in evaluation.query_ids.iter().enumerate() {
            let (totals, count) = sums
                .entry(query.as_str())
                .or_insert_with(|| (vec![0.0; measures.len()], 0));
            for (total, column) in totals.iter_mut().zip(&evaluation.values) {
                *total += column[q];
            }
            *count += 1;
        }
    }
    let mut values = vec![Vec::with_capacity(sums.len()); measures.len()];
    for (totals, count) in sums.values() {
        for (column, total) in values.iter_mut().zip(totals) {
            column.push(total / *count as f64);
        }
    }
    let judged_by_none = |query: &&String| {
        evaluations
            .iter()
            .all(|e| e.unjudged_queries.contains(query))
    };
    let mut missing: Vec<String> = evaluations
        .iter()
        .flat_map(|e| e.missing_queries.iter().cloned())
        .collect();
    missing.sort_unstable();
    missing.dedup();
    Ok(Evaluation {
        measures: measures.to_vec(),
        query_ids: sums.keys().map(|q| (*q).to_string()).collect(),
        values,
        unjudged_queries: evaluations[0]
            .unjudged_queries
            .iter()
            .filter(judged_by_none)
            .cloned()
            .collect(),
        missing_queries: missing,
        run_name: run.name.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::parse_measures;
    use crate::profile::Conventions;
    use crate::trec::{parse_run, ReadOptions};

    fn error(text: &str) -> String {
        parse_judgement_groups(text.as_bytes(), "jg")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_reader_names_file_and_line() {
        assert_eq!(
            error("q A a 1\nq A b\n"),
            "jg:2: expected 4 fields (query_id group doc_id relevance); found 3\n    q A b"
        );
        assert_eq!(
            error("q A a 1e1\n"),
            "jg:1: relevance must be an integer grade; found '1e1'\n    q A a 1e1"
        );
        assert_eq!(
            error("q1 A a 1\nq1 B a 0\n# c\nq1 A a 0\n"),
            "jg:4: document 'a' is judged twice in group 'A' of query 'q1'\n    q1 A a 0"
        );
        assert!(error("# only\n").contains("holds only comments"));
    }

    #[test]
    fn each_group_s_value_is_averaged_over_the_groups_judging_the_query() {
        // Group A finds a relevant (AP 1), group B finds b relevant (AP 1/2); q2 has A only.
        let groups =
            parse_judgement_groups(b"q1 B a 0\nq1 A a 1\nq1 A b 0\nq1 B b 1\nq2 A c 1\n", "jg")
                .unwrap();
        let names: Vec<&str> = groups.groups.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        let text = b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 c 1 1 t\nq3 Q0 d 1 1 t\n";
        let run = parse_run(text, "run", &ReadOptions::default())
            .unwrap()
            .table;
        let options = EvalOptions::new(Conventions::profile("trec").unwrap());
        let measures = parse_measures(&["AP", "P@2"]).unwrap();
        let out = evaluate_groups(&groups, &run, &measures, &options).unwrap();
        assert_eq!(out.query_ids, ["q1", "q2"]);
        assert_eq!(out.values, [vec![0.75, 1.0], vec![0.5, 0.5]]);
        assert_eq!(out.unjudged_queries, ["q3"]);
        let other = parse_run(b"zz Q0 a 1 1 t\n", "run", &ReadOptions::default())
            .unwrap()
            .table;
        let error = evaluate_groups(&groups, &other, &measures, &options).unwrap_err();
        assert_eq!(
            error.to_string(),
            "jg: no query of the run (run) is judged in any judgement group"
        );
    }
}
