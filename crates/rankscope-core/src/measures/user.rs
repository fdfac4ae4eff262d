//! Families defined at run time, by the users of a binding: the registry's one extension point.
//!
//! A user family is a [`Family`] like every other (its names parse through the same grammar,
//! its parameters are typed and checked the same way, it lists in `rankscope measures` and
//! aggregates like a built-in), but its values come from a [`Scorer`] the binding hands over
//! with it instead of a kernel of the core: [`crate::evaluate::compute`] asks the scorer once
//! per batch for one value per query, after the built-in kernels. The core knows nothing of
//! the language the scorer calls; an error the scorer raises travels back unchanged
//! ([`Error::Raised`]).
//!
//! Defining a family again under the same name replaces it (as a notebook's cell run twice
//! does); a measure parsed before keeps the definition it was parsed with. A name of a
//! built-in family (or one of its aliases) is refused.

use std::sync::{Arc, PoisonError, RwLock};

use super::{
    Aggregate, Context, CutoffKind, Family, Kind, Measure, Param, ParamKind, Scalar, REL,
    TREC_PROFILES,
};
use crate::batch::RankedBatch;
use crate::error::{quoted, Error, Result};

/// What computes a user family's values: one call per batch, one value per query.
pub trait Scorer: Send + Sync {
    /// The value of `measure` for every query of `batch`, in the batch's order.
    fn score(
        &self,
        measure: &Measure,
        batch: &RankedBatch,
        context: &Context<'_>,
    ) -> Result<Vec<f64>>;
}

/// A parameter of a user family, and its default.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamDefault {
    /// An integer (of either sign).
    Integer(i64),
    /// A finite number.
    Number(f64),
    /// `True` or `False`.
    Flag(bool),
    /// One of these words; the first is the default.
    Words(Vec<String>),
}

/// What a binding defines: the family's description, its parameters with their defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The canonical name (letters, digits, `_` and `-`, starting with a letter).
    pub name: String,
    /// One line: what the measure is.
    pub summary: String,
    /// How it is computed (the function's documentation, say).
    pub formula: String,
    /// Where it comes from (the function that scores it).
    pub origin: String,
    /// Whether `@k` is refused, optional or required (counts only).
    pub cutoff: CutoffKind,
    /// The parameters, in the order names print them (`rel=` is every family's already).
    pub params: Vec<(String, ParamDefault)>,
    /// How per-query values combine.
    pub aggregate: Aggregate,
    /// Whether values lie in [0, 1].
    pub bounded: bool,
}

struct Defined {
    family: &'static Family,
    scorer: Arc<dyn Scorer>,
    current: bool,
}

/// Every definition ever made (a replaced one stays for the measures parsed with it).
static DEFINED: RwLock<Vec<Defined>> = RwLock::new(Vec::new());

/// The families defined now, in the order they were first defined.
pub fn families() -> Vec<&'static Family> {
    let defined = DEFINED.read().unwrap_or_else(PoisonError::into_inner);
    defined
        .iter()
        .filter(|d| d.current)
        .map(|d| d.family)
        .collect()
}

/// The scorer of a user family (any definition, current or replaced).
pub fn scorer(family: &'static Family) -> Option<Arc<dyn Scorer>> {
    let defined = DEFINED.read().unwrap_or_else(PoisonError::into_inner);
    defined
        .iter()
        .find(|d| std::ptr::eq(d.family, family))
        .map(|d| Arc::clone(&d.scorer))
}

/// Register a family, replacing the one defined under the same name (case-insensitive).
///
/// The family's strings live as long as the process: definitions are few and made by hand.
///
/// ```
/// use std::sync::Arc;
/// use rankscope_core::measures::user::{define, Definition, ParamDefault, Scorer};
/// use rankscope_core::measures::{Aggregate, Context, CutoffKind, Measure};
/// use rankscope_core::{parse_measure, RankedBatch, Result};
///
/// struct Retrieved;
/// impl Scorer for Retrieved {
///     fn score(&self, _: &Measure, batch: &RankedBatch, _: &Context<'_>) -> Result<Vec<f64>> {
///         Ok((0..batch.num_queries()).map(|q| batch.query(q).grades.len() as f64).collect())
///     }
/// }
/// let definition = Definition {
///     name: "Retrieved".into(),
///     summary: "documents retrieved".into(),
///     formula: "|ranking|".into(),
///     origin: "doctest".into(),
///     cutoff: CutoffKind::Optional,
///     params: vec![("alpha".into(), ParamDefault::Number(0.5))],
///     aggregate: Aggregate::Sum,
///     bounded: false,
/// };
/// define(&definition, Arc::new(Retrieved)).unwrap();
/// assert_eq!(parse_measure("retrieved(alpha=0.25)@10").unwrap().name(), "Retrieved(alpha=0.25)@10");
/// assert_eq!(parse_measure("Retrieved(alpha=0.5)").unwrap().name(), "Retrieved");
/// ```
pub fn define(definition: &Definition, scorer: Arc<dyn Scorer>) -> Result<&'static Family> {
    check(definition)?;
    let mut defined = DEFINED.write().unwrap_or_else(PoisonError::into_inner);
    let built_in = super::built_in_families()
        .find(|f| f.names().any(|n| n.eq_ignore_ascii_case(&definition.name)));
    if let Some(family) = built_in {
        let message = if family.name.eq_ignore_ascii_case(&definition.name) {
            format!(
                "{} is a built-in measure; give yours another name",
                quoted(&definition.name)
            )
        } else {
            format!(
                "{} names the built-in measure {}; give yours another name",
                quoted(&definition.name),
                family.name
            )
        };
        return Err(Error::measure(definition.name.as_str(), message));
    }
    let family: &'static Family = Box::leak(Box::new(family_of(definition)));
    for old in defined.iter_mut() {
        if old.family.name.eq_ignore_ascii_case(family.name) {
            old.current = false;
        }
    }
    defined.push(Defined {
        family,
        scorer,
        current: true,
    });
    Ok(family)
}

