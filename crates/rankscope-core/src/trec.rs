//! TREC qrels (`query_id iteration doc_id relevance`) and runs (`query_id Q0 doc_id rank score
//! run_tag`), read straight into [`Qrels`] and [`Run`] columns.
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
//! appearance. Errors name the file, the 1-based line and the line's text, with the messages of
//! Python's readers; in lenient mode bad lines are skipped and counted.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{py_repr, Error, InputProblem, Result, Skipped};
use crate::intern::Interner;
use crate::parallel::{self, PARALLEL_MIN_BYTES};
use crate::table::{Qrels, Run, StrColumn};

/// The fields of a run line, as messages name them.
pub const RUN_FIELDS: &str = "query_id Q0 doc_id rank score run_tag";
/// The fields of a qrels line, as messages name them.
pub const QRELS_FIELDS: &str = "query_id iteration doc_id relevance";

const BOM: &[u8] = b"\xef\xbb\xbf";
/// How much of a file's start decides "empty" against "only comments" (as Python's `head()`).
const HEAD_BYTES: usize = 1 << 16;
/// How much of a piece's start estimates its lines per byte.
const DENSITY_SAMPLE_BYTES: usize = 1 << 16;
/// Pieces smaller than this are not worth a thread.
const MIN_PIECE_BYTES: usize = 1 << 20;

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
}

/// Read a TREC run from bytes; the run is named by the tag of its last line (as trec_eval).
///
/// `source` names the input in messages (the path as given, or `<stdin>`).
pub fn parse_run(data: &[u8], source: &str, options: &ReadOptions) -> Result<Parsed<Run>> {
    let parsed = parse::<RunLine>(data, source, options)?;
    finish_run(parsed, strip_bom(data), source)
}

/// [`parse_run`], but a buffer without rows (only comments, or in lenient mode only bad lines)
/// gives an empty run instead of an error: for the blocks of a streamed file.
pub fn parse_run_rows(data: &[u8], source: &str, options: &ReadOptions) -> Result<Parsed<Run>> {
    let (columns, tag, skipped) = parse::<RunLine>(data, source, options)?;
    Ok(Parsed {
        table: run_of(columns, tag, source),
        skipped,
    })
}

/// Read TREC qrels from bytes.
pub fn parse_qrels(data: &[u8], source: &str, options: &ReadOptions) -> Result<Parsed<Qrels>> {
    let parsed = parse::<QrelsLine>(data, source, options)?;
    finish_qrels(parsed, strip_bom(data), source)
}

/// Read a plain (uncompressed) TREC run file; `source` names it in messages.
///
/// The file is parsed in windows of whole lines, so memory holds the columns and one window,
/// not the whole text. (A line that is not text is reported before other problems of its
/// window, as the Python readers do for a whole file.) See [`read_windows`] for how a file is
/// mapped rather than read, and what that asks of it.
pub fn read_run_file(path: &Path, source: &str, options: &ReadOptions) -> Result<Parsed<Run>> {
    let (parsed, head) = read_windows::<RunLine>(path, source, options, &Windows::default())?;
    finish_run(parsed, &head, source)
}

/// Read a plain (uncompressed) TREC qrels file in windows; `source` names it in messages.
pub fn read_qrels_file(path: &Path, source: &str, options: &ReadOptions) -> Result<Parsed<Qrels>> {
    let (parsed, head) = read_windows::<QrelsLine>(path, source, options, &Windows::default())?;
    finish_qrels(parsed, &head, source)
}

fn run_of(columns: Columns<f64>, tag: Option<String>, source: &str) -> Run {
    Run {
        name: tag.unwrap_or_default(),
        source: source.to_string(),
        queries: columns.queries,
        query: columns.query,
        docs: columns.docs,
        score: columns.values,
    }
}

/// The run, or the error for one without rows (`head`: the start of the text).
fn finish_run(parsed: ParseOutput<f64>, head: &[u8], source: &str) -> Result<Parsed<Run>> {
    let (columns, tag, skipped) = parsed;
    if columns.query.is_empty() {
        return Err(empty_error(
            head,
            source,
            RunLine::WHAT,
            RUN_FIELDS,
            &skipped,
        ));
    }
    Ok(Parsed {
        table: run_of(columns, tag, source),
        skipped,
    })
}

/// The qrels, or the error for ones without rows (`head`: the start of the text).
fn finish_qrels(parsed: ParseOutput<i64>, head: &[u8], source: &str) -> Result<Parsed<Qrels>> {
    let (columns, _, skipped) = parsed;
    if columns.query.is_empty() {
        return Err(empty_error(
            head,
            source,
            QrelsLine::WHAT,
            QRELS_FIELDS,
            &skipped,
        ));
    }
    // A second field with one value throughout (TREC's usual `0`) names no subtopics.
    let (subtopics, subtopic) = if columns.labels.len() > 1 {
        (columns.labels, columns.label)
    } else {
        (Interner::new(), Vec::new())
    };
    let qrels = Qrels {
        source: source.to_string(),
        queries: columns.queries,
        query: columns.query,
        docs: columns.docs,
        grade: columns.values,
        subtopics,
        subtopic,
    };
    Ok(Parsed {
        table: qrels,
        skipped,
    })
}

/// How a file is taken in: its windows' size, and whether it may be mapped.
#[derive(Debug, Clone, Copy)]
struct Windows {
    /// Bytes parsed at a time (a line longer than this widens its window).
    bytes: usize,
    /// Map the file where it can be mapped (else read it, as for a pipe).
    map: bool,
}

impl Default for Windows {
    fn default() -> Self {
        Self {
            bytes: 64 << 20,
            map: true,
        }
    }
}

