//! Inputs read or converted into the core's tables, and `evaluate` over them, with the GIL
//! released while the core reads and computes.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rankscope_core::evaluate::{evaluate as core_evaluate, EvalOptions};
use rankscope_core::measures::Aggregate;
use rankscope_core::profile::Conventions;
use rankscope_core::table::{Qrels, Run};
use rankscope_core::trec::{self, ReadOptions};

use crate::arrow::{qrels_from_stream, run_from_stream};
use crate::convert;
use crate::errors::IntoPyResult;
use crate::results::PerQuery;

/// Judgements held by the core (read from a file, or converted from Python data).
#[pyclass(frozen, module = "rankscope._core", name = "Qrels")]
pub struct NativeQrels {
    pub table: Arc<Qrels>,
}

#[pymethods]
impl NativeQrels {
    fn __len__(&self) -> usize {
        self.table.len()
    }

    /// Where the judgements came from, for messages.
    #[getter]
    fn source(&self) -> &str {
        &self.table.source
    }
}

/// A run held by the core.
#[pyclass(frozen, module = "rankscope._core", name = "Run")]
pub struct NativeRun {
    pub table: Arc<Run>,
}

#[pymethods]
impl NativeRun {
    fn __len__(&self) -> usize {
        self.table.len()
    }

    /// The run's name (the tag of the first line of a TREC file).
    #[getter]
    fn name(&self) -> &str {
        &self.table.name
    }

    /// Where the results came from, for messages.
    #[getter]
    fn source(&self) -> &str {
        &self.table.source
    }
}

fn qrels(table: Qrels) -> NativeQrels {
    NativeQrels { table: Arc::new(table) }
}

fn run(table: Run) -> NativeRun {
    NativeRun { table: Arc::new(table) }
}

/// The text of the warning about skipped lines, if any were skipped.
type Warning = Option<String>;

/// A TREC qrels file (`path`) or its content (`data`: decompressed, or standard input), and
/// the warning about lines skipped in lenient mode.
#[pyfunction]
#[pyo3(signature = (source, *, path=None, data=None, lenient=false))]
fn read_trec_qrels(
    py: Python<'_>,
    source: String,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyBytes>>,
    lenient: bool,
) -> PyResult<(NativeQrels, Warning)> {
    let options = ReadOptions { lenient, first_line: 1 };
    let parsed = match (&path, &data) {
        (Some(path), None) => py.detach(|| trec::read_qrels_file(path, &source, &options)),
        (None, Some(data)) => {
            let bytes = data.as_bytes();
            py.detach(|| trec::parse_qrels(bytes, &source, &options))
        }
        _ => return Err(PyValueError::new_err("give either path or data")),
    }
    .or_raise(py)?;
    let warning = parsed.skipped.warning(&source);
    Ok((qrels(parsed.table), warning))
}

/// A TREC run file (`path`) or its content (`data`), and the warning about skipped lines.
#[pyfunction]
#[pyo3(signature = (source, *, path=None, data=None, lenient=false))]
fn read_trec_run(
    py: Python<'_>,
    source: String,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyBytes>>,
    lenient: bool,
) -> PyResult<(NativeRun, Warning)> {
    let options = ReadOptions { lenient, first_line: 1 };
    let parsed = match (&path, &data) {
        (Some(path), None) => py.detach(|| trec::read_run_file(path, &source, &options)),
        (None, Some(data)) => {
            let bytes = data.as_bytes();
            py.detach(|| trec::parse_run(bytes, &source, &options))
        }
        _ => return Err(PyValueError::new_err("give either path or data")),
    }
    .or_raise(py)?;
    let warning = parsed.skipped.warning(&source);
    Ok((run(parsed.table), warning))
}

/// `{query_id: {doc_id: grade}}` (any mappings), checked as `Qrels.from_dict` checks it.
#[pyfunction]
#[pyo3(signature = (mapping, source="<dict>"))]
fn qrels_from_dict(mapping: &Bound<'_, PyAny>, source: &str) -> PyResult<NativeQrels> {
    Ok(qrels(convert::qrels_from_mapping(mapping, source)?))
}

