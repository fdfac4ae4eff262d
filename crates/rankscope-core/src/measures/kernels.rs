//! trec_eval's classic measures: nDCG, AP, RR, P, R, Rprec, Success, Bpref, GM_AP, IPrec and
//! the counts, each family beside its kernel.
//!
//! Each kernel sees one query ([`QueryView`]), its own parameters and the evaluation's
//! [`Context`]. Notation in the formulas: `rel_i` is 1 when the document at rank i has grade >=
//! the relevance level, `g_i` its grade, `R` the number of relevant judged documents of the
//! query, `k` the cutoff. Sums run in rank order, as trec_eval adds them.

use super::trec_eval::{Judgements, Style, TrecName, CUTOFFS, RECALL_LEVELS};
use super::{
    kernel, Aggregate, Alias, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Params,
    Ranx, RanxLevel, RanxNumber, Scalar, ALL_PROFILES, GAINS, JUDGED_ONLY, REL,
};
use crate::batch::{QueryView, RankedBatch};
use crate::error::{Error, Result};
use crate::profile::{
    ApDenominator, Gain, IdealRanking, PrecisionDenominator, RecallLevelRounding, TiedScores,
};

/// Where trec_eval's measures are defined.
pub const TREC_EVAL: &str = "trec_eval 10 (NIST), https://github.com/usnistgov/trec_eval";

/// The largest grade nDCG's exponential gain accepts (2^grade must fit a float).
pub const MAX_EXP_GRADE: i64 = 1023;

