//! The C/W/L measures as cwl_eval computes them and ir_measures names them: SDCG, NERR8,
//! NERR9, NERR10, NERR11, INST, INSQ and BPM.
//!
//! In the C/W/L framework (Azzopardi, Thomas & Moffat, "cwl_eval: An Evaluation Tool for
//! Information Retrieval", SIGIR 2019) a measure is a user model: `C(i)`, the chance that a user
//! who has just examined rank i goes on to rank i + 1. The weight of rank i is the chance of
//! reaching it, normalized over the ranks, `W(i) = Π_{j<i} C(j) / Σ_n Π_{j<n} C(j)`, and the
//! measure is the expected gain per document examined, `Σ_i W(i) gain_i`.
//!
//! As cwl_eval reads a ranking: every measure looks at exactly [`DEPTH`] ranks (longer rankings
//! are cut, shorter ones padded with documents of gain 0, which still take part in `W`);
//! a grade becomes a gain in [0, 1] by `(clamp(max(grade, 0), min_rel, max_rel) - min_rel) /
//! (max_rel - min_rel)`; an unjudged document gains 0.

use super::{
    kernel, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Params, Scalar, Value,
};
use crate::batch::{QueryView, UNJUDGED};
use crate::error::{quoted, Error, Result};

/// The ranks every C/W/L measure looks at (cwl_eval's `max_n`).
pub const DEPTH: usize = 1000;

const MAX_REL: Param = Param::new("max_rel", ParamKind::Integer);
const MIN_REL: Param = Param::with_default("min_rel", ParamKind::Integer, Scalar::Integer(0));
const TARGET: Param = Param::with_default("T", ParamKind::Number, Scalar::Number(1.0));
const SDCG_CITATION: &str =
    "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
     ACM TOIS 20(4), 2002, scaled as in cwl_eval (Azzopardi, Thomas & Moffat, \
     cwl_eval: An Evaluation Tool for Information Retrieval, SIGIR 2019)";
const NERR: &str = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L: Exploring the \
                    Relationship Between Expected Reciprocal Rank and Other Metrics, ICTIR \
                    2021; as computed by cwl_eval";

/// The C/W/L measures of cwl_eval, under ir_measures' names.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "SDCG",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), sdcg)),
        summary: "scaled DCG: DCG@k of gains in [0, 1] over the DCG of k documents of gain 1 (cwl_eval's NDCG-k); needs max_rel",
        formula: "sum_{i<=k} gain_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1), gain = (clamp(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel), unjudged 0, ranks to 1000",
        citation: SDCG_CITATION,
        cutoff: CutoffKind::Required,
        params: &[
            Param::with_default("dcg", ParamKind::Words(&["log2"]), Scalar::Word("log2")),
            MAX_REL,
            MIN_REL,
        ],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "NERR8",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), nerr8)),
        summary: "not (but nearly) ERR, eq. 8: the user stops at a document with its scaled gain, or after rank k; needs max_rel",
        formula: "C/W/L with C(i) = 1 - gain_i for i < k, else 0; sum_i W(i) gain_i, W(i) = prod_{j<i} C(j) / sum_n prod_{j<n} C(j)",
        citation: NERR,
        cutoff: CutoffKind::Required,
        params: &[MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "NERR9",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), nerr9)),
        summary: "not (but nearly) ERR, eq. 9: NERR8 with a rank discount; needs max_rel",
        formula: "C/W/L with C(i) = i / (i + 1) (1 - gain_i) for i < k, else 0",
        citation: NERR,
        cutoff: CutoffKind::Required,
        params: &[MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "NERR10",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), nerr10)),
        summary: "not (but nearly) ERR, eq. 10: RBP's persistence p (0.9 by default), stopped by gain; needs max_rel",
        formula: "C/W/L with C(i) = p (1 - gain_i), ranks to 1000",
        citation: NERR,
        cutoff: CutoffKind::None,
        params: &[
            MAX_REL,
            MIN_REL,
            Param::with_default("p", ParamKind::Number, Scalar::Number(0.9)),
        ],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "NERR11",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), nerr11)),
        summary: "not (but nearly) ERR, eq. 11: INSQ's patience for a goal T (1 by default), stopped by gain; needs max_rel",
        formula: "C/W/L with C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain_i), ranks to 1000",
        citation: NERR,
        cutoff: CutoffKind::None,
        params: &[TARGET, MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "INST",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), inst)),
        summary: "INST: a user who wants gain T (1 by default) and grows less patient as gain comes; needs max_rel",
        formula: "C/W/L with C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} gain_j, ranks to 1000",
        citation: "Moffat, Bailey, Scholer & Thomas, INST: An Adaptive Metric for Information \
                   Retrieval Evaluation, ADCS 2015; as computed by cwl_eval (Azzopardi, Thomas & \
                   Moffat, SIGIR 2019)",
        cutoff: CutoffKind::None,
        params: &[TARGET, MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "INSQ",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), insq)),
        summary: "INSQ: INST's patience for a goal T (1 by default), whatever the gain found; needs max_rel",
        formula: "C/W/L with C(i) = ((i + 2T - 1) / (i + 2T))^2, ranks to 1000",
        citation: "Moffat, Scholer & Thomas, Models and Metrics: IR Evaluation as a User \
                   Process, ADCS 2012; as computed by cwl_eval (Azzopardi, Thomas & Moffat, \
                   SIGIR 2019)",
        cutoff: CutoffKind::None,
        params: &[TARGET, MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
    Family {
        name: "BPM",
        kind: Kind::Ranking(|m| kernel(Cwl::of(m), bpm)),
        summary: "static Bejeweled Player Model: mean gain of the documents read until gain T (1 by default) or k documents; needs max_rel",
        formula: "sum_{i<=s} gain_i / s, s = min(k, 1000, first i with sum_{j<=i} gain_j >= T)",
        citation: "Zhang et al., Evaluating Web Search with a Bejeweled Player Model, SIGIR \
                   2017; as computed by cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019)",
        cutoff: CutoffKind::Required,
        params: &[TARGET, MAX_REL, MIN_REL],
        check: Some(check),
        ..Family::DEFAULTS
    },
];

