//! The core's measure registry for Python: the families, names parsed and printed as the core
//! parses and prints them, trec_eval's table and nicknames, the profiles' default measures.

use std::sync::Arc;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rankscope_core::error::{Error, Raised};
use rankscope_core::measures::trec_eval::{self, TrecName};
use rankscope_core::measures::user::{self, Definition, ParamDefault, Scorer};
use rankscope_core::measures::{
    answers, families, Aggregate, Context, Cutoff, CutoffKind, Family, Measure, Reads, Value,
};
use rankscope_core::RankedBatch;

use rankscope_core::measures::listed_names;
use rankscope_core::settle::{parse_spec, parse_specs};

use crate::errors::IntoPyResult;

/// Every family as a dict: name, kind, summary, formula, citation, cutoff kind, parameters
/// (name to the values it takes), aggregate, bounded, aliases (by tool), trec_eval's names,
/// ranx's name, profiles, what it reads.
#[pyfunction(name = "families")]
fn families_(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    families().map(|family| family_dict(py, family)).collect()
}

/// The family of this canonical name, as [`families_`] describes it, or `None`.
#[pyfunction]
fn family<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
    families()
        .find(|f| f.name == name)
        .map(|f| family_dict(py, f))
        .transpose()
}

/// Every family's canonical name, in the order of [`families_`].
#[pyfunction]
fn family_names() -> Vec<&'static str> {
    families().map(|f| f.name).collect()
}

fn family_dict<'py>(py: Python<'py>, family: &Family) -> PyResult<Bound<'py, PyDict>> {
    let item = PyDict::new(py);
    item.set_item("name", family.name)?;
    item.set_item("kind", family.kind.as_str())?;
    item.set_item("summary", family.summary)?;
    item.set_item("formula", family.formula)?;
    item.set_item("citation", family.citation)?;
    item.set_item("cutoff", family.cutoff.as_str())?;
    let params: Vec<(&str, String)> = family
        .params
        .iter()
        .map(|p| (p.name, p.describe()))
        .collect();
    item.set_item("params", params)?;
    item.set_item("aggregate", family.aggregate.as_str())?;
    item.set_item("bounded", family.bounded)?;
    let aliases: Vec<(&str, &str, &str)> = family
        .aliases
        .iter()
        .map(|a| (a.tool.as_str(), a.name, a.preset))
        .collect();
    item.set_item("aliases", aliases)?;
    let trec: Vec<Bound<'py, PyDict>> = family
        .trec_eval
        .iter()
        .map(|t| trec_dict(py, Some(family), t))
        .collect::<PyResult<_>>()?;
    item.set_item("trec_eval", trec)?;
    let ranx = family
        .ranx
        .map(|r| (r.name, r.number.as_str(), r.level.as_str(), r.note));
    item.set_item("ranx", ranx)?;
    item.set_item("profiles", family.profiles.to_vec())?;
    let reads = match family.reads {
        Reads::Grades => "grades",
        Reads::Subtopics => "subtopics",
        Reads::Preferences(_) => "preferences",
    };
    item.set_item("reads", reads)?;
    Ok(item)
}

fn trec_dict<'py>(
    py: Python<'py>,
    family: Option<&Family>,
    name: &TrecName,
) -> PyResult<Bound<'py, PyDict>> {
    let item = PyDict::new(py);
    item.set_item("name", name.name)?;
    item.set_item("family", family.map(|f| f.name))?;
    item.set_item("position", name.position)?;
    item.set_item("style", name.style.as_str())?;
    item.set_item("defaults", name.defaults.to_vec())?;
    item.set_item("summary_only", name.summary_only)?;
    item.set_item("judgements", name.judgements.as_str())?;
    item.set_item("pytrec_eval", name.pytrec_eval)?;
    item.set_item("params", name.params)?;
    item.set_item("undetermined", name.undetermined)?;
    Ok(item)
}

/// trec_eval's measure table in its order, runid and relstring included (family None).
#[pyfunction]
fn trec_eval_table(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    trec_eval::table()
        .into_iter()
        .map(|(family, name)| trec_dict(py, family, name))
        .collect()
}

/// trec_eval's nicknames: (nickname, the trec_eval names it stands for).
#[pyfunction]
fn trec_eval_nicknames() -> Vec<(&'static str, Vec<&'static str>)> {
    trec_eval::NICKNAMES
        .iter()
        .map(|(nickname, names)| (*nickname, names.to_vec()))
        .collect()
}

/// What a profile computes when no measure is named (`kind`: "ranking" or "answer").
#[pyfunction]
#[pyo3(signature = (profile, kind = "ranking"))]
fn default_measures(profile: &str, kind: &str) -> Option<Vec<&'static str>> {
    let names = match kind {
        "answer" => answers::default_measures(profile),
        _ => rankscope_core::profile::default_measures(profile),
    };
    names.map(<[&str]>::to_vec)
}

