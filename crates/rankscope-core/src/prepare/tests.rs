//! Hand-computed cases of prepare: orders, ties, duplicates, profiles, options.

use super::*;
use crate::batch::{Label, NOT_RETRIEVED, UNJUDGED};

fn qrels(rows: &[(&str, &str, i64)]) -> Qrels {
    let mut qrels = Qrels::new("qrels.txt");
    for &(q, d, g) in rows {
        qrels.push(q, d, g);
    }
    qrels
}

fn run(rows: &[(&str, &str, f64)]) -> Run {
    let mut run = Run::new("r", "run.txt");
    for &(q, d, s) in rows {
        run.push(q, d, s);
    }
    run
}

fn profile(name: &str) -> Conventions {
    Conventions::profile(name).unwrap()
}

fn prepared(q: &Qrels, r: &Run, conventions: &Conventions, options: PrepareOptions) -> Prepared {
    prepare(q, r, conventions, &options).unwrap()
}

fn error(q: &Qrels, r: &Run, conventions: &Conventions, options: PrepareOptions) -> Error {
    prepare(q, r, conventions, &options).unwrap_err()
}

#[test]
fn trec_orders_by_score_then_doc_id_descending() {
    let judged = qrels(&[
        ("q1", "a", 2),
        ("q1", "b", 1),
        ("q1", "c", 0),
        ("q0", "x", 1),
    ]);
    // Not in rank order; b and a tie, so b (the larger id) comes first.
    let ranked = run(&[
        ("q1", "a", 1.0),
        ("q1", "c", 3.0),
        ("q1", "b", 1.0),
        ("q1", "d", 2.0),
        ("q0", "x", 5.0),
    ]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(out.batch.query_ids, ["q0", "q1"]);
    assert_eq!(out.batch.offsets, [0, 1, 5]);
    assert_eq!(out.batch.grades, [1, 0, UNJUDGED, 1, 2]);
    assert_eq!(out.batch.judged_offsets, [0, 1, 4]);
    assert_eq!(out.batch.judged, [1, 2, 1, 0]);
    assert_eq!(out.batch.num_distinct_relevant, None);
}

#[test]
fn ties_are_reordered_in_a_run_otherwise_in_rank_order() {
    let judged = qrels(&[("q", "a", 1), ("q", "b", 2), ("q", "z", 3)]);
    // Scores already descend; within the ties, ids must descend: z, a then b, a.
    let ranked = run(&[
        ("q", "a", 3.0),
        ("q", "z", 3.0),
        ("q", "c", 2.0),
        ("q", "a2", 1.0),
        ("q", "b", 1.0),
    ]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(out.batch.grades, [3, 1, UNJUDGED, 2, UNJUDGED]);
}

#[test]
fn byte_order_breaks_ties() {
    // "Z" (0x5a) sorts before "a" (0x61) and "é" (0xc3 0xa9) after both: descending is é, a, Z.
    let judged = qrels(&[("q", "Z", 1), ("q", "a", 2), ("q", "é", 3)]);
    let ranked = run(&[("q", "Z", 1.0), ("q", "a", 1.0), ("q", "é", 1.0)]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(out.batch.grades, [3, 2, 1]);
}

#[test]
fn trec9_compares_scores_as_32_bit_floats() {
    let judged = qrels(&[("q", "a", 1), ("q", "b", 2)]);
    // Different as doubles, equal as floats: trec9 ties them, so b ranks first.
    let ranked = run(&[("q", "a", 0.1000000001), ("q", "b", 0.1)]);
    let trec = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(trec.batch.grades, [1, 2]);
    let trec9 = prepared(
        &judged,
        &ranked,
        &profile("trec9"),
        PrepareOptions::default(),
    );
    assert_eq!(trec9.batch.grades, [2, 1]);
    // Beyond float range both become infinity, and tie.
    let huge = run(&[("q", "a", 1e300), ("q", "b", 1e301)]);
    let out = prepared(&judged, &huge, &profile("trec9"), PrepareOptions::default());
    assert_eq!(out.batch.grades, [2, 1]);
}

#[test]
fn weknora_keeps_the_order_and_every_duplicate() {
    let judged = qrels(&[("q", "1", 1), ("q", "5", 1), ("q", "5", 1), ("q", "8", 3)]);
    let ranked = run(&[
        ("q", "3", 9.0),
        ("q", "5", 1.0),
        ("q", "5", 1.0),
        ("q", "8", 5.0),
    ]);
    let options = PrepareOptions {
        relevance_level: 2,
        ..PrepareOptions::default()
    };
    let out = prepared(&judged, &ranked, &profile("weknora"), options);
    // Binary at level 2: only 8 is relevant; the repeated judgement of 5 stays (countGt).
    assert_eq!(out.batch.grades, [UNJUDGED, 0, 0, 1]);
    assert_eq!(out.batch.judged, [1, 0, 0, 0]);
    assert_eq!(out.batch.num_distinct_relevant, Some(vec![1]));
    let level_one = prepared(
        &judged,
        &ranked,
        &profile("weknora"),
        PrepareOptions::default(),
    );
    assert_eq!(level_one.batch.judged, [1, 1, 1, 1]);
    assert_eq!(level_one.batch.num_distinct_relevant, Some(vec![3]));
}

#[test]
fn a_document_ranked_twice_is_an_error_naming_the_first_query_of_the_run() {
    let judged = qrels(&[("q1", "a", 1), ("q2", "a", 1)]);
    let ranked = run(&[
        ("q2", "b", 2.0),
        ("q2", "a", 1.0),
        ("q2", "b", 0.5),
        ("q1", "c", 1.0),
        ("q1", "c", 2.0),
    ]);
    let e = error(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(e.kind(), "DuplicateDocument");
    assert_eq!(
        e.to_string(),
        "run.txt: document 'b' appears more than once in the run of query 'q2'; each document \
         may be ranked once per query (evaluate(..., duplicate_documents='keep_first') keeps \
         the first, as ranked by score)"
    );
}

#[test]
fn duplicates_count_only_in_judged_queries_and_within_the_cut() {
    let judged = qrels(&[("q1", "a", 1)]);
    let in_unjudged = run(&[("q1", "a", 1.0), ("q9", "x", 1.0), ("q9", "x", 0.5)]);
    let out = prepared(
        &judged,
        &in_unjudged,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(out.unjudged_queries, ["q9"]);
    let beyond_cut = run(&[("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "b", 1.0)]);
    let cut = PrepareOptions {
        max_documents: Some(2),
        ..PrepareOptions::default()
    };
    assert_eq!(
        prepared(&judged, &beyond_cut, &profile("trec"), cut)
            .batch
            .grades,
        [1, UNJUDGED]
    );
    let uncut = error(
        &judged,
        &beyond_cut,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert!(uncut
        .to_string()
        .contains("document 'b' appears more than once"));
}

#[test]
fn keep_first_keeps_the_first_as_ranked() {
    let judged = qrels(&[("q", "a", 2), ("q", "b", 1)]);
    let ranked = run(&[
        ("q", "b", 1.0),
        ("q", "a", 0.5),
        ("q", "b", 3.0),
        ("q", "c", 0.1),
    ]);
    let keep_first = profile("trec")
        .with_option("duplicate_documents", "keep_first")
        .unwrap();
    let cut = PrepareOptions {
        max_documents: Some(2),
        ..PrepareOptions::default()
    };
    let out = prepared(&judged, &ranked, &keep_first, cut);
    // Ranked: b (3.0), b (1.0), a, c; the second b goes, then the cut at 2 keeps b and a.
    assert_eq!(out.batch.grades, [1, 2]);
}

#[test]
fn a_document_judged_twice_is_an_error_unless_weknora() {
    let judged = qrels(&[
        ("q1", "a", 1),
        ("q2", "b", 1),
        ("q2", "a", 0),
        ("q2", "b", 2),
        ("q1", "a", 0),
    ]);
    let ranked = run(&[("q1", "a", 1.0)]);
    let e = error(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(
        e.to_string(),
        "qrels.txt: document 'a' appears more than once in the qrels of query 'q1'; each \
         document may be judged once per query"
    );
    assert!(check_qrels(&judged, &profile("weknora")).is_ok());
}

#[test]
fn runs_not_grouped_by_query_are_grouped() {
    let judged = qrels(&[("q1", "a", 1), ("q2", "b", 1)]);
    let ranked = run(&[
        ("q2", "x", 1.0),
        ("q1", "a", 1.0),
        ("q2", "b", 2.0),
        ("q1", "y", 2.0),
    ]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(out.batch.grades, [UNJUDGED, 1, 1, UNJUDGED]);
    let weknora = prepared(
        &judged,
        &ranked,
        &profile("weknora"),
        PrepareOptions::default(),
    );
    assert_eq!(weknora.batch.grades, [1, UNJUDGED, UNJUDGED, 1]);
}

#[test]
fn complete_adds_the_judged_queries_missing_from_the_run() {
    let judged = qrels(&[("q3", "a", 1), ("q1", "a", 1), ("q2", "b", 1)]);
    let ranked = run(&[("q2", "b", 1.0), ("q4", "b", 1.0)]);
    let plain = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(plain.batch.query_ids, ["q2"]);
    assert_eq!(plain.missing_queries, ["q1", "q3"]);
    assert_eq!(plain.unjudged_queries, ["q4"]);
    let complete = PrepareOptions {
        complete: true,
        ..PrepareOptions::default()
    };
    let out = prepared(&judged, &ranked, &profile("trec"), complete);
    assert_eq!(out.batch.query_ids, ["q1", "q2", "q3"]);
    assert_eq!(out.batch.offsets, [0, 0, 1, 1]);
    assert_eq!(out.batch.judged_offsets, [0, 1, 2, 3]);
}

#[test]
fn no_common_query_is_an_error_unless_complete() {
    let judged = qrels(&[("q1", "a", 1)]);
    let ranked = run(&[("x", "a", 1.0), ("y", "a", 1.0)]);
    let e = error(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!(e.kind(), "NoCommonQueries");
    assert_eq!(
        e.to_string(),
        "no query of the run (run.txt) is judged in the qrels (qrels.txt): the run has 2 \
         queries, the qrels 1, none in common; check that the query ids match"
    );
    let complete = PrepareOptions {
        complete: true,
        ..PrepareOptions::default()
    };
    assert_eq!(
        prepared(&judged, &ranked, &profile("trec"), complete)
            .batch
            .query_ids,
        ["q1"]
    );
}

#[test]
fn one_query_from_lists() {
    let batch = prepare_query(
        &[("a", 2), ("b", 0)],
        &[("b", 0.5), ("a", 0.5), ("c", 0.9)],
        &profile("trec"),
        1,
        "q",
    )
    .unwrap();
    assert_eq!(batch.grades, [UNJUDGED, 0, 2]);
    assert_eq!(batch.judged, [2, 0]);
    let nothing = prepare_query(&[("a", 1)], &[], &profile("trec"), 1, "q").unwrap();
    assert_eq!(
        (nothing.offsets.clone(), nothing.judged.clone()),
        (vec![0, 0], vec![1])
    );
    let twice = prepare_query(
        &[("a", 1)],
        &[("b", 1.0), ("b", 2.0)],
        &profile("trec"),
        1,
        "q7",
    );
    assert_eq!(
        twice.unwrap_err().to_string(),
        "<ranking of query q7>: document 'b' appears more than once in the run of query 'q7'; \
         each document may be ranked once per query (evaluate(..., \
         duplicate_documents='keep_first') keeps the first, as ranked by score)"
    );
}

fn diversity_qrels(rows: &[(&str, &str, &str, i64)]) -> Qrels {
    let mut qrels = Qrels::new("qrels.txt");
    for &(q, s, d, g) in rows {
        qrels.push_with_subtopic(q, s, d, g);
    }
    qrels
}

#[test]
fn a_document_may_be_judged_once_per_subtopic() {
    let q = diversity_qrels(&[
        ("q1", "1", "a", 0),
        ("q1", "2", "a", 2),
        ("q1", "1", "b", 1),
        ("q2", "1", "a", 1),
    ]);
    let r = run(&[("q1", "a", 2.0), ("q1", "b", 1.0), ("q1", "c", 0.5)]);
    let options = PrepareOptions {
        subtopics: true,
        ..PrepareOptions::default()
    };
    let batch = prepared(&q, &r, &profile("trec"), options).batch;
    // Measures without subtopics: a's highest grade; one ideal entry per document.
    assert_eq!(batch.grades, [2, 1, UNJUDGED]);
    assert_eq!(batch.judged, [2, 1]);
    let subtopics = batch.subtopics.as_ref().unwrap();
    assert_eq!(subtopics.num_subtopics, [2]);
    let view = batch.query(0).subtopics.unwrap();
    let label = |subtopic, grade| Label { subtopic, grade };
    assert_eq!(view.retrieved.get(0), [label(0, 0), label(1, 2)]);
    assert_eq!(view.retrieved.get(1), [label(0, 1)]);
    assert!(view.retrieved.get(2).is_empty());
    // Judged documents by descending id: b, then a.
    assert_eq!(view.judged.get(0), [label(0, 1)]);
    assert_eq!(view.judged.get(1).len(), 2);
    // Without the option, no subtopics are attached.
    let plain = prepared(&q, &r, &profile("trec"), PrepareOptions::default()).batch;
    assert!(plain.subtopics.is_none() && plain.grades == batch.grades);
}

#[test]
fn a_document_judged_twice_for_one_subtopic_is_an_error() {
    let q = diversity_qrels(&[
        ("q1", "1", "a", 1),
        ("q1", "2", "a", 1),
        ("q1", "2", "a", 0),
    ]);
    let r = run(&[("q1", "a", 1.0)]);
    assert_eq!(
        error(&q, &r, &profile("trec"), PrepareOptions::default()).to_string(),
        "qrels.txt: document 'a' appears more than once in the qrels of query 'q1' for \
         subtopic '2'; each document may be judged once per subtopic of a query"
    );
}

#[test]
fn ranked_documents_list_every_query_in_rank_order_with_grades() {
    let judged = qrels(&[("q1", "b", 2), ("q1", "z", 1)]);
    let ranking = run(&[
        ("q2", "x", 0.1),
        ("q1", "a", 0.5),
        ("q1", "b", 0.5),
        ("q1", "c", 0.9),
    ]);
    let judgements = Judgements::new(&judged, &profile("trec"), 1).unwrap();
    let options = PrepareOptions::default();
    let listed = rank_documents(&judgements, &ranking, &options).unwrap();
    let docs = |d: &RankedDocuments| -> Vec<&str> {
        d.rows
            .iter()
            .map(|&r| ranking.docs.get(r as usize))
            .collect()
    };
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].query_id, "q1");
    assert_eq!(docs(&listed[0]), ["c", "b", "a"]);
    assert_eq!(listed[0].grades, [UNJUDGED, 2, UNJUDGED]);
    assert_eq!(
        (listed[1].query_id.as_str(), docs(&listed[1])),
        ("q2", vec!["x"])
    );
    assert_eq!(listed[1].grades, [UNJUDGED]);

    let cut = PrepareOptions {
        max_documents: Some(1),
        ..PrepareOptions::default()
    };
    let listed = rank_documents(&judgements, &ranking, &cut).unwrap();
    assert_eq!(docs(&listed[0]), ["c"]);

    let twice = run(&[("q1", "a", 0.5), ("q1", "a", 0.4)]);
    let error = rank_documents(&judgements, &twice, &options).unwrap_err();
    assert_eq!(error.kind(), "DuplicateDocument");
    let none = Qrels::new("<none>");
    let empty = Judgements::new(&none, &profile("trec"), 1).unwrap();
    assert_eq!(
        rank_documents(&empty, &ranking, &options).unwrap()[0].grades,
        [UNJUDGED; 3]
    );
}

#[test]
fn run_score_orders_equal_grades_by_score_then_qrels_order() {
    // Equal grades: by score descending (unretrieved 0.0), ties in the order of the qrels.
    let judged = qrels(&[
        ("q", "a", 2),
        ("q", "b", 2),
        ("q", "c", 2),
        ("q", "d", 1),
        ("q", "e", 2),
        ("q", "n", 0),
    ]);
    let ranked = run(&[
        ("q", "a", -1.0),
        ("q", "c", 0.0),
        ("q", "e", 3.0),
        ("q", "d", 2.0),
    ]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("ir_measures"),
        PrepareOptions::default(),
    );
    // Ranked: e (3), d (2), c (0), a (-1).
    assert_eq!(out.batch.grades, [2, 1, 2, 2]);
    assert_eq!(out.batch.judged, [2, 2, 2, 2, 1, 0]);
    // e (3.0), then b (unretrieved, 0.0) and c (0.0) in qrels order, then a (-1.0); d; n.
    let ranks = out.batch.judged_ranks.as_deref().unwrap();
    assert_eq!(ranks, [0, NOT_RETRIEVED, 2, 3, 1, NOT_RETRIEVED]);
    assert_eq!(
        out.batch.scores.as_deref(),
        Some(&[3.0, 2.0, 0.0, -1.0][..])
    );
    // The other profiles carry neither.
    let trec = prepared(
        &judged,
        &ranked,
        &profile("trec"),
        PrepareOptions::default(),
    );
    assert_eq!((trec.batch.scores, trec.batch.judged_ranks), (None, None));
    assert_eq!(trec.batch.judged, out.batch.judged);
}

#[test]
fn ignored_unretrieved_judgements_leave_the_ideal_ranking() {
    let judged = qrels(&[("q", "a", 1), ("q", "b", 3), ("q", "c", 2), ("q", "n", 0)]);
    let ranked = run(&[
        ("q", "a", 2.0),
        ("q", "u", 1.0),
        ("q", "c", 1.0),
        ("q", "a", 0.5),
    ]);
    let out = prepared(
        &judged,
        &ranked,
        &profile("sklearn"),
        PrepareOptions::default(),
    );
    // a twice (each item counts), c; b was not retrieved; u and c tie (ids descending).
    assert_eq!(out.batch.grades, [1, UNJUDGED, 2, 1]);
    assert_eq!(out.batch.judged, [2, 1, 1]);
    assert_eq!(out.batch.scores.as_deref(), Some(&[2.0, 1.0, 1.0, 0.5][..]));
}

#[test]
fn identical_ids_drop_a_query_s_own_document() {
    let judged = qrels(&[("q", "q", 1), ("q", "a", 1)]);
    let ranked = run(&[("q", "q", 9.0), ("q", "a", 1.0), ("q", "b", 0.5)]);
    let beir = prepared(
        &judged,
        &ranked,
        &profile("beir"),
        PrepareOptions::default(),
    );
    assert_eq!(beir.batch.grades, [1, UNJUDGED]);
    // Still judged: a judgement of the query's own id is the qrels' business.
    assert_eq!(beir.batch.judged, [1, 1]);
    let trec9 = prepared(
        &judged,
        &ranked,
        &profile("trec9"),
        PrepareOptions::default(),
    );
    assert_eq!(trec9.batch.grades, [1, 1, UNJUDGED]);
}
