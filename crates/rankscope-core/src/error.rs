//! Errors of the core: one type, [`Error`], whose variants carry structured fields (an input
//! error its source, line and text; a measure error the name, the offending part and
//! suggestions; an option error the option, the value and the allowed values; a profile error
//! the profile or convention, the value and the allowed ones). The bindings map each variant
//! to an exception class of their own.

use std::fmt;
use std::sync::Arc;

/// Where an input error happened and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InputProblem {
    /// What was expected and what was found.
    pub message: String,
    /// The file (or a description of the table) the data came from, if known.
    pub source: Option<String>,
    /// The 1-based line number in `source`, if known.
    pub line: Option<u64>,
    /// The offending line as it was read, if known.
    pub text: Option<String>,
    /// The query and the document concerned, when the problem is about one (a document
    /// ranked twice names both).
    pub subject: Option<Box<Subject>>,
}

/// The query and the document an input problem is about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subject {
    /// The query's id.
    pub query: String,
    /// The document's id.
    pub document: String,
}

impl InputProblem {
    /// A problem with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::default()
        }
    }

    /// The same problem, naming its source.
    pub fn in_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// The same problem, naming the query and the document concerned.
    pub fn about(mut self, query: impl Into<String>, document: impl Into<String>) -> Self {
        self.subject = Some(Box::new(Subject {
            query: query.into(),
            document: document.into(),
        }));
        self
    }

    /// The same problem, naming the line and its text.
    pub fn at_line(mut self, line: u64, text: impl Into<String>) -> Self {
        self.line = Some(line);
        self.text = Some(text.into());
        self
    }
}

impl fmt::Display for InputProblem {
    /// `source:line: message`, then the line (cut at 200 characters) indented on the next
    /// line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(source) = &self.source {
            match self.line {
                Some(line) => write!(f, "{source}:{line}: ")?,
                None => write!(f, "{source}: ")?,
            }
        }
        f.write_str(&self.message)?;
        if let Some(text) = &self.text {
            let mut chars = text.char_indices();
            match chars.nth(200) {
                Some((cut, _)) => write!(f, "\n    {}...", &text[..cut])?,
                None => write!(f, "\n    {text}")?,
            }
        }
        Ok(())
    }
}

/// What is wrong with a measure name: the fields of the bindings' `MeasureError`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MeasureProblem {
    /// What was expected and what was found.
    pub message: String,
    /// The measure as it was given (empty when none was).
    pub measure: String,
    /// The part of the name that is wrong (a family, a cutoff, a parameter), if one is.
    pub part: Option<String>,
    /// Names close to an unknown one, best first.
    pub suggestions: Vec<String>,
}

impl MeasureProblem {
    /// A problem with `measure` (as given), described by `message`.
    pub fn new(measure: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            measure: measure.into(),
            ..Self::default()
        }
    }

    /// The same problem about the whole name `measure`; the part that was named stays.
    fn named(mut self, measure: &str) -> Self {
        if self.measure != measure {
            if self.part.is_none() && !self.measure.is_empty() {
                self.part = Some(std::mem::take(&mut self.measure));
            }
            self.measure = measure.to_string();
        }
        self
    }

    /// The same problem, naming the part of the name that is wrong.
    pub fn at(mut self, part: impl Into<String>) -> Self {
        self.part = Some(part.into());
        self
    }
}

/// An option outside what is accepted: the fields of the bindings' `OptionError`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OptionProblem {
    /// What was expected and what was found.
    pub message: String,
    /// The option's name (`relevance_level`, `max_documents`, ...).
    pub option: String,
    /// The value given, as messages quote it.
    pub value: String,
    /// The values allowed, when they are a list (empty for a range, which the message says).
    pub allowed: Vec<String>,
}

impl OptionProblem {
    /// `option` given `value` (as messages quote it), described by `message`.
    pub fn new(
        option: impl Into<String>,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            message: message.into(),
            option: option.into(),
            value: value.into(),
            allowed: Vec::new(),
        }
    }

    /// The same problem, listing the values allowed.
    pub fn allowing(mut self, allowed: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed = allowed.into_iter().map(Into::into).collect();
        self
    }
}

