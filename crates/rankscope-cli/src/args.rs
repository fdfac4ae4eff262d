//! What both served commands take alike: their arguments read as argparse reads them,
//! integers as their options read them, the files the core reads as the Python command does,
//! and their output, warnings and errors printed as the Python command prints them.

use std::ffi::OsString;
use std::io::{ErrorKind, Read, Write};
use std::process::ExitCode;

use rankscope_core::error::Error;

/// An integer as the command's options take it: an optional sign and digits.
pub fn integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Whether an argument can be an option's value: not an option itself, but a negative number
/// (as argparse takes `-l -1`).
fn value_like(text: &str) -> bool {
    !text.starts_with('-') || integer(text).is_some()
}

/// One argument of a command line, as [`arguments`] reads it.
pub enum Argument<'a, T> {
    /// A flag, by its short letter or long name (`long`: given as `--name`).
    Flag { name: &'a str, long: bool },
    /// An option that takes a value (`takes`' answer for its name), and the value.
    Value(T, &'a str),
    /// A positional argument.
    Positional(&'a str),
}

/// Read `arguments` as argparse reads them: `--name value`, `--name=value`, clusters of short
/// flags the last of which may take a value (`-qc`, `-mP.5`, `-m P.5`), a negative number as
/// a value (`-l -1`), positional arguments anywhere; `takes` says which names take a value.
/// Each argument goes to `each`; `None` (from `each`, or for an argument this door leaves to
/// the Python command: not Unicode, `-` for standard input, `--`, a value missing, `-m=x`)
/// ends the reading with `None`.
pub fn arguments<'a, T>(
    arguments: &'a [OsString],
    takes: impl Fn(&str) -> Option<T>,
    mut each: impl FnMut(Argument<'a, T>) -> Option<()>,
) -> Option<()> {
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        let argument = argument.to_str()?;
        if let Some(long) = argument.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if let Some(what) = takes(name) {
                let value = match inline {
                    Some(value) => value,
                    None => rest.next()?.to_str().filter(|v| value_like(v))?,
                };
                each(Argument::Value(what, value))?;
            } else {
                inline.is_none().then_some(())?;
                each(Argument::Flag { name, long: true })?;
            }
        } else if argument.len() > 1 && argument.starts_with('-') {
            let letters = &argument[1..];
            for (at, letter) in letters.char_indices() {
                let name = &letters[at..at + letter.len_utf8()];
                if let Some(what) = takes(name) {
                    let attached = &letters[at + letter.len_utf8()..];
                    let value = if attached.is_empty() {
                        rest.next()?.to_str().filter(|v| value_like(v))?
                    } else if attached.starts_with('=') {
                        return None; // `-m=x`: read differently by argparse's versions
                    } else {
                        attached
                    };
                    each(Argument::Value(what, value))?;
                    break;
                }
                each(Argument::Flag { name, long: false })?;
            }
        } else if argument == "-" {
            return None; // standard input: read by the Python command
        } else {
            each(Argument::Positional(argument))?;
        }
    }
    Some(())
}

/// Whether `path` is a plain file the core reads as the Python command does: not compressed
/// (by name or content), without a byte order mark.
pub fn plain_file(path: &str) -> Option<()> {
    head(path, 16).map(|_| ())
}

/// The first `bytes` bytes (or fewer) of `path` and its size, when it is a plain file the core
/// reads as the Python command does ([`plain_file`]), read in one opening of the file.
pub fn head(path: &str, bytes: u64) -> Option<(Vec<u8>, u64)> {
    let lower = path.to_ascii_lowercase();
    let compressed = [".gz", ".gzip", ".bz2", ".xz", ".lzma", ".zst", ".zstd"];
    if compressed.iter().any(|suffix| lower.ends_with(suffix)) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() {
        return None;
    }
    let size = metadata.len();
    // As much as is asked and the file holds, in as few reads as the system gives it.
    let wanted = usize::try_from(bytes.min(size)).ok()?;
    let mut head = Vec::with_capacity(wanted);
    file.take(wanted as u64).read_to_end(&mut head).ok()?;
    let magic: [&[u8]; 5] = [
        b"\x1f\x8b",
        b"\xfd7zXZ\x00",
        b"\x28\xb5\x2f\xfd",
        b"BZh",
        b"\xef\xbb\xbf",
    ];
    if magic.iter().any(|m| head.starts_with(m)) {
        return None;
    }
    Some((head, size))
}

/// The exit status the Python command ends with on `error`: 2 for a measure, a profile or an
/// option, as for any usage error, 1 for the input; `None` for the errors no evaluation
/// raises.
pub fn exit_status(error: &Error) -> Option<u8> {
    match error {
        Error::Measure(_) | Error::UnknownMeasure(_) | Error::Profile(_) | Error::Option(_) => {
            Some(2)
        }
        Error::Input(_)
        | Error::Parse(_)
        | Error::DuplicateDocument(_)
        | Error::EmptyInput(_)
        | Error::NoCommonQueries(_)
        | Error::NotGrouped(_) => Some(1),
        Error::Fusion(_) | Error::Raised(_) => None,
    }
}

/// Print a served command's warnings (as the Python command shows them) and its output: exit
/// status 0, also when the reader of the output went away (`| head`), as for the Python
/// command.
pub fn print(warnings: &[String], text: &str) -> ExitCode {
    finish(warnings, text, None)
}

/// End a served command as the Python command ends on an error: its warnings until then, the
/// error's message, exit status `code`.
pub fn fail(warnings: &[String], message: &str, code: u8) -> ExitCode {
    finish(warnings, "", Some((message, code)))
}

/// End a served command as the Python command ends: its warnings, its output, then the error
/// it ends with (`error`: its message and exit status), if any. When the reader of the output
/// went away (`| head`), exit status 0, as for the Python command.
pub fn finish(warnings: &[String], text: &str, error: Option<(&str, u8)>) -> ExitCode {
    for warning in warnings {
        eprintln!("rankscope: warning: {warning}");
    }
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(error) if error.kind() == ErrorKind::BrokenPipe => return ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rankscope: error: {error}");
            return ExitCode::FAILURE;
        }
    }
    match error {
        None => ExitCode::SUCCESS,
        Some((message, code)) => {
            eprintln!("rankscope: error: {message}");
            ExitCode::from(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_a_sign_and_digits() {
        assert_eq!(integer("12"), Some(12));
        assert_eq!(integer("-3"), Some(-3));
        assert_eq!(integer("+0"), Some(0));
        assert_eq!(integer("1.5"), None);
        assert_eq!(integer(""), None);
        assert_eq!(integer("-"), None);
    }
}
