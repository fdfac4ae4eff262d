//! The rest of trec_eval 10's measures: infAP, Rprec_mult, utility, 11pt_avg, binG, G,
//! ndcg_rel, Rndcg, relative_P, set_relative_P, set_map, set_F, num_nonrel_judged_ret, rbp,
//! rbp_resid, unj and yaap, each as trec_eval's m_*.c defines it, each family beside its
//! kernel.
//!
//! Notation as in [`super::kernels`]; besides, a retrieved document is *unjudged* when it is
//! absent from the qrels ([`UNJUDGED`]) or judged with a negative grade ([`POOLED_UNJUDGED`]:
//! in the pool but not judged, as infAP's sampled pools mark them).

use super::kernels::{
    divide, interpolated_precision_at, tie_averaged_dcg, tied_scores, Binary, TREC_EVAL,
};
use super::trec_eval::{Style, TrecName, CUTOFFS, RPREC_FACTORS};
use super::{
    kernel, Aggregate, Alias, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Params,
    Scalar, GAINS, JUDGED_ONLY, REL,
};
use crate::batch::{QueryView, POOLED_UNJUDGED, UNJUDGED};

/// Where rank-biased precision is defined (trec_eval's rbp here, ir_measures' RBP beside).
pub(super) const RBP_CITATION: &str = "Moffat & Zobel, Rank-biased precision for measurement of \
                            retrieval effectiveness, ACM TOIS 27(1), 2008";

