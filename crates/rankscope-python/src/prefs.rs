//! Judgements other than plain qrels, read and evaluated by the core with the GIL released:
//! preference judgements (trec_eval's `-R prefs` and `-R qrels_prefs`) and qrels with
//! judgement groups (`-R qrels_jg`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use rankscope_core::evaluate::{EvalOptions, Evaluation};
use rankscope_core::groups::{evaluate_groups, read_judgement_groups_file};
use rankscope_core::prefs::{evaluate_prefs as core_evaluate_prefs, read_prefs_file, PrefsFormat};
use rankscope_core::profile::Conventions;

use crate::errors::IntoPyResult;
use crate::evaluate::{eval_options, per_query, NativeRun};
use crate::results::PerQuery;

/// Per-query values, the unjudged and missing queries, and the warning about unjudged ones.
type Evaluated = (PerQuery, Vec<String>, Vec<String>, Option<String>);

fn evaluated(evaluation: Evaluation, measures: Vec<String>) -> Evaluated {
    let warning = evaluation.unjudged_warning();
    let (values, unjudged, missing) = per_query(evaluation, measures);
    (values, unjudged, missing, warning)
}

/// Per-query values of the preference `measures` (canonical names) of `run` against the
/// judgements in the file at `path` (`format`: "prefs" or "qrels_prefs"), the unjudged and
/// missing queries, and the warning about unjudged queries (if any).
#[pyfunction]
#[pyo3(signature = (path, source, format, run, measures, complete=false, max_documents=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate_prefs(
    py: Python<'_>,
    path: PathBuf,
    source: String,
    format: &str,
    run: &NativeRun,
    measures: Vec<String>,
    complete: bool,
    max_documents: Option<usize>,
) -> PyResult<Evaluated> {
    let format = PrefsFormat::parse(format).or_raise(py)?;
    let parsed = rankscope_core::parse_measures(&measures).or_raise(py)?;
    let conventions = Conventions::profile("trec").or_raise(py)?;
    let options = EvalOptions {
        complete,
        max_documents,
        ..EvalOptions::new(conventions)
    };
    let run = Arc::clone(&run.table);
    let evaluation = py
        .detach(|| {
            let prefs = read_prefs_file(&path, &source, format)?;
            core_evaluate_prefs(&prefs, &run, &parsed, &options)
        })
        .or_raise(py)?;
    Ok(evaluated(evaluation, measures))
}

/// Per-query values of `measures` of `run` against the qrels with judgement groups at `path`,
/// each query's value the mean over the groups judging it; the unjudged and missing queries
/// and the warning about unjudged queries.
#[pyfunction]
#[pyo3(signature = (path, source, run, measures, conventions, relevance_level, complete, max_documents))]
#[allow(clippy::too_many_arguments)]
fn evaluate_judgement_groups(
    py: Python<'_>,
    path: PathBuf,
    source: String,
    run: &NativeRun,
    measures: Vec<String>,
    conventions: Vec<(String, String)>,
    relevance_level: i64,
    complete: bool,
    max_documents: Option<usize>,
) -> PyResult<Evaluated> {
    let parsed = rankscope_core::parse_measures(&measures).or_raise(py)?;
    let options = eval_options(py, &conventions, relevance_level, complete, max_documents)?;
    let run = Arc::clone(&run.table);
    let evaluation = py
        .detach(|| {
            let groups = read_judgement_groups_file(&path, &source)?;
            evaluate_groups(&groups, &run, &parsed, &options)
        })
        .or_raise(py)?;
    Ok(evaluated(evaluation, measures))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_prefs, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_judgement_groups, m)?)?;
    Ok(())
}
