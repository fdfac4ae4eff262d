//! What a caller asks of an evaluation, settled once: the measure names parsed, the profile's
//! conventions with the caller's changes, every option checked, in one place.
//!
//! The bindings hand [`settle`] what the user gave, as the user gave it (a value's type and
//! how messages show it, [`Given`]); everything that can be wrong with it is found here,
//! before any input is read, in this order: the profile, the duplicate policy, the options
//! (`relevance_level`, `max_documents`, `chunk_bytes`, `complete`, `lenient`), the measures,
//! and whether the profile defines them.

use crate::error::{quoted, Error, OptionProblem, ProfileProblem, Result};
use crate::evaluate::EvalOptions;
use crate::measures::{check_profile_support, distinct, parse_listed, parse_measure, Measure};
use crate::profile::{default_measures, Conventions, CONVENTIONS, PROFILE_NAMES};
use crate::stream::DEFAULT_CHUNK_BYTES;

/// A value as a caller gave it: what it is, and how messages show it.
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    /// Not given: the default applies.
    Absent,
    /// An integer.
    Integer(i64),
    /// A truth value.
    Flag(bool),
    /// A text.
    Text(String),
    /// Anything else, as the caller prints it (a number with a fraction, a list, ...).
    Other(String),
}

impl Given {
    /// How a message shows the value: texts quoted, the rest as the caller prints it.
    pub fn shown(&self) -> String {
        match self {
            Given::Absent => "None".into(),
            Given::Integer(value) => value.to_string(),
            Given::Flag(true) => "True".into(),
            Given::Flag(false) => "False".into(),
            Given::Text(text) => quoted(text),
            Given::Other(shown) => shown.clone(),
        }
    }
}

/// The measures a caller asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Measures {
    /// None is computed (relevance strings, rankings).
    Nothing,
    /// The profile's default measures ([`default_measures`]; conventions the caller built
    /// take those of the profile they are named after, else trec's), as the command line
    /// computes without `-m`.
    Defaults,
    /// These.
    Given(Vec<MeasureSpec>),
}

/// A measure as a caller gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureSpec {
    /// A name, in any of the spellings [`parse_measure`] reads, or several separated by
    /// commas ([`parse_listed`]).
    Name(String),
    /// A family's name, a cutoff as text and parameters as names write them: a measure taken
    /// apart (and so validated again).
    Parts {
        /// The family's canonical name.
        family: String,
        /// The cutoff, as text.
        cutoff: Option<String>,
        /// `(parameter, value)` pairs as names write them.
        params: Vec<(String, String)>,
    },
    /// Something that is not a measure, as the caller prints it.
    Other(String),
}

/// The profile a caller asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfileSpec {
    /// A built-in profile, by name.
    Name(Given),
    /// Conventions the caller built: every `(field, value)`, the name among them.
    Fields(Vec<(String, Given)>),
}

/// Everything a caller gives an evaluation besides its inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The measures.
    pub measures: Measures,
    /// The profile.
    pub profile: ProfileSpec,
    /// Overrides the profile's duplicate policy when given.
    pub duplicate_documents: Given,
    /// Lowest grade that counts as relevant (default 1).
    pub relevance_level: Given,
    /// Evaluate only the first documents of each ranking (default: all).
    pub max_documents: Given,
    /// How much of a streamed run a chunk reads.
    pub chunk_bytes: Given,
    /// Score judged queries missing from the run as 0 (default false).
    pub complete: Given,
    /// Skip malformed lines instead of failing (default false).
    pub lenient: Given,
}

impl Request {
    /// A request for `measures` under `profile`, every option left to its default.
    pub fn new(measures: Measures, profile: ProfileSpec) -> Self {
        Self {
            measures,
            profile,
            duplicate_documents: Given::Absent,
            relevance_level: Given::Absent,
            max_documents: Given::Absent,
            chunk_bytes: Given::Absent,
            complete: Given::Absent,
            lenient: Given::Absent,
        }
    }
}

/// A request settled: the measures parsed (repeats dropped, order kept), the options checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// The measures, once each.
    pub measures: Vec<Measure>,
    /// The conventions and the options of the evaluation.
    pub options: EvalOptions,
    /// How much of a streamed run a chunk reads.
    pub chunk_bytes: usize,
    /// Skip malformed lines instead of failing.
    pub lenient: bool,
}

