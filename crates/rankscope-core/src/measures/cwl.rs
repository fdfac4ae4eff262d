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

use super::kernels::KernelArgs;
use super::{CutoffKind, Family};
use crate::batch::{QueryView, UNJUDGED};
use crate::error::{py_repr, Error, Result};

/// The ranks every C/W/L measure looks at (cwl_eval's `max_n`).
pub const DEPTH: usize = 1000;

/// The families of this module.
const FAMILY_NAMES: [&str; 8] = [
    "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM",
];

/// Parameter values that ir_measures leaves out of a measure's name, as canonical text.
const DEFAULTS: [(&str, &str); 4] = [
    ("min_rel", "0"),
    ("T", "1.0"),
    ("p", "0.9"),
    ("dcg", "log2"),
];

/// Check the parameters of a C/W/L measure and drop those holding their default, as
/// ir_measures prints names (`INST(T=1.0,max_rel=3)` is `INST(max_rel=3)`). Other families'
/// parameters pass through unchanged; `name` is the whole text, for messages.
pub(super) fn settle_params(
    family: &Family,
    params: Vec<(String, String)>,
    name: &str,
) -> Result<Vec<(String, String)>> {
    if !FAMILY_NAMES.contains(&family.name) {
        return Ok(params);
    }
    let get = |key: &str| {
        params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let Some(max_rel) = get("max_rel") else {
        return Err(Error::Measure(format!(
            "measure {0} needs max_rel, the grade that gains 1, as in {0}(max_rel=3){1}; got {2}",
            family.name,
            if family.cutoff == CutoffKind::Required {
                "@10"
            } else {
                ""
            },
            py_repr(name)
        )));
    };
    let integer = |text: &str| text.parse::<i64>().expect("validated when parsed");
    let min_rel = get("min_rel").map_or(0, integer);
    if min_rel >= integer(max_rel) {
        return Err(Error::Measure(format!(
            "min_rel of {} must be below max_rel; got min_rel={min_rel}, max_rel={max_rel} in {}",
            family.name,
            py_repr(name)
        )));
    }
    let number = |text: &str| text.parse::<f64>().expect("validated when parsed");
    if let Some(target) = get("T").filter(|t| number(t) <= 0.0) {
        return Err(Error::Measure(format!(
            "parameter T of {} must be a positive number; got {} in {}",
            family.name,
            py_repr(target),
            py_repr(name)
        )));
    }
    if let Some(p) = get("p").filter(|p| !(0.0..=1.0).contains(&number(p))) {
        return Err(Error::Measure(format!(
            "parameter p of {} must be a number in [0, 1]; got {} in {}",
            family.name,
            py_repr(p),
            py_repr(name)
        )));
    }
    Ok(params
        .into_iter()
        .filter(|(k, v)| !DEFAULTS.contains(&(k.as_str(), v.as_str())))
        .collect())
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
    args: &KernelArgs<'_>,
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
            .map_or(0.0, |&grade| gain(grade, args.grade_range));
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

/// The cutoff `k` of the measures that need one (validated when parsed).
fn cutoff(args: &KernelArgs<'_>) -> usize {
    args.cutoff.expect("validated when parsed")
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
pub fn sdcg(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let k = cutoff(args);
    let log2 = |x: f64| x.ln() / std::f64::consts::LN_2;
    expected_utility(query, args, |rank, _, _| {
        if rank < k {
            log2(rank as f64 + 1.0) / log2(rank as f64 + 2.0)
        } else {
            0.0
        }
    })
}

/// NERR8@k (Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. 8): `C(i) = 1 - gain_i` for i < k.
pub fn nerr8(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let k = cutoff(args);
    expected_utility(
        query,
        args,
        |rank, g, _| if rank < k { 1.0 - g } else { 0.0 },
    )
}

/// NERR9@k (eq. 9): `C(i) = i / (i + 1) (1 - gain_i)` for i < k.
pub fn nerr9(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let k = cutoff(args);
    expected_utility(query, args, |rank, g, _| {
        if rank < k {
            (rank as f64 / (rank as f64 + 1.0)) * (1.0 - g)
        } else {
            0.0
        }
    })
}

/// NERR10(p) (eq. 10): `C(i) = p (1 - gain_i)`, RBP's patience stopped by gain.
pub fn nerr10(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    expected_utility(query, args, |_, g, _| args.p * (1.0 - g))
}

/// NERR11(T) (eq. 11): `C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain_i)`.
pub fn nerr11(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let a = 2.0 * args.target_gain;
    expected_utility(query, args, |rank, g, _| {
        insq_continuation(rank, a) * (1.0 - g)
    })
}

/// INST(T) (Moffat, Bailey, Scholer & Thomas, ADCS 2015):
/// `C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2`, `T_i = T - Σ_{j<=i} gain_j`.
pub fn inst(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let target = args.target_gain;
    expected_utility(query, args, |rank, _, cumulative| {
        let left = target - cumulative;
        let rank = rank as f64;
        ((rank + target + left - 1.0) / (rank + target + left)).powi(2)
    })
}

/// INSQ(T) (Moffat, Scholer & Thomas, ADCS 2012): `C(i) = ((i + 2T - 1) / (i + 2T))^2`.
pub fn insq(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let a = 2.0 * args.target_gain;
    expected_utility(query, args, |rank, _, _| insq_continuation(rank, a))
}

/// BPM(T)@K, static (Zhang et al., SIGIR 2017): the user reads on while the gain so far is
/// below T and fewer than K documents were read, `C(i) = [Σ_{j<=i} gain_j < T and i < K]`;
/// the value is the mean gain of the documents read.
pub fn bpm(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let k = cutoff(args);
    let target = args.target_gain;
    expected_utility(query, args, |rank, _, cumulative| {
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
        };
        (measure.family.kernel)(&query, &measure.kernel_args(&conventions, 1))
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
        let name = |text: &str| {
            parse_measure(text)
                .map(|m| m.name())
                .unwrap_or_else(|e| e.to_string())
        };
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
