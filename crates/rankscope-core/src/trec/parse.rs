//! Lines into rows: runs and qrels, lenient mode, and the messages for what is wrong.

use crate::error::{quoted, Error, InputProblem, Result, Skipped};
use crate::intern::Interner;
use crate::parallel::{self, PARALLEL_MIN_BYTES};
use crate::table::{Qrels, Run, StrColumn};

use super::fields::{split_line, Split};
use super::grades::{may_not_be_an_integer, NonIntegerGrade};
use super::numbers::{parse_grade, parse_score};
use super::{strip_bom, Parsed, ReadOptions, QRELS_FIELDS, RUN_FIELDS};

/// How much of a file's start decides "empty" against "only comments" (as for every format).
const HEAD_BYTES: usize = 1 << 16;

/// How much of a piece's start estimates its lines per byte.
const DENSITY_SAMPLE_BYTES: usize = 1 << 16;

/// Pieces smaller than this are not worth a thread.
const MIN_PIECE_BYTES: usize = 1 << 20;

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
    parse_run_rows_into(data, source, options, &mut Spare::default()).map(|(parsed, _)| parsed)
}

/// [`parse_run_rows`] into the memory of columns read before (`spare`), which the pieces of
/// the buffer take instead of fresh allocations; what they do not keep goes back to `spare`.
/// With the rows, the number of lines of `data` (a last line without its newline counts).
pub(crate) fn parse_run_rows_into(
    data: &[u8],
    source: &str,
    options: &ReadOptions,
    spare: &mut Spare<f64>,
) -> Result<(Parsed<Run>, u64)> {
    let mut reader = Reader::<RunLine>::new(source, options, data.len());
    reader.spare = std::mem::take(spare);
    let fed = reader.feed(data);
    *spare = std::mem::take(&mut reader.spare);
    fed?;
    let lines = reader.line - options.first_line;
    let (parsed, _) = reader.finish();
    let parsed = Parsed {
        table: run_of(parsed.columns, parsed.tag, source),
        skipped: parsed.skipped,
        non_integer_grade: None,
    };
    Ok((parsed, lines))
}

/// Read TREC qrels from bytes.
pub fn parse_qrels(data: &[u8], source: &str, options: &ReadOptions) -> Result<Parsed<Qrels>> {
    let parsed = parse::<QrelsLine>(data, source, options)?;
    finish_qrels(parsed, strip_bom(data), source)
}

/// [`parse_qrels`], but a buffer without rows gives empty qrels instead of an error: for pieces
/// of a file read apart.
pub fn parse_qrels_rows(data: &[u8], source: &str, options: &ReadOptions) -> Result<Parsed<Qrels>> {
    let parsed = parse::<QrelsLine>(data, source, options)?;
    Ok(Parsed {
        table: qrels_of(parsed.columns, source),
        skipped: parsed.skipped,
        non_integer_grade: parsed.non_integer_grade,
    })
}

fn run_of(columns: Columns<f64>, tag: Option<String>, source: &str) -> Run {
    Run {
        name: tag.unwrap_or_default(),
        source: source.to_string(),
        queries: columns.queries,
        query: columns.query,
        docs: columns.docs,
        score: columns.values,
        empty_queries: Vec::new(),
    }
}

fn qrels_of(columns: Columns<i64>, source: &str) -> Qrels {
    // A second field with one value throughout (TREC's usual `0`) names no subtopics.
    let (subtopics, subtopic) = if columns.labels.len() > 1 {
        (columns.labels, columns.label)
    } else {
        (Interner::new(), Vec::new())
    };
    Qrels {
        source: source.to_string(),
        queries: columns.queries,
        query: columns.query,
        docs: columns.docs,
        grade: columns.values,
        subtopics,
        subtopic,
    }
}

/// The run, or the error for one without rows (`head`: the start of the text).
pub(super) fn finish_run(
    parsed: ParseOutput<f64>,
    head: &[u8],
    source: &str,
) -> Result<Parsed<Run>> {
    if parsed.columns.query.is_empty() {
        return Err(empty_error(
            head,
            source,
            RunLine::WHAT,
            RUN_FIELDS,
            &parsed.skipped,
        ));
    }
    Ok(Parsed {
        table: run_of(parsed.columns, parsed.tag, source),
        skipped: parsed.skipped,
        non_integer_grade: None,
    })
}

