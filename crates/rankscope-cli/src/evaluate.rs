//! `rankscope evaluate` served natively: its common options as the Python command reads them,
//! the core's settling of measures and options, its reader, evaluation and output.
//!
//! [`serve`] prints and returns the exit status only for what it serves byte for byte: TREC
//! files (by name and first line, as the Python command detects them), the measures (`-m`),
//! `--profile`, `-l`, `-c`, `-M`, `-q`, `--no-stream`, the text table, CSV and trec_eval's
//! format, written to standard output when it is not a terminal (there the Python command
//! draws its own table). Its warnings are the core's, shown as the Python command shows them;
//! so are its errors (a missing file or a directory, a malformed line, an empty file, an
//! unknown measure, an option out of range...), in the command line's terms as the core words
//! them for both doors ([`Error::in_cli_terms`]), met in the order the Python command meets them. For
//! anything else it returns `None` before printing anything, and the command is handed to the
//! Python command line, which says what it says about it.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use rankscope_core::error::Error;
use rankscope_core::evaluate::{evaluate, EvalOptions, Evaluation};
use rankscope_core::measures::Measure;
use rankscope_core::output::table::{self, Format, Heading, RunValues};
use rankscope_core::output::trec_eval::{render, Column, Layout, TrecLine};
use rankscope_core::profile::Conventions;
use rankscope_core::settle::{
    parse_specs, settle, Given, MeasureSpec, Measures, ProfileSpec, Request,
};
use rankscope_core::stream::{
    evaluate_run_file, Grouping, StreamOptions, CHUNKED_MIN_BYTES, STREAM_THRESHOLD_BYTES,
};
use rankscope_core::table::Qrels;
use rankscope_core::trec::{read_qrels_file, read_run_file, Parsed, ReadOptions};

use crate::args::{exit_status, fail, head, integer, print, Argument};

/// How much of a file's start is looked at to tell its format.
const HEAD_BYTES: u64 = 64 * 1024;

/// The output formats this door serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Table,
    Csv,
    Trec,
}

/// The options of `rankscope evaluate` this door serves.
#[derive(Debug, Clone, PartialEq)]
struct Options {
    qrels: String,
    runs: Vec<String>,
    measures: Vec<String>,
    profile: String,
    relevance_level: i64,
    complete: bool,
    max_documents: Option<i64>,
    per_query: bool,
    whole: bool,
    format: Output,
}

/// An option's value, for the options that take one.
enum Takes {
    Measure,
    Profile,
    Level,
    MaxDocuments,
    Format,
    InputFormat,
    Engine,
}

/// The flags (`-q`, `-c`, `--no-stream`), by their short letter or long name.
fn flag(options: &mut Options, name: &str) -> Option<()> {
    match name {
        "q" | "per-query" => options.per_query = true,
        "c" | "complete" => options.complete = true,
        "no-stream" => options.whole = true,
        _ => return None,
    }
    Some(())
}

/// The options that take a value, by their short letter or long name.
fn takes(name: &str) -> Option<Takes> {
    Some(match name {
        "m" | "measure" => Takes::Measure,
        "profile" => Takes::Profile,
        "l" | "relevance-level" => Takes::Level,
        "M" | "max-documents" => Takes::MaxDocuments,
        "f" | "format" => Takes::Format,
        "qrels-format" | "run-format" => Takes::InputFormat,
        "engine" => Takes::Engine,
        _ => return None,
    })
}

fn set(options: &mut Options, what: &Takes, value: &str) -> Option<()> {
    match what {
        Takes::Measure => options.measures.push(value.to_string()),
        Takes::Profile => options.profile = value.to_string(),
        Takes::Level => options.relevance_level = integer(value)?,
        Takes::MaxDocuments => options.max_documents = Some(integer(value)?),
        Takes::Format => {
            options.format = match value {
                "table" => Output::Table,
                "csv" => Output::Csv,
                "trec" => Output::Trec,
                _ => return None,
            }
        }
        // TREC files are read either way; other formats by the Python command.
        Takes::InputFormat => (value == "trec").then_some(())?,
        Takes::Engine => (value == "memory").then_some(())?,
    }
    Some(())
}

