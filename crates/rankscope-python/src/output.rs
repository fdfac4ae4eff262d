//! trec_eval's measure selection and text output, its `-Z` file, and `rankscope evaluate`'s
//! table of results, rendered by the core for the Python command as for the native one.

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankscope_core::measures::parse_measure;
use rankscope_core::measures::trec_eval::Judgements;
use rankscope_core::output::table::{self, Digits, Format, Heading, RunValues};
use rankscope_core::output::trec_eval::{
    check_judgements, grade_refusal, negative_first_query, no_common_queries_stop,
    read_zscores as core_read_zscores, render, select, stop, undetermined_warning, Column, Layout,
    Stop, StopFacts, TrecLine, ZScores, STOP_STATUS,
};
use rankscope_core::trec::non_integer_grade;

use crate::errors::IntoPyResult;
use crate::evaluate::NativeQrels;
use crate::results::PerQuery;

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
/// `summaries[i]` its summary's value and whether it is another line's; `absent` the judged
/// queries a `-Z` summary counts without values (`Layout::absent`).
#[pyfunction]
#[pyo3(signature = (
    lines, query_ids, values, summaries, *, per_query, summary, run_name, relstrings=None,
    zscores=None, absent=0
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
    absent: usize,
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
        absent,
    };
    Ok(py.detach(|| render(&columns, &layout)))
}

/// Refuse the qrels `data` (`source`: the file as named) at their first grade that is not an
/// integer, which trec_eval reads otherwise (a `ParseError` naming the line).
#[pyfunction]
fn trec_eval_check_grades(py: Python<'_>, data: &[u8], source: &str) -> PyResult<()> {
    match non_integer_grade(data) {
        Some(found) => Err(grade_refusal(&found, source)).or_raise(py),
        None => Ok(()),
    }
}

/// Refuse the first of `lines` (printed name, judgements as `trec_eval_lines` names them) that
/// trec_eval computes only from other judgements than `given` (an `OptionError`).
#[pyfunction]
fn trec_eval_check_judgements(
    py: Python<'_>,
    lines: Vec<(String, String)>,
    given: &str,
) -> PyResult<()> {
    let kind = |name: &str| {
        Judgements::named(name)
            .ok_or_else(|| PyValueError::new_err(format!("no judgements named {name:?}")))
    };
    let given = kind(given)?;
    let lines = lines
        .iter()
        .map(|(printed, judgements)| Ok((printed.as_str(), kind(judgements)?)))
        .collect::<PyResult<Vec<_>>>()?;
    check_judgements(lines, given).or_raise(py)
}

/// trec_eval 10's first query evaluated (`-D N.QID`'s `only_query`, if given) where it has only
/// negative grades in `qrels`, for its `-m` arguments `specs` (`collection_size`: its `-N`), and
/// the measure it stops at: `(query id, measure)`, or None (`trec_eval_stop` decides whether it
/// stops there).
#[pyfunction]
fn trec_eval_negative_first_query(
    py: Python<'_>,
    qrels: &NativeQrels,
    specs: Vec<String>,
    collection_size: i64,
    only_query: Option<&str>,
) -> PyResult<Option<(String, String)>> {
    let lines = select(&specs, collection_size, &mut Vec::new()).or_raise(py)?;
    Ok(negative_first_query(&qrels.table, &lines, only_query))
}

/// Where trec_eval 10 stops: `missing_queries` (judged, without results), `query_ids` (those
/// the output prints, byte-wise), `-c` (`complete`), `-D N.QID`'s query (`only_query`),
/// `--fix-trec-eval-quirks`, `trec_eval_negative_first_query`'s answer, the qrels and run
/// files as named. None where it does not stop; else `(shown, message, status)`: `shown` None
/// where it stops before printing anything, else how many of `query_ids` it prints (no
/// summary) before it stops with `message` and the exit status `status`. Raises where
/// `--fix-trec-eval-quirks` makes the stop an error.
#[pyfunction]
#[pyo3(signature = (
    missing_queries, query_ids, *, complete, only_query, fix_quirks, negative_first, qrels, run
))]
#[allow(clippy::too_many_arguments)]
fn trec_eval_stop(
    py: Python<'_>,
    missing_queries: Vec<String>,
    query_ids: Vec<String>,
    complete: bool,
    only_query: Option<&str>,
    fix_quirks: bool,
    negative_first: Option<(String, String)>,
    qrels: &str,
    run: &str,
) -> PyResult<Option<(Option<usize>, String, u8)>> {
    let facts = StopFacts {
        missing_queries: &missing_queries,
        query_ids: &query_ids,
        complete,
        only_query,
        fix_quirks,
        negative_first: negative_first
            .as_ref()
            .map(|(query, measure)| (query.as_str(), measure.as_str())),
        qrels,
        run,
    };
    Ok(match stop(&facts).or_raise(py)? {
        Stop::No => None,
        Stop::BeforePrinting { message, status } => Some((None, message, status)),
        Stop::After { shown, message } => Some((Some(shown), message, STOP_STATUS)),
    })
}