/// The families of this module.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "infAP",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), infap)),
        summary: "inferred AP: average precision estimated from a sampled pool (negative grades: pooled, unjudged)",
        formula: "(1/R) sum_{rel at k} (k = 1 ? 1 : 1/k + ((k-1)/k) (d/(k-1)) (r+e)/(r+n+2e)), e = 1e-5",
        citation: "Yilmaz & Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006",
        cutoff: CutoffKind::None,
        params: &[REL],
        aliases: &[Alias::other("infap")],
        trec_eval: &[TrecName::at("infAP", 14)],
        ..Family::DEFAULTS
    },
    Family {
        name: "GM_Bpref",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), super::kernels::bpref)),
        summary: "bpref, aggregated by geometric mean (floor 1e-5)",
        formula: "exp(mean(ln(max(bpref, 1e-5))))",
        citation: "Buckley & Voorhees, SIGIR 2004; trec_eval's gm_bpref",
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::GeometricMean,
        aliases: &[Alias::trec_eval("gm_bpref")],
        trec_eval: &[TrecName::at("gm_bpref", 15).summary_only()],
        ..Family::DEFAULTS
    },
    Family {
        name: "RprecMult",
        kind: Kind::Ranking(|m| kernel(Factor::of(m), rprec_mult)),
        summary: "precision at rank f times R (trec_eval's Rprec_mult_f)",
        formula: "sum_{i<=c} rel_i / c, c = floor(f R + 0.9)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Factor,
        params: &[REL],
        aliases: &[Alias::trec_eval("Rprec_mult")],
        trec_eval: &[
            TrecName::at("Rprec_mult", 16).reads(Style::Factors, RPREC_FACTORS),
            TrecName::at("Rprec_mult_avgjg", 50)
                .reads(Style::Factors, RPREC_FACTORS)
                .from(super::trec_eval::Judgements::Groups)
                .not_in_pytrec_eval(),
        ],
        ..Family::DEFAULTS
    },
    Family {
        name: "Utility",
        kind: Kind::Ranking(|m| kernel(Utility::of(m), utility)),
        summary: "linear utility of the retrieved set (a=1, b=-1, c=0, d=0 by default; n: collection size)",
        formula: "a relret + b (ret - relret) + c (R - relret) + d (n + relret - ret - R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[
            Param::new("a", ParamKind::Number),
            Param::new("b", ParamKind::Number),
            Param::new("c", ParamKind::Number),
            Param::new("d", ParamKind::Number),
            Param::new("n", ParamKind::Number),
            REL,
        ],
        bounded: false,
        aliases: &[Alias::trec_eval("utility")],
        trec_eval: &[TrecName::at("utility", 17)
            .reads(Style::Utility, &[1.0, -1.0, 0.0, 0.0])
            .with_options(&["n"])],
        ..Family::DEFAULTS
    },
    Family {
        name: "IPrecAvg",
        kind: Kind::Ranking(|m| kernel(Levels::of(m), eleven_point_average)),
        summary: "interpolated precision averaged over recall levels (default the 11 points 0.0, 0.1, ..., 1.0)",
        formula: "mean_{r in levels} IPrec@r",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[Param::new("levels", ParamKind::Numbers), REL],
        aliases: &[Alias::trec_eval("11pt_avg")],
        trec_eval: &[TrecName::at("11pt_avg", 18).reads(Style::LevelSet, &[])],
        ..Family::DEFAULTS
    },
    Family {
        name: "BinG",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), bin_g)),
        summary: "binary G: relevant documents discounted by the non-relevant ones above them",
        formula: "(1/R) sum_{rel at rank i} 1 / log2(i + 2 - relevant up to i)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        aliases: &[Alias::trec_eval("binG")],
        trec_eval: &[TrecName::at("binG", 19)],
        ..Family::DEFAULTS
    },
    Family {
        name: "G",
        kind: Kind::Ranking(|m| kernel(Graded::of(m), g)),
        summary: "G: gains discounted by the ideal cost minus the gain so far (trec_eval's G)",
        formula: "sum_i gain_i / log2(2 + sum_{j<=i} max(ideal_j, 1) - sum_{j<=i} gain_j) / sum ideal gains",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS],
        trec_eval: &[TrecName::at("G", 20).reads(Style::Pairs, &[])],
        ..Family::DEFAULTS
    },
    Family {
        name: "nDCGRel",
        kind: Kind::Ranking(|m| kernel(Graded::of(m), ndcg_rel)),
        summary: "nDCG averaged over the ranks of the relevant documents (unretrieved ones: nDCG of the ranking)",
        formula: "(1/R) (sum_{rel retrieved at i} nDCG@i + (R - relret) nDCG)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS],
        aliases: &[Alias::trec_eval("ndcg_rel")],
        trec_eval: &[TrecName::at("ndcg_rel", 22).reads(Style::Pairs, &[])],
        ..Family::DEFAULTS
    },
    Family {
        name: "RnDCG",
        kind: Kind::Ranking(|m| kernel(Graded::of(m), rndcg)),
        summary: "nDCG averaged over the ranks where the ideal gain drops (ends of the ideal's grade levels)",
        formula: "mean_{i: ideal_i != ideal_{i+1}} nDCG@i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS, REL],
        aliases: &[Alias::trec_eval("Rndcg")],
        trec_eval: &[TrecName::at("Rndcg", 23).reads(Style::Pairs, &[])],
        ..Family::DEFAULTS
    },
    Family {
        name: "RelP",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), relative_precision)),
        summary: "relative precision: precision over the best precision possible at k (no k: over the retrieved set)",
        formula: "sum_{i<=k} rel_i / min(k, R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: &[REL],
        aliases: &[
            Alias::trec_eval("relative_P"),
            Alias::trec_eval_set("set_relative_P"),
        ],
        trec_eval: &[
            TrecName::at("relative_P", 26).reads(Style::Cutoffs, CUTOFFS),
            TrecName::at("set_relative_P", 29),
        ],
        ..Family::DEFAULTS
    },
    Family {
        name: "SetAP",
        kind: Kind::Ranking(|m| kernel(Set::of(m), set_map)),
        summary: "set AP: set precision times set recall",
        formula: "relret^2 / (ret R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::trec_eval("set_map")],
        trec_eval: &[TrecName::at("set_map", 31)],
        ..Family::DEFAULTS
    },
    Family {
        name: "SetF",
        kind: Kind::Ranking(|m| kernel(Set::of(m), set_f)),
        summary: "F measure of the retrieved set (beta=1 by default; trec_eval's beta weighs P unsquared)",
        formula: "(beta + 1) P R / (beta P + R), P = relret / ret, R = relret / R",
        citation: "van Rijsbergen, Information Retrieval, 1979; trec_eval's set_F",
        cutoff: CutoffKind::None,
        params: &[
            REL,
            Param::with_default("beta", ParamKind::Number, Scalar::Number(1.0)),
            JUDGED_ONLY,
        ],
        aliases: &[Alias::trec_eval("set_F"), Alias::other("F")],
        trec_eval: &[TrecName::at("set_F", 32).reads(Style::Number, &[1.0])],
        ..Family::DEFAULTS
    },
    Family {
        name: "NumNonRelJudgedRet",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), num_nonrel_judged_ret)),
        summary: "number of judged non-relevant documents retrieved (summed over queries)",
        formula: "sum_i [0 <= g_i < level]",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("num_nonrel_judged_ret")],
        trec_eval: &[TrecName::at("num_nonrel_judged_ret", 33)],
        ..Family::DEFAULTS
    },
    Family {
        name: "TrecRBP",
        kind: Kind::Ranking(|m| kernel(TrecRbp::of(m), rbp)),
        summary: "rank-biased precision as trec_eval's rbp (rankscope trec-eval -m rbp): p = 0.9 \
                  by default, gains scaled to [0, 1]; RBP is ir_measures' measure",
        formula: "(1 - p) sum_i gain_i p^(i-1)",
        citation: RBP_CITATION,
        cutoff: CutoffKind::None,
        params: &[GAINS, Param::new("p", ParamKind::Number)],
        trec_eval: &[TrecName::at("rbp", 52)
            .reads(Style::Pairs, &[])
            .not_in_pytrec_eval()
            .undetermined(
                "trec_eval 10 scales the gains by a lowest and a highest gain it never \
                 initialises",
            )],
        ..Family::DEFAULTS
    },
    Family {
        name: "TrecRBPResid",
        kind: Kind::Ranking(|m| kernel(TrecRbp::of(m), rbp_resid)),
        summary: "the residual of trec_eval's rbp (trec-eval -m rbp_resid): the most unjudged \
                  and unretrieved documents could add",
        formula: "p^n + (1 - p) sum_{unjudged at i} p^(i-1) (0 if none is unjudged)",
        citation: "Moffat & Zobel, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::None,
        params: &[Param::new("p", ParamKind::Number)],
        trec_eval: &[TrecName::at("rbp_resid", 53)
            .reads(Style::Pairs, &[])
            .not_in_pytrec_eval()],
        ..Family::DEFAULTS
    },
    Family {
        name: "Unjudged",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), unjudged)),
        summary: "fraction of unjudged documents in the top k (k even when fewer were retrieved)",
        formula: "(1/k) sum_{i<=k} [g_i unjudged]",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Required,
        params: &[],
        aliases: &[Alias::trec_eval("unj")],
        trec_eval: &[TrecName::at("unj", 54)
            .reads(Style::Cutoffs, &[5.0, 10.0, 20.0])
            .not_in_pytrec_eval()],
        ..Family::DEFAULTS
    },
    Family {
        name: "YAAP",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), yaap)),
        summary: "yet another average precision: a smoothed, log-odds AP",
        formula: "ln((1 + s) / (1 + R - s)), s = sum_{rel retrieved at i} P@i",
        citation: "Robertson, On Smoothing Average Precision, ECIR 2012",
        cutoff: CutoffKind::None,
        params: &[REL],
        bounded: false,
        aliases: &[Alias::trec_eval("yaap")],
        trec_eval: &[TrecName::at("yaap", 51).not_in_pytrec_eval()],
        ..Family::DEFAULTS
    },
];