/// The qrels, or the error for ones without rows (`head`: the start of the text).
pub(super) fn finish_qrels(
    parsed: ParseOutput<i64>,
    head: &[u8],
    source: &str,
) -> Result<Parsed<Qrels>> {
    if parsed.columns.query.is_empty() {
        return Err(empty_error(
            head,
            source,
            QrelsLine::WHAT,
            QRELS_FIELDS,
            &parsed.skipped,
        ));
    }
    Ok(Parsed {
        table: qrels_of(parsed.columns, source),
        skipped: parsed.skipped,
        non_integer_grade: parsed.non_integer_grade,
    })
}

/// A text parsed in consecutive windows of whole lines: the columns so far, and where the next
/// window starts.
pub(super) struct Reader<'a, K: LineKind> {
    pub(super) source: &'a str,
    lenient: bool,
    /// The line number of the next window's first line.
    line: u64,
    /// Whether no window was fed yet (the first starts after a byte order mark).
    at_start: bool,
    /// The text's first bytes, for the message about a text without rows.
    head: Vec<u8>,
    /// The size of the whole text, if known (0 if not), for reserving the columns once.
    pub(super) expected_bytes: usize,
    /// The bytes fed so far.
    fed_bytes: usize,
    columns: Option<Columns<K::Value>>,
    tag: Option<String>,
    skipped: Skipped,
    /// The first row whose grade trec_eval reads otherwise (qrels).
    non_integer_grade: Option<NonIntegerGrade>,
    /// Emptied columns whose memory the next window's pieces write into.
    spare: Spare<K::Value>,
}

/// Columns read before and emptied, kept for their memory: a window's pieces write into them
/// rather than into fresh allocations, whose every page would fault on first touch.
pub(crate) struct Spare<V> {
    /// For the first piece of a text, which the others are appended to (the largest).
    whole: Option<Columns<V>>,
    /// For the other pieces.
    pieces: Vec<Columns<V>>,
}

impl<V> Default for Spare<V> {
    fn default() -> Self {
        Self {
            whole: None,
            pieces: Vec::new(),
        }
    }
}

impl Spare<f64> {
    /// Keep the memory of `run`'s columns for the next text's first piece.
    pub(crate) fn recycle(&mut self, run: Run) {
        let mut columns = Columns {
            queries: run.queries,
            query: run.query,
            docs: run.docs,
            values: run.score,
            labels: Interner::new(),
            label: Vec::new(),
        };
        columns.clear();
        self.whole = Some(columns);
    }
}

impl<'a, K: LineKind> Reader<'a, K> {
    pub(super) fn new(source: &'a str, options: &ReadOptions, expected_bytes: usize) -> Self {
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
            non_integer_grade: None,
            spare: Spare::default(),
        }
    }

    /// Parse the next window (in pieces, in parallel when it is large) and append its rows.
    pub(super) fn feed(&mut self, window: &[u8]) -> Result<()> {
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
        let first_window = self.columns.is_none();
        let first_room = if first_window {
            self.expected_bytes.saturating_sub(self.fed_bytes)
        } else {
            0
        };
        self.fed_bytes += window.len();
        // Each piece written into memory read into before, where there is some.
        let numbered: Vec<_> = parts
            .into_iter()
            .enumerate()
            .map(|(i, part)| {
                let spare = if i == 0 && first_window {
                    self.spare.whole.take()
                } else {
                    self.spare.pieces.pop()
                };
                (i, part, spare)
            })
            .collect();
        let lenient = self.lenient;
        let parsed: Vec<Piece<K::Value>> =
            parallel::map(numbered, parallel, |(i, piece, spare)| {
                let room = if i == 0 { first_room } else { 0 };
                parse_piece::<K>(piece, lenient, room, spare)
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
        // A line that is not text is reported first, wherever it is (as every reader does).
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
            if self.non_integer_grade.is_none() {
                self.non_integer_grade = piece.non_integer_grade.map(|mut found| {
                    found.line += usize::try_from(start).unwrap_or(usize::MAX);
                    found
                });
            }
            self.tag = piece.tag.or(self.tag.take());
            pieces.push(piece.columns);
        }
        let mut pieces = pieces.into_iter();
        let mut columns = match self.columns.take() {
            Some(columns) => columns,
            None => pieces.next().expect("a window has a piece"),
        };
        let mut rest: Vec<Columns<K::Value>> = pieces.collect();
        columns.append(&rest, parallel);
        self.columns = Some(columns);
        for piece in &mut rest {
            piece.clear();
        }
        self.spare.pieces.append(&mut rest);
        Ok(())
    }

    /// The columns, the tag of the last valid line, the lines skipped, the first grade
    /// trec_eval reads otherwise; and the text's head.
    pub(super) fn finish(self) -> (ParseOutput<K::Value>, Vec<u8>) {
        let columns = self.columns.unwrap_or_else(|| Columns::with_capacity(0, 0));
        let parsed = ParseOutput {
            columns,
            tag: self.tag,
            skipped: self.skipped,
            non_integer_grade: self.non_integer_grade,
        };
        (parsed, self.head)
    }
}

