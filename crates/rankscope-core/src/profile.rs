//! Profiles: named bundles of the conventions that evaluation tools disagree on.
//!
//! Every convention is a field of [`Conventions`]; its values are spelled as in Python's
//! `rankscope.engine.profiles` (`"score_then_docid_desc"`, `"keep_first"`, ...). `trec`
//! reproduces trec_eval 10, `trec9` trec_eval up to 9.0.8 (and so pytrec_eval), `weknora`
//! WeKnora's metric package.

use crate::error::{Error, Result};

macro_rules! convention {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in the order Python lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's name, as Python spells it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value named `text`; `field` names the convention in the error.
            pub fn parse(field: &str, text: &str) -> Result<Self> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => {
                        let choices: Vec<String> =
                            Self::ALL.iter().map(|v| format!("'{}'", v.as_str())).collect();
                        Err(Error::Profile(format!(
                            "{field} must be one of {}; got {}",
                            choices.join(", "),
                            crate::error::py_repr(text)
                        )))
                    }
                }
            }
        }
    };
}

convention!(
    /// How each query's documents are put in rank order.
    Ordering {
        /// Score descending, ties by document id descending, byte-wise (trec_eval).
        ScoreThenDocidDesc = "score_then_docid_desc",
        /// The order of the input.
        AsGiven = "as_given",
        /// Score descending, ties by document id ascending, byte-wise (pyndeval, and so
        /// ir_measures' diversity measures).
        ScoreThenDocidAsc = "score_then_docid_asc",
    }
);

convention!(
    /// The precision scores are compared at.
    ScorePrecision {
        /// As given.
        Float64 = "float64",
        /// Rounded to 32-bit floats before sorting (trec_eval <= 9.0.8).
        Float32 = "float32",
    }
);

convention!(
    /// What a document ranked twice in one query means.
    DuplicatePolicy {
        /// An error naming the query and the document.
        Error = "error",
        /// The first occurrence after sorting counts, the others are dropped.
        KeepFirst = "keep_first",
        /// Every occurrence counts (WeKnora).
        KeepAll = "keep_all",
    }
);

convention!(
    /// The gain of a grade in nDCG.
    Gain {
        /// The grade.
        Linear = "linear",
        /// `2^grade - 1`.
        Exp = "exp",
    }
);

convention!(
    /// Which positions the ideal ranking of nDCG has.
    IdealRanking {
        /// All judged documents of the query, by grade.
        Judged = "judged",
        /// As `Judged`, but at most as many positions as documents were retrieved (WeKnora).
        JudgedCappedByRetrieved = "judged_capped_by_retrieved",
    }
);

convention!(
    /// What P@k divides by.
    PrecisionDenominator {
        /// k, even when fewer documents were retrieved (trec_eval).
        Cutoff = "cutoff",
        /// The number of documents retrieved (within k).
        Retrieved = "retrieved",
    }
);

convention!(
    /// What average precision divides by.
    ApDenominator {
        /// The number of relevant documents (trec_eval).
        Relevant = "relevant",
        /// The number of relevant documents retrieved (WeKnora).
        RelevantRetrieved = "relevant_retrieved",
    }
);

convention!(
    /// How IPrec@r turns the recall level r into a number of relevant documents.
    RecallLevelRounding {
        /// `round(r * R)`, halves away from zero (trec_eval 10).
        Nearest = "nearest",
        /// `int(r * R + 0.9)` (trec_eval <= 9.0.8, pytrec_eval).
        Add09Truncate = "add_0.9_truncate",
    }
);

convention!(
    /// What happens to retrieved documents without a judgement (absent or negative grade).
    UnjudgedDocuments {
        /// They stay in the ranking, as non-relevant (trec_eval).
        Keep = "keep",
        /// They leave the ranking before any measure (trec_eval `-J`, condensed lists).
        Drop = "drop",
    }
);

convention!(
    /// What a measure that trec_eval computes as 0 divided by 0 gives: interpolated precision
    /// of an empty ranking (IPrec at recall levels that need no relevant document, IPrecAvg;
    /// trec_eval `-J` with nothing judged retrieved, or `-M0`) and RnDCG of a query whose
    /// relevant documents all have gain 0 (`-l0`). As scikit-learn's `zero_division`.
    ZeroDivision {
        /// 0, as every other measure gives where there is nothing to measure.
        Zero = "zero",
        /// Not a number, as trec_eval 10 prints it (`-nan`); a mean over queries with one is
        /// NaN too.
        Nan = "nan",
    }
);

