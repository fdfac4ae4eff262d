//! ranx's measures that no trec_eval family gives: `hits`, `f1`, `dcg`, `dcg_burges` and
//! `ndcg_burges`, as ranx's `ranx/metrics/*.py` computes them.
//!
//! ranx's other names mean what a trec_eval family computes and are aliases of it
//! (`hit_rate` = Success, `r-precision` = Rprec, `precision` = P, `recall` = R, `mrr` = RR,
//! `map` = AP, `ndcg` = nDCG). As ranx, only grades >= the relevance level carry a gain, and a
//! query without relevant documents scores 0. Notation as in [`super::kernels`].

use super::kernels::{tie_averaged_dcg, tied_scores, Binary};
use super::names::{build, count, MAX_CUTOFF};
use super::{
    families, kernel, Context, CutoffKind, Family, Kind, Measure, Ranx, RanxLevel, RanxNumber, REL,
};
use crate::batch::QueryView;
use crate::error::{quoted, Error, Result};

/// Where ranx's measures are defined.
pub const CITATION: &str = "Bassani, ranx: a blazing-fast Python library for ranking \
                            evaluation and comparison, ECIR 2022; https://github.com/AmenRa/ranx";

/// ranx's own name of a family of this module: the same, with ranx's `@k` and `-lN` (an
/// `Option`, as the registry's field that takes it).
#[allow(clippy::unnecessary_wraps)]
const fn own(name: &'static str, note: &'static str) -> Option<Ranx> {
    Some(Ranx {
        name,
        number: RanxNumber::Cutoff,
        level: RanxLevel::Rel,
        note,
    })
}

/// ranx's measures that no trec_eval family gives (its other names are the ranx names of
/// trec_eval's and ir_measures' families).
pub static FAMILIES: &[Family] = &[
    Family {
        name: "hits",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), hits)),
        summary:
            "ranx's hits: the number of relevant documents in the top k (whole ranking without k)",
        formula: "sum_{i<=k} rel_i",
        citation: CITATION,
        cutoff: CutoffKind::Optional,
        params: &[REL],
        bounded: false,
        ranx: own(
            "hits",
            "ranx's: the number of relevant documents in the top k",
        ),
        ..Family::DEFAULTS
    },
    Family {
        name: "f1",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), f1)),
        summary: "ranx's F1 at k: harmonic mean of P@k and R@k (no k: of the whole ranking)",
        formula: "2 P R / (P + R), P = hits@k / k, R = hits@k / R (0 if P + R = 0)",
        citation: CITATION,
        cutoff: CutoffKind::Optional,
        params: &[REL],
        ranx: own("f1", "ranx's: harmonic mean of P@k and R@k"),
        ..Family::DEFAULTS
    },
    Family {
        name: "dcg",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), dcg)),
        summary: "ranx's DCG (not normalized), gain = grade for grades >= rel",
        formula: "sum_{i<=k, g_i >= rel} g_i / log2(i + 1); 0 without relevant documents",
        citation: "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: &[REL],
        bounded: false,
        ranx: own("dcg", "ranx's: DCG, not normalized, gain = grade"),
        ..Family::DEFAULTS
    },
    Family {
        name: "dcg_burges",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), dcg_burges)),
        summary: "ranx's DCG (not normalized), gain = 2^grade - 1 for grades >= rel",
        formula: "sum_{i<=k, g_i >= rel} (2^g_i - 1) / log2(i + 1); 0 without relevant documents",
        citation:
            "Burges et al., Learning to rank using gradient descent, ICML 2005; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: &[REL],
        bounded: false,
        ranx: own(
            "dcg_burges",
            "ranx's: DCG, not normalized, gain 2^grade - 1",
        ),
        ..Family::DEFAULTS
    },
    Family {
        name: "ndcg_burges",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), ndcg_burges)),
        summary: "ranx's nDCG with gain 2^grade - 1 for grades >= rel (nDCG(gain=exp) at rel=1)",
        formula:
            "dcg_burges@k / the same over the judged documents ordered by grade (0 if that is 0)",
        citation:
            "Burges et al., Learning to rank using gradient descent, ICML 2005; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: &[REL],
        ranx: own(
            "ndcg_burges",
            "ranx's: gain 2^grade - 1; nDCG(gain=exp)@k at rel=1",
        ),
        ..Family::DEFAULTS
    },
];

