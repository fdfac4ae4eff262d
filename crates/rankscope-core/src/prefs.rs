//! Preference judgements, trec_eval's `-R prefs` and `-R qrels_prefs`: their reader, and the
//! evaluation of the preference measures ([`crate::measures::prefs`]) of a run against them.
//!
//! A prefs file has lines `query_id group subgroup doc_id level`; `-R qrels_prefs` reads a
//! qrels file (`query_id group doc_id level`) as prefs whose second column names the group,
//! every line in one subgroup. Levels are numbers (trec_eval reads them as doubles). Blank lines
//! and lines starting with `#` are skipped, as in qrels.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{quoted, Error, InputProblem, OptionProblem, Result, Skipped};
use crate::evaluate::{EvalOptions, Evaluation};
use crate::measures::prefs::{Conflict, Judgement, PrefCounts, Preference};
use crate::measures::{families, Measure, Reads};
use crate::table::Run;
use crate::trec::{byte_problem, empty_error, io_error, parse_score, split_fields, strip_bom};

/// The two layouts of preference judgements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefsFormat {
    /// `query_id group subgroup doc_id level` (trec_eval's `-R prefs`).
    Prefs,
    /// Qrels, `query_id group doc_id level`, one subgroup per group (`-R qrels_prefs`).
    QrelsPrefs,
}

impl PrefsFormat {
    /// The format named as trec_eval's `-R` names it.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "prefs" => Ok(Self::Prefs),
            "qrels_prefs" => Ok(Self::QrelsPrefs),
            other => Err(Error::Option(
                OptionProblem::new(
                    "rel_info_format",
                    quoted(other),
                    format!(
                        "preference judgements are read as 'prefs' or 'qrels_prefs'; got {}",
                        quoted(other)
                    ),
                )
                .allowing(["prefs", "qrels_prefs"]),
            )),
        }
    }

    fn fields(self) -> &'static str {
        match self {
            Self::Prefs => "query_id group subgroup doc_id level",
            Self::QrelsPrefs => "query_id group doc_id level",
        }
    }

    fn count(self) -> usize {
        match self {
            Self::Prefs => 5,
            Self::QrelsPrefs => 4,
        }
    }
}

/// One line of preference judgements.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefsLine {
    /// The query.
    pub query: String,
    /// The judgement group.
    pub group: String,
    /// The subgroup (`"0"` for every line of `qrels_prefs`).
    pub subgroup: String,
    /// The document.
    pub doc: String,
    /// Its level.
    pub level: f64,
    /// Its line number in the file.
    pub line: u64,
}

/// Preference judgements read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefs {
    /// Where they came from, for messages.
    pub source: String,
    /// The lines, in file order.
    pub lines: Vec<PrefsLine>,
}

/// Read preference judgements from a file (`source` names it in messages).
pub fn read_prefs_file(path: &Path, source: &str, format: PrefsFormat) -> Result<Prefs> {
    let data = std::fs::read(path).map_err(|e| io_error(&e, source))?;
    parse_prefs(&data, source, format)
}

