//! Every kernel on small hand-computed cases, and WeKnora's worked numbers.

use rankscope_core::measures::{families, Aggregate, Kind};
use rankscope_core::{compute, parse_measure, prepare_query, Conventions, RankedBatch};

fn trec() -> Conventions {
    Conventions::profile("trec").unwrap()
}

/// One query: ranked a (2), u (unjudged), n (0), b (1), v (unjudged); judged also c (1),
/// never retrieved. R = 3 relevant, N = 1 judged non-relevant.
fn example() -> RankedBatch {
    let judged = [("a", 2), ("b", 1), ("c", 1), ("n", 0)];
    let ranking = [("a", 5.0), ("u", 4.0), ("n", 3.0), ("b", 2.0), ("v", 1.0)];
    prepare_query(&judged, &ranking, &trec(), 1, "q").unwrap()
}

fn value(batch: &RankedBatch, conventions: &Conventions, name: &str) -> f64 {
    let measure = parse_measure(name).unwrap();
    compute(batch, &[measure], conventions, 1).unwrap()[0][0]
}

fn close(got: f64, expected: f64, what: &str) {
    assert!(
        (got - expected).abs() < 1e-12,
        "{what}: got {got}, expected {expected}"
    );
}

#[test]
fn trec_kernels_on_a_worked_example() {
    let batch = example();
    let log2 = |x: f64| x.log2();
    let cases = [
        ("P@2", 0.5),
        ("P@10", 0.2),
        ("P", 0.4),
        ("R@3", 1.0 / 3.0),
        ("R", 2.0 / 3.0),
        ("RR", 1.0),
        ("RR@1", 1.0),
        ("AP", (1.0 + 2.0 / 4.0) / 3.0),
        ("AP@3", 1.0 / 3.0),
        ("Rprec", 1.0 / 3.0),
        ("Success@1", 1.0),
        ("Bpref", 1.0 / 3.0),
        ("IPrec@0.0", 1.0),
        ("IPrec@0.5", 0.5),
        ("IPrec@1.0", 0.0),
        (
            "nDCG",
            (2.0 + 1.0 / log2(5.0)) / (2.0 + 1.0 / log2(3.0) + 0.5),
        ),
        ("nDCG@2", 2.0 / (2.0 + 1.0 / log2(3.0))),
        (
            "nDCG(gain=exp)",
            (3.0 + 1.0 / log2(5.0)) / (3.0 + 1.0 / log2(3.0) + 0.5),
        ),
        ("NumRet", 5.0),
        ("NumRel", 3.0),
        ("NumRelRet", 2.0),
        ("NumQ", 1.0),
        ("P(rel=2)@2", 0.5),
        ("AP(rel=2)", 1.0),
        ("NumRel(rel=2)", 1.0),
        ("Bpref(rel=2)", 1.0),
    ];
    for (name, expected) in cases {
        close(value(&batch, &trec(), name), expected, name);
    }
}

#[test]
fn rr_and_success_see_only_the_cutoff() {
    let batch = prepare_query(&[("b", 1)], &[("a", 2.0), ("b", 1.0)], &trec(), 1, "q").unwrap();
    close(value(&batch, &trec(), "RR"), 0.5, "RR");
    close(value(&batch, &trec(), "RR@1"), 0.0, "RR@1");
    close(value(&batch, &trec(), "Success@1"), 0.0, "Success@1");
    close(value(&batch, &trec(), "Success@2"), 1.0, "Success@2");
}

