//! Measure kernels: one float per query.
//!
//! Each kernel sees one query ([`QueryView`]) and the measure's arguments ([`KernelArgs`]).
//! Notation in the formulas: `rel_i` is 1 when the document at rank i has grade >= the
//! relevance level, `g_i` its grade, `R` the number of relevant judged documents of the query,
//! `k` the cutoff. Sums run in rank order, as trec_eval adds them.

use crate::batch::QueryView;
use crate::profile::{
    ApDenominator, Conventions, Gain, IdealRanking, PrecisionDenominator, RecallLevelRounding,
};

/// What a kernel needs besides the query.
#[derive(Debug, Clone)]
pub struct KernelArgs<'a> {
    /// The cutoff `k` (counting measures), if any.
    pub cutoff: Option<usize>,
    /// The recall level of IPrec (the factor of RprecMult), if any.
    pub recall_level: Option<f64>,
    /// Gains by grade (`gains=`), overriding the grade as gain.
    pub gains: Vec<(i64, f64)>,
    /// The recall levels of IPrecAvg.
    pub levels: Vec<f64>,
    /// The persistence of RBP (`p=`).
    pub p: f64,
    /// The weight of precision in F (`beta=`).
    pub beta: f64,
    /// The coefficients a, b, c, d of Utility.
    pub coefficients: [f64; 4],
    /// The number of documents in the collection (Utility's `n=`).
    pub collection_size: f64,
    /// The gain of nDCG (the measure's `gain=` or else the profile's).
    pub gain: Gain,
    /// The profile's conventions.
    pub conventions: &'a Conventions,
    /// The lowest grade that counts as relevant.
    pub level: i64,
    // The C/W/L measures (measures/cwl.rs).
    /// The grades that gain 0 and 1 (`min_rel=`, `max_rel=`); grades between scale linearly.
    pub grade_range: (i64, i64),
    /// The total gain the user wants (`T=`).
    pub target_gain: f64,
    // Diversity measures (measures/diversity.rs).
    /// Redundancy intolerance of alpha-nDCG and NRBP (`alpha=`, 0.5 by default).
    pub alpha: f64,
    /// Patience of NRBP (`beta=`, 0.5 by default).
    pub patience: f64,
    // ir_measures' parameters.
    /// Unjudged documents leave the ranking before the kernel sees it (`judged_only=True`).
    pub judged_only: bool,
    /// SetP over the best precision possible (`relative=True`).
    pub relative: bool,
    /// Compat divided by the ideal ranking's own (`normalize=True`).
    pub normalize: bool,
    /// The measure's own `rel=`: RBP is binary at this level, graded without it.
    pub binary_level: Option<i64>,
}

/// A kernel: one value for one query.
pub type Kernel = fn(&QueryView<'_>, &KernelArgs<'_>) -> f64;

/// trec_eval's floor for geometric means (MIN_GEO_MEAN).
pub const GEOMETRIC_MEAN_FLOOR: f64 = 1e-5;

