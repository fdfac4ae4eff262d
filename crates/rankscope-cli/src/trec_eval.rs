//! `rankscope trec-eval` served natively: trec_eval's options as the Python command reads
//! them, the core's reader, evaluation and output.
//!
//! [`serve`] prints and returns the exit status only for what it serves byte for byte: plain
//! TREC files (or none, or a directory: the core's reader says so), qrels judgements (`-R
//! qrels`), their warnings (the core's, shown as the Python command shows them), their errors
//! (an unknown measure, a line computed from other judgements, a missing file or a directory,
//! a malformed line, a grade trec_eval reads otherwise...) and trec_eval 10's own stops with exit status 4 (a judged
//! query without results, no query judged, a first query of negative grades only), worded by
//! the core for both doors and met in the order the Python command meets them. For anything
//! else it returns `None` before printing anything, and the command is handed to the Python
//! command line, which says what it says about it.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use rankscope_core::error::Error;
use rankscope_core::evaluate::{evaluate, relevance_strings, EvalOptions};
use rankscope_core::measures::trec_eval::Judgements;
use rankscope_core::measures::{parse_measure, Measure};
use rankscope_core::output::trec_eval::{
    check_judgements, grade_refusal, negative_first_query, no_common_queries_stop, read_zscores,
    render, select, stop, undetermined_warning, Column, Layout, Stop, StopFacts, STOP_STATUS,
};
use rankscope_core::profile::Conventions;
use rankscope_core::stream::CHUNKED_MIN_BYTES;
use rankscope_core::trec::{
    non_integer_grade, read_qrels_file, read_run_file, NonIntegerGrade, ReadOptions,
};

use crate::args::{exit_status, finish, integer, plain_file, Argument};
use crate::evaluate::in_chunks;

/// The options of `rankscope trec-eval` this door serves (trec_eval's flags are flags).
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::struct_excessive_bools)]
struct Options {
    qrels: String,
    run: String,
    per_query: bool,
    complete: bool,
    no_summary: bool,
    judged_only: bool,
    measures: Vec<String>,
    relevance_level: i64,
    collection_size: i64,
    max_documents: Option<i64>,
    profile: String,
    zscores: Option<String>,
}

/// An option's value, for the options that take one.
enum Takes {
    Measure,
    Level,
    CollectionSize,
    MaxDocuments,
    RelInfoFormat,
    ResultsFormat,
    Profile,
    ZScores,
}

/// trec_eval's flags (`-q`, `-c`, `-n`, `-J`, `-o`), by their short letter or long name.
fn flag(options: &mut Options, name: &str) -> Option<()> {
    match name {
        "q" | "query_eval_wanted" | "query" => options.per_query = true,
        "c" | "complete_rel_info_wanted" | "all_queries" => options.complete = true,
        "n" | "nosummary" => options.no_summary = true,
        "J" | "Judged_docs_only" => options.judged_only = true,
        "o" => {} // obsolete in trec_eval, without effect
        _ => return None,
    }
    Some(())
}

/// The options that take a value, by their short letter or long name.
fn takes(name: &str) -> Option<Takes> {
    Some(match name {
        "m" | "measure" => Takes::Measure,
        "l" | "level_for_rel" => Takes::Level,
        "N" | "Number_docs_in_coll" => Takes::CollectionSize,
        "M" | "Max_retrieved_per_topic" => Takes::MaxDocuments,
        "R" | "Rel_info_format" => Takes::RelInfoFormat,
        "T" | "Results_format" => Takes::ResultsFormat,
        "profile" => Takes::Profile,
        "Z" | "Zscore" => Takes::ZScores,
        _ => return None,
    })
}

fn set(options: &mut Options, what: &Takes, value: &str) -> Option<()> {
    match what {
        Takes::Measure => options.measures.push(value.to_string()),
        Takes::Level => options.relevance_level = integer(value)?,
        Takes::CollectionSize => options.collection_size = integer(value)?,
        Takes::MaxDocuments => options.max_documents = Some(integer(value)?),
        // Only the defaults are served: the other formats are read by the Python command.
        Takes::RelInfoFormat => (value == "qrels").then_some(())?,
        Takes::ResultsFormat => (value == "trec_results").then_some(())?,
        Takes::ZScores => options.zscores = Some(value.to_string()),
        Takes::Profile => {
            if !matches!(value, "trec" | "trec9") {
                return None;
            }
            options.profile = value.to_string();
        }
    }
    Some(())
}