/// Settle a request: the one place where measure names, profiles and options are checked.
///
/// ```
/// use rankscope_core::settle::{settle, Given, MeasureSpec, Measures, ProfileSpec, Request};
///
/// let names = vec![MeasureSpec::Name("P@5".into()), MeasureSpec::Name("P_5".into())];
/// let profile = ProfileSpec::Name(Given::Text("trec9".into()));
/// let mut request = Request::new(Measures::Given(names), profile);
/// request.relevance_level = Given::Integer(2);
/// let settled = settle(&request).unwrap();
/// assert_eq!(settled.measures.len(), 1); // P_5 is P@5
/// assert_eq!(settled.options.relevance_level, 2);
/// assert_eq!(settled.options.conventions.name, "trec9");
///
/// request.max_documents = Given::Integer(-1);
/// let message = "max_documents must be an integer >= 0; got -1";
/// assert_eq!(settle(&request).unwrap_err().to_string(), message);
/// ```
pub fn settle(request: &Request) -> Result<Settled> {
    let mut conventions = settle_profile(&request.profile)?;
    match &request.duplicate_documents {
        Given::Absent => {}
        given => conventions = conventions.with_given("duplicate_documents", given)?,
    }
    // As trec_eval takes -l and -M: any level, and 0 documents (every ranking empty).
    let relevance_level = integer("relevance_level", &request.relevance_level, None, Some(1))?;
    let max_documents = integer("max_documents", &request.max_documents, Some(0), None)?;
    let default_chunk = i64::try_from(DEFAULT_CHUNK_BYTES).unwrap_or(i64::MAX);
    let chunk_bytes = integer(
        "chunk_bytes",
        &request.chunk_bytes,
        Some(1),
        Some(default_chunk),
    )?;
    let complete = flag("complete", &request.complete)?;
    let lenient = flag("lenient", &request.lenient)?;
    let measures = match &request.measures {
        Measures::Nothing => Vec::new(),
        Measures::Defaults => {
            let names = default_measures(&conventions.name)
                .or_else(|| default_measures("trec"))
                .unwrap_or_default();
            let measures = distinct(names.iter().map(|name| parse_measure(name)))?;
            check_profile_support(&measures, &conventions)?;
            measures
        }
        Measures::Given(specs) => {
            let measures = parse_specs(specs)?;
            check_profile_support(&measures, &conventions)?;
            measures
        }
    };
    Ok(Settled {
        measures,
        options: EvalOptions {
            conventions,
            relevance_level: relevance_level.unwrap_or(1),
            complete,
            max_documents: max_documents.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        },
        chunk_bytes: chunk_bytes.map_or(DEFAULT_CHUNK_BYTES, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        }),
        lenient,
    })
}

/// The conventions of a profile given by name, or built by the caller (every field checked).
pub fn settle_profile(profile: &ProfileSpec) -> Result<Conventions> {
    match profile {
        ProfileSpec::Name(Given::Text(name)) => Conventions::profile(name),
        ProfileSpec::Name(other) => Err(unknown_profile(&other.shown())),
        ProfileSpec::Fields(fields) => {
            let known =
                |field: &str| field == "name" || CONVENTIONS.iter().any(|c| c.name == field);
            let mut unknown: Vec<&str> = fields
                .iter()
                .map(|(field, _)| field.as_str())
                .filter(|field| !known(field))
                .collect();
            if !unknown.is_empty() {
                unknown.sort_unstable();
                return Err(unknown_conventions(&unknown));
            }
            let mut conventions = Conventions::profile("trec")?;
            for (field, value) in fields {
                conventions = conventions.with_given(field, value)?;
            }
            Ok(conventions)
        }
    }
}

/// The error for an unknown profile (`shown` as messages show the name given).
pub(crate) fn unknown_profile(shown: &str) -> Error {
    let names: Vec<String> = PROFILE_NAMES.iter().map(|n| quoted(n)).collect();
    let message = format!(
        "unknown profile {shown}; expected one of {}",
        names.join(", ")
    );
    Error::Profile(ProfileProblem::new(shown, message, PROFILE_NAMES))
}