/// trec_eval's INFAP_EPSILON.
const INFAP_EPSILON: f64 = 0.00001;

/// RprecMult's parameters: the factor of R and `rel=`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factor {
    /// The factor f.
    pub factor: f64,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
}

impl Factor {
    fn of(m: &Measure) -> Self {
        Self {
            factor: m.cutoff_level().unwrap_or(1.0),
            rel: m.relevance_level(),
        }
    }
}

impl Params for Factor {}

/// Utility's coefficients, the collection size and `rel=`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Utility {
    /// The coefficients a, b, c, d (1, -1, 0, 0 unless given).
    pub coefficients: [f64; 4],
    /// The number of documents in the collection (`n=`, trec_eval `-N`; 0 unless given).
    pub collection_size: f64,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
}

impl Utility {
    fn of(m: &Measure) -> Self {
        Self {
            coefficients: [
                m.number("a").unwrap_or(1.0),
                m.number("b").unwrap_or(-1.0),
                m.number("c").unwrap_or(0.0),
                m.number("d").unwrap_or(0.0),
            ],
            collection_size: m.number("n").unwrap_or(0.0),
            rel: m.relevance_level(),
        }
    }
}

impl Params for Utility {}

/// IPrecAvg's recall levels and `rel=`.
#[derive(Debug, Clone, PartialEq)]
pub struct Levels {
    /// The recall levels (the 11 points 0.0, 0.1, ..., 1.0 unless given).
    pub levels: Vec<f64>,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
}