#[test]
fn a_query_without_relevant_documents_scores_zero_everywhere() {
    let batch = prepare_query(&[("a", 0)], &[("a", 1.0), ("b", 0.5)], &trec(), 1, "q").unwrap();
    for family in families().filter(|f| matches!(f.kind, Kind::Ranking(_))) {
        let name = match family.name {
            "Success" => "Success@5",
            "IPrec" => "IPrec@0.5",
            "RprecMult" => "RprecMult@1.0",
            "Unjudged" => "Unjudged@5",
            // The C/W/L measures.
            "SDCG" => "SDCG(max_rel=3)@5",
            "NERR8" => "NERR8(max_rel=3)@5",
            "NERR9" => "NERR9(max_rel=3)@5",
            "NERR10" => "NERR10(max_rel=3)",
            "NERR11" => "NERR11(max_rel=3)",
            "INST" => "INST(max_rel=3)",
            "INSQ" => "INSQ(max_rel=3)",
            "BPM" => "BPM(max_rel=3)@5",
            // Diversity measures.
            "alpha_nDCG" => "alpha_nDCG@5",
            "alpha_DCG" => "alpha_DCG@5",
            "ERR_IA" => "ERR_IA@5",
            "nERR_IA" => "nERR_IA@5",
            "P_IA" => "P_IA@5",
            "StRecall" => "StRecall@5",
            other => other,
        };
        let got = value(&batch, &trec(), name);
        // b is unjudged: utility -1 for each non-relevant document retrieved, rbp_resid the
        // weight of rank 2 and beyond, unj@5 one in five, Judged one in two.
        let expected = match family.name {
            "NumRet" => 2.0,
            "NumQ" | "NumNonRelJudgedRet" => 1.0,
            "Utility" => -2.0,
            "TrecRBPResid" => 0.9 * 0.9 + 0.1 * 0.9,
            "RBPResid" => (1.0 - 0.8) * 0.8 + 0.8 * 0.8,
            "Unjudged" => 0.2,
            "Judged" => 0.5,
            _ => 0.0,
        };
        assert_eq!(got, expected, "{name}");
        assert!(got != 0.0 || got.is_sign_positive(), "{name} is +0.0");
    }
}

#[test]
fn trec9_rounds_recall_levels_up_from_0_1() {
    let trec9 = Conventions::profile("trec9").unwrap();
    // R = 3, two relevant retrieved (precisions 1 and 0.5). Level 0.4: trec_eval 10 needs
    // round(1.2) = 1 relevant document (precision 1), trec_eval 9 int(1.2 + 0.9) = 2 (0.5).
    let batch = example();
    close(value(&batch, &trec(), "IPrec@0.4"), 1.0, "trec IPrec@0.4");
    close(value(&batch, &trec9, "IPrec@0.4"), 0.5, "trec9 IPrec@0.4");
}

#[test]
fn exponential_gain_refuses_huge_grades() {
    let batch = prepare_query(&[("a", 1024)], &[("a", 1.0)], &trec(), 1, "q").unwrap();
    let measure = parse_measure("nDCG(gain=exp)@10").unwrap();
    let error = compute(&batch, &[measure], &trec(), 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "nDCG with gain=exp needs grades up to 1023 (2**grade must fit a float); found a grade \
         of 1024; use the linear gain"
    );
    let linear = parse_measure("nDCG@10").unwrap();
    assert_eq!(compute(&batch, &[linear], &trec(), 1).unwrap()[0][0], 1.0);
}

#[test]
fn aggregates() {
    close(
        Aggregate::GeometricMean.apply(&[0.5, 0.0]),
        (0.5f64 * 1e-5).sqrt(),
        "gm",
    );
    close(
        Aggregate::Mean.apply(&[0.1, 0.2, 0.3]),
        (0.1 + 0.2 + 0.3) / 3.0,
        "mean",
    );
}

/// WeKnora's metrics of one question: ground-truth lists and retrieved ids (as
/// `rankscope.metric` takes them): nDCG on the union of the lists, the others per list, averaged.
fn weknora(gt: &[&[&str]], ids: &[&str], name: &str) -> f64 {
    let conventions = Conventions::profile("weknora").unwrap();
    let measure = parse_measure(name).unwrap();
    let ranking: Vec<(&str, f64)> = ids.iter().map(|d| (*d, 0.0)).collect();
    let score = |lists: &[Vec<&str>]| -> f64 {
        lists
            .iter()
            .filter(|gt| !gt.is_empty())
            .map(|gt| {
                let judged: Vec<(&str, i64)> = gt.iter().map(|d| (*d, 1)).collect();
                let batch = prepare_query(&judged, &ranking, &conventions, 1, "q").unwrap();
                compute(&batch, std::slice::from_ref(&measure), &conventions, 1).unwrap()[0][0]
            })
            .sum()
    };
    if measure.family.name == "nDCG" {
        let union: Vec<&str> = gt.iter().flat_map(|g| g.iter().copied()).collect();
        return score(&[union]);
    }
    let lists: Vec<Vec<&str>> = gt.iter().map(|g| g.to_vec()).collect();
    score(&lists) / gt.len() as f64
}