/// The options, when every argument is one this door serves.
fn parse(arguments: &[OsString]) -> Option<Options> {
    let mut options = Options {
        qrels: String::new(),
        run: String::new(),
        per_query: false,
        complete: false,
        no_summary: false,
        judged_only: false,
        measures: Vec::new(),
        relevance_level: 1,
        collection_size: 0,
        max_documents: None,
        profile: "trec".to_string(),
        zscores: None,
    };
    let mut positional = Vec::new();
    crate::args::arguments(arguments, takes, |argument| match argument {
        Argument::Value(what, value) => set(&mut options, &what, value),
        // `-o`'s long form takes a value; it and the rest go to the Python command.
        Argument::Flag {
            name: "o",
            long: true,
        } => None,
        Argument::Flag { name, .. } => flag(&mut options, name),
        Argument::Positional(text) => {
            positional.push(text.to_string());
            Some(())
        }
    })?;
    let [qrels, run] = <[String; 2]>::try_from(positional).ok()?;
    options.qrels = qrels;
    options.run = run;
    Some(options)
}

/// How the Python command ends for `options`: its warnings (in order), its output, and the
/// error it ends with, if any (its message and exit status).
struct Outcome {
    warnings: Vec<String>,
    text: String,
    error: Option<(String, u8)>,
}

impl Outcome {
    /// Nothing printed but the warnings, then `error` (an error of the core's, worded in the
    /// command line's terms); `None` for an error no evaluation raises.
    fn failed(warnings: Vec<String>, error: &Error, qrels: &str) -> Option<Self> {
        let code = exit_status(error)?;
        Some(Self::stopped(
            warnings,
            String::new(),
            error.in_cli_terms(Some(qrels)),
            code,
        ))
    }

    /// The warnings, `text`, then the error `message` with exit status `code`.
    fn stopped(warnings: Vec<String>, text: String, message: String, code: u8) -> Self {
        Self {
            warnings,
            text,
            error: Some((message, code)),
        }
    }
}

/// Whether the core reads `path` as the Python command reads it: a plain file, or none or a
/// directory (the core's reader refuses them as the Python command does).
fn readable(path: &str) -> Option<()> {
    let file = Path::new(path);
    if file.exists() && !file.is_dir() {
        plain_file(path)?;
    }
    Some(())
}

/// The error the Python command meets first where the qrels cannot be used (`qrels_error`,
/// the reader's, or else a grade trec_eval reads otherwise, `grade`): it reads the run before
/// the qrels, and checks the grades before it reads them.
fn qrels_refused(
    options: &Options,
    read: &ReadOptions,
    qrels_error: Option<Error>,
    grade: Option<NonIntegerGrade>,
) -> Error {
    if let Err(error) = read_run_file(Path::new(&options.run), &options.run, read) {
        return error;
    }
    // The reader stopped at an error: the grades are checked in the whole text.
    let grade = grade.or_else(|| {
        let data = std::fs::read(&options.qrels).ok()?;
        non_integer_grade(&data)
    });
    match (grade, qrels_error) {
        (Some(found), _) => grade_refusal(&found, &options.qrels),
        (None, Some(error)) => error,
        (None, None) => unreachable!("refused for a reason"),
    }
}