/// The parameters of a C/W/L measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cwl {
    /// The grades that gain 0 and 1 (`min_rel=`, `max_rel=`); grades between scale linearly.
    pub grade_range: (i64, i64),
    /// The cutoff `k` of the measures that take one.
    pub cutoff: Option<usize>,
    /// NERR10's persistence (`p=`, 0.9 by default).
    pub p: f64,
    /// The total gain the user wants (`T=`, 1 by default).
    pub target_gain: f64,
}

impl Cwl {
    fn of(m: &Measure) -> Self {
        Self {
            // `max_rel` is required (see `check`).
            grade_range: (
                m.integer("min_rel").unwrap_or(0),
                m.integer("max_rel").unwrap_or(1),
            ),
            cutoff: m.cutoff_count(),
            p: m.number("p").unwrap_or(0.9),
            target_gain: m.number("T").unwrap_or(1.0),
        }
    }

    /// The cutoff `k` (required by the families that read it; all ranks without one).
    fn k(&self) -> usize {
        self.cutoff.unwrap_or(usize::MAX)
    }
}

impl Params for Cwl {}

/// The rules of a C/W/L measure's parameters: `max_rel` given, above `min_rel`; `T` positive,
/// `p` in [0, 1]. `name` is the whole text, for messages.
fn check(m: &Measure, name: &str) -> Result<()> {
    let family = m.family;
    let Some(max_rel) = m.integer("max_rel") else {
        return Err(Error::measure(
            name,
            format!(
            "measure {0} needs max_rel, the grade that gains 1, as in {0}(max_rel=3){1}; got {2}",
            family.name,
            if family.cutoff == CutoffKind::Required {
                "@10"
            } else {
                ""
            },
            quoted(name)
        ),
        ));
    };
    let min_rel = m.integer("min_rel").unwrap_or(0);
    if min_rel >= max_rel {
        return Err(Error::measure_part(
            name,
            "min_rel",
            format!(
            "min_rel of {} must be below max_rel; got min_rel={min_rel}, max_rel={max_rel} in {}",
            family.name,
            quoted(name)
        ),
        ));
    }
    for (param, value) in &m.params {
        let Value::Number(number) = value else {
            continue;
        };
        let text = quoted(&param.print(value));
        if param.name == "T" && *number <= 0.0 {
            return Err(Error::measure_part(
                name,
                "T",
                format!(
                    "parameter T of {} must be a positive number; got {text} in {}",
                    family.name,
                    quoted(name)
                ),
            ));
        }
        if param.name == "p" && !(0.0..=1.0).contains(number) {
            return Err(Error::measure_part(
                name,
                "p",
                format!(
                    "parameter p of {} must be a number in [0, 1]; got {text} in {}",
                    family.name,
                    quoted(name)
                ),
            ));
        }
    }
    Ok(())
}

