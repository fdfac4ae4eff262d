//! Profiles: named bundles of the conventions that evaluation tools disagree on.
//!
//! Every convention is a field of [`Conventions`] with named values (`"score_then_docid_desc"`,
//! `"keep_first"`, ...), described in [`CONVENTIONS`]. `trec` reproduces trec_eval 10, `trec9`
//! trec_eval up to 9.0.8 (and so pytrec_eval), `weknora` WeKnora's metric package. This module
//! is the one definition of the profiles: the bindings read them, their fields and the values
//! each field allows from here.

use crate::error::{quoted, Error, ProfileProblem, Result};
use crate::settle::{unknown_conventions, unknown_profile, Given};

macro_rules! convention {
    ($summary:literal $name:ident { $($variant:ident = $text:literal : $doc:literal),+ $(,)? }) => {
        #[doc = $summary]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $(#[doc = $doc] $variant),+
        }

        impl $name {
            /// What the convention decides.
            pub const SUMMARY: &'static str = $summary;

            /// Every value, in the order they are listed.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Every value's name and what it means, in the order of [`Self::ALL`].
            pub const VALUES: &'static [(&'static str, &'static str)] = &[$(($text, $doc)),+];

            /// The value's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value named `text`; `field` names the convention in the error.
            pub fn parse(field: &str, text: &str) -> Result<Self> {
                Self::from_given(field, &Given::Text(text.to_string()))
            }

            /// The value a caller gave; `field` names the convention in the error.
            pub fn from_given(field: &str, given: &Given) -> Result<Self> {
                if let Given::Text(text) = given {
                    match text.as_str() {
                        $($text => return Ok($name::$variant),)+
                        _ => {}
                    }
                }
                let names = Self::VALUES.iter().map(|(name, _)| *name);
                let choices: Vec<String> = names.clone().map(quoted).collect();
                let message = format!(
                    "{field} must be one of {}; got {}",
                    choices.join(", "),
                    given.shown()
                );
                Err(Error::Profile(
                    ProfileProblem::new(given.shown(), message, names).of_convention(field),
                ))
            }
        }
    };
}

convention!(
    "How each query's documents are put in rank order."
    Ordering {
        ScoreThenDocidDesc = "score_then_docid_desc":
            "Score descending, ties by document id descending, byte-wise (trec_eval).",
        AsGiven = "as_given": "The order of the input.",
        ScoreThenDocidAsc = "score_then_docid_asc":
            "Score descending, ties by document id ascending, byte-wise (pyndeval, and so \
             ir_measures' diversity measures).",
    }
);

convention!(
    "The precision scores are compared at."
    ScorePrecision {
        Float64 = "float64": "As given.",
        Float32 = "float32": "Rounded to 32-bit floats before sorting (trec_eval <= 9.0.8).",
    }
);

convention!(
    "What a document ranked twice in one query means."
    DuplicatePolicy {
        Error = "error": "An error naming the query and the document.",
        KeepFirst = "keep_first":
            "The first occurrence after sorting counts, the others are dropped.",
        KeepAll = "keep_all": "Every occurrence counts (WeKnora).",
    }
);

convention!(
    "The default gain of a grade in nDCG."
    Gain {
        Linear = "linear": "The grade.",
        Exp = "exp": "`2^grade - 1`.",
    }
);

convention!(
    "Which positions the ideal ranking of nDCG has."
    IdealRanking {
        Judged = "judged": "All judged documents of the query, by grade.",
        JudgedCappedByRetrieved = "judged_capped_by_retrieved":
            "As `judged`, but at most as many positions as documents were retrieved (WeKnora: \
             returning fewer documents can raise nDCG).",
    }
);

convention!(
    "What P@k divides by."
    PrecisionDenominator {
        Cutoff = "cutoff": "k, even when fewer documents were retrieved (trec_eval).",
        Retrieved = "retrieved": "The number of documents retrieved (within k).",
    }
);

convention!(
    "What average precision divides by."
    ApDenominator {
        Relevant = "relevant": "The number of relevant documents (trec_eval).",
        RelevantRetrieved = "relevant_retrieved":
            "The number of relevant documents retrieved (WeKnora).",
    }
);

convention!(
    "How IPrec@r turns the recall level r into a number of relevant documents."
    RecallLevelRounding {
        Nearest = "nearest": "`round(r * R)`, halves away from zero (trec_eval 10).",
        Add09Truncate = "add_0.9_truncate":
            "`int(r * R + 0.9)` (trec_eval <= 9.0.8, pytrec_eval).",
    }
);