impl ZeroDivision {
    /// `numerator / denominator`, or this convention's value when the denominator is 0.
    pub fn divide(self, numerator: f64, denominator: f64) -> f64 {
        if denominator != 0.0 {
            numerator / denominator
        } else {
            match self {
                ZeroDivision::Zero => 0.0,
                ZeroDivision::Nan => f64::NAN,
            }
        }
    }
}

convention!(
    /// What a judged query absent from the run is scored on, when such queries are scored
    /// (`complete`, trec_eval `-c`).
    MissingQueryRanking {
        /// An empty ranking: every measure of the query is what nothing retrieved gives.
        Empty = "empty",
        /// trec_eval 10's placeholder: one unjudged document (`ceci_nest_pas_un_docno`, score
        /// 1), after which trec_eval sets the values it prints as `num_ret`, `utility`,
        /// `rbp_resid` and `unj_*` to 0; measures with their own parameters (`utility_1,-1,0,1`)
        /// keep what the placeholder gives them.
        Placeholder = "placeholder",
    }
);

/// The document trec_eval ranks, alone, for a judged query absent from the run under `-c`.
pub const PLACEHOLDER_DOCUMENT: &str = "ceci_nest_pas_un_docno";

/// How a ranking is formed and how measures treat the contested cases (Python's
/// `Conventions`, field for field).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conventions {
    /// The profile's name.
    pub name: String,
    /// How each query's documents are ordered.
    pub ordering: Ordering,
    /// The precision scores are sorted at.
    pub score_precision: ScorePrecision,
    /// What a document ranked twice in one query means.
    pub duplicate_documents: DuplicatePolicy,
    /// Grades become 1 (`grade >= relevance_level`) or 0 before any measure sees them.
    pub binary_relevance: bool,
    /// Default gain of nDCG.
    pub gain: Gain,
    /// Positions of nDCG's ideal ranking.
    pub ideal_ranking: IdealRanking,
    /// What P@k divides by.
    pub precision_denominator: PrecisionDenominator,
    /// What AP divides by.
    pub ap_denominator: ApDenominator,
    /// How IPrec@r's level becomes a count.
    pub recall_level_rounding: RecallLevelRounding,
    /// Whether unjudged retrieved documents stay in the ranking.
    pub unjudged_documents: UnjudgedDocuments,
    /// What trec_eval's 0 / 0 gives.
    pub zero_division: ZeroDivision,
    /// What a judged query absent from the run is scored on under `complete`.
    pub missing_query_ranking: MissingQueryRanking,
}

/// The names of the built-in profiles, in the order Python lists them.
pub const PROFILE_NAMES: [&str; 3] = ["trec", "trec9", "weknora"];

