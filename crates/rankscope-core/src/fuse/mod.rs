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
//!
//! Errors are [`Error::Fusion`](crate::Error::Fusion), with the runs, queries and documents
//! given by index and code.

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
