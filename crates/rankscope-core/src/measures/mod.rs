//! The registry of measures: each family's kernel, parameters, aggregate, aliases, formula and
//! citation; and `Measure` values with their names (`nDCG@10`, `P(rel=2)@5`,
//! `nDCG(gain=exp)@10`, trec_eval's `ndcg_cut.10`).
//!
//! Adding a measure is a kernel in [`kernels`] plus one [`Family`] entry in [`FAMILIES`].

pub mod cwl;
pub mod diversity;
pub mod ir_measures;
pub mod kernels;
mod names;
pub mod prefs;
pub mod ranx;
pub mod trec_extra;

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::error::{Error, Result};
use crate::profile::{Conventions, Gain};
use kernels::{Kernel, GEOMETRIC_MEAN_FLOOR};

pub use names::{parse_measure, parse_measures, MAX_CUTOFF};

/// How per-query values combine into one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregate {
    /// Arithmetic mean, added one value at a time in query order (as trec_eval).
    Mean,
    /// trec_eval's gm_*: `exp(mean(ln(max(v, 1e-5))))`.
    GeometricMean,
    /// The total (trec_eval's num_ret, num_rel, num_rel_ret).
    Sum,
    /// The number of queries (num_q).
    Count,
}

impl Aggregate {
    /// The name Python uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregate::Mean => "mean",
            Aggregate::GeometricMean => "geometric_mean",
            Aggregate::Sum => "sum",
            Aggregate::Count => "count",
        }
    }

    /// Combine per-query values (in query order); NaN when there are none.
    pub fn apply(self, values: &[f64]) -> f64 {
        if values.is_empty() {
            return f64::NAN;
        }
        let n = values.len() as f64;
        match self {
            Aggregate::Mean => values.iter().fold(0.0, |sum, v| sum + v) / n,
            Aggregate::GeometricMean => {
                let logs = values
                    .iter()
                    .fold(0.0, |sum, v| sum + v.max(GEOMETRIC_MEAN_FLOOR).ln());
                (logs / n).exp()
            }
            Aggregate::Sum => values.iter().fold(0.0, |sum, v| sum + v),
            Aggregate::Count => n,
        }
    }
}

/// What `@...` means for a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CutoffKind {
    /// Refused.
    None,
    /// `@k` optional.
    Optional,
    /// `@k` required.
    Required,
    /// `@r`, a recall level in [0, 1], required.
    RecallLevel,
    /// `@f`, a positive factor (of the number of relevant documents), required.
    Factor,
}

impl CutoffKind {
    /// The name Python uses.
    pub fn as_str(self) -> &'static str {
        match self {
            CutoffKind::None => "none",
            CutoffKind::Optional => "optional",
            CutoffKind::Required => "required",
            CutoffKind::RecallLevel => "recall_level",
            CutoffKind::Factor => "factor",
        }
    }
}