/// The gain of a grade: clamped to `[min_rel, max_rel]` and scaled to [0, 1]; negative grades
/// count as 0 and unjudged documents gain 0.
fn gain(grade: i64, (min_rel, max_rel): (i64, i64)) -> f64 {
    if grade == UNJUDGED {
        return 0.0;
    }
    let clamped = grade.max(0).clamp(min_rel, max_rel);
    (clamped - min_rel) as f64 / (max_rel - min_rel) as f64
}

/// `Σ_i W(i) gain_i` over [`DEPTH`] ranks, `continuation(i, gain_i, Σ_{j<=i} gain_j)` being
/// `C(i)` for the 1-based rank i.
fn expected_utility(
    query: &QueryView<'_>,
    p: &Cwl,
    continuation: impl Fn(usize, f64, f64) -> f64,
) -> f64 {
    let mut reach = 1.0;
    let mut total_reach = 0.0;
    let mut utility = 0.0;
    let mut cumulative = 0.0;
    for rank in 1..=DEPTH {
        let g = query
            .grades
            .get(rank - 1)
            .map_or(0.0, |&grade| gain(grade, p.grade_range));
        total_reach += reach;
        utility += reach * g;
        cumulative += g;
        reach *= continuation(rank, g, cumulative);
        if reach == 0.0 {
            break;
        }
    }
    utility / total_reach
}

/// `(rank + a - 1) / (rank + a)` squared: INSQ's and NERR11's continuation (a = 2T).
fn insq_continuation(rank: usize, a: f64) -> f64 {
    let rank = rank as f64;
    ((rank + a - 1.0) / (rank + a)).powi(2)
}

/// SDCG@k: DCG@k with gains scaled to [0, 1], over the DCG of k documents of gain 1.
///
/// `C(i) = log2(i + 1) / log2(i + 2)` for i < k, else 0, which makes it
/// `Σ_{i<=k} gain_i / log2(i + 1) / Σ_{i<=k} 1 / log2(i + 1)`.
pub fn sdcg(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let k = p.k();
    let log2 = |x: f64| x.ln() / std::f64::consts::LN_2;
    expected_utility(query, p, |rank, _, _| {
        if rank < k {
            log2(rank as f64 + 1.0) / log2(rank as f64 + 2.0)
        } else {
            0.0
        }
    })
}

/// NERR8@k (Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. 8): `C(i) = 1 - gain_i` for i < k.
pub fn nerr8(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let k = p.k();
    expected_utility(query, p, |rank, g, _| if rank < k { 1.0 - g } else { 0.0 })
}

/// NERR9@k (eq. 9): `C(i) = i / (i + 1) (1 - gain_i)` for i < k.
pub fn nerr9(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let k = p.k();
    expected_utility(query, p, |rank, g, _| {
        if rank < k {
            (rank as f64 / (rank as f64 + 1.0)) * (1.0 - g)
        } else {
            0.0
        }
    })
}

/// NERR10(p) (eq. 10): `C(i) = p (1 - gain_i)`, RBP's patience stopped by gain.
pub fn nerr10(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    expected_utility(query, p, |_, g, _| p.p * (1.0 - g))
}

/// NERR11(T) (eq. 11): `C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain_i)`.
pub fn nerr11(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let a = 2.0 * p.target_gain;
    expected_utility(query, p, |rank, g, _| {
        insq_continuation(rank, a) * (1.0 - g)
    })
}

/// INST(T) (Moffat, Bailey, Scholer & Thomas, ADCS 2015):
/// `C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2`, `T_i = T - Σ_{j<=i} gain_j`.
pub fn inst(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let target = p.target_gain;
    expected_utility(query, p, |rank, _, cumulative| {
        let left = target - cumulative;
        let rank = rank as f64;
        ((rank + target + left - 1.0) / (rank + target + left)).powi(2)
    })
}

/// INSQ(T) (Moffat, Scholer & Thomas, ADCS 2012): `C(i) = ((i + 2T - 1) / (i + 2T))^2`.
pub fn insq(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let a = 2.0 * p.target_gain;
    expected_utility(query, p, |rank, _, _| insq_continuation(rank, a))
}

