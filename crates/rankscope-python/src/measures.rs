//! The core's measure registry for Python: the families `rankscope measures` lists and names
//! parsed as the core parses them.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankscope_core::measures::{Cutoff, FAMILIES};

use crate::errors::IntoPyResult;

/// Every family as a dict: name, summary, formula, citation, cutoff kind, parameters (name
/// to the values it takes), aggregate, bounded, aliases, weknora.
#[pyfunction]
fn families(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    FAMILIES
        .iter()
        .map(|family| {
            let item = PyDict::new(py);
            item.set_item("name", family.name)?;
            item.set_item("summary", family.summary)?;
            item.set_item("formula", family.formula)?;
            item.set_item("citation", family.citation)?;
            item.set_item("cutoff", family.cutoff.as_str())?;
            let params: Vec<(&str, String)> = family
                .params
                .iter()
                .map(|(name, kind)| (*name, kind.describe()))
                .collect();
            item.set_item("params", params)?;
            item.set_item("aggregate", family.aggregate.as_str())?;
            item.set_item("bounded", family.bounded)?;
            item.set_item("aliases", family.aliases.to_vec())?;
            item.set_item("weknora", family.weknora)?;
            Ok(item)
        })
        .collect()
}

/// A measure name parsed by the core: (family, cutoff, parameters, trec_eval name).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn parse_measure(
    py: Python<'_>,
    name: &str,
) -> PyResult<(
    String,
    Option<Py<PyAny>>,
    Vec<(String, String)>,
    Option<String>,
)> {
    let measure = rankscope_core::parse_measure(name).or_raise(py)?;
    let cutoff = match measure.cutoff {
        None => None,
        Some(Cutoff::Count(k)) => Some(k.into_pyobject(py)?.into_any().unbind()),
        Some(Cutoff::Level(level)) => Some(level.into_pyobject(py)?.into_any().unbind()),
    };
    Ok((
        measure.family.name.to_string(),
        cutoff,
        measure.params.clone(),
        measure.trec_name(),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(parse_measure, m)?)?;
    Ok(())
}
