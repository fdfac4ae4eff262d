//! `rankscope evaluate`'s results as text: the aligned table it prints (what the terminal
//! table prints when piped), the rows the other renderers lay out, and CSV.
//!
//! A row per run (the aggregates), or with per-query rows a row per run and query, each run's
//! aggregates last as the query `all`. Counts (measures whose aggregate is a sum or a count)
//! print as integers; every other value with 4 decimals, or, for files other programs read,
//! with every digit (the shortest text that reads back as the same number). Both command lines
//! (the Python one and the native executable) print through here.

use std::fmt::Write as _;

use crate::error::float_text;
use crate::measures::Aggregate;

use super::trec_eval::count_text;

/// A measure's column: its heading and how its values combine (which decides how they print).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Heading<'a> {
    /// The heading printed (the measure's canonical name).
    pub name: &'a str,
    /// How the measure's per-query values combine.
    pub aggregate: Aggregate,
}

/// One run's values, as the table shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct RunValues<'a> {
    /// The run's name.
    pub run_name: &'a str,
    /// The evaluated queries, in the order their rows print.
    pub query_ids: &'a [String],
    /// `columns[m][q]`: the value of heading `m` for query `q`.
    pub columns: Vec<&'a [f64]>,
    /// `aggregates[m]`: heading `m`'s aggregate over the queries.
    pub aggregates: Vec<f64>,
}

/// How many digits values other than counts keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// 4 decimals, as trec_eval prints them.
    Four,
    /// Every digit: the shortest text that reads back as the same number.
    Exact,
}

/// The format of a table other than the aligned text one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The aligned text table.
    Text,
    /// CSV: a header line, then a line per row, every value exact.
    Csv,
}

/// A value as its column prints it.
///
/// ```
/// use rankscope_core::measures::Aggregate;
/// use rankscope_core::output::table::{cell, Digits};
///
/// assert_eq!(cell(0.123_456, Aggregate::Mean, Digits::Four), "0.1235");
/// assert_eq!(cell(0.123_456, Aggregate::Mean, Digits::Exact), "0.123456");
/// assert_eq!(cell(1500.0, Aggregate::Sum, Digits::Exact), "1500");
/// assert_eq!(cell(f64::NAN, Aggregate::Mean, Digits::Four), "nan");
/// ```
pub fn cell(value: f64, aggregate: Aggregate, digits: Digits) -> String {
    match (aggregate, digits) {
        (Aggregate::Sum | Aggregate::Count, _) => count_text(value),
        (_, Digits::Exact) => float_text(value),
        (_, Digits::Four) if value.is_nan() => "nan".into(),
        (_, Digits::Four) => format!("{value:.4}"),
    }
}

