//! trec_eval's measure selection and text output, rendered by the core for the Python
//! command as for the native one.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankscope_core::measures::parse_measure;
use rankscope_core::output::trec_eval::{
    non_integer_grade as core_non_integer_grade, render, select, undetermined_warning, Column,
    Layout, TrecLine,
};

use crate::errors::IntoPyResult;

/// A line as Python holds it: (printed name, measure's canonical name or None, relstring's
/// length or None, the judgements it is computed from).
type LineTuple = (String, Option<String>, Option<usize>, &'static str);

/// trec_eval's output lines for `-m` arguments, in its order; `warn(message)` is called for
/// each warning, as it is met (before an error ends the selection).
#[pyfunction]
fn trec_eval_lines(
    py: Python<'_>,
    specs: Vec<String>,
    collection_size: i64,
    warn: Bound<'_, PyAny>,
) -> PyResult<Vec<LineTuple>> {
    let mut warnings = Vec::new();
    let lines = select(&specs, collection_size, &mut warnings);
    for warning in warnings {
        warn.call1((warning,))?;
    }
    Ok(lines
        .or_raise(py)?
        .into_iter()
        .map(|line| {
            (
                line.printed,
                line.measure.map(|m| m.name()),
                line.relstring,
                line.judgements.as_str(),
            )
        })
        .collect())
}

/// The text trec_eval prints: `lines` as (printed, measure name or None, relstring length or
/// None), `values[i]` line i's value per query (empty for runid and relstring),
/// `summaries[i]` its summary's value and whether it is another line's.
#[pyfunction]
#[pyo3(signature = (
    lines, query_ids, values, summaries, *, per_query, summary, run_name, relstrings=None,
    zscores=None
))]
#[allow(clippy::too_many_arguments)]
fn format_trec_eval(
    py: Python<'_>,
    lines: Vec<(String, Option<String>, Option<usize>)>,
    query_ids: Vec<String>,
    values: Vec<Vec<f64>>,
    summaries: Vec<(f64, bool)>,
    per_query: bool,
    summary: bool,
    run_name: String,
    relstrings: Option<HashMap<String, String>>,
    zscores: Option<HashMap<(String, String), (f64, f64)>>,
) -> PyResult<String> {
    let lines = lines
        .into_iter()
        .map(|(printed, measure, relstring)| {
            let measure = measure.as_deref().map(parse_measure).transpose()?;
            Ok(TrecLine {
                relstring,
                ..TrecLine::new(printed, measure)
            })
        })
        .collect::<rankscope_core::Result<Vec<TrecLine>>>()
        .or_raise(py)?;
    let needed = if per_query || zscores.is_some() {
        query_ids.len()
    } else {
        0
    };
    let short = lines
        .iter()
        .zip(&values)
        .any(|(line, values)| line.measure.is_some() && values.len() < needed);
    if values.len() != lines.len() || summaries.len() != lines.len() || short {
        return Err(PyValueError::new_err(
            "format_trec_eval: one list of values and one summary per line, a value per query",
        ));
    }
    let columns: Vec<Column<'_>> = lines
        .iter()
        .zip(&values)
        .zip(&summaries)
        .map(|((line, values), &(summary, summary_of_other))| Column {
            line,
            values,
            summary,
            summary_of_other,
        })
        .collect();
    let layout = Layout {
        query_ids: &query_ids,
        per_query,
        summary,
        run_name: &run_name,
        relstrings: relstrings.as_ref(),
        zscores: zscores.as_ref(),
    };
    Ok(py.detach(|| render(&columns, &layout)))
}

/// The first qrels line whose grade is not an integer: (line number, grade, line, what
/// trec_eval reads it as), or None.
#[pyfunction]
fn non_integer_grade(data: &[u8]) -> Option<(usize, String, String, i64)> {
    core_non_integer_grade(data)
        .map(|found| (found.line, found.grade, found.text, found.as_trec_eval))
}

/// The warning for the line `printed` of `measure` where trec_eval's own value is not
/// determined by its input, or None.
#[pyfunction]
fn trec_eval_undetermined(
    py: Python<'_>,
    printed: String,
    measure: &str,
) -> PyResult<Option<String>> {
    let measure = parse_measure(measure).or_raise(py)?;
    Ok(undetermined_warning(&TrecLine::new(printed, Some(measure))))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trec_eval_lines, m)?)?;
    m.add_function(wrap_pyfunction!(format_trec_eval, m)?)?;
    m.add_function(wrap_pyfunction!(non_integer_grade, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_undetermined, m)?)?;
    Ok(())
}
