//! Streaming evaluation: a TREC run read and evaluated a chunk of whole queries at a time.
//!
//! The run is read in blocks of about `chunk_bytes`; each block is cut after its last complete
//! line and before the lines of its last query, which are held back and read with the next
//! block, so every chunk holds whole queries (provided the file groups each query's lines
//! together, as run files do). Each chunk is parsed, prepared and scored like a run in memory;
//! only the per-query values are kept, so memory follows the chunk size, not the run. The
//! values are those of evaluating the whole run at once: every measure of a query depends only
//! on that query's rows.
//!
//! A run whose lines are not grouped by query cannot be cut that way. Then the rows are first
//! spread over partition files on disk by a hash of the query id (each query lands whole in one
//! partition), and each partition is evaluated in turn: an external, one-pass bucket sort.

use std::collections::HashSet;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, InputProblem, Result, Skipped};
use crate::evaluate::{score, EvalOptions, Evaluation};
use crate::measures::{check_profile_support, Measure};
use crate::prepare::{no_common_queries, Judgements};
use crate::table::{Qrels, Run};
use crate::trec::{self, ReadOptions, Spare, RUN_FIELDS};

/// A TREC run file of this size or more is never read whole unless asked to: it is streamed
/// block by block, whatever it holds (a run not grouped by query spread over partition files,
/// with a warning). The Python package reads it from here (`STREAM_THRESHOLD_BYTES`), and so
/// does the native executable.
pub const STREAM_THRESHOLD_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// A TREC run file smaller than this is read whole (fastest); from this size on, up to
/// [`STREAM_THRESHOLD_BYTES`], it is read in chunks of whole queries when it is grouped by
/// query, to bound memory (else whole). The Python package reads it from here
/// (`CHUNKED_MIN_BYTES`), and so does the native executable.
pub const CHUNKED_MIN_BYTES: u64 = 64 * 1024 * 1024;

/// How much of a run a chunk reads by default.
pub const DEFAULT_CHUNK_BYTES: usize = 32 * 1024 * 1024;
/// How many partition files a run not grouped by query is spread over by default.
pub const DEFAULT_PARTITIONS: usize = 64;

/// Whether the run's lines are grouped by query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// They must be: a query reappearing after others is a [`Error::NotGrouped`].
    Grouped,
    /// They may not be: spread the rows over partition files on disk first.
    Partitioned,
    /// Try grouped; if a query reappears, read the run again partitioned (with a warning).
    Detect,
}

/// How to stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamOptions {
    /// How much of the run to read at a time.
    pub chunk_bytes: usize,
    /// Skip malformed lines (counted in [`Streamed::skipped`]) instead of failing.
    pub lenient: bool,
    /// Whether the run is grouped by query.
    pub grouping: Grouping,
    /// Partition files for runs not grouped (memory holds about 1/partitions of the run).
    pub partitions: usize,
    /// Where partition files go (the system's temporary directory by default).
    pub temp_dir: Option<PathBuf>,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            lenient: false,
            grouping: Grouping::Detect,
            partitions: DEFAULT_PARTITIONS,
            temp_dir: None,
        }
    }
}

/// A streamed evaluation: the values, the lines skipped (lenient), and warnings to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Streamed {
    /// Per-query values, as [`crate::evaluate::evaluate`] gives them.
    pub evaluation: Evaluation,
    /// Malformed lines skipped (lenient mode).
    pub skipped: Skipped,
    /// Warnings (the fall-back to partition files).
    pub warnings: Vec<String>,
}

