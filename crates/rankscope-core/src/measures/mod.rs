//! The registry of measures: each family's kernel, parameters, aggregate, aliases, formula and
//! citation; and `Measure` values with their names (`nDCG@10`, `P(rel=2)@5`,
//! `nDCG(gain=exp)@10`, trec_eval's `ndcg_cut.10`).
//!
//! Adding a measure is a kernel in [`kernels`] plus one [`Family`] entry in [`FAMILIES`].

pub mod kernels;
mod names;

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
}

impl CutoffKind {
    /// The name Python uses.
    pub fn as_str(self) -> &'static str {
        match self {
            CutoffKind::None => "none",
            CutoffKind::Optional => "optional",
            CutoffKind::Required => "required",
            CutoffKind::RecallLevel => "recall_level",
        }
    }
}

/// One parameter a family accepts: its name and allowed values (`None`: an integer from 1 to
/// [`MAX_CUTOFF`]).
pub type Param = (&'static str, Option<&'static [&'static str]>);

const REL: &[Param] = &[("rel", None)];

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
        formula: "DCG@k / IDCG@k, DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)",
        citation: "Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, \
                   ACM TOIS 20(4), 2002",
        cutoff: CutoffKind::Optional,
        params: &[("gain", Some(&["linear", "exp"]))],
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
        aliases: &["r_prec", "r-prec"],
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
        aliases: &["success"],
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
                    _ => return None,
                };
                Some(plain.to_string())
            }
            Some(Cutoff::Level(level)) => Some(format!("iprec_at_recall_{level:.2}")),
            Some(Cutoff::Count(k)) => {
                let prefix = match family {
                    "AP" => "map_cut_",
                    "nDCG" => "ndcg_cut_",
                    "P" => "P_",
                    "R" => "recall_",
                    "Success" => "success_",
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
