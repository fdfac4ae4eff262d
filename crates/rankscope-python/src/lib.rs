//! PyO3 bindings: the private module `rankscope._core`. Converts and delegates to
//! `rankscope-core`; no metric logic here.

use pyo3::prelude::*;

/// Number of distinct ids among `ids`, interned by the core (a smoke check of the binding).
#[pyfunction]
fn count_distinct(ids: Vec<String>) -> usize {
    let mut interner = rankscope_core::intern::Interner::new();
    for id in &ids {
        interner.intern(id);
    }
    interner.len()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count_distinct, m)?)?;
    Ok(())
}