/// How the Python command ends for `options`, if this door serves it (else `None`, before
/// anything is printed): every step in the Python command's order, its errors and trec_eval's
/// stops worded by the core for both.
#[allow(clippy::too_many_lines)]
fn output(options: &Options) -> Option<Outcome> {
    let qrels_path = options.qrels.as_str();
    let mut warnings = Vec::new();
    let lines = match select(&options.measures, options.collection_size, &mut warnings) {
        Ok(lines) => lines,
        Err(error) => return Outcome::failed(warnings, &error, qrels_path),
    };
    warnings.extend(lines.iter().filter_map(undetermined_warning));
    // The measures once each, in the order of the lines; under -c, trec_eval sums num_rel over
    // every line of the qrels with a grade above 0, whatever -l says.
    let mut measures: Vec<Measure> = Vec::new();
    let index = |measure: &Measure, measures: &mut Vec<Measure>| {
        let name = measure.name();
        measures
            .iter()
            .position(|known| known.name() == name)
            .unwrap_or_else(|| {
                measures.push(measure.clone());
                measures.len() - 1
            })
    };
    let at: Vec<Option<usize>> = lines
        .iter()
        .map(|line| line.measure.as_ref().map(|m| index(m, &mut measures)))
        .collect();
    let complete_num_rel = if options.complete {
        Some(index(&parse_measure("NumRel(rel=1)").ok()?, &mut measures))
    } else {
        None
    };
    if measures.is_empty() {
        // runid alone still needs one measure to evaluate the run's queries.
        index(&parse_measure("NumQ").ok()?, &mut measures);
    }
    let mut conventions = Conventions::profile(&options.profile).ok()?;
    if options.judged_only {
        conventions = conventions.with_option("unjudged_documents", "drop").ok()?;
    }
    // trec_eval 10's deterministic quirks, as the Python command keeps them.
    conventions = conventions
        .with_option("zero_division", "nan")
        .ok()?
        .with_option("missing_query_ranking", "placeholder")
        .ok()?;
    let max_documents = match options.max_documents {
        Some(n) => Some(usize::try_from(n).ok()?),
        None => None,
    };
    let eval_options = EvalOptions {
        conventions,
        relevance_level: options.relevance_level,
        complete: options.complete,
        max_documents,
    };
    let zscores = match &options.zscores {
        // Read by the core for both doors, whatever the file.
        Some(path) => match read_zscores(Path::new(path), path) {
            Ok(zscores) => Some(zscores),
            Err(error) => return Outcome::failed(warnings, &error, qrels_path),
        },
        None => None,
    };
    let judgements = lines
        .iter()
        .map(|line| (line.printed.as_str(), line.judgements));
    if let Err(error) = check_judgements(judgements, Judgements::Qrels) {
        return Outcome::failed(warnings, &error, qrels_path);
    }
    readable(&options.run)?;
    readable(qrels_path)?;
    let read = ReadOptions::default();
    let qrels = match read_qrels_file(Path::new(qrels_path), qrels_path, &read) {
        Ok(parsed) if parsed.non_integer_grade.is_none() => parsed.table,
        Ok(parsed) => {
            let error = qrels_refused(options, &read, None, parsed.non_integer_grade);
            return Outcome::failed(warnings, &error, qrels_path);
        }
        Err(error) => {
            let error = qrels_refused(options, &read, Some(error), None);
            return Outcome::failed(warnings, &error, qrels_path);
        }
    };
    // trec_eval ignores the second field: a document judged under two is judged twice.
    let qrels = if qrels.has_subtopics() {
        qrels.without_subtopics()
    } else {
        qrels
    };
    let relstring = lines.iter().find_map(|line| line.relstring);
    // The relevance strings of -q need the run whole; else a large one is read in chunks.
    let chunked = match relstring {
        Some(_) if options.per_query => None,
        _ => in_chunks(
            &qrels,
            &options.run,
            &measures,
            &eval_options,
            CHUNKED_MIN_BYTES,
        ),
    };
    let (evaluation, run) = match chunked {
        Some(evaluation) => (evaluation, None),
        None => {
            let evaluated = read_run_file(Path::new(&options.run), &options.run, &read)
                .map(|parsed| parsed.table)
                .and_then(|run| {
                    let evaluation = evaluate(&qrels, &run, &measures, &eval_options)?;
                    Ok((evaluation, run))
                });
            match evaluated {
                Ok((evaluation, run)) => (evaluation, Some(run)),
                Err(error @ Error::NoCommonQueries(_)) => {
                    // trec_eval stops at its first judged query, which the run lacks (the
                    // core says when).
                    let message =
                        no_common_queries_stop(&error.to_string(), &qrels, options.complete, false);
                    return Some(match message {
                        Some(message) => {
                            Outcome::stopped(warnings, String::new(), message, STOP_STATUS)
                        }
                        None => Outcome::failed(warnings, &error, qrels_path)?,
                    });
                }
                Err(error) => return Outcome::failed(warnings, &error, qrels_path),
            }
        }
    };
    warnings.extend(evaluation.unjudged_warning());
    let negative_first = negative_first_query(&qrels, &lines, None);
    // Where trec_eval stops, if it does: before printing, or after the queries before its first
    // judged query without results (no summary then).
    let stopped = stop(&StopFacts {
        missing_queries: &evaluation.missing_queries,
        query_ids: &evaluation.query_ids,
        complete: options.complete,
        // -D and --fix-trec-eval-quirks are the Python command's.
        only_query: None,
        fix_quirks: false,
        negative_first: negative_first
            .as_ref()
            .map(|(query, measure)| (query.as_str(), measure.as_str())),
        qrels: qrels_path,
        run: &options.run,
    });
    let (shown, stop_message) = match stopped {
        Ok(Stop::No) => (evaluation.query_ids.len(), None),
        Ok(Stop::BeforePrinting { message, status }) => {
            return Some(Outcome::stopped(warnings, String::new(), message, status))
        }
        Err(error) => return Outcome::failed(warnings, &error, qrels_path),
        Ok(Stop::After { shown, message }) => (shown, Some(message)),
    };
    let relstrings = match relstring {
        Some(length) if options.per_query => Some(
            relevance_strings(&qrels, run.as_ref()?, &eval_options, length)
                .ok()?
                .into_iter()
                .collect(),
        ),
        _ => None,
    };
    let aggregates = evaluation.aggregates();
    let columns: Vec<Column<'_>> = lines
        .iter()
        .zip(&at)
        .map(|(line, at)| {
            let Some(m) = *at else {
                return Column {
                    line,
                    values: &[],
                    summary: 0.0,
                    summary_of_other: false,
                };
            };
            let other = complete_num_rel.filter(|_| line.printed == "num_rel");
            Column {
                line,
                values: &evaluation.scores(m)[..shown],
                summary: aggregates[other.unwrap_or(m)],
                summary_of_other: other.is_some(),
            }
        })
        .collect();
    let layout = Layout {
        query_ids: &evaluation.query_ids[..shown],
        per_query: options.per_query,
        summary: !options.no_summary && stop_message.is_none(),
        run_name: &evaluation.run_name,
        relstrings: relstrings.as_ref(),
        zscores: zscores.as_ref(),
        // -D, whose -c counts queries it does not evaluate, is handed to Python.
        absent: 0,
    };
    let text = render(&columns, &layout);
    Some(match stop_message {
        None => Outcome {
            warnings,
            text,
            error: None,
        },
        Some(message) => Outcome::stopped(warnings, text, message, STOP_STATUS),
    })
}

