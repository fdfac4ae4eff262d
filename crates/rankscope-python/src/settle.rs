//! What Python asks of an evaluation, handed to the core as given and settled there once
//! ([`rankscope_core::settle`]): a `Plan` holds the parsed measures and the settled options,
//! and every evaluating function of this module takes one.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyString, PyTuple};
use rankscope_core::evaluate::EvalOptions;
use rankscope_core::profile::{Conventions, FieldValue, CONVENTIONS, PROFILE_NAMES};
use rankscope_core::settle::{
    settle, settle_profile, Given, MeasureSpec, Measures, ProfileSpec, Request,
};
use rankscope_core::Measure;

use crate::errors::IntoPyResult;
use crate::measures::{parsed, Parsed};

/// A Python value as the core takes an option: its type, and its `repr()` for messages.
fn given(value: Option<&Bound<'_, PyAny>>) -> PyResult<Given> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Given::Absent);
    };
    if value.is_instance_of::<PyBool>() {
        return Ok(Given::Flag(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(integer) = value.extract::<i64>() {
            return Ok(Given::Integer(integer));
        }
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Given::Text(text.to_str()?.to_string()));
    }
    Ok(Given::Other(value.repr()?.to_str()?.to_string()))
}

/// A measure as Python gives it: a name, a `Measure` (a `(family, cutoff, params)` tuple), or
/// anything else (refused by the core with its `repr()`).
pub(crate) fn measure_spec(item: &Bound<'_, PyAny>) -> PyResult<MeasureSpec> {
    if let Ok(name) = item.cast::<PyString>() {
        return Ok(MeasureSpec::Name(name.to_str()?.to_string()));
    }
    if let Ok(tuple) = item.cast::<PyTuple>() {
        if tuple.len() == 3 {
            if let Ok(family) = tuple.get_item(0)?.extract::<String>() {
                let cutoff = tuple.get_item(1)?;
                let cutoff = if cutoff.is_none() {
                    None
                } else {
                    Some(cutoff.repr()?.to_str()?.to_string())
                };
                let params: Vec<(String, String)> = tuple.get_item(2)?.extract()?;
                return Ok(MeasureSpec::Parts {
                    family,
                    cutoff,
                    params,
                });
            }
        }
    }
    Ok(MeasureSpec::Other(item.repr()?.to_str()?.to_string()))
}