/// The families of this module.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "nDCG",
        kind: Kind::Ranking(|m| kernel(Ndcg::of(m), ndcg)),
        summary: "normalized discounted cumulative gain; gain = grade (gain=exp or ir_measures' \
                  dcg='exp-log2': 2^grade-1); judged_only=True: unjudged documents leave the \
                  ranking first (trec_eval -J)",
        formula: "DCG@k / IDCG@k, DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1); gains=1:3;2:9 \
                  sets the gain of each grade (trec_eval's ndcg.1=3,2=9); dcg='log2' (the \
                  default) is the profile's gain",
        citation: "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
                   ACM TOIS 20(4), 2002",
        cutoff: CutoffKind::Optional,
        params: &[
            Param::with_default(
                "dcg",
                ParamKind::Quoted(&["log2", "exp-log2"]),
                Scalar::Word("log2"),
            ),
            Param::new("gain", ParamKind::Words(&["linear", "exp"])),
            GAINS,
            JUDGED_ONLY,
        ],
        check: Some(one_gain),
        aliases: &[Alias::trec_eval("ndcg"), Alias::trec_eval("ndcg_cut")],
        trec_eval: &[
            TrecName::at("ndcg", 21).reads(Style::Pairs, &[]),
            TrecName::at("ndcg_cut", 24).reads(Style::Cutoffs, CUTOFFS),
        ],
        ranx: Some(Ranx {
            name: "ndcg",
            number: RanxNumber::Cutoff,
            level: RanxLevel::ZeroGainsBelow,
            note: "the same definition (gain = grade); ranx's -lN gives the grades below N no \
                   gain, in the ranking and in the ideal one",
        }),
        profiles: ALL_PROFILES,
        ..Family::DEFAULTS
    },
    Family {
        name: "AP",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), average_precision)),
        summary: "average precision: mean of P@rank over relevant documents, / number relevant",
        formula: "sum_{i<=k, rel_i} P@i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: &[REL, JUDGED_ONLY],
        aliases: &[
            Alias::trec_eval("map"),
            Alias::trec_eval("map_cut"),
            Alias::other("mean_average_precision"),
        ],
        trec_eval: &[
            TrecName::at("map", 5),
            TrecName::at("map_cut", 25).reads(Style::Cutoffs, CUTOFFS),
            TrecName::at("map_avgjg", 48)
                .from(Judgements::Groups)
                .not_in_pytrec_eval(),
        ],
        ranx: Some(Ranx {
            name: "map",
            number: RanxNumber::Cutoff,
            level: RanxLevel::Rel,
            note: "the same definition: divided by all relevant documents, as map_cut",
        }),
        profiles: ALL_PROFILES,
        ..Family::DEFAULTS
    },
    Family {
        name: "RR",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), reciprocal_rank)),
        summary: "reciprocal rank of the first relevant document",
        formula: "1 / rank of the first relevant document within k (0 if none)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::trec_eval("recip_rank")],
        trec_eval: &[TrecName::at("recip_rank", 9)],
        ranx: Some(Ranx {
            name: "mrr",
            number: RanxNumber::Cutoff,
            level: RanxLevel::Rel,
            note: "the same definition",
        }),
        profiles: ALL_PROFILES,
        ..Family::DEFAULTS
    },
    Family {
        name: "P",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), precision)),
        summary: "precision: relevant in the top k / k (no k: relevant retrieved / retrieved)",
        formula: "(1/k) sum_{i<=k} rel_i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::trec_eval_set("set_P")],
        trec_eval: &[
            TrecName::at("P", 11).reads(Style::Cutoffs, CUTOFFS),
            TrecName::at("set_P", 28),
            TrecName::at("P_avgjg", 49)
                .reads(Style::Cutoffs, CUTOFFS)
                .from(Judgements::Groups)
                .not_in_pytrec_eval(),
        ],
        ranx: Some(Ranx {
            name: "precision",
            number: RanxNumber::Cutoff,
            level: RanxLevel::Rel,
            note: "the same definition (divided by k even when fewer were retrieved)",
        }),
        profiles: ALL_PROFILES,
        ..Family::DEFAULTS
    },
    Family {
        name: "R",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), recall)),
        summary: "recall: relevant in the top k / number relevant",
        formula: "sum_{i<=k} rel_i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: &[REL, JUDGED_ONLY],
        aliases: &[
            Alias::trec_eval("recall"),
            Alias::trec_eval_set("set_recall"),
        ],
        trec_eval: &[
            TrecName::at("recall", 13).reads(Style::Cutoffs, CUTOFFS),
            TrecName::at("set_recall", 30),
        ],
        ranx: Some(Ranx {
            name: "recall",
            number: RanxNumber::Cutoff,
            level: RanxLevel::Rel,
            note: "the same definition",
        }),
        profiles: ALL_PROFILES,
        ..Family::DEFAULTS
    },
    Family {
        name: "Rprec",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), r_precision)),
        summary: "precision at rank R, R = number relevant",
        formula: "sum_{i<=R} rel_i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::other("r_prec"), Alias::other("r-prec")],
        trec_eval: &[TrecName::at("Rprec", 7)],
        ranx: Some(Ranx {
            name: "r-precision",
            number: RanxNumber::None,
            level: RanxLevel::Rel,
            note: "the same definition",
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "Success",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), success)),
        summary: "1 if any relevant document is in the top k, else 0",
        formula: "1 if sum_{i<=k} rel_i > 0 else 0",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Required,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::trec_eval("success")],
        trec_eval: &[TrecName::at("success", 27).reads(Style::Cutoffs, &[1.0, 5.0, 10.0])],
        ranx: Some(Ranx {
            name: "hit_rate",
            number: RanxNumber::Cutoff,
            level: RanxLevel::Rel,
            note: "the same definition (1 if a relevant document is in the top k; without @k, \
                   the whole ranking: Success@1000000000)",
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "Bpref",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), bpref)),
        summary: "binary preference: relevant documents ranked above judged non-relevant ones",
        formula: "(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(N, R))",
        citation: "Buckley & Voorhees, Retrieval Evaluation with Incomplete Information, \
                   SIGIR 2004",
        cutoff: CutoffKind::None,
        params: &[REL],
        trec_eval: &[TrecName::at("bpref", 8)],
        ranx: Some(Ranx {
            name: "bpref",
            number: RanxNumber::None,
            level: RanxLevel::Rel,
            note: "trec_eval's bpref, which ranx's equals where ranx defines it: ranx divides by \
                   zero for a query without relevant documents (in its parallel loop, that \
                   query and the following ones get 0), gives NaN for one without judged \
                   non-relevant documents, and counts negative grades as judged non-relevant \
                   (trec_eval: unjudged)",
        }),
        ..Family::DEFAULTS
    },
    Family {
        name: "GM_AP",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), average_precision)),
        summary: "average precision, aggregated by geometric mean (floor 1e-5)",
        formula: "exp(mean(ln(max(AP, 1e-5))))",
        citation: "Robertson, On GMAP, CIKM 2006; trec_eval's gm_map",
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::GeometricMean,
        aliases: &[Alias::trec_eval("gm_map"), Alias::other("gmap")],
        trec_eval: &[TrecName::at("gm_map", 6).summary_only()],
        ..Family::DEFAULTS
    },
    Family {
        name: "IPrec",
        kind: Kind::Ranking(|m| kernel(RecallLevel::of(m), interpolated_precision)),
        summary: "interpolated precision at a recall level in [0, 1]",
        formula: "max_{i: recall@i >= r} P@i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::RecallLevel,
        params: &[REL, JUDGED_ONLY],
        aliases: &[Alias::trec_eval("iprec_at_recall")],
        trec_eval: &[TrecName::at("iprec_at_recall", 10).reads(Style::Levels, RECALL_LEVELS)],
        ..Family::DEFAULTS
    },
    Family {
        name: "NumRet",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), num_ret)),
        summary: "number of documents retrieved (summed over queries); NumRet(rel=k), as in \
                  ir_measures: those with a grade of at least k",
        formula: "|ranking|; with rel=k: sum_i [g_i >= k]",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("num_ret")],
        trec_eval: &[TrecName::at("num_ret", 2)],
        ..Family::DEFAULTS
    },
    Family {
        name: "NumRel",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), num_rel)),
        summary: "number of relevant judged documents (summed over queries)",
        formula: "R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("num_rel")],
        trec_eval: &[TrecName::at("num_rel", 3)],
        ..Family::DEFAULTS
    },
    Family {
        name: "NumRelRet",
        kind: Kind::Ranking(|m| kernel(Binary::of(m), num_rel_ret)),
        summary: "number of relevant documents retrieved (summed over queries)",
        formula: "sum_i rel_i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[REL],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &[Alias::trec_eval("num_rel_ret")],
        trec_eval: &[TrecName::at("num_rel_ret", 4)],
        ..Family::DEFAULTS
    },
    Family {
        name: "NumQ",
        kind: Kind::Ranking(|_| kernel((), num_q)),
        summary: "number of queries evaluated",
        formula: "1 per query",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Count,
        bounded: false,
        aliases: &[Alias::trec_eval("num_q")],
        trec_eval: &[TrecName::at("num_q", 1)
            .summary_only()
            .from(Judgements::Any)],
        ..Family::DEFAULTS
    },
];