/// What differs between a run line and a qrels line.
pub(super) trait LineKind {
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
    /// Whether the value is a grade, which trec_eval may read otherwise (the qrels').
    const GRADE: bool;
    /// The value of a field, or `None` when it is not valid.
    fn value(field: &[u8]) -> Option<Self::Value>;
    /// The message for a field that is not a valid value.
    fn value_error(field: &str) -> String;
}

pub(super) struct RunLine;

impl LineKind for RunLine {
    type Value = f64;
    const FIELDS: &'static str = RUN_FIELDS;
    const WHAT: &'static str = "TREC run lines";
    const COUNT: usize = 6;
    const AT_LEAST: bool = true;
    const VALUE_FIELD: usize = 4;
    const TAG_FIELD: Option<usize> = Some(5);
    const LABEL_FIELD: Option<usize> = None;
    const GRADE: bool = false;

    fn value(field: &[u8]) -> Option<f64> {
        parse_score(field)
    }

    fn value_error(field: &str) -> String {
        format!("score must be a finite number; found {}", quoted(field))
    }
}

pub(super) struct QrelsLine;

impl LineKind for QrelsLine {
    type Value = i64;
    const FIELDS: &'static str = QRELS_FIELDS;
    const WHAT: &'static str = "TREC qrels lines";
    const COUNT: usize = 4;
    const AT_LEAST: bool = false;
    const VALUE_FIELD: usize = 3;
    const TAG_FIELD: Option<usize> = None;
    const LABEL_FIELD: Option<usize> = Some(1);
    const GRADE: bool = true;

    fn value(field: &[u8]) -> Option<i64> {
        parse_grade(field)
    }

    fn value_error(field: &str) -> String {
        format!(
            "relevance must be an integer grade; found {}",
            quoted(field)
        )
    }
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
pub(super) struct Columns<V> {
    queries: Interner,
    query: Vec<u32>,
    docs: StrColumn,
    values: Vec<V>,
    /// The labels of the rows (qrels: the subtopic), interned; empty for runs.
    labels: Interner,
    label: Vec<u32>,
}

impl<V> Columns<V> {
    /// Columns with room for `rows` rows of `bytes` bytes of text: `spare`'s memory if given
    /// (grown if it is short), else fresh.
    fn reusing(spare: Option<Self>, rows: usize, bytes: usize) -> Self {
        match spare {
            Some(mut columns) => {
                columns.query.reserve(rows);
                columns.docs.reserve(rows, bytes);
                columns.values.reserve(rows);
                columns
            }
            None => Self::with_capacity(rows, bytes),
        }
    }

