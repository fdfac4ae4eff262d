//! trec_eval's measure selection (`-m`), and its exact text output.
//!
//! trec_eval prints lines `measure<TAB>query<TAB>value`, the measure name left-justified to 22
//! characters, values with 4 decimals (counts as integers), families in the order of its
//! measure table (not the order of `-m`), each family's parameters in ascending order, queries
//! sorted byte-wise and the summary (`all`) last. [`select`] turns `-m` arguments into
//! [`TrecLine`]s; [`render`] prints them for per-query values. Both command lines (the Python
//! one and the native executable) print through here.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Read as _;

use crate::error::{float_text, quoted, Error, InputProblem, OptionProblem, Result};
use crate::measures::trec_eval::{table, Judgements, Style, TrecName, NICKNAMES};
use crate::measures::{parse_measure, Aggregate, Family, Measure, GEOMETRIC_MEAN_FLOOR};
use crate::table::Qrels;
use crate::trec::{byte_problem, io_error, open_file, NonIntegerGrade};

/// The width trec_eval left-justifies measure names to.
const NAME_WIDTH: usize = 22;

/// trec_eval's value for a query or measure without a mean in the z-score file.
pub const MISSING_ZSCORE: f64 = -1_000_000.0;

/// One line kind of trec_eval output: its printed name and the measure behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct TrecLine {
    /// The name printed (`P_10`, `ndcg_cut_5`, `runid`).
    pub printed: String,
    /// The measure computed; `None` for runid and relstring.
    pub measure: Option<Measure>,
    /// relstring's length (`None` for every other line).
    pub relstring: Option<usize>,
    /// The judgements it is computed from (trec_eval's `-R`).
    pub judgements: Judgements,
}

impl TrecLine {
    /// A line printing `measure` as `printed`, computed from qrels.
    pub fn new(printed: impl Into<String>, measure: Option<Measure>) -> Self {
        Self {
            printed: printed.into(),
            measure,
            relstring: None,
            judgements: Judgements::Qrels,
        }
    }

    /// Whether trec_eval prints it only in the summary (runid, num_q, gm_map...).
    pub fn summary_only(&self) -> bool {
        match &self.measure {
            None => self.relstring.is_none(),
            Some(m) => m.family.trec_eval.iter().any(|t| t.summary_only),
        }
    }

    /// Whether its values are counts, printed as integers.
    pub fn is_count(&self) -> bool {
        self.measure
            .as_ref()
            .is_some_and(|m| matches!(m.family.aggregate, Aggregate::Sum | Aggregate::Count))
    }
}

/// The output lines for trec_eval `-m` arguments (`P.5,10`, `official`), in trec_eval's
/// order; `collection_size` is trec_eval's `-N` (utility's last term). Warnings (parameters
/// trec_eval ignores, gains it may sort either way) are added to `warnings` as they are met,
/// before an error ends the selection.
///
/// ```
/// use rankscope_core::output::trec_eval::select;
///
/// let mut warnings = Vec::new();
/// let specs = ["P.10,5".to_string(), "map".to_string()];
/// let lines = select(&specs, 0, &mut warnings).unwrap();
/// let printed: Vec<&str> = lines.iter().map(|line| line.printed.as_str()).collect();
/// assert_eq!(printed, ["map", "P_5", "P_10"]);
/// assert_eq!(lines[1].measure.as_ref().unwrap().name(), "P@5");
/// ```
pub fn select(
    specs: &[String],
    collection_size: i64,
    warnings: &mut Vec<String>,
) -> Result<Vec<TrecLine>> {
    let rows = table();
    let official = ["official".to_string()];
    let specs = if specs.is_empty() { &official } else { specs };
    // Each trec_eval name asked for, with the -m argument that decides its parameters.
    let mut wanted: HashMap<&str, (&str, Option<&str>)> = HashMap::new();
    for spec in specs {
        let (family, text) = match spec.split_once('.') {
            Some((family, text)) => (family, Some(text)),
            None => (spec.as_str(), None),
        };
        if let Some((_, members)) = NICKNAMES.iter().find(|(nickname, _)| *nickname == family) {
            for &name in *members {
                wanted.entry(name).or_insert((name, None));
            }
            continue;
        }
        let Some((_, entry)) = rows.iter().find(|(_, entry)| entry.name == family) else {
            let known: Vec<&str> = NICKNAMES
                .iter()
                .map(|(nickname, _)| *nickname)
                .chain(rows.iter().map(|(_, entry)| entry.name))
                .collect();
            return Err(Error::measure(
                spec.as_str(),
                format!(
                    "unknown trec_eval measure {} in -m {} (known: {})",
                    quoted(family),
                    quoted(spec),
                    known.join(", ")
                ),
            ));
        };
        // As trec_eval: the first -m with parameters decides them, over bare names and
        // nicknames given before or after it.
        let decided = wanted
            .get(entry.name)
            .is_some_and(|(_, text)| text.is_some());
        if text.is_some() && !decided {
            wanted.insert(entry.name, (spec.as_str(), text));
        } else {
            wanted.entry(entry.name).or_insert((spec.as_str(), None));
        }
    }
    let mut lines = Vec::new();
    for (family, entry) in &rows {
        if let Some(&(spec, text)) = wanted.get(entry.name) {
            lines.extend(lines_of(
                *family,
                entry,
                spec,
                text,
                collection_size,
                warnings,
            )?);
        }
    }
    Ok(lines)
}

