//! Families defined at run time (`measures::user`), in a process of their own: the other
//! tests list every family and must not see these come and go.

use std::sync::Arc;

use rankscope_core::measures::user::{
    define, families, scorer, undefine, Definition, ParamDefault, Scorer,
};
use rankscope_core::measures::{Aggregate, Context, CutoffKind, Measure};
use rankscope_core::{compute, parse_measure, Conventions, RankedBatch, Result};

/// Relevant documents in the top k, as the value of a parameter `scale` times it.
struct Hits;

impl Scorer for Hits {
    fn score(
        &self,
        measure: &Measure,
        batch: &RankedBatch,
        context: &Context<'_>,
    ) -> Result<Vec<f64>> {
        let scale = measure.number("scale").unwrap_or(1.0);
        let level = context.level(measure.relevance_level());
        Ok((0..batch.num_queries())
            .map(|q| {
                let query = batch.query(q);
                scale * query.num_relevant_retrieved(level, measure.cutoff_count()) as f64
            })
            .collect())
    }
}

fn definition(name: &str) -> Definition {
    Definition {
        name: name.into(),
        summary: "hits".into(),
        formula: "relevant retrieved times scale".into(),
        origin: "tests".into(),
        cutoff: CutoffKind::Optional,
        params: vec![
            ("scale".into(), ParamDefault::Number(1.0)),
            (
                "mode".into(),
                ParamDefault::Words(vec!["plain".into(), "other".into()]),
            ),
        ],
        aggregate: Aggregate::Mean,
        bounded: false,
    }
}

fn batch() -> RankedBatch {
    RankedBatch {
        query_ids: vec!["a".into(), "b".into()],
        offsets: vec![0, 3, 4],
        grades: vec![2, -1, 1, 0],
        judged_offsets: vec![0, 3, 4],
        judged: vec![2, 1, 0, 1],
        num_distinct_relevant: None,
        subtopics: None,
        scores: None,
        judged_ranks: None,
    }
}

#[test]
fn a_user_family_parses_and_scores_beside_the_kernels() {
    define(&definition("TestHits"), Arc::new(Hits)).unwrap();
    let trec = Conventions::profile("trec").unwrap();
    let measures = [
        parse_measure("P@2").unwrap(),
        parse_measure("TestHits(scale=2,rel=2)@3").unwrap(),
        parse_measure("testhits").unwrap(),
    ];
    assert_eq!(measures[1].name(), "TestHits(scale=2.0,rel=2)@3");
    let values = compute(&batch(), &measures, &trec, 1).unwrap();
    assert_eq!(values, [vec![0.5, 0.0], vec![2.0, 0.0], vec![2.0, 0.0]]);
    assert!(rankscope_core::families().any(|f| f.name == "TestHits"));
}

#[test]
fn parameters_are_checked_as_built_ins_are() {
    define(&definition("TestChecked"), Arc::new(Hits)).unwrap();
    let message = |name: &str| parse_measure(name).unwrap_err().to_string();
    assert!(message("TestChecked(scale=x)").contains("scale"));
    assert!(message("TestChecked(mode=loud)").contains("plain"));
    assert!(message("TestChecked(alpha=1)").contains("alpha"));
    assert_eq!(
        parse_measure("TestChecked(mode=other)@5").unwrap().name(),
        "TestChecked(mode=other)@5"
    );
}

#[test]
fn definitions_are_checked() {
    let refused =
        |definition: Definition| define(&definition, Arc::new(Hits)).unwrap_err().to_string();
    assert_eq!(
        refused(definition("nDCG")),
        "'nDCG' is a built-in measure; give yours another name"
    );
    assert_eq!(
        refused(definition("map")),
        "'map' names the built-in measure AP; give yours another name"
    );
    assert_eq!(
        refused(definition("my gain")),
        "a measure's name is a letter, then letters, digits, '_' or '-'; got 'my gain'"
    );
    let mut with_rel = definition("TestRel");
    with_rel
        .params
        .push(("rel".into(), ParamDefault::Integer(1)));
    assert_eq!(
        refused(with_rel),
        "TestRel: rel= is every measure's parameter already (the relevance level it is \
         given)"
    );
    let mut level = definition("TestLevel");
    level.cutoff = CutoffKind::RecallLevel;
    assert!(refused(level).contains("'none', 'optional' or 'required'"));
}

#[test]
fn a_definition_replaces_the_one_of_its_name() {
    let first = define(&definition("TestAgain"), Arc::new(Hits)).unwrap();
    let parsed = parse_measure("TestAgain(scale=3)").unwrap();
    let mut again = definition("testagain");
    again.params.clear();
    let second = define(&again, Arc::new(Hits)).unwrap();
    assert!(!std::ptr::eq(first, second));
    assert!(parse_measure("TestAgain(scale=3)").is_err());
    // Parsed before: keeps its definition and its scorer.
    assert!(scorer(parsed.family).is_some());
    let count = families()
        .iter()
        .filter(|f| f.name.eq_ignore_ascii_case("testagain"))
        .count();
    assert_eq!(count, 1);
    assert!(undefine("TESTAGAIN"));
    assert!(parse_measure("TestAgain").is_err());
}
