//! Judgements other than plain qrels, read and evaluated by the core with the GIL released:
//! preference judgements (trec_eval's `-R prefs` and `-R qrels_prefs`) and qrels with
//! judgement groups (`-R qrels_jg`).

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use rankscope_core::evaluate::Evaluation;
use rankscope_core::groups::{evaluate_groups, read_judgement_groups_file};
use rankscope_core::prefs::{evaluate_prefs as core_evaluate_prefs, read_prefs_file, PrefsFormat};

use crate::errors::IntoPyResult;
use crate::evaluate::{per_query, NativeRun};
use crate::results::PerQuery;
use crate::settle::Plan;

/// Per-query values, the unjudged and missing queries, and the warning about unjudged ones.
type Evaluated = (PerQuery, Vec<String>, Vec<String>, Option<String>);

fn evaluated(evaluation: Evaluation) -> Evaluated {
    let warning = evaluation.unjudged_warning();
    let (values, unjudged, missing) = per_query(evaluation);
    (values, unjudged, missing, warning)
}

/// Per-query values of the plan's preference measures of `run` against the judgements in the
/// file at `path` (`format`: "prefs" or "qrels_prefs"), the unjudged and missing queries, and
/// the warning about unjudged queries (if any).
#[pyfunction]
fn evaluate_prefs(
    py: Python<'_>,
    path: PathBuf,
    source: String,
    format: &str,
    run: &NativeRun,
    plan: &Plan,
) -> PyResult<Evaluated> {
    let format = PrefsFormat::parse(format).or_raise(py)?;
    let run = Arc::clone(&run.table);
    let evaluation = py
        .detach(|| {
            let prefs = read_prefs_file(&path, &source, format)?;
            core_evaluate_prefs(&prefs, &run, &plan.measures, &plan.options)
        })
        .or_raise(py)?;
    Ok(evaluated(evaluation))
}

/// Per-query values of the plan's measures of `run` against the qrels with judgement groups at
/// `path`, each query's value the mean over the groups judging it; the unjudged and missing
/// queries and the warning about unjudged queries.
#[pyfunction]
fn evaluate_judgement_groups(
    py: Python<'_>,
    path: PathBuf,
    source: String,
    run: &NativeRun,
    plan: &Plan,
) -> PyResult<Evaluated> {
    let run = Arc::clone(&run.table);
    let evaluation = py
        .detach(|| {
            let groups = read_judgement_groups_file(&path, &source)?;
            evaluate_groups(&groups, &run, &plan.measures, &plan.options)
        })
        .or_raise(py)?;
    Ok(evaluated(evaluation))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_prefs, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_judgement_groups, m)?)?;
    Ok(())
}