/// A file parsed window by window (each window ends after a complete line), the windows'
/// columns appended; and the file's first bytes (after a byte order mark), for the empty-file
/// message.
///
/// A regular file is mapped into memory one window at a time rather than copied into a buffer:
/// the kernel's copy and the zeroing of a fresh buffer go away, and the pages are touched
/// inside the parallel parse instead of before it. The price, which polars and ripgrep pay
/// too: if another process truncates the file while it is mapped, reading the lost pages kills
/// the process (SIGBUS) where a read would have seen a short file. A mapped file is read up to
/// the size it had when opened. Anything that cannot be mapped (a pipe, standard input, a
/// failed `mmap`) is read instead, from where the mapping stopped.
fn read_windows<K: LineKind>(
    path: &Path,
    source: &str,
    options: &ReadOptions,
    windows: &Windows,
) -> Result<(ParseOutput<K::Value>, Vec<u8>)> {
    let mut file = std::fs::File::open(path).map_err(|e| io_error(&e, source))?;
    let metadata = file.metadata().ok();
    let size = metadata.as_ref().map_or(0, |m| m.len());
    let mut reader = Reader::<K>::new(source, options, usize::try_from(size).unwrap_or(0));
    let mut offset = 0;
    if windows.map && metadata.is_some_and(|m| m.is_file()) {
        offset = map_windows(&file, size, windows.bytes, &mut reader)?;
    }
    if offset < size || size == 0 {
        if offset > 0 {
            file.seek(SeekFrom::Start(offset))
                .map_err(|e| io_error(&e, source))?;
        }
        read_blocks(file, windows.bytes, &mut reader)?;
    }
    Ok(reader.finish())
}

/// Parse the first `size` bytes of `file` mapped a window at a time; the offset reached (short
/// of `size` if a window could not be mapped).
fn map_windows<K: LineKind>(
    file: &std::fs::File,
    size: u64,
    window_bytes: usize,
    reader: &mut Reader<'_, K>,
) -> Result<u64> {
    let mut offset = 0;
    let mut window = window_bytes as u64;
    while offset < size {
        let len = window.min(size - offset);
        // SAFETY: the mapping is only read, and dropped before the next one is made. Another
        // process truncating the file meanwhile is the risk `read_windows` names.
        let mapped = unsafe {
            memmap2::MmapOptions::new()
                .offset(offset)
                .len(len as usize)
                .map(file)
        };
        let Ok(mapped) = mapped else {
            break; // read the rest instead
        };
        let cut = if offset + len == size {
            mapped.len()
        } else {
            match memchr::memrchr(b'\n', &mapped) {
                Some(i) => i + 1,
                None => {
                    window *= 2; // a line longer than the window
                    continue;
                }
            }
        };
        reader.feed(&mapped[..cut])?;
        offset += cut as u64;
        window = window_bytes as u64;
    }
    Ok(offset)
}

/// Parse what is left of `file` read a block at a time.
fn read_blocks<K: LineKind>(
    mut file: std::fs::File,
    block_bytes: usize,
    reader: &mut Reader<'_, K>,
) -> Result<()> {
    let mut buffer: Vec<u8> = Vec::with_capacity(block_bytes.min(reader.expected_bytes + 1));
    let mut filled = 0;
    let mut at_end = false;
    while !at_end {
        // Appended to what is left of the last block, without zero-filling the buffer first.
        buffer.truncate(filled);
        let before = filled;
        let read = (&mut file)
            .take(block_bytes as u64)
            .read_to_end(&mut buffer);
        filled += read.map_err(|e| io_error(&e, reader.source))?;
        at_end = filled - before < block_bytes;
        let cut = if at_end {
            filled
        } else {
            match memchr::memrchr(b'\n', &buffer[before..filled]) {
                Some(i) => before + i + 1,
                None => continue, // a line longer than the block: read on
            }
        };
        reader.feed(&buffer[..cut])?;
        buffer.copy_within(cut..filled, 0);
        filled -= cut;
    }
    Ok(())
}

/// A text parsed in consecutive windows of whole lines: the columns so far, and where the next
/// window starts.
struct Reader<'a, K: LineKind> {
    source: &'a str,
    lenient: bool,
    /// The line number of the next window's first line.
    line: u64,
    /// Whether no window was fed yet (the first starts after a byte order mark).
    at_start: bool,
    /// The text's first bytes, for the message about a text without rows.
    head: Vec<u8>,
    /// The size of the whole text, if known (0 if not), for reserving the columns once.
    expected_bytes: usize,
    /// The bytes fed so far.
    fed_bytes: usize,
    columns: Option<Columns<K::Value>>,
    tag: Option<String>,
    skipped: Skipped,
}

impl<'a, K: LineKind> Reader<'a, K> {
    fn new(source: &'a str, options: &ReadOptions, expected_bytes: usize) -> Self {
        Self {
            source,
            lenient: options.lenient,
            line: options.first_line,
            at_start: true,
            head: Vec::new(),
            expected_bytes,
            fed_bytes: 0,
            columns: None,
            tag: None,
            skipped: Skipped::default(),
        }
    }

