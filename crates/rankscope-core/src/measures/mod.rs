//! The registry of measures: each family's kernel, parameters, aggregate, aliases, formula and
//! citation; and `Measure` values with their names (`nDCG@10`, `P(rel=2)@5`,
//! `nDCG(gain=exp)@10`, trec_eval's `ndcg_cut.10`).
//!
//! Adding a measure is a kernel in [`kernels`] plus one [`Family`] entry in [`FAMILIES`].

pub mod kernels;
mod names;
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
        }
    }
}

/// One parameter a family accepts: its name and the values it takes.
pub type Param = (&'static str, ParamKind);

const REL: &[Param] = &[("rel", ParamKind::Count)];
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

/// Every family, in the order `rankscope measures` lists them.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "nDCG",
        summary: "normalized discounted cumulative gain; gain = grade (gain=exp: 2^grade-1)",
        formula: "DCG@k / IDCG@k, DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1); gains=1:3;2:9 \
                  sets the gain of each grade (trec_eval's ndcg.1=3,2=9)",
        citation: "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
                   ACM TOIS 20(4), 2002",
        cutoff: CutoffKind::Optional,
        params: &[("gain", ParamKind::Choice(&["linear", "exp"])), GAINS],
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
        params: REL,
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["set_map"],
        weknora: false,
        kernel: trec_extra::set_map,
    },
    Family {
        name: "F",
        summary: "F measure of the retrieved set (beta=1 by default; trec_eval's beta weighs P unsquared)",
        formula: "(beta + 1) P R / (beta P + R), P = relret / ret, R = relret / R",
        citation: "van Rijsbergen, Information Retrieval, 1979; trec_eval's set_F",
        cutoff: CutoffKind::None,
        params: &[("beta", ParamKind::Number), ("rel", ParamKind::Count)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["set_f"],
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
        name: "RBP",
        summary: "rank-biased precision, p = 0.9 by default as trec_eval (gains scaled to [0, 1])",
        formula: "(1 - p) sum_i gain_i p^(i-1)",
        citation: "Moffat & Zobel, Rank-biased precision for measurement of retrieval effectiveness, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::None,
        params: &[("p", ParamKind::Number), GAINS],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["rbp"],
        weknora: false,
        kernel: trec_extra::rbp,
    },
    Family {
        name: "RBPResid",
        summary: "the residual of RBP: the most unjudged and unretrieved documents could add",
        formula: "p^n + (1 - p) sum_{unjudged at i} p^(i-1) (0 if none is unjudged)",
        citation: "Moffat & Zobel, ACM TOIS 27(1), 2008",
        cutoff: CutoffKind::None,
        params: &[("p", ParamKind::Number)],
        aggregate: Aggregate::Mean,
        bounded: true,
        aliases: &["rbp_resid"],
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
    /// Its parameters, sorted by name, values in canonical form.
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
        if !self.params.is_empty() {
            return None;
        }
        let family = self.family.name;
        match self.cutoff {
            None => {
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
                    "F" => "set_F",
                    "NumNonRelJudgedRet" => "num_nonrel_judged_ret",
                    "RBP" => "rbp",
                    "RBPResid" => "rbp_resid",
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
            gain: self.gain().unwrap_or(conventions.gain),
            gains: self.gains(),
            levels: self.levels(),
            p: self.number("p").unwrap_or(0.9),
            beta: self.number("beta").unwrap_or(1.0),
            coefficients: [
                self.number("a").unwrap_or(1.0),
                self.number("b").unwrap_or(-1.0),
                self.number("c").unwrap_or(0.0),
                self.number("d").unwrap_or(0.0),
            ],
            collection_size: self.number("n").unwrap_or(0.0),
            conventions,
            level: self.relevance_level().unwrap_or(default_level),
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