/// The parameters of the binary measures: the cutoff and `rel=`, if given, and
/// `judged_only=`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Binary {
    /// The cutoff `k`, if any.
    pub cutoff: Option<usize>,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
    /// Unjudged documents leave the ranking first (`judged_only=True`, trec_eval's `-J`).
    pub judged_only: bool,
}

impl Binary {
    /// The parameters of `m`.
    pub fn of(m: &Measure) -> Self {
        Self {
            cutoff: m.cutoff_count(),
            rel: m.relevance_level(),
            judged_only: m.flag("judged_only"),
        }
    }
}

impl Params for Binary {
    fn judged_only(&self) -> bool {
        self.judged_only
    }
}

/// IPrec's parameters: the recall level and `rel=`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecallLevel {
    /// The recall level in [0, 1].
    pub level: f64,
    /// The measure's own relevance level (`rel=`), if given.
    pub rel: Option<i64>,
    /// Unjudged documents leave the ranking first (`judged_only=True`).
    pub judged_only: bool,
}

impl RecallLevel {
    fn of(m: &Measure) -> Self {
        Self {
            level: m.cutoff_level().unwrap_or(0.0),
            rel: m.relevance_level(),
            judged_only: m.flag("judged_only"),
        }
    }
}

impl Params for RecallLevel {
    fn judged_only(&self) -> bool {
        self.judged_only
    }
}

/// nDCG's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Ndcg {
    /// The cutoff `k`, if any.
    pub cutoff: Option<usize>,
    /// The gain (`gain=`, or ir_measures' `dcg=`); the profile's when `None`.
    pub gain: Option<Gain>,
    /// Gains by grade (`gains=`), overriding the grade as gain.
    pub gains: Vec<(i64, f64)>,
    /// Unjudged documents leave the ranking first (`judged_only=True`).
    pub judged_only: bool,
}

