//! rankscope's evaluation core, in pure Rust, knowing nothing of its callers' language.
//!
//! Reading TREC files ([`trec`]), interning ids ([`intern`]), the input tables ([`table`]),
//! preparing a [`batch::RankedBatch`] ([`mod@prepare`]) under a profile's conventions
//! ([`profile`]), the measure registry and kernels ([`measures`]), evaluation and aggregation
//! ([`mod@evaluate`]), streaming in chunks of whole queries ([`stream`]) and rank fusion
//! ([`fuse`]), trec_eval's text output ([`output`]) and the randomized Tukey HSD test's permutation loop ([`stats`]) live here;
//! `rankscope-python` only converts and delegates. Errors ([`error::Error`]) carry
//! structured fields; the bindings map each variant to an exception class. What a caller asks
//! for (measure names, a profile, options) is checked once, by [`settle`].

pub mod answers;
pub mod batch;
pub mod error;
pub mod evaluate;
pub mod fuse;
pub mod groups;
pub mod intern;
pub mod measures;
pub mod output;
mod parallel;
pub mod prefs;
pub mod prepare;
pub mod profile;
pub mod settle;
pub mod stats;
pub mod stream;
pub mod table;
pub mod trec;

pub use batch::{QueryView, RankedBatch, POOLED_UNJUDGED, UNJUDGED};
pub use error::{Error, InputProblem, Result, Skipped};
pub use evaluate::{compute, evaluate, evaluate_with, relevance_strings, EvalOptions, Evaluation};
pub use measures::{families, parse_measure, parse_measures, Family, Measure};
pub use prepare::{prepare, prepare_query, Judgements, PrepareOptions, Prepared};
pub use profile::Conventions;
pub use table::{Qrels, Run};