/// An unknown profile, an invalid convention, or a measure a profile does not define: the
/// fields of the bindings' `ProfileError`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProfileProblem {
    /// What was expected and what was found.
    pub message: String,
    /// The profile concerned, when known.
    pub profile: Option<String>,
    /// The convention concerned (`duplicate_documents`, ...), or `None` for the profile
    /// itself.
    pub convention: Option<String>,
    /// The value given (a profile's or a convention's name, or a measure's).
    pub value: String,
    /// The values allowed.
    pub allowed: Vec<String>,
}

impl ProfileProblem {
    /// `value` refused, described by `message`, with the values `allowed`.
    pub fn new(
        value: impl Into<String>,
        message: impl Into<String>,
        allowed: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            message: message.into(),
            value: value.into(),
            allowed: allowed.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The same problem, naming the profile.
    pub fn of_profile(mut self, profile: impl Into<String>) -> Self {
        self.profile = Some(profile.into());
        self
    }

    /// The same problem, naming the convention.
    pub fn of_convention(mut self, convention: impl Into<String>) -> Self {
        self.convention = Some(convention.into());
        self
    }
}

/// What went wrong while fusing runs: runs, queries and documents are given by their index
/// and codes, which the caller turns back into names.
#[derive(Debug, Clone, PartialEq)]
pub enum FusionProblem {
    /// A document appears twice in one query's ranking of one run.
    DuplicateDocument {
        /// The run's index.
        run: usize,
        /// The query's code.
        query: u32,
        /// The document's code.
        doc: u32,
    },
    /// A score is NaN or infinite.
    NonFiniteScore {
        /// The run's index.
        run: usize,
        /// The query's code.
        query: u32,
        /// The document's code.
        doc: u32,
    },
    /// A code is out of the range the caller declared.
    CodeOutOfRange {
        /// What the code stands for (`query`, `document`).
        what: &'static str,
        /// The code.
        code: u32,
        /// How many codes there are.
        limit: usize,
    },
    /// Column lengths differ.
    LengthMismatch {
        /// The run's index.
        run: usize,
    },
    /// A fused score overflowed to infinity.
    Overflow {
        /// The query's code.
        query: u32,
        /// The document's code.
        doc: u32,
    },
    /// A parameter is missing or out of range.
    Parameter(String),
}

impl fmt::Display for FusionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FusionProblem::DuplicateDocument { run, query, doc } => {
                write!(
                    f,
                    "run {run}: document {doc} appears twice in query {query}"
                )
            }
            FusionProblem::NonFiniteScore { run, query, doc } => {
                write!(
                    f,
                    "run {run}: score of document {doc} in query {query} is not finite"
                )
            }
            FusionProblem::CodeOutOfRange { what, code, limit } => {
                write!(f, "{what} code {code} is out of range (expected < {limit})")
            }
            FusionProblem::LengthMismatch { run } => {
                write!(
                    f,
                    "run {run}: query, document and score columns differ in length"
                )
            }
            FusionProblem::Overflow { query, doc } => {
                write!(
                    f,
                    "fused score of document {doc} in query {query} overflowed"
                )
            }
            FusionProblem::Parameter(message) => f.write_str(message),
        }
    }
}

/// Every error the core returns, each variant with the fields that describe it. The bindings
/// map each variant to an exception class.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The data given is not valid.
    Input(InputProblem),
    /// A file or row cannot be read.
    Parse(InputProblem),
    /// A document twice in one query.
    DuplicateDocument(InputProblem),
    /// A file or table holds no data.
    EmptyInput(InputProblem),
    /// No query of the run is judged.
    NoCommonQueries(InputProblem),
    /// A query's lines are not contiguous, so the run cannot be streamed as it is.
    NotGrouped(InputProblem),
    /// A measure name or parameter is not valid.
    Measure(MeasureProblem),
    /// No measure has that name.
    UnknownMeasure(MeasureProblem),
    /// An unknown profile or convention, or a measure the profile does not define.
    Profile(ProfileProblem),
    /// An option value outside what is accepted.
    Option(OptionProblem),
    /// Runs or parameters that cannot be fused.
    Fusion(FusionProblem),
    /// What a user-defined measure's scorer raised, carried back as it was
    /// ([`crate::measures::user`]).
    Raised(Raised),
}