impl Ndcg {
    fn of(m: &Measure) -> Self {
        let gain = match (m.word("dcg"), m.word("gain")) {
            (Some("exp-log2"), _) | (_, Some("exp")) => Some(Gain::Exp),
            (_, Some(_)) => Some(Gain::Linear),
            _ => None,
        };
        Self {
            cutoff: m.cutoff_count(),
            gain,
            gains: m.gains("gains"),
            judged_only: m.flag("judged_only"),
        }
    }

    fn gain(&self, context: &Context<'_>) -> Gain {
        self.gain.unwrap_or(context.conventions.gain)
    }
}

impl Params for Ndcg {
    fn judged_only(&self) -> bool {
        self.judged_only
    }

    /// The exponential gain (`2^grade - 1`) refuses grades above [`MAX_EXP_GRADE`].
    fn check(&self, name: &str, batch: &RankedBatch, context: &Context<'_>) -> Result<()> {
        if self.gain(context) != Gain::Exp {
            return Ok(());
        }
        let top = batch.max_judged_grade();
        if top > MAX_EXP_GRADE {
            return Err(Error::measure_part(
                name,
                "gain",
                format!(
                    "nDCG with gain=exp needs grades up to {MAX_EXP_GRADE} (2**grade must fit a \
                 float); found a grade of {top}; use the linear gain"
                ),
            ));
        }
        Ok(())
    }
}

/// nDCG's gain is given once: by `gain=` or by ir_measures' `dcg=`.
fn one_gain(m: &Measure, name: &str) -> Result<()> {
    if m.has("gain") && m.has("dcg") {
        return Err(Error::measure_part(
            name,
            "dcg",
            format!(
                "nDCG's gain is given by gain= or by dcg=, not both; got {}",
                crate::error::quoted(name)
            ),
        ));
    }
    Ok(())
}

pub(super) fn divide(numerator: f64, denominator: f64) -> f64 {
    if denominator == 0.0 {
        0.0
    } else {
        numerator / denominator
    }
}

/// The first `cutoff` grades (all without one).
pub(super) fn top<'a>(query: &QueryView<'a>, cutoff: Option<usize>) -> &'a [i64] {
    match cutoff {
        Some(k) => &query.grades[..k.min(query.grades.len())],
        None => query.grades,
    }
}

/// P@k = (1/k) Σ_{i<=k} rel_i; without k, relevant retrieved / retrieved.
///
/// trec_eval divides by k even when fewer than k documents were retrieved; the `weknora`
/// profile divides by the number retrieved.
pub fn precision(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let hits = query.num_relevant_retrieved(cx.level(p.rel), p.cutoff) as f64;
    match p.cutoff {
        Some(k) if cx.conventions.precision_denominator == PrecisionDenominator::Cutoff => {
            hits / k as f64
        }
        cutoff => divide(hits, top(query, cutoff).len() as f64),
    }
}

/// R@k = Σ_{i<=k} rel_i / R (0 when R = 0); without k, over the whole ranking.
pub fn recall(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let hits = query.num_relevant_retrieved(level, p.cutoff) as f64;
    divide(hits, query.num_relevant(level) as f64)
}

/// Success@k = 1 if any of the first k documents is relevant, else 0.
pub fn success(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let any = top(query, p.cutoff).iter().any(|&g| g >= level);
    f64::from(u8::from(any))
}

/// RR@k = 1 / rank of the first relevant document (0 if none in the first k).
pub fn reciprocal_rank(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    match top(query, p.cutoff).iter().position(|&g| g >= level) {
        Some(rank) => 1.0 / (rank as f64 + 1.0),
        None => 0.0,
    }
}

/// AP@k = Σ_{i<=k, rel_i} P@i / R (trec_eval's map and map_cut).
///
/// The `weknora` profile divides by the number of relevant documents retrieved instead of R.
pub fn average_precision(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let mut hits = 0usize;
    let mut total = 0.0;
    for (rank, &grade) in top(query, p.cutoff).iter().enumerate() {
        if grade >= level {
            hits += 1;
            total += hits as f64 / (rank as f64 + 1.0);
        }
    }
    let denominator = match cx.conventions.ap_denominator {
        ApDenominator::Relevant => query.num_relevant(level),
        ApDenominator::RelevantRetrieved => hits,
    };
    divide(total, denominator as f64)
}