/// The lines one trec_eval name prints, given the argument `spec` and its parameters `text`.
fn lines_of(
    family: Option<&'static Family>,
    entry: &TrecName,
    spec: &str,
    text: Option<&str>,
    collection_size: i64,
    warnings: &mut Vec<String>,
) -> Result<Vec<TrecLine>> {
    let name = entry.name;
    let Some(ours) = family else {
        // runid and relstring are lines, not measures.
        if name == "runid" {
            return Ok(vec![TrecLine {
                judgements: entry.judgements,
                ..TrecLine::new("runid", None)
            }]);
        }
        let given = text.filter(|text| !text.is_empty());
        let values = match given {
            Some(text) => numbers(name, spec, text)?,
            None => entry.defaults.to_vec(),
        };
        let printed = given.map_or_else(|| name.to_string(), |text| format!("{name}_{text}"));
        return Ok(vec![TrecLine {
            relstring: Some(values[0] as usize),
            ..TrecLine::new(printed, None)
        }]);
    };
    let line = |printed: String, measure: &str| -> Result<TrecLine> {
        Ok(TrecLine {
            judgements: entry.judgements,
            ..TrecLine::new(printed, Some(parse_measure(measure)?))
        })
    };
    if let (Some(text), Style::None) = (text, entry.style) {
        warnings.push(format!(
            "trec_eval measure {} takes no parameters; {} ignored in -m {}, as trec_eval does",
            quoted(name),
            quoted(text),
            quoted(spec)
        ));
    }
    let given = text.filter(|text| !text.is_empty() && entry.style != Style::None);
    // A one-line family with parameters prints them as given: utility_2,-1,0,0.
    let printed = given.map_or_else(|| name.to_string(), |text| format!("{name}_{text}"));
    let values = || match given {
        Some(text) => numbers(name, spec, text),
        None => Ok(entry.defaults.to_vec()),
    };
    let lines = match entry.style {
        Style::None => vec![line(name.to_string(), ours.name)?],
        Style::Pairs => {
            // trec_eval's pairs set the gains of grades and (rbp's) p: the family's own
            // parameters.
            let takes = |param: &str| ours.params.iter().any(|p| p.name == param);
            let pairs = match given {
                Some(text) => pairs(name, spec, text)?,
                None => Vec::new(),
            };
            let mut gains: Vec<(&str, f64)> = pairs
                .iter()
                .filter(|(key, _)| is_digits(key.trim_start_matches(['+', '-'])))
                .map(|(key, value)| (key.as_str(), *value))
                .collect();
            gains.sort_by(|a, b| a.0.cmp(b.0).then(a.1.total_cmp(&b.1)));
            let grades = gains
                .iter()
                .map(|&(key, value)| Ok((grade_of(name, spec, key)?, value)))
                .collect::<Result<Vec<(i64, f64)>>>()?;
            warn_close_gains(spec, &grades, warnings);
            let mut params = Vec::new();
            if !grades.is_empty() && takes("gains") {
                let listed: Vec<String> = grades
                    .iter()
                    .map(|&(grade, gain)| format!("{grade}:{}", float_text(gain)))
                    .collect();
                params.push(format!("gains={}", listed.join(";")));
            }
            if let Some((_, p)) = pairs.iter().find(|(key, _)| key == "p") {
                if takes("p") {
                    params.push(format!("p={}", float_text(*p)));
                }
            }
            let measure = if params.is_empty() {
                ours.name.to_string()
            } else {
                format!("{}({})", ours.name, params.join(","))
            };
            vec![line(printed, &measure)?]
        }
        Style::Utility => {
            let values = values()?;
            let [a, b, c, d] = values[..] else {
                return Err(Error::measure(
                    spec,
                    format!(
                        "trec_eval measure 'utility' takes 4 coefficients (a,b,c,d); got -m {}",
                        quoted(spec)
                    ),
                ));
            };
            let size = if collection_size == 0 {
                String::new()
            } else {
                format!("n={}", float_text(collection_size as f64))
            };
            let measure = if given.is_some() {
                let sep = if size.is_empty() { "" } else { "," };
                format!(
                    "{}(a={},b={},c={},d={}{sep}{size})",
                    ours.name,
                    float_text(a),
                    float_text(b),
                    float_text(c),
                    float_text(d)
                )
            } else if size.is_empty() {
                // trec_eval's coefficients: the measure it prints as plain utility
                ours.name.to_string()
            } else {
                format!("{}({size})", ours.name)
            };
            vec![line(printed, &measure)?]
        }
        Style::Number => {
            let beta = values()?[0];
            vec![line(
                printed,
                &format!("{}(beta={})", ours.name, float_text(beta)),
            )?]
        }
        Style::LevelSet => match given {
            None => vec![line(name.to_string(), ours.name)?],
            Some(_) => {
                let levels: Vec<String> = distinct_sorted(name, spec, values()?)?
                    .into_iter()
                    .map(float_text)
                    .collect();
                let measure = format!("{}(levels={})", ours.name, levels.join(";"));
                vec![line(printed, &measure)?]
            }
        },
        Style::Levels | Style::Factors => distinct_sorted(name, spec, values()?)?
            .into_iter()
            .map(|level| {
                line(
                    format!("{name}_{level:.2}"),
                    &format!("{}@{}", ours.name, float_text(level)),
                )
            })
            .collect::<Result<_>>()?,
        Style::Cutoffs => {
            // trec_eval reads integer cutoffs with strtol: 23.4 becomes 23.
            let cuts = values()?.into_iter().map(f64::trunc).collect();
            distinct_sorted(name, spec, cuts)?
                .into_iter()
                .map(|cut| {
                    let cut = cut as i64;
                    line(format!("{name}_{cut}"), &format!("{}@{cut}", ours.name))
                })
                .collect::<Result<_>>()?
        }
    };
    Ok(lines)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A number as Python's `float` reads it (surrounding white space allowed).
fn python_float(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.contains('_') {
        return None;
    }
    text.parse().ok()
}

fn numbers(family: &str, spec: &str, text: &str) -> Result<Vec<f64>> {
    text.split(',')
        .map(|part| {
            python_float(part).ok_or_else(|| {
                Error::measure(
                    spec,
                    format!(
                        "trec_eval measure {} takes numeric parameters; got {} in -m {}",
                        quoted(family),
                        quoted(part),
                        quoted(spec)
                    ),
                )
            })
        })
        .collect()
}

/// trec_eval refuses a parameter list with a value twice (`-m P.5,5`).
fn distinct_sorted(family: &str, spec: &str, mut values: Vec<f64>) -> Result<Vec<f64>> {
    values.sort_by(f64::total_cmp);
    let mut repeated: Vec<f64> = values
        .windows(2)
        .filter(|pair| pair[0] == pair[1])
        .map(|pair| pair[0])
        .collect();
    repeated.dedup();
    if repeated.is_empty() {
        return Ok(values);
    }
    let shown: Vec<String> = repeated.into_iter().map(general_text).collect();
    Err(Error::measure(
        spec,
        format!(
            "trec_eval measure {} lists {} twice in -m {}; trec_eval refuses repeated parameters",
            quoted(family),
            shown.join(", "),
            quoted(spec)
        ),
    ))
}

/// A number as C's and Python's `%g` print it: 6 significant digits, trailing zeros dropped.
fn general_text(value: f64) -> String {
    if !value.is_finite() {
        return float_text(value);
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let trimmed = |text: &str| -> String {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text.to_string()
        }
    };
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trimmed(mantissa), exponent.abs());
    }
    let decimals = (5 - exponent) as usize;
    trimmed(&format!("{value:.decimals$}"))
}

/// trec_eval's `name=value` pairs, in the order given.
fn pairs(family: &str, spec: &str, text: &str) -> Result<Vec<(String, f64)>> {
    let mut pairs: Vec<(String, f64)> = Vec::new();
    for part in text.split(',') {
        let (name, value) = part.split_once('=').unwrap_or((part, ""));
        let number = python_float(value).filter(|v| v.is_finite());
        let (Some(number), false, true) = (number, name.is_empty(), part.contains('=')) else {
            return Err(Error::measure(
                spec,
                format!(
                    "trec_eval measure {} takes name=value parameters (e.g. {family}.1=3,2=9); \
                     got {} in -m {}",
                    quoted(family),
                    quoted(part),
                    quoted(spec)
                ),
            ));
        };
        if pairs.iter().any(|(seen, _)| seen == name) {
            return Err(Error::measure(
                spec,
                format!(
                    "trec_eval measure {} sets {} twice in -m {}",
                    quoted(family),
                    quoted(name),
                    quoted(spec)
                ),
            ));
        }
        pairs.push((name.to_string(), number));
    }
    Ok(pairs)
}