/// What a profile computes when no measure is named (the command line's defaults): for the
/// trec profiles the usual ranking measures, for `weknora` WeKnora's RetrievalMetrics
/// (precision, recall, ndcg3, ndcg10, mrr, map). `None` for an unknown profile.
pub fn default_measures(profile: &str) -> Option<&'static [&'static str]> {
    match profile {
        "trec" | "trec9" => Some(&["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10", "R@100"]),
        "weknora" => Some(&["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]),
        _ => None,
    }
}

impl Conventions {
    /// trec_eval 10's conventions under the given name.
    fn trec_defaults(name: &str) -> Self {
        Conventions {
            name: name.to_string(),
            ordering: Ordering::ScoreThenDocidDesc,
            score_precision: ScorePrecision::Float64,
            duplicate_documents: DuplicatePolicy::Error,
            binary_relevance: false,
            gain: Gain::Linear,
            ideal_ranking: IdealRanking::Judged,
            precision_denominator: PrecisionDenominator::Cutoff,
            ap_denominator: ApDenominator::Relevant,
            recall_level_rounding: RecallLevelRounding::Nearest,
            unjudged_documents: UnjudgedDocuments::Keep,
            zero_division: ZeroDivision::Zero,
            missing_query_ranking: MissingQueryRanking::Empty,
        }
    }

    /// The conventions of a built-in profile: `trec`, `trec9` or `weknora`.
    pub fn profile(name: &str) -> Result<Self> {
        match name {
            "trec" => Ok(Self::trec_defaults("trec")),
            "trec9" => Ok(Conventions {
                score_precision: ScorePrecision::Float32,
                recall_level_rounding: RecallLevelRounding::Add09Truncate,
                ..Self::trec_defaults("trec9")
            }),
            "weknora" => Ok(Conventions {
                ordering: Ordering::AsGiven,
                duplicate_documents: DuplicatePolicy::KeepAll,
                binary_relevance: true,
                gain: Gain::Exp,
                ideal_ranking: IdealRanking::JudgedCappedByRetrieved,
                precision_denominator: PrecisionDenominator::Retrieved,
                ap_denominator: ApDenominator::RelevantRetrieved,
                ..Self::trec_defaults("weknora")
            }),
            other => {
                let names: Vec<String> = PROFILE_NAMES.iter().map(|n| format!("'{n}'")).collect();
                Err(Error::Profile(format!(
                    "unknown profile {}; expected one of {}",
                    crate::error::py_repr(other),
                    names.join(", ")
                )))
            }
        }
    }

    /// A copy with one convention changed, both given by their Python names
    /// (`set("duplicate_documents", "keep_first")`).
    pub fn with_option(mut self, field: &str, value: &str) -> Result<Self> {
        match field {
            "name" => self.name = value.to_string(),
            "ordering" => self.ordering = Ordering::parse(field, value)?,
            "score_precision" => self.score_precision = ScorePrecision::parse(field, value)?,
            "duplicate_documents" => {
                self.duplicate_documents = DuplicatePolicy::parse(field, value)?
            }
            "binary_relevance" => {
                self.binary_relevance = match value {
                    "true" | "True" => true,
                    "false" | "False" => false,
                    _ => {
                        return Err(Error::Profile(format!(
                            "binary_relevance must be True or False; got {}",
                            crate::error::py_repr(value)
                        )))
                    }
                }
            }
            "gain" => self.gain = Gain::parse(field, value)?,
            "ideal_ranking" => self.ideal_ranking = IdealRanking::parse(field, value)?,
            "precision_denominator" => {
                self.precision_denominator = PrecisionDenominator::parse(field, value)?
            }
            "ap_denominator" => self.ap_denominator = ApDenominator::parse(field, value)?,
            "recall_level_rounding" => {
                self.recall_level_rounding = RecallLevelRounding::parse(field, value)?
            }
            "unjudged_documents" => {
                self.unjudged_documents = UnjudgedDocuments::parse(field, value)?
            }
            "zero_division" => self.zero_division = ZeroDivision::parse(field, value)?,
            "missing_query_ranking" => {
                self.missing_query_ranking = MissingQueryRanking::parse(field, value)?
            }
            other => {
                return Err(Error::Profile(format!(
                    "unknown convention(s) ['{other}']; expected some of ['ap_denominator', \
                     'binary_relevance', 'duplicate_documents', 'gain', 'ideal_ranking', \
                     'missing_query_ranking', 'name', 'ordering', 'precision_denominator', \
                     'recall_level_rounding', 'score_precision', 'unjudged_documents', \
                     'zero_division']"
                )))
            }
        }
        Ok(self)
    }

    /// Whether a document judged twice counts twice in the ideal ranking (WeKnora's countGt):
    /// only with binary relevance and duplicates kept; otherwise a duplicate judgement is an
    /// error.
    pub fn keeps_duplicate_judgements(&self) -> bool {
        self.duplicate_documents == DuplicatePolicy::KeepAll && self.binary_relevance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_python_says() {
        let trec9 = Conventions::profile("trec9").unwrap();
        assert_eq!(trec9.score_precision, ScorePrecision::Float32);
        assert_eq!(
            trec9.recall_level_rounding,
            RecallLevelRounding::Add09Truncate
        );
        let weknora = Conventions::profile("weknora").unwrap();
        assert!(weknora.keeps_duplicate_judgements());
        assert!(!Conventions::profile("trec")
            .unwrap()
            .keeps_duplicate_judgements());
    }

    #[test]
    fn every_profile_defines_its_default_measures() {
        for name in PROFILE_NAMES {
            let conventions = Conventions::profile(name).unwrap();
            let measures = crate::parse_measures(default_measures(name).unwrap()).unwrap();
            crate::measures::check_profile_support(&measures, &conventions).unwrap();
        }
        assert_eq!(default_measures("trac"), None);
    }

    #[test]
    fn unknown_names_are_profile_errors() {
        assert_eq!(
            Conventions::profile("trac").unwrap_err().to_string(),
            "unknown profile 'trac'; expected one of 'trec', 'trec9', 'weknora'"
        );
        let trec = Conventions::profile("trec").unwrap();
        assert_eq!(
            trec.clone()
                .with_option("duplicate_documents", "first")
                .unwrap_err()
                .to_string(),
            "duplicate_documents must be one of 'error', 'keep_first', 'keep_all'; got 'first'"
        );
        let kept = trec
            .with_option("duplicate_documents", "keep_first")
            .unwrap();
        assert_eq!(kept.duplicate_documents, DuplicatePolicy::KeepFirst);
    }
}