/// The options, when every argument is one this door serves.
fn parse(arguments: &[OsString]) -> Option<Options> {
    let mut options = Options {
        qrels: String::new(),
        runs: Vec::new(),
        measures: Vec::new(),
        profile: "trec".to_string(),
        relevance_level: 1,
        complete: false,
        max_documents: None,
        per_query: false,
        whole: false,
        format: Output::Table,
    };
    let mut positional = Vec::new();
    crate::args::arguments(arguments, takes, |argument| match argument {
        Argument::Value(what, value) => set(&mut options, &what, value),
        Argument::Flag { name, .. } => flag(&mut options, name),
        Argument::Positional(text) => {
            positional.push(text.to_string());
            Some(())
        }
    })?;
    if positional.len() < 2 {
        return None;
    }
    options.runs = positional.split_off(1);
    options.qrels = positional.pop()?;
    Some(options)
}

/// Whether `path` is a plain file the Python command reads as TREC lines (its size, if so): no
/// other format's extension, and a first line (neither blank nor a `#` comment) that no other
/// format could start with (no JSON object, no tab or comma that a TSV or CSV header or row
/// would hold), or no such line at all.
fn trec_file(path: &str) -> Option<u64> {
    let lower = path.to_ascii_lowercase();
    let others = [
        ".jsonl", ".ndjson", ".json", ".parquet", ".pq", ".csv", ".tsv",
    ];
    if others.iter().any(|extension| lower.ends_with(extension)) {
        return None;
    }
    let (head, size) = head(path, HEAD_BYTES)?;
    if head.starts_with(b"PAR1") {
        return None;
    }
    let mut lines = head.split(|&b| b == b'\n');
    if size > HEAD_BYTES {
        lines.next_back(); // a line cut by the head's end is not looked at
    }
    let first = lines
        .map(trimmed)
        .find(|line| !line.is_empty() && !line.starts_with(b"#"));
    // Without such a line, TREC: the Python command's default (the reader says what is wrong).
    let Some(first) = first else {
        return (size <= HEAD_BYTES).then_some(size);
    };
    let other = first.starts_with(b"{") || first.contains(&b'\t') || first.contains(&b',');
    (!other).then_some(size)
}

/// `line` without the white space at its ends.
fn trimmed(line: &[u8]) -> &[u8] {
    let start = line.iter().position(|b| !b.is_ascii_whitespace());
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace());
    match (start, end) {
        (Some(start), Some(end)) => &line[start..=end],
        _ => &[],
    }
}

/// What the Python command does for `options`, when it ends with status 0 or with an error of
/// the core's.
enum Outcome {
    /// Its warnings, in order, and its output.
    Printed(Vec<String>, String),
    /// The warnings before the error, and the error.
    Failed(Vec<String>, Error),
}

/// A TREC file read by the core, for the Python command's reading of the same: a missing file
/// or a directory is refused by the core's reader as it refuses it for the Python command;
/// another file only when it is one the Python command reads as TREC lines, else `None`.
fn read_trec<T>(
    path: &str,
    read: impl Fn(&Path, &str, &ReadOptions) -> rankscope_core::Result<Parsed<T>>,
) -> Option<Result<T, Error>> {
    let file = Path::new(path);
    if file.exists() && !file.is_dir() {
        let size = trec_file(path)?;
        if size >= STREAM_THRESHOLD_BYTES {
            // Streamed block by block by the Python command, which warns when its queries are
            // not grouped: handed to it.
            return None;
        }
    }
    Some(read(file, path, &ReadOptions::default()).map(|parsed| parsed.table))
}

