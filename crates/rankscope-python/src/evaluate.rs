//! Inputs read or converted into the core's tables, and `evaluate` over them, with the GIL
//! released while the core reads and computes.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rankscope_core::error::{Error, InputProblem};
use rankscope_core::evaluate::{compute, evaluate as core_evaluate, Evaluation};
use rankscope_core::measures::{Aggregate, Measure};
use rankscope_core::prepare::{prepare_query, rank_documents, Judgements};
use rankscope_core::stream::{self, Grouping, StreamOptions};
use rankscope_core::table::{Qrels, Run};
use rankscope_core::trec;

use crate::arrow::{qrels_from_stream, run_from_stream};
use crate::convert;
use crate::errors::IntoPyResult;
use crate::read::{ranked_table, read_trec, ArrowTable, PyFileReader, Warning};
use crate::results::PerQuery;
use crate::settle::Plan;

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

    /// The judged query ids, in the order first judged.
    fn query_ids(&self) -> Vec<String> {
        self.table.queries.names().map(str::to_owned).collect()
    }

    /// The same judgements without subtopics (trec_eval's reading of qrels).
    fn without_subtopics(&self) -> NativeQrels {
        let table = if self.table.has_subtopics() {
            Arc::new(self.table.without_subtopics())
        } else {
            Arc::clone(&self.table)
        };
        NativeQrels { table }
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

    /// The query ids of the run (those given with an empty ranking too), in the order first
    /// seen.
    fn query_ids(&self) -> Vec<String> {
        self.table.queries.names().map(str::to_owned).collect()
    }

    /// The run's name (the tag of the last line of a TREC file, as trec_eval names it).
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
    NativeQrels {
        table: Arc::new(table),
    }
}

fn run(table: Run) -> NativeRun {
    NativeRun {
        table: Arc::new(table),
    }
}

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
    let read = trec::read_qrels_file;
    let (table, warning) = read_trec(py, &source, path, data, lenient, read, trec::parse_qrels)?;
    Ok((qrels(table), warning))
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
    let read = trec::read_run_file;
    let (table, warning) = read_trec(py, &source, path, data, lenient, read, trec::parse_run)?;
    Ok((run(table), warning))
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
/// (strings) and relevance (integers), and subtopic (strings) for diversity qrels, already
/// validated (a `Qrels` frame).
#[pyfunction]
#[pyo3(signature = (table, source="<qrels>"))]
fn qrels_from_arrow(table: &Bound<'_, PyAny>, source: &str) -> PyResult<NativeQrels> {
    Ok(qrels(qrels_from_stream(table, source)?))
}

/// A run from an object with `__arrow_c_stream__` holding query_id, doc_id (strings) and
/// score (floats), already validated (a `Run` frame), and the queries it holds with an empty
/// ranking (rows cannot say so).
#[pyfunction]
#[pyo3(signature = (table, name="run", source="<run>", empty_queries=Vec::new()))]
fn run_from_arrow(
    table: &Bound<'_, PyAny>,
    name: &str,
    source: &str,
    empty_queries: Vec<String>,
) -> PyResult<NativeRun> {
    Ok(run(run_from_stream(table, name, source, &empty_queries)?))
}

/// Per-query values of the plan's measures, the unjudged and missing queries.
#[pyfunction]
fn evaluate(
    py: Python<'_>,
    qrels: &NativeQrels,
    run: &NativeRun,
    plan: &Plan,
) -> PyResult<(PerQuery, Vec<String>, Vec<String>)> {
    let (qrels, run) = (Arc::clone(&qrels.table), Arc::clone(&run.table));
    let evaluation = py
        .detach(|| core_evaluate(&qrels, &run, &plan.measures, &plan.options))
        .or_raise(py)?;
    Ok(per_query(evaluation))
}

/// An evaluation's per-query values (labelled with the measures' canonical names), its
/// unjudged queries and its missing queries.
pub(crate) fn per_query(evaluation: Evaluation) -> (PerQuery, Vec<String>, Vec<String>) {
    let names = evaluation.measures.iter().map(Measure::name).collect();
    let aggregates = evaluation
        .measures
        .iter()
        .map(|m| m.family.aggregate)
        .collect();
    let values = PerQuery::new(evaluation.query_ids, names, aggregates, evaluation.values);
    (
        values,
        evaluation.unjudged_queries,
        evaluation.missing_queries,
    )
}

/// Every measure's value for one query given as lists (`(doc_id, grade)` judgements,
/// `(doc_id, score)` ranking): the single-question paths (WeKnora's API, the service).
#[pyfunction]
#[pyo3(signature = (judged, ranking, plan, query_id="q"))]
fn evaluate_query(
    py: Python<'_>,
    judged: Vec<(String, i64)>,
    ranking: Vec<(String, f64)>,
    plan: &Plan,
    query_id: &str,
) -> PyResult<Vec<f64>> {
    let (conventions, relevance_level) = (&plan.options.conventions, plan.options.relevance_level);
    let judged: Vec<(&str, i64)> = judged.iter().map(|(d, g)| (d.as_str(), *g)).collect();
    let ranking: Vec<(&str, f64)> = ranking.iter().map(|(d, s)| (d.as_str(), *s)).collect();
    let batch =
        prepare_query(&judged, &ranking, conventions, relevance_level, query_id).or_raise(py)?;
    let values = compute(&batch, &plan.measures, conventions, relevance_level).or_raise(py)?;
    Ok(values.into_iter().map(|column| column[0]).collect())
}