/// An error of a binding's own, raised where the core called back into it (a user-defined
/// measure's scorer): the core only carries it back to the binding, which knows its type.
#[derive(Clone)]
pub struct Raised(pub Arc<dyn std::error::Error + Send + Sync>);

impl Raised {
    /// The error, carried.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }
}

impl fmt::Debug for Raised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Raised({})", self.0)
    }
}

impl PartialEq for Raised {
    /// The same error carried, not an equal one: the core cannot compare what it cannot read.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Error {
    /// The input problem, for the input-error variants.
    pub fn input_problem(&self) -> Option<&InputProblem> {
        match self {
            Error::Input(p)
            | Error::Parse(p)
            | Error::DuplicateDocument(p)
            | Error::EmptyInput(p)
            | Error::NoCommonQueries(p)
            | Error::NotGrouped(p) => Some(p),
            _ => None,
        }
    }

    /// The variant's name (`"Parse"`, `"UnknownMeasure"`, ...), for tests and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Input(_) => "Input",
            Error::Parse(_) => "Parse",
            Error::DuplicateDocument(_) => "DuplicateDocument",
            Error::EmptyInput(_) => "EmptyInput",
            Error::NoCommonQueries(_) => "NoCommonQueries",
            Error::NotGrouped(_) => "NotGrouped",
            Error::Measure(_) => "Measure",
            Error::UnknownMeasure(_) => "UnknownMeasure",
            Error::Profile(_) => "Profile",
            Error::Option(_) => "Option",
            Error::Fusion(_) => "Fusion",
            Error::Raised(_) => "Raised",
        }
    }

    /// A measure error about `measure` (as given).
    pub fn measure(measure: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Measure(MeasureProblem::new(measure, message))
    }

    /// A measure error about `part` of `measure`.
    pub fn measure_part(
        measure: impl Into<String>,
        part: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Measure(MeasureProblem::new(measure, message).at(part))
    }

    /// The same error, naming the whole measure `name` it is about (a measure error about one
    /// part of a name keeps that part).
    pub fn in_measure(self, name: &str) -> Self {
        match self {
            Error::Measure(problem) => Error::Measure(problem.named(name)),
            Error::UnknownMeasure(problem) => Error::UnknownMeasure(problem.named(name)),
            other => other,
        }
    }

    /// An option error: `option` given `value` (as messages quote it).
    pub fn option(
        option: impl Into<String>,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Option(OptionProblem::new(option, value, message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Measure(m) | Error::UnknownMeasure(m) => f.write_str(&m.message),
            Error::Profile(p) => f.write_str(&p.message),
            Error::Option(o) => f.write_str(&o.message),
            Error::Fusion(problem) => write!(f, "{problem}"),
            Error::Raised(raised) => write!(f, "{}", raised.0),
            other => match other.input_problem() {
                Some(problem) => write!(f, "{problem}"),
                None => Ok(()),
            },
        }
    }
}

impl std::error::Error for Error {}

impl From<FusionProblem> for Error {
    fn from(problem: FusionProblem) -> Self {
        Error::Fusion(problem)
    }
}

/// The library's words for options, and the command line's (an error message names the flag).
const CLI_TERMS: [(&str, &str); 10] = [
    (
        "evaluate(..., duplicate_documents='keep_first')",
        "--duplicates keep-first",
    ),
    (
        "set relevance_level on evaluate() instead of rel= on the measure",
        "use -l instead of rel=",
    ),
    ("profile='trec'", "--profile trec"),
    ("profile='standard'", "--profile standard"),
    (
        "rankscope.evaluate_answers (command line: rankscope answers)",
        "rankscope answers",
    ),
    ("use rankscope.evaluate (", "use rankscope evaluate ("),
    ("use profile 'trec'", "use --profile trec"),
    ("(stream=False)", "(--no-stream)"),
    (
        "(pass format= if",
        "(pass --qrels-format or --run-format if",
    ),
    ("complete=True (--complete)", "--complete"),
];

