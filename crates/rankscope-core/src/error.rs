//! Errors of the core: one variant per class of `rankscope.errors` (and the two `InputError`
//! subclasses that live beside the engine), each carrying the fields the Python class takes.

use std::fmt;

/// Where an input error happened and what was wrong: the fields of Python's `InputError`.
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

    /// The same problem, naming the line and its text.
    pub fn at_line(mut self, line: u64, text: impl Into<String>) -> Self {
        self.line = Some(line);
        self.text = Some(text.into());
        self
    }
}

impl fmt::Display for InputProblem {
    /// As Python's `InputError.__str__`: `source:line: message`, then the line (cut at 200
    /// characters) indented on the next line.
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

/// Every error the core returns. The variant names the Python class the bindings raise.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// `rankscope.errors.InputError`: the data given is not valid.
    Input(InputProblem),
    /// `rankscope.errors.ParseError`: a file or row cannot be read.
    Parse(InputProblem),
    /// `rankscope.errors.DuplicateDocumentError`: a document twice in one query.
    DuplicateDocument(InputProblem),
    /// `rankscope.errors.EmptyInputError`: a file or table holds no data.
    EmptyInput(InputProblem),
    /// `rankscope.engine.prepare.NoCommonQueriesError` (an `InputError`): no query of the run
    /// is judged.
    NoCommonQueries(InputProblem),
    /// `rankscope.engine.stream.NotGroupedError` (an `InputError`): a query's lines are not
    /// contiguous, so the run cannot be streamed as it is.
    NotGrouped(InputProblem),
    /// `rankscope.errors.MeasureError`: a measure name or parameter is not valid.
    Measure(String),
    /// `rankscope.errors.UnknownMeasureError`: no measure has that name.
    UnknownMeasure(String),
    /// `rankscope.errors.ProfileError`: an unknown profile or convention.
    Profile(String),
    /// `rankscope.errors.OptionError`: an option value outside what is accepted.
    Option(String),
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

    /// The name of the Python class this error maps onto.
    pub fn python_class(&self) -> &'static str {
        match self {
            Error::Input(_) => "InputError",
            Error::Parse(_) => "ParseError",
            Error::DuplicateDocument(_) => "DuplicateDocumentError",
            Error::EmptyInput(_) => "EmptyInputError",
            Error::NoCommonQueries(_) => "NoCommonQueriesError",
            Error::NotGrouped(_) => "NotGroupedError",
            Error::Measure(_) => "MeasureError",
            Error::UnknownMeasure(_) => "UnknownMeasureError",
            Error::Profile(_) => "ProfileError",
            Error::Option(_) => "OptionError",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Measure(m) | Error::UnknownMeasure(m) | Error::Profile(m) | Error::Option(m) => {
                f.write_str(m)
            }
            other => write!(f, "{}", other.input_problem().expect("an input error")),
        }
    }
}

impl std::error::Error for Error {}

/// Result of the core.
pub type Result<T> = std::result::Result<T, Error>;

/// Malformed lines left out in lenient mode: how many, and the first of them (Python's
/// `rankscope.io._lines.Skipped`).
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

    /// The text of the one warning that reports the skipped lines, if any (the message of
    /// Python's `Skipped.warn`).
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

/// Python's `repr()` of a string: single quotes unless the text holds one and no double quote,
/// backslash escapes for the quote, the backslash and control characters.
pub fn py_repr(text: &str) -> String {
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

/// Characters Python's `str.isprintable` refuses beyond the Latin-1 range: separators other
/// than the space, format characters, surrogates and private use (a close approximation of the
/// Unicode categories Z*, Cf, Cs, Co, Cn that needs no tables).
fn is_unprintable(c: char) -> bool {
    matches!(c as u32,
        0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff
        | 0xfff9..=0xfffb | 0xe000..=0xf8ff | 0xf0000..=0x10ffff)
}

/// Python's `repr()` of a float as Python prints it (`nan`, `inf`, `-inf`, `1.5`, `1e+20`).
pub fn py_float_repr(value: f64) -> String {
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
    fn renders_like_python_input_error() {
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
    fn repr_quotes_like_python() {
        assert_eq!(py_repr("d1"), "'d1'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(py_repr("tab\there\\"), "'tab\\there\\\\'");
        assert_eq!(py_repr("\u{0}é"), "'\\x00é'");
    }

    #[test]
    fn float_repr_like_python() {
        assert_eq!(py_float_repr(1.5), "1.5");
        assert_eq!(py_float_repr(2.0), "2.0");
        assert_eq!(py_float_repr(1e20), "1e+20");
        assert_eq!(py_float_repr(1e-7), "1e-07");
        assert_eq!(py_float_repr(1e-5), "1e-05");
        assert_eq!(py_float_repr(1.5e-5), "1.5e-05");
        assert_eq!(py_float_repr(0.0001), "0.0001");
        assert_eq!(py_float_repr(f64::NEG_INFINITY), "-inf");
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