impl Levels {
    fn of(m: &Measure) -> Self {
        Self {
            levels: m
                .numbers("levels")
                .unwrap_or_else(|| (0..=10).map(|i| f64::from(i) / 10.0).collect()),
            rel: m.relevance_level(),
        }
    }
}

impl Params for Levels {}

/// The parameters of the graded measures G, ndcg_rel and Rndcg: gains by grade and `rel=`.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    /// Gains by grade (`gains=`), overriding the grade as gain.
    pub gains: Vec<(i64, f64)>,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
}

impl Graded {
    fn of(m: &Measure) -> Self {
        Self {
            gains: m.gains("gains"),
            rel: m.relevance_level(),
        }
    }
}

impl Params for Graded {}

/// The parameters of the set measures SetAP and SetF.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Set {
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
    /// F's weight of precision (`beta=`, 1 by default).
    pub beta: f64,
    /// Unjudged documents leave the ranking first (`judged_only=True`).
    pub judged_only: bool,
}

impl Set {
    fn of(m: &Measure) -> Self {
        Self {
            rel: m.relevance_level(),
            beta: m.number("beta").unwrap_or(1.0),
            judged_only: m.flag("judged_only"),
        }
    }
}

impl Params for Set {
    fn judged_only(&self) -> bool {
        self.judged_only
    }
}

/// trec_eval's rbp and rbp_resid: gains by grade and the persistence.
#[derive(Debug, Clone, PartialEq)]
pub struct TrecRbp {
    /// Gains by grade (`gains=`).
    pub gains: Vec<(i64, f64)>,
    /// The persistence (`p=`, 0.9 unless given).
    pub p: f64,
}

impl TrecRbp {
    fn of(m: &Measure) -> Self {
        Self {
            gains: m.gains("gains"),
            p: m.number("p").unwrap_or(0.9),
        }
    }
}

impl Params for TrecRbp {}

/// The gain of a grade: its gain in `gains`, else the grade itself (0 for negative grades), as
/// trec_eval's setup_gains.
pub fn gain_of(grade: i64, gains: &[(i64, f64)]) -> f64 {
    match gains.iter().find(|(g, _)| *g == grade) {
        Some(&(_, gain)) => gain,
        None => grade.max(0) as f64,
    }
}

/// The ideal gains of a query: every judged document's gain (grades >= 0), positive ones only,
/// largest first.
pub fn ideal_gains(query: &QueryView<'_>, gains: &[(i64, f64)]) -> Vec<f64> {
    let mut ideal: Vec<f64> = query
        .judged
        .iter()
        .filter(|&&g| g >= 0)
        .map(|&g| gain_of(g, gains))
        .filter(|&gain| gain > 0.0)
        .collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    ideal
}

