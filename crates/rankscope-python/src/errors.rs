//! Core errors raised as the classes of `rankscope.errors`, with the same fields and messages.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rankscope_core::error::Error;

/// The Python exception for a core error: the class its variant names, built with the
/// message and, for input errors, `source=`, `line=` and `text=` as Python's readers pass them.
pub fn to_py(py: Python<'_>, error: Error) -> PyErr {
    match build(py, &error) {
        Ok(raised) => raised,
        Err(failed) => failed,
    }
}

fn build(py: Python<'_>, error: &Error) -> PyResult<PyErr> {
    let errors = py.import("rankscope.errors")?;
    let class = errors.getattr(error.python_class())?;
    let instance = match error.input_problem() {
        Some(problem) => {
            let options = PyDict::new(py);
            options.set_item("source", &problem.source)?;
            options.set_item("line", problem.line)?;
            options.set_item("text", &problem.text)?;
            class.call((&problem.message,), Some(&options))?
        }
        None => class.call1((error.to_string(),))?,
    };
    Ok(PyErr::from_value(instance))
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