/// A ranx metric name as ranx reads it, when rankscope's grammar would read it otherwise or
/// not at all: a level suffix (`ndcg@10-l2`, `precision-l2`), RBP's persistence (`rbp.95`),
/// or a name whose family needs a cutoff given without one (`hit_rate`: the whole ranking).
/// `None` for any other text. ranx's names are matched as ranx spells them (case matters).
pub(super) fn parse(text: &str) -> Option<Result<Measure>> {
    let (head, level) = match text.rsplit_once("-l") {
        Some((head, digits))
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (head, Some(digits))
        }
        _ => (text, None),
    };
    let split = head.find(['@', '.']).unwrap_or(head.len());
    let (name, number) = head.split_at(split);
    let (family, ranx) =
        families().find_map(|f| f.ranx.filter(|r| r.name == name).map(|r| (f, r)))?;
    let number = (!number.is_empty()).then_some(number);
    let ranx_only = level.is_some()
        || (ranx.number == RanxNumber::Persistence && number.is_some())
        || (number.is_none() && family.cutoff == CutoffKind::Required);
    if !ranx_only {
        return None;
    }
    Some(read(family, ranx, number, level, text))
}

fn read(
    family: &Family,
    ranx: Ranx,
    number: Option<&str>,
    level: Option<&str>,
    text: &str,
) -> Result<Measure> {
    let mut params: Vec<String> = Vec::new();
    let mut cutoff: Option<String> = None;
    match (ranx.number, number) {
        (RanxNumber::Persistence, Some(number)) => {
            let Some(digits) = number
                .strip_prefix('.')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            else {
                return Err(Error::measure_part(
                    text,
                    number,
                    format!(
                    "ranx writes RBP's persistence after a dot, as in rbp.95 (p = 0.95); got {} \
                     (ir_measures' RBP@k is a cutoff: write RBP@k or RBP(p=0.95)@k)",
                    quoted(text)
                ),
                ));
            };
            params.push(format!("p=0.{digits}"));
        }
        (RanxNumber::Cutoff, Some(number)) => match number.strip_prefix('@') {
            Some(k) => cutoff = Some(k.to_string()),
            None => return Err(unknown_form(text)),
        },
        (RanxNumber::None, Some(_)) => {
            return Err(Error::measure_part(
                text,
                number.unwrap_or_default(),
                format!(
                    "measure {} takes no cutoff; got {}",
                    family.name,
                    quoted(text)
                ),
            ))
        }
        (_, None) => {
            if family.cutoff == CutoffKind::Required {
                // ranx scores the whole ranking without @k.
                cutoff = Some(MAX_CUTOFF.to_string());
            }
        }
    }
    if let Some(digits) = level {
        let Some(level) = count(digits) else {
            return Err(Error::measure_part(
                text,
                digits,
                format!(
                "ranx's relevance level (-lN) must be an integer from 1 to {MAX_CUTOFF}; got {} \
                 in {}",
                quoted(digits),
                quoted(text)
            ),
            ));
        };
        match ranx.level {
            RanxLevel::Rel => params.push(format!("rel={level}")),
            RanxLevel::ZeroGainsBelow if level > 1 => {
                let zeros: Vec<String> = (1..level).map(|g| format!("{g}:0")).collect();
                params.push(format!("gains={}", zeros.join(";")));
            }
            RanxLevel::ZeroGainsBelow => {}
        }
    }
    let params = params.join(",");
    build(
        family.name,
        (!params.is_empty()).then_some(params.as_str()),
        cutoff.as_deref(),
        text,
    )
}

fn unknown_form(text: &str) -> Error {
    Error::measure(
        text,
        format!(
            "ranx writes a cutoff after @ and a relevance level after -l, as in ndcg@10-l2; got {}",
            quoted(text)
        ),
    )
}

/// hits@k = Σ_{i<=k} rel_i: the number of relevant documents in the first k (all without k).
pub fn hits(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    query.num_relevant_retrieved(cx.level(p.rel), p.cutoff) as f64
}

/// f1@k = 2 P R / (P + R) with P = hits@k / k and R = hits@k / R (k = the number retrieved
/// without a cutoff; k is not capped by the number retrieved, as in P@k); 0 when P + R = 0.
pub fn f1(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let relevant = query.num_relevant(level);
    let k = p.cutoff.unwrap_or(query.num_retrieved());
    if relevant == 0 || k == 0 {
        return 0.0;
    }
    let hits = query.num_relevant_retrieved(level, p.cutoff) as f64;
    let precision = hits / k as f64;
    let recall = hits / relevant as f64;
    if precision + recall == 0.0 {
        return 0.0;
    }
    // ranx's order of operations, for the same last bit.
    2.0 * ((precision * recall) / (precision + recall))
}

/// The gain of a grade: the grade (Järvelin & Kekäläinen) or `2^grade - 1` (Burges et al.)
/// for grades >= the relevance level, 0 below it.
fn gain(grade: i64, level: i64, burges: bool) -> f64 {
    if grade < level || grade <= 0 {
        return 0.0;
    }
    let grade = grade as f64;
    if burges {
        grade.exp2() - 1.0
    } else {
        grade
    }
}