/// The flag that sets each option the core checks ([`OptionProblem::option`]).
const CLI_FLAGS: [(&str, &str); 5] = [
    ("relevance_level", "-l/--relevance-level"),
    ("max_documents", "-M/--max-documents"),
    ("chunk_bytes", "--chunk-mb"),
    ("top", "--top"),
    ("profiles", "--profiles"),
];

/// The columns a reader's keywords name.
const COLUMNS: [&str; 4] = ["query_id", "doc_id", "relevance", "score"];

/// An error's message (`message`, as it is shown) in the command line's terms: an option the
/// core checked (`option`: an option error's [`OptionProblem::option`], else `None`) named by
/// its flag; the library's keywords replaced by the flags that set them; a column named by the
/// option that names it, `--qrels-columns` for an error in the qrels (`of_qrels`), else
/// `--run-columns`. The command line prints every error so, whichever door serves it.
///
/// ```
/// use rankscope_core::error::in_cli_terms;
///
/// let message = "max_documents must be an integer >= 0; got -1";
/// let worded = in_cli_terms(message, Some("max_documents"), false);
/// assert_eq!(worded, "-M/--max-documents must be an integer >= 0; got -1");
/// let message = "r.csv: no column for score (or name it with score=...)";
/// let worded = in_cli_terms(message, None, false);
/// assert_eq!(worded, "r.csv: no column for score (or name it with --run-columns score=...)");
/// ```
pub fn in_cli_terms(message: &str, option: Option<&str>, of_qrels: bool) -> String {
    let mut message = message.to_string();
    let flag = option.and_then(|option| {
        let (_, flag) = CLI_FLAGS.iter().find(|(name, _)| *name == option)?;
        message
            .strip_prefix(option)
            .map(|rest| format!("{flag}{rest}"))
    });
    if let Some(flagged) = flag {
        message = flagged;
    }
    for (library, cli) in CLI_TERMS {
        message = message.replace(library, cli);
    }
    let option = if of_qrels {
        "--qrels-columns"
    } else {
        "--run-columns"
    };
    message = columns_named(&message, option);
    for column in COLUMNS {
        let given = format!("(given as {column}=");
        message = message.replace(&given, &format!("(given as {option} {column}="));
    }
    message.replace("a column mapping (", &format!("{option} ("))
}