/// What the Python command does for `options`, if it is one of the [`Outcome`]s.
fn output(options: &Options) -> Option<Outcome> {
    let failed = |warnings: Vec<String>, error: Error| {
        exit_status(&error).map(|_| Outcome::Failed(warnings, error))
    };
    // A profile the core does not know is refused by the Python command's options.
    Conventions::profile(&options.profile).ok()?;
    let specs: Vec<MeasureSpec> = options
        .measures
        .iter()
        .map(|name| MeasureSpec::Name(name.clone()))
        .collect();
    // The Python command reads the measures' names first (a list in one -m split before each
    // name is read: its error then names that one).
    let named = if specs.is_empty() {
        Ok(Vec::new())
    } else {
        parse_specs(&specs)
    };
    if let Err(error) = named {
        if options.measures.iter().any(|m| m.contains(',')) {
            return None;
        }
        return failed(Vec::new(), error);
    }
    let measures = if specs.is_empty() {
        Measures::Defaults
    } else {
        Measures::Given(specs)
    };
    let mut request = Request::new(
        measures,
        ProfileSpec::Name(Given::Text(options.profile.clone())),
    );
    request.relevance_level = Given::Integer(options.relevance_level);
    request.complete = Given::Flag(options.complete);
    if let Some(n) = options.max_documents {
        request.max_documents = Given::Integer(n);
    }
    // The profile, the options and the measures together are settled once the qrels are read.
    let settled = settle(&request);
    let qrels = match read_trec(&options.qrels, read_qrels_file)? {
        Ok(qrels) => qrels,
        Err(error) => return failed(Vec::new(), error),
    };
    let settled = match settled {
        Ok(settled) => settled,
        Err(error) => return failed(Vec::new(), error),
    };
    if settled.measures.is_empty() {
        return None;
    }
    let mut warnings = Vec::new();
    let mut evaluations = Vec::new();
    for path in &options.runs {
        let chunked = if options.whole {
            None
        } else {
            in_chunks(
                &qrels,
                path,
                &settled.measures,
                &settled.options,
                CHUNKED_MIN_BYTES,
            )
        };
        let evaluation = match chunked {
            Some(evaluation) => Ok(evaluation),
            None => read_trec(path, read_run_file)?
                .and_then(|run| evaluate(&qrels, &run, &settled.measures, &settled.options)),
        };
        match evaluation {
            Ok(evaluation) => {
                warnings.extend(evaluation.unjudged_warning());
                evaluations.push(evaluation);
            }
            Err(error) => return failed(warnings, error),
        }
    }
    // Runs of one name are told apart by the Python command (by their files' names).
    let names: Vec<&str> = evaluations.iter().map(|e| e.run_name.as_str()).collect();
    if (1..names.len()).any(|i| names[..i].contains(&names[i])) {
        return None;
    }
    let text = match options.format {
        Output::Table => table_text(&evaluations, options.per_query, Format::Text),
        Output::Csv => table_text(&evaluations, options.per_query, Format::Csv),
        Output::Trec => evaluations
            .iter()
            .map(|evaluation| trec_text(evaluation, options.per_query))
            .collect(),
    };
    Some(Outcome::Printed(warnings, text))
}

/// The evaluation of a run file of `min_bytes` or more grouped by query, read in chunks of
/// whole queries; None when the file is smaller, not grouped, or anything goes wrong (reading
/// it whole decides).
pub(crate) fn in_chunks(
    qrels: &Qrels,
    path: &str,
    measures: &[Measure],
    options: &EvalOptions,
    min_bytes: u64,
) -> Option<Evaluation> {
    let size = std::fs::metadata(path).ok()?.len();
    if !(min_bytes..STREAM_THRESHOLD_BYTES).contains(&size) {
        return None;
    }
    let stream = StreamOptions {
        grouping: Grouping::Grouped,
        ..StreamOptions::default()
    };
    let streamed =
        evaluate_run_file(qrels, Path::new(path), path, measures, options, &stream).ok()?;
    streamed.warnings.is_empty().then_some(streamed.evaluation)
}