/// A profile as Python gives it: a name, or the `(field, value)` pairs of a `Conventions`.
fn profile_spec(profile: &Bound<'_, PyAny>) -> PyResult<ProfileSpec> {
    if let Ok(fields) = profile.cast::<PyList>() {
        let fields = fields
            .iter()
            .map(|pair| {
                let (field, value): (String, Bound<'_, PyAny>) = pair.extract()?;
                Ok((field, given(Some(&value))?))
            })
            .collect::<PyResult<_>>()?;
        return Ok(ProfileSpec::Fields(fields));
    }
    Ok(ProfileSpec::Name(given(Some(profile))?))
}

/// Conventions as `(field, value)` pairs.
type Fields = Vec<(&'static str, Py<PyAny>)>;

/// A convention: its field, what it decides, its values and what each means.
type ConventionRow = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

/// The fields of conventions as Python's `Conventions` holds them: the name, then every
/// convention (`binary_relevance` a bool, the others strings).
fn fields(py: Python<'_>, conventions: &Conventions) -> PyResult<Fields> {
    let mut out = vec![(
        "name",
        conventions
            .name
            .clone()
            .into_pyobject(py)?
            .into_any()
            .unbind(),
    )];
    for (field, value) in conventions.fields() {
        let value = match value {
            FieldValue::Text(text) => text.into_pyobject(py)?.into_any().unbind(),
            FieldValue::Flag(flag) => flag.into_pyobject(py)?.to_owned().into_any().unbind(),
        };
        out.push((field, value));
    }
    Ok(out)
}

/// An evaluation's request settled by the core: the measures parsed once (repeats dropped),
/// the conventions with the caller's changes, every option checked.
#[pyclass(frozen, module = "rankscope._core", name = "Plan")]
pub struct Plan {
    pub measures: Vec<Measure>,
    pub options: EvalOptions,
    pub chunk_bytes: usize,
    pub lenient: bool,
}

impl Plan {
    /// Every measure's canonical name, as the per-query values are labelled.
    pub fn names(&self) -> Vec<String> {
        self.measures.iter().map(Measure::name).collect()
    }
}

#[pymethods]
impl Plan {
    /// The measures: (family, cutoff, parameters, canonical name, trec_eval's name) each.
    #[getter]
    fn measures(&self, py: Python<'_>) -> PyResult<Vec<Parsed>> {
        self.measures.iter().map(|m| parsed(py, m)).collect()
    }

    /// The settled conventions' fields, the name first.
    #[getter]
    fn conventions(&self, py: Python<'_>) -> PyResult<Fields> {
        fields(py, &self.options.conventions)
    }

    #[getter]
    fn relevance_level(&self) -> i64 {
        self.options.relevance_level
    }

    #[getter]
    fn complete(&self) -> bool {
        self.options.complete
    }

    #[getter]
    fn max_documents(&self) -> Option<usize> {
        self.options.max_documents
    }

    #[getter]
    fn chunk_bytes(&self) -> usize {
        self.chunk_bytes
    }

    #[getter]
    fn lenient(&self) -> bool {
        self.lenient
    }
}

/// Settle what an evaluation is asked: `measures` (names or `Measure` tuples; None for none,
/// or the profile's defaults with `defaults=True`), `profile` (a name, or a `Conventions`'
/// `(field, value)` pairs) and the options, as given.
#[pyfunction]
#[pyo3(signature = (
    measures, profile, *, defaults=false, duplicate_documents=None, relevance_level=None,
    max_documents=None, chunk_bytes=None, complete=None, lenient=None
))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    measures: Option<Vec<Bound<'_, PyAny>>>,
    profile: &Bound<'_, PyAny>,
    defaults: bool,
    duplicate_documents: Option<&Bound<'_, PyAny>>,
    relevance_level: Option<&Bound<'_, PyAny>>,
    max_documents: Option<&Bound<'_, PyAny>>,
    chunk_bytes: Option<&Bound<'_, PyAny>>,
    complete: Option<&Bound<'_, PyAny>>,
    lenient: Option<&Bound<'_, PyAny>>,
) -> PyResult<Plan> {
    let measures = match measures {
        Some(items) => Measures::Given(items.iter().map(measure_spec).collect::<PyResult<_>>()?),
        None if defaults => Measures::Defaults,
        None => Measures::Nothing,
    };
    let request = Request {
        duplicate_documents: given(duplicate_documents)?,
        relevance_level: given(relevance_level)?,
        max_documents: given(max_documents)?,
        chunk_bytes: given(chunk_bytes)?,
        complete: given(complete)?,
        lenient: given(lenient)?,
        ..Request::new(measures, profile_spec(profile)?)
    };
    let settled = settle(&request).or_raise(py)?;
    Ok(Plan {
        measures: settled.measures,
        options: settled.options,
        chunk_bytes: settled.chunk_bytes,
        lenient: settled.lenient,
    })
}

/// The conventions of a profile (a name, or `(field, value)` pairs to check), as fields.
#[pyfunction]
fn conventions(py: Python<'_>, profile: &Bound<'_, PyAny>) -> PyResult<Fields> {
    let conventions = settle_profile(&profile_spec(profile)?).or_raise(py)?;
    fields(py, &conventions)
}

/// Every built-in profile: its name and its conventions' fields.
#[pyfunction]
fn profiles(py: Python<'_>) -> PyResult<Vec<(&'static str, Fields)>> {
    PROFILE_NAMES
        .iter()
        .map(|name| {
            let conventions = Conventions::profile(name).or_raise(py)?;
            Ok((*name, fields(py, &conventions)?))
        })
        .collect()
}

/// What each convention decides and the values it allows (each with what it means; none for
/// a truth value), in the order of the fields.
#[pyfunction]
fn convention_table() -> Vec<ConventionRow> {
    CONVENTIONS
        .iter()
        .map(|c| (c.name, c.summary, c.values.to_vec()))
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Plan>()?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(conventions, m)?)?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    m.add_function(wrap_pyfunction!(convention_table, m)?)?;
    Ok(())
}