/// Rprec = Σ_{i<=R} rel_i / R: precision at rank R, the number of relevant documents.
pub fn r_precision(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let num_rel = query.num_relevant(level);
    let hits = query.num_relevant_retrieved(level, Some(num_rel));
    divide(hits as f64, num_rel as f64)
}

/// Bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)).
///
/// `n_r` is the number of judged non-relevant documents ranked above r and N the number of
/// judged non-relevant documents; a term is 1 when `n_r` is 0. Unjudged documents are skipped.
/// Buckley & Voorhees, "Retrieval Evaluation with Incomplete Information", SIGIR 2004.
pub fn bpref(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    let level = cx.level(p.rel);
    let num_rel = query.num_relevant(level);
    let cap = query.num_judged_nonrelevant(level).min(num_rel) as f64;
    let mut nonrel_above = 0usize;
    let mut total = 0.0;
    for &grade in query.grades {
        if grade < 0 {
            continue; // not in the pool, or pooled but unjudged: no preference either way
        }
        if grade < level {
            nonrel_above += 1;
        } else {
            total += if nonrel_above > 0 {
                1.0 - divide(nonrel_above.min(num_rel) as f64, cap)
            } else {
                1.0
            };
        }
    }
    divide(total, num_rel as f64)
}

/// IPrec@r = max precision at any rank where recall >= r (trec_eval's iprec_at_recall).
///
/// As trec_eval 10 does, the recall level becomes a number of relevant documents
/// `round(r * R)` (halves away from zero; `int(r * R + 0.9)` under `trec9`); levels beyond
/// the relevant documents retrieved score 0.
pub fn interpolated_precision(query: &QueryView<'_>, p: &RecallLevel, cx: &Context<'_>) -> f64 {
    interpolated_precision_at(query, cx.level(p.rel), p.level, cx)
}

/// Interpolated precision at recall level `recall_level`, documents of grade `level` or more
/// relevant (see [`interpolated_precision`]).
pub fn interpolated_precision_at(
    query: &QueryView<'_>,
    level: i64,
    recall_level: f64,
    cx: &Context<'_>,
) -> f64 {
    let exact = recall_level * query.num_relevant(level) as f64;
    let needed = match cx.conventions.recall_level_rounding {
        RecallLevelRounding::Nearest => (exact + 0.5).floor(),
        RecallLevelRounding::Add09Truncate => (exact + 0.9).trunc(),
    } as usize;
    let num_retrieved = query.grades.len();
    let num_relevant_retrieved = query.num_relevant_retrieved(level, None);
    if needed > num_relevant_retrieved {
        return 0.0; // a recall level the ranking never reaches
    }
    if num_retrieved == 0 {
        // Nothing retrieved (so `needed` is 0): trec_eval divides 0 by 0 here.
        return cx.conventions.zero_division.divide(0.0, 0.0);
    }
    // As trec_eval walks the ranking: from the last document up, the precision at each rank
    // interpolated (the highest at that rank or below), read at the relevant document where
    // the relevant ones counted from the top reach `needed`.
    let mut relevant_so_far = num_relevant_retrieved;
    let mut interpolated = relevant_so_far as f64 / num_retrieved as f64;
    for (rank, &grade) in query.grades.iter().enumerate().rev() {
        if relevant_so_far == 0 {
            break;
        }
        let precision = relevant_so_far as f64 / (rank + 1) as f64;
        if interpolated < precision {
            interpolated = precision;
        }
        if grade >= level {
            if relevant_so_far == needed {
                return interpolated;
            }
            relevant_so_far -= 1;
        }
    }
    interpolated
}

fn gain_of(grade: i64, gain: Gain) -> f64 {
    let positive = grade.max(0) as f64;
    match gain {
        Gain::Linear => positive,
        Gain::Exp => positive.exp2() - 1.0,
    }
}

/// The run's scores of a query's ranking when tied scores share their positions
/// (`tied_scores="averaged"`): what every DCG kernel reads to average its gains over each
/// group of equal scores ([`tie_averaged_dcg`]); `None` under `"ordered"`.
pub fn tied_scores<'a>(query: &QueryView<'a>, cx: &Context<'_>) -> Option<&'a [f64]> {
    query
        .scores
        .filter(|_| cx.conventions.tied_scores == TiedScores::Averaged)
}