convention!(
    "What happens to retrieved documents without a judgement (absent or a negative grade)."
    UnjudgedDocuments {
        Keep = "keep": "They stay in the ranking, as non-relevant (trec_eval).",
        Drop = "drop":
            "They leave the ranking before any measure (trec_eval `-J`, condensed lists).",
    }
);

convention!(
    "What a measure that trec_eval computes as 0 divided by 0 gives: interpolated precision of \
     an empty ranking (IPrec at recall levels that need no relevant document, IPrecAvg; \
     trec_eval `-J` with nothing judged retrieved, or `-M0`) and RnDCG of a query whose \
     relevant documents all have gain 0 (`-l0`). As scikit-learn's `zero_division`."
    ZeroDivision {
        Zero = "zero": "0, as every other measure gives where there is nothing to measure.",
        Nan = "nan":
            "Not a number, as trec_eval 10 prints it (`-nan`); a mean over queries with one is \
             NaN too.",
    }
);

impl ZeroDivision {
    /// `numerator / denominator`, or this convention's value when the denominator is 0.
    pub fn divide(self, numerator: f64, denominator: f64) -> f64 {
        if denominator == 0.0 {
            match self {
                ZeroDivision::Zero => 0.0,
                ZeroDivision::Nan => f64::NAN,
            }
        } else {
            numerator / denominator
        }
    }
}

convention!(
    "What a judged query absent from the run is scored on, when such queries are scored \
     (`complete`, trec_eval `-c`)."
    MissingQueryRanking {
        Empty = "empty":
            "An empty ranking: every measure of the query is what nothing retrieved gives.",
        Placeholder = "placeholder":
            "trec_eval 10's placeholder: one unjudged document (`ceci_nest_pas_un_docno`, \
             score 1), after which trec_eval sets the values it prints as `num_ret`, \
             `utility`, `rbp_resid` and `unj_*` to 0; measures with their own parameters \
             (`utility_1,-1,0,1`) keep what the placeholder gives them.",
    }
);

convention!(
    "How the ideal ranking orders documents of equal grade (it matters to Compat, which \
     compares documents, not gains)."
    IdealTies {
        Ranking = "ranking":
            "The retrieved ones first, in rank order, then the unretrieved ones in the order \
             of the qrels.",
        RunScore = "run_score":
            "By the run's score, descending (an unretrieved document scores 0), ties in the \
             order of the qrels (ir_measures' compat provider: qrels `{a: 2, b: 2}` and run \
             `{a: -1.0}` rank b before a).",
    }
);

convention!(
    "Whether judgements of documents the run did not retrieve count: in nDCG's ideal ranking, \
     in the number of relevant documents (recall, AP, R-precision) and everywhere else."
    UnretrievedJudgements {
        Count = "count": "They count, as trec_eval counts them.",
        Ignore = "ignore":
            "Only the retrieved documents' judgements exist, as for the peers that score a \
             list of items with their labels (scikit-learn's `ndcg_score`, torchmetrics): a \
             relevant document left out of the ranking lowers nothing.",
    }
);

convention!(
    "What the DCG measures (nDCG, with `gains=` too, and ranx's dcg, dcg_burges and \
     ndcg_burges) make of documents with equal scores."
    TiedScores {
        Ordered = "ordered": "They take one position each, in the order of `ordering`.",
        Averaged = "averaged":
            "They share their positions: each gets the mean gain of its group of ties, the \
             mean over every order of the ties (McSherry & Najork, ECIR 2008; scikit-learn's \
             `ndcg_score` and `dcg_score`, torchmetrics' `RetrievalNormalizedDCG`). Other \
             measures rank ties by `ordering`.",
    }
);

convention!(
    "What happens to a retrieved document whose id is its query's id."
    IdenticalIds {
        Keep = "keep": "It stays in the ranking.",
        Drop = "drop":
            "It leaves the ranking before anything else (BEIR's `ignore_identical_ids=True`: \
             on data sets whose queries are documents of the corpus, a query retrieving \
             itself is not a hit).",
    }
);

/// The document trec_eval ranks, alone, for a judged query absent from the run under `-c`.
pub const PLACEHOLDER_DOCUMENT: &str = "ceci_nest_pas_un_docno";

