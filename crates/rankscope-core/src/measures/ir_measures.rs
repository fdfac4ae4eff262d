//! ir_measures' measures that trec_eval lacks, each as the ir_measures provider that computes
//! it does: Judged (its judged provider), ERR@k (gdeval), RBP (trectools for graded
//! relevance, cwl_eval with `rel=`) and its residual, Compat (its compat provider), and SetP
//! with `relative=`; and NCG, which ir_measures lists as wanted (no provider computes it). Also
//! what ir_measures' names need around them: `SetRelP` standing for `SetP(relative=True)`,
//! `judged_only=True` applied to any measure, gdeval's grade limit.
//!
//! Notation as in [`super::kernels`]; `n` is the number of documents retrieved.

use super::kernels::{divide, precision, recall, top, Binary, TREC_EVAL};
use super::trec_eval::TrecName;
use super::trec_extra::{gain_of, relative_precision, RBP_CITATION};
use super::{
    kernel, Alias, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Params, Scalar,
    GAINS, JUDGED_ONLY, REL,
};
use crate::batch::{QueryView, RankedBatch, NOT_RETRIEVED, UNJUDGED};
use crate::error::{quoted, Error, Result};

/// gdeval's MAX_JUDGMENT: ERR's probabilities are `(2^g - 1) / 2^4`.
pub const ERR_MAX_GRADE: i64 = 4;

const CITATION: &str = "MacAvaney, Macdonald & Ounis, Streamlining evaluation with \
                        ir-measures, ECIR 2022";
const PERSISTENCE: Param = Param::with_default("p", ParamKind::Fraction, Scalar::Number(0.8));