/// Serve `rankscope trec-eval ARGUMENTS` (the arguments after the command's name): its exit
/// status, or `None` for the Python command line to run it.
pub fn serve(arguments: &[OsString]) -> Option<ExitCode> {
    let options = parse(arguments)?;
    let outcome = output(&options)?;
    let error = outcome
        .error
        .as_ref()
        .map(|(message, code)| (message.as_str(), *code));
    Some(finish(&outcome.warnings, &outcome.text, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(arguments: &[&str]) -> Option<Options> {
        let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        parse(&arguments)
    }

    #[test]
    fn trec_eval_s_options_in_their_forms() {
        let options = parsed(&[
            "-q",
            "-m",
            "map",
            "-mP.5",
            "--measure=ndcg",
            "-l2",
            "q",
            "r",
        ])
        .unwrap();
        assert!(options.per_query);
        assert_eq!(options.measures, ["map", "P.5", "ndcg"]);
        assert_eq!(options.relevance_level, 2);
        assert_eq!((options.qrels.as_str(), options.run.as_str()), ("q", "r"));
        let options =
            parsed(&["-qcn", "-J", "-M", "10", "-N", "+5", "q", "r", "-l", "-1"]).unwrap();
        assert!(options.per_query && options.complete && options.no_summary);
        assert!(options.judged_only);
        assert_eq!(options.max_documents, Some(10));
        assert_eq!(options.collection_size, 5);
        assert_eq!(options.relevance_level, -1);
        let options = parsed(&["--all_queries", "--query", "--profile", "trec9", "q", "r"]);
        assert_eq!(options.unwrap().profile, "trec9");
        let options = parsed(&["-Z", "z", "q", "r"]).unwrap();
        assert_eq!(options.zscores.as_deref(), Some("z"));
        let options = parsed(&["--Zscore=z", "q", "r"]).unwrap();
        assert_eq!(options.zscores.as_deref(), Some("z"));
    }

    #[test]
    fn what_this_door_does_not_serve_goes_to_python() {
        let handed = [
            &["-Z", "q", "r"][..],
            &["-R", "prefs", "q", "r"],
            &["-D", "1", "q", "r"],
            &["--fix-trec-eval-quirks", "q", "r"],
            &["-v"],
            &["-h"],
            &["--nosum", "q", "r"],
            &["-l", "x", "q", "r"],
            &["-m", "-q", "q", "r"],
            &["q"],
            &["q", "r", "s"],
            &["q", "-"],
            &["--", "q", "r"],
            &["--Output_old_results_format", "x", "q", "r"],
        ];
        for arguments in handed {
            assert_eq!(parsed(arguments), None, "{arguments:?}");
        }
    }
}