/// Evaluate a TREC run file in chunks of whole queries with bounded memory.
///
/// A regular file is mapped a chunk at a time ([`MappedBlocks`]), each chunk read on a thread
/// of its own while the one before it is scored; the two share `stream.chunk_bytes` (each
/// reads about half), so memory holds what one chunk of that size held. Anything else is read
/// a chunk at a time, in turn with the scoring.
pub fn evaluate_run_file(
    qrels: &Qrels,
    path: &Path,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<Streamed> {
    let judgements = checked_judgements(qrels, measures, options, stream)?;
    let reopen = || ReadAhead::open(path, source);
    if stream.grouping != Grouping::Partitioned {
        let half = (stream.chunk_bytes / 2).max(1);
        if let Some(mapped) = MappedBlocks::open(path, source, half)? {
            let chunks = RunChunks::from_blocks(mapped, source, stream.lenient);
            let grouped = evaluate_grouped_ahead(&judgements, chunks, source, measures, options);
            return evaluate_chunks(
                &judgements,
                grouped,
                reopen,
                source,
                measures,
                options,
                stream,
            );
        }
    }
    evaluate_opened(&judgements, reopen, source, measures, options, stream)
}

/// Evaluate a TREC run read from `open()` in chunks of whole queries with bounded memory.
///
/// `open` is called once, or a second time when the run turns out not to be grouped and
/// `stream.grouping` is [`Grouping::Detect`].
pub fn evaluate_stream<R: Read, F: FnMut() -> Result<R>>(
    qrels: &Qrels,
    open: F,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<Streamed> {
    let judgements = checked_judgements(qrels, measures, options, stream)?;
    evaluate_opened(&judgements, open, source, measures, options, stream)
}

/// The judgements of a streamed evaluation, once its options and measures are checked.
fn checked_judgements<'q>(
    qrels: &'q Qrels,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<Judgements<'q>> {
    if stream.chunk_bytes < 1 {
        return Err(Error::Input(InputProblem::new(
            "chunk_bytes must be at least 1; got 0",
        )));
    }
    check_profile_support(measures, &options.conventions)?;
    Judgements::new(qrels, &options.conventions, options.relevance_level)
}

/// [`evaluate_stream`] once the judgements are built.
fn evaluate_opened<R: Read, F: FnMut() -> Result<R>>(
    judgements: &Judgements<'_>,
    mut open: F,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<Streamed> {
    if stream.grouping == Grouping::Partitioned {
        let (evaluation, skipped) =
            evaluate_partitioned(judgements, open()?, source, measures, options, stream)?;
        return Ok(Streamed {
            evaluation,
            skipped,
            warnings: Vec::new(),
        });
    }
    let chunks = RunChunks::new(open()?, stream.chunk_bytes, source, stream.lenient);
    let grouped = evaluate_grouped(judgements, chunks, source, measures, options);
    evaluate_chunks(judgements, grouped, open, source, measures, options, stream)
}

/// The evaluation of the run's chunks as grouped by query (`grouped`); under
/// [`Grouping::Detect`], a run found not grouped is read again from `open()` through partition
/// files, with a warning.
fn evaluate_chunks<R: Read, F: FnMut() -> Result<R>>(
    judgements: &Judgements<'_>,
    grouped: Result<(Evaluation, Skipped)>,
    mut open: F,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<Streamed> {
    let mut warnings = Vec::new();
    let (evaluation, skipped) = match grouped {
        Err(Error::NotGrouped(problem)) if stream.grouping == Grouping::Detect => {
            warnings.push(format!(
                "{problem}; reading it again through {} partition files on disk",
                stream.partitions
            ));
            evaluate_partitioned(judgements, open()?, source, measures, options, stream)?
        }
        other => other?,
    };
    Ok(Streamed {
        evaluation,
        skipped,
        warnings,
    })
}

/// A reader whose reads are made ahead on another thread, a few pieces at a time, so that the
/// system's copies of the file overlap parsing and scoring.
pub struct ReadAhead {
    pieces: Option<std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>>,
    /// Pieces read, handed back to be filled again (fresh memory costs a page fault a page).
    spent: std::sync::mpsc::Sender<Vec<u8>>,
    current: Vec<u8>,
    position: usize,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ReadAhead {
    const PIECE_BYTES: usize = 4 << 20;
    const PIECES_AHEAD: usize = 4;

    /// The file at `path` read ahead; `source` names it in messages.
    pub fn open(path: &Path, source: &str) -> Result<Self> {
        trec::open_file(path, source).map(Self::new)
    }

    /// Read `reader` ahead on a thread of its own.
    pub fn new<R: Read + Send + 'static>(mut reader: R) -> Self {
        let (send, pieces) = std::sync::mpsc::sync_channel(Self::PIECES_AHEAD);
        let (spent, recycled) = std::sync::mpsc::channel::<Vec<u8>>();
        let thread = std::thread::spawn(move || loop {
            let mut piece = recycled.try_recv().unwrap_or_default();
            piece.resize(Self::PIECE_BYTES, 0);
            let result = loop {
                match reader.read(&mut piece) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    other => break other,
                }
            };
            let last = !matches!(result, Ok(n) if n > 0);
            let sent = send.send(result.map(|n| {
                piece.truncate(n);
                piece
            }));
            if last || sent.is_err() {
                return; // the end, an error, or nobody reads any more
            }
        });
        Self {
            pieces: Some(pieces),
            spent,
            current: Vec::new(),
            position: 0,
            thread: Some(thread),
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.position == self.current.len() {
            let Some(pieces) = &self.pieces else {
                return Ok(0);
            };
            match pieces.recv() {
                Ok(Ok(piece)) if !piece.is_empty() => {
                    let done = std::mem::replace(&mut self.current, piece);
                    let _ = self.spent.send(done); // the reader may have ended: then it is dropped
                    self.position = 0;
                }
                Ok(Err(e)) => return Err(e),
                _ => {
                    self.pieces = None;
                    return Ok(0);
                }
            }
        }
        let n = out.len().min(self.current.len() - self.position);
        out[..n].copy_from_slice(&self.current[self.position..self.position + n]);
        self.position += n;
        Ok(n)
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.pieces = None; // the thread's next send fails, and it ends
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Blocks of whole queries from a reader: each block ends after a complete line, and the lines
/// of its last query are held back for the next block. One buffer is reused from block to
/// block.
pub struct QueryBlocks<R: Read> {
    reader: R,
    chunk_bytes: usize,
    buffer: Vec<u8>,
    /// Bytes of `buffer` read and not yet handed out.
    filled: usize,
    /// Bytes at the start of `buffer` handed out by the last call (dropped by the next).
    consumed: usize,
    done: bool,
    first: bool,
}

impl<R: Read> QueryBlocks<R> {
    /// Blocks of about `chunk_bytes` from `reader`.
    pub fn new(reader: R, chunk_bytes: usize) -> Self {
        Self {
            reader,
            chunk_bytes,
            buffer: Vec::new(),
            filled: 0,
            consumed: 0,
            done: false,
            first: true,
        }
    }

    /// The next block; `None` at the end.
    pub fn next_block(&mut self, source: &str) -> Result<Option<&[u8]>> {
        if self.consumed > 0 {
            self.buffer.copy_within(self.consumed..self.filled, 0);
            self.filled -= self.consumed;
            self.consumed = 0;
        }
        loop {
            if self.done {
                if self.filled == 0 {
                    return Ok(None);
                }
                self.consumed = self.filled;
                return Ok(Some(&self.buffer[..self.filled]));
            }
            // Appended to what is held, the buffer growing as the data comes rather than
            // zero-filled to the chunk's size first: a run smaller than a chunk costs its size.
            self.buffer.truncate(self.filled);
            let had = self.filled;
            let read = (&mut self.reader)
                .take(self.chunk_bytes as u64)
                .read_to_end(&mut self.buffer);
            self.filled += read.map_err(|e| trec::io_error(&e, source))?;
            if self.filled == had {
                self.done = true;
                continue;
            }
            if self.first {
                self.first = false;
                if self.buffer[..self.filled].starts_with(b"\xef\xbb\xbf") {
                    self.buffer.copy_within(3..self.filled, 0);
                    self.filled -= 3;
                }
            }
            let data = &self.buffer[..self.filled];
            let Some(cut) = whole_queries_end(data) else {
                continue; // read on
            };
            self.consumed = cut;
            return Ok(Some(&self.buffer[..cut]));
        }
    }
}

/// Where blocks of whole queries come from: a reader ([`QueryBlocks`]) or a mapped file
/// ([`MappedBlocks`]).
///
/// Blocks do not count their lines: whoever parses a block counts them on the way (a pass of
/// its own over every byte would cost as much as a fifth of the parsing).
pub trait Blocks {
    /// The next block; `None` at the end. `source` names the input in messages.
    fn next_block(&mut self, source: &str) -> Result<Option<&[u8]>>;

    /// The last block is no longer needed: memory it holds may go (the next call to
    /// [`Blocks::next_block`] takes in what it still needs).
    fn release(&mut self) {}
}

impl<R: Read> Blocks for QueryBlocks<R> {
    fn next_block(&mut self, source: &str) -> Result<Option<&[u8]>> {
        QueryBlocks::next_block(self, source)
    }
}

/// The blocks of [`QueryBlocks`] over a regular file, mapped into memory a block at a time
/// rather than copied: the same blocks, cut at the same bytes, without the system's copy of the
/// file, the buffer it is copied into, and the page faults of that buffer's fresh memory. Each
/// mapping is dropped before the next is made, so memory holds one block of the file. The risk
/// is that of every mapped read (see [`trec::read_run_file`]): a file truncated by another
/// process while it is mapped kills the process where a read would have seen a short file.
pub struct MappedBlocks {
    file: File,
    size: u64,
    chunk_bytes: u64,
    /// Where the bytes not yet handed out start.
    offset: u64,
    /// Where the bytes taken in so far end (what [`QueryBlocks`] has read).
    end: u64,
    /// Bytes handed out by the last call, from `offset`.
    consumed: u64,
    /// The mapping of `mapped_from..end`.
    map: Option<memmap2::Mmap>,
    mapped_from: u64,
    done: bool,
    first: bool,
}

impl MappedBlocks {
    /// Blocks of about `chunk_bytes` of the file at `path` (at least 1), if it is a regular
    /// file, not empty, that can be mapped; `None` otherwise (read it instead).
    pub fn open(path: &Path, source: &str, chunk_bytes: usize) -> Result<Option<Self>> {
        let file = trec::open_file(path, source)?;
        let Ok(metadata) = file.metadata() else {
            return Ok(None);
        };
        if !metadata.is_file() || metadata.len() == 0 {
            return Ok(None);
        }
        let mut blocks = Self {
            file,
            size: metadata.len(),
            chunk_bytes: chunk_bytes.max(1) as u64,
            offset: 0,
            end: 0,
            consumed: 0,
            map: None,
            mapped_from: 0,
            done: false,
            first: true,
        };
        // A file that cannot be mapped (some file systems) is read instead.
        if blocks.map(0, blocks.size.min(4096)).is_err() {
            return Ok(None);
        }
        blocks.map = None;
        Ok(Some(blocks))
    }

    /// Map `from..to` of the file (not empty) in place of the last mapping.
    fn map(&mut self, from: u64, to: u64) -> std::io::Result<()> {
        self.map = None;
        let len = usize::try_from(to - from)
            .map_err(|_| std::io::Error::other("the block does not fit in memory"))?;
        // SAFETY: the mapping is only read, and dropped before the next one is made. Another
        // process truncating the file meanwhile is the risk named on `MappedBlocks`.
        #[allow(unsafe_code)]
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(from)
                .len(len)
                .populate()
                .map(&self.file)?
        };
        self.map = Some(map);
        self.mapped_from = from;
        Ok(())
    }

    /// The mapped bytes from `offset` on.
    fn data(&self) -> &[u8] {
        let skip = (self.offset - self.mapped_from) as usize;
        self.map.as_deref().map_or(&[][..], |map| &map[skip..])
    }
}

impl Blocks for MappedBlocks {
    fn release(&mut self) {
        self.map = None; // mapped again from `offset` by the next call
    }

    fn next_block(&mut self, source: &str) -> Result<Option<&[u8]>> {
        self.offset += self.consumed;
        self.consumed = 0;
        let failed = |e: std::io::Error| trec::io_error(&e, source);
        loop {
            if self.done {
                if self.end == self.offset {
                    self.map = None;
                    return Ok(None);
                }
                if self.mapped_from != self.offset || self.map.is_none() {
                    self.map(self.offset, self.end).map_err(failed)?;
                }
                self.consumed = self.end - self.offset;
                return Ok(Some(self.data()));
            }
            // As QueryBlocks reads: `chunk_bytes` more after what was taken in.
            let had = self.end;
            self.end = self.size.min(self.end + self.chunk_bytes);
            if self.end == had {
                self.done = true;
                continue;
            }
            self.map(self.offset, self.end).map_err(failed)?;
            if self.first {
                self.first = false;
                if self.data().starts_with(b"\xef\xbb\xbf") {
                    self.offset += 3;
                }
            }
            let data = self.data();
            let Some(cut) = whole_queries_end(data) else {
                continue; // read on
            };
            self.consumed = cut as u64;
            return Ok(Some(&self.data()[..cut]));
        }
    }
}

/// Where a block of whole queries from the start of `data` ends: after complete lines, before
/// the lines of its last query (which may go on in what is not read yet); `None` while `data`
/// holds no complete line (a line longer than the block) or one query only.
fn whole_queries_end(data: &[u8]) -> Option<usize> {
    let last_newline = memchr::memrchr(b'\n', data)?;
    let cut = last_query_start(&data[..=last_newline]);
    (cut > 0).then_some(cut)
}

/// Where the lines of the last query of `data` (complete lines) start, comment and blank lines
/// among them included; 0 when every line belongs to it.
fn last_query_start(data: &[u8]) -> usize {
    let mut end = data.len();
    let mut query: Option<&[u8]> = None;
    let mut start_of_group = data.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &data[..end - 1]).map_or(0, |i| i + 1);
        let line = &data[start..end];
        let first = first_field(line);
        match (first, query) {
            (None, _) => {}
            (Some(field), None) => query = Some(field),
            (Some(field), Some(q)) if field == q => {}
            (Some(_), Some(_)) => return start_of_group,
        }
        start_of_group = start;
        end = start;
    }
    0
}

/// The first field of a line; `None` for a blank or comment line.
fn first_field(line: &[u8]) -> Option<&[u8]> {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c);
    let start = line.iter().position(|b| !is_space(b))?;
    if line[start] == b'#' {
        return None;
    }
    let end = line[start..]
        .iter()
        .position(is_space)
        .map_or(line.len(), |i| start + i);
    Some(&line[start..end])
}

/// A TREC run read a chunk of whole queries at a time (see [`QueryBlocks`]): each chunk is
/// parsed as a run of its own, errors naming the line of the whole file, malformed lines
/// skipped and counted in lenient mode. Blocks without rows (comments, blank or, lenient, only
/// bad lines) are passed over; a run with no row at all is an [`Error::EmptyInput`], raised
/// when the end is reached.
pub struct RunChunks<B: Blocks> {
    blocks: B,
    source: String,
    lenient: bool,
    found_rows: bool,
    /// The 1-based line number of the next block's first line.
    line: u64,
    /// The lines skipped so far (lenient mode).
    pub skipped: Skipped,
    /// Columns of chunks done with, whose memory the next chunks are parsed into.
    spare: Spare<f64>,
}

impl<R: Read> RunChunks<QueryBlocks<R>> {
    /// Chunks of about `chunk_bytes` from `reader`; `source` names it in messages.
    pub fn new(reader: R, chunk_bytes: usize, source: &str, lenient: bool) -> Self {
        Self::from_blocks(QueryBlocks::new(reader, chunk_bytes), source, lenient)
    }
}

impl<B: Blocks> RunChunks<B> {
    /// Chunks of the blocks `blocks` gives; `source` names the input in messages.
    pub fn from_blocks(blocks: B, source: &str, lenient: bool) -> Self {
        Self {
            blocks,
            source: source.to_string(),
            lenient,
            found_rows: false,
            line: 1,
            skipped: Skipped::default(),
            spare: Spare::default(),
        }
    }

    /// Hand back a chunk done with: the next chunk is parsed into its memory instead of fresh
    /// memory (whose every page faults when first written).
    pub fn recycle(&mut self, chunk: Run) {
        self.spare.recycle(chunk);
    }

    /// The next chunk, named by the tag of its last valid line; `None` at the end.
    pub fn next_chunk(&mut self) -> Result<Option<Run>> {
        while let Some(block) = self.blocks.next_block(&self.source)? {
            let options = ReadOptions {
                lenient: self.lenient,
                first_line: self.line,
            };
            let parsed = trec::parse_run_rows_into(block, &self.source, &options, &mut self.spare);
            self.blocks.release();
            let (parsed, lines) = parsed?;
            self.line += lines;
            self.skipped = std::mem::take(&mut self.skipped).merge(parsed.skipped);
            if !parsed.table.is_empty() {
                self.found_rows = true;
                return Ok(Some(parsed.table));
            }
        }
        if !self.found_rows {
            return Err(Error::EmptyInput(
                InputProblem::new(format!(
                    "file holds no TREC run lines; expected {RUN_FIELDS}"
                ))
                .in_source(&self.source),
            ));
        }
        Ok(None)
    }
}

/// Per-query values gathered chunk by chunk.
struct Gathered {
    query_ids: Vec<String>,
    rows: Vec<Vec<f64>>,
    unjudged: HashSet<String>,
    run_name: Option<String>,
}

impl Gathered {
    fn new() -> Self {
        Self {
            query_ids: Vec::new(),
            rows: Vec::new(),
            unjudged: HashSet::new(),
            run_name: None,
        }
    }

    /// Prepare and score one chunk of whole queries.
    fn score(
        &mut self,
        judgements: &Judgements<'_>,
        chunk: &Run,
        measures: &[Measure],
        options: &EvalOptions,
    ) -> Result<()> {
        let (prepared, values) = score(judgements, chunk, measures, options, false, false)?;
        for (q, id) in prepared.batch.query_ids.into_iter().enumerate() {
            self.query_ids.push(id);
            self.rows
                .push(values.iter().map(|column| column[q]).collect());
        }
        self.unjudged.extend(prepared.unjudged_queries);
        Ok(())
    }

    /// The evaluation, queries sorted by id; the missing queries scored 0 under `complete`.
    fn finish(
        mut self,
        judgements: &Judgements<'_>,
        source: &str,
        measures: &[Measure],
        options: &EvalOptions,
        skipped: Skipped,
    ) -> Result<(Evaluation, Skipped)> {
        let qrels = judgements.qrels();
        let mut missing: Vec<String> = {
            let evaluated: HashSet<&str> = self.query_ids.iter().map(String::as_str).collect();
            qrels
                .queries
                .names()
                .filter(|q| !evaluated.contains(q))
                .map(str::to_string)
                .collect()
        };
        missing.sort_unstable();
        if options.complete && !missing.is_empty() {
            let empty = Run::new("run", source);
            let (only_missing, values) = score(judgements, &empty, measures, options, true, false)?;
            for (q, id) in only_missing.batch.query_ids.into_iter().enumerate() {
                if missing.binary_search(&id).is_ok() {
                    self.query_ids.push(id);
                    self.rows
                        .push(values.iter().map(|column| column[q]).collect());
                }
            }
        }
        if self.query_ids.is_empty() {
            return Err(no_common_queries(source, self.unjudged.len(), qrels));
        }
        let mut order: Vec<usize> = (0..self.query_ids.len()).collect();
        order.sort_unstable_by(|&a, &b| self.query_ids[a].cmp(&self.query_ids[b]));
        let values = (0..measures.len())
            .map(|m| order.iter().map(|&q| self.rows[q][m]).collect())
            .collect();
        let query_ids = order
            .iter()
            .map(|&q| std::mem::take(&mut self.query_ids[q]))
            .collect();
        let mut unjudged: Vec<String> = self.unjudged.into_iter().collect();
        unjudged.sort_unstable();
        let evaluation = Evaluation {
            measures: measures.to_vec(),
            query_ids,
            values,
            unjudged_queries: unjudged,
            missing_queries: missing,
            run_name: self.run_name.unwrap_or_default(),
        };
        Ok((evaluation, skipped))
    }
}

/// The chunks of a run grouped by query, taken in file order: each checked to hold no query
/// of an earlier chunk, then scored.
struct Grouped {
    gathered: Gathered,
    seen: HashSet<String>,
}

impl Grouped {
    fn new() -> Self {
        Self {
            gathered: Gathered::new(),
            seen: HashSet::new(),
        }
    }

    fn take(
        &mut self,
        judgements: &Judgements<'_>,
        chunk: &Run,
        source: &str,
        measures: &[Measure],
        options: &EvalOptions,
    ) -> Result<()> {
        // trec_eval names the run by the tag of its last line.
        self.gathered.run_name = Some(chunk.name.clone());
        let mut again: Vec<&str> = chunk
            .queries
            .names()
            .filter(|q| self.seen.contains(*q))
            .collect();
        if !again.is_empty() {
            again.sort_unstable();
            return Err(Error::NotGrouped(
                InputProblem::new(format!(
                    "the run is not grouped by query: query {} appears again after other queries",
                    crate::error::quoted(again[0])
                ))
                .in_source(source),
            ));
        }
        self.seen.extend(chunk.queries.names().map(str::to_string));
        self.gathered.score(judgements, chunk, measures, options)
    }
}

fn evaluate_grouped<B: Blocks>(
    judgements: &Judgements<'_>,
    mut chunks: RunChunks<B>,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<(Evaluation, Skipped)> {
    let mut grouped = Grouped::new();
    while let Some(chunk) = chunks.next_chunk()? {
        grouped.take(judgements, &chunk, source, measures, options)?;
        chunks.recycle(chunk);
    }
    let skipped = chunks.skipped;
    grouped
        .gathered
        .finish(judgements, source, measures, options, skipped)
}

/// [`evaluate_grouped`] with the next chunk read on a thread of its own while one is scored (the
/// reading and the scoring each spread over rayon's threads as they find them idle). The
/// chunks are scored in file order, so the first error met is the one a reading in turn meets;
/// one chunk is read ahead at most, and its memory is that of a chunk scored before it.
fn evaluate_grouped_ahead<B: Blocks + Send>(
    judgements: &Judgements<'_>,
    chunks: RunChunks<B>,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
) -> Result<(Evaluation, Skipped)> {
    let mut grouped = Grouped::new();
    std::thread::scope(|scope| {
        // A rendezvous: the chunk read ahead waits for the one scored to be done with.
        let (hand_over, read) = std::sync::mpsc::sync_channel::<Result<Run>>(0);
        let (hand_back, done) = std::sync::mpsc::channel::<Run>();
        let reader = scope.spawn(move || {
            let mut chunks = chunks;
            loop {
                for chunk in done.try_iter() {
                    chunks.recycle(chunk);
                }
                let Some(next) = in_pool(|| chunks.next_chunk()).transpose() else {
                    return chunks.skipped;
                };
                let failed = next.is_err();
                if hand_over.send(next).is_err() || failed {
                    return chunks.skipped; // an error, or the scoring stopped
                }
            }
        });
        for chunk in &read {
            let chunk = chunk?;
            in_pool(|| grouped.take(judgements, &chunk, source, measures, options))?;
            let _ = hand_back.send(chunk); // the reader may have ended: then it is dropped
        }
        let skipped = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        grouped
            .gathered
            .finish(judgements, source, measures, options, skipped)
    })
}

/// `f()` run as one job of rayon's pool, the thread calling waiting for it once: the work it
/// spreads over the pool is then forked from a thread of the pool, whose joins wait by taking
/// other jobs, where each join made from outside the pool puts the caller to sleep and wakes it
/// again (a sleep and a wake-up of two threads a join).
fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}

fn evaluate_partitioned<R: Read>(
    judgements: &Judgements<'_>,
    reader: R,
    source: &str,
    measures: &[Measure],
    options: &EvalOptions,
    stream: &StreamOptions,
) -> Result<(Evaluation, Skipped)> {
    let folder = TempFolder::new(stream.temp_dir.as_deref(), source)?;
    let partitions = stream.partitions.max(1);
    let disk = |e: std::io::Error| {
        Error::Input(
            InputProblem::new(format!(
                "cannot write partition files in {}: {e}",
                folder.path.display()
            ))
            .in_source(source),
        )
    };
    let mut files: Vec<BufWriter<File>> = (0..partitions)
        .map(|p| File::create(folder.path.join(format!("p{p:04}.trec"))).map(BufWriter::new))
        .collect::<std::io::Result<_>>()
        .map_err(disk)?;
    let hasher = hashbrown::DefaultHashBuilder::default();
    let mut chunks = RunChunks::new(reader, stream.chunk_bytes, source, stream.lenient);
    let mut gathered = Gathered::new();
    while let Some(chunk) = chunks.next_chunk()? {
        gathered.run_name = Some(chunk.name.clone());
        let targets: Vec<usize> = chunk
            .queries
            .names()
            .map(|q| (hasher.hash_one(q) % partitions as u64) as usize)
            .collect();
        for row in 0..chunk.len() {
            // Rust prints the shortest text that reads back as the same float.
            let file = &mut files[targets[chunk.query[row] as usize]];
            writeln!(
                file,
                "{} Q0 {} 0 {} t",
                chunk.query_id(row),
                chunk.docs.get(row),
                chunk.score[row]
            )
            .map_err(disk)?;
        }
    }
    for file in &mut files {
        file.flush().map_err(disk)?;
    }
    drop(files);
    for p in 0..partitions {
        let path = folder.path.join(format!("p{p:04}.trec"));
        let data = std::fs::read(&path).map_err(disk)?;
        std::fs::remove_file(&path).map_err(disk)?;
        if data.is_empty() {
            continue;
        }
        let mut part = trec::parse_run(&data, source, &ReadOptions::default())?.table;
        part.name = gathered.run_name.clone().unwrap_or_default();
        drop(data);
        gathered.score(judgements, &part, measures, options)?;
    }
    gathered.finish(judgements, source, measures, options, chunks.skipped)
}

/// A temporary folder removed when dropped.
struct TempFolder {
    path: PathBuf,
}

impl TempFolder {
    fn new(parent: Option<&Path>, source: &str) -> Result<Self> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = parent.join(format!("rankscope-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| {
            Error::Input(
                InputProblem::new(format!("cannot create a folder for partition files: {e}"))
                    .in_source(source),
            )
        })?;
        Ok(Self { path })
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests;