/// ir_measures' measures that trec_eval lacks (gdeval's ERR, Judged, RBP with its residual,
/// Compat, the set measures); `nDCG(dcg=..., judged_only=...)` is nDCG's.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "Judged",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), judged)),
        summary: "fraction of the top k that is judged (any grade, negative ones too); divides by \
                  the number retrieved when fewer than k",
        formula: "(1 / min(k, n)) sum_{i<=k} [d_i in the qrels]",
        citation: CITATION,
        cutoff: CutoffKind::Optional,
        params: &[],
        ..Family::DEFAULTS
    },
    Family {
        name: "ERR",
        kind: Kind::Ranking(|m| kernel(Gdeval::of(m), err)),
        summary: "expected reciprocal rank for graded relevance, as gdeval computes it (grades up \
                  to 4)",
        formula: "sum_{i<=k} (r_i / i) prod_{j<i} (1 - r_j), r_i = (2^g_i - 1) / 2^4",
        citation: "Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded \
                   relevance, CIKM 2009; gdeval.pl of the TREC 2010 Web track",
        cutoff: CutoffKind::Optional,
        params: &[],
        ..Family::DEFAULTS
    },
    Family {
        name: "RBP",
        kind: Kind::Ranking(|m| kernel(Rbp::of(m), rbp)),
        summary: "rank-biased precision as ir_measures: p = 0.8 by default, gain = grade \
                  (trectools; gains= sets the gain of grades), or 1 for grades >= rel with rel= \
                  (cwl_eval); trec_eval's rbp is TrecRBP",
        formula: "(1 - p) sum_{i<=k} gain_i p^(i-1), gain_i = max(g_i, 0), or [g_i >= rel]",
        citation: RBP_CITATION,
        cutoff: CutoffKind::Optional,
        params: &[PERSISTENCE, REL, GAINS],
        check: Some(one_gain),
        bounded: false,
        ranx: Some(super::Ranx {
            name: "rbp",
            number: super::RanxNumber::Persistence,
            level: super::RanxLevel::ZeroGainsBelow,
            note: "the same definition (gain = grade; ranx's -lN gives the grades below N no \
                   gain), over the whole ranking",
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "RBPResid",
        kind: Kind::Ranking(|m| kernel(Rbp::of(m), rbp_residual)),
        summary: "the residual of RBP: the most unjudged documents and the positions beyond the \
                  ranking (to k) could add, each at the highest gain",
        formula: "G ((1 - p) sum_{i<=k, d_i unjudged} p^(i-1) + p^min(n,k) - p^k), G = 1 with \
                  rel=, else max(1, highest grade judged); p^k = 0 without k",
        citation: "Moffat & Zobel, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::Optional,
        params: &[PERSISTENCE, REL],
        bounded: false,
        ..Family::DEFAULTS
    },
    Family {
        name: "Compat",
        kind: Kind::Ranking(|m| kernel(Compat::of(m), compat)),
        summary: "compatibility: rank-biased overlap of the ranking with an ideal ranking \
                  (by grade, ties in the run's order), normalized by the ideal's own",
        formula: "RBO(run, ideal) / RBO(ideal, ideal) (normalize=False: RBO(run, ideal)), \
                  RBO = sum_{i<=D} p^(i-1) |run_i & ideal_i| / i / sum_{i<=D} p^(i-1), \
                  D = max(n, number judged relevant)",
        citation: "Clarke, Vtyurina & Smucker, Assessing top-k preferences, ACM TOIS 39(3), 2021",
        cutoff: CutoffKind::None,
        params: &[
            Param::with_default("p", ParamKind::Fraction, Scalar::Number(0.95)),
            Param::with_default("normalize", ParamKind::Flag, Scalar::Flag(true)),
        ],
        ..Family::DEFAULTS
    },
    Family {
        name: "NCG",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), ncg)),
        summary: "normalized cumulative gain: the gain in the top k over the most any ranking \
                  of k documents could gain (gain = grade); TREC's Deep Learning track reports \
                  NCG@100 and NCG@1000 of candidate rankings",
        formula: "sum_{i<=k} max(g_i, 0) / sum_{i<=k} ideal_i, ideal = the judged grades in \
                  descending order (0 if that is 0); no k: the whole ranking over every judged \
                  grade",
        citation: "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
                   ACM TOIS 20(4), 2002 (nCG); Craswell et al., Overview of the TREC 2019 deep \
                   learning track, TREC 2019",
        cutoff: CutoffKind::Optional,
        params: &[],
        ..Family::DEFAULTS
    },
    Family {
        name: "SetP",
        kind: Kind::Ranking(|m| kernel(SetPrecision::of(m), set_precision)),
        summary: "precision of the retrieved set (relative=True, or SetRelP: over the best \
                  possible, trec_eval's set_relative_P)",
        formula: "relret / ret; relative: relret / min(ret, R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[
            REL,
            Param::with_default("relative", ParamKind::Flag, Scalar::Flag(false)),
            JUDGED_ONLY,
        ],
        aliases: &[Alias::ir_measures_preset("SetRelP", "relative=True")],
        trec_eval: &[
            TrecName::printed("set_P"),
            TrecName::printed("set_relative_P").with_params("relative=True"),
        ],
        ..Family::DEFAULTS
    },
    Family {
        name: "SetR",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), recall)),
        summary: "recall of the retrieved set",
        formula: "relret / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        trec_eval: &[TrecName::printed("set_recall")],
        ..Family::DEFAULTS
    },
];

/// ERR's parameters, as gdeval takes them: the cutoff.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gdeval {
    /// The cutoff `k`, if any.
    pub cutoff: Option<usize>,
}

impl Gdeval {
    fn of(m: &Measure) -> Self {
        Self {
            cutoff: m.cutoff_count(),
        }
    }
}

impl Params for Gdeval {
    /// ERR takes gdeval's grades, up to [`ERR_MAX_GRADE`].
    fn check(&self, name: &str, batch: &RankedBatch, _: &Context<'_>) -> Result<()> {
        let top = batch.max_judged_grade();
        if top > ERR_MAX_GRADE {
            return Err(Error::measure(
                name,
                format!(
                    "{name} takes grades up to {ERR_MAX_GRADE}, as gdeval (r = (2^g - 1) / 2^4); \
                 found a grade of {top}"
                ),
            ));
        }
        Ok(())
    }
}