#[test]
fn weknora_worked_example() {
    let gt: &[&[&str]] = &[&["1", "5", "8"]];
    let ids = ["1", "3", "5", "7", "8", "10", "12", "14", "16", "18"];
    let rounded = |name: &str| (weknora(gt, &ids, name) * 1e6).round() / 1e6;
    assert_eq!(rounded("nDCG@10"), 0.885460);
    assert_eq!(rounded("nDCG@3"), 0.703918);
    assert_eq!(rounded("P"), 0.3);
    assert_eq!(rounded("R"), 1.0);
    assert_eq!(rounded("RR"), 1.0);
    assert_eq!(rounded("AP"), 0.755556);
}

#[test]
fn weknora_quirks() {
    // Returning fewer documents can raise nDCG; duplicates can push it above 1.
    assert_eq!(weknora(&[&["1", "2", "3"]], &["1"], "nDCG@10"), 1.0);
    let doubled = weknora(&[&["1", "2"]], &["1", "1", "1", "1"], "nDCG@10");
    assert_eq!((doubled * 1e6).round() / 1e6, 1.570642);
    assert_eq!(weknora(&[&["1", "2"]], &["1", "1", "1", "1"], "R"), 2.0);
    // MRR and MAP per list, averaged over the lists.
    close(
        weknora(&[&["3"], &["9"]], &["1", "3", "9"], "RR"),
        0.41666666666666663,
        "MRR",
    );
    let map = weknora(&[&["1", "2"], &["2", "3"]], &["2", "9", "1"], "AP");
    assert_eq!((map * 1e6).round() / 1e6, 0.916667);
    let precision = weknora(&[&["1", "2"], &["2", "3"]], &["2", "9", "1"], "P");
    close(precision, 0.5, "precision");
}

/// trec_eval's other measures on the worked example: a (2), u (unjudged), n (0), b (1),
/// v (unjudged); R = 3, judged a, b, c (relevant) and n.
#[test]
fn trec_eval_extra_kernels_on_the_worked_example() {
    let batch = example();
    let log2 = |x: f64| x.log2();
    let ndcg = (2.0 + 1.0 / log2(5.0)) / (2.0 + 1.0 / log2(3.0) + 0.5);
    let ideal_at_3 = 2.0 + 1.0 / log2(3.0) + 0.5;
    let cases = [
        // 1 at rank 1; at rank 4: 1/4 + (3/4)(2/3)(1 + e)/(2 + 2e) = 1/2.
        ("infAP", 1.5 / 3.0),
        ("GM_Bpref", 1.0 / 3.0),
        ("RprecMult@1.0", 1.0 / 3.0),
        ("RprecMult@0.2", 1.0),
        ("RprecMult@2.0", 2.0 / 6.0),
        ("Utility", 2.0 - 3.0),
        (
            "Utility(a=2,b=-1,c=0,d=1,n=100)",
            4.0 - 3.0 + (100.0 + 2.0 - 5.0 - 3.0),
        ),
        // IPrec at 0.0 ... 0.4 is 1, at 0.5 ... 0.8 is 0.5, at 0.9 and 1.0 is 0.
        ("IPrecAvg", 7.0 / 11.0),
        ("IPrecAvg(levels=0.2;0.5)", 0.75),
        ("BinG", (1.0 + 1.0 / log2(4.0)) / 3.0),
        // cost 2, 3, 4, 5: 2/log2(2) + 1/log2(2 + 5 - 3), over ideal gains 2 + 1 + 1.
        ("G", 2.5 / 4.0),
        ("nDCGRel", (1.0 + ndcg + ndcg) / 3.0),
        ("RnDCG", (1.0 + 2.0 / ideal_at_3 + ndcg) / 3.0),
        ("RelP@2", 0.5),
        ("RelP@10", 2.0 / 3.0),
        ("RelP", 2.0 / 3.0),
        ("SetAP", 4.0 / 15.0),
        ("SetF", 0.5),
        ("F(beta=0.5)", 1.5 * 0.4 * (2.0 / 3.0) / (0.2 + 2.0 / 3.0)),
        ("NumNonRelJudgedRet", 1.0),
        // grades 0..2 scaled by 1/2: a gains 1 at rank 1, b 0.5 at rank 4.
        ("TrecRBP", 0.1 * (1.0 + 0.5 * 0.9f64.powi(3))),
        ("TrecRBP(p=0.5)", 0.5 * (1.0 + 0.5 * 0.5f64.powi(3))),
        (
            "TrecRBPResid",
            0.9f64.powi(5) + 0.1 * (0.9 + 0.9f64.powi(4)),
        ),
        ("Unjudged@2", 0.5),
        ("Unjudged@10", 0.2),
        ("YAAP", (2.5f64 / 2.5).ln()),
        (
            "nDCG(gains=1:3;2:9)",
            (9.0 + 3.0 / log2(5.0)) / (9.0 + 3.0 / log2(3.0) + 1.5),
        ),
        ("nDCG(gains=1:3;2:9)@1", 1.0),
    ];
    for (name, expected) in cases {
        close(value(&batch, &trec(), name), expected, name);
    }
}