/// The header and the rows of cells: `run`, `query` with per-query rows, then a cell per
/// heading.
pub fn rows(
    headings: &[Heading<'_>],
    runs: &[RunValues<'_>],
    per_query: bool,
    digits: Digits,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["run".to_string()];
    if per_query {
        header.push("query".into());
    }
    header.extend(headings.iter().map(|heading| heading.name.to_string()));
    let mut rows = Vec::new();
    for run in runs {
        if per_query {
            for (q, query_id) in run.query_ids.iter().enumerate() {
                let mut row = vec![run.run_name.to_string(), query_id.clone()];
                row.extend(
                    headings
                        .iter()
                        .zip(&run.columns)
                        .map(|(heading, column)| cell(column[q], heading.aggregate, digits)),
                );
                rows.push(row);
            }
        }
        let mut row = vec![run.run_name.to_string()];
        if per_query {
            row.push("all".into());
        }
        row.extend(
            headings
                .iter()
                .zip(&run.aggregates)
                .map(|(heading, &value)| cell(value, heading.aggregate, digits)),
        );
        rows.push(row);
    }
    (header, rows)
}

/// The table in `format`.
///
/// ```
/// use rankscope_core::measures::Aggregate;
/// use rankscope_core::output::table::{render, Format, Heading, RunValues};
///
/// let headings = [
///     Heading { name: "AP", aggregate: Aggregate::Mean },
///     Heading { name: "NumRet", aggregate: Aggregate::Sum },
/// ];
/// let queries = ["q1".to_string(), "q2".to_string()];
/// let run = RunValues {
///     run_name: "bm25",
///     query_ids: &queries,
///     columns: vec![&[0.5, 0.25], &[10.0, 5.0]],
///     aggregates: vec![0.375, 15.0],
/// };
/// assert_eq!(
///     render(&headings, &[run.clone()], false, Format::Text),
///     "run       AP  NumRet\nbm25  0.3750      15\n"
/// );
/// assert_eq!(
///     render(&headings, &[run], true, Format::Csv),
///     "run,query,AP,NumRet\nbm25,q1,0.5,10\nbm25,q2,0.25,5\nbm25,all,0.375,15\n"
/// );
/// ```
pub fn render(
    headings: &[Heading<'_>],
    runs: &[RunValues<'_>],
    per_query: bool,
    format: Format,
) -> String {
    match format {
        Format::Text => {
            let (header, rows) = rows(headings, runs, per_query, Digits::Four);
            text(&header, &rows, if per_query { 2 } else { 1 })
        }
        Format::Csv => {
            let (header, rows) = rows(headings, runs, per_query, Digits::Exact);
            csv(&header, &rows)
        }
    }
}

/// The rows aligned in columns two spaces apart: the first `labels` columns (run, query) to
/// the left, the values to the right, no space at a line's end.
pub fn text(header: &[String], rows: &[Vec<String>], labels: usize) -> String {
    let width = |text: &str| text.chars().count();
    let mut widths: Vec<usize> = header.iter().map(|cell| width(cell)).collect();
    for row in rows {
        for (column, cell) in widths.iter_mut().zip(row) {
            *column = (*column).max(width(cell));
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, (cell, &column)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(column - width(cell));
            if i < labels {
                line.push_str(cell);
                line.push_str(&pad);
            } else {
                line.push_str(&pad);
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The rows as CSV (Python's `csv` module's dialect: a field quoted only when it holds a comma,
/// a quote or a line break, its quotes doubled; lines end with `\n`).
pub fn csv(header: &[String], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        for (i, field) in row.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if field.contains([',', '"', '\n', '\r']) {
                // Infallible: writing to a String.
                let _ = write!(out, "\"{}\"", field.replace('"', "\"\""));
            } else {
                out.push_str(field);
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings() -> [Heading<'static>; 2] {
        [
            Heading {
                name: "nDCG@10",
                aggregate: Aggregate::Mean,
            },
            Heading {
                name: "NumQ",
                aggregate: Aggregate::Count,
            },
        ]
    }

    #[test]
    fn values_print_with_four_decimals_counts_as_integers() {
        assert_eq!(cell(1.0, Aggregate::Mean, Digits::Four), "1.0000");
        assert_eq!(cell(0.000_05, Aggregate::Mean, Digits::Four), "0.0001");
        // Halfway in binary: rounded to even, as Python's format rounds it.
        assert_eq!(cell(0.031_25, Aggregate::Mean, Digits::Four), "0.0312");
        assert_eq!(cell(f64::INFINITY, Aggregate::Mean, Digits::Four), "inf");
        assert_eq!(cell(2.5, Aggregate::Sum, Digits::Four), "2");
        assert_eq!(cell(f64::NAN, Aggregate::Count, Digits::Four), "nan");
        assert_eq!(cell(1e-5, Aggregate::Mean, Digits::Exact), "1e-05");
        assert_eq!(cell(0.1, Aggregate::GeometricMean, Digits::Exact), "0.1");
    }

    #[test]
    fn per_query_rows_then_the_run_s_aggregates() {
        let queries = ["101".to_string(), "102".to_string()];
        let runs = [
            RunValues {
                run_name: "a-long-run-name",
                query_ids: &queries,
                columns: vec![&[0.5, 1.0], &[1.0, 1.0]],
                aggregates: vec![0.75, 2.0],
            },
            RunValues {
                run_name: "b",
                query_ids: &queries[..1],
                columns: vec![&[f64::NAN], &[1.0]],
                aggregates: vec![f64::NAN, 1.0],
            },
        ];
        assert_eq!(
            render(&headings(), &runs, true, Format::Text),
            "run              query  nDCG@10  NumQ\n\
             a-long-run-name  101     0.5000     1\n\
             a-long-run-name  102     1.0000     1\n\
             a-long-run-name  all     0.7500     2\n\
             b                101        nan     1\n\
             b                all        nan     1\n"
        );
        assert_eq!(
            render(&headings(), &runs[1..], false, Format::Text),
            "run  nDCG@10  NumQ\nb        nan     1\n"
        );
    }

    #[test]
    fn labels_pad_to_the_left_without_trailing_space() {
        let header = ["run".to_string(), "x".to_string()];
        let rows = [vec!["é".to_string(), "1".to_string()]];
        assert_eq!(text(&header, &rows, 2), "run  x\né    1\n");
    }

    #[test]
    fn csv_quotes_only_what_needs_it() {
        let header = ["run".to_string(), "AP".to_string()];
        let rows = [
            vec!["a,b".to_string(), "0.5".to_string()],
            vec!["say \"x\"".to_string(), "1".to_string()],
        ];
        assert_eq!(
            csv(&header, &rows),
            "run,AP\n\"a,b\",0.5\n\"say \"\"x\"\"\",1\n"
        );
    }
}