fn grade_of(family: &str, spec: &str, key: &str) -> Result<i64> {
    key.parse().map_err(|_| {
        Error::measure(
            spec,
            format!(
                "trec_eval measure {} takes a grade as an integer; got {} in -m {}",
                quoted(family),
                quoted(key),
                quoted(spec)
            ),
        )
    })
}

/// Warn where trec_eval's order of gains is the C library's: its comparator truncates the
/// difference of two gains to an integer, so gains less than 1 apart (among those given and
/// the grades' own gains) compare equal and qsort may put them either way.
fn warn_close_gains(spec: &str, gains: &[(i64, f64)], warnings: &mut Vec<String>) {
    let Some(highest) = gains.iter().map(|&(grade, _)| grade).max() else {
        return;
    };
    let mut table: BTreeMap<i64, f64> = (0..=highest.max(0)).map(|g| (g, g as f64)).collect();
    table.extend(gains.iter().copied());
    let mut values: Vec<f64> = table.into_values().collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    if values.windows(2).any(|pair| pair[1] - pair[0] < 1.0) {
        warnings.push(format!(
            "-m {spec}: gains less than 1 apart; trec_eval 10 compares gains by their \
             difference truncated to an integer, so the order it sorts them in (and its value) \
             depends on the C library; this prints the value with the gains in order"
        ));
    }
}

/// The warning for a line whose value trec_eval computes from memory it never wrote (the
/// registry says where): what the command prints is the corrected computation's.
pub fn undetermined_warning(line: &TrecLine) -> Option<String> {
    let measure = line.measure.as_ref()?;
    let entry = measure
        .family
        .trec_eval
        .iter()
        .find(|entry| !entry.undetermined.is_empty() && line.printed.starts_with(entry.name))?;
    Some(format!(
        "{}: {}, so its value there is not determined by the input; this prints the corrected \
         value",
        line.printed, entry.undetermined
    ))
}

/// Where trec_eval 10 stops before printing a line: the first query it evaluates, its first
/// judged query in byte order (when the run has it, or with `-c`) or `only_query` (`-D
/// N.QID`'s, the only one it evaluates then), has only negative grades. trec_eval sizes its
/// count of documents per grade by the query's highest grade plus one, nothing here, and its
/// first allocation of nothing fails: the first line asked, in its order, that reads the
/// judgements (all but runid and num_q) stops it with `Can't calculate measure '...'` and exit
/// status 4. A later query with only negative grades is evaluated (the count exists by then).
/// Returns that query and trec_eval's name of the measure; the caller knows whether the run
/// has the query ([`stop`] decides).
///
/// ```
/// use rankscope_core::output::trec_eval::{negative_first_query, select};
/// use rankscope_core::table::Qrels;
///
/// let lines = select(&["num_q".into(), "map".into(), "P.5".into()], 0, &mut Vec::new()).unwrap();
/// let mut qrels = Qrels::new("qrels");
/// qrels.push("b", "d1", 1);
/// qrels.push("c", "d1", -1);
/// qrels.push("a", "d1", -1);
/// assert_eq!(negative_first_query(&qrels, &lines, None), Some(("a".into(), "map".into())));
/// // With -D N.QID, QID is the first query evaluated.
/// assert_eq!(negative_first_query(&qrels, &lines, Some("b")), None);
/// assert_eq!(negative_first_query(&qrels, &lines, Some("c")), Some(("c".into(), "map".into())));
/// qrels.push("a", "d2", 0);
/// assert_eq!(negative_first_query(&qrels, &lines, None), None);
/// ```
pub fn negative_first_query(
    qrels: &Qrels,
    lines: &[TrecLine],
    only_query: Option<&str>,
) -> Option<(String, String)> {
    let name = |code: u32| qrels.queries.name(code).as_bytes();
    // The first query evaluated (the byte-wise first named, or -D's); its judgements end the
    // look at the first grade of 0 or more (in the file's first lines, as a rule).
    let first = match only_query {
        Some(query) => qrels.queries.get(query)?,
        None => first_query(qrels)?,
    };
    let mut judged = false;
    for (&query, &grade) in qrels.query.iter().zip(&qrels.grade) {
        if query == first {
            if grade >= 0 {
                return None;
            }
            judged = true;
        }
    }
    let first = if judged {
        first
    } else if only_query.is_some() {
        return None;
    } else {
        // A query named without judgements (not one the reader gives): the first judged one.
        let mut highest: Vec<Option<i64>> = vec![None; qrels.queries.len()];
        for (&query, &grade) in qrels.query.iter().zip(&qrels.grade) {
            let seen = &mut highest[query as usize];
            *seen = Some(seen.map_or(grade, |g| g.max(grade)));
        }
        let (first, grade) = highest
            .iter()
            .enumerate()
            .filter_map(|(code, grade)| Some((code as u32, (*grade)?)))
            .min_by(|&(a, _), &(b, _)| name(a).cmp(name(b)))?;
        if grade >= 0 {
            return None;
        }
        first
    };
    let line = lines
        .iter()
        .find(|line| line.judgements != Judgements::Any)?;
    let name = match &line.measure {
        None => "relstring",
        Some(measure) => measure
            .family
            .trec_eval
            .iter()
            .map(|entry| entry.name)
            .filter(|name| {
                line.printed
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
            })
            .max_by_key(|name| name.len())
            .unwrap_or(line.printed.as_str()),
    };
    Some((qrels.queries.name(first).to_owned(), name.to_owned()))
}

/// The exit status trec_eval 10 ends with where it stops (a judged query without results, a
/// measure it cannot calculate), and so do both command lines.
pub const STOP_STATUS: u8 = 4;

/// The exit status trec_eval 10 ends with where no query has both results and judgements
/// (with `-D N.QID`, QID is not judged), and so do both command lines.
pub const NO_QUERIES_STATUS: u8 = 7;

/// The byte-wise first query named in `qrels`, the first trec_eval evaluates.
fn first_query(qrels: &Qrels) -> Option<u32> {
    let name = |code: u32| qrels.queries.name(code).as_bytes();
    (0..qrels.queries.len() as u32).min_by(|&a, &b| name(a).cmp(name(b)))
}

/// The -R options a kind of judgements is read with, as the refusal names them.
fn read_with(judgements: Judgements) -> &'static str {
    match judgements {
        Judgements::Qrels | Judgements::Any => "-R qrels (the default)",
        Judgements::Groups => "-R qrels_jg",
        Judgements::Preferences => "-R prefs or -R qrels_prefs",
    }
}

/// Refuse the first line (`printed` name, the judgements it is computed from) that `given`
/// (`-R`'s kind of judgements) cannot compute, as trec_eval cannot.
///
/// ```
/// use rankscope_core::measures::trec_eval::Judgements;
/// use rankscope_core::output::trec_eval::check_judgements;
///
/// let lines = [("map", Judgements::Qrels), ("runid", Judgements::Any)];
/// assert!(check_judgements(lines, Judgements::Qrels).is_ok());
/// let error = check_judgements(lines, Judgements::Groups).unwrap_err();
/// assert_eq!(error.to_string(), "-m map: trec_eval computes it only with -R qrels (the default)");
/// ```
pub fn check_judgements<'a>(
    lines: impl IntoIterator<Item = (&'a str, Judgements)>,
    given: Judgements,
) -> Result<()> {
    for (printed, judgements) in lines {
        if judgements != Judgements::Any && judgements != given {
            let message = format!(
                "-m {printed}: trec_eval computes it only with {}",
                read_with(judgements)
            );
            return Err(Error::Option(OptionProblem::new("-m", printed, message)));
        }
    }
    Ok(())
}