/// nDCG@k with the gains of `gains=`: Σ_{i<=k} gain(g_i) / log2(i + 1) over the same sum for
/// the judged documents ordered by gain; tied scores share their positions under
/// `tied_scores="averaged"` ([`tie_averaged_dcg`]).
pub fn ndcg_with_gains(
    query: &QueryView<'_>,
    cutoff: Option<usize>,
    gains: &[(i64, f64)],
    cx: &Context<'_>,
) -> f64 {
    let limit = cutoff.unwrap_or(usize::MAX);
    let discount = |i: usize| (i as f64 + 2.0).log2();
    let dcg = match tied_scores(query, cx) {
        Some(scores) => tie_averaged_dcg(query.grades, scores, cutoff, |g| gain_of(g, gains)),
        None => query
            .grades
            .iter()
            .take(limit)
            .enumerate()
            .map(|(i, &g)| (i, gain_of(g, gains)))
            .filter(|&(_, gain)| gain != 0.0)
            .fold(0.0, |sum, (i, gain)| sum + gain / discount(i)),
    };
    let ideal = ideal_gains(query, gains)
        .into_iter()
        .take(limit)
        .enumerate()
        .fold(0.0, |sum, (i, gain)| sum + gain / discount(i));
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// Relevant retrieved, retrieved and relevant, as floats.
fn counts(query: &QueryView<'_>, level: i64) -> (f64, f64, f64) {
    (
        query.num_relevant_retrieved(level, None) as f64,
        query.num_retrieved() as f64,
        query.num_relevant(level) as f64,
    )
}

/// infAP = (1/R) Σ_{relevant retrieved at rank k} `E[P@k]`, with `E[P@1]` = 1 and
/// `E[P@k]` = 1/k + ((k-1)/k) · (d/(k-1)) · (r + ε)/(r + n + 2ε) for k > 1, where among the
/// documents above rank k, d are in the pool, r relevant and n judged non-relevant
/// (Yilmaz & Aslam, CIKM 2006). Documents outside the pool are skipped.
pub fn infap(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let (mut rel, mut nonrel, mut pooled) = (0usize, 0usize, 0usize);
    let mut total = 0.0;
    for (j, &grade) in query.grades.iter().enumerate() {
        if grade == UNJUDGED {
            continue;
        }
        if grade == POOLED_UNJUDGED {
            pooled += 1;
        } else if grade < level {
            nonrel += 1;
        } else {
            rel += 1;
            total += if j == 0 {
                1.0
            } else {
                let k = j as f64;
                let above = (rel - 1) as f64;
                1.0 / (k + 1.0)
                    + (k / (k + 1.0))
                        * ((above + nonrel as f64 + pooled as f64) / k)
                        * ((above + INFAP_EPSILON) / (above + nonrel as f64 + 2.0 * INFAP_EPSILON))
            };
        }
    }
    divide(total, query.num_relevant(level) as f64)
}

/// Rprec_mult@f = precision at rank c = ⌊f·R + 0.9⌋ (relevant in the top c / c; 0 when c = 0).
pub fn rprec_mult(query: &QueryView<'_>, p: &Factor, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let cut = (p.factor * query.num_relevant(level) as f64 + 0.9).trunc() as usize;
    let num_relevant_retrieved = query.num_relevant_retrieved(level, None);
    if cut > query.num_retrieved() {
        return num_relevant_retrieved as f64 / cut as f64;
    }
    // As trec_eval counts: from the last document up, the relevant documents still above
    // (judged ones, less each document whose grade reaches the level), read at rank `cut`.
    let mut relevant_so_far = num_relevant_retrieved;
    for rank in (1..=query.num_retrieved()).rev() {
        if relevant_so_far == 0 {
            break;
        }
        if rank == cut {
            return relevant_so_far as f64 / rank as f64;
        }
        if query.grades[rank - 1] >= level {
            relevant_so_far -= 1;
        }
    }
    0.0
}

/// utility = a·relret + b·(ret − relret) + c·(R − relret) + d·(N + relret − ret − R), N the
/// number of documents in the collection (`n=`, trec_eval `-N`; 0 by default).
pub fn utility(query: &QueryView<'_>, p: &Utility, cx: &Context<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, cx.level(p.rel));
    let [a, b, c, d] = p.coefficients;
    a * relret
        + b * (ret - relret)
        + c * (rel - relret)
        + d * (p.collection_size + relret - ret - rel)
}

/// 11pt_avg = mean of interpolated precision over the recall levels (default 0.0, 0.1, ...,
/// 1.0), added from the last level to the first, as trec_eval adds them.
pub fn eleven_point_average(query: &QueryView<'_>, p: &Levels, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let total = p.levels.iter().rev().fold(0.0, |sum, &recall_level| {
        sum + interpolated_precision_at(query, level, recall_level, cx)
    });
    divide(total, p.levels.len() as f64)
}

