//! rankscope's evaluation core, in pure Rust (no Python).
//!
//! Reading TREC files, interning ids, preparing a `RankedBatch`, the measure kernels and their
//! aggregation live here; `rankscope-python` only converts and delegates.

pub mod intern;