/// `{query_id: {doc_id: score}}`, or `{query_id: [doc_id, ...]}` in rank order: the second
/// when every value is a list rather than a mapping.
#[pyfunction]
#[pyo3(signature = (mapping, name="run", source=None))]
fn run_from_dict(
    mapping: &Bound<'_, PyAny>,
    name: &str,
    source: Option<&str>,
) -> PyResult<NativeRun> {
    let table = if convert::holds_lists(mapping)? {
        convert::run_from_lists(mapping, name, source.unwrap_or("<lists>"))?
    } else {
        convert::run_from_mapping(mapping, name, source.unwrap_or("<dict>"))?
    };
    Ok(run(table))
}

/// Judgements from an object with `__arrow_c_stream__` holding the columns query_id, doc_id
/// (strings) and relevance (integers), already validated (a `Qrels` frame).
#[pyfunction]
#[pyo3(signature = (table, source="<qrels>"))]
fn qrels_from_arrow(table: &Bound<'_, PyAny>, source: &str) -> PyResult<NativeQrels> {
    Ok(qrels(qrels_from_stream(table, source)?))
}

/// A run from an object with `__arrow_c_stream__` holding query_id, doc_id (strings) and
/// score (floats), already validated (a `Run` frame).
#[pyfunction]
#[pyo3(signature = (table, name="run", source="<run>"))]
fn run_from_arrow(table: &Bound<'_, PyAny>, name: &str, source: &str) -> PyResult<NativeRun> {
    Ok(run(run_from_stream(table, name, source)?))
}

/// Conventions from the fields of Python's `Conventions` (already validated there), given as
/// `(field, value)` pairs of text, the name among them.
fn conventions(fields: &[(String, String)]) -> rankscope_core::Result<Conventions> {
    let mut conventions = Conventions::profile("trec")?;
    for (field, value) in fields {
        conventions = conventions.with_option(field, value)?;
    }
    Ok(conventions)
}

/// Per-query values of `measures` (canonical names), the unjudged and missing queries.
#[pyfunction]
#[pyo3(signature = (qrels, run, measures, conventions, relevance_level, complete, max_documents))]
fn evaluate(
    py: Python<'_>,
    qrels: &NativeQrels,
    run: &NativeRun,
    measures: Vec<String>,
    conventions: Vec<(String, String)>,
    relevance_level: i64,
    complete: bool,
    max_documents: Option<usize>,
) -> PyResult<(PerQuery, Vec<String>, Vec<String>)> {
    let parsed = rankscope_core::parse_measures(&measures).or_raise(py)?;
    let options = EvalOptions {
        conventions: self::conventions(&conventions).or_raise(py)?,
        relevance_level,
        complete,
        max_documents,
    };
    let (qrels, run) = (Arc::clone(&qrels.table), Arc::clone(&run.table));
    let evaluation = py
        .detach(|| core_evaluate(&qrels, &run, &parsed, &options))
        .or_raise(py)?;
    let aggregates = evaluation.measures.iter().map(|m| m.family.aggregate).collect();
    let values = PerQuery::new(evaluation.query_ids, measures, aggregates, evaluation.values);
    Ok((values, evaluation.unjudged_queries, evaluation.missing_queries))
}

/// The aggregate named as Python names it (`mean`, `geometric_mean`, `sum`, `count`).
pub fn aggregate_named(name: &str) -> PyResult<Aggregate> {
    [Aggregate::Mean, Aggregate::GeometricMean, Aggregate::Sum, Aggregate::Count]
        .into_iter()
        .find(|a| a.as_str() == name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown aggregate {name:?}")))
}

/// Registers this module's functions and classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeQrels>()?;
    m.add_class::<NativeRun>()?;
    m.add_function(wrap_pyfunction!(read_trec_qrels, m)?)?;
    m.add_function(wrap_pyfunction!(read_trec_run, m)?)?;
    m.add_function(wrap_pyfunction!(qrels_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(run_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(qrels_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(run_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    Ok(())
}