/// The table of every run's results (`rankscope evaluate`'s default output, or CSV).
fn table_text(evaluations: &[Evaluation], per_query: bool, format: Format) -> String {
    let Some(first) = evaluations.first() else {
        return String::new();
    };
    let names: Vec<String> = first.measures.iter().map(Measure::name).collect();
    let headings: Vec<Heading<'_>> = names
        .iter()
        .zip(&first.measures)
        .map(|(name, measure)| Heading {
            name,
            aggregate: measure.family.aggregate,
        })
        .collect();
    let runs: Vec<RunValues<'_>> = evaluations
        .iter()
        .map(|evaluation| RunValues {
            run_name: &evaluation.run_name,
            query_ids: &evaluation.query_ids,
            columns: evaluation.values.iter().map(Vec::as_slice).collect(),
            aggregates: evaluation.aggregates(),
        })
        .collect();
    table::render(&headings, &runs, per_query, format)
}

/// One run's results in trec_eval's format: a line per measure (as trec_eval names it, else
/// by its own name), per query when asked, then the summary.
fn trec_text(evaluation: &Evaluation, per_query: bool) -> String {
    let lines: Vec<TrecLine> = evaluation
        .measures
        .iter()
        .map(|m| TrecLine::new(m.trec_name().unwrap_or_else(|| m.name()), Some(m.clone())))
        .collect();
    let aggregates = evaluation.aggregates();
    let columns: Vec<Column<'_>> = lines
        .iter()
        .enumerate()
        .map(|(m, line)| Column {
            line,
            values: evaluation.scores(m),
            summary: aggregates[m],
            summary_of_other: false,
        })
        .collect();
    let layout = Layout {
        query_ids: &evaluation.query_ids,
        per_query,
        summary: true,
        run_name: &evaluation.run_name,
        relstrings: None,
        zscores: None,
        absent: 0,
    };
    render(&columns, &layout)
}