/// A measure as Python's `Measure` takes it apart: (family, cutoff, parameters as names
/// write them, canonical name, trec_eval's name).
pub(crate) type Parsed = (
    String,
    Option<Py<PyAny>>,
    Vec<(String, String)>,
    String,
    Option<String>,
);

pub(crate) fn parsed(py: Python<'_>, measure: &Measure) -> PyResult<Parsed> {
    let cutoff = match measure.cutoff {
        None => None,
        Some(Cutoff::Count(k)) => Some(k.into_pyobject(py)?.into_any().unbind()),
        Some(Cutoff::Level(level)) => Some(level.into_pyobject(py)?.into_any().unbind()),
    };
    let params = measure
        .params
        .iter()
        .map(|(param, value)| (param.name.to_string(), param.print(value)))
        .collect();
    Ok((
        measure.family.name.to_string(),
        cutoff,
        params,
        measure.name(),
        measure.trec_name(),
    ))
}

/// A measure name (or a `Measure`) parsed by the core: (family, cutoff, parameters as names
/// write them, canonical name, trec_eval's name). Anything else is a `MeasureError`.
#[pyfunction]
fn parse_measure(py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Parsed> {
    let measure = parse_spec(&crate::settle::measure_spec(name)?).or_raise(py)?;
    parsed(py, &measure)
}

/// Several names (or `Measure`s) parsed by the core, each once in the order given; at least
/// one is needed.
#[pyfunction]
fn parse_measures(py: Python<'_>, names: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<Parsed>> {
    let specs = names
        .iter()
        .map(crate::settle::measure_spec)
        .collect::<PyResult<Vec<_>>>()?;
    let measures = parse_specs(&specs).or_raise(py)?;
    measures.iter().map(|m| parsed(py, m)).collect()
}

/// A text split into the names of a list, as `parse_measures` reads it: one name when the
/// whole text is one (whatever commas it holds), else its pieces between commas outside
/// parentheses and braces.
#[pyfunction]
fn split_measures(text: &str) -> Vec<String> {
    listed_names(text).into_iter().map(str::to_string).collect()
}

/// The same for a measure given by its parts (a family name, a cutoff's text, parameters).
#[pyfunction]
#[pyo3(signature = (family, cutoff, params))]
fn build_measure(
    py: Python<'_>,
    family: &str,
    cutoff: Option<&str>,
    params: Vec<(String, String)>,
) -> PyResult<Parsed> {
    let params: Vec<(&str, &str)> = params
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let measure = Measure::new(family, cutoff, &params).or_raise(py)?;
    parsed(py, &measure)
}

/// A parameter's default as Python gives it: a bool, an int, a float, or a list of words
/// (the first the default).
fn param_default(name: &str, value: &Bound<'_, PyAny>) -> PyResult<ParamDefault> {
    if let Ok(flag) = value.cast::<pyo3::types::PyBool>() {
        return Ok(ParamDefault::Flag(flag.is_true()));
    }
    if let Ok(integer) = value.cast::<pyo3::types::PyInt>() {
        return Ok(ParamDefault::Integer(integer.extract()?));
    }
    if let Ok(number) = value.cast::<pyo3::types::PyFloat>() {
        return Ok(ParamDefault::Number(number.value()));
    }
    if let Ok(words) = value.extract::<Vec<String>>() {
        if !value.is_instance_of::<pyo3::types::PyString>() {
            return Ok(ParamDefault::Words(words));
        }
    }
    Err(PyValueError::new_err(format!(
        "the default of parameter {name:?} is a bool, an int, a float or a list of words; \
         got {}",
        value.repr()?
    )))
}

/// Define a family whose values `scorer` computes, replacing the one of the same name: its
/// canonical name, as [`parsed`] shows its measures.
///
/// `scorer(name, params, cutoff, relevance_level, query_ids, grades, offsets, judged,
/// judged_offsets)` is called once per batch: the measure's canonical name, its parameters
/// (every one, defaults included, typed), its cutoff (or None), its relevance level, the
/// batch's query ids, and its arrays as bytes of 64-bit integers in native order (ranked
/// grades, Q + 1 offsets into them, judged grades sorted descending, Q + 1 offsets into
/// them). It returns one float per query (any buffer of doubles, or a sequence).
#[pyfunction]
#[pyo3(signature = (name, summary, formula, origin, cutoff, params, aggregate, bounded, scorer))]
#[allow(clippy::too_many_arguments)]
fn define_measure(
    py: Python<'_>,
    name: String,
    summary: String,
    formula: String,
    origin: String,
    cutoff: &str,
    params: Vec<(String, Bound<'_, PyAny>)>,
    aggregate: &str,
    bounded: bool,
    scorer: Py<PyAny>,
) -> PyResult<String> {
    let cutoff = match cutoff {
        "none" => CutoffKind::None,
        "optional" => CutoffKind::Optional,
        "required" => CutoffKind::Required,
        other => {
            return Err(PyValueError::new_err(format!(
                "cutoff is 'none', 'optional' or 'required'; got {other:?}"
            )))
        }
    };
    let aggregate = match aggregate {
        "mean" => Aggregate::Mean,
        "geometric_mean" => Aggregate::GeometricMean,
        "sum" => Aggregate::Sum,
        other => {
            return Err(PyValueError::new_err(format!(
                "aggregate is 'mean', 'geometric_mean' or 'sum'; got {other:?}"
            )))
        }
    };
    let params = params
        .iter()
        .map(|(key, value)| Ok((key.clone(), param_default(key, value)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let definition = Definition {
        name,
        summary,
        formula,
        origin,
        cutoff,
        params,
        aggregate,
        bounded,
    };
    let family = user::define(&definition, Arc::new(PyScorer { scorer })).or_raise(py)?;
    Ok(family.name.to_string())
}

/// Remove the family defined under `name`; whether there was one.
#[pyfunction]
fn undefine_measure(name: &str) -> bool {
    user::undefine(name)
}

/// A Python callable scoring a user family, batch by batch.
struct PyScorer {
    scorer: Py<PyAny>,
}

impl Scorer for PyScorer {
    fn score(
        &self,
        measure: &Measure,
        batch: &RankedBatch,
        context: &Context<'_>,
    ) -> rankscope_core::Result<Vec<f64>> {
        Python::attach(|py| self.call(py, measure, batch, context))
            .map_err(|error| Error::Raised(Raised::new(error)))
    }
}

impl PyScorer {
    fn call(
        &self,
        py: Python<'_>,
        measure: &Measure,
        batch: &RankedBatch,
        context: &Context<'_>,
    ) -> PyResult<Vec<f64>> {
        let params = PyDict::new(py);
        for param in measure.family.params {
            if param.name == "rel" {
                continue;
            }
            let Some(value) = measure.value(param.name) else {
                continue;
            };
            match value {
                Value::Integer(v) => params.set_item(param.name, v)?,
                Value::Number(v) => params.set_item(param.name, v)?,
                Value::Flag(v) => params.set_item(param.name, v)?,
                Value::Word(v) => params.set_item(param.name, v)?,
                other => params.set_item(param.name, param.print(&other))?,
            }
        }
        let level = context.level(measure.relevance_level());
        let args = (
            measure.name(),
            params,
            measure.cutoff_count(),
            level,
            batch.query_ids.clone(),
            integers(py, batch.grades.iter().copied())?,
            integers(py, batch.offsets.iter().map(|&o| o as i64))?,
            integers(py, batch.judged.iter().copied())?,
            integers(py, batch.judged_offsets.iter().map(|&o| o as i64))?,
        );
        let returned = self.scorer.bind(py).call1(args)?;
        match PyBuffer::<f64>::get(&returned) {
            Ok(buffer) => buffer.to_vec(py),
            Err(_) => returned.extract(),
        }
    }
}

/// 64-bit integers as the bytes of one array, in native order (numpy's `frombuffer` reads
/// them without a copy).
fn integers(
    py: Python<'_>,
    values: impl ExactSizeIterator<Item = i64>,
) -> PyResult<Bound<'_, PyBytes>> {
    PyBytes::new_with(py, values.len() * 8, |buffer| {
        for (chunk, value) in buffer.chunks_exact_mut(8).zip(values) {
            chunk.copy_from_slice(&value.to_ne_bytes());
        }
        Ok(())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(define_measure, m)?)?;
    m.add_function(wrap_pyfunction!(undefine_measure, m)?)?;
    m.add(
        "GEOMETRIC_MEAN_FLOOR",
        rankscope_core::measures::GEOMETRIC_MEAN_FLOOR,
    )?;
    m.add_function(wrap_pyfunction!(families_, m)?)?;
    m.add_function(wrap_pyfunction!(family, m)?)?;
    m.add_function(wrap_pyfunction!(family_names, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_table, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_nicknames, m)?)?;
    m.add_function(wrap_pyfunction!(default_measures, m)?)?;
    m.add_function(wrap_pyfunction!(parse_measure, m)?)?;
    m.add_function(wrap_pyfunction!(parse_measures, m)?)?;
    m.add_function(wrap_pyfunction!(split_measures, m)?)?;
    m.add_function(wrap_pyfunction!(build_measure, m)?)?;
    Ok(())
}
