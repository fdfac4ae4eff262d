//! The core's measure registry for Python: the families, names parsed and printed as the core
//! parses and prints them, trec_eval's table and nicknames, the profiles' default measures.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankscope_core::measures::trec_eval::{self, TrecName};
use rankscope_core::measures::{answers, families, Cutoff, Family, Measure, Reads};

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
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