/// RBP's and RBPResid's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Rbp {
    /// The cutoff `k`, if any.
    pub cutoff: Option<usize>,
    /// The persistence (`p=`, 0.8 by default).
    pub p: f64,
    /// The measure's own `rel=`: binary at this level, graded without it.
    pub binary_level: Option<i64>,
    /// Gains by grade (`gains=`), overriding the grade as gain.
    pub gains: Vec<(i64, f64)>,
}

impl Rbp {
    fn of(m: &Measure) -> Self {
        Self {
            cutoff: m.cutoff_count(),
            p: m.number("p").unwrap_or(0.8),
            binary_level: m.relevance_level(),
            gains: m.gains("gains"),
        }
    }
}

impl Params for Rbp {}

/// RBP's gain is binary (`rel=`) or graded (`gains=`), not both.
fn one_gain(m: &Measure, name: &str) -> Result<()> {
    if m.has("rel") && m.has("gains") {
        return Err(Error::measure_part(
            name,
            "gains",
            format!(
                "RBP's gain is binary with rel= or graded with gains=, not both; got {}",
                quoted(name)
            ),
        ));
    }
    Ok(())
}

/// Compat's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compat {
    /// The persistence of RBO (`p=`, 0.95 by default).
    pub p: f64,
    /// Divided by the ideal ranking's own (`normalize=True`, the default).
    pub normalize: bool,
}

impl Compat {
    fn of(m: &Measure) -> Self {
        Self {
            p: m.number("p").unwrap_or(0.95),
            normalize: m.flag("normalize"),
        }
    }
}

impl Params for Compat {}

/// SetP's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetPrecision {
    /// Relevant retrieved and retrieved, as precision counts them.
    pub binary: Binary,
    /// Over the best precision possible (`relative=True`).
    pub relative: bool,
    /// Unjudged documents leave the ranking first (`judged_only=True`).
    pub judged_only: bool,
}

impl SetPrecision {
    fn of(m: &Measure) -> Self {
        Self {
            binary: Binary::of(m),
            relative: m.flag("relative"),
            judged_only: m.flag("judged_only"),
        }
    }
}

impl Params for SetPrecision {
    fn judged_only(&self) -> bool {
        self.judged_only
    }
}

/// The grades of the judged documents only, in rank order (`judged_only=True`, trec_eval's
/// `-J`): documents absent from the qrels or judged with a negative grade leave the ranking.
pub fn judged_grades(grades: &[i64]) -> Vec<i64> {
    grades.iter().copied().filter(|&g| g >= 0).collect()
}

/// Judged@k = judged documents in the top k / min(k, n) (0 when nothing was retrieved).
///
/// A document is judged when the qrels hold it, whatever its grade (negative ones too), as
/// ir_measures' judged provider counts.
pub fn judged(query: &QueryView<'_>, p: &Binary, _: &Context<'_>) -> f64 {
    let top = top(query, p.cutoff);
    if top.is_empty() {
        return 0.0;
    }
    let judged = top.iter().filter(|&&g| g != UNJUDGED).count();
    judged as f64 / top.len() as f64
}

/// ERR@k = Σ_{i<=k} (r_i / i) Π_{j<i} (1 − r_j), r_i = (2^g_i − 1) / 2^4, negative grades
/// counting 0 (Chapelle et al., CIKM 2009, with gdeval's scale of grades 0 to 4).
pub fn err(query: &QueryView<'_>, p: &Gdeval, _: &Context<'_>) -> f64 {
    let scale = (ERR_MAX_GRADE as f64).exp2();
    let mut not_stopped = 1.0;
    let mut total = 0.0;
    for (i, &grade) in top(query, p.cutoff).iter().enumerate() {
        let r = ((grade.max(0) as f64).exp2() - 1.0) / scale;
        total += r * not_stopped / (i as f64 + 1.0);
        not_stopped *= 1.0 - r;
    }
    total
}