/// The refusal of a grade trec_eval reads otherwise than rankscope (`source`: the qrels file
/// as named): trec_eval reads grades with `atol`, which stops at the first character that is
/// not a digit (`1e1` is 1, `2.7` is 2); rankscope reads `1e1` as 10 and refuses `2.7`.
pub fn grade_refusal(found: &NonIntegerGrade, source: &str) -> Error {
    let message = format!(
        "the grade {} is not an integer: trec_eval would read it as {} (it stops at the first \
         character that is not a digit); write the grade as an integer",
        quoted(&found.grade),
        found.as_trec_eval
    );
    let problem = InputProblem::new(message).in_source(source);
    Error::Parse(problem.at_line(found.line as u64, found.text.clone()))
}

/// Where no query of the run is judged (`error`: the error's message, as shown): the message
/// trec_eval stops with at its first judged query, with [`STOP_STATUS`], unless `complete`
/// (`-c`) or `fix_quirks` (`--fix-trec-eval-quirks`), where the error is the error (None).
pub fn no_common_queries_stop(
    error: &str,
    qrels: &Qrels,
    complete: bool,
    fix_quirks: bool,
) -> Option<String> {
    if complete || fix_quirks {
        return None;
    }
    let first =
        first_query(qrels).map_or_else(String::new, |code| quoted(qrels.queries.name(code)));
    Some(format!(
        "{error}; trec_eval stops at its first judged query, {first}, with exit status \
         {STOP_STATUS}, and so does this command. Give -c to score the judged queries the run \
         lacks"
    ))
}

/// The message where trec_eval stops at `query`, judged in the qrels file `qrels` but without
/// results in the run file `run` (without `-c`), having printed the queries before it.
pub fn missing_query_stop(query: &str, qrels: &str, run: &str) -> String {
    format!(
        "query {} is judged in {qrels} but has no results in {run}; trec_eval stops there with \
         exit status {STOP_STATUS}, and so does this command (the output above is what \
         trec_eval prints before it). Give -c to score such queries, or \
         --fix-trec-eval-quirks to leave them out of the averages",
        quoted(query)
    )
}

/// The message where trec_eval stops before printing a line ([`negative_first_query`]'s
/// query and measure; `qrels`: the qrels file as named).
pub fn negative_first_query_stop(query: &str, measure: &str, qrels: &str) -> String {
    format!(
        "query {}, the first trec_eval evaluates, has only negative grades in {qrels}: \
         trec_eval 10 sizes its count of documents per grade by the highest grade, and stops \
         with \"Can't calculate measure '{measure}'\" and exit status {STOP_STATUS} before \
         printing anything; so does this command. Give --fix-trec-eval-quirks to evaluate it \
         as trec_eval does any later query",
        quoted(query)
    )
}

/// The message where the query of `-D N.QID` is not judged in the qrels file `qrels`:
/// trec_eval evaluates that query alone, finds none with both results and judgements and stops
/// before printing anything, with [`NO_QUERIES_STATUS`].
pub fn unjudged_only_query_stop(query: &str, qrels: &str) -> String {
    format!(
        "-D: query {} is not judged in {qrels}; trec_eval evaluates that query alone, says \
         \"No queries with both results and relevance info\" and stops with exit status \
         {NO_QUERIES_STATUS} before printing anything, and so does this command",
        quoted(query)
    )
}

/// The error where the query of `-D N.QID` is not judged in the qrels file `qrels`, under
/// `--fix-trec-eval-quirks`: there is nothing to evaluate.
fn unjudged_only_query(query: &str, qrels: &str) -> Error {
    let message = format!(
        "query {} is not judged in {qrels}: there is no query to evaluate",
        quoted(query)
    );
    Error::Option(OptionProblem::new("-D", query, format!("-D: {message}")))
}

/// What both command lines know where trec_eval 10 decides whether it stops, once the run is
/// evaluated: [`stop`] decides.
#[derive(Debug, Clone, Copy)]
pub struct StopFacts<'a> {
    /// The judged queries the run has no results for, in any order.
    pub missing_queries: &'a [String],
    /// The queries the output prints, byte-wise (with `-D N.QID`, QID's alone).
    pub query_ids: &'a [String],
    /// Whether the judged queries without results are scored (`-c`).
    pub complete: bool,
    /// The query of `-D N.QID`, the only one trec_eval evaluates.
    pub only_query: Option<&'a str>,
    /// Whether trec_eval 10's quirks are fixed (`--fix-trec-eval-quirks`): nothing stops then.
    pub fix_quirks: bool,
    /// [`negative_first_query`]'s query and measure, given `only_query` (None for judgements
    /// other than qrels).
    pub negative_first: Option<(&'a str, &'a str)>,
    /// The qrels file, as named.
    pub qrels: &'a str,
    /// The run file, as named.
    pub run: &'a str,
}

/// Where trec_eval 10 stops, as [`stop`] decides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// It does not stop: every query is printed, and the summary.
    No,
    /// It stops before printing anything, with `message` and `status` ([`STOP_STATUS`], or
    /// [`NO_QUERIES_STATUS`]).
    BeforePrinting {
        /// The message it stops with.
        message: String,
        /// The exit status it ends with.
        status: u8,
    },
    /// It prints the first `shown` queries, no summary, then stops with `message` and
    /// [`STOP_STATUS`].
    After {
        /// How many of the queries are printed.
        shown: usize,
        /// The message it stops with.
        message: String,
    },
}

