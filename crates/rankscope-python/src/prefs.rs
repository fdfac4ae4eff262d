//! Preference judgements (trec_eval's `-R prefs` and `-R qrels_prefs`): read and evaluated by
//! the core, with the GIL released.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use rankscope_core::evaluate::EvalOptions;
use rankscope_core::prefs::{evaluate_prefs as core_evaluate_prefs, read_prefs_file, PrefsFormat};
use rankscope_core::profile::Conventions;

use crate::errors::IntoPyResult;
use crate::evaluate::NativeRun;
use crate::results::PerQuery;

/// Per-query values, the unjudged and missing queries, and the warning about unjudged ones.
type Evaluated = (PerQuery, Vec<String>, Vec<String>, Option<String>);

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
    let warning = evaluation.unjudged_warning();
    let aggregates = evaluation
        .measures
        .iter()
        .map(|m| m.family.aggregate)
        .collect();
    let values = PerQuery::new(
        evaluation.query_ids,
        measures,
        aggregates,
        evaluation.values,
    );
    Ok((
        values,
        evaluation.unjudged_queries,
        evaluation.missing_queries,
        warning,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_prefs, m)?)?;
    Ok(())
}