/// RBP@k = (1 − p) Σ_{i<=k} gain_i p^(i−1): the gain is the grade (negative ones 0; with
/// `gains=`, the gain given for the grade), as trectools computes ir_measures' graded RBP, or
/// 1 for grades >= `rel=` and else 0, as cwl_eval computes `RBP(rel=...)` (Moffat & Zobel, ACM
/// TOIS 27(1), 2008).
pub fn rbp(query: &QueryView<'_>, p: &Rbp, _: &Context<'_>) -> f64 {
    let mut weight = 1.0 - p.p;
    let mut total = 0.0;
    for &grade in top(query, p.cutoff) {
        let gain = match p.binary_level {
            Some(level) => f64::from(u8::from(grade >= level)),
            None => gain_of(grade, &p.gains),
        };
        total += gain * weight;
        weight *= p.p;
    }
    total
}

/// RBPResid@k = G ((1 − p) Σ_{i<=k, unjudged} p^(i−1) + p^min(n,k) − p^k): what RBP could
/// gain if every unjudged document in the top k, and every position between the end of the
/// ranking and k (all of them without k), had the highest gain G: 1 with `rel=`, else the
/// highest grade judged for the query (at least 1).
pub fn rbp_residual(query: &QueryView<'_>, params: &Rbp, _: &Context<'_>) -> f64 {
    let highest = match params.binary_level {
        Some(_) => 1.0,
        None => query.judged.first().copied().unwrap_or(0).max(1) as f64,
    };
    let p = params.p;
    let mut weight = 1.0;
    let mut unjudged = 0.0;
    for &grade in top(query, params.cutoff) {
        if grade < 0 {
            unjudged += weight;
        }
        weight *= p;
    }
    // `weight` is now p^min(n, k): the mass of every position after the ranking.
    let beyond_cutoff = params.cutoff.map_or(0.0, |k| p.powf(k as f64));
    highest * ((1.0 - p) * unjudged + weight - beyond_cutoff)
}

/// Compat = RBO(ranking, ideal) / RBO(ideal, ideal) (normalize=False: the RBO alone), with
/// RBO = Σ_{i<=D} p^(i−1) |ranking_i ∩ ideal_i| / i / Σ_{i<=D} p^(i−1) over the prefixes of
/// length i, D = max(n, R+), R+ the documents judged with a positive grade (Clarke,
/// Vtyurina & Smucker, Assessing top-k preferences, ACM TOIS 39(3), 2021).
///
/// The ideal ranking puts the positive grades in descending order; within a grade, the
/// retrieved documents come first in the ranking's order, then the unretrieved ones
/// (`ideal_ties="ranking"`: ties in the ideal broken in the run's favour, as ir_measures'
/// compat provider does for runs with positive, distinct scores), or, under
/// `ideal_ties="run_score"`, as that provider orders them: by the run's score descending,
/// unretrieved documents scoring 0, ties in the order of the qrels.
pub fn compat(query: &QueryView<'_>, p: &Compat, _: &Context<'_>) -> f64 {
    let grades = query.grades;
    // The ideal ranking: each entry the rank of a retrieved document, or None.
    let mut ideal: Vec<Option<usize>> = Vec::new();
    let positive = &query.judged[..query.judged.partition_point(|&g| g > 0)];
    if let Some(ranks) = query.judged_ranks {
        // Ordered in preparation (`ideal_ties="run_score"`).
        let retrieved = |&rank: &u32| (rank != NOT_RETRIEVED).then_some(rank as usize);
        ideal.extend(ranks[..positive.len()].iter().map(retrieved));
    }
    let mut start = if query.judged_ranks.is_some() {
        positive.len()
    } else {
        0
    };
    while start < positive.len() {
        let grade = positive[start];
        let judged = positive[start..]
            .iter()
            .take_while(|&&g| g == grade)
            .count();
        let before = ideal.len();
        ideal.extend((0..grades.len()).filter(|&r| grades[r] == grade).map(Some));
        let retrieved = ideal.len() - before;
        ideal.resize(ideal.len() + judged.saturating_sub(retrieved), None);
        start += judged;
    }
    let mut ideal_position = vec![usize::MAX; grades.len()];
    for (position, entry) in ideal.iter().enumerate() {
        if let Some(rank) = *entry {
            ideal_position[rank] = position;
        }
    }
    let depth = grades.len().max(ideal.len());
    let (mut score, mut best, mut normalizer) = (0.0, 0.0, 0.0);
    let mut weight = 1.0;
    let mut overlap = 0usize;
    for i in 0..depth {
        // Documents now in both prefixes: the one ranked at i, if the ideal has it by i, and
        // the ideal's document at i, if ranked before i.
        if ideal_position.get(i).is_some_and(|&position| position <= i) {
            overlap += 1;
        }
        if let Some(Some(rank)) = ideal.get(i) {
            if *rank < i {
                overlap += 1;
            }
        }
        let seen = (i + 1) as f64;
        score += weight * overlap as f64 / seen;
        best += weight * (i + 1).min(ideal.len()) as f64 / seen;
        normalizer += weight;
        weight *= p.p;
    }
    if depth == 0 {
        0.0
    } else if p.normalize && best > 0.0 {
        score / best
    } else {
        score / normalizer
    }
}