    /// Parse the next window (in pieces, in parallel when it is large) and append its rows.
    fn feed(&mut self, window: &[u8]) -> Result<()> {
        let mut window = window;
        if self.at_start {
            if self.line == 1 {
                window = strip_bom(window);
            }
            self.head = window[..window.len().min(HEAD_BYTES)].to_vec();
            self.at_start = false;
        }
        let parallel = window.len() >= PARALLEL_MIN_BYTES;
        let parts = if parallel {
            pieces(window, rayon::current_num_threads() * 2)
        } else {
            vec![window]
        };
        // The text's first piece holds the columns of all the others: room for the whole text
        // at its density, so that they grow without moving.
        let first_room = if self.columns.is_none() {
            self.expected_bytes.saturating_sub(self.fed_bytes)
        } else {
            0
        };
        self.fed_bytes += window.len();
        let numbered: Vec<(usize, &[u8])> = parts.into_iter().enumerate().collect();
        let lenient = self.lenient;
        let parsed: Vec<Piece<K::Value>> = parallel::map(numbered, parallel, |(i, piece)| {
            let room = if i == 0 { first_room } else { 0 };
            parse_piece::<K>(piece, lenient, room)
        });

        // Line numbers: each piece's lines come after those of the pieces before it.
        let mut starts = Vec::with_capacity(parsed.len());
        for piece in &parsed {
            starts.push(self.line);
            self.line += piece.lines;
        }
        let located = |problem: &LineProblem, start: u64| {
            InputProblem::new(problem.message.clone())
                .in_source(self.source)
                .at_line(start + problem.line, problem.text.clone())
        };
        // A line that is not text is reported first, wherever it is (as the Python readers do).
        for (piece, &start) in parsed.iter().zip(&starts) {
            if let Some(problem) = &piece.bad_bytes {
                return Err(Error::Parse(located(problem, start)));
            }
        }
        for (piece, &start) in parsed.iter().zip(&starts) {
            if let Some(problem) = &piece.problem {
                return Err(Error::Parse(located(problem, start)));
            }
        }
        let mut pieces = Vec::with_capacity(parsed.len());
        for (piece, start) in parsed.into_iter().zip(starts) {
            if piece.skipped.count > 0 {
                let mut local = piece.skipped;
                local.first_line += start;
                self.skipped = std::mem::take(&mut self.skipped).merge(local);
            }
            self.tag = piece.tag.or(self.tag.take());
            pieces.push(piece.columns);
        }
        let mut pieces = pieces.into_iter();
        let mut columns = match self.columns.take() {
            Some(columns) => columns,
            None => pieces.next().expect("a window has a piece"),
        };
        columns.append(&pieces.collect::<Vec<_>>(), parallel);
        self.columns = Some(columns);
        Ok(())
    }

    /// The columns, the tag of the last valid line, the lines skipped; and the text's head.
    fn finish(self) -> (ParseOutput<K::Value>, Vec<u8>) {
        let columns = self.columns.unwrap_or_else(|| Columns::with_capacity(0, 0));
        ((columns, self.tag, self.skipped), self.head)
    }
}

/// An input error for a failed read, worded as Python's readers word them.
pub(crate) fn io_error(error: &std::io::Error, source: &str) -> Error {
    let message = match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => format!("cannot read the file: {error}"),
    };
    Error::Input(InputProblem::new(message).in_source(source))
}

/// The bytes after a UTF-8 byte order mark, if the data starts with one.
pub fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(BOM).unwrap_or(data)
}

/// What differs between a run line and a qrels line.
trait LineKind {
    type Value: Copy + Send + Sync;
    /// The fields, for messages.
    const FIELDS: &'static str;
    /// What the file holds, for the empty-file message.
    const WHAT: &'static str;
    /// Fields expected.
    const COUNT: usize;
    /// Whether more fields are allowed.
    const AT_LEAST: bool;
    /// How far fields need counting: for a kind that allows more, enough to know there are
    /// enough.
    const COUNT_LIMIT: usize = if Self::AT_LEAST {
        Self::COUNT
    } else {
        usize::MAX
    };
    /// Which field holds the value.
    const VALUE_FIELD: usize;
    /// Which field names the file (a run's tag), if any.
    const TAG_FIELD: Option<usize>;
    /// Which field is kept as a label of the row (the qrels' subtopic), if any.
    const LABEL_FIELD: Option<usize>;
    /// The value of a field, or `None` when it is not valid.
    fn value(field: &[u8]) -> Option<Self::Value>;
    /// The message for a field that is not a valid value.
    fn value_error(field: &str) -> String;
}

struct RunLine;

impl LineKind for RunLine {
    type Value = f64;
    const FIELDS: &'static str = RUN_FIELDS;
    const WHAT: &'static str = "TREC run lines";
    const COUNT: usize = 6;
    const AT_LEAST: bool = true;
    const VALUE_FIELD: usize = 4;
    const TAG_FIELD: Option<usize> = Some(5);
    const LABEL_FIELD: Option<usize> = None;

    fn value(field: &[u8]) -> Option<f64> {
        parse_score(field)
    }

    fn value_error(field: &str) -> String {
        format!("score must be a finite number; found {}", py_repr(field))
    }
}

struct QrelsLine;

impl LineKind for QrelsLine {
    type Value = i64;
    const FIELDS: &'static str = QRELS_FIELDS;
    const WHAT: &'static str = "TREC qrels lines";
    const COUNT: usize = 4;
    const AT_LEAST: bool = false;
    const VALUE_FIELD: usize = 3;
    const TAG_FIELD: Option<usize> = None;
    const LABEL_FIELD: Option<usize> = Some(1);

    fn value(field: &[u8]) -> Option<i64> {
        parse_grade(field)
    }

    fn value_error(field: &str) -> String {
        format!(
            "relevance must be an integer grade; found {}",
            py_repr(field)
        )
    }
}

/// A score: a number as polars casts text to Float64, and finite.
pub fn parse_score(field: &[u8]) -> Option<f64> {
    if let Some(value) = plain_decimal(field) {
        return Some(value);
    }
    let value: f64 = fast_float2::parse(field).ok()?;
    value.is_finite().then_some(value)
}

