//! `evaluate` end to end: options, warnings, qrels indexed once for many runs.

use rankscope_core::trec::{parse_qrels, parse_run, ReadOptions};
use rankscope_core::{
    evaluate, evaluate_with, parse_measures, Conventions, EvalOptions, Judgements, Qrels, Run,
};

fn qrels() -> Qrels {
    let data = b"q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n";
    parse_qrels(data, "qrels.txt", &ReadOptions::default())
        .unwrap()
        .table
}

fn run(data: &[u8]) -> Run {
    parse_run(data, "run.txt", &ReadOptions::default())
        .unwrap()
        .table
}

fn trec() -> EvalOptions {
    EvalOptions::new(Conventions::profile("trec").unwrap())
}

#[test]
fn values_sorted_by_query_with_what_was_left_out() {
    let measures = parse_measures(&["P@1", "NumQ"]).unwrap();
    let ranked = run(b"q2 Q0 c 1 1 bm25\nq9 Q0 a 1 1 bm25\nq8 Q0 a 1 1 bm25\n");
    let out = evaluate(&qrels(), &ranked, &measures, &trec()).unwrap();
    assert_eq!(out.query_ids, ["q2"]);
    assert_eq!(out.values, [vec![1.0], vec![1.0]]);
    assert_eq!(out.missing_queries, ["q1"]);
    assert_eq!(
        out.unjudged_warning().unwrap(),
        "2 queries of run 'bm25' have no judgements and were ignored: q8, q9"
    );
    assert_eq!(out.aggregates(), [1.0, 1.0]);
}

#[test]
fn levels_below_one_and_no_documents_are_trec_evals() {
    // trec_eval -l0: a judged non-relevant document counts; -M0: nothing is retrieved.
    let measures = parse_measures(&["P@1", "NumRel", "NumRet"]).unwrap();
    let ranked = run(b"q1 Q0 b 1 1 t\n");
    let mut options = trec();
    assert_eq!(
        evaluate(&qrels(), &ranked, &measures, &options)
            .unwrap()
            .aggregates(),
        [0.0, 1.0, 1.0]
    );
    options.relevance_level = 0;
    assert_eq!(
        evaluate(&qrels(), &ranked, &measures, &options)
            .unwrap()
            .aggregates(),
        [1.0, 2.0, 1.0]
    );
    options.max_documents = Some(0);
    assert_eq!(
        evaluate(&qrels(), &ranked, &measures, &options)
            .unwrap()
            .aggregates(),
        [0.0, 2.0, 0.0]
    );
    let weknora = EvalOptions::new(Conventions::profile("weknora").unwrap());
    let error = evaluate(&qrels(), &ranked, &measures, &weknora).unwrap_err();
    assert_eq!(error.kind(), "Profile");
}

#[test]
fn one_index_serves_many_runs() {
    let measures = parse_measures(&["RR", "nDCG@2"]).unwrap();
    let judged = qrels();
    let options = trec();
    let index = Judgements::new(&judged, &options.conventions, options.relevance_level).unwrap();
    for data in [
        &b"q1 Q0 b 1 2 x\nq1 Q0 a 2 1 x\n"[..],
        b"q2 Q0 z 1 3 y\nq2 Q0 c 2 2 y\n",
    ] {
        let ranked = run(data);
        let alone = evaluate(&judged, &ranked, &measures, &options).unwrap();
        assert_eq!(
            evaluate_with(&index, &ranked, &measures, &options).unwrap(),
            alone
        );
        assert_eq!(alone.values[0], [0.5]);
    }
    let unjudged = run(b"q7 Q0 a 1 1 t\n");
    let error = evaluate_with(&index, &unjudged, &measures, &options).unwrap_err();
    assert_eq!(error.kind(), "NoCommonQueries");
}