/// Where trec_eval 10 stops, for both command lines. With `-D N.QID` where QID is neither
/// printed nor missing (not judged), it stops before printing anything with
/// [`NO_QUERIES_STATUS`]; under `--fix-trec-eval-quirks` that is an error (the option's). Its
/// first query of only negative grades
/// ([`negative_first_query`]) stops it before it prints anything, unless the run lacks that
/// query and not `-c` (the stop below comes first then). Else it stops at its first judged
/// query (byte-wise) without results, not under `-c` (with `-D N.QID`, only QID is looked
/// at): it prints the queries before it (byte-wise below it) and no summary. Else, and with
/// `--fix-trec-eval-quirks`, it does not stop.
///
/// ```
/// use rankscope_core::output::trec_eval::{stop, Stop, StopFacts};
///
/// let ids = |names: &[&str]| names.iter().map(|name| name.to_string()).collect::<Vec<_>>();
/// let (missing, query_ids) = (ids(&["9", "5"]), ids(&["10", "3", "7"]));
/// let facts = StopFacts {
///     missing_queries: &missing,
///     query_ids: &query_ids,
///     complete: false,
///     only_query: None,
///     fix_quirks: false,
///     negative_first: None,
///     qrels: "qrels",
///     run: "run",
/// };
/// // "5" is the first missing query: "10" and "3" are printed before it.
/// assert!(matches!(stop(&facts).unwrap(), Stop::After { shown: 2, .. }));
/// assert_eq!(stop(&StopFacts { complete: true, ..facts }).unwrap(), Stop::No);
/// // -D 0.8: query "8" is not judged.
/// let unjudged = StopFacts { only_query: Some("8"), query_ids: &[], ..facts };
/// assert!(matches!(stop(&unjudged).unwrap(), Stop::BeforePrinting { status: 7, .. }));
/// assert!(stop(&StopFacts { fix_quirks: true, ..unjudged }).is_err());
/// ```
pub fn stop(facts: &StopFacts<'_>) -> Result<Stop> {
    if let Some(only) = facts.only_query {
        let judged = |queries: &[String]| queries.iter().any(|query| query == only);
        if !judged(facts.query_ids) && !judged(facts.missing_queries) {
            if facts.fix_quirks {
                return Err(unjudged_only_query(only, facts.qrels));
            }
            return Ok(Stop::BeforePrinting {
                message: unjudged_only_query_stop(only, facts.qrels),
                status: NO_QUERIES_STATUS,
            });
        }
    }
    if facts.fix_quirks {
        return Ok(Stop::No);
    }
    let missing = |query: &str| !facts.complete && facts.missing_queries.iter().any(|q| q == query);
    if let Some((query, measure)) = facts.negative_first {
        if !missing(query) {
            return Ok(Stop::BeforePrinting {
                message: negative_first_query_stop(query, measure, facts.qrels),
                status: STOP_STATUS,
            });
        }
    }
    let first_missing = facts
        .missing_queries
        .iter()
        .filter(|_| !facts.complete)
        .filter(|query| facts.only_query.map_or(true, |only| only == query.as_str()))
        .min_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let Some(stop_at) = first_missing else {
        return Ok(Stop::No);
    };
    let shown = facts
        .query_ids
        .iter()
        .take_while(|query| query.as_bytes() < stop_at.as_bytes())
        .count();
    Ok(Stop::After {
        shown,
        message: missing_query_stop(stop_at, facts.qrels, facts.run),
    })
}

/// One line kind's values, as [`render`] prints them.
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    /// The line.
    pub line: &'a TrecLine,
    /// Its value for each query (in the order of the queries); empty for runid and
    /// relstring.
    pub values: &'a [f64],
    /// The value its summary prints: its aggregate, or another line's.
    pub summary: f64,
    /// Whether `summary` is another line's (trec_eval's num_rel under `-c`), which z-scores
    /// print as it is.
    pub summary_of_other: bool,
}

/// Per query id and printed name, the mean and standard deviation of trec_eval's `-Z` file.
pub type ZScores = HashMap<(String, String), (f64, f64)>;

/// Read trec_eval's `-Z` file: lines `query_id measure mean stddev` (measures by their printed
/// names), blank lines skipped; `source` names the file in messages. A pair given twice keeps
/// its last line.
pub fn read_zscores(path: &std::path::Path, source: &str) -> Result<ZScores> {
    let mut data = Vec::new();
    open_file(path, source)?
        .read_to_end(&mut data)
        .map_err(|error| io_error(&error, source))?;
    parse_zscores(&data, source)
}

/// The `-Z` file's content (see [`read_zscores`]), lines ending in `\n`, `\r\n` or `\r`.
///
/// ```
/// use rankscope_core::output::trec_eval::parse_zscores;
///
/// let zscores = parse_zscores(b"301 map 0.5 0.25\n\n302 map 1e-1 0\n", "z").unwrap();
/// assert_eq!(zscores[&("302".to_string(), "map".to_string())], (0.1, 0.0));
/// let error = parse_zscores(b"301 map 0.5 0.25\r\n301 P_5 x 0\n", "z").unwrap_err();
/// assert_eq!(error.to_string(), "z:2: mean and stddev must be numbers\n    301 P_5 x 0");
/// ```
pub fn parse_zscores(data: &[u8], source: &str) -> Result<ZScores> {
    let mut zscores = ZScores::new();
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    let lines = data.split(|&b| b == b'\n').flat_map(|line| {
        // A lone \r ends a line too, as Python's text files read them.
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        line.split(|&b| b == b'\r')
    });
    for (number, raw) in (1u64..).zip(lines) {
        if let Some((problem, shown)) = byte_problem(raw) {
            let problem = InputProblem::new(problem).in_source(source);
            return Err(Error::Parse(problem.at_line(number, shown)));
        }
        let line = std::str::from_utf8(raw).unwrap_or_default();
        let fields: Vec<&str> = line.split_whitespace().collect();
        let problem = match fields[..] {
            [] => continue,
            [query_id, measure, mean, stddev] => match (python_float(mean), python_float(stddev)) {
                (Some(mean), Some(stddev)) => {
                    zscores.insert((query_id.to_string(), measure.to_string()), (mean, stddev));
                    continue;
                }
                _ => "mean and stddev must be numbers".to_string(),
            },
            _ => format!(
                "expected 4 fields (query_id measure mean stddev); found {}",
                fields.len()
            ),
        };
        return Err(Error::Parse(
            InputProblem::new(problem)
                .in_source(source)
                .at_line(number, line),
        ));
    }
    Ok(zscores)
}

/// What [`render`] prints besides the values.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    /// The queries, in the order of the columns' values (byte-wise ascending).
    pub query_ids: &'a [String],
    /// Print a line per query (trec_eval's `-q`).
    pub per_query: bool,
    /// Print the summary lines (`all`; trec_eval's `-n` leaves them out).
    pub summary: bool,
    /// The run's name, runid's value.
    pub run_name: &'a str,
    /// The relstring of each query (per query only, as trec_eval prints it).
    pub relstrings: Option<&'a HashMap<String, String>>,
    /// trec_eval's `-Z`: every value becomes its z-score against these means and standard
    /// deviations, the summaries aggregate the z-scores, and names get a `Z`.
    pub zscores: Option<&'a ZScores>,
    /// Under `-Z`: judged queries the summary counts without values (trec_eval's `-c` with
    /// `-D N.QID` evaluates QID alone and averages over every judged query). Each adds
    /// nothing to a sum or a mean of z-scores, the floor's logarithm to a geometric mean's,
    /// and one to num_q. Without `-Z` the caller's summaries already count them.
    pub absent: usize,
}