/// Powers of ten exact in a double.
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The common case of a score, `[+-]digits[.digits]` of at most 19 characters, computed as
/// the general parser computes it: an integer below 2^53 divided by an exact power of ten is
/// correctly rounded by the division itself (Clinger's fast path). Anything else (exponents,
/// long digit strings, words) is `None`, for the general parser.
#[inline]
fn plain_decimal(field: &[u8]) -> Option<f64> {
    let (negative, digits) = split_sign(field)?;
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut fraction_digits = 0usize;
    let mut seen_point = false;
    let mut seen_digit = false;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                fraction_digits += usize::from(seen_point);
                seen_digit = true;
            }
            b'.' if !seen_point => seen_point = true,
            _ => return None,
        }
    }
    // At most 19 digits cannot overflow 64 bits; the mantissa must be exact in a double.
    if !seen_digit || mantissa >= 1 << 53 || fraction_digits >= EXACT_POWERS_OF_TEN.len() {
        return None;
    }
    let value = mantissa as f64 / EXACT_POWERS_OF_TEN[fraction_digits];
    Some(if negative { -value } else { value })
}

/// A grade: an integer (optional sign, ASCII digits, fitting 64 bits), or a number written as a
/// float whose value is whole and below 2^62 in magnitude (`2.0`, `1e3`), as Python's readers
/// accept.
pub fn parse_grade(field: &[u8]) -> Option<i64> {
    if let Some(value) = parse_integer(field) {
        return Some(value);
    }
    let value: f64 = fast_float2::parse(field).ok()?;
    let whole = value.is_finite() && value == value.round() && value.abs() < 2f64.powi(62);
    whole.then_some(value as i64)
}

/// Whether a number is negative, and its text after the sign; `None` for an empty field.
fn split_sign(field: &[u8]) -> Option<(bool, &[u8])> {
    Some(match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    })
}

pub(crate) fn parse_integer(field: &[u8]) -> Option<i64> {
    let (negative, digits) = split_sign(field)?;
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut value: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        // Accumulated negatively so that i64::MIN fits.
        value = value.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

/// Whitespace between fields: C's isspace() without the newline.
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Where a field ends: a separator, or the newline that ends its line.
#[inline]
fn ends_field(b: u8) -> bool {
    is_space(b) || b == b'\n'
}

/// Up to `N` fields of a line, and how many fields it has in all.
#[inline]
pub(crate) fn split_fields<const N: usize>(line: &[u8]) -> ([&[u8]; N], usize) {
    let (fields, count, _) = split_line(line, 0, usize::MAX);
    (fields, count)
}

/// Up to `N` fields of the line that starts at `start` in `text`, how many fields it has (the
/// count stops at `limit`, and the rest of the line is then not split), and where the line
/// ends (its newline, or the end of the text).
#[inline]
fn split_line<const N: usize>(
    text: &[u8],
    start: usize,
    limit: usize,
) -> ([&[u8]; N], usize, usize) {
    let mut fields: [&[u8]; N] = [&[]; N];
    let mut count = 0;
    let mut i = start;
    let n = text.len();
    loop {
        while i < n && is_space(text[i]) {
            i += 1;
        }
        if i == n || text[i] == b'\n' {
            return (fields, count, i);
        }
        if count == limit {
            let end = memchr::memchr(b'\n', &text[i..]).map_or(n, |j| i + j);
            return (fields, count, end);
        }
        let field_start = i;
        i = field_end(text, i);
        if count < N {
            fields[count] = &text[field_start..i];
        }
        count += 1;
    }
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Where the field starting at `start` ends: the first separator or newline after it, or the
/// end of the text.
///
/// Eight bytes at a time: separators and the newline are all below 0x21, and
/// `(word - 0x21 * ONES) & !word` sets the high bit of every byte below 0x21 (other control
/// bytes too, and the borrow may also flag a `!` right after one), so each flagged byte is then
/// checked exactly; a byte that does not end the field stays part of it.
#[inline]
fn field_end(text: &[u8], start: usize) -> usize {
    let n = text.len();
    let mut at = start;
    while at + 8 <= n {
        let word = u64::from_le_bytes(text[at..at + 8].try_into().expect("eight bytes"));
        if let Some(end) = first_field_end(text, at, word) {
            return end;
        }
        at += 8;
    }
    if at < n && n >= 8 {
        // The last eight bytes, shifted so that byte `at` comes first: the zeros shifted in lie
        // past the end, where the field ends anyway.
        let last = u64::from_le_bytes(text[n - 8..].try_into().expect("eight bytes"));
        let word = last >> (8 * (at + 8 - n));
        return first_field_end(text, at, word).map_or(n, |end| end.min(n));
    }
    while at < n && !ends_field(text[at]) {
        at += 1;
    }
    at
}

/// The first byte of `word` (little-endian; its first byte is `text[at]`) that ends a field;
/// a flagged byte past the end of the text is returned as it is.
#[inline]
fn first_field_end(text: &[u8], at: usize, word: u64) -> Option<usize> {
    let mut flagged = word.wrapping_sub(ONES * 0x21) & !word & HIGH_BITS;
    while flagged != 0 {
        let i = at + (flagged.trailing_zeros() / 8) as usize;
        if i >= text.len() || ends_field(text[i]) {
            return Some(i);
        }
        flagged &= flagged - 1;
    }
    None
}

/// A hint for a line of the wrong field count that is a line of the other kind of file: the
/// qrels and the run were most likely given in the wrong order.
fn swapped_hint(fields: &[&[u8]; 6], count: usize, run_expected: bool) -> &'static str {
    let run_line =
        count >= 6 && parse_grade(fields[3]).is_some() && parse_score(fields[4]).is_some();
    let qrels_line = count == 4 && parse_grade(fields[3]).is_some();
    if !run_expected && run_line {
        "; this is a run line (query_id Q0 doc_id rank score tag): were the qrels and the run \
         given in the wrong order? The qrels come first"
    } else if run_expected && qrels_line {
        "; this is a qrels line (query_id iteration doc_id relevance): were the qrels and the \
         run given in the wrong order? The qrels come first"
    } else {
        ""
    }
}

/// The columns of one piece of the buffer (or of the whole, once joined).
struct Columns<V> {
    queries: Interner,
    query: Vec<u32>,
    docs: StrColumn,
    values: Vec<V>,
    /// The labels of the rows (qrels: the subtopic), interned; empty for runs.
    labels: Interner,
    label: Vec<u32>,
}

impl<V> Columns<V> {
    fn with_capacity(rows: usize, bytes: usize) -> Self {
        Self {
            queries: Interner::new(),
            query: Vec::with_capacity(rows),
            docs: StrColumn::with_capacity(rows, bytes),
            values: Vec::with_capacity(rows),
            labels: Interner::new(),
            label: Vec::new(),
        }
    }

    /// Append the rows of `others` in turn, their query (and label) codes renumbered into
    /// this interner (so codes still follow first appearance); over rayon's threads with
    /// `parallel`.
    fn append(&mut self, others: &[Columns<V>], parallel: bool)
    where
        V: Copy + Send + Sync,
    {
        let queries = renumbering(&mut self.queries, others.iter().map(|o| &o.queries));
        let labels = renumbering(&mut self.labels, others.iter().map(|o| &o.labels));
        let query: Vec<&[u32]> = others.iter().map(|o| &o.query[..]).collect();
        parallel::extend_from_parts(&mut self.query, &query, parallel, |part, &code| {
            queries[part][code as usize]
        });
        let label: Vec<&[u32]> = others.iter().map(|o| &o.label[..]).collect();
        parallel::extend_from_parts(&mut self.label, &label, parallel, |part, &code| {
            labels[part][code as usize]
        });
        let docs: Vec<&StrColumn> = others.iter().map(|o| &o.docs).collect();
        self.docs.extend_from_parts(&docs, parallel);
        let values: Vec<&[V]> = others.iter().map(|o| &o.values[..]).collect();
        parallel::extend_from_parts(&mut self.values, &values, parallel, |_, &v| v);
    }
}

/// For each of `parts` in turn, the code in `interner` of each of its codes (its names
/// interned there, in code order).
fn renumbering<'a>(
    interner: &mut Interner,
    parts: impl Iterator<Item = &'a Interner>,
) -> Vec<Vec<u32>> {
    parts
        .map(|names| names.names().map(|n| interner.intern(n)).collect())
        .collect()
}