/// The values a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// An integer from 1 to [`MAX_CUTOFF`].
    Count,
    /// One of the words listed.
    Choice(&'static [&'static str]),
    /// A finite number.
    Number,
    /// Finite numbers separated by `;` (`levels=0.25;0.5`).
    Numbers,
    /// Gains by grade, `grade:gain` separated by `;` (`gains=1:3;2:9`).
    Gains,
    // The C/W/L measures' grade range (`min_rel=0`).
    /// An integer of either sign, at most [`MAX_CUTOFF`] in size.
    Integer,
    /// Values of the kind given, with a default: a value equal to the default is left out of
    /// the measure's name (as ir_measures prints `alpha_nDCG@10` for `alpha=0.5`).
    Defaulted(&'static ParamKind, &'static str),
    // ir_measures' parameter kinds: written as Python writes the values, the default left
    // out of names as ir_measures leaves it out (`RBP(p=0.8)` is `RBP`).
    /// `True` or `False`; the value given is the default.
    Flag(bool),
    /// One of the words listed, written in quotes (`dcg='exp-log2'`); the first is the default.
    Quoted(&'static [&'static str]),
    /// A number strictly between 0 and 1, with its default as Python prints it.
    Persistence(&'static str),
    /// A finite number, with its default as Python prints it.
    NumberOr(&'static str),
}

impl ParamKind {
    /// How `rankscope measures` shows the values.
    pub fn describe(self) -> String {
        match self {
            ParamKind::Count => "integer".into(),
            ParamKind::Choice(words) => words.join("|"),
            ParamKind::Number => "number".into(),
            ParamKind::Numbers => "number;number;...".into(),
            ParamKind::Gains => "grade:gain;...".into(),
            ParamKind::Integer => "integer".into(),
            ParamKind::Defaulted(kind, default) => {
                format!("{} [{default}]", kind.describe())
            }
            // The default in brackets.
            ParamKind::Flag(default) => format!("True|False [{}]", names::py_bool(default)),
            ParamKind::Quoted(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
                format!("{} [{}]", quoted.join("|"), quoted[0])
            }
            ParamKind::Persistence(default) => format!("number in 0..1 [{default}]"),
            ParamKind::NumberOr(default) => format!("number [{default}]"),
        }
    }

    /// The default value in canonical form, for the kinds that have one.
    pub fn default_value(self) -> Option<String> {
        match self {
            ParamKind::Flag(default) => Some(names::py_bool(default).to_string()),
            ParamKind::Quoted(words) => Some(format!("'{}'", words[0])),
            ParamKind::Persistence(default)
            | ParamKind::NumberOr(default)
            | ParamKind::Defaulted(_, default) => Some(default.to_string()),
            _ => None,
        }
    }
}

/// One parameter a family accepts: its name and the values it takes.
pub type Param = (&'static str, ParamKind);

const REL: &[Param] = &[("rel", ParamKind::Count)];
const JUDGED_ONLY: Param = ("judged_only", ParamKind::Flag(false));
const GAINS: (&str, ParamKind) = ("gains", ParamKind::Gains);

/// A family of measures sharing one kernel: `P` covers `P@5`, `P(rel=2)@10`, ...
#[derive(Debug)]
pub struct Family {
    /// Canonical spelling.
    pub name: &'static str,
    /// One line: what the measure is.
    pub summary: &'static str,
    /// The formula (trec profile).
    pub formula: &'static str,
    /// Where the measure is defined.
    pub citation: &'static str,
    /// Whether `@k` is refused, optional, required, or a recall level.
    pub cutoff: CutoffKind,
    /// Allowed parameters.
    pub params: &'static [Param],
    /// How per-query values combine.
    pub aggregate: Aggregate,
    /// Whether values lie in [0, 1].
    pub bounded: bool,
    /// Other names (case-insensitive), including trec_eval's.
    pub aliases: &'static [&'static str],
    /// Whether the `weknora` profile defines the measure.
    pub weknora: bool,
    /// The per-query computation.
    pub kernel: Kernel,
}

const TREC_EVAL: &str = "trec_eval 10 (NIST), https://github.com/usnistgov/trec_eval";
const PREFS_CITATION: &str = "Buckley, trec_eval's preference measures (form_prefs_counts.c, \
                              m_prefs_*.c), trec_eval 10 (NIST), https://github.com/usnistgov/trec_eval";

// The C/W/L measures' parameters and citations.
const MAX_REL: Param = ("max_rel", ParamKind::Integer);
const MIN_REL: Param = ("min_rel", ParamKind::Integer);
const SDCG_CITATION: &str =
    "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
                        ACM TOIS 20(4), 2002, scaled as in cwl_eval (Azzopardi, Thomas & Moffat, \
                        cwl_eval: An Evaluation Tool for Information Retrieval, SIGIR 2019)";
const NERR: &str = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L: Exploring the \
                    Relationship Between Expected Reciprocal Rank and Other Metrics, ICTIR \
                    2021; as computed by cwl_eval";
const IR_MEASURES: &str = "MacAvaney, Macdonald & Ounis, Streamlining evaluation with \
                           ir-measures, ECIR 2022";
const PERSISTENCE_08: Param = ("p", ParamKind::Persistence("0.8"));

/// Every family, in the order `rankscope measures` lists them.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "nDCG",
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
            ("dcg", ParamKind::Quoted(&["log2", "exp-log2"])),
            ("gain", ParamKind::Choice(&["linear", "exp"])),
            GAINS,
            JUDGED_ONLY,
        ],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["ndcg", "ndcg_cut"],
        weknora: true,
        kernel: kernels::ndcg,
    },
    Family {
        name: "AP",
        summary: "average precision: mean of P@rank over relevant documents, / number relevant",
        formula: "sum_{i<=k, rel_i} P@i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["map", "map_cut", "mean_average_precision"],
        weknora: true,
        kernel: kernels::average_precision,
    },
    Family {
        name: "RR",
        summary: "reciprocal rank of the first relevant document",
        formula: "1 / rank of the first relevant document within k (0 if none)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["recip_rank", "mrr"],
        weknora: true,
        kernel: kernels::reciprocal_rank,
    },
    Family {
        name: "P",
        summary: "precision: relevant in the top k / k (no k: relevant retrieved / retrieved)",
        formula: "(1/k) sum_{i<=k} rel_i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["precision", "set_p"],
        weknora: true,
        kernel: kernels::precision,
    },
    Family {
        name: "R",
        summary: "recall: relevant in the top k / number relevant",
        formula: "sum_{i<=k} rel_i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["recall", "set_recall"],
        weknora: true,
        kernel: kernels::recall,
    },
    Family {
        name: "Rprec",
        summary: "precision at rank R, R = number relevant",
        formula: "sum_{i<=R} rel_i / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["r_prec", "r-prec", "r-precision"],
        weknora: false,
        kernel: kernels::r_precision,
    },
    Family {
        name: "Success",
        summary: "1 if any relevant document is in the top k, else 0",
        formula: "1 if sum_{i<=k} rel_i > 0 else 0",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Required,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["success", "hit_rate"],
        weknora: false,
        kernel: kernels::success,
    },
    Family {
        name: "Bpref",
        summary: "binary preference: relevant documents ranked above judged non-relevant ones",
        formula: "(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(N, R))",
        citation: "Buckley & Voorhees, Retrieval Evaluation with Incomplete Information, \
                   SIGIR 2004",
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: kernels::bpref,
    },
    Family {
        name: "GM_AP",
        summary: "average precision, aggregated by geometric mean (floor 1e-5)",
        formula: "exp(mean(ln(max(AP, 1e-5))))",
        citation: "Robertson, On GMAP, CIKM 2006; trec_eval's gm_map",
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::GeometricMean,
        bounded: true,
        aliases: &["gm_map", "gmap"],
        weknora: false,
        kernel: kernels::average_precision,
    },
    Family {
        name: "IPrec",
        summary: "interpolated precision at a recall level in [0, 1]",
        formula: "max_{i: recall@i >= r} P@i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::RecallLevel,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["iprec_at_recall"],
        weknora: false,
        kernel: kernels::interpolated_precision,
    },
    Family {
        name: "NumRet",
        summary: "number of documents retrieved (summed over queries)",
        formula: "|ranking|",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["num_ret"],
        weknora: false,
        kernel: kernels::num_ret,
    },
    Family {
        name: "NumRel",
        summary: "number of relevant judged documents (summed over queries)",
        formula: "R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["num_rel"],
        weknora: false,
        kernel: kernels::num_rel,
    },
    Family {
        name: "NumRelRet",
        summary: "number of relevant documents retrieved (summed over queries)",
        formula: "sum_i rel_i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["num_rel_ret"],
        weknora: false,
        kernel: kernels::num_rel_ret,
    },
    Family {
        name: "NumQ",
        summary: "number of queries evaluated",
        formula: "1 per query",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Count,
        bounded: false,
        aliases: &["num_q"],
        weknora: false,
        kernel: kernels::num_q,
    },
    Family {
        name: "infAP",
        summary: "inferred AP: average precision estimated from a sampled pool (negative grades: pooled, unjudged)",
        formula: "(1/R) sum_{rel at k} (k = 1 ? 1 : 1/k + ((k-1)/k) (d/(k-1)) (r+e)/(r+n+2e)), e = 1e-5",
        citation: "Yilmaz & Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006",
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["infap"],
        weknora: false,
        kernel: trec_extra::infap,
    },
    Family {
        name: "GM_Bpref",
        summary: "bpref, aggregated by geometric mean (floor 1e-5)",
        formula: "exp(mean(ln(max(bpref, 1e-5))))",
        citation: "Buckley & Voorhees, SIGIR 2004; trec_eval's gm_bpref",
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::GeometricMean,
        bounded: true,
        aliases: &["gm_bpref"],
        weknora: false,
        kernel: kernels::bpref,
    },
    Family {
        name: "RprecMult",
        summary: "precision at rank f times R (trec_eval's Rprec_mult_f)",
        formula: "sum_{i<=c} rel_i / c, c = floor(f R + 0.9)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Factor,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["rprec_mult"],
        weknora: false,
        kernel: trec_extra::rprec_mult,
    },
    Family {
        name: "Utility",
        summary: "linear utility of the retrieved set (a=1, b=-1, c=0, d=0 by default; n: collection size)",
        formula: "a relret + b (ret - relret) + c (R - relret) + d (n + relret - ret - R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[("a", ParamKind::Number), ("b", ParamKind::Number), ("c", ParamKind::Number), ("d", ParamKind::Number), ("n", ParamKind::Number), ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &["utility"],
        weknora: false,
        kernel: trec_extra::utility,
    },
    Family {
        name: "IPrecAvg",
        summary: "interpolated precision averaged over recall levels (default the 11 points 0.0, 0.1, ..., 1.0)",
        formula: "mean_{r in levels} IPrec@r",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[("levels", ParamKind::Numbers), ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["11pt_avg"],
        weknora: false,
        kernel: trec_extra::eleven_point_average,
    },
    Family {
        name: "BinG",
        summary: "binary G: relevant documents discounted by the non-relevant ones above them",
        formula: "(1/R) sum_{rel at rank i} 1 / log2(i + 2 - relevant up to i)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["bing"],
        weknora: false,
        kernel: trec_extra::bin_g,
    },
    Family {
        name: "G",
        summary: "G: gains discounted by the ideal cost minus the gain so far (trec_eval's G)",
        formula: "sum_i gain_i / log2(2 + sum_{j<=i} max(ideal_j, 1) - sum_{j<=i} gain_j) / sum ideal gains",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["g"],
        weknora: false,
        kernel: trec_extra::g,
    },
    Family {
        name: "nDCGRel",
        summary: "nDCG averaged over the ranks of the relevant documents (unretrieved ones: nDCG of the ranking)",
        formula: "(1/R) (sum_{rel retrieved at i} nDCG@i + (R - relret) nDCG)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["ndcg_rel"],
        weknora: false,
        kernel: trec_extra::ndcg_rel,
    },
    Family {
        name: "RnDCG",
        summary: "nDCG averaged over the ranks where the ideal gain drops (ends of the ideal's grade levels)",
        formula: "mean_{i: ideal_i != ideal_{i+1}} nDCG@i",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[GAINS, ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["rndcg"],
        weknora: false,
        kernel: trec_extra::rndcg,
    },
    Family {
        name: "RelP",
        summary: "relative precision: precision over the best precision possible at k (no k: over the retrieved set)",
        formula: "sum_{i<=k} rel_i / min(k, R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["relative_p", "set_relative_p"],
        weknora: false,
        kernel: trec_extra::relative_precision,
    },
    Family {
        name: "SetAP",
        summary: "set AP: set precision times set recall",
        formula: "relret^2 / (ret R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[("rel", ParamKind::Count), JUDGED_ONLY],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["set_map"],
        weknora: false,
        kernel: trec_extra::set_map,
    },
    Family {
        name: "SetF",
        summary: "F measure of the retrieved set (beta=1 by default; trec_eval's beta weighs P unsquared)",
        formula: "(beta + 1) P R / (beta P + R), P = relret / ret, R = relret / R",
        citation: "van Rijsbergen, Information Retrieval, 1979; trec_eval's set_F",
        cutoff: CutoffKind::None,
        params: &[("rel", ParamKind::Count), ("beta", ParamKind::NumberOr("1.0")), JUDGED_ONLY],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["set_f", "F"],
        weknora: false,
        kernel: trec_extra::set_f,
    },
    Family {
        name: "NumNonRelJudgedRet",
        summary: "number of judged non-relevant documents retrieved (summed over queries)",
        formula: "sum_i [0 <= g_i < level]",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["num_nonrel_judged_ret"],
        weknora: false,
        kernel: trec_extra::num_nonrel_judged_ret,
    },
    Family {
        name: "TrecRBP",
        summary: "rank-biased precision as trec_eval's rbp (rankscope trec-eval -m rbp): p = 0.9 \
                  by default, gains scaled to [0, 1]; RBP is ir_measures' measure",
        formula: "(1 - p) sum_i gain_i p^(i-1)",
        citation: "Moffat & Zobel, Rank-biased precision for measurement of retrieval effectiveness, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::None,
        params: &[GAINS, ("p", ParamKind::Number)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: trec_extra::rbp,
    },
    Family {
        name: "TrecRBPResid",
        summary: "the residual of trec_eval's rbp (trec-eval -m rbp_resid): the most unjudged \
                  and unretrieved documents could add",
        formula: "p^n + (1 - p) sum_{unjudged at i} p^(i-1) (0 if none is unjudged)",
        citation: "Moffat & Zobel, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::None,
        params: &[("p", ParamKind::Number)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: trec_extra::rbp_resid,
    },
    Family {
        name: "Unjudged",
        summary: "fraction of unjudged documents in the top k (k even when fewer were retrieved)",
        formula: "(1/k) sum_{i<=k} [g_i unjudged]",
        citation: TREC_EVAL,
        cutoff: CutoffKind::Required,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["unj"],
        weknora: false,
        kernel: trec_extra::unjudged,
    },
    Family {
        name: "YAAP",
        summary: "yet another average precision: a smoothed, log-odds AP",
        formula: "ln((1 + s) / (1 + R - s)), s = sum_{rel retrieved at i} P@i",
        citation: "Robertson, On Smoothing Average Precision, ECIR 2012",
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &["yaap"],
        weknora: false,
        kernel: trec_extra::yaap,
    },
    // The C/W/L measures of cwl_eval, under ir_measures' names (measures/cwl.rs).
    Family {
        name: "SDCG",
        summary: "scaled DCG: DCG@k of gains in [0, 1] over the DCG of k documents of gain 1 (cwl_eval's NDCG-k); needs max_rel",
        formula: "sum_{i<=k} gain_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1), gain = (clamp(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel), unjudged 0, ranks to 1000",
        citation: SDCG_CITATION,
        cutoff: CutoffKind::Required,
        params: &[("dcg", ParamKind::Choice(&["log2"])), MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::sdcg,
    },
    Family {
        name: "NERR8",
        summary: "not (but nearly) ERR, eq. 8: the user stops at a document with its scaled gain, or after rank k; needs max_rel",
        formula: "C/W/L with C(i) = 1 - gain_i for i < k, else 0; sum_i W(i) gain_i, W(i) = prod_{j<i} C(j) / sum_n prod_{j<n} C(j)",
        citation: NERR,
        cutoff: CutoffKind::Required,
        params: &[MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::nerr8,
    },
    Family {
        name: "NERR9",
        summary: "not (but nearly) ERR, eq. 9: NERR8 with a rank discount; needs max_rel",
        formula: "C/W/L with C(i) = i / (i + 1) (1 - gain_i) for i < k, else 0",
        citation: NERR,
        cutoff: CutoffKind::Required,
        params: &[MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::nerr9,
    },
    Family {
        name: "NERR10",
        summary: "not (but nearly) ERR, eq. 10: RBP's persistence p (0.9 by default), stopped by gain; needs max_rel",
        formula: "C/W/L with C(i) = p (1 - gain_i), ranks to 1000",
        citation: NERR,
        cutoff: CutoffKind::None,
        params: &[MAX_REL, MIN_REL, ("p", ParamKind::Number)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::nerr10,
    },
    Family {
        name: "NERR11",
        summary: "not (but nearly) ERR, eq. 11: INSQ's patience for a goal T (1 by default), stopped by gain; needs max_rel",
        formula: "C/W/L with C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - gain_i), ranks to 1000",
        citation: NERR,
        cutoff: CutoffKind::None,
        params: &[("T", ParamKind::Number), MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::nerr11,
    },
    Family {
        name: "INST",
        summary: "INST: a user who wants gain T (1 by default) and grows less patient as gain comes; needs max_rel",
        formula: "C/W/L with C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} gain_j, ranks to 1000",
        citation: "Moffat, Bailey, Scholer & Thomas, INST: An Adaptive Metric for Information \
                   Retrieval Evaluation, ADCS 2015; as computed by cwl_eval (Azzopardi, Thomas & \
                   Moffat, SIGIR 2019)",
        cutoff: CutoffKind::None,
        params: &[("T", ParamKind::Number), MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::inst,
    },
    Family {
        name: "INSQ",
        summary: "INSQ: INST's patience for a goal T (1 by default), whatever the gain found; needs max_rel",
        formula: "C/W/L with C(i) = ((i + 2T - 1) / (i + 2T))^2, ranks to 1000",
        citation: "Moffat, Scholer & Thomas, Models and Metrics: IR Evaluation as a User \
                   Process, ADCS 2012; as computed by cwl_eval (Azzopardi, Thomas & Moffat, \
                   SIGIR 2019)",
        cutoff: CutoffKind::None,
        params: &[("T", ParamKind::Number), MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::insq,
    },
    Family {
        name: "BPM",
        summary: "static Bejeweled Player Model: mean gain of the documents read until gain T (1 by default) or k documents; needs max_rel",
        formula: "sum_{i<=s} gain_i / s, s = min(k, 1000, first i with sum_{j<=i} gain_j >= T)",
        citation: "Zhang et al., Evaluating Web Search with a Bejeweled Player Model, SIGIR \
                   2017; as computed by cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019)",
        cutoff: CutoffKind::Required,
        params: &[("T", ParamKind::Number), MAX_REL, MIN_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: cwl::bpm,
    },
    // Diversity measures from subtopic judgements (ndeval; ir_measures' names and parameters).
    Family {
        name: "alpha_nDCG",
        summary: "alpha-nDCG: nDCG of novelty gains over subtopics, normalized by ndeval's greedy ideal ranking",
        formula: "alpha-DCG@k / alpha-DCG@k of the greedy ideal; gain g_i = sum_{s rel} (1 - alpha)^{c_s}, c_s = documents relevant to s above i",
        citation: DIVERSITY_ALPHA_NDCG,
        cutoff: CutoffKind::Required,
        params: ALPHA_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: diversity::alpha_ndcg,
    },
    Family {
        name: "alpha_DCG",
        summary: "alpha-DCG, divided by ndeval's ideal ideal (every rank relevant to every subtopic; not at k = 1)",
        formula: "sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} |S| (1 - alpha)^(i-1) / log2(i + 1)",
        citation: DIVERSITY_ALPHA_NDCG,
        cutoff: CutoffKind::Required,
        params: ALPHA_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: diversity::alpha_dcg,
    },
    Family {
        name: "ERR_IA",
        summary: "intent-aware ERR (alpha = 0.5), divided by ndeval's ideal ideal (not at k = 1)",
        formula: "sum_{i<=k} g_i / i / sum_{i<=k} |S| 0.5^(i-1) / i",
        citation: DIVERSITY_ERR_IA,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: diversity::err_ia,
    },
    Family {
        name: "nERR_IA",
        summary: "intent-aware ERR normalized by ndeval's greedy ideal ranking",
        formula: "ERR-IA@k / ERR-IA@k of the greedy ideal",
        citation: DIVERSITY_ERR_IA,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: diversity::nerr_ia,
    },
    Family {
        name: "NRBP",
        summary: "novelty- and rank-biased precision over the whole ranking (alpha, beta = 0.5)",
        formula: "(1 - (1 - alpha) beta) / |S| sum_i beta^(i-1) g_i",
        citation: DIVERSITY_NRBP,
        cutoff: CutoffKind::None,
        params: NRBP_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: diversity::nrbp,
    },
    Family {
        name: "nNRBP",
        summary: "NRBP normalized by ndeval's greedy ideal ranking (0 without a relevant subtopic)",
        formula: "NRBP / NRBP of the greedy ideal",
        citation: DIVERSITY_NRBP,
        cutoff: CutoffKind::None,
        params: NRBP_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: diversity::nnrbp,
    },
    Family {
        name: "P_IA",
        summary: "intent-aware precision: relevant (document, subtopic) pairs in the top k / (k |S|)",
        formula: "sum_{i<=k} |{s: rel_{i,s}}| / (k |S|)",
        citation: DIVERSITY_IA,
        cutoff: CutoffKind::Required,
        params: INTENT_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: diversity::precision_ia,
    },
    Family {
        name: "AP_IA",
        summary: "intent-aware average precision: AP per subtopic, averaged over subtopics",
        formula: "(1/|S|) sum_s sum_{i rel to s} P_s@i / R_s",
        citation: DIVERSITY_IA,
        cutoff: CutoffKind::None,
        params: INTENT_PARAMS,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["map_ia"],
        weknora: false,
        kernel: diversity::average_precision_ia,
    },
    Family {
        name: "StRecall",
        summary: "subtopic recall: subtopics with a relevant document in the top k / |S|",
        formula: "|{s: exists i<=k, rel_{i,s}}| / |S|",
        citation: "Zhai, Cohen & Lafferty, Beyond independent relevance, SIGIR 2003; ndeval's strec",
        cutoff: CutoffKind::Required,
        params: &[DIVERSITY_REL],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["strec"],
        weknora: false,
        kernel: diversity::subtopic_recall,
    },
    // trec_eval's preference measures (-m all_prefs). With qrels, the query's grades are one
    // judgement group of one subgroup (trec_eval's -R qrels_prefs of qrels whose second column
    // is constant), negative grades unjudged; preference files go through crate::prefs.
    Family {
        name: "NumPrefsPoss",
        summary: "number of preferences judged, whether their documents were retrieved or not (summed over queries)",
        formula: "sum_g (possible_ret + possible_imp + possible_notoccur)",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["prefs_num_prefs_poss"],
        weknora: false,
        kernel: prefs::num_possible_kernel,
    },
    Family {
        name: "NumPrefsFul",
        summary: "number of preferences A > B fulfilled: A ranked above B, or A retrieved and B not (summed over queries)",
        formula: "sum_g (fulfilled_ret + fulfilled_imp)",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["prefs_num_prefs_ful"],
        weknora: false,
        kernel: prefs::num_fulfilled_kernel,
    },
    Family {
        name: "NumPrefsFulRet",
        summary: "number of preferences fulfilled with both documents retrieved (summed over queries)",
        formula: "sum_g fulfilled_ret",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Sum,
        bounded: false,
        aliases: &["prefs_num_prefs_ful_ret"],
        weknora: false,
        kernel: prefs::num_fulfilled_ret_kernel,
    },
    Family {
        name: "PrefsSimp",
        summary: "preferences fulfilled / preferences judged (neither document retrieved: a failure)",
        formula: "sum_g (fulfilled_ret + fulfilled_imp) / sum_g (possible_ret + possible_imp + possible_notoccur)",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_simp"],
        weknora: false,
        kernel: prefs::simple_kernel,
    },
    Family {
        name: "PrefsPair",
        summary: "mean over document pairs of the share of groups whose preference the ranking fulfils",
        formula: "mean_{pairs A,B judged} c(A>B) / (c(A>B) + c(B>A)), A ranked above B (0 when neither is retrieved); c counts groups",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_pair"],
        weknora: false,
        kernel: prefs::pair_kernel,
    },
    Family {
        name: "PrefsAvgJG",
        summary: "preferences fulfilled / judged within each judgement group, averaged over groups",
        formula: "(1/|G|) sum_g (fulfilled_ret + fulfilled_imp)_g / (possible_ret + possible_imp + possible_notoccur)_g",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_avgjg"],
        weknora: false,
        kernel: prefs::average_groups_kernel,
    },
    Family {
        name: "PrefsAvgJGRNonRel",
        summary: "PrefsAvgJG with as many non-relevant documents (level 0) per group as relevant ones (R)",
        formula: "N <= R: R - N fulfilled non-relevant added below each relevant document; N > R: the first R non-relevant kept, preferences recounted",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_avgjg_Rnonrel"],
        weknora: false,
        kernel: prefs::average_groups_rnonrel_kernel,
    },
    Family {
        name: "PrefsSimpRet",
        summary: "PrefsSimp over preferences whose two documents are retrieved",
        formula: "sum_g fulfilled_ret / sum_g possible_ret",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_simp_ret"],
        weknora: false,
        kernel: prefs::simple_ret_kernel,
    },
    Family {
        name: "PrefsPairRet",
        summary: "PrefsPair over pairs whose two documents are retrieved",
        formula: "mean_{pairs A,B retrieved} c(A>B) / (c(A>B) + c(B>A)), A ranked above B",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_pair_ret"],
        weknora: false,
        kernel: prefs::pair_ret_kernel,
    },
    Family {
        name: "PrefsAvgJGRet",
        summary: "PrefsAvgJG over preferences whose two documents are retrieved",
        formula: "(1/|G|) sum_g fulfilled_ret_g / possible_ret_g",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_avgjg_ret"],
        weknora: false,
        kernel: prefs::average_groups_ret_kernel,
    },
    Family {
        name: "PrefsAvgJGRNonRelRet",
        summary: "PrefsAvgJGRNonRel over retrieved documents (R and N: relevant and non-relevant retrieved)",
        formula: "as PrefsAvgJGRNonRel, counting preferences between retrieved documents only",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_avgjg_Rnonrel_ret"],
        weknora: false,
        kernel: prefs::average_groups_rnonrel_ret_kernel,
    },
    Family {
        name: "PrefsSimpImp",
        summary: "PrefsSimp over preferences with at least one document retrieved",
        formula: "sum_g (fulfilled_ret + fulfilled_imp) / sum_g (possible_ret + possible_imp)",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_simp_imp"],
        weknora: false,
        kernel: prefs::simple_imp_kernel,
    },
    Family {
        name: "PrefsPairImp",
        summary: "PrefsPair over pairs with at least one document retrieved",
        formula: "mean_{pairs A,B, one retrieved} c(A>B) / (c(A>B) + c(B>A)), A ranked above B",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_pair_imp"],
        weknora: false,
        kernel: prefs::pair_imp_kernel,
    },
    Family {
        name: "PrefsAvgJGImp",
        summary: "PrefsAvgJG over preferences with at least one document retrieved",
        formula: "(1/|G|) sum_g (fulfilled_ret + fulfilled_imp)_g / (possible_ret + possible_imp)_g",
        citation: PREFS_CITATION,
        cutoff: CutoffKind::None,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["prefs_avgjg_imp"],
        weknora: false,
        kernel: prefs::average_groups_imp_kernel,
    },
    // ir_measures' measures under its names and parameters (gdeval's ERR, Judged, RBP with
    // its residual, Compat, the set measures); `nDCG(dcg=..., judged_only=...)` is nDCG above.
    Family {
        name: "Judged",
        summary: "fraction of the top k that is judged (any grade, negative ones too); divides by \
                  the number retrieved when fewer than k",
        formula: "(1 / min(k, n)) sum_{i<=k} [d_i in the qrels]",
        citation: IR_MEASURES,
        cutoff: CutoffKind::Optional,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::judged,
    },
    Family {
        name: "ERR",
        summary: "expected reciprocal rank for graded relevance, as gdeval computes it (grades up \
                  to 4)",
        formula: "sum_{i<=k} (r_i / i) prod_{j<i} (1 - r_j), r_i = (2^g_i - 1) / 2^4",
        citation: "Chapelle, Metzler, Zhang & Grinspan, Expected reciprocal rank for graded \
                   relevance, CIKM 2009; gdeval.pl of the TREC 2010 Web track",
        cutoff: CutoffKind::Optional,
        params: &[],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::err,
    },
    Family {
        name: "RBP",
        summary: "rank-biased precision as ir_measures: p = 0.8 by default, gain = grade \
                  (trectools), or 1 for grades >= rel with rel= (cwl_eval); trec_eval's rbp is \
                  TrecRBP",
        formula: "(1 - p) sum_{i<=k} gain_i p^(i-1), gain_i = max(g_i, 0), or [g_i >= rel]",
        citation: "Moffat & Zobel, Rank-biased precision for measurement of retrieval \
                   effectiveness, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::Optional,
        params: &[PERSISTENCE_08, ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::rbp,
    },
    Family {
        name: "RBPResid",
        summary: "the residual of RBP: the most unjudged documents and the positions beyond the \
                  ranking (to k) could add, each at the highest gain",
        formula: "G ((1 - p) sum_{i<=k, d_i unjudged} p^(i-1) + p^min(n,k) - p^k), G = 1 with \
                  rel=, else max(1, highest grade judged); p^k = 0 without k",
        citation: "Moffat & Zobel, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::Optional,
        params: &[PERSISTENCE_08, ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::rbp_residual,
    },
    Family {
        name: "Compat",
        summary: "compatibility: rank-biased overlap of the ranking with an ideal ranking \
                  (by grade, ties in the run's order), normalized by the ideal's own",
        formula: "RBO(run, ideal) / RBO(ideal, ideal) (normalize=False: RBO(run, ideal)), \
                  RBO = sum_{i<=D} p^(i-1) |run_i & ideal_i| / i / sum_{i<=D} p^(i-1), \
                  D = max(n, number judged relevant)",
        citation: "Clarke, Vtyurina & Smucker, Assessing top-k preferences, ACM TOIS 39(3), 2021",
        cutoff: CutoffKind::None,
        params: &[
            ("p", ParamKind::Persistence("0.95")),
            ("normalize", ParamKind::Flag(true)),
        ],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::compat,
    },
    Family {
        name: "SetP",
        summary: "precision of the retrieved set (relative=True, or SetRelP: over the best \
                  possible, trec_eval's set_relative_P)",
        formula: "relret / ret; relative: relret / min(ret, R)",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: &[
            ("rel", ParamKind::Count),
            ("relative", ParamKind::Flag(false)),
            JUDGED_ONLY,
        ],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ir_measures::set_precision,
    },
    Family {
        name: "SetR",
        summary: "recall of the retrieved set",
        formula: "relret / R",
        citation: TREC_EVAL,
        cutoff: CutoffKind::None,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: kernels::recall,
    },
    // ranx's measures that no trec_eval family gives (its other names are aliases above).
    Family {
        name: "hits",
        summary: "ranx's hits: the number of relevant documents in the top k (whole ranking without k)",
        formula: "sum_{i<=k} rel_i",
        citation: ranx::CITATION,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: ranx::hits,
    },
    Family {
        name: "f1",
        summary: "ranx's F1 at k: harmonic mean of P@k and R@k (no k: of the whole ranking)",
        formula: "2 P R / (P + R), P = hits@k / k, R = hits@k / R (0 if P + R = 0)",
        citation: ranx::CITATION,
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ranx::f1,
    },
    Family {
        name: "dcg",
        summary: "ranx's DCG (not normalized), gain = grade for grades >= rel",
        formula: "sum_{i<=k, g_i >= rel} g_i / log2(i + 1); 0 without relevant documents",
        citation: "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: ranx::dcg,
    },
    Family {
        name: "dcg_burges",
        summary: "ranx's DCG (not normalized), gain = 2^grade - 1 for grades >= rel",
        formula: "sum_{i<=k, g_i >= rel} (2^g_i - 1) / log2(i + 1); 0 without relevant documents",
        citation: "Burges et al., Learning to rank using gradient descent, ICML 2005; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: false,
        aliases: &[],
        weknora: false,
        kernel: ranx::dcg_burges,
    },
    Family {
        name: "ndcg_burges",
        summary: "ranx's nDCG with gain 2^grade - 1 for grades >= rel (nDCG(gain=exp) at rel=1)",
        formula: "dcg_burges@k / the same over the judged documents ordered by grade (0 if that is 0)",
        citation: "Burges et al., Learning to rank using gradient descent, ICML 2005; as ranx computes it",
        cutoff: CutoffKind::Optional,
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &[],
        weknora: false,
        kernel: ranx::ndcg_burges,
    },
];

// Diversity measures: parameters and citations.
const ALPHA: Param = ("alpha", ParamKind::Defaulted(&ParamKind::Number, "0.5"));
// Without `rel=` a judgement counts at the evaluation's relevance level (1 unless asked), as for
// every family; so `rel=1` stays in names (ir_measures leaves it out).
const DIVERSITY_REL: Param = ("rel", ParamKind::Count);
const INTENT_PARAMS: &[Param] = &[DIVERSITY_REL, JUDGED_ONLY];
const ALPHA_PARAMS: &[Param] = &[ALPHA, DIVERSITY_REL, JUDGED_ONLY];
const NRBP_PARAMS: &[Param] = &[
    ALPHA,
    ("beta", ParamKind::Defaulted(&ParamKind::Number, "0.5")),
    DIVERSITY_REL,
];
const DIVERSITY_ALPHA_NDCG: &str = "Clarke et al., Novelty and diversity in information retrieval \
    evaluation, SIGIR 2008; ndeval 4.5 (TREC Web track)";
const DIVERSITY_ERR_IA: &str = "Chapelle et al., Expected reciprocal rank for graded relevance, \
    CIKM 2009; Agrawal et al., Diversifying search results, WSDM 2009; ndeval 4.5";
const DIVERSITY_NRBP: &str = "Clarke, Kolla & Vechtomova, An effectiveness measure for ambiguous \
    and underspecified queries, ICTIR 2009; ndeval 4.5";
const DIVERSITY_IA: &str = "Agrawal et al., Diversifying search results, WSDM 2009; ndeval 4.5";

/// The family of a canonical name or alias (case-insensitive).
pub fn family(name: &str) -> Option<&'static Family> {
    let lower = name.to_lowercase();
    FAMILIES.iter().find(|f| {
        f.name.to_lowercase() == lower || f.aliases.iter().any(|a| a.to_lowercase() == lower)
    })
}

/// The cutoff of a measure: a count (`@10`) or a recall level (`IPrec@0.5`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cutoff {
    /// A number of documents, 1 to [`MAX_CUTOFF`].
    Count(u64),
    /// A recall level in [0, 1].
    Level(f64),
}

impl fmt::Display for Cutoff {
    /// Integers plainly, recall levels as Python prints floats (`0.1`, `1.0`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cutoff::Count(k) => write!(f, "{k}"),
            Cutoff::Level(level) => f.write_str(&crate::error::py_float_repr(*level)),
        }
    }
}

/// One measure with its parameters, e.g. `nDCG@10` or `P(rel=2)@5`.
///
/// Build measures with [`parse_measure`] or [`Measure::new`] (both validate).
#[derive(Debug, Clone)]
pub struct Measure {
    /// Its family.
    pub family: &'static Family,
    /// Its cutoff, if any.
    pub cutoff: Option<Cutoff>,
    /// Its parameters in the family's order, values in canonical form, defaults left out.
    pub params: Vec<(String, String)>,
}

impl PartialEq for Measure {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Measure {}

impl Hash for Measure {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl Measure {
    /// A validated measure from its parts: the family (any name or alias), the cutoff text
    /// (`"10"`, `"0.5"`) and `key=value` parameters, with the messages of name parsing.
    pub fn new(family: &str, cutoff: Option<&str>, params: &[(&str, &str)]) -> Result<Self> {
        let text: String = params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut name = family.to_string();
        if !text.is_empty() {
            name = format!("{name}({text})");
        }
        if let Some(cut) = cutoff {
            name = format!("{name}@{cut}");
        }
        names::build(
            family,
            if text.is_empty() { None } else { Some(&text) },
            cutoff,
            &name,
        )
    }

    /// The canonical name; parsing it gives this measure back.
    pub fn name(&self) -> String {
        let mut text = self.family.name.to_string();
        if !self.params.is_empty() {
            let params: Vec<String> = self
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            text = format!("{text}({})", params.join(","));
        }
        if let Some(cutoff) = self.cutoff {
            text = format!("{text}@{cutoff}");
        }
        text
    }

    /// The value of parameter `key`, if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The `rel=` parameter, if given.
    pub fn relevance_level(&self) -> Option<i64> {
        self.param("rel")
            .map(|v| v.parse().expect("validated when parsed"))
    }

    /// The number parameter `key`, if given.
    pub fn number(&self, key: &str) -> Option<f64> {
        self.param(key)
            .map(|v| v.parse().expect("validated when parsed"))
    }

    /// The gains by grade of `gains=` (empty if not given).
    pub fn gains(&self) -> Vec<(i64, f64)> {
        self.param("gains").map_or_else(Vec::new, |text| {
            names::parse_gains(text).expect("validated when parsed")
        })
    }

    /// The `levels=` parameter, or the 11 points 0.0, 0.1, ..., 1.0.
    pub fn levels(&self) -> Vec<f64> {
        match self.param("levels") {
            Some(text) => names::parse_numbers(text).expect("validated when parsed"),
            None => (0..=10).map(|i| f64::from(i) / 10.0).collect(),
        }
    }

    /// The `gain=` parameter, if given.
    pub fn gain(&self) -> Option<Gain> {
        self.param("gain")
            .map(|v| Gain::parse("gain", v).expect("validated when parsed"))
    }

    /// The count cutoff, if any.
    pub fn cutoff_count(&self) -> Option<usize> {
        match self.cutoff {
            Some(Cutoff::Count(k)) => Some(k as usize),
            _ => None,
        }
    }

    /// The name trec_eval prints for this measure, or `None` when trec_eval has no such one
    /// (a measure with its own `rel=` has none: trec_eval sets the level for all at once).
    pub fn trec_name(&self) -> Option<String> {
        if self.family.name == "SetP" && self.params == [("relative".into(), "True".into())] {
            return Some("set_relative_P".into());
        }
        if !self.params.is_empty() {
            return None;
        }
        let family = self.family.name;
        match self.cutoff {
            None => {
                if let Some(name) = prefs::trec_name(family) {
                    return Some(name.to_string());
                }
                let plain = match family {
                    "AP" => "map",
                    "RR" => "recip_rank",
                    "nDCG" => "ndcg",
                    "Rprec" => "Rprec",
                    "Bpref" => "bpref",
                    "GM_AP" => "gm_map",
                    "NumRet" => "num_ret",
                    "NumRel" => "num_rel",
                    "NumRelRet" => "num_rel_ret",
                    "NumQ" => "num_q",
                    "P" => "set_P",
                    "R" => "set_recall",
                    "infAP" => "infAP",
                    "GM_Bpref" => "gm_bpref",
                    "Utility" => "utility",
                    "IPrecAvg" => "11pt_avg",
                    "BinG" => "binG",
                    "G" => "G",
                    "nDCGRel" => "ndcg_rel",
                    "RnDCG" => "Rndcg",
                    "RelP" => "set_relative_P",
                    "SetAP" => "set_map",
                    "SetF" => "set_F",
                    "SetP" => "set_P",
                    "SetR" => "set_recall",
                    "NumNonRelJudgedRet" => "num_nonrel_judged_ret",
                    "TrecRBP" => "rbp",
                    "TrecRBPResid" => "rbp_resid",
                    "YAAP" => "yaap",
                    _ => return None,
                };
                Some(plain.to_string())
            }
            Some(Cutoff::Level(level)) if family == "RprecMult" => {
                Some(format!("Rprec_mult_{level:.2}"))
            }
            Some(Cutoff::Level(level)) => Some(format!("iprec_at_recall_{level:.2}")),
            Some(Cutoff::Count(k)) => {
                let prefix = match family {
                    "AP" => "map_cut_",
                    "nDCG" => "ndcg_cut_",
                    "P" => "P_",
                    "R" => "recall_",
                    "Success" => "success_",
                    "RelP" => "relative_P_",
                    "Unjudged" => "unj_",
                    _ => return None,
                };
                Some(format!("{prefix}{k}"))
            }
        }
    }

    /// The arguments of this measure's kernel under `conventions` and the evaluation's
    /// relevance level (the profile's binary relevance makes it 1: grades are 0 or 1 by then).
    pub fn kernel_args<'a>(
        &self,
        conventions: &'a Conventions,
        relevance_level: i64,
    ) -> kernels::KernelArgs<'a> {
        let default_level = if conventions.binary_relevance {
            1
        } else {
            relevance_level
        };
        kernels::KernelArgs {
            cutoff: self.cutoff_count(),
            recall_level: match self.cutoff {
                Some(Cutoff::Level(level)) => Some(level),
                _ => None,
            },
            gain: match self.param("dcg") {
                Some("'exp-log2'") => Gain::Exp,
                _ => self.gain().unwrap_or(conventions.gain),
            },
            gains: self.gains(),
            levels: self.levels(),
            p: self.number_or_default("p").unwrap_or(0.9),
            beta: self.number_or_default("beta").unwrap_or(1.0),
            coefficients: [
                self.number("a").unwrap_or(1.0),
                self.number("b").unwrap_or(-1.0),
                self.number("c").unwrap_or(0.0),
                self.number("d").unwrap_or(0.0),
            ],
            collection_size: self.number("n").unwrap_or(0.0),
            conventions,
            level: self.relevance_level().unwrap_or(default_level),
            // The C/W/L measures (`max_rel` is required by their names; 1 serves the others).
            grade_range: (
                self.number("min_rel").map_or(0, |v| v as i64),
                self.number("max_rel").map_or(1, |v| v as i64),
            ),
            target_gain: self.number("T").unwrap_or(1.0),
            alpha: self.number("alpha").unwrap_or(0.5),
            patience: self.number("beta").unwrap_or(0.5),
            // ir_measures' parameters.
            judged_only: self.flag("judged_only"),
            relative: self.flag("relative"),
            normalize: self.flag("normalize"),
            binary_level: self.relevance_level(),
        }
    }

    /// The number parameter `key`, or its family's default for it.
    pub fn number_or_default(&self, key: &str) -> Option<f64> {
        self.number(key).or_else(|| {
            let (_, kind) = self.family.params.iter().find(|(k, _)| *k == key)?;
            kind.default_value()?.parse().ok()
        })
    }

    /// The boolean parameter `key` (`True`/`False`), or its family's default for it.
    pub fn flag(&self, key: &str) -> bool {
        match self.param(key) {
            Some(value) => value == "True",
            None => self
                .family
                .params
                .iter()
                .any(|(k, kind)| *k == key && matches!(kind, ParamKind::Flag(true))),
        }
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Refuse measures a profile with binary relevance (`weknora`) does not define, with
/// Python's messages.
pub fn check_profile_support(measures: &[Measure], conventions: &Conventions) -> Result<()> {
    if !conventions.binary_relevance {
        return Ok(());
    }
    for m in measures {
        let family = m.family;
        if !family.weknora {
            let supported: Vec<&str> = FAMILIES
                .iter()
                .filter(|f| f.weknora)
                .map(|f| f.name)
                .collect();
            return Err(Error::Profile(format!(
                "{} is not defined by the {} profile (it defines {}); use profile='trec'",
                m.name(),
                conventions.name,
                supported.join(", ")
            )));
        }
        if m.relevance_level().is_some() {
            return Err(Error::Profile(format!(
                "{}: the {} profile has binary relevance; set relevance_level on evaluate() \
                 instead of rel= on the measure",
                m.name(),
                conventions.name
            )));
        }
        if family.name != "nDCG" && m.cutoff.is_some() {
            return Err(Error::Profile(format!(
                "{}: the {} profile defines {} over the whole ranking, without a cutoff; use \
                 {} or profile='trec'",
                m.name(),
                conventions.name,
                family.name,
                family.name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_as_trec_eval() {
        assert_eq!(Aggregate::Mean.apply(&[0.5, 0.25]), 0.375);
        let gm = Aggregate::GeometricMean.apply(&[0.5, 0.0]);
        assert!((gm - 0.0022360679774997894).abs() < 1e-15);
        assert_eq!(Aggregate::Sum.apply(&[3.0, 4.0]), 7.0);
        assert_eq!(Aggregate::Count.apply(&[3.0, 4.0]), 2.0);
        assert!(Aggregate::Mean.apply(&[]).is_nan());
    }

    #[test]
    fn trec_names() {
        let name = |text: &str| parse_measure(text).unwrap().trec_name();
        assert_eq!(name("nDCG@10").as_deref(), Some("ndcg_cut_10"));
        assert_eq!(name("P").as_deref(), Some("set_P"));
        assert_eq!(name("IPrec@0.1").as_deref(), Some("iprec_at_recall_0.10"));
        assert_eq!(name("P(rel=2)@5"), None);
        assert_eq!(name("RR@10"), None);
    }

    #[test]
    fn weknora_refuses_what_it_does_not_define() {
        let weknora = Conventions::profile("weknora").unwrap();
        let check = |text: &str| {
            check_profile_support(&[parse_measure(text).unwrap()], &weknora)
                .map_err(|e| e.to_string())
        };
        assert!(check("nDCG@3").is_ok());
        assert_eq!(
            check("Bpref").unwrap_err(),
            "Bpref is not defined by the weknora profile (it defines nDCG, AP, RR, P, R); use \
             profile='trec'"
        );
        assert_eq!(
            check("P@5").unwrap_err(),
            "P@5: the weknora profile defines P over the whole ranking, without a cutoff; use P \
             or profile='trec'"
        );
        assert_eq!(
            check("AP(rel=2)").unwrap_err(),
            "AP(rel=2): the weknora profile has binary relevance; set relevance_level on \
             evaluate() instead of rel= on the measure"
        );
    }
}