/// NCG@k = CG@k / ideal CG@k: Σ_{i<=k} max(g_i, 0) over the same sum for the judged grades in
/// descending order, cut at k (all of them without k); 0 when the ideal gains nothing
/// (Järvelin & Kekäläinen's nCG, ACM TOIS 20(4), 2002).
pub fn ncg(query: &QueryView<'_>, p: &Binary, _: &Context<'_>) -> f64 {
    let gain = |sum: f64, &grade: &i64| sum + grade.max(0) as f64;
    let cumulative = top(query, p.cutoff).iter().fold(0.0, gain);
    let k = p.cutoff.unwrap_or(usize::MAX);
    let ideal = query.judged.iter().take(k).fold(0.0, gain);
    divide(cumulative, ideal)
}

/// SetP = relevant retrieved / retrieved; with `relative=True`, relevant retrieved /
/// min(retrieved, R) (trec_eval's set_P and set_relative_P).
pub fn set_precision(query: &QueryView<'_>, p: &SetPrecision, cx: &Context<'_>) -> f64 {
    if p.relative {
        relative_precision(query, &p.binary, cx)
    } else {
        precision(query, &p.binary, cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compute, parse_measure, prepare_query, Conventions};

    /// One query: ranked a (3), u (unjudged), n (0), b (1), x (judged -1); judged also c (3)
    /// and e (1), never retrieved.
    fn example() -> RankedBatch {
        let judged = [("a", 3), ("b", 1), ("c", 3), ("e", 1), ("n", 0), ("x", -1)];
        let ranking = [("a", 5.0), ("u", 4.0), ("n", 3.0), ("b", 2.0), ("x", 1.0)];
        let trec = Conventions::profile("trec").unwrap();
        prepare_query(&judged, &ranking, &trec, 1, "q").unwrap()
    }

    fn value(batch: &RankedBatch, name: &str) -> f64 {
        let trec = Conventions::profile("trec").unwrap();
        compute(batch, &[parse_measure(name).unwrap()], &trec, 1).unwrap()[0][0]
    }

    fn close(got: f64, expected: f64, what: &str) {
        assert!(
            (got - expected).abs() < 1e-12,
            "{what}: got {got}, expected {expected}"
        );
    }

    #[test]
    fn judged_counts_any_grade_and_divides_by_what_was_retrieved() {
        let batch = example();
        close(value(&batch, "Judged@1"), 1.0, "Judged@1");
        close(value(&batch, "Judged@2"), 0.5, "Judged@2");
        close(value(&batch, "Judged@10"), 4.0 / 5.0, "Judged@10");
        close(value(&batch, "Judged"), 4.0 / 5.0, "Judged");
    }

    #[test]
    fn err_cascades_with_gdeval_probabilities() {
        let batch = example();
        let (ra, rb) = (7.0 / 16.0, 1.0 / 16.0);
        close(value(&batch, "ERR@1"), ra, "ERR@1");
        close(value(&batch, "ERR@3"), ra, "ERR@3");
        let full = ra + (1.0 - ra) * rb / 4.0;
        close(value(&batch, "ERR@4"), full, "ERR@4");
        close(value(&batch, "ERR"), full, "ERR");
    }

    #[test]
    fn rbp_is_graded_or_binary_with_rel() {
        let batch = example();
        let p: f64 = 0.8;
        close(value(&batch, "RBP"), 0.2 * (3.0 + p.powi(3)), "RBP");
        close(value(&batch, "RBP(p=0.5)@2"), 0.5 * 3.0, "RBP(p=0.5)@2");
        close(
            value(&batch, "RBP(rel=1)"),
            0.2 * (1.0 + p.powi(3)),
            "RBP(rel=1)",
        );
        close(value(&batch, "RBP(rel=3)"), 0.2, "RBP(rel=3)");
    }

    #[test]
    fn rbp_residual_counts_unjudged_ranks_and_the_tail() {
        let batch = example();
        let p: f64 = 0.8;
        // u at rank 2 and x (judged -1, unjudged) at rank 5; the tail after rank 5.
        let unjudged = 0.2 * (p + p.powi(4));
        close(
            value(&batch, "RBPResid(rel=1)"),
            unjudged + p.powi(5),
            "RBPResid(rel=1)",
        );
        close(
            value(&batch, "RBPResid"),
            3.0 * (unjudged + p.powi(5)),
            "RBPResid",
        );
        close(
            value(&batch, "RBPResid(rel=1)@3"),
            0.2 * p + p.powi(3) - p.powi(3),
            "RBPResid(rel=1)@3",
        );
        close(
            value(&batch, "RBPResid(rel=1)@7"),
            unjudged + p.powi(5) - p.powi(7),
            "RBPResid(rel=1)@7",
        );
    }

    #[test]
    fn compat_overlaps_prefixes_with_the_ideal() {
        // Ranking a b c, a and c relevant (grade 1), d relevant and not retrieved: the ideal
        // is a c d (retrieved ones first, in the ranking's order).
        let trec = Conventions::profile("trec").unwrap();
        let batch = prepare_query(
            &[("a", 1), ("c", 1), ("d", 1)],
            &[("a", 3.0), ("b", 2.0), ("c", 1.0)],
            &trec,
            1,
            "q",
        )
        .unwrap();
        let p: f64 = 0.5;
        // Overlaps at depths 1, 2, 3: {a}, {a}, {a, c}.
        let score = 1.0 + p * 1.0 / 2.0 + p * p * 2.0 / 3.0;
        let normalizer = 1.0 + p + p * p;
        let best = 1.0 + p + p * p;
        close(
            value(&batch, "Compat(p=0.5)"),
            score / best,
            "Compat(p=0.5)",
        );
        close(
            value(&batch, "Compat(p=0.5,normalize=False)"),
            score / normalizer,
            "Compat(p=0.5,normalize=False)",
        );
        // A perfect ranking is 1; with nothing relevant, 0.
        let perfect = prepare_query(
            &[("a", 2), ("b", 1)],
            &[("a", 2.0), ("b", 1.0)],
            &trec,
            1,
            "q",
        )
        .unwrap();
        close(value(&perfect, "Compat"), 1.0, "perfect Compat");
        let none = prepare_query(&[("a", 0)], &[("a", 2.0)], &trec, 1, "q").unwrap();
        close(value(&none, "Compat"), 0.0, "Compat without relevant");
    }

    #[test]
    fn ncg_is_the_gain_over_the_ideal_gain_at_k() {
        // Grades in rank order 3, unjudged, 0, 1, -1; judged 3, 3, 1, 1, 0, -1.
        let batch = example();
        close(value(&batch, "NCG@1"), 3.0 / 3.0, "NCG@1");
        close(value(&batch, "NCG@2"), 3.0 / 6.0, "NCG@2");
        close(value(&batch, "NCG@4"), 4.0 / 8.0, "NCG@4");
        close(value(&batch, "NCG@10"), 4.0 / 8.0, "NCG@10");
        close(value(&batch, "NCG"), 4.0 / 8.0, "NCG");
        // Nothing relevant judged: 0.
        let trec = Conventions::profile("trec").unwrap();
        let none = prepare_query(&[("a", 0)], &[("a", 1.0)], &trec, 1, "q").unwrap();
        close(value(&none, "NCG@5"), 0.0, "NCG without gain");
    }

    #[test]
    fn judged_only_for_the_binary_measures_numret_by_grade_and_printed_gains() {
        let batch = example();
        // judged_only: u and x leave the ranking, a n b remain (relevant: a b c e).
        for (name, judged_only, plain) in [
            ("P@3", 2.0 / 3.0, 1.0 / 3.0),
            ("AP", (1.0 + 2.0 / 3.0) / 4.0, (1.0 + 2.0 / 4.0) / 4.0),
            ("R@3", 2.0 / 4.0, 1.0 / 4.0),
            ("RR(rel=2)", 1.0, 1.0),
            ("Success@2", 1.0, 1.0),
        ] {
            let (family, rest) = name.split_at(name.find(['@', '(']).unwrap_or(name.len()));
            let with = match rest.strip_prefix('(') {
                Some(params) => format!("{family}(judged_only=True,{params}"),
                None => format!("{family}(judged_only=True){rest}"),
            };
            close(value(&batch, &with), judged_only, &with);
            close(value(&batch, name), plain, name);
        }
        close(value(&batch, "NumRet"), 5.0, "NumRet");
        close(value(&batch, "NumRet(rel=1)"), 2.0, "NumRet(rel=1)");
        close(value(&batch, "NumRet(rel=3)"), 1.0, "NumRet(rel=3)");
        assert_eq!(
            parse_measure("nDCG(gains={0:0,1:4})@10").unwrap(),
            parse_measure("nDCG(gains=0:0;1:4)@10").unwrap()
        );
        assert_eq!(
            parse_measure("P(judged_only=True,rel=2)@5").unwrap().name(),
            "P(rel=2,judged_only=True)@5"
        );
    }

    #[test]
    fn set_measures_and_judged_only() {
        let batch = example();
        close(value(&batch, "SetP"), 2.0 / 5.0, "SetP");
        close(value(&batch, "SetRelP"), 2.0 / 4.0, "SetRelP");
        close(value(&batch, "SetR"), 2.0 / 4.0, "SetR");
        // judged_only: u and x leave the ranking (a n b remain).
        close(
            value(&batch, "SetP(judged_only=True)"),
            2.0 / 3.0,
            "SetP judged_only",
        );
        let log2 = |x: f64| x.log2();
        let ideal = 3.0 + 3.0 / log2(3.0) + 1.0 / log2(4.0) + 1.0 / log2(5.0);
        close(
            value(&batch, "nDCG(judged_only=True)"),
            (3.0 + 1.0 / log2(4.0)) / ideal,
            "nDCG(judged_only=True)",
        );
        close(
            value(&batch, "nDCG"),
            (3.0 + 1.0 / log2(5.0)) / ideal,
            "nDCG",
        );
        let exp_ideal = 7.0 + 7.0 / log2(3.0) + 1.0 / log2(4.0) + 1.0 / log2(5.0);
        close(
            value(&batch, "nDCG(dcg='exp-log2')@10"),
            (7.0 + 1.0 / log2(5.0)) / exp_ideal,
            "nDCG(dcg='exp-log2')@10",
        );
    }

    #[test]
    fn names_print_as_ir_measures_prints_them() {
        for (text, printed) in [
            ("RBP(p=0.8)", "RBP"),
            ("RBP(p=0.9, rel=2)@10", "RBP(p=0.9,rel=2)@10"),
            ("RBP(rel=2,p=0.9)", "RBP(p=0.9,rel=2)"),
            ("nDCG(dcg='log2')@10", "nDCG@10"),
            ("nDCG(dcg=\"exp-log2\")@10", "nDCG(dcg='exp-log2')@10"),
            ("nDCG(judged_only=True)@10", "nDCG(judged_only=True)@10"),
            ("nDCG(judged_only=False)", "nDCG"),
            ("SetRelP", "SetP(relative=True)"),
            ("SetP(relative=False)", "SetP"),
            ("SetF(beta=1.0)", "SetF"),
            ("SetF(beta=0.5)", "SetF(beta=0.5)"),
            ("set_F", "SetF"),
            (
                "Compat(normalize=False,p=0.8)",
                "Compat(p=0.8,normalize=False)",
            ),
            ("Compat(p=0.95,normalize=True)", "Compat"),
            ("Judged@10", "Judged@10"),
            ("ERR@20", "ERR@20"),
        ] {
            assert_eq!(parse_measure(text).unwrap().name(), printed, "{text}");
        }
        assert_eq!(
            parse_measure("SetRelP").unwrap().trec_name().as_deref(),
            Some("set_relative_P")
        );
        assert_eq!(
            parse_measure("TrecRBP").unwrap().trec_name().as_deref(),
            Some("rbp")
        );
        assert_eq!(parse_measure("RBP").unwrap().trec_name(), None);
    }

    #[test]
    fn bad_parameters_say_what_was_expected() {
        for (text, message) in [
            (
                "RBP(p=1.5)",
                "parameter p of RBP must be a number strictly between 0 and 1; got '1.5' in \
                 'RBP(p=1.5)'",
            ),
            (
                "nDCG(dcg='exp')",
                "parameter dcg of nDCG must be one of 'log2', 'exp-log2'; got \"'exp'\" in \
                 \"nDCG(dcg='exp')\"",
            ),
            (
                "SetP(judged_only=yes)",
                "parameter judged_only of SetP must be True or False; got 'yes' in \
                 'SetP(judged_only=yes)'",
            ),
            (
                "nDCG(gain=exp,dcg='exp-log2')",
                "nDCG's gain is given by gain= or by dcg=, not both; got \
                 \"nDCG(gain=exp,dcg='exp-log2')\"",
            ),
            (
                "SetRelP(relative=False)",
                "parameter 'relative' given twice in 'SetRelP(relative=False)'",
            ),
            (
                "RBP(p=0.8,p=0.8)",
                "parameter 'p' given twice in 'RBP(p=0.8,p=0.8)'",
            ),
        ] {
            assert_eq!(
                parse_measure(text).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
    }

    #[test]
    fn err_refuses_grades_above_four() {
        let trec = Conventions::profile("trec").unwrap();
        let batch = prepare_query(&[("a", 5)], &[("a", 1.0)], &trec, 1, "q").unwrap();
        let measure = parse_measure("ERR@10").unwrap();
        let error = compute(&batch, &[measure], &trec, 1).unwrap_err();
        assert_eq!(
            error.to_string(),
            "ERR@10 takes grades up to 4, as gdeval (r = (2^g - 1) / 2^4); found a grade of 5"
        );
    }

    #[test]
    fn compat_orders_equal_grades_by_run_score_under_ir_measures() {
        // qrels {a: 2, b: 2}, run {a: -1.0}: ir_measures' ideal is b, a (b scores 0.0).
        let of = |profile: &str| {
            let conventions = Conventions::profile(profile).unwrap();
            let batch =
                prepare_query(&[("a", 2), ("b", 2)], &[("a", -1.0)], &conventions, 1, "q").unwrap();
            compute(&batch, &[parse_measure("Compat").unwrap()], &conventions, 1).unwrap()[0][0]
        };
        // RBO(run, ideal) / RBO(ideal, ideal) over depth 2, p = 0.95.
        close(of("ir_measures"), (0.95 * 0.5) / 1.95, "ir_measures");
        close(of("trec"), (1.0 + 0.95 * 0.5) / 1.95, "trec");
        assert_eq!(format!("{:.6}", of("ir_measures")), "0.243590");
    }
}