/// A problem on a line, numbered within its piece (0-based) until the pieces are joined.
struct LineProblem {
    line: u64,
    message: String,
    text: String,
}

/// What one piece yields.
struct Piece<V> {
    columns: Columns<V>,
    /// Lines in the piece.
    lines: u64,
    /// The tag (sixth field) of the piece's last valid line.
    tag: Option<String>,
    /// Strict mode: the first line that is not text (NUL byte or invalid UTF-8).
    bad_bytes: Option<LineProblem>,
    /// Strict mode: the first line that does not parse.
    problem: Option<LineProblem>,
    /// Lenient mode: the lines skipped (numbered within the piece).
    skipped: Skipped,
}

/// Why a line is not text, and the line as shown (Python's `python_lines`).
pub(crate) fn byte_problem(raw: &[u8]) -> Option<(String, String)> {
    let shown = || String::from_utf8_lossy(raw).replace('\0', "\\x00");
    if memchr::memchr(0, raw).is_some() {
        return Some((
            "line holds a NUL byte; expected text (is this a binary file?)".to_string(),
            shown(),
        ));
    }
    match std::str::from_utf8(raw) {
        Ok(_) => None,
        Err(error) => Some((
            format!(
                "line is not valid UTF-8 (byte {} of the line)",
                error.valid_up_to() + 1
            ),
            shown(),
        )),
    }
}

/// Parse one piece of whole lines. `room`: the bytes of text its columns should have room for
/// when that is more than the piece (the first piece, which the others are appended to).
fn parse_piece<K: LineKind>(piece: &[u8], lenient: bool, room: usize) -> Piece<K::Value> {
    // Room for the rows at the density of the piece's first lines, and an eighth more (the
    // columns grow as usual if later lines are shorter); the document ids take fewer bytes than
    // the text. Reserved once, so the columns do not move (untouched capacity costs no memory).
    let bytes = room.max(piece.len());
    let sample = &piece[..piece.len().min(DENSITY_SAMPLE_BYTES)];
    let sample_lines = memchr::memchr_iter(b'\n', sample).count() + 1;
    let rows = (sample_lines as f64 * 1.125 * bytes as f64 / sample.len().max(1) as f64) as usize;
    let mut out = Piece {
        columns: Columns::with_capacity(rows, bytes),
        lines: 0,
        tag: None,
        bad_bytes: None,
        problem: None,
        skipped: Skipped::default(),
    };
    // One check of the whole piece; lines are checked one by one only when it fails.
    let all_text = memchr::memchr(0, piece).is_none() && std::str::from_utf8(piece).is_ok();
    let mut start = 0;
    let mut line_index: u64 = 0;
    let mut last_tag = None;
    while start < piece.len() {
        // Split before the line is known to be text: the fields are used only once it is.
        let (fields, count, end) = split_line::<6>(piece, start, K::COUNT_LIMIT);
        let raw = &piece[start..end];
        start = end + 1;
        let index = line_index;
        line_index += 1;
        if !all_text {
            if let Some((message, text)) = byte_problem(raw) {
                if lenient {
                    out.skipped = out.skipped.merge(Skipped::one(index, message));
                    continue;
                }
                out.bad_bytes = Some(LineProblem {
                    line: index,
                    message,
                    text,
                });
                out.problem = None;
                break;
            }
        }
        if out.problem.is_some() {
            continue; // strict: only a line that is not text can still come first
        }
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if count == 0 || fields[0][0] == b'#' {
            continue; // blank, or a comment
        }
        let text = || String::from_utf8_lossy(line).into_owned();
        let message = if count < K::COUNT || (!K::AT_LEAST && count > K::COUNT) {
            let expected = if K::AT_LEAST {
                format!("at least {}", K::COUNT)
            } else {
                K::COUNT.to_string()
            };
            Some(format!(
                "expected {expected} whitespace-separated fields ({}); found {count}{}",
                K::FIELDS,
                swapped_hint(&fields, count, K::AT_LEAST)
            ))
        } else {
            match K::value(fields[K::VALUE_FIELD]) {
                Some(value) => {
                    let code = out.columns.queries.intern(as_str(fields[0]));
                    out.columns.query.push(code);
                    out.columns.docs.push(as_str(fields[2]));
                    out.columns.values.push(value);
                    if let Some(label) = K::LABEL_FIELD {
                        let code = out.columns.labels.intern(as_str(fields[label]));
                        out.columns.label.push(code);
                    }
                    if let Some(tag) = K::TAG_FIELD {
                        last_tag = Some(fields[tag]);
                    }
                    None
                }
                None => Some(K::value_error(as_str(fields[K::VALUE_FIELD]))),
            }
        };
        if let Some(message) = message {
            if lenient {
                out.skipped = out.skipped.merge(Skipped::one(index, message));
            } else {
                out.problem = Some(LineProblem {
                    line: index,
                    message,
                    text: text(),
                });
                if all_text {
                    break;
                }
            }
        }
    }
    out.tag = last_tag.map(|tag| as_str(tag).to_string());
    // Strict mode stops at a problem: the lines after it still count for the pieces after.
    out.lines = line_index + count_lines(piece.get(start..).unwrap_or_default());
    out
}