/// Remove the family defined under `name`, if any (measures parsed with it keep scoring);
/// whether there was one.
pub fn undefine(name: &str) -> bool {
    let mut defined = DEFINED.write().unwrap_or_else(PoisonError::into_inner);
    let mut found = false;
    for old in defined.iter_mut() {
        if old.current && old.family.name.eq_ignore_ascii_case(name) {
            old.current = false;
            found = true;
        }
    }
    found
}

/// Whether `text` is a family's or a parameter's name: a letter, then letters, digits, `_`
/// or `-` (a parameter: no `-`).
fn is_name(text: &str, hyphen: bool) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (hyphen && c == '-'))
}

fn check(definition: &Definition) -> Result<()> {
    let name = definition.name.as_str();
    let refuse = |message: String| Err(Error::measure(name, message));
    if !is_name(name, true) {
        return refuse(format!(
            "a measure's name is a letter, then letters, digits, '_' or '-'; got {}",
            quoted(name)
        ));
    }
    if !matches!(
        definition.cutoff,
        CutoffKind::None | CutoffKind::Optional | CutoffKind::Required
    ) {
        return refuse(format!(
            "{name}: a defined measure's cutoff is 'none', 'optional' or 'required'; got {}",
            quoted(definition.cutoff.as_str())
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (param, default) in &definition.params {
        if !is_name(param, false) {
            return refuse(format!(
                "{name}: a parameter's name is a letter, then letters, digits or '_'; got {}",
                quoted(param)
            ));
        }
        if param == REL.name {
            return refuse(format!(
                "{name}: rel= is every measure's parameter already (the relevance level it \
                 is given)"
            ));
        }
        if seen.contains(&param.as_str()) {
            return refuse(format!("{name}: parameter {} given twice", quoted(param)));
        }
        seen.push(param);
        match default {
            ParamDefault::Number(value) if !value.is_finite() => {
                return refuse(format!(
                    "{name}: the default of {param} must be a finite number; got {value}"
                ));
            }
            ParamDefault::Words(words) if words.is_empty() => {
                return refuse(format!(
                    "{name}: {param} needs at least one word to choose from"
                ));
            }
            ParamDefault::Words(words) => {
                if let Some(bad) = words.iter().find(|w| w.is_empty() || !is_word(w)) {
                    return refuse(format!(
                        "{name}: the words of {param} are letters, digits, '_', '-' and '.'; \
                         got {}",
                        quoted(bad)
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn is_word(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

fn family_of(definition: &Definition) -> Family {
    let mut params: Vec<Param> = definition
        .params
        .iter()
        .map(|(name, default)| {
            let name = leak(name);
            match default {
                ParamDefault::Integer(v) => {
                    Param::with_default(name, ParamKind::Integer, Scalar::Integer(*v))
                }
                ParamDefault::Number(v) => {
                    Param::with_default(name, ParamKind::Number, Scalar::Number(*v))
                }
                ParamDefault::Flag(v) => {
                    Param::with_default(name, ParamKind::Flag, Scalar::Flag(*v))
                }
                ParamDefault::Words(words) => {
                    let words: Vec<&'static str> = words.iter().map(|w| leak(w)).collect();
                    let words: &'static [&'static str] = Box::leak(words.into_boxed_slice());
                    Param::with_default(name, ParamKind::Words(words), Scalar::Word(words[0]))
                }
            }
        })
        .collect();
    params.push(REL);
    Family {
        name: leak(&definition.name),
        kind: Kind::User,
        summary: leak(&definition.summary),
        formula: leak(&definition.formula),
        citation: leak(&definition.origin),
        cutoff: definition.cutoff,
        params: Box::leak(params.into_boxed_slice()),
        aggregate: definition.aggregate,
        bounded: definition.bounded,
        profiles: TREC_PROFILES,
        ..Family::DEFAULTS
    }
}