    /// No rows left, the memory kept.
    fn clear(&mut self) {
        self.queries.clear();
        self.query.clear();
        self.docs.clear();
        self.values.clear();
        self.labels.clear();
        self.label.clear();
    }

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
    /// The first row whose grade trec_eval reads otherwise (numbered from 0 within the piece).
    non_integer_grade: Option<NonIntegerGrade>,
}

/// Why a line is not text, and the line as shown (as the readers of the other formats say).
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

/// Parse one piece of whole lines, into `spare`'s memory if given. `room`: the bytes of text its
/// columns should have room for when that is more than the piece (the first piece, which the
/// others are appended to).
fn parse_piece<K: LineKind>(
    piece: &[u8],
    lenient: bool,
    room: usize,
    spare: Option<Columns<K::Value>>,
) -> Piece<K::Value> {
    // Room for the rows at the density of the piece's first lines, and an eighth more (the
    // columns grow as usual if later lines are shorter); the document ids take fewer bytes than
    // the text. Reserved once, so the columns do not move (untouched capacity costs no memory).
    let bytes = room.max(piece.len());
    let sample = &piece[..piece.len().min(DENSITY_SAMPLE_BYTES)];
    let sample_lines = memchr::memchr_iter(b'\n', sample).count() + 1;
    let rows = (sample_lines as f64 * 1.125 * bytes as f64 / sample.len().max(1) as f64) as usize;
    let mut out = Piece {
        columns: Columns::reusing(spare, rows, bytes),
        lines: 0,
        tag: None,
        bad_bytes: None,
        problem: None,
        skipped: Skipped::default(),
        non_integer_grade: None,
    };
    let mut start = 0;
    let mut line_index: u64 = 0;
    let mut last_tag = None;
    while start < piece.len() {
        // Split before the line is known to be text: the fields are used only once it is. The
        // split tells plain ASCII lines (nearly all); any other line is checked on its own.
        let Split {
            fields,
            count,
            end,
            plain,
        } = split_line::<6>(piece, start, K::COUNT_LIMIT);
        let raw = &piece[start..end];
        start = end + 1;
        let index = line_index;
        line_index += 1;
        if !plain {
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
                    // SAFETY: this line is text (plain ASCII as split, or checked above), and
                    // its fields are cut at ASCII bytes.
                    #[allow(unsafe_code)]
                    let (query, doc) = unsafe { (as_str(fields[0]), as_str(fields[2])) };
                    let code = out.columns.queries.intern(query);
                    out.columns.query.push(code);
                    out.columns.docs.push(doc);
                    out.columns.values.push(value);
                    if let Some(label) = K::LABEL_FIELD {
                        // SAFETY: as for the query and the document.
                        #[allow(unsafe_code)]
                        let text = unsafe { as_str(fields[label]) };
                        let code = out.columns.labels.intern(text);
                        out.columns.label.push(code);
                    }
                    if let Some(tag) = K::TAG_FIELD {
                        last_tag = Some(fields[tag]);
                    }
                    if K::GRADE && out.non_integer_grade.is_none() {
                        let grade = fields[K::VALUE_FIELD];
                        let after = grade.as_ptr() as usize - piece.as_ptr() as usize + grade.len();
                        if may_not_be_an_integer(grade, piece.get(after).copied()) {
                            let number = usize::try_from(index).unwrap_or(usize::MAX);
                            out.non_integer_grade = NonIntegerGrade::on_line(number, raw);
                        }
                    }
                    None
                }
                None => {
                    // SAFETY: as for the query and the document.
                    #[allow(unsafe_code)]
                    let text = unsafe { as_str(fields[K::VALUE_FIELD]) };
                    Some(K::value_error(text))
                }
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
                // Only a later line that is not text could still come first.
                let rest = piece.get(start..).unwrap_or_default();
                if memchr::memchr(0, rest).is_none() && std::str::from_utf8(rest).is_ok() {
                    break;
                }
            }
        }
    }
    // SAFETY: the tag is a field of a line that was read as a row, so of a line of text.
    #[allow(unsafe_code)]
    let tag = last_tag.map(|tag| unsafe { as_str(tag) }.to_string());
    out.tag = tag;
    // Strict mode stops at a problem: the lines after it still count for the pieces after.
    out.lines = line_index + count_lines(piece.get(start..).unwrap_or_default());
    out
}

/// The lines of `text`: its newlines, and one more for a last line without one.
fn count_lines(text: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text).count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with(b"\n"))
}

/// Text already checked to be UTF-8, without checking it again.
///
/// # Safety
///
/// `bytes` must be valid UTF-8. Fields are split before their line is checked, but they are
/// turned into text only once it was checked (the whole piece, or the line alone); fields are
/// cut at ASCII bytes, so every field of a valid line is valid UTF-8 too.
#[inline]
#[allow(unsafe_code)]
unsafe fn as_str(bytes: &[u8]) -> &str {
    // SAFETY: the caller's promise, above.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}

/// The buffer cut into about `parts` pieces at line boundaries.
pub(super) fn pieces(data: &[u8], parts: usize) -> Vec<&[u8]> {
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

/// What a text's lines give: the columns, the tag of the last valid line (runs), the lines
/// skipped (lenient mode) and the first row whose grade trec_eval reads otherwise (qrels).
pub(super) struct ParseOutput<V> {
    pub(super) columns: Columns<V>,
    pub(super) tag: Option<String>,
    pub(super) skipped: Skipped,
    pub(super) non_integer_grade: Option<NonIntegerGrade>,
}

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
