//! Bindings of the statistics core: the randomized Tukey HSD test's permutation loop, the sign
//! flips and the bootstrap resamples, run with the GIL released; and Student's t distribution. Scores cross the boundary as
//! native-endian float64 bytes (NumPy's `tobytes()`), and so do the values that come back; the
//! generator's state goes in and comes back as NumPy's `PCG64` state holds it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use rankscope_core::stats::resampling::{self, Halves};
use rankscope_core::stats::student;
use rankscope_core::stats::{permuted_ranges as core_permuted_ranges, Pcg64};

/// Float64 values from native-endian bytes.
fn doubles(bytes: &[u8], what: &str) -> PyResult<Vec<f64>> {
    if bytes.len() % 8 != 0 {
        return Err(PyValueError::new_err(format!(
            "{what}: {} bytes is not a whole number of float64 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|chunk| f64::from_ne_bytes(chunk.try_into().expect("a chunk of 8 bytes")))
        .collect())
}

/// Float64 values as native-endian bytes.
fn as_bytes<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|value| value.to_ne_bytes())
        .collect();
    PyBytes::new(py, &bytes)
}

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
    let values = doubles(&scores, "scores")?;
    let rng = Pcg64::new(state, increment);
    let ranges = py
        .detach(|| core_permuted_ranges(&values, topics, systems, rounds, &rng))
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok(as_bytes(py, &ranges).unbind())
}

/// The mean of `differences` under each of `rounds` random sign flips drawn from the PCG64
/// stream at `state`, `increment`; and the state after the draws.
#[pyfunction]
fn sign_flip_means(
    py: Python<'_>,
    differences: PyBackedBytes,
    rounds: usize,
    state: u128,
    increment: u128,
) -> PyResult<(Py<PyBytes>, u128)> {
    let values = doubles(&differences, "differences")?;
    let rng = Pcg64::new(state, increment);
    let means = py.detach(|| resampling::sign_flip_means(&values, rounds, &rng));
    let mut after = rng;
    after.advance((values.len() as u128) * (rounds as u128));
    Ok((as_bytes(py, &means).unbind(), after.state().0))
}

/// The mean of each of `rounds` bootstrap resamples of `values` drawn from the PCG64 stream at
/// `state`, `increment`, with NumPy's 32-bit buffer (`has_uint32`, `uinteger`); and the state
/// and the buffer after the draws.
#[pyfunction]
fn bootstrap_means(
    py: Python<'_>,
    values: PyBackedBytes,
    rounds: usize,
    state: u128,
    increment: u128,
    has_uint32: bool,
    uinteger: u32,
) -> PyResult<(Py<PyBytes>, u128, bool, u32)> {
    let values = doubles(&values, "values")?;
    let rng = Halves {
        rng: Pcg64::new(state, increment),
        held: has_uint32,
        high: uinteger,
    };
    let (means, after) = py
        .detach(|| resampling::bootstrap_means(&values, rounds, rng))
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    let bytes = as_bytes(py, &means).unbind();
    Ok((bytes, after.rng.state().0, after.held, after.high))
}

/// `P(|T| >= |t|)` for Student's t with `degrees` (at least 1) degrees of freedom.
#[pyfunction]
fn t_two_sided(t: f64, degrees: u64) -> PyResult<f64> {
    if degrees == 0 {
        return Err(PyValueError::new_err(
            "Student's t needs at least 1 degree of freedom, got 0",
        ));
    }
    Ok(student::t_two_sided(t, degrees))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(permuted_ranges, module)?)?;
    module.add_function(wrap_pyfunction!(sign_flip_means, module)?)?;
    module.add_function(wrap_pyfunction!(bootstrap_means, module)?)?;
    module.add_function(wrap_pyfunction!(t_two_sided, module)?)
}