/// Serve `rankscope evaluate ARGUMENTS` (the arguments after the command's name): its exit
/// status, or `None` for the Python command line to run it.
pub fn serve(arguments: &[OsString]) -> Option<ExitCode> {
    let options = parse(arguments)?;
    if options.format == Output::Table && std::io::stdout().is_terminal() {
        return None; // the Python command draws a table for the terminal
    }
    Some(match output(&options)? {
        Outcome::Printed(warnings, text) => print(&warnings, &text),
        Outcome::Failed(warnings, error) => {
            let code = exit_status(&error).unwrap_or(1);
            fail(&warnings, &error.in_cli_terms(Some(&options.qrels)), code)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(arguments: &[&str]) -> Option<Options> {
        let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        parse(&arguments)
    }

    #[test]
    fn evaluate_s_options_in_their_forms() {
        let options = parsed(&[
            "q",
            "-m",
            "AP,nDCG@10",
            "r1",
            "-mRR",
            "--measure=P@5",
            "-qc",
            "-l2",
            "r2",
            "--profile",
            "trec9",
            "-f",
            "csv",
        ])
        .unwrap();
        assert_eq!(options.qrels, "q");
        assert_eq!(options.runs, ["r1", "r2"]);
        assert_eq!(options.measures, ["AP,nDCG@10", "RR", "P@5"]);
        assert!(options.per_query && options.complete);
        assert_eq!(options.relevance_level, 2);
        assert_eq!(options.profile, "trec9");
        assert_eq!(options.format, Output::Csv);
        let options = parsed(&[
            "--per-query",
            "--complete",
            "-M",
            "10",
            "--format=trec",
            "--no-stream",
            "--run-format",
            "trec",
            "--engine=memory",
            "q",
            "r",
            "-l",
            "-1",
        ])
        .unwrap();
        assert!(options.per_query && options.complete && options.whole);
        assert_eq!(options.max_documents, Some(10));
        assert_eq!(options.format, Output::Trec);
        assert_eq!(options.relevance_level, -1);
    }

    #[test]
    fn what_this_door_does_not_serve_goes_to_python() {
        let handed = [
            &["q"][..],
            &["q", "-"],
            &["-", "r"],
            &["q", "r", "-o", "out"],
            &["q", "r", "-f", "json"],
            &["q", "r", "--stream"],
            &["q", "r", "--chunk-mb", "1"],
            &["q", "r", "--engine", "spark"],
            &["q", "r", "--lenient"],
            &["q", "r", "--duplicates", "keep-first"],
            &["q", "r", "--run-format", "jsonl"],
            &["q", "r", "--run-columns", "score=s"],
            &["q", "r", "--measures-from", "m.py"],
            &["q", "r", "-m=AP"],
            &["q", "r", "-m", "-q"],
            &["q", "r", "-l", "x"],
            &["q", "r", "--per"],
            &["q", "r", "-h"],
            &["--", "q", "r"],
        ];
        for arguments in handed {
            assert_eq!(parsed(arguments), None, "{arguments:?}");
        }
    }

    #[test]
    fn files_of_other_formats_are_not_read_here() {
        let folder = std::env::temp_dir().join(format!("rankscope-cli-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let file = |name: &str, text: &str| {
            let path = folder.join(name);
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_string()
        };
        let trec = file("run.txt", "# a comment\n\nq1 Q0 d1 1 2.5 bm25\n");
        assert_eq!(trec_file(&trec), Some(33));
        for (name, text) in [
            ("run.jsonl", "q1 Q0 d1 1 2.5 bm25\n"),
            ("a.txt", "{\"query_id\": \"q1\"}\n"),
            ("b.txt", "q1\td1\t1\n"),
            ("c.txt", "query_id,doc_id,score\n"),
            ("d.txt", "PAR1"),
        ] {
            assert_eq!(trec_file(&file(name, text)), None, "{name}");
        }
        assert_eq!(trec_file(&file("e.txt", "\n# only comments\n")), Some(17));
        std::fs::remove_dir_all(&folder).unwrap();
    }

    /// A file of the test's own, removed when dropped.
    struct Written(std::path::PathBuf);

    impl Written {
        fn new(name: &str, text: &str) -> Self {
            let path =
                std::env::temp_dir().join(format!("rankscope-{}-{name}", std::process::id()));
            std::fs::write(&path, text).unwrap();
            Self(path)
        }

        fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for Written {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn a_large_grouped_run_in_chunks_gives_what_reading_it_whole_gives() {
        let qrels = Written::new("chunks.qrels", "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq3 0 d 1\n");
        let grouped = Written::new(
            "grouped.run",
            "q1 Q0 b 1 3.0 r\nq1 Q0 x 2 2.0 r\nq1 Q0 a 3 1.0 r\nq2 Q0 y 1 1.0 r\nq9 Q0 c 1 1.0 r\n",
        );
        let scattered = Written::new(
            "scattered.run",
            "q1 Q0 b 1 3.0 r\nq2 Q0 c 1 1.0 r\nq1 Q0 a 2 1.0 r\n",
        );
        let measures = ["AP", "nDCG@10", "P@5", "RR"]
            .iter()
            .map(|name| MeasureSpec::Name((*name).to_string()))
            .collect();
        let request = Request::new(
            Measures::Given(measures),
            ProfileSpec::Name(Given::Text("trec".to_string())),
        );
        let settled = settle(&request).unwrap();
        let judged = read_qrels_file(
            Path::new(qrels.path()),
            qrels.path(),
            &ReadOptions::default(),
        )
        .unwrap()
        .table;
        let whole = |run: &Written| {
            let table = read_run_file(Path::new(run.path()), run.path(), &ReadOptions::default())
                .unwrap()
                .table;
            evaluate(&judged, &table, &settled.measures, &settled.options).unwrap()
        };
        let chunks = |run: &Written, min_bytes| {
            in_chunks(
                &judged,
                run.path(),
                &settled.measures,
                &settled.options,
                min_bytes,
            )
        };
        let chunked = chunks(&grouped, 0).unwrap();
        assert_eq!(chunked, whole(&grouped));
        assert_eq!(chunked.run_name, "r");
        // Not grouped by query: read whole; smaller than the size given: read whole.
        assert!(chunks(&scattered, 0).is_none());
        assert!(chunks(&grouped, 1 << 20).is_none());
    }
}