/// Σ_{i<=k} gain(g_i) / log2(i + 1) over `grades` in rank order.
fn discounted(grades: &[i64], cutoff: Option<usize>, level: i64, burges: bool) -> f64 {
    let k = cutoff.unwrap_or(grades.len()).min(grades.len());
    grades[..k].iter().enumerate().fold(0.0, |sum, (i, &g)| {
        sum + gain(g, level, burges) / (i as f64 + 2.0).log2()
    })
}

/// The ranking's DCG@k; tied scores share their positions under `tied_scores="averaged"`
/// ([`tie_averaged_dcg`]: scikit-learn's `dcg_score`).
fn dcg_of(
    query: &QueryView<'_>,
    cutoff: Option<usize>,
    level: i64,
    burges: bool,
    cx: &Context<'_>,
) -> f64 {
    if query.num_relevant(level) == 0 {
        return 0.0;
    }
    match tied_scores(query, cx) {
        Some(scores) => tie_averaged_dcg(query.grades, scores, cutoff, |g| gain(g, level, burges)),
        None => discounted(query.grades, cutoff, level, burges),
    }
}

fn ndcg_of(
    query: &QueryView<'_>,
    cutoff: Option<usize>,
    level: i64,
    burges: bool,
    cx: &Context<'_>,
) -> f64 {
    let dcg = dcg_of(query, cutoff, level, burges, cx);
    let ideal = discounted(query.judged, cutoff, level, burges);
    // ranx divides by 1 when the ideal DCG is 0 (the DCG is 0 then too).
    dcg / if ideal == 0.0 { 1.0 } else { ideal }
}

/// dcg@k = Σ_{i<=k} g_i / log2(i + 1), Järvelin & Kekäläinen's gain (the grade).
pub fn dcg(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    dcg_of(query, p.cutoff, cx.level(p.rel), false, cx)
}

/// dcg_burges@k = Σ_{i<=k} (2^g_i - 1) / log2(i + 1), Burges et al.'s gain.
pub fn dcg_burges(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    dcg_of(query, p.cutoff, cx.level(p.rel), true, cx)
}

/// ndcg_burges@k = dcg_burges@k over the same sum for the judged documents ordered by grade.
pub fn ndcg_burges(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    ndcg_of(query, p.cutoff, cx.level(p.rel), true, cx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Conventions;

    fn args(cutoff: Option<usize>, level: i64) -> Binary {
        Binary {
            cutoff,
            rel: Some(level),
            judged_only: false,
        }
    }

    fn view<'a>(grades: &'a [i64], judged: &'a [i64]) -> QueryView<'a> {
        QueryView {
            grades,
            judged,
            num_distinct_relevant: None,
            subtopics: None,
            scores: None,
            judged_ranks: None,
        }
    }

    #[test]
    fn by_hand() {
        let trec = Conventions::profile("trec").unwrap();
        let cx = Context::new(&trec, 1);
        // Ranking: grades 0, 2, 0, 1; the judged grades 2, 1, 0, 0.
        let grades = [0, 2, 0, 1];
        let judged = [2, 1, 0, 0];
        let q = view(&grades, &judged);
        assert_eq!(hits(&q, &args(Some(2), 1), &cx), 1.0);
        assert_eq!(hits(&q, &args(None, 1), &cx), 2.0);
        assert_eq!(hits(&q, &args(None, 2), &cx), 1.0);
        // P@3 = 1/3, R@3 = 1/2: F1 = 2 (1/6) / (5/6) = 0.4.
        assert!((f1(&q, &args(Some(3), 1), &cx) - 0.4).abs() < 1e-15);
        // k beyond the ranking: P = 2/10, R = 1.
        assert!((f1(&q, &args(Some(10), 1), &cx) - 2.0 * 0.2 / 1.2).abs() < 1e-15);
        let dcg3 = 2.0 / 3f64.log2();
        assert_eq!(dcg(&q, &args(Some(3), 1), &cx), dcg3);
        assert_eq!(dcg_burges(&q, &args(Some(3), 1), &cx), 3.0 / 3f64.log2());
        let ideal = 3.0 + 1.0 / 3f64.log2();
        let expected = (3.0 / 3f64.log2() + 1.0 / 5f64.log2()) / ideal;
        assert!((ndcg_burges(&q, &args(None, 1), &cx) - expected).abs() < 1e-15);
        // Level 2: grade 1 carries no gain.
        assert_eq!(dcg(&q, &args(None, 2), &cx), 2.0 / 3f64.log2());
        // No relevant document: 0.
        let none = view(&[0, 0], &[0]);
        assert_eq!(ndcg_burges(&none, &args(None, 1), &cx), 0.0);
        assert_eq!(f1(&none, &args(None, 1), &cx), 0.0);
        assert_eq!(dcg(&none, &args(None, 1), &cx), 0.0);
    }
}