/// The lines of `text`: its newlines, and one more for a last line without one.
fn count_lines(text: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text).count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with(b"\n"))
}

/// Text already checked to be UTF-8.
#[inline]
fn as_str(bytes: &[u8]) -> &str {
    // Fields are split before their line is checked, but they are turned into text only once
    // it was checked to be valid UTF-8 (the whole piece, or the line alone); fields are cut at
    // ASCII bytes, so every field of a valid line is valid UTF-8 too.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// The buffer cut into about `parts` pieces at line boundaries.
fn pieces(data: &[u8], parts: usize) -> Vec<&[u8]> {
    let size = (data.len() / parts.max(1)).max(MIN_PIECE_BYTES);
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let mut end = (start + size).min(data.len());
        if end < data.len() {
            end = memchr::memchr(b'\n', &data[end..]).map_or(data.len(), |i| end + i + 1);
        }
        out.push(&data[start..end]);
        start = end;
    }
    out
}

type ParseOutput<V> = (Columns<V>, Option<String>, Skipped);

/// A whole text parsed at once (in pieces, in parallel when it is large).
fn parse<K: LineKind>(
    data: &[u8],
    source: &str,
    options: &ReadOptions,
) -> Result<ParseOutput<K::Value>> {
    let mut reader = Reader::<K>::new(source, options, data.len());
    reader.feed(data)?;
    Ok(reader.finish().0)
}

/// The error for a file that yielded no rows: empty, only comments, or only bad lines.
pub(crate) fn empty_error(
    data: &[u8],
    source: &str,
    what: &str,
    fields: &str,
    skipped: &Skipped,
) -> Error {
    let message = if skipped.count > 0 {
        let plural = if skipped.count == 1 { "" } else { "s" };
        format!(
            "no valid data: {} malformed line{plural} skipped and nothing else found; first at \
             line {}: {}",
            skipped.count, skipped.first_line, skipped.first_message
        )
    } else if data[..data.len().min(HEAD_BYTES)]
        .iter()
        .all(|b| b.is_ascii_whitespace() || *b == 0x0b)
    {
        format!("file is empty; expected {what} ({fields})")
    } else {
        format!("file holds only comments and blank lines; expected {what} ({fields})")
    };
    Error::EmptyInput(InputProblem::new(message).in_source(source))
}

