//! Rank fusion: normalisations and fusion methods over several runs, with ranx's semantics.
//!
//! Queries and documents are dense codes (`u32`); document codes follow the byte order of the
//! document ids ([`SortedIds`]), because ties are broken by document id.
//!
//! * [`Rankings::from_rows`] groups one run's rows by query and ranks them with the `trec`
//!   rule: score descending, ties by document id descending. A query a run does not hold is an
//!   empty ranking (the run retrieved nothing for it).
//! * [`normalize`] rescales every query's scores of every run (ranx's `min-max`,
//!   `min-max-inverted`, `max`, `sum`, `zmuv`, `rank` and `borda`).
//! * [`fuse`] combines the runs query by query ([`Method`]: ranx's 25 methods) and ranks the
//!   fused documents with the same `trec` rule.
//! * [`train`] estimates what the trained methods need from the runs' hits on judged queries.
//!
//! Every fused score is computed with the operations of ranx 0.3, in the same order (sums run
//! over the runs in their order, starting from 0), so the scores agree to the last bit with
//! ranx given the same rankings.

mod ids;
mod methods;
mod normalize;
mod rankings;
mod train;

pub use ids::SortedIds;
pub use methods::{fuse, Method};
pub use normalize::{normalize, Norm};
pub use rankings::Rankings;
pub use train::{hit_lists, train, Training};

use std::fmt;

/// What can go wrong while fusing: bad input rows or parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum FuseError {
    /// A document appears twice in one query's ranking of one run.
    DuplicateDocument { run: usize, query: u32, doc: u32 },
    /// A score is NaN or infinite.
    NonFiniteScore { run: usize, query: u32, doc: u32 },
    /// A code is out of the range the caller declared.
    CodeOutOfRange {
        what: &'static str,
        code: u32,
        limit: usize,
    },
    /// Column lengths differ.
    LengthMismatch { run: usize },
    /// A fused score overflowed to infinity.
    Overflow { query: u32, doc: u32 },
    /// A parameter is missing or out of range.
    Parameter(String),
}

impl fmt::Display for FuseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FuseError::DuplicateDocument { run, query, doc } => {
                write!(
                    f,
                    "run {run}: document {doc} appears twice in query {query}"
                )
            }
            FuseError::NonFiniteScore { run, query, doc } => {
                write!(
                    f,
                    "run {run}: score of document {doc} in query {query} is not finite"
                )
            }
            FuseError::CodeOutOfRange { what, code, limit } => {
                write!(f, "{what} code {code} is out of range (expected < {limit})")
            }
            FuseError::LengthMismatch { run } => {
                write!(
                    f,
                    "run {run}: query, document and score columns differ in length"
                )
            }
            FuseError::Overflow { query, doc } => {
                write!(
                    f,
                    "fused score of document {doc} in query {query} overflowed"
                )
            }
            FuseError::Parameter(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for FuseError {}