/// The text trec_eval prints for these columns, byte for byte.
///
/// ```
/// use rankscope_core::output::trec_eval::{render, select, Column, Layout};
///
/// let lines = select(&["num_q".into(), "map".into()], 0, &mut Vec::new()).unwrap();
/// let columns = [
///     Column { line: &lines[0], values: &[1.0], summary: 1.0, summary_of_other: false },
///     Column { line: &lines[1], values: &[1.0], summary: 1.0, summary_of_other: false },
/// ];
/// let query_ids = ["q".to_string()];
/// let layout = Layout {
///     query_ids: &query_ids,
///     per_query: true,
///     summary: true,
///     run_name: "run",
///     relstrings: None,
///     zscores: None,
///     absent: 0,
/// };
/// assert_eq!(
///     render(&columns, &layout),
///     "map                   \tq\t1.0000\n\
///      num_q                 \tall\t1\n\
///      map                   \tall\t1.0000\n"
/// );
/// ```
pub fn render(columns: &[Column<'_>], layout: &Layout<'_>) -> String {
    if let Some(zscores) = layout.zscores {
        return render_zscores(columns, layout, zscores);
    }
    let mut out = String::new();
    if layout.per_query {
        for (row, query_id) in layout.query_ids.iter().enumerate() {
            for column in columns {
                let line = column.line;
                if line.relstring.is_some() {
                    let text = relstring_of(layout, query_id);
                    push_line(&mut out, &line.printed, query_id, &format!("'{text}'"));
                } else if line.measure.is_some() && !line.summary_only() {
                    let value = value_text(line, column.values[row]);
                    push_line(&mut out, &line.printed, query_id, &value);
                }
            }
        }
    }
    for column in columns.iter().filter(|_| layout.summary) {
        let line = column.line;
        if line.relstring.is_some() {
            continue;
        }
        let value = if line.measure.is_none() {
            layout.run_name.to_string()
        } else {
            value_text(line, column.summary)
        };
        push_line(&mut out, &line.printed, "all", &value);
    }
    out
}

fn render_zscores(columns: &[Column<'_>], layout: &Layout<'_>, zscores: &ZScores) -> String {
    let geometric = |line: &TrecLine| {
        line.measure
            .as_ref()
            .is_some_and(|m| m.family.aggregate == Aggregate::GeometricMean)
    };
    let converted: Vec<Vec<f64>> = columns
        .iter()
        .map(|column| {
            if column.line.measure.is_none() {
                return Vec::new();
            }
            let geometric = geometric(column.line);
            layout
                .query_ids
                .iter()
                .zip(column.values)
                .map(|(query_id, &value)| {
                    // trec_eval's gm_* keep log(max(value, floor)) per query: the z-score is
                    // of that.
                    let value = if geometric {
                        value.max(GEOMETRIC_MEAN_FLOOR).ln()
                    } else {
                        value
                    };
                    let key = (query_id.clone(), column.line.printed.clone());
                    zscore(value, zscores.get(&key))
                })
                .collect()
        })
        .collect();
    let mut out = String::new();
    for (row, query_id) in layout.query_ids.iter().enumerate() {
        if !layout.per_query {
            break;
        }
        for (column, values) in columns.iter().zip(&converted) {
            let line = column.line;
            if line.relstring.is_some() {
                let text = relstring_of(layout, query_id);
                push_line(&mut out, &line.printed, query_id, &format!("'{text}'"));
            } else if line.measure.is_some() && !line.summary_only() {
                out.push('Z');
                push_line(&mut out, &line.printed, query_id, &number_text(values[row]));
            }
        }
    }
    for (column, values) in columns.iter().zip(&converted).filter(|_| layout.summary) {
        let line = column.line;
        let Some(measure) = &line.measure else {
            if line.relstring.is_none() {
                push_line(&mut out, &line.printed, "all", layout.run_name);
            }
            continue;
        };
        let value = if column.summary_of_other {
            // trec_eval's summary of num_rel under -c is its count of relevant judgements,
            // not a z-score.
            column.summary
        } else {
            zscore_summary(measure.family.aggregate, values, layout.absent)
        };
        out.push('Z');
        push_line(&mut out, &line.printed, "all", &number_text(value));
    }
    out
}

/// The summary of a line's z-scores (of the logarithms, floored, for a geometric mean) under
/// `aggregate`, with `absent` judged queries that have none (see [`Layout::absent`]): as
/// trec_eval accumulates them, an absent query adds 0, or `ln(floor)` to a geometric mean.
fn zscore_summary(aggregate: Aggregate, values: &[f64], absent: usize) -> f64 {
    let geometric = aggregate == Aggregate::GeometricMean;
    let filler = if geometric {
        GEOMETRIC_MEAN_FLOOR.ln()
    } else {
        0.0
    };
    let all: Vec<f64> = values
        .iter()
        .copied()
        .chain(std::iter::repeat(filler).take(absent))
        .collect();
    if geometric {
        Aggregate::Mean.apply(&all).exp()
    } else {
        aggregate.apply(&all)
    }
}

/// As trec_eval: (value - mean) / stddev; 0 for a stddev of 0 and the mean itself.
fn zscore(value: f64, mean_stddev: Option<&(f64, f64)>) -> f64 {
    let Some(&(mean, stddev)) = mean_stddev else {
        return MISSING_ZSCORE;
    };
    if stddev != 0.0 {
        (value - mean) / stddev
    } else if value == mean {
        0.0
    } else {
        MISSING_ZSCORE
    }
}

fn relstring_of<'a>(layout: &Layout<'a>, query_id: &str) -> &'a str {
    layout
        .relstrings
        .and_then(|strings| strings.get(query_id))
        .map_or("", String::as_str)
}

fn push_line(out: &mut String, printed: &str, query_id: &str, value: &str) {
    // Infallible: writing to a String.
    let _ = writeln!(out, "{printed:<NAME_WIDTH$}\t{query_id}\t{value}");
}

fn value_text(line: &TrecLine, value: f64) -> String {
    if line.is_count() {
        count_text(value)
    } else {
        number_text(value)
    }
}

/// A count as an integer, rounded half to even (as Python's `round`).
pub(crate) fn count_text(value: f64) -> String {
    if !value.is_finite() {
        return float_text(value);
    }
    let rounded = value.round();
    let rounded = if (value - value.trunc()).abs() == 0.5 && rounded % 2.0 != 0.0 {
        rounded - value.signum()
    } else {
        rounded
    };
    format!("{rounded:.0}")
}