/// How a ranking is formed and how measures treat the contested cases.
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
    /// How the ideal ranking orders documents of equal grade.
    pub ideal_ties: IdealTies,
    /// Whether judgements of unretrieved documents count.
    pub unretrieved_judgements: UnretrievedJudgements,
    /// What the DCG measures make of tied scores.
    pub tied_scores: TiedScores,
    /// Whether a document with its query's id stays in the ranking.
    pub identical_ids: IdenticalIds,
}

/// The names of the built-in profiles, in the order they are listed.
pub const PROFILE_NAMES: [&str; 8] = [
    "trec",
    "trec9",
    "weknora",
    "ir_measures",
    "ranx",
    "beir",
    "sklearn",
    "torchmetrics",
];

/// The value of one field of [`Conventions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue {
    /// A named value (`"keep_first"`).
    Text(&'static str),
    /// A truth value (`binary_relevance`).
    Flag(bool),
}

/// One convention: its field's name, what it decides, and the values it allows with what
/// each means (empty for a truth value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Convention {
    /// The field's name.
    pub name: &'static str,
    /// What it decides.
    pub summary: &'static str,
    /// The values allowed, in order, each with what it means (empty: true or false).
    pub values: &'static [(&'static str, &'static str)],
}

impl Convention {
    /// Whether `value` is one of the values allowed (any for a truth value).
    pub fn allows(&self, value: &str) -> bool {
        self.values.is_empty() || self.values.iter().any(|(name, _)| *name == value)
    }
}

macro_rules! conventions {
    ($($field:literal => $kind:ident),+ $(,)?) => {
        &[$(Convention { name: $field, summary: $kind::SUMMARY, values: $kind::VALUES }),+]
    };
}

/// Grades become 1 or 0 before any measure sees them: a truth value, not named values.
const BINARY_RELEVANCE: Convention = Convention {
    name: "binary_relevance",
    summary: "Grades become 1 (`grade >= relevance_level`) or 0 before any measure sees them.",
    values: &[],
};

/// Every convention, in the order of the fields of [`Conventions`] after the name.
pub const CONVENTIONS: &[Convention] = &{
    let named: &[Convention; 15] = conventions!(
        "ordering" => Ordering,
        "score_precision" => ScorePrecision,
        "duplicate_documents" => DuplicatePolicy,
        "gain" => Gain,
        "ideal_ranking" => IdealRanking,
        "precision_denominator" => PrecisionDenominator,
        "ap_denominator" => ApDenominator,
        "recall_level_rounding" => RecallLevelRounding,
        "unjudged_documents" => UnjudgedDocuments,
        "zero_division" => ZeroDivision,
        "missing_query_ranking" => MissingQueryRanking,
        "ideal_ties" => IdealTies,
        "unretrieved_judgements" => UnretrievedJudgements,
        "tied_scores" => TiedScores,
        "identical_ids" => IdenticalIds,
    );
    [
        named[0],
        named[1],
        named[2],
        BINARY_RELEVANCE,
        named[3],
        named[4],
        named[5],
        named[6],
        named[7],
        named[8],
        named[9],
        named[10],
        named[11],
        named[12],
        named[13],
        named[14],
    ]
};

/// BEIR's measures: NDCG@k, MAP@k (trec_eval's map_cut), Recall@k and P@k at its k values.
const BEIR_MEASURES: [&str; 24] = [
    "nDCG@1",
    "nDCG@3",
    "nDCG@5",
    "nDCG@10",
    "nDCG@100",
    "nDCG@1000",
    "AP@1",
    "AP@3",
    "AP@5",
    "AP@10",
    "AP@100",
    "AP@1000",
    "R@1",
    "R@3",
    "R@5",
    "R@10",
    "R@100",
    "R@1000",
    "P@1",
    "P@3",
    "P@5",
    "P@10",
    "P@100",
    "P@1000",
];