/// `message` with each "name it with COLUMN=..." (or "name it with
/// rankscope.io.READER(..., COLUMN=...)") as "name it with OPTION COLUMN=...".
fn columns_named(message: &str, option: &str) -> String {
    const NAME_IT: &str = "name it with ";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(NAME_IT) {
        let after = &rest[at + NAME_IT.len()..];
        match named_column(after) {
            Some((column, used)) => {
                out.push_str(&rest[..at]);
                out.push_str(&format!("{NAME_IT}{option} {column}=..."));
                rest = &after[used..];
            }
            None => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The column `text` starts by naming, as "COLUMN=..." or "rankscope.io.READER(...,
/// COLUMN=...)", and the length of that naming.
fn named_column(text: &str) -> Option<(&'static str, usize)> {
    let column_at = |text: &str| {
        COLUMNS.into_iter().find_map(|column| {
            let rest = text.strip_prefix(column)?.strip_prefix("=...")?;
            Some((column, text.len() - rest.len()))
        })
    };
    if let Some(reader) = text.strip_prefix("rankscope.io.") {
        let name = reader
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(reader.len(), |(i, _)| i);
        let inner = reader[name..].strip_prefix("(..., ");
        if let Some(inner) = inner.filter(|_| name > 0) {
            if let Some((column, used)) = column_at(inner) {
                if inner[used..].starts_with(')') {
                    let used = text.len() - inner.len() + used + 1;
                    return Some((column, used));
                }
            }
        }
    }
    column_at(text)
}

impl Error {
    /// The error's message in the command line's terms ([`in_cli_terms`]), `qrels` naming the
    /// qrels file of the command (an input error whose source it is is one in the qrels).
    pub fn in_cli_terms(&self, qrels: Option<&str>) -> String {
        let option = match self {
            Error::Option(problem) => Some(problem.option.as_str()),
            _ => None,
        };
        let source = self
            .input_problem()
            .and_then(|problem| problem.source.as_deref());
        let of_qrels = source.is_some() && source == qrels;
        in_cli_terms(&self.to_string(), option, of_qrels)
    }
}

/// Result of the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Malformed lines left out in lenient mode: how many, and the first of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Skipped {
    /// Lines skipped.
    pub count: u64,
    /// The line number of the first one (0 when none).
    pub first_line: u64,
    /// What was wrong with the first one.
    pub first_message: String,
}

impl Skipped {
    /// One skipped line.
    pub fn one(line: u64, message: impl Into<String>) -> Self {
        Self {
            count: 1,
            first_line: line,
            first_message: message.into(),
        }
    }

    /// Both counts together; the first is the one on the lower line.
    pub fn merge(self, other: Skipped) -> Skipped {
        if self.count == 0 {
            return other;
        }
        if other.count == 0 {
            return self;
        }
        let count = self.count + other.count;
        let first = if self.first_line <= other.first_line {
            self
        } else {
            other
        };
        Skipped { count, ..first }
    }

    /// The text of the one warning that reports the skipped lines, if any.
    pub fn warning(&self, source: &str) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        let plural = if self.count == 1 { "" } else { "s" };
        Some(format!(
            "skipped {} malformed line{plural} in {source}; first at line {}: {}",
            self.count, self.first_line, self.first_message
        ))
    }
}

/// A text quoted as messages quote values: single quotes unless the text holds one and no
/// double quote, backslash escapes for the quote, the backslash and control characters (the
/// quoting the bindings' own messages use, so that both read alike).
///
/// ```
/// use rankscope_core::error::quoted;
///
/// assert_eq!(quoted("d1"), "'d1'");
/// assert_eq!(quoted("it's"), "\"it's\"");
/// assert_eq!(quoted("tab\there"), "'tab\\there'");
/// ```
pub fn quoted(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (0x80..0xa0).contains(&(c as u32)) || c == '\u{ad}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_unprintable(c) => {
                let code = c as u32;
                if code <= 0xffff {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Characters printed as escapes beyond the Latin-1 range (those `str.isprintable` refuses): separators other
/// than the space, format characters, surrogates and private use (a close approximation of the
/// Unicode categories Z*, Cf, Cs, Co, Cn that needs no tables).
fn is_unprintable(c: char) -> bool {
    matches!(c as u32,
        0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff
        | 0xfff9..=0xfffb | 0xe000..=0xf8ff | 0xf_0000..=0x10_ffff)
}

/// A number as messages show it: the shortest digits that read back to it, an exponent from
/// 1e16 up and below 1e-4 (`nan`, `inf`, `-inf`, `1.5`, `1e+20`), as the bindings print floats.
pub fn float_text(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // Rust prints the shortest round-trip digits too; only the exponent style differs.
    let plain = format!("{value:?}");
    let exponent = value.abs().log10().floor();
    if value != 0.0 && !(-4.0..16.0).contains(&exponent) {
        let sci = format!("{value:e}");
        let (mantissa, exp) = sci.split_once('e').expect("an exponent");
        let exp: i32 = exp.parse().expect("an integer exponent");
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_source_line_and_text() {
        let problem = InputProblem::new("score must be a finite number; found 'x'")
            .in_source("run.txt")
            .at_line(3, "q1 Q0 d1 1 x t");
        assert_eq!(
            Error::Parse(problem).to_string(),
            "run.txt:3: score must be a finite number; found 'x'\n    q1 Q0 d1 1 x t"
        );
        let long = "a".repeat(201);
        let cut = InputProblem::new("m").at_line(1, long.clone());
        assert_eq!(cut.to_string(), format!("m\n    {}...", &long[..200]));
        assert_eq!(InputProblem::new("m").in_source("f").to_string(), "f: m");
    }

    #[test]
    fn messages_in_the_command_line_s_terms() {
        let cases = [
            // An option the core checked, by its flag, only where the message starts with it.
            (
                "relevance_level must be an integer; got 'x'",
                Some("relevance_level"),
                false,
                "-l/--relevance-level must be an integer; got 'x'",
            ),
            (
                "top must be at least 1",
                Some("top"),
                false,
                "--top must be at least 1",
            ),
            (
                "the max_documents",
                Some("max_documents"),
                false,
                "the max_documents",
            ),
            (
                "lenient must be a bool",
                Some("lenient"),
                false,
                "lenient must be a bool",
            ),
            ("max_documents: -1", None, false, "max_documents: -1"),
            // The library's keywords.
            (
                "document 'd' twice (evaluate(..., duplicate_documents='keep_first') keeps \
                 the first); use profile 'trec' or profile='standard'",
                None,
                false,
                "document 'd' twice (--duplicates keep-first keeps the first); use --profile \
                 trec or --profile standard",
            ),
            (
                "too large (stream=False) (pass format= if it is not TREC)",
                None,
                true,
                "too large (--no-stream) (pass --qrels-format or --run-format if it is not TREC)",
            ),
            // Columns, by the option of the file the error is in.
            (
                "f: no relevance (or name it with relevance=...)",
                None,
                true,
                "f: no relevance (or name it with --qrels-columns relevance=...)",
            ),
            (
                "f: no score (or name it with rankscope.io.read_run(..., score=...)); \
                 name it with doc_id=... too",
                None,
                false,
                "f: no score (or name it with --run-columns score=...); name it with \
                 --run-columns doc_id=... too",
            ),
            (
                "name it with rankscope.io.(..., score=...) or name it with title=...",
                None,
                false,
                "name it with rankscope.io.(..., score=...) or name it with title=...",
            ),
            (
                "name it with rankscope.io.as_run(..., score=...",
                None,
                false,
                "name it with rankscope.io.as_run(..., score=...",
            ),
            (
                "no 'x' (given as query_id='x') in a column mapping (keys)",
                None,
                true,
                "no 'x' (given as --qrels-columns query_id='x') in --qrels-columns (keys)",
            ),
        ];
        for (message, option, of_qrels, expected) in cases {
            assert_eq!(
                in_cli_terms(message, option, of_qrels),
                expected,
                "{message}"
            );
        }
        let error = Error::option("max_documents", "-1", "max_documents must be >= 0");
        assert_eq!(error.in_cli_terms(None), "-M/--max-documents must be >= 0");
        let problem = InputProblem::new("no column (or name it with score=...)").in_source("q");
        let worded = |qrels| Error::Input(problem.clone()).in_cli_terms(qrels);
        assert_eq!(
            worded(Some("q")),
            "q: no column (or name it with --qrels-columns score=...)"
        );
        assert_eq!(
            worded(Some("r")),
            "q: no column (or name it with --run-columns score=...)"
        );
        assert_eq!(
            worded(None),
            "q: no column (or name it with --run-columns score=...)"
        );
    }

    #[test]
    fn quotes_values() {
        assert_eq!(quoted("d1"), "'d1'");
        assert_eq!(quoted("it's"), "\"it's\"");
        assert_eq!(quoted("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(quoted("tab\there\\"), "'tab\\there\\\\'");
        assert_eq!(quoted("\u{0}é"), "'\\x00é'");
    }

    #[test]
    fn prints_floats_shortest() {
        assert_eq!(float_text(1.5), "1.5");
        assert_eq!(float_text(2.0), "2.0");
        assert_eq!(float_text(1e20), "1e+20");
        assert_eq!(float_text(1e-7), "1e-07");
        assert_eq!(float_text(1e-5), "1e-05");
        assert_eq!(float_text(1.5e-5), "1.5e-05");
        assert_eq!(float_text(0.0001), "0.0001");
        assert_eq!(float_text(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn skipped_counts_merge_keeping_the_first_line() {
        let merged = Skipped::one(7, "late").merge(Skipped::one(2, "early"));
        assert_eq!(
            merged,
            Skipped {
                count: 2,
                first_line: 2,
                first_message: "early".into()
            }
        );
        assert_eq!(
            merged.warning("f").as_deref(),
            Some("skipped 2 malformed lines in f; first at line 2: early")
        );
        assert_eq!(Skipped::default().warning("f"), None);
    }
}