fn divide(numerator: f64, denominator: f64) -> f64 {
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
pub fn precision(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let hits = query.num_relevant_retrieved(args.level, args.cutoff) as f64;
    match args.cutoff {
        Some(k) if args.conventions.precision_denominator == PrecisionDenominator::Cutoff => {
            hits / k as f64
        }
        cutoff => divide(hits, top(query, cutoff).len() as f64),
    }
}

/// R@k = Σ_{i<=k} rel_i / R (0 when R = 0); without k, over the whole ranking.
pub fn recall(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let hits = query.num_relevant_retrieved(args.level, args.cutoff) as f64;
    divide(hits, query.num_relevant(args.level) as f64)
}

/// Success@k = 1 if any of the first k documents is relevant, else 0.
pub fn success(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let any = top(query, args.cutoff).iter().any(|&g| g >= args.level);
    f64::from(u8::from(any))
}

/// RR@k = 1 / rank of the first relevant document (0 if none in the first k).
pub fn reciprocal_rank(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    match top(query, args.cutoff)
        .iter()
        .position(|&g| g >= args.level)
    {
        Some(rank) => 1.0 / (rank as f64 + 1.0),
        None => 0.0,
    }
}

/// AP@k = Σ_{i<=k, rel_i} P@i / R (trec_eval's map and map_cut).
///
/// The `weknora` profile divides by the number of relevant documents retrieved instead of R.
pub fn average_precision(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let mut hits = 0usize;
    let mut total = 0.0;
    for (rank, &grade) in top(query, args.cutoff).iter().enumerate() {
        if grade >= args.level {
            hits += 1;
            total += hits as f64 / (rank as f64 + 1.0);
        }
    }
    let denominator = match args.conventions.ap_denominator {
        ApDenominator::Relevant => query.num_relevant(args.level),
        ApDenominator::RelevantRetrieved => hits,
    };
    divide(total, denominator as f64)
}

/// Rprec = Σ_{i<=R} rel_i / R: precision at rank R, the number of relevant documents.
pub fn r_precision(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let num_rel = query.num_relevant(args.level);
    let hits = query.num_relevant_retrieved(args.level, Some(num_rel));
    divide(hits as f64, num_rel as f64)
}

/// Bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)).
///
/// `n_r` is the number of judged non-relevant documents ranked above r and N the number of
/// judged non-relevant documents; a term is 1 when `n_r` is 0. Unjudged documents are skipped.
/// Buckley & Voorhees, "Retrieval Evaluation with Incomplete Information", SIGIR 2004.
pub fn bpref(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    let num_rel = query.num_relevant(args.level);
    let cap = query.num_judged_nonrelevant(args.level).min(num_rel) as f64;
    let mut nonrel_above = 0usize;
    let mut total = 0.0;
    for &grade in query.grades {
        if grade >= args.level {
            total += if nonrel_above > 0 {
                1.0 - divide(nonrel_above.min(num_rel) as f64, cap)
            } else {
                1.0
            };
        } else if grade >= 0 {
            nonrel_above += 1;
        }
    }
    divide(total, num_rel as f64)
}

/// IPrec@r = max precision at any rank where recall >= r (trec_eval's iprec_at_recall).
///
/// As trec_eval 10 does, the recall level becomes a number of relevant documents
/// `round(r * R)` (halves away from zero; `int(r * R + 0.9)` under `trec9`); levels beyond
/// the relevant documents retrieved score 0.
pub fn interpolated_precision(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    interpolated_precision_at(query, args, args.recall_level.unwrap_or(0.0))
}

/// Interpolated precision at recall level `recall_level` (see [`interpolated_precision`]).
pub fn interpolated_precision_at(
    query: &QueryView<'_>,
    args: &KernelArgs<'_>,
    recall_level: f64,
) -> f64 {
    let exact = recall_level * query.num_relevant(args.level) as f64;
    let needed = match args.conventions.recall_level_rounding {
        RecallLevelRounding::Nearest => (exact + 0.5).floor(),
        RecallLevelRounding::Add09Truncate => (exact + 0.9).trunc(),
    } as usize;
    let precisions: Vec<f64> = query
        .grades
        .iter()
        .enumerate()
        .filter(|&(_, &g)| g >= args.level)
        .enumerate()
        .map(|(seen, (rank, _))| (seen as f64 + 1.0) / (rank as f64 + 1.0))
        .collect();
    if precisions.is_empty() || needed > precisions.len() {
        return 0.0;
    }
    precisions[needed.max(1) - 1..]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
}

fn gain_of(grade: i64, gain: Gain) -> f64 {
    let positive = grade.max(0) as f64;
    match gain {
        Gain::Linear => positive,
        Gain::Exp => positive.exp2() - 1.0,
    }
}

/// nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i<=k} gain(g_i) / log2(i + 1); 0 when IDCG = 0.
///
/// IDCG ranks the query's judged documents by grade (Järvelin & Kekäläinen, ACM TOIS 20(4),
/// 2002). Under the `weknora` profile the ideal ranking also has at most as many positions
/// as documents were retrieved. With `gains=`, grades take the gains given (trec_eval's
/// `-m ndcg.1=3,2=9`) and the ideal ranking orders judged documents by gain.
pub fn ndcg(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    if !args.gains.is_empty() {
        return super::trec_extra::ndcg_with_gains(query, args);
    }
    let discounted = |(rank, &grade): (usize, &i64)| {
        (grade >= 1).then(|| gain_of(grade, args.gain) / (rank as f64 + 2.0).log2())
    };
    // Folded from +0.0 (an empty `sum()` of floats is -0.0).
    let total = |grades: &[i64]| {
        grades
            .iter()
            .enumerate()
            .filter_map(discounted)
            .fold(0.0, |sum, g| sum + g)
    };
    let dcg = total(top(query, args.cutoff));
    let mut limit = args.cutoff.unwrap_or(usize::MAX);
    if args.conventions.ideal_ranking == IdealRanking::JudgedCappedByRetrieved {
        limit = limit.min(query.num_retrieved());
    }
    let ideal = &query.judged[..limit.min(query.judged.len())];
    divide(dcg, total(ideal))
}

/// Number of documents retrieved.
pub fn num_ret(query: &QueryView<'_>, _args: &KernelArgs<'_>) -> f64 {
    query.num_retrieved() as f64
}

/// Number of judged relevant documents (grade >= the relevance level).
pub fn num_rel(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    query.num_relevant(args.level) as f64
}

/// Number of relevant documents retrieved.
pub fn num_rel_ret(query: &QueryView<'_>, args: &KernelArgs<'_>) -> f64 {
    query.num_relevant_retrieved(args.level, None) as f64
}

/// 1 for every query; its aggregate is the number of queries evaluated.
pub fn num_q(_query: &QueryView<'_>, _args: &KernelArgs<'_>) -> f64 {
    1.0
}