/// What a profile computes when no measure is named (the command line's defaults): for the
/// trec profiles the usual ranking measures, for `weknora` WeKnora's RetrievalMetrics
/// (precision, recall, ndcg3, ndcg10, mrr, map). `None` for an unknown profile.
pub fn default_measures(profile: &str) -> Option<&'static [&'static str]> {
    match profile {
        "trec" | "trec9" => Some(&["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10", "R@100"]),
        "weknora" => Some(&["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]),
        // ir_measures' documented first call; ranx's (in its own names); ndcg_score's and
        // RetrievalNormalizedDCG's nDCG over every item; BEIR's EvaluateRetrieval.evaluate
        // (NDCG, MAP, Recall and P at k = 1, 3, 5, 10, 100, 1000).
        "ir_measures" => Some(&["nDCG@10", "P@5", "P(rel=2)@5", "Judged@10"]),
        "ranx" => Some(&["ndcg@10", "map@100", "mrr@100"]),
        "sklearn" | "torchmetrics" => Some(&["nDCG"]),
        "beir" => Some(&BEIR_MEASURES),
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
            ideal_ties: IdealTies::Ranking,
            unretrieved_judgements: UnretrievedJudgements::Count,
            tied_scores: TiedScores::Ordered,
            identical_ids: IdenticalIds::Keep,
        }
    }

    /// trec_eval 9.0.8's conventions (pytrec_eval's) under the given name.
    fn pytrec_eval(name: &str) -> Self {
        Conventions {
            score_precision: ScorePrecision::Float32,
            recall_level_rounding: RecallLevelRounding::Add09Truncate,
            ..Self::trec_defaults(name)
        }
    }

    /// The conventions of the peers that score a list of items with their labels (no
    /// document ids, so nothing is a duplicate; nothing outside the list is judged; ties
    /// averaged), scores compared at `precision`.
    fn scored_items(name: &str, precision: ScorePrecision) -> Self {
        Conventions {
            score_precision: precision,
            duplicate_documents: DuplicatePolicy::KeepAll,
            unretrieved_judgements: UnretrievedJudgements::Ignore,
            tied_scores: TiedScores::Averaged,
            ..Self::trec_defaults(name)
        }
    }

    /// The conventions of a built-in profile (one of [`PROFILE_NAMES`]): `trec` (trec_eval
    /// 10), `trec9` (trec_eval 9.0.8, pytrec_eval), `weknora` (WeKnora's metric package),
    /// `ir_measures` (its default providers: pytrec_eval's rankings, the compat provider's
    /// ideal ranking), `ranx` (trec_eval's definitions, as ranx computes them), `beir`
    /// (pytrec_eval without a query's own id), `sklearn` (`ndcg_score`) and `torchmetrics`
    /// (its retrieval metrics, float32 scores).
    ///
    /// ```
    /// use rankscope_core::profile::{Conventions, Gain, ScorePrecision};
    ///
    /// assert_eq!(Conventions::profile("weknora").unwrap().gain, Gain::Exp);
    /// let trec9 = Conventions::profile("trec9").unwrap();
    /// assert_eq!(trec9.score_precision, ScorePrecision::Float32);
    /// assert!(Conventions::profile("trac").is_err());
    /// ```
    pub fn profile(name: &str) -> Result<Self> {
        match name {
            "trec" => Ok(Self::trec_defaults("trec")),
            "trec9" => Ok(Self::pytrec_eval("trec9")),
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
            "ir_measures" => Ok(Conventions {
                ideal_ties: IdealTies::RunScore,
                ..Self::pytrec_eval("ir_measures")
            }),
            "ranx" => Ok(Self::trec_defaults("ranx")),
            "beir" => Ok(Conventions {
                identical_ids: IdenticalIds::Drop,
                ..Self::pytrec_eval("beir")
            }),
            "sklearn" => Ok(Self::scored_items("sklearn", ScorePrecision::Float64)),
            "torchmetrics" => Ok(Self::scored_items("torchmetrics", ScorePrecision::Float32)),
            other => Err(unknown_profile(&quoted(other))),
        }
    }

    /// A copy with one convention changed, both given by name
    /// (`with_option("duplicate_documents", "keep_first")`).
    pub fn with_option(self, field: &str, value: &str) -> Result<Self> {
        let value = match (field, value) {
            ("binary_relevance", "true" | "True") => Given::Flag(true),
            ("binary_relevance", "false" | "False") => Given::Flag(false),
            _ => Given::Text(value.to_string()),
        };
        self.with_given(field, &value)
    }

    /// A copy with one convention changed to a value as a caller gave it.
    pub fn with_given(mut self, field: &str, value: &Given) -> Result<Self> {
        match field {
            "name" => match value {
                Given::Text(name) => self.name.clone_from(name),
                other => self.name = other.shown(),
            },
            "ordering" => self.ordering = Ordering::from_given(field, value)?,
            "score_precision" => self.score_precision = ScorePrecision::from_given(field, value)?,
            "duplicate_documents" => {
                self.duplicate_documents = DuplicatePolicy::from_given(field, value)?;
            }
            "binary_relevance" => {
                self.binary_relevance = match value {
                    Given::Flag(flag) => *flag,
                    other => {
                        let message = format!(
                            "binary_relevance must be True or False; got {}",
                            other.shown()
                        );
                        return Err(Error::Profile(
                            ProfileProblem::new(other.shown(), message, ["True", "False"])
                                .of_convention(field),
                        ));
                    }
                }
            }
            "gain" => self.gain = Gain::from_given(field, value)?,
            "ideal_ranking" => self.ideal_ranking = IdealRanking::from_given(field, value)?,
            "precision_denominator" => {
                self.precision_denominator = PrecisionDenominator::from_given(field, value)?;
            }
            "ap_denominator" => self.ap_denominator = ApDenominator::from_given(field, value)?,
            "recall_level_rounding" => {
                self.recall_level_rounding = RecallLevelRounding::from_given(field, value)?;
            }
            "unjudged_documents" => {
                self.unjudged_documents = UnjudgedDocuments::from_given(field, value)?;
            }
            "zero_division" => self.zero_division = ZeroDivision::from_given(field, value)?,
            "missing_query_ranking" => {
                self.missing_query_ranking = MissingQueryRanking::from_given(field, value)?;
            }
            "ideal_ties" => self.ideal_ties = IdealTies::from_given(field, value)?,
            "unretrieved_judgements" => {
                self.unretrieved_judgements = UnretrievedJudgements::from_given(field, value)?;
            }
            "tied_scores" => self.tied_scores = TiedScores::from_given(field, value)?,
            "identical_ids" => self.identical_ids = IdenticalIds::from_given(field, value)?,
            other => return Err(unknown_conventions(&[other])),
        }
        Ok(self)
    }

    /// Every field but the name, in the order of [`CONVENTIONS`], with its value's name
    /// (`binary_relevance`: [`FieldValue::Flag`]).
    pub fn fields(&self) -> Vec<(&'static str, FieldValue)> {
        let text = |value: &'static str| FieldValue::Text(value);
        vec![
            ("ordering", text(self.ordering.as_str())),
            ("score_precision", text(self.score_precision.as_str())),
            (
                "duplicate_documents",
                text(self.duplicate_documents.as_str()),
            ),
            ("binary_relevance", FieldValue::Flag(self.binary_relevance)),
            ("gain", text(self.gain.as_str())),
            ("ideal_ranking", text(self.ideal_ranking.as_str())),
            (
                "precision_denominator",
                text(self.precision_denominator.as_str()),
            ),
            ("ap_denominator", text(self.ap_denominator.as_str())),
            (
                "recall_level_rounding",
                text(self.recall_level_rounding.as_str()),
            ),
            ("unjudged_documents", text(self.unjudged_documents.as_str())),
            ("zero_division", text(self.zero_division.as_str())),
            (
                "missing_query_ranking",
                text(self.missing_query_ranking.as_str()),
            ),
            ("ideal_ties", text(self.ideal_ties.as_str())),
            (
                "unretrieved_judgements",
                text(self.unretrieved_judgements.as_str()),
            ),
            ("tied_scores", text(self.tied_scores.as_str())),
            ("identical_ids", text(self.identical_ids.as_str())),
        ]
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
    fn profiles_differ_where_documented() {
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
    fn the_table_of_conventions_follows_the_fields() {
        let fields = Conventions::profile("trec").unwrap().fields();
        let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        let table: Vec<&str> = CONVENTIONS.iter().map(|c| c.name).collect();
        assert_eq!(names, table);
        let weknora = Conventions::profile("weknora").unwrap();
        assert_eq!(
            weknora.fields()[3],
            ("binary_relevance", FieldValue::Flag(true))
        );
        for (convention, (_, value)) in CONVENTIONS.iter().zip(weknora.fields()) {
            if let FieldValue::Text(text) = value {
                assert!(convention.allows(text), "{}", convention.name);
            }
        }
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
            "unknown profile 'trac'; expected one of 'trec', 'trec9', 'weknora', 'ir_measures', \
             'ranx', 'beir', 'sklearn', 'torchmetrics'"
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