/// binG = (1/R) Σ_{relevant at rank i} 1 / log2(i + 2 − rel_so_far), rel_so_far counting this
/// one: a relevant document is discounted by the non-relevant ones above it.
pub fn bin_g(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let mut seen = 0usize;
    let mut total = 0.0;
    for (i, &grade) in query.grades.iter().enumerate() {
        if grade >= level {
            seen += 1;
            total += 1.0 / ((3 + i - seen) as f64).log2();
        }
    }
    divide(total, query.num_relevant(level) as f64)
}

/// G = Σ_i gain_i / log2(2 + cost_i − gained_i) / Σ ideal gains, where gained_i sums the gains
/// of the first i documents and cost_i sums max(ideal gain at j, 1) over j <= i (trec_eval's
/// m_G).
pub fn g(query: &QueryView<'_>, p: &Graded, _: &Context<'_>) -> f64 {
    let ideal = ideal_gains(query, &p.gains);
    let (mut gained, mut cost, mut total) = (0.0, 0.0, 0.0);
    for (i, &grade) in query.grades.iter().enumerate() {
        let gain = gain_of(grade, &p.gains);
        gained += gain;
        let ideal_gain = ideal.get(i).copied().unwrap_or(0.0);
        cost += if ideal_gain >= 1.0 { ideal_gain } else { 1.0 };
        if gain != 0.0 {
            total += gain / (2.0 + cost - gained).log2();
        }
    }
    let ideal_total = ideal.iter().fold(0.0, |sum, g| sum + g);
    divide(total, ideal_total)
}

/// DCG of the ranking and of the ideal ranking, rank by rank over the longer of the two: the
/// running sums after each rank (the shorter one stays at its total).
fn running_dcg(query: &QueryView<'_>, gains: &[(i64, f64)], ideal: &[f64]) -> Vec<(f64, f64)> {
    let length = query.grades.len().max(ideal.len());
    let (mut dcg, mut ideal_dcg) = (0.0, 0.0);
    (0..length)
        .map(|i| {
            let discount = (i as f64 + 2.0).log2();
            if let Some(&grade) = query.grades.get(i) {
                let gain = gain_of(grade, gains);
                if gain != 0.0 {
                    dcg += gain / discount;
                }
            }
            if let Some(&gain) = ideal.get(i) {
                ideal_dcg += gain / discount;
            }
            (dcg, ideal_dcg)
        })
        .collect()
}

/// ndcg_rel = nDCG averaged over the ranks of the relevant documents (gain > 0), a relevant
/// document not retrieved counting the nDCG of the whole ranking (trec_eval's m_ndcg_rel).
pub fn ndcg_rel(query: &QueryView<'_>, p: &Graded, _: &Context<'_>) -> f64 {
    let ideal = ideal_gains(query, &p.gains);
    let running = running_dcg(query, &p.gains, &ideal);
    let mut total = 0.0;
    let mut retrieved = 0usize;
    for (i, &grade) in query.grades.iter().enumerate() {
        if gain_of(grade, &p.gains) > 0.0 {
            let (dcg, ideal_dcg) = running[i];
            total += dcg / ideal_dcg;
            retrieved += 1;
        }
    }
    let Some(&(dcg, ideal_dcg)) = running.last() else {
        return 0.0;
    };
    if ideal.is_empty() {
        return 0.0;
    }
    total += (ideal.len() as f64 - retrieved as f64) * dcg / ideal_dcg;
    if total > 0.0 {
        total / ideal.len() as f64
    } else {
        0.0
    }
}

