//! Files taken in: mapped a window of whole lines at a time, or read in blocks where they
//! cannot be mapped (pipes, standard input).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, InputProblem, Result};
use crate::table::{Qrels, Run};

use super::parse::{
    finish_qrels, finish_run, parse_run_rows, LineKind, ParseOutput, QrelsLine, Reader, RunLine,
};
use super::{strip_bom, Parsed, ReadOptions};

/// Read a plain (uncompressed) TREC run file; `source` names it in messages.
///
/// The file is parsed in windows of whole lines, so memory holds the columns and one window,
/// not the whole text. (A line that is not text is reported before other problems of its
/// window, as when a whole file is read at once.) See `read_windows` for how a file is
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

/// The tag of the last valid line of a plain TREC run file (the run's name, as trec_eval names
/// it), read from the file's end (64 KiB first, then four times more until a valid line is
/// found); `None` when no line is valid.
///
/// For readers that hand out a file's rows before reaching its end (the run in chunks): every
/// chunk is named as the whole file is. A line is valid as the lenient reader takes it.
pub fn last_run_tag(path: &Path, source: &str) -> Result<Option<String>> {
    let mut file = open_file(path, source)?;
    let size = file.metadata().map_err(|e| io_error(&e, source))?.len();
    let lenient = ReadOptions {
        lenient: true,
        first_line: 1,
    };
    let mut tail_bytes: u64 = 1 << 16;
    loop {
        let start = size.saturating_sub(tail_bytes);
        file.seek(SeekFrom::Start(start))
            .map_err(|e| io_error(&e, source))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)
            .map_err(|e| io_error(&e, source))?;
        let lines = if start == 0 {
            strip_bom(&tail)
        } else {
            // The tail may begin inside a line: that one is not whole.
            memchr::memchr(b'\n', &tail).map_or(&[][..], |i| &tail[i + 1..])
        };
        let rows = parse_run_rows(lines, source, &lenient)?.table;
        if !rows.is_empty() {
            return Ok(Some(rows.name));
        }
        if start == 0 {
            return Ok(None);
        }
        tail_bytes *= 4;
    }
}

/// How a file is taken in: its windows' size, and whether it may be mapped.
#[derive(Debug, Clone, Copy)]
pub(super) struct Windows {
    /// Bytes parsed at a time (a line longer than this widens its window).
    pub(super) bytes: usize,
    /// Map the file where it can be mapped (else read it, as for a pipe).
    pub(super) map: bool,
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
pub(super) fn read_windows<K: LineKind>(
    path: &Path,
    source: &str,
    options: &ReadOptions,
    windows: &Windows,
) -> Result<(ParseOutput<K::Value>, Vec<u8>)> {
    let mut file = open_file(path, source)?;
    let metadata = file.metadata().ok();
    let size = metadata.as_ref().map_or(0, std::fs::Metadata::len);
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
        #[allow(unsafe_code)]
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

/// Whether the file at `path` can be read as one (`source` names it in the error): it exists
/// and is not a directory. Every reader of a file checks this before it opens it, the Python
/// command's readers of every format too, so that both command lines refuse a missing file or
/// a directory with the same message.
///
/// ```
/// use rankscope_core::trec::check_input_file;
///
/// let folder = std::env::temp_dir();
/// let error = check_input_file(&folder, "runs").unwrap_err();
/// assert_eq!(error.to_string(), "runs: expected a file; found a directory");
/// let error = check_input_file(&folder.join("no such run"), "run").unwrap_err();
/// assert_eq!(error.to_string(), "run: no such file");
/// ```
pub fn check_input_file(path: &Path, source: &str) -> Result<()> {
    match std::fs::metadata(path) {
        Err(error) => Err(io_error(&error, source)),
        Ok(metadata) if metadata.is_dir() => Err(Error::Input(
            InputProblem::new("expected a file; found a directory").in_source(source),
        )),
        Ok(_) => Ok(()),
    }
}

/// The file at `path` opened for reading, once [`check_input_file`] takes it.
pub(crate) fn open_file(path: &Path, source: &str) -> Result<std::fs::File> {
    check_input_file(path, source)?;
    std::fs::File::open(path).map_err(|e| io_error(&e, source))
}

/// An input error for a failed read, worded as every reader words it.
pub(crate) fn io_error(error: &std::io::Error, source: &str) -> Error {
    let message = match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => format!("cannot read the file: {error}"),
    };
    Error::Input(InputProblem::new(message).in_source(source))
}