/// The error for fields that are no convention (sorted).
pub(crate) fn unknown_conventions(fields: &[&str]) -> Error {
    let mut expected: Vec<&str> = CONVENTIONS.iter().map(|c| c.name).collect();
    expected.push("name");
    expected.sort_unstable();
    let list = |names: &[&str]| {
        let quoted: Vec<String> = names.iter().map(|n| quoted(n)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let message = format!(
        "unknown convention(s) {}; expected some of {}",
        list(fields),
        list(&expected)
    );
    Error::Profile(
        ProfileProblem::new(fields.join(", "), message, expected).of_convention(fields[0]),
    )
}

/// The measures the caller gave, each once in order (a name may list several).
pub fn parse_specs(specs: &[MeasureSpec]) -> Result<Vec<Measure>> {
    let mut parsed = Vec::new();
    for spec in specs {
        match spec {
            MeasureSpec::Name(name) => match parse_listed(name) {
                Ok(measures) => parsed.extend(measures.into_iter().map(Ok)),
                Err(error) => parsed.push(Err(error)),
            },
            other => parsed.push(parse_spec(other)),
        }
    }
    distinct(parsed)
}

/// The measure a caller gave: a name parsed, parts checked, anything else refused.
pub fn parse_spec(spec: &MeasureSpec) -> Result<Measure> {
    match spec {
        MeasureSpec::Name(name) => parse_measure(name),
        MeasureSpec::Parts {
            family,
            cutoff,
            params,
        } => {
            let params: Vec<(&str, &str)> = params
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            Measure::new(family, cutoff.as_deref(), &params)
        }
        MeasureSpec::Other(shown) => Err(Error::measure(
            shown.as_str(),
            format!("a measure is given by its name as a string; got {shown}"),
        )),
    }
}

/// An integer option, at least `least` when given (`default` when absent).
fn integer(
    option: &str,
    given: &Given,
    least: Option<i64>,
    default: Option<i64>,
) -> Result<Option<i64>> {
    match given {
        Given::Absent => Ok(default),
        Given::Integer(value) if !least.is_some_and(|least| *value < least) => Ok(Some(*value)),
        other => {
            let expected = least.map_or("an integer".to_string(), |least| {
                format!("an integer >= {least}")
            });
            Err(Error::Option(OptionProblem::new(
                option,
                other.shown(),
                format!("{option} must be {expected}; got {}", other.shown()),
            )))
        }
    }
}

/// A truth-value option (false when absent).
fn flag(option: &str, given: &Given) -> Result<bool> {
    match given {
        Given::Absent => Ok(false),
        Given::Flag(value) => Ok(*value),
        other => Err(Error::Option(
            OptionProblem::new(
                option,
                other.shown(),
                format!("{option} must be True or False; got {}", other.shown()),
            )
            .allowing(["True", "False"]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(names: &[&str]) -> Request {
        Request::new(
            Measures::Given(
                names
                    .iter()
                    .map(|n| MeasureSpec::Name((*n).to_string()))
                    .collect(),
            ),
            ProfileSpec::Name(Given::Text("trec".into())),
        )
    }

    #[test]
    fn settles_names_once_each_in_order() {
        let settled = settle(&request(&["nDCG@10", "ndcg_cut.10", "AP"])).unwrap();
        let names: Vec<String> = settled.measures.iter().map(Measure::name).collect();
        assert_eq!(names, ["nDCG@10", "AP"]);
        assert_eq!(settled.options.relevance_level, 1);
        assert_eq!(settled.chunk_bytes, DEFAULT_CHUNK_BYTES);
        assert!(!settled.lenient && !settled.options.complete);
    }

    #[test]
    fn options_are_checked_with_their_fields() {
        let mut bad = request(&["AP"]);
        bad.relevance_level = Given::Other("1.5".into());
        let Err(Error::Option(problem)) = settle(&bad) else {
            panic!("an option error")
        };
        assert_eq!(
            problem.message,
            "relevance_level must be an integer; got 1.5"
        );
        assert_eq!(
            (problem.option.as_str(), problem.value.as_str()),
            ("relevance_level", "1.5")
        );
        let mut bad = request(&["AP"]);
        bad.complete = Given::Text("no".into());
        assert_eq!(
            settle(&bad).unwrap_err().to_string(),
            "complete must be True or False; got 'no'"
        );
        let mut bad = request(&["AP"]);
        bad.max_documents = Given::Flag(true);
        assert_eq!(
            settle(&bad).unwrap_err().to_string(),
            "max_documents must be an integer >= 0; got True"
        );
    }

    #[test]
    fn profiles_and_conventions_are_checked_with_their_fields() {
        let mut bad = request(&["AP"]);
        bad.profile = ProfileSpec::Name(Given::Text("trac".into()));
        let Err(Error::Profile(problem)) = settle(&bad) else {
            panic!("a profile error")
        };
        assert_eq!(problem.value, "'trac'");
        assert_eq!(problem.allowed, PROFILE_NAMES);
        let mut bad = request(&["AP"]);
        bad.duplicate_documents = Given::Text("merge".into());
        let Err(Error::Profile(problem)) = settle(&bad) else {
            panic!("a profile error")
        };
        assert_eq!(problem.convention.as_deref(), Some("duplicate_documents"));
        assert_eq!(problem.allowed, ["error", "keep_first", "keep_all"]);
        let fields = vec![
            ("name".to_string(), Given::Text("mine".into())),
            ("gian".to_string(), Given::Text("exp".into())),
        ];
        assert_eq!(
            settle_profile(&ProfileSpec::Fields(fields))
                .unwrap_err()
                .to_string(),
            "unknown convention(s) ['gian']; expected some of ['ap_denominator', \
             'binary_relevance', 'duplicate_documents', 'gain', 'ideal_ranking', 'ideal_ties', \
             'identical_ids', 'missing_query_ranking', 'name', 'ordering', \
             'precision_denominator', 'recall_level_rounding', 'score_precision', \
             'tied_scores', 'unjudged_documents', 'unretrieved_judgements', 'zero_division']"
        );
    }

    #[test]
    fn lists_and_defaults_are_settled() {
        let settled = settle(&request(&["nDCG@10, AP", "P(rel=2)@5,AP", "RR"])).unwrap();
        let names: Vec<String> = settled.measures.iter().map(Measure::name).collect();
        assert_eq!(names, ["nDCG@10", "AP", "P(rel=2)@5", "RR"]);
        let mut weknora = request(&[]);
        weknora.measures = Measures::Defaults;
        weknora.profile = ProfileSpec::Name(Given::Text("weknora".into()));
        let names: Vec<String> = settle(&weknora)
            .unwrap()
            .measures
            .iter()
            .map(Measure::name)
            .collect();
        assert_eq!(names, ["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]);
        // Conventions of another name: trec's defaults.
        let mut mine = request(&[]);
        mine.measures = Measures::Defaults;
        mine.profile = ProfileSpec::Fields(vec![("name".into(), Given::Text("mine".into()))]);
        assert_eq!(settle(&mine).unwrap().measures.len(), 7);
        let mut nothing = request(&[]);
        nothing.measures = Measures::Nothing;
        assert!(settle(&nothing).unwrap().measures.is_empty());
        assert_eq!(
            settle(&request(&[])).unwrap_err().to_string(),
            "no measure given; name at least one, e.g. 'nDCG@10'"
        );
    }

    #[test]
    fn measures_are_checked_against_the_profile() {
        let mut weknora = request(&["Bpref"]);
        weknora.profile = ProfileSpec::Name(Given::Text("weknora".into()));
        let Err(Error::Profile(problem)) = settle(&weknora) else {
            panic!("a profile error")
        };
        assert_eq!(problem.profile.as_deref(), Some("weknora"));
        assert_eq!(problem.value, "Bpref");
        assert!(problem.allowed.contains(&"nDCG".to_string()));
        let Err(Error::UnknownMeasure(problem)) = settle(&request(&["nDGC@10"])) else {
            panic!("an unknown measure")
        };
        assert_eq!(problem.measure, "nDGC@10");
        assert!(problem.suggestions.contains(&"nDCG".to_string()));
    }
}