/// BPM(T)@K, static (Zhang et al., SIGIR 2017): the user reads on while the gain so far is
/// below T and fewer than K documents were read, `C(i) = [Σ_{j<=i} gain_j < T and i < K]`;
/// the value is the mean gain of the documents read.
pub fn bpm(query: &QueryView<'_>, p: &Cwl, _: &Context<'_>) -> f64 {
    let k = p.k();
    let target = p.target_gain;
    expected_utility(query, p, |rank, _, cumulative| {
        f64::from(u8::from(cumulative < target && rank < k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::POOLED_UNJUDGED;
    use crate::measures::parse_measure;
    use crate::profile::Conventions;

    /// The value of measure `name` for a ranking of grades (judged grades do not matter here).
    fn value(name: &str, grades: &[i64]) -> f64 {
        let measure = parse_measure(name).unwrap();
        let conventions = Conventions::profile("trec").unwrap();
        let query = QueryView {
            grades,
            judged: &[],
            num_distinct_relevant: None,
            subtopics: None,
            scores: None,
            judged_ranks: None,
        };
        measure
            .kernel()
            .unwrap()
            .score(&query, &crate::measures::Context::new(&conventions, 1))
    }

    fn close(got: f64, expected: f64, what: &str) {
        assert!(
            (got - expected).abs() < 1e-14,
            "{what}: got {got}, expected {expected}"
        );
    }

    #[test]
    fn gains_scale_the_grade_range_and_unjudged_gain_nothing() {
        assert_eq!(gain(3, (0, 3)), 1.0);
        assert_eq!(gain(5, (0, 3)), 1.0);
        assert_eq!(gain(2, (0, 4)), 0.5);
        assert_eq!(gain(1, (1, 3)), 0.0);
        assert_eq!(gain(UNJUDGED, (0, 3)), 0.0);
        // A judged negative grade counts as 0, which min_rel=-1 lifts above the bottom.
        assert_eq!(gain(POOLED_UNJUDGED, (-1, 1)), 0.5);
        assert_eq!(gain(UNJUDGED, (-1, 1)), 0.0);
    }

    #[test]
    fn sdcg_is_dcg_over_the_dcg_of_k_full_gains() {
        // grades 2, 0, 1 with max_rel=2: gains 1, 0, 0.5.
        let discounts = 1.0 + 1.0 / 3f64.log2() + 0.5;
        let expected = (1.0 + 0.5 * 0.5) / discounts;
        close(value("SDCG(max_rel=2)@3", &[2, 0, 1]), expected, "SDCG@3");
        // k beyond the ranking still counts k positions.
        let discounts = discounts + 1.0 / 5f64.log2();
        let expected = (1.0 + 0.5 * 0.5) / discounts;
        close(value("SDCG(max_rel=2)@4", &[2, 0, 1]), expected, "SDCG@4");
        close(value("SDCG(max_rel=2)@1", &[1, 2]), 0.5, "SDCG@1");
    }

    #[test]
    fn nerr8_and_nerr9_stop_at_gain_and_at_k() {
        // gains 0.5, 1, 1 (max_rel=2): reach 1, 0.5, 0; W = (1, 0.5) / 1.5.
        close(
            value("NERR8(max_rel=2)@3", &[1, 2, 2]),
            (0.5 + 0.5) / 1.5,
            "NERR8",
        );
        // gains 0, 0.5, 1 at k=2: reach 1, 1; W = 1/2 each.
        close(value("NERR8(max_rel=2)@2", &[0, 1, 2]), 0.25, "NERR8@2");
        // NERR9: reach 1, 1/2 (1 - 0), 1/2 * 2/3 (1 - 0.5) = 1/6.
        let expected = (0.0 + 0.5 * 0.5 + 1.0 / 6.0) / (1.0 + 0.5 + 1.0 / 6.0);
        close(value("NERR9(max_rel=2)@3", &[0, 1, 2]), expected, "NERR9");
    }

    #[test]
    fn nerr10_and_nerr11_run_to_full_depth() {
        // p=0.5, gains 0, 1: reach 1, 0.5, then 0.
        close(
            value("NERR10(max_rel=1,p=0.5)", &[0, 1]),
            0.5 / 1.5,
            "NERR10",
        );
        // Nothing relevant: every gain 0 over all DEPTH ranks.
        assert_eq!(value("NERR10(max_rel=1)", &[0, 0]), 0.0);
        // NERR11 with T=1: C(1) = (2/3)^2 (1 - 0), then gain 1 stops.
        let c1 = (2.0f64 / 3.0).powi(2);
        close(
            value("NERR11(max_rel=1)", &[0, 1]),
            c1 / (1.0 + c1),
            "NERR11",
        );
    }

    #[test]
    fn insq_and_inst_weigh_every_rank_to_depth() {
        // INSQ(T=1): reach of rank i is Π_{j<i} (j+1)^2/(j+2)^2 = 4 / (i+1)^2.
        let total: f64 = (1..=DEPTH).map(|i| 4.0 / ((i + 1) as f64).powi(2)).sum();
        close(value("INSQ(max_rel=1)", &[1]), 1.0 / total, "INSQ");
        close(
            value("INSQ(max_rel=1)", &[0, 1]),
            (4.0 / 9.0) / total,
            "INSQ r2",
        );
        // INST(T=1), a first document of gain 1: T_1 = 0 and C(1) = (1/2)^2; then T_i stays 0,
        // C(i) = (i/(i+1))^2, and the reach of rank i is (1/2)^2 (2/i)^2 = 1/i^2.
        let total: f64 = (1..=DEPTH).map(|i| 1.0 / (i as f64).powi(2)).sum();
        close(value("INST(max_rel=1)", &[1]), 1.0 / total, "INST");
    }

    #[test]
    fn bpm_averages_the_gain_read_until_t_or_k() {
        // T=1: gains 0.5, 0.5 reach T after rank 2.
        close(value("BPM(max_rel=2)@10", &[1, 1, 2]), 0.5, "BPM T");
        // K=2 stops first: gains 0, 0.5.
        close(value("BPM(max_rel=2,T=5)@2", &[0, 1, 2]), 0.25, "BPM K");
        close(value("BPM(max_rel=2)@3", &[]), 0.0, "BPM empty");
    }

    #[test]
    fn rankings_are_read_to_depth_only() {
        let mut grades = vec![0; DEPTH];
        grades.push(1);
        assert_eq!(value("SDCG(max_rel=1)@2000", &grades), 0.0);
        assert_eq!(value("BPM(max_rel=1)@2000", &grades), 0.0);
    }

    #[test]
    fn names_print_as_ir_measures_prints_them() {
        let name = |text: &str| parse_measure(text).map_or_else(|e| e.to_string(), |m| m.name());
        assert_eq!(name("SDCG(max_rel=3,min_rel=0)@10"), "SDCG(max_rel=3)@10");
        assert_eq!(name("SDCG(dcg=log2,max_rel=3)@10"), "SDCG(max_rel=3)@10");
        assert_eq!(name("INST(T=1,max_rel=03)"), "INST(max_rel=3)");
        assert_eq!(name("INST(max_rel=3,T=2)"), "INST(T=2.0,max_rel=3)");
        assert_eq!(name("NERR10(p=0.9,max_rel=1)"), "NERR10(max_rel=1)");
        assert_eq!(
            name("bpm(max_rel=2,min_rel=-1)@5"),
            "BPM(max_rel=2,min_rel=-1)@5"
        );
        assert_eq!(
            name("SDCG@10"),
            "measure SDCG needs max_rel, the grade that gains 1, as in SDCG(max_rel=3)@10; got \
             'SDCG@10'"
        );
        assert_eq!(
            name("INSQ"),
            "measure INSQ needs max_rel, the grade that gains 1, as in INSQ(max_rel=3); got 'INSQ'"
        );
        assert_eq!(
            name("INSQ(max_rel=2,min_rel=2)"),
            "min_rel of INSQ must be below max_rel; got min_rel=2, max_rel=2 in \
             'INSQ(max_rel=2,min_rel=2)'"
        );
        assert_eq!(
            name("INST(T=0,max_rel=2)"),
            "parameter T of INST must be a positive number; got '0.0' in 'INST(T=0,max_rel=2)'"
        );
        assert_eq!(
            name("NERR10(p=1.5,max_rel=2)"),
            "parameter p of NERR10 must be a number in [0, 1]; got '1.5' in \
             'NERR10(p=1.5,max_rel=2)'"
        );
        assert_eq!(
            name("NERR8(max_rel=2)"),
            "measure NERR8 needs a cutoff, as in NERR8@10; got 'NERR8(max_rel=2)'"
        );
    }
}