/// Read preference judgements from bytes; every malformed line is an error naming the line.
pub fn parse_prefs(data: &[u8], source: &str, format: PrefsFormat) -> Result<Prefs> {
    let data = strip_bom(data);
    let mut lines = Vec::new();
    let located = |number: u64, message: String, text: String| {
        Error::Parse(
            InputProblem::new(message)
                .in_source(source)
                .at_line(number, text),
        )
    };
    for (index, raw) in data.split(|&b| b == b'\n').enumerate() {
        let number = index as u64 + 1;
        if let Some((message, text)) = byte_problem(raw) {
            return Err(located(number, message, text));
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = || String::from_utf8_lossy(line).into_owned();
        let (fields, count) = split_fields::<6>(line);
        if count == 0 || fields[0].starts_with(b"#") {
            continue;
        }
        if count != format.count() {
            let message = format!(
                "expected {} whitespace-separated fields ({}); found {count}",
                format.count(),
                format.fields()
            );
            return Err(located(number, message, text()));
        }
        let field = |i: usize| String::from_utf8_lossy(fields[i]).into_owned();
        let level_field = fields[format.count() - 1];
        let Some(level) = parse_score(level_field) else {
            let message = format!(
                "level must be a finite number; found {}",
                quoted(&String::from_utf8_lossy(level_field))
            );
            return Err(located(number, message, text()));
        };
        let (subgroup, doc) = match format {
            PrefsFormat::Prefs => (field(2), field(3)),
            PrefsFormat::QrelsPrefs => ("0".to_string(), field(2)),
        };
        lines.push(PrefsLine {
            query: field(0),
            group: field(1),
            subgroup,
            doc,
            level,
            line: number,
        });
    }
    if lines.is_empty() {
        let what = "preference judgements";
        return Err(empty_error(
            data,
            source,
            what,
            format.fields(),
            &Skipped::default(),
        ));
    }
    Ok(Prefs {
        source: source.to_string(),
        lines,
    })
}

/// How one measure is scored from a query's counts.
#[derive(Clone, Copy)]
enum Scorer {
    Counts(Preference),
    /// NumQ: 1 per query.
    One,
}

/// Evaluate a run against preference judgements: every measure must be a preference measure
/// (or NumQ). Queries are those of the judgements the run has (all of them if
/// `options.complete`, missing ones with an empty ranking); the ranking orders documents by
/// score, descending, ties by document id ascending (byte-wise), as trec_eval orders them
/// for preferences, and keeps the first `options.max_documents`.
pub fn evaluate_prefs(
    prefs: &Prefs,
    run: &Run,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<Evaluation> {
    let mut with_pairs = false;
    let mut scorers = Vec::with_capacity(measures.len());
    for m in measures {
        let scorer = match m.family.reads {
            Reads::Preferences(preference) => {
                with_pairs |= preference.pairs;
                Scorer::Counts(preference)
            }
            _ if m.family.name == "NumQ" => Scorer::One,
            _ => {
                return Err(Error::measure(
                    m.name(),
                    format!(
                        "{} is not computed from preference judgements; the preference \
                         measures are {}",
                        m.name(),
                        families()
                            .filter(|f| matches!(f.reads, Reads::Preferences(_)))
                            .map(|f| f.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        };
        scorers.push(scorer);
    }

    let mut judged: HashMap<&str, Vec<&PrefsLine>> = HashMap::new();
    for line in &prefs.lines {
        judged.entry(line.query.as_str()).or_default().push(line);
    }
    let mut ranked: HashMap<&str, Vec<usize>> = HashMap::new();
    for row in 0..run.len() {
        ranked.entry(run.query_id(row)).or_default().push(row);
    }
    let mut query_ids: Vec<&str> = judged
        .keys()
        .copied()
        .filter(|q| options.complete || ranked.contains_key(q))
        .collect();
    query_ids.sort_unstable();
    let sorted = |mut names: Vec<&str>| {
        names.sort_unstable();
        names.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let unjudged = sorted(
        ranked
            .keys()
            .copied()
            .filter(|q| !judged.contains_key(q))
            .collect(),
    );
    let missing = sorted(
        judged
            .keys()
            .copied()
            .filter(|q| !ranked.contains_key(q))
            .collect(),
    );
    if query_ids.is_empty() {
        return Err(Error::NoCommonQueries(InputProblem::new(format!(
            "no query of the run ({}) is judged in the preference judgements ({}): the run has \
             {} queries, the judgements {}, none in common; check that the query ids match",
            run.source,
            prefs.source,
            ranked.len(),
            judged.len()
        ))));
    }

    let rows: Vec<Result<Vec<f64>>> = query_ids
        .par_iter()
        .map(|&query| {
            let ranking = ranking(run, ranked.get(query).map_or(&[], Vec::as_slice), options)?;
            let lines = &judged[query];
            let judgements: Vec<Judgement<'_>> = lines
                .iter()
                .map(|l| Judgement {
                    group: &l.group,
                    subgroup: &l.subgroup,
                    doc: &l.doc,
                    level: l.level,
                })
                .collect();
            let counts = PrefCounts::new(&judgements, &ranking, with_pairs)
                .map_err(|conflict| conflict_error(conflict, query, lines, &prefs.source))?;
            Ok(scorers
                .iter()
                .map(|scorer| match scorer {
                    Scorer::Counts(preference) => (preference.score)(&counts),
                    Scorer::One => 1.0,
                })
                .collect())
        })
        .collect();
    let mut values = vec![Vec::with_capacity(query_ids.len()); measures.len()];
    for row in rows {
        for (column, value) in values.iter_mut().zip(row?) {
            column.push(value);
        }
    }
    Ok(Evaluation {
        measures: measures.to_vec(),
        query_ids: query_ids.into_iter().map(String::from).collect(),
        values,
        unjudged_queries: unjudged,
        missing_queries: missing,
        run_name: run.name.clone(),
    })
}

/// A query's documents (`rows` of the run) by score, descending, ties by id ascending; the
/// first `max_documents`; a document twice is an error.
fn ranking<'r>(run: &'r Run, rows: &[usize], options: &EvalOptions) -> Result<Vec<&'r str>> {
    let mut ranked: Vec<(f64, &str)> = rows
        .iter()
        .map(|&row| (run.score[row], run.docs.get(row)))
        .collect();
    ranked.sort_by(|a, b| {
        let by_score = b.0.partial_cmp(&a.0).expect("finite scores");
        by_score.then(a.1.cmp(b.1))
    });
    ranked.truncate(options.max_documents.unwrap_or(usize::MAX));
    let mut docs: Vec<&str> = ranked.iter().map(|&(_, doc)| doc).collect();
    docs.sort_unstable();
    if let Some(pair) = docs.windows(2).find(|w| w[0] == w[1]) {
        let query = rows.first().map_or("", |&row| run.query_id(row));
        return Err(Error::DuplicateDocument(
            InputProblem::new(format!(
                "document {} appears more than once in the run of query {}; each document may \
                 be ranked once per query",
                quoted(pair[0]),
                quoted(query)
            ))
            .in_source(&run.source),
        ));
    }
    Ok(ranked.into_iter().map(|(_, doc)| doc).collect())
}

/// The input error for contradicting preferences, naming the line where it can.
fn conflict_error(conflict: Conflict, query: &str, lines: &[&PrefsLine], source: &str) -> Error {
    let at = |index: usize, message: String| {
        Error::Input(InputProblem {
            message,
            source: Some(source.to_string()),
            line: Some(lines[index].line),
            ..InputProblem::default()
        })
    };
    match conflict {
        Conflict::TwoLevels { judgement } => {
            let line = lines[judgement];
            at(
                judgement,
                format!(
                    "document {} has two different levels in group {} of query {}; a document \
                     has one level per subgroup",
                    quoted(&line.doc),
                    quoted(&line.group),
                    quoted(query)
                ),
            )
        }
        Conflict::ZeroAndNonZero { judgement } => {
            let line = lines[judgement];
            at(
                judgement,
                format!(
                    "document {} has level 0 (non-relevant) in one subgroup and a level above 0 \
                     in another of group {} of query {}",
                    quoted(&line.doc),
                    quoted(&line.group),
                    quoted(query)
                ),
            )
        }
        Conflict::Cycle { group, docs } => Error::Input(
            InputProblem::new(format!(
                "documents {} and {} are each preferred to the other in group {} of query {} \
                 (directly or through other documents); the preferences of one group must be \
                 consistent",
                quoted(&docs.0),
                quoted(&docs.1),
                quoted(&group),
                quoted(query)
            ))
            .in_source(source),
        ),
    }
}