/// Where no query of the run is judged (`error`: that error's message): the message trec_eval
/// stops with at its first judged query of `qrels`, or None under `-c` (`complete`) or
/// `--fix-trec-eval-quirks` (`fix_quirks`), where the error is raised.
#[pyfunction]
#[pyo3(signature = (error, qrels, *, complete, fix_quirks))]
fn trec_eval_no_common_queries(
    error: &str,
    qrels: &NativeQrels,
    complete: bool,
    fix_quirks: bool,
) -> Option<String> {
    no_common_queries_stop(error, &qrels.table, complete, fix_quirks)
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

/// trec_eval's `-Z` file at `path` (`source` names it in messages): `{(query_id, measure):
/// (mean, stddev)}`.
#[pyfunction]
fn read_zscores(py: Python<'_>, path: PathBuf, source: &str) -> PyResult<ZScores> {
    py.detach(|| core_read_zscores(&path, source)).or_raise(py)
}

/// A run as Python hands it to the table: its name, its values, the column of each heading.
type RunTuple<'py> = (String, PyRef<'py, PerQuery>, Vec<usize>);

/// The headings and each run's values, checked: a column for every heading, the first run's
/// aggregates deciding how each heading's values print.
fn table_input<'a>(
    headings: &'a [String],
    runs: &'a [RunTuple<'_>],
) -> PyResult<(Vec<Heading<'a>>, Vec<RunValues<'a>>)> {
    let values = runs
        .iter()
        .map(|(name, per_query, columns)| {
            if columns.len() != headings.len() {
                return Err(PyValueError::new_err(format!(
                    "{} columns for {} headings",
                    columns.len(),
                    headings.len()
                )));
            }
            per_query.run_values(name, columns)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let headings = match runs.first() {
        None => Vec::new(),
        Some((_, per_query, columns)) => headings
            .iter()
            .zip(columns)
            .map(|(name, &index)| Heading {
                name,
                // Checked by `run_values` above.
                aggregate: per_query
                    .aggregate_of(index)
                    .unwrap_or(rankscope_core::measures::Aggregate::Mean),
            })
            .collect(),
    };
    Ok((headings, values))
}

/// `rankscope evaluate`'s header and rows of cells for `runs`, each `(name, per-query values,
/// the column of each heading)`: counts as integers, other values with 4 decimals or, when
/// `exact`, every digit.
#[pyfunction]
#[pyo3(signature = (headings, runs, *, per_query, exact=false))]
fn results_rows(
    headings: Vec<String>,
    runs: Vec<RunTuple<'_>>,
    per_query: bool,
    exact: bool,
) -> PyResult<(Vec<String>, Vec<Vec<String>>)> {
    let (headings, runs) = table_input(&headings, &runs)?;
    let digits = if exact { Digits::Exact } else { Digits::Four };
    Ok(table::rows(&headings, &runs, per_query, digits))
}

/// `rankscope evaluate`'s table of `runs` (as for `results_rows`) in `format`: `text` (the
/// aligned table) or `csv`.
#[pyfunction]
#[pyo3(signature = (headings, runs, *, per_query, format))]
fn format_results(
    headings: Vec<String>,
    runs: Vec<RunTuple<'_>>,
    per_query: bool,
    format: &str,
) -> PyResult<String> {
    let format = match format {
        "text" => Format::Text,
        "csv" => Format::Csv,
        other => {
            return Err(PyValueError::new_err(format!(
                "format_results: no format {other:?}; expected text or csv"
            )))
        }
    };
    let (headings, runs) = table_input(&headings, &runs)?;
    Ok(table::render(&headings, &runs, per_query, format))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_zscores, m)?)?;
    m.add_function(wrap_pyfunction!(results_rows, m)?)?;
    m.add_function(wrap_pyfunction!(format_results, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_lines, m)?)?;
    m.add_function(wrap_pyfunction!(format_trec_eval, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_check_grades, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_check_judgements, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_no_common_queries, m)?)?;
    m.add("TREC_EVAL_STOP_STATUS", STOP_STATUS)?;
    m.add_function(wrap_pyfunction!(trec_eval_undetermined, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_negative_first_query, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_stop, m)?)?;
    Ok(())
}