/// Rndcg = nDCG averaged over the ranks where the ideal gain changes (the ends of the ideal
/// ranking's grade levels), the nDCG of the whole ranking standing in beyond the last
/// retrieved document (trec_eval's m_Rndcg).
pub fn rndcg(query: &QueryView<'_>, p: &Graded, cx: &Context<'_>) -> f64 {
    if query.num_relevant(cx.level(p.rel)) == 0 {
        return 0.0;
    }
    let ideal = ideal_gains(query, &p.gains);
    let ideal_at = |i: usize| ideal.get(i).copied().unwrap_or(0.0);
    let (mut dcg, mut ideal_dcg) = (0.0, 0.0);
    // The sum of nDCG at the level ends, and their number.
    let mut points = (0.0, 0usize);
    let add = |points: &mut (f64, usize), dcg: f64, ideal_dcg: f64| {
        if ideal_dcg > 0.0 {
            points.0 += dcg / ideal_dcg;
            points.1 += 1;
        }
    };
    let grades = query.grades;
    let mut previous = ideal_at(0);
    let mut ideal_gain = previous;
    let mut i = 0;
    while i < grades.len() && ideal_gain > 0.0 {
        ideal_gain = ideal_at(i);
        if previous != ideal_gain {
            add(&mut points, dcg, ideal_dcg);
            previous = ideal_gain;
        }
        let discount = (i as f64 + 2.0).log2();
        dcg += gain_of(grades[i], &p.gains) / discount;
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount;
        }
        i += 1;
    }
    if i < grades.len() {
        for (j, &grade) in grades.iter().enumerate().skip(i) {
            dcg += gain_of(grade, &p.gains) / (j as f64 + 2.0).log2();
        }
        add(&mut points, dcg, ideal_dcg);
    }
    while ideal_gain > 0.0 {
        ideal_gain = ideal_at(i);
        if previous != ideal_gain {
            add(&mut points, dcg, ideal_dcg);
            previous = ideal_gain;
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / (i as f64 + 2.0).log2();
        }
        i += 1;
    }
    // No level ended with an ideal DCG above 0 (every relevant document has gain 0).
    cx.conventions
        .zero_division
        .divide(points.0, points.1 as f64)
}

/// relative_P@k = relevant in the top k / min(k, R); without k (set_relative_P), relevant
/// retrieved / min(retrieved, R). 0 when R = 0.
pub fn relative_precision(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let rel = query.num_relevant(level);
    let size = p.cutoff.unwrap_or(query.num_retrieved());
    let hits = query.num_relevant_retrieved(level, p.cutoff);
    divide(hits as f64, size.min(rel) as f64)
}

/// set_map = relret² / (ret · R): set precision times set recall.
pub fn set_map(query: &QueryView<'_>, p: &Set, cx: &Context<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, cx.level(p.rel));
    divide(relret * relret, ret * rel)
}

/// set_F = (β + 1) · P · R / (β · P + R) over the retrieved set (trec_eval's β multiplies P
/// as given, not squared); 0 when nothing relevant is retrieved.
pub fn set_f(query: &QueryView<'_>, p: &Set, cx: &Context<'_>) -> f64 {
    let (relret, ret, rel) = counts(query, cx.level(p.rel));
    if relret == 0.0 {
        return 0.0;
    }
    let (precision, recall) = (relret / ret, relret / rel);
    (p.beta + 1.0) * precision * recall / (p.beta * precision + recall)
}

/// Number of judged non-relevant documents retrieved (0 <= grade < level).
pub fn num_nonrel_judged_ret(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    query
        .grades
        .iter()
        .filter(|&&g| (0..level).contains(&g))
        .count() as f64
}