#[test]
fn infap_tells_pooled_unjudged_from_unpooled() {
    // p is in the pool but unjudged (grade -1), x is not in the pool.
    let judged = [("a", 1), ("b", 1), ("p", -1)];
    let ranking = [("a", 4.0), ("p", 3.0), ("x", 2.0), ("b", 1.0)];
    let batch = prepare_query(&judged, &ranking, &trec(), 1, "q").unwrap();
    let e = 0.00001;
    let at_4 = 0.25 + 0.75 * (2.0 / 3.0) * ((1.0 + e) / (1.0 + 2.0 * e));
    close(value(&batch, &trec(), "infAP"), (1.0 + at_4) / 2.0, "infAP");
    close(value(&batch, &trec(), "Unjudged@4"), 0.5, "unj@4");
}

#[test]
fn tied_scores_share_their_positions_under_sklearn() {
    // Ranked a (2) and b (0) tied at 3.0, then c (1); judged d (3), never retrieved.
    let sklearn = Conventions::profile("sklearn").unwrap();
    let judged = [("a", 2), ("b", 0), ("c", 1), ("d", 3)];
    let ranking = [("a", 3.0), ("b", 3.0), ("c", 1.0)];
    let batch = prepare_query(&judged, &ranking, &sklearn, 1, "q").unwrap();
    let discount = |i: f64| 1.0 / (i + 1.0).log2();
    // a and b share ranks 1 and 2 at their mean gain 1; d, not retrieved, is not in the ideal.
    let dcg = 1.0 * (discount(1.0) + discount(2.0)) + 1.0 * discount(3.0);
    let ideal = 2.0 * discount(1.0) + 1.0 * discount(2.0);
    close(value(&batch, &sklearn, "nDCG"), dcg / ideal, "nDCG");
    // At k = 1 the group still gives its mean gain, over the one position within k.
    close(value(&batch, &sklearn, "nDCG@1"), 1.0 / 2.0, "nDCG@1");
    // Without ties averaged, the trec order (b before a: ids descending) and every judgement.
    let trec_batch = prepare_query(&judged, &ranking, &trec(), 1, "q").unwrap();
    let ordered = 2.0 * discount(2.0) + discount(3.0);
    let trec_ideal = 3.0 + 2.0 * discount(2.0) + discount(3.0);
    close(
        value(&trec_batch, &trec(), "nDCG"),
        ordered / trec_ideal,
        "trec nDCG",
    );
}