/// How the lines of a streamed run are grouped (`grouped`, `partitioned` or `detect`).
fn grouping(name: &str) -> PyResult<Grouping> {
    match name {
        "grouped" => Ok(Grouping::Grouped),
        "partitioned" => Ok(Grouping::Partitioned),
        "detect" => Ok(Grouping::Detect),
        other => Err(PyValueError::new_err(format!("unknown grouping {other:?}"))),
    }
}

/// What a streamed evaluation gives Python: the values, the unjudged and missing queries, the
/// run's name and the warnings to show.
type StreamedValues = (PerQuery, Vec<String>, Vec<String>, String, Vec<String>);

/// Per-query values of a TREC run evaluated in chunks of whole queries (memory bounded by the
/// plan's `chunk_bytes`): the file at `path`, or the binary files `open()` returns (called
/// again when an ungrouped run must be read a second time). Also the unjudged and missing
/// queries, the run's name and the warnings to show (skipped lines, the fall-back to
/// partition files).
#[pyfunction]
#[pyo3(signature = (qrels, source, plan, *, grouping, path=None, open=None))]
fn evaluate_stream(
    py: Python<'_>,
    qrels: &NativeQrels,
    source: String,
    plan: &Plan,
    grouping: &str,
    path: Option<PathBuf>,
    open: Option<Py<PyAny>>,
) -> PyResult<StreamedValues> {
    let stream_options = StreamOptions {
        chunk_bytes: plan.chunk_bytes,
        lenient: plan.lenient,
        grouping: self::grouping(grouping)?,
        ..StreamOptions::default()
    };
    let (measures, options) = (&plan.measures, &plan.options);
    let table = Arc::clone(&qrels.table);
    let streamed = match (path, open) {
        (Some(path), None) => py.detach(|| {
            stream::evaluate_run_file(&table, &path, &source, measures, options, &stream_options)
        }),
        (None, Some(open)) => py.detach(|| {
            let reopen = || {
                Python::attach(|py| open.call0(py).map(PyFileReader::new)).map_err(|error| {
                    Error::Input(InputProblem::new(error.to_string()).in_source(&source))
                })
            };
            stream::evaluate_stream(&table, reopen, &source, measures, options, &stream_options)
        }),
        _ => return Err(PyValueError::new_err("give either path or open")),
    }
    .or_raise(py)?;
    let mut warnings: Vec<String> = streamed.skipped.warning(&source).into_iter().collect();
    warnings.extend(streamed.warnings);
    let run_name = streamed.evaluation.run_name.clone();
    let (values, unjudged, missing) = per_query(streamed.evaluation);
    Ok((values, unjudged, missing, run_name, warnings))
}

/// The aggregate by name (`mean`, `geometric_mean`, `sum`, `count`, `mean_of_values`).
pub fn aggregate_named(name: &str) -> PyResult<Aggregate> {
    [
        Aggregate::Mean,
        Aggregate::GeometricMean,
        Aggregate::Sum,
        Aggregate::Count,
        Aggregate::MeanOfValues,
    ]
    .into_iter()
    .find(|a| a.as_str() == name)
    .ok_or_else(|| PyValueError::new_err(format!("unknown aggregate {name:?}")))
}

/// trec_eval's relstring of each query evaluated under the plan's options: `(query id,
/// text)` pairs.
#[pyfunction]
fn relevance_strings(
    py: Python<'_>,
    qrels: &NativeQrels,
    run: &NativeRun,
    plan: &Plan,
    length: usize,
) -> PyResult<Vec<(String, String)>> {
    let (qrels, run) = (Arc::clone(&qrels.table), Arc::clone(&run.table));
    py.detach(|| rankscope_core::relevance_strings(&qrels, &run, &plan.options, length))
        .or_raise(py)
}

/// Each query of `run` (judged or not), its documents in the order the plan's conventions rank
/// them (cut at its `max_documents`), with their grades in `qrels` (none without): an Arrow
/// table of `query_id`, `doc_id`, `score`, `rank`, `relevance` (null if not judged), `judged`.
#[pyfunction]
#[pyo3(signature = (run, plan, qrels=None))]
fn ranked_documents(
    py: Python<'_>,
    run: &NativeRun,
    plan: &Plan,
    qrels: Option<&NativeQrels>,
) -> PyResult<ArrowTable> {
    let run = Arc::clone(&run.table);
    let qrels = qrels.map_or_else(
        || Arc::new(Qrels::new("<no judgements>")),
        |q| Arc::clone(&q.table),
    );
    py.detach(|| {
        let options = &plan.options;
        let judgements = Judgements::new(&qrels, &options.conventions, options.relevance_level)?;
        let listed = rank_documents(&judgements, &run, &options.prepare_options())?;
        Ok(ranked_table(&run, &listed))
    })
    .or_raise(py)
}

/// Registers this module's functions and classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "STREAM_THRESHOLD_BYTES",
        rankscope_core::stream::STREAM_THRESHOLD_BYTES,
    )?;
    m.add(
        "CHUNKED_MIN_BYTES",
        rankscope_core::stream::CHUNKED_MIN_BYTES,
    )?;
    m.add_function(wrap_pyfunction!(relevance_strings, m)?)?;
    m.add_class::<NativeQrels>()?;
    m.add_class::<NativeRun>()?;
    m.add_function(wrap_pyfunction!(read_trec_qrels, m)?)?;
    m.add_function(wrap_pyfunction!(read_trec_run, m)?)?;
    m.add_function(wrap_pyfunction!(qrels_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(run_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(qrels_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(run_from_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_stream, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_query, m)?)?;
    m.add_function(wrap_pyfunction!(ranked_documents, m)?)?;
    Ok(())
}