/// A value as trec_eval's `%6.4f` prints it; NaN as the `-nan` of 0.0 / 0.0 on the machines
/// trec_eval runs on (x86 and ARM set the sign of that NaN).
pub fn number_text(value: f64) -> String {
    if value.is_nan() {
        return "  -nan".into();
    }
    format!("{value:.4}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(specs: &[&str]) -> Vec<String> {
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_string()).collect();
        select(&specs, 0, &mut Vec::new())
            .unwrap()
            .into_iter()
            .map(|line| line.printed)
            .collect()
    }

    fn measures(specs: &[&str], size: i64) -> Vec<String> {
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_string()).collect();
        select(&specs, size, &mut Vec::new())
            .unwrap()
            .into_iter()
            .map(|line| line.measure.map_or_else(|| "-".into(), |m| m.name()))
            .collect()
    }

    fn error(specs: &[&str]) -> String {
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_string()).collect();
        select(&specs, 0, &mut Vec::new()).unwrap_err().to_string()
    }

    #[test]
    fn families_print_in_the_order_of_trec_eval_s_table() {
        assert_eq!(printed(&["P.10,5", "map"]), ["map", "P_5", "P_10"]);
        assert_eq!(
            printed(&[]),
            printed(&["official"]),
            "official is the default"
        );
        assert_eq!(printed(&["official"])[..3], ["runid", "num_q", "num_ret"]);
        assert_eq!(printed(&["official"]).len(), 30);
    }

    #[test]
    fn the_first_argument_with_parameters_decides_them() {
        assert_eq!(printed(&["P", "P.3", "P.7"]), ["P_3"]);
        assert_eq!(printed(&["official", "P.2"]).last().unwrap(), "P_2");
    }

    #[test]
    fn parameters_read_as_trec_eval_reads_them() {
        assert_eq!(printed(&["P.23.4"]), ["P_23"]);
        assert_eq!(
            printed(&["iprec_at_recall.0.5,0.1"]),
            ["iprec_at_recall_0.10", "iprec_at_recall_0.50"]
        );
        assert_eq!(measures(&["iprec_at_recall.0.1"], 0), ["IPrec@0.1"]);
        assert_eq!(printed(&["utility.2,-1,0,0"]), ["utility_2,-1,0,0"]);
        assert_eq!(measures(&["utility"], 0), ["Utility"]);
        assert_eq!(measures(&["utility"], 50), ["Utility(n=50.0)"]);
        assert_eq!(printed(&["relstring.5"]), ["relstring_5"]);
        assert_eq!(measures(&["relstring"], 0), ["-"]);
    }

    #[test]
    fn bad_parameters_are_refused_with_the_argument() {
        assert_eq!(
            error(&["P.5,5"]),
            "trec_eval measure 'P' lists 5 twice in -m 'P.5,5'; trec_eval refuses repeated \
             parameters"
        );
        assert_eq!(
            error(&["P.x"]),
            "trec_eval measure 'P' takes numeric parameters; got 'x' in -m 'P.x'"
        );
        assert_eq!(
            error(&["utility.1,2"]),
            "trec_eval measure 'utility' takes 4 coefficients (a,b,c,d); got -m 'utility.1,2'"
        );
        assert!(error(&["nope"]).starts_with(
            "unknown trec_eval measure 'nope' in -m 'nope' (known: official, all_trec,"
        ));
    }

    #[test]
    fn ignored_parameters_and_close_gains_warn() {
        let mut warnings = Vec::new();
        select(&["map.5".to_string()], 0, &mut warnings).unwrap();
        assert_eq!(
            warnings,
            [
                "trec_eval measure 'map' takes no parameters; '5' ignored in -m 'map.5', as \
              trec_eval does"
            ]
        );
        let mut warnings = Vec::new();
        select(&["ndcg.1=0.5".to_string()], 0, &mut warnings).unwrap();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("-m ndcg.1=0.5: gains less than 1 apart"));
    }

    #[test]
    fn general_text_is_percent_g() {
        let cases = [
            (5.0, "5"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (123_456.0, "123456"),
            (1_234_567.0, "1.23457e+06"),
            (0.000_123, "0.000123"),
            (-2.5, "-2.5"),
        ];
        for (value, text) in cases {
            assert_eq!(general_text(value), text);
        }
    }

    #[test]
    fn numbers_print_as_trec_eval_prints_them() {
        assert_eq!(number_text(0.12345), "0.1235");
        assert_eq!(number_text(f64::NAN), "  -nan");
        assert_eq!(number_text(-0.0), "-0.0000");
        assert_eq!(count_text(2.5), "2");
        assert_eq!(count_text(3.5), "4");
        assert_eq!(count_text(1000.0), "1000");
    }

    fn rendered(specs: &[&str], per_query: bool, zscores: Option<&ZScores>) -> String {
        rendered_with_absent(specs, per_query, zscores, 0)
    }

    /// [`rendered`] with `absent` judged queries the summary counts without values.
    fn rendered_with_absent(
        specs: &[&str],
        per_query: bool,
        zscores: Option<&ZScores>,
        absent: usize,
    ) -> String {
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_string()).collect();
        let lines = select(&specs, 0, &mut Vec::new()).unwrap();
        let values = [0.5, 0.25];
        let columns: Vec<Column<'_>> = lines
            .iter()
            .map(|line| Column {
                line,
                values: if line.measure.is_some() { &values } else { &[] },
                summary: 0.375,
                summary_of_other: false,
            })
            .collect();
        let query_ids = ["a".to_string(), "b".to_string()];
        let relstrings: HashMap<String, String> = [("a".to_string(), "1-0".to_string())].into();
        render(
            &columns,
            &Layout {
                query_ids: &query_ids,
                per_query,
                summary: true,
                run_name: "run",
                relstrings: Some(&relstrings),
                zscores,
                absent,
            },
        )
    }

    #[test]
    fn lines_per_query_then_the_summary() {
        assert_eq!(
            rendered(&["runid", "map", "relstring.3"], true, None),
            "map                   \ta\t0.5000\n\
             relstring_3           \ta\t'1-0'\n\
             map                   \tb\t0.2500\n\
             relstring_3           \tb\t''\n\
             runid                 \tall\trun\n\
             map                   \tall\t0.3750\n"
        );
        assert_eq!(
            rendered(&["num_ret", "map"], false, None),
            "num_ret               \tall\t0\nmap                   \tall\t0.3750\n"
        );
    }

    #[test]
    fn zscores_against_the_file_s_means() {
        let zscores: ZScores = [
            (("a".to_string(), "map".to_string()), (0.25, 0.5)),
            (("b".to_string(), "map".to_string()), (0.25, 0.0)),
        ]
        .into();
        assert_eq!(
            rendered(&["runid", "map"], true, Some(&zscores)),
            "Zmap                   \ta\t0.5000\n\
             Zmap                   \tb\t0.0000\n\
             runid                 \tall\trun\n\
             Zmap                   \tall\t0.2500\n"
        );
    }

    /// trec_eval 10 under `-c -D N.QID -Z`: the judged queries not evaluated add 0 to the mean
    /// and the sum of z-scores, `ln(1e-5)` to the geometric mean's, and count in num_q (the
    /// same rule on the real binary: `tests/cli/trec_eval_cases.py`'s `-Z` corner).
    #[test]
    fn zscore_summaries_count_the_absent_queries_as_trec_eval_does() {
        let zscores: ZScores = [
            (("a".to_string(), "map".to_string()), (0.25, 0.5)),
            (("b".to_string(), "map".to_string()), (0.25, 0.0)),
            (("a".to_string(), "gm_map".to_string()), (0.0, 1.0)),
            (("b".to_string(), "gm_map".to_string()), (0.0, 1.0)),
            (("a".to_string(), "num_ret".to_string()), (0.0, 1.0)),
            (("b".to_string(), "num_ret".to_string()), (0.0, 1.0)),
        ]
        .into();
        let specs = ["num_q", "num_ret", "map", "gm_map"];
        // z: map 0.5 and 0, gm_map ln(0.5) and ln(0.25), num_ret 0.5 and 0.25.
        let gm = ((0.5f64.ln() + 0.25f64.ln() + 3.0 * 1e-5f64.ln()) / 5.0).exp();
        assert_eq!(
            rendered_with_absent(&specs, false, Some(&zscores), 3),
            format!(
                "Znum_q                 \tall\t5.0000\n\
                 Znum_ret               \tall\t0.7500\n\
                 Zmap                   \tall\t0.1000\n\
                 Zgm_map                \tall\t{gm:.4}\n"
            )
        );
        assert_eq!(format!("{gm:.4}"), "0.0007");
        assert_eq!(
            rendered(&specs, false, Some(&zscores)),
            "Znum_q                 \tall\t2.0000\n\
             Znum_ret               \tall\t0.7500\n\
             Zmap                   \tall\t0.2500\n\
             Zgm_map                \tall\t0.3536\n"
        );
    }

    /// Query ids from names.
    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_string()).collect()
    }

    /// [`stop`] for the missing queries and printed queries named, and the facts `set` changes
    /// (where it stops, or its error).
    fn stopped_or_refused(
        missing: &[&str],
        printed: &[&str],
        set: impl Fn(&mut StopFacts<'_>),
    ) -> Result<Stop> {
        let (missing, printed) = (ids(missing), ids(printed));
        let mut facts = StopFacts {
            missing_queries: &missing,
            query_ids: &printed,
            complete: false,
            only_query: None,
            fix_quirks: false,
            negative_first: None,
            qrels: "q.txt",
            run: "r.txt",
        };
        set(&mut facts);
        stop(&facts)
    }

    /// [`stopped_or_refused`], where it is no error.
    fn stopped(missing: &[&str], printed: &[&str], set: impl Fn(&mut StopFacts<'_>)) -> Stop {
        stopped_or_refused(missing, printed, set).expect("a stop, not an error")
    }

    fn missing_stop(query: &str, shown: usize) -> Stop {
        Stop::After {
            shown,
            message: missing_query_stop(query, "q.txt", "r.txt"),
        }
    }

    fn negative_stop(query: &str) -> Stop {
        Stop::BeforePrinting {
            message: negative_first_query_stop(query, "map", "q.txt"),
            status: STOP_STATUS,
        }
    }

    #[test]
    fn without_missing_queries_or_negative_grades_nothing_stops() {
        assert_eq!(stopped(&[], &["1", "2"], |_| {}), Stop::No);
    }

    #[test]
    fn the_first_missing_query_byte_wise_stops_after_the_queries_below_it() {
        // "10" is below "9" byte-wise, and "100" above "10".
        let printed = ["1", "100", "2", "8"];
        assert_eq!(
            stopped(&["9", "10"], &printed, |_| {}),
            missing_stop("10", 1)
        );
        assert_eq!(stopped(&["9"], &printed, |_| {}), missing_stop("9", 4));
        assert_eq!(stopped(&["0"], &printed, |_| {}), missing_stop("0", 0));
        // Code points above the ASCII ones, byte-wise as UTF-8.
        assert_eq!(
            stopped(&["é", "z"], &["a", "é"], |_| {}),
            missing_stop("z", 1)
        );
    }

    #[test]
    fn under_complete_the_missing_queries_are_scored() {
        let complete = |facts: &mut StopFacts<'_>| facts.complete = true;
        assert_eq!(stopped(&["9", "10"], &["1", "10", "9"], complete), Stop::No);
    }

    #[test]
    fn with_a_debug_query_only_that_query_is_looked_at() {
        let only =
            |query: &'static str| move |facts: &mut StopFacts<'_>| facts.only_query = Some(query);
        assert_eq!(stopped(&["10", "9"], &[], only("9")), missing_stop("9", 0));
        assert_eq!(stopped(&["10"], &["9"], only("9")), Stop::No);
    }

    #[test]
    fn a_debug_query_neither_printed_nor_missing_stops_with_7_or_is_refused_when_fixed() {
        let only = |facts: &mut StopFacts<'_>| {
            facts.only_query = Some("8");
            // Its negative grades and -c do not matter: it is not judged.
            facts.negative_first = Some(("1", "map"));
            facts.complete = true;
        };
        let unjudged = Stop::BeforePrinting {
            message: unjudged_only_query_stop("8", "q.txt"),
            status: NO_QUERIES_STATUS,
        };
        assert_eq!(stopped(&["1"], &[], only), unjudged);
        assert!(unjudged_only_query_stop("8", "q.txt")
            .starts_with("-D: query '8' is not judged in q.txt;"));
        let fixed = |facts: &mut StopFacts<'_>| {
            only(facts);
            facts.fix_quirks = true;
        };
        let error = stopped_or_refused(&["1"], &[], fixed).unwrap_err();
        assert_eq!(
            error.to_string(),
            "-D: query '8' is not judged in q.txt: there is no query to evaluate"
        );
        // Judged (printed, or missing), it is looked at as before.
        assert_eq!(stopped(&[], &["8"], fixed), Stop::No);
    }

    #[test]
    fn the_first_query_of_negative_grades_stops_before_anything_is_printed() {
        let negative = |facts: &mut StopFacts<'_>| facts.negative_first = Some(("1", "map"));
        assert_eq!(stopped(&[], &["1", "2"], negative), negative_stop("1"));
        // Before a missing query's stop, when the run has the query.
        assert_eq!(stopped(&["2"], &["1", "3"], negative), negative_stop("1"));
    }

    #[test]
    fn a_missing_first_query_of_negative_grades_stops_as_missing_unless_complete() {
        let negative = |facts: &mut StopFacts<'_>| facts.negative_first = Some(("1", "map"));
        assert_eq!(stopped(&["1", "2"], &["3"], negative), missing_stop("1", 0));
        let complete = |facts: &mut StopFacts<'_>| {
            negative(facts);
            facts.complete = true;
        };
        assert_eq!(
            stopped(&["1", "2"], &["1", "2", "3"], complete),
            negative_stop("1")
        );
    }

    #[test]
    fn with_a_debug_query_its_negative_grades_stop_unless_the_run_lacks_it() {
        let only_negative = |facts: &mut StopFacts<'_>| {
            facts.only_query = Some("7");
            facts.negative_first = Some(("7", "map"));
        };
        assert_eq!(stopped(&["10"], &["7"], only_negative), negative_stop("7"));
        assert_eq!(
            stopped(&["10", "7"], &[], only_negative),
            missing_stop("7", 0)
        );
    }

    #[test]
    fn no_query_of_the_run_judged_stops_at_the_first_judged_one_unless_complete_or_fixed() {
        let mut qrels = Qrels::new("q.txt");
        qrels.push("9", "d", 1);
        qrels.push("10", "d", 1);
        let stop = no_common_queries_stop("none", &qrels, false, false).unwrap();
        assert!(stop.starts_with("none; trec_eval stops at its first judged query, '10', "));
        assert_eq!(no_common_queries_stop("none", &qrels, true, false), None);
        assert_eq!(no_common_queries_stop("none", &qrels, false, true), None);
    }

    #[test]
    fn fixing_trec_eval_s_quirks_never_stops() {
        let fixed = |facts: &mut StopFacts<'_>| {
            facts.fix_quirks = true;
            facts.negative_first = Some(("1", "map"));
        };
        assert_eq!(stopped(&["1", "2"], &["3"], fixed), Stop::No);
        assert_eq!(stopped(&[], &["1", "3"], fixed), Stop::No);
    }
}