#[cfg(test)]
mod window_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn run_error(data: &[u8]) -> String {
        parse_run(data, "run.txt", &ReadOptions::default())
            .unwrap_err()
            .to_string()
    }

    fn qrels_error(data: &[u8]) -> String {
        parse_qrels(data, "qrels.txt", &ReadOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn qrels_keep_the_second_field_as_the_subtopic() {
        let data = b"51 1 d1 1\n51 2 d1 0\n52 1 d2 1\n";
        let qrels = parse_qrels(data, "qrels.txt", &ReadOptions::default())
            .unwrap()
            .table;
        assert_eq!(qrels.subtopic, [0, 1, 0]);
        assert_eq!(qrels.subtopics.name(1), "2");
        // Pieces parsed apart intern their subtopics apart: joined, codes still match names.
        let many: String = (0..20_000)
            .map(|i| format!("q{} s{} d{i} 1\n", i % 7, i % 3))
            .collect();
        let options = ReadOptions::default();
        let qrels = parse_qrels(many.as_bytes(), "qrels.txt", &options)
            .unwrap()
            .table;
        let names: Vec<&str> = (0..qrels.len())
            .map(|i| qrels.subtopics.name(qrels.subtopic[i]))
            .collect();
        assert!(names
            .iter()
            .enumerate()
            .all(|(i, n)| *n == format!("s{}", i % 3)));
    }

    #[test]
    fn reads_a_run_in_file_order() {
        let data = b"# a comment\nq2 Q0 d1 1 2.5 bm25\n\n  q1\tQ0 d2 1 -1e3 bm25 extra\r\nq2 Q0 d3 2 1 x\n";
        let run = parse_run(data, "run.txt", &ReadOptions::default())
            .unwrap()
            .table;
        assert_eq!(run.name, "x", "the tag of the last line, as trec_eval");
        assert_eq!(run.query, [0, 1, 0]);
        assert_eq!(run.queries.names().collect::<Vec<_>>(), ["q2", "q1"]);
        assert_eq!(
            (run.docs.get(0), run.docs.get(1), run.docs.get(2)),
            ("d1", "d2", "d3")
        );
        assert_eq!(run.score, [2.5, -1000.0, 1.0]);
    }

    #[test]
    fn reads_qrels() {
        let data = "\u{feff}q1 0 d1 1\nq1 0 d2 -1\nq2 0 d1 2.0\n# q9 0 d9 1\n".as_bytes();
        let qrels = parse_qrels(data, "qrels.txt", &ReadOptions::default())
            .unwrap()
            .table;
        assert_eq!(qrels.grade, [1, -1, 2]);
        assert_eq!(qrels.query_id(2), "q2");
        assert_eq!(qrels.queries.len(), 2);
    }

    #[test]
    fn every_error_has_its_message() {
        let run_fields = "(query_id Q0 doc_id rank score run_tag)";
        let qrels_fields = "(query_id iteration doc_id relevance)";
        assert_eq!(
            run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5\n"),
            format!(
                "run.txt:2: expected at least 6 whitespace-separated fields {run_fields}; found \
                 5\n    q1 Q0 d2 2 1.5"
            )
        );
        assert_eq!(
            qrels_error(b"q1 0 d1 1\nq1 0 d2 1 x\n"),
            format!(
                "qrels.txt:2: expected 4 whitespace-separated fields {qrels_fields}; found 5\n    \
                 q1 0 d2 1 x"
            )
        );
        assert_eq!(
            qrels_error(b"q1\t0\td1\n"),
            format!(
                "qrels.txt:1: expected 4 whitespace-separated fields {qrels_fields}; found 3\n    \
                 q1\t0\td1"
            )
        );
        assert_eq!(
            qrels_error(b"q1 Q0 d1 1 2.5 bm25\n"),
            format!(
                "qrels.txt:1: expected 4 whitespace-separated fields {qrels_fields}; found 6; \
                 this is a run line (query_id Q0 doc_id rank score tag): were the qrels and the \
                 run given in the wrong order? The qrels come first\n    q1 Q0 d1 1 2.5 bm25"
            )
        );
        assert_eq!(
            run_error(b"q1 0 d1 1\n"),
            format!(
                "run.txt:1: expected at least 6 whitespace-separated fields {run_fields}; found \
                 4; this is a qrels line (query_id iteration doc_id relevance): were the qrels \
                 and the run given in the wrong order? The qrels come first\n    q1 0 d1 1"
            )
        );
        assert_eq!(
            run_error(b"q1 Q0 d1 1 high bm25\n"),
            "run.txt:1: score must be a finite number; found 'high'\n    q1 Q0 d1 1 high bm25"
        );
        assert_eq!(
            run_error(b"q1\tQ0\td1\t1\t2.0\tbm25\nq1\tQ0\td2\t2\tNaN\tbm25\n"),
            "run.txt:2: score must be a finite number; found 'NaN'\n    q1\tQ0\td2\t2\tNaN\tbm25"
        );
        assert_eq!(
            run_error(b"q1 Q0 d1 1 -inf bm25\n"),
            "run.txt:1: score must be a finite number; found '-inf'\n    q1 Q0 d1 1 -inf bm25"
        );
        assert_eq!(
            run_error(b"q1 Q0 d1 1 1e400 bm25\n"),
            "run.txt:1: score must be a finite number; found '1e400'\n    q1 Q0 d1 1 1e400 bm25"
        );
        assert_eq!(
            qrels_error(b"q1 0 d1 1.5\n"),
            "qrels.txt:1: relevance must be an integer grade; found '1.5'\n    q1 0 d1 1.5"
        );
        assert_eq!(
            qrels_error(b"# header\n\nq1 0 d1 relevant\n"),
            "qrels.txt:3: relevance must be an integer grade; found 'relevant'\n    q1 0 d1 \
             relevant"
        );
        assert_eq!(
            run_error(b""),
            format!("run.txt: file is empty; expected TREC run lines {run_fields}")
        );
        assert_eq!(
            qrels_error(b"# only a comment\n\n   \n"),
            format!(
                "qrels.txt: file holds only comments and blank lines; expected TREC qrels lines \
                 {qrels_fields}"
            )
        );
        assert_eq!(
            run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\xe9 2 1.5 bm25\n"),
            "run.txt:2: line is not valid UTF-8 (byte 8 of the line)\n    q1 Q0 d\u{fffd} 2 1.5 \
             bm25"
        );
        assert_eq!(
            run_error(b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\x002 2 1.5 bm25\n"),
            "run.txt:2: line holds a NUL byte; expected text (is this a binary file?)\n    q1 Q0 \
             d\\x002 2 1.5 bm25"
        );
    }

    #[test]
    fn errors_are_parse_or_empty_input_errors() {
        let bad = parse_run(b"q1 Q0 d1 1 x t\n", "r", &ReadOptions::default()).unwrap_err();
        assert_eq!(bad.python_class(), "ParseError");
        let empty = parse_qrels(b"\n", "q", &ReadOptions::default()).unwrap_err();
        assert_eq!(empty.python_class(), "EmptyInputError");
    }

    #[test]
    fn a_line_that_is_not_text_is_reported_before_earlier_field_problems() {
        assert_eq!(
            run_error(b"q1 Q0 d1\nq1 Q0 d\xff 4 1.0 bm25\n"),
            "run.txt:2: line is not valid UTF-8 (byte 8 of the line)\n    q1 Q0 d\u{fffd} 4 1.0 \
             bm25"
        );
    }

    #[test]
    fn lenient_skips_and_counts() {
        let data =
            b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 nan bm25\nq1 Q0 d3 3\nq1 Q0 d\xff 4 1.0 bm25\n\
                     q2 Q0 d5 1 0.5 bm25\n";
        let lenient = ReadOptions {
            lenient: true,
            first_line: 1,
        };
        let parsed = parse_run(data, "run.txt", &lenient).unwrap();
        assert_eq!(parsed.table.score, [2.5, 0.5]);
        assert_eq!(
            parsed.skipped.warning("run.txt").unwrap(),
            "skipped 3 malformed lines in run.txt; first at line 2: score must be a finite \
             number; found 'nan'"
        );
        let nothing = parse_run(b"q1 Q0 d1\nq1 Q0 d2 2 inf bm25\n", "r.gz", &lenient).unwrap_err();
        assert_eq!(
            nothing.to_string(),
            "r.gz: no valid data: 2 malformed lines skipped and nothing else found; first at \
             line 1: expected at least 6 whitespace-separated fields (query_id Q0 doc_id rank \
             score run_tag); found 3"
        );
    }

    #[test]
    fn line_numbers_count_from_the_first_line_given() {
        let options = ReadOptions {
            lenient: false,
            first_line: 41,
        };
        let error = parse_qrels(b"q1 0 d1 1\n\nq1 0 d2\n", "q", &options).unwrap_err();
        assert_eq!(error.input_problem().unwrap().line, Some(43));
    }

    #[test]
    fn pieces_join_in_file_order_with_the_right_line_numbers() {
        // Several pieces: query codes follow first appearance across them, lines keep counting.
        let mut data = Vec::new();
        for i in 0..200_000 {
            data.extend_from_slice(format!("q{} Q0 d{i} 1 {i} tag\n", i % 7).as_bytes());
        }
        data.extend_from_slice(b"q1 Q0 dx 1 bad tag\n");
        assert!(pieces(&data, 4).len() > 1);
        let error = parse_run(&data, "r", &ReadOptions::default()).unwrap_err();
        assert_eq!(error.input_problem().unwrap().line, Some(200_001));
        data.truncate(data.len() - 19);
        let run = parse_run(&data, "r", &ReadOptions::default())
            .unwrap()
            .table;
        assert_eq!(run.len(), 200_000);
        assert_eq!(
            run.queries.names().take(3).collect::<Vec<_>>(),
            ["q0", "q1", "q2"]
        );
        assert_eq!(
            (run.query_id(199_999), run.docs.get(199_999)),
            ("q2", "d199999")
        );
        assert_eq!(run.score[123_456], 123_456.0);
    }

    #[test]
    fn the_fast_path_of_scores_gives_the_general_parser_s_values() {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for _ in 0..200_000 {
            let r = next();
            let text = match r % 4 {
                0 => format!("{}", (r >> 8) as f64 / (1u64 << (r % 53)) as f64),
                1 => format!("{:.6}", f64::from_bits(r >> 2) % 1e6),
                2 => format!("-{}.{}", (r >> 40) % 100_000, (r >> 3) % 10_000_000),
                _ => format!("{}.{:0>9}", (r >> 20) % 1000, r % 1_000_000_000),
            };
            let general: Option<f64> = fast_float2::parse(text.as_bytes()).ok();
            if let Some(fast) = plain_decimal(text.as_bytes()) {
                assert_eq!(Some(fast.to_bits()), general.map(f64::to_bits), "{text}");
                checked += 1;
            }
        }
        assert!(checked > 100_000);
        for text in [
            "1.",
            ".5",
            "-.5",
            "+1",
            "-0",
            "0.000",
            "12345678901234567",
            "9007199254740993",
        ] {
            let general: Option<f64> = fast_float2::parse(text.as_bytes()).ok();
            assert_eq!(
                parse_score(text.as_bytes()).map(f64::to_bits),
                general.map(f64::to_bits),
                "{text}"
            );
        }
        assert_eq!(plain_decimal(b"."), None);
        assert_eq!(plain_decimal(b"1e5"), None);
        assert_eq!(plain_decimal(b"1.2.3"), None);
    }

    #[test]
    fn grades_and_scores_parse_as_the_python_readers_do() {
        // What polars' cast (Python's readers) gives for each text.
        let scores: [(&str, Option<f64>); 27] = [
            ("1.5", Some(1.5)),
            ("1.", Some(1.0)),
            (".5", Some(0.5)),
            ("+1", Some(1.0)),
            ("+.5", Some(0.5)),
            ("-.5", Some(-0.5)),
            ("1e5", Some(1e5)),
            ("1E5", Some(1e5)),
            ("1e", None),
            ("1e+5", Some(1e5)),
            ("0x10", None),
            ("1_0", None),
            ("inf", None),
            ("-INF", None),
            ("Infinity", None),
            (" 1", None),
            ("1d", None),
            ("NaN", None),
            ("00.1", Some(0.1)),
            ("1e400", None),
            ("-0", Some(-0.0)),
            ("1e-400", Some(0.0)),
            ("\u{663}", None),
            (".", None),
            ("-", None),
            ("1,5", None),
            ("1.5.5", None),
        ];
        for (text, expected) in scores {
            assert_eq!(parse_score(text.as_bytes()), expected, "{text}");
        }
        let grades: [(&str, Option<i64>); 25] = [
            ("1", Some(1)),
            ("-1", Some(-1)),
            ("2.0", Some(2)),
            ("1.5", None),
            ("x", None),
            ("+3", Some(3)),
            (" 3", None),
            ("03", Some(3)),
            ("1_0", None),
            ("1e3", Some(1000)),
            ("-0", Some(0)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("9223372036854775808", None),
            ("4611686018427387903.0", None),
            ("1e18", Some(1_000_000_000_000_000_000)),
            ("-2.0e0", Some(-2)),
            ("0x1", None),
            ("", None),
            ("2.", Some(2)),
            (".0", Some(0)),
            ("+-1", None),
            ("1e19", None),
            ("inf", None),
            ("nan", None),
        ];
        for (text, expected) in grades {
            assert_eq!(parse_grade(text.as_bytes()), expected, "{text}");
        }
    }
}
