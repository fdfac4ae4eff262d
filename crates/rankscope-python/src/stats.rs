//! Bindings of the statistics core: the randomized Tukey HSD test's permutation loop, run with
//! the GIL released. The score matrix crosses the boundary as native-endian float64 bytes
//! (NumPy's `tobytes()`), and so do the ranges that come back.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use rankscope_core::stats::{permuted_ranges as core_permuted_ranges, Pcg64};

/// The range of the systems' means in each of `rounds` rounds that permute every topic's
/// scores across the systems; `scores` is the topics x systems matrix, row by row, and
/// `state`, `increment` start NumPy's PCG64 stream.
#[pyfunction]
fn permuted_ranges(
    py: Python<'_>,
    scores: PyBackedBytes,
    topics: usize,
    systems: usize,
    rounds: usize,
    state: u128,
    increment: u128,
) -> PyResult<Py<PyBytes>> {
    if scores.len() % 8 != 0 {
        return Err(PyValueError::new_err(format!(
            "scores: {} bytes is not a whole number of float64 values",
            scores.len()
        )));
    }
    let values: Vec<f64> = scores
        .chunks_exact(8)
        .map(|chunk| f64::from_ne_bytes(chunk.try_into().expect("a chunk of 8 bytes")))
        .collect();
    let rng = Pcg64::new(state, increment);
    let ranges = py
        .detach(|| core_permuted_ranges(&values, topics, systems, rounds, &rng))
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    let bytes: Vec<u8> = ranges
        .iter()
        .flat_map(|value| value.to_ne_bytes())
        .collect();
    Ok(PyBytes::new(py, &bytes).unbind())
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(permuted_ranges, module)?)
}