/// DCG@k with tied scores sharing their positions: each group of equal scores (adjacent in
/// rank order) adds its mean gain times the sum of the discounts of its positions within k
/// (McSherry & Najork, Computing information retrieval performance measures efficiently in
/// the presence of tied scores, ECIR 2008; scikit-learn's `_tie_averaged_dcg`): the mean of
/// DCG@k over every order of the tied documents.
pub fn tie_averaged_dcg(
    grades: &[i64],
    scores: &[f64],
    cutoff: Option<usize>,
    gain: impl Fn(i64) -> f64,
) -> f64 {
    let k = cutoff.unwrap_or(usize::MAX);
    let mut total = 0.0;
    let mut start = 0;
    while start < grades.len() && start < k {
        let end = start
            + scores[start..]
                .iter()
                .take_while(|&&s| s == scores[start])
                .count();
        let group_gain: f64 = grades[start..end].iter().map(|&g| gain(g)).sum();
        if group_gain != 0.0 {
            let discounts: f64 = (start..end.min(k))
                .map(|i| 1.0 / (i as f64 + 2.0).log2())
                .sum();
            total += group_gain / (end - start) as f64 * discounts;
        }
        start = end;
    }
    total
}

/// nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i<=k} gain(g_i) / log2(i + 1); 0 when IDCG = 0.
///
/// Under `tied_scores="averaged"` documents of equal score share their positions
/// ([`tie_averaged_dcg`]); under `unretrieved_judgements="ignore"` the ideal ranking holds
/// the retrieved documents only.
///
/// IDCG ranks the query's judged documents by grade (Järvelin & Kekäläinen, ACM TOIS 20(4),
/// 2002). Under the `weknora` profile the ideal ranking also has at most as many positions
/// as documents were retrieved. With `gains=`, grades take the gains given (trec_eval's
/// `-m ndcg.1=3,2=9`) and the ideal ranking orders judged documents by gain.
pub fn ndcg(query: &QueryView<'_>, p: &Ndcg, cx: &Context<'_>) -> f64 {
    if !p.gains.is_empty() {
        return super::trec_extra::ndcg_with_gains(query, p.cutoff, &p.gains, cx);
    }
    let gain = p.gain(cx);
    let discounted = |(rank, &grade): (usize, &i64)| {
        (grade >= 1).then(|| gain_of(grade, gain) / (rank as f64 + 2.0).log2())
    };
    // Folded from +0.0 (an empty `sum()` of floats is -0.0).
    let total = |grades: &[i64]| {
        grades
            .iter()
            .enumerate()
            .filter_map(discounted)
            .fold(0.0, |sum, g| sum + g)
    };
    let dcg = match tied_scores(query, cx) {
        Some(scores) => tie_averaged_dcg(query.grades, scores, p.cutoff, |g| gain_of(g, gain)),
        None => total(top(query, p.cutoff)),
    };
    let mut limit = p.cutoff.unwrap_or(usize::MAX);
    if cx.conventions.ideal_ranking == IdealRanking::JudgedCappedByRetrieved {
        limit = limit.min(query.num_retrieved());
    }
    let ideal = &query.judged[..limit.min(query.judged.len())];
    divide(dcg, total(ideal))
}

/// Number of documents retrieved; with `rel=k`, those with a grade of at least k (ir_measures'
/// `NumRet(rel=1)` is its NumRelRet).
pub fn num_ret(query: &QueryView<'_>, p: &Binary, _: &Context<'_>) -> f64 {
    match p.rel {
        Some(level) => query.num_relevant_retrieved(level, None) as f64,
        None => query.num_retrieved() as f64,
    }
}

/// Number of judged relevant documents (grade >= the relevance level).
pub fn num_rel(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    query.num_relevant(cx.level(p.rel)) as f64
}

/// Number of relevant documents retrieved.
pub fn num_rel_ret(query: &QueryView<'_>, p: &Binary, cx: &Context<'_>) -> f64 {
    query.num_relevant_retrieved(cx.level(p.rel), None) as f64
}

/// 1 for every query; its aggregate is the number of queries evaluated.
pub fn num_q(_query: &QueryView<'_>, _: &(), _: &Context<'_>) -> f64 {
    1.0
}
