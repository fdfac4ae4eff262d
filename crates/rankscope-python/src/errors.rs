//! Core errors raised as the classes of `rankscope.errors`: each variant of
//! [`rankscope_core::Error`] maps onto one class here (the core knows none of them), and its
//! structured fields become the exception's attributes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankscope_core::error::{in_cli_terms as core_in_cli_terms, Error, FusionProblem};

/// The class of `rankscope.errors` a core error is raised as (fusion's problems are raised as
/// `ValueError`s that `rankscope.fuse` words with the runs' ids).
fn class_name(error: &Error) -> Option<&'static str> {
    Some(match error {
        Error::Input(_) => "InputError",
        Error::Parse(_) => "ParseError",
        Error::DuplicateDocument(_) => "DuplicateDocumentError",
        Error::EmptyInput(_) => "EmptyInputError",
        Error::NoCommonQueries(_) => "NoCommonQueriesError",
        Error::NotGrouped(_) => "NotGroupedError",
        Error::Measure(_) => "MeasureError",
        Error::UnknownMeasure(_) => "UnknownMeasureError",
        Error::Profile(_) => "ProfileError",
        Error::Option(_) => "OptionError",
        Error::Fusion(_) | Error::Raised(_) => return None,
    })
}

/// The Python exception for a core error, with the variant's fields as keyword arguments.
pub fn to_py(py: Python<'_>, error: Error) -> PyErr {
    match build(py, &error) {
        Ok(raised) => raised,
        Err(failed) => failed,
    }
}

fn build(py: Python<'_>, error: &Error) -> PyResult<PyErr> {
    if let Error::Raised(raised) = error {
        // What Python raised in a user-defined measure, back as it was.
        return Ok(match raised.0.downcast_ref::<PyErr>() {
            Some(raised) => raised.clone_ref(py),
            None => pyo3::exceptions::PyRuntimeError::new_err(raised.0.to_string()),
        });
    }
    let Some(name) = class_name(error) else {
        return Ok(fusion_error(error));
    };
    let class = py.import("rankscope.errors")?.getattr(name)?;
    let fields = PyDict::new(py);
    let message = match error {
        Error::Measure(problem) | Error::UnknownMeasure(problem) => {
            fields.set_item("measure", &problem.measure)?;
            fields.set_item("part", &problem.part)?;
            fields.set_item("suggestions", problem.suggestions.clone())?;
            &problem.message
        }
        Error::Profile(problem) => {
            fields.set_item("profile", &problem.profile)?;
            fields.set_item("convention", &problem.convention)?;
            fields.set_item("value", &problem.value)?;
            fields.set_item("allowed", problem.allowed.clone())?;
            &problem.message
        }
        Error::Option(problem) => {
            fields.set_item("option", &problem.option)?;
            fields.set_item("value", &problem.value)?;
            fields.set_item("allowed", problem.allowed.clone())?;
            &problem.message
        }
        other => {
            let problem = other
                .input_problem()
                .expect("every other variant is an input error");
            fields.set_item("source", &problem.source)?;
            fields.set_item("line", problem.line)?;
            fields.set_item("text", &problem.text)?;
            let subject = problem.subject.as_deref();
            fields.set_item("query", subject.map(|s| &s.query))?;
            fields.set_item("document", subject.map(|s| &s.document))?;
            &problem.message
        }
    };
    Ok(PyErr::from_value(class.call((message,), Some(&fields))?))
}

/// A fusion problem as a `ValueError` whose args are `(message, kind, run, query, doc)`, so
/// that `rankscope.fuse` can name the run, the query and the document by their ids.
fn fusion_error(error: &Error) -> PyErr {
    let message = error.to_string();
    let (kind, run, query, doc) = match error {
        Error::Fusion(FusionProblem::DuplicateDocument { run, query, doc }) => {
            ("duplicate", *run, *query, *doc)
        }
        Error::Fusion(FusionProblem::NonFiniteScore { run, query, doc }) => {
            ("non_finite", *run, *query, *doc)
        }
        Error::Fusion(FusionProblem::Overflow { query, doc }) => ("overflow", 0, *query, *doc),
        _ => ("parameter", 0, 0, 0),
    };
    PyValueError::new_err((message, kind, run, query, doc))
}

/// `Result` of the core to `PyResult`.
pub trait IntoPyResult<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for rankscope_core::error::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|error| to_py(py, error))
    }
}

/// An error's message in the command line's terms: `option` the option an option error names
/// (else None), `of_qrels` whether the error is in the qrels (else in a run).
#[pyfunction]
#[pyo3(signature = (message, option, of_qrels))]
fn in_cli_terms(message: &str, option: Option<&str>, of_qrels: bool) -> String {
    core_in_cli_terms(message, option, of_qrels)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(in_cli_terms, m)?)?;
    Ok(())
}
