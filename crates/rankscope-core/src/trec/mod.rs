//! TREC qrels (`query_id iteration doc_id relevance`) and runs (`query_id Q0 doc_id rank score
//! run_tag`), read straight into [`Qrels`](crate::table::Qrels) and
//! [`Run`](crate::table::Run) columns.
//!
//! Fields are separated by any run of whitespace (spaces, tabs, `\r`, `\v`, `\f`: C's `isspace`
//! without the newline, as trec_eval); lines that are blank or whose first non-blank character
//! is `#` are skipped; a run line may carry more fields after the tag (trec_eval ignores them), a
//! qrels line may not. A qrels line's second field (trec_eval's iteration, the subtopic of
//! diversity qrels) is kept as the row's subtopic; a run's `Q0` and rank fields are read past.
//!
//! A plain file is mapped (or read, where it cannot be) a window of whole lines at a time. A
//! window of a few MiB or more is cut at line boundaries into pieces parsed in parallel (rayon);
//! each piece interns its query ids, and the pieces are appended to the text's first piece in
//! file order (the copying shared out over the threads too), so query codes still follow first
//! appearance. Errors name the file, the 1-based line and the line's text, with the messages
//! every reader of the project uses; in lenient mode bad lines are skipped and counted.
//!
//! One concern a file: `source` takes files in (maps, windows, pipes), `fields` splits lines into
//! fields, `numbers` reads scores and grades, `grades` finds the grades trec_eval reads
//! otherwise, `parse` turns lines into rows (runs, qrels, lenient mode, messages).

mod fields;
mod grades;
mod numbers;
mod parse;
mod source;

pub(crate) use fields::split_fields;
pub use grades::{non_integer_grade, NonIntegerGrade};
pub(crate) use numbers::parse_integer;
pub use numbers::{parse_grade, parse_score};
pub(crate) use parse::{byte_problem, empty_error, parse_run_rows_into, Spare};
pub use parse::{parse_qrels, parse_qrels_rows, parse_run, parse_run_rows};
pub use source::{check_input_file, last_run_tag, read_qrels_file, read_run_file};
pub(crate) use source::{io_error, open_file};

use crate::error::Skipped;

/// The fields of a run line, as messages name them.
pub const RUN_FIELDS: &str = "query_id Q0 doc_id rank score run_tag";

/// The fields of a qrels line, as messages name them.
pub const QRELS_FIELDS: &str = "query_id iteration doc_id relevance";

const BOM: &[u8] = b"\xef\xbb\xbf";

/// How to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Skip malformed lines (counted in [`Parsed::skipped`]) instead of failing at the first.
    pub lenient: bool,
    /// The line number of the buffer's first line in the file it came from (a chunk of a file
    /// starts further down).
    pub first_line: u64,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            lenient: false,
            first_line: 1,
        }
    }
}

/// A table read from a file, and the malformed lines skipped in lenient mode.
#[derive(Debug, Clone)]
pub struct Parsed<T> {
    /// The rows read.
    pub table: T,
    /// Lines skipped (lenient mode only).
    pub skipped: Skipped,
    /// Qrels: the first row whose grade trec_eval reads otherwise than rankscope, as
    /// [`non_integer_grade`] finds it in the text (of a text read without error, the same);
    /// `None` for runs.
    pub non_integer_grade: Option<NonIntegerGrade>,
}

/// The bytes after a UTF-8 byte order mark, if the data starts with one.
pub fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(BOM).unwrap_or(data)
}

#[cfg(test)]
mod window_tests;

#[cfg(test)]
mod tests;
