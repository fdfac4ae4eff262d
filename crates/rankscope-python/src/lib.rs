//! PyO3 bindings: the private module `rankscope._core`. Converts and delegates to
//! `rankscope-core`; no metric logic here.

// PyO3 hands functions the values it extracted, owned: taking them by reference would only
// add a copy.
#![allow(clippy::needless_pass_by_value)]

use pyo3::prelude::*;

mod answers;
mod arrow;
mod convert;
mod errors;
mod evaluate;
mod fuse;
mod measures;
mod output;
mod prefs;
mod read;
mod results;
mod settle;
mod stats;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // One line per part of the module.
    answers::register(m)?;
    errors::register(m)?;
    evaluate::register(m)?;
    results::register(m)?;
    settle::register(m)?;
    fuse::register(m)?;
    measures::register(m)?;
    output::register(m)?;
    prefs::register(m)?;
    read::register(m)?;
    stats::register(m)?;
    Ok(())
}