/// The gain table of rbp: every grade from 0 to the query's largest judged grade and every
/// grade of `gains=`; scaled to [0, 1] by (gain − min) / (max − min) when a gain lies outside.
fn rbp_gain<'a>(query: &QueryView<'_>, gains: &'a [(i64, f64)]) -> impl Fn(i64) -> f64 + 'a {
    let top = query.judged.first().copied().unwrap_or(-1);
    let table: Vec<f64> = (0..=top)
        .map(|g| gain_of(g, gains))
        .chain(
            gains
                .iter()
                .filter(|(g, _)| *g > top || *g < 0)
                .map(|&(_, v)| v),
        )
        .collect();
    let min = table.iter().copied().fold(f64::INFINITY, f64::min);
    let max = table.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let scale = min < 0.0 || max > 1.0;
    move |grade: i64| {
        let gain = match gains.iter().find(|(g, _)| *g == grade) {
            Some(&(_, gain)) => gain,
            None if grade >= 0 && grade <= top => grade as f64,
            None => return 0.0,
        };
        if scale {
            (gain - min) / (max - min)
        } else {
            gain
        }
    }
}

/// rbp = (1 − p) Σ_i gain_i · p^(i−1), gains scaled to [0, 1] (Moffat & Zobel, ACM TOIS
/// 27(1), 2008); p = 0.9 unless `p=` is given.
pub fn rbp(query: &QueryView<'_>, p: &TrecRbp, _: &Context<'_>) -> f64 {
    let gain = rbp_gain(query, &p.gains);
    let mut weight = 1.0;
    let mut total = 0.0;
    for &grade in query.grades {
        let g = gain(grade);
        if g != 0.0 {
            total += g * weight;
        }
        weight *= p.p;
    }
    (1.0 - p.p) * total
}

/// rbp_resid = p^n + (1 − p) Σ_{unjudged at rank i} p^(i−1): the most the unjudged documents
/// and those beyond the ranking could add to rbp (0 when every retrieved document is judged).
pub fn rbp_resid(query: &QueryView<'_>, p: &TrecRbp, _: &Context<'_>) -> f64 {
    let mut weight = 1.0;
    let mut total = 0.0;
    let mut unjudged = false;
    for &grade in query.grades {
        if grade < 0 {
            unjudged = true;
            total += weight;
        }
        weight *= p.p;
    }
    if unjudged {
        weight + (1.0 - p.p) * total
    } else {
        0.0
    }
}

/// unj@k = unjudged documents in the top k / k (k even when fewer were retrieved).
pub fn unjudged(query: &QueryView<'_>, p: &Binary, _: &Context<'_>) -> f64 {
    let k = p.cutoff.unwrap_or(query.num_retrieved());
    let top = &query.grades[..k.min(query.grades.len())];
    divide(top.iter().filter(|&&g| g < 0).count() as f64, k as f64)
}

/// yaap = ln((1 + s) / (1 + R − s)), s = Σ_{relevant retrieved} P@rank (Robertson, On
/// Smoothing Average Precision, ECIR 2012).
pub fn yaap(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let mut seen = 0usize;
    let mut sum = 0.0;
    for (i, &grade) in query.grades.iter().enumerate() {
        if grade >= level {
            seen += 1;
            sum += seen as f64 / (i as f64 + 1.0);
        }
    }
    let rel = query.num_relevant(level) as f64;
    ((1.0 + sum) / (1.0 + rel - sum)).ln()
}

/// trec_eval's relstring: the grades of the first `length` documents as characters, `0`-`9`
/// for grades, `>` above 9, `-` not in the pool, `.` pooled but unjudged, `<` below that.
pub fn relevance_string(grades: &[i64], length: usize) -> String {
    grades
        .iter()
        .take(length)
        .map(|&grade| match grade {
            10.. => '>',
            0..=9 => char::from(b'0' + grade as u8),
            UNJUDGED => '-',
            POOLED_UNJUDGED => '.',
            _ => '<',
        })
        .collect()
}
