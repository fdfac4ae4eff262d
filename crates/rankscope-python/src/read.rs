//! TREC files read by the core and handed out as Arrow tables (the PyCapsule stream interface:
//! polars and pyarrow take them without a copy), whole or a chunk of whole queries at a time.
//!
//! Strings go out as Arrow's string views: a document id of at most 12 bytes lives in its view,
//! a longer one points into the core's own buffer of document ids, which is handed over rather
//! than copied; a query id points into one buffer of the distinct ids.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringViewArray};
use arrow_buffer::Buffer;
use arrow_schema::{Field, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use rankscope_core::intern::Interner;
use rankscope_core::prepare::RankedDocuments;
use rankscope_core::stream::{QueryBlocks, ReadAhead, RunChunks};
use rankscope_core::table::{Qrels, Run, StrColumn};
use rankscope_core::trec::{self, Parsed, ReadOptions};
use rankscope_core::UNJUDGED;
use rayon::prelude::*;

use crate::arrow::stream_capsule;
use crate::errors::IntoPyResult;

/// The text of the warning about skipped lines, if any were skipped.
pub(crate) type Warning = Option<String>;

/// The file at `path` or the bytes `data`, parsed by the core's reader of that file kind
/// (`read` for files, `parse` for bytes) with the GIL released; and the warning about lines
/// skipped in lenient mode.
pub(crate) fn read_trec<T: Send>(
    py: Python<'_>,
    source: &str,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyBytes>>,
    lenient: bool,
    read: impl Fn(&Path, &str, &ReadOptions) -> rankscope_core::Result<Parsed<T>> + Sync,
    parse: impl Fn(&[u8], &str, &ReadOptions) -> rankscope_core::Result<Parsed<T>> + Sync,
) -> PyResult<(T, Warning)> {
    let options = ReadOptions {
        lenient,
        first_line: 1,
    };
    let parsed = match (path, data) {
        (Some(path), None) => py.detach(|| read(&path, source, &options)),
        (None, Some(data)) => {
            let bytes = data.as_bytes();
            py.detach(|| parse(bytes, source, &options))
        }
        _ => return Err(PyValueError::new_err("give either path or data")),
    }
    .or_raise(py)?;
    Ok((parsed.table, parsed.skipped.warning(source)))
}

/// A Python binary file read as a Rust `Read`: each read takes the GIL for `file.read(n)`. The
/// exception a read raised is kept, to be raised as it is (a decompression error names the
/// file its own way) rather than as the core's message about a failed read.
pub(crate) struct PyFileReader {
    file: Py<PyAny>,
    failure: Arc<Mutex<Option<PyErr>>>,
}

impl PyFileReader {
    pub(crate) fn new(file: Py<PyAny>) -> Self {
        Self {
            file,
            failure: Arc::default(),
        }
    }

    /// Where the exception of a failed read is kept.
    pub(crate) fn failure(&self) -> Arc<Mutex<Option<PyErr>>> {
        Arc::clone(&self.failure)
    }
}

impl Read for PyFileReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let data = self.file.bind(py).call_method1("read", (buffer.len(),))?;
            let bytes = data.cast::<PyBytes>()?.as_bytes();
            buffer[..bytes.len()].copy_from_slice(bytes);
            Ok::<usize, PyErr>(bytes.len())
        })
        .map_err(|error| {
            let message = error.to_string();
            *self.failure.lock().expect("one reader at a time") = Some(error);
            std::io::Error::other(message)
        })
    }
}

/// One record batch, exported through `__arrow_c_stream__` (as often as asked: the columns are
/// shared, not copied).
#[pyclass(frozen, module = "rankscope._core", name = "ArrowTable")]
pub struct ArrowTable {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowTable {
    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        let schema = self.batch.schema();
        schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    /// The Arrow PyCapsule interface: a capsule holding an `ArrowArrayStream` of the batch
    /// (`requested_schema` is not looked at: the columns have one layout).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        stream_capsule(py, self.batch.clone())
    }
}

/// Views of the items of `column`, and the buffers the long ones point into: the column's own
/// bytes (no copy), cut into pieces below 4 GiB (views hold 32-bit offsets); none when every
/// item fits in its view. Made in parallel.
fn string_views(column: StrColumn) -> (Vec<u128>, Vec<Buffer>) {
    let (bytes, offsets) = column.into_parts();
    let items = offsets.len() - 1;
    let all_inline = offsets.windows(2).all(|w| w[1] - w[0] <= 12);
    // Where each buffer starts in `bytes`, and the buffer of each item (one buffer unless the
    // ids take 4 GiB or more).
    let mut starts = vec![0usize];
    let mut block_of: Vec<u32> = Vec::new();
    if !all_inline && bytes.len() > u32::MAX as usize {
        block_of.reserve(items);
        for w in offsets.windows(2) {
            if w[1] - starts[starts.len() - 1] > u32::MAX as usize {
                starts.push(w[0]);
            }
            block_of.push((starts.len() - 1) as u32);
        }
    }
    let views: Vec<u128> = (0..items)
        .into_par_iter()
        .with_min_len(1 << 14)
        .map(|i| {
            let block = block_of.get(i).map_or(0, |&b| b);
            view_of(
                &bytes,
                offsets[i],
                offsets[i + 1],
                block,
                starts[block as usize],
            )
        })
        .collect();
    if all_inline {
        return (views, Vec::new());
    }
    let whole = Buffer::from_vec(bytes);
    let mut buffers = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(whole.len());
        buffers.push(whole.slice_with_length(start, end - start));
    }
    (views, buffers)
}

/// Arrow's view of `bytes[start..end]` (its layout: the length as 32 bits, then the item itself
/// if it takes at most 12 bytes, else its first 4 bytes, its buffer `block` and its offset in
/// that buffer, which starts at `base`), as `arrow_array::builder::make_view` makes it, without
/// a call and a copy per item.
#[inline]
fn view_of(bytes: &[u8], start: usize, end: usize, block: u32, base: usize) -> u128 {
    let len = end - start;
    if len > 12 {
        let prefix = u32::from_le_bytes(bytes[start..start + 4].try_into().expect("4 bytes"));
        return len as u128
            | u128::from(prefix) << 32
            | u128::from(block) << 64
            | ((start - base) as u128) << 96;
    }
    let data = if start + 16 <= bytes.len() {
        let word = u128::from_le_bytes(bytes[start..start + 16].try_into().expect("16 bytes"));
        let kept = if len == 0 {
            0
        } else {
            u128::MAX >> (128 - 8 * len)
        };
        word & kept
    } else {
        let mut word = [0u8; 16];
        word[..len].copy_from_slice(&bytes[start..end]);
        u128::from_le_bytes(word)
    };
    len as u128 | data << 32
}

/// A string view column of `codes`, each the code of a name of `names`.
fn coded_strings(names: &Interner, codes: &[u32]) -> ArrayRef {
    let mut distinct = StrColumn::with_capacity(names.len(), 0);
    for name in names.names() {
        distinct.push(name);
    }
    let (name_views, buffers) = string_views(distinct);
    let views: Vec<u128> = codes
        .par_iter()
        .with_min_len(1 << 14)
        .map(|&c| name_views[c as usize])
        .collect();
    strings(views, buffers)
}

fn strings(views: Vec<u128>, buffers: Vec<Buffer>) -> ArrayRef {
    // SAFETY: every view was made by `view_of` from a whole item of valid UTF-8 (a `StrColumn`
    // holds `&str`s only); a long one names the buffer that holds its item and the item's
    // offset in it, within that buffer's bounds (`string_views` cuts buffers between items).
    #[allow(unsafe_code)]
    let array = unsafe { StringViewArray::new_unchecked(views.into(), buffers, None) };
    Arc::new(array)
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, array)| Field::new(*name, array.data_type().clone(), array.null_count() > 0))
        .collect();
    let arrays = columns.into_iter().map(|(_, array)| array).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .expect("columns of one length and of their fields' types")
}

/// A run's columns `query_id`, `doc_id` (strings) and `score` (Float64), in row order.
fn run_table(run: Run) -> ArrowTable {
    let query = coded_strings(&run.queries, &run.query);
    let (views, buffers) = string_views(run.docs);
    let score: ArrayRef = Arc::new(Float64Array::from(run.score));
    ArrowTable {
        batch: batch(vec![
            ("query_id", query),
            ("doc_id", strings(views, buffers)),
            ("score", score),
        ]),
    }
}

/// Each query's documents in rank order: the run's columns `query_id`, `doc_id` and `score`,
/// then `rank` (1-based, Int64), `relevance` (the grade, null when not judged) and `judged`.
pub(crate) fn ranked_table(run: &Run, listed: &[RankedDocuments]) -> ArrowTable {
    let total = listed.iter().map(|d| d.rows.len()).sum();
    let mut ordered = Run::new(run.name.clone(), run.source.clone());
    let mut ranks: Vec<i64> = Vec::with_capacity(total);
    let mut grades: Vec<Option<i64>> = Vec::with_capacity(total);
    for documents in listed {
        for (rank, (&row, &grade)) in documents.rows.iter().zip(&documents.grades).enumerate() {
            let row = row as usize;
            ordered.push(&documents.query_id, run.docs.get(row), run.score[row]);
            ranks.push(rank as i64 + 1);
            grades.push((grade != UNJUDGED).then_some(grade));
        }
    }
    let judged: ArrayRef = Arc::new(BooleanArray::from(
        grades.iter().map(Option::is_some).collect::<Vec<bool>>(),
    ));
    let mut columns = run_table(ordered).batch.columns().to_vec();
    columns.push(Arc::new(Int64Array::from(ranks)));
    columns.push(Arc::new(Int64Array::from(grades)));
    columns.push(judged);
    let names = ["query_id", "doc_id", "score", "rank", "relevance", "judged"];
    ArrowTable {
        batch: batch(names.into_iter().zip(columns).collect()),
    }
}

/// Judgements' columns `query_id`, `doc_id`, `relevance` (Int64), and `subtopic` (strings)
/// when they name subtopics.
fn qrels_table(qrels: Qrels) -> ArrowTable {
    let mut columns = vec![("query_id", coded_strings(&qrels.queries, &qrels.query))];
    let subtopic = qrels
        .has_subtopics()
        .then(|| coded_strings(&qrels.subtopics, &qrels.subtopic));
    let (views, buffers) = string_views(qrels.docs);
    columns.push(("doc_id", strings(views, buffers)));
    let grade: ArrayRef = Arc::new(Int64Array::from(qrels.grade));
    columns.push(("relevance", grade));
    if let Some(subtopic) = subtopic {
        columns.push(("subtopic", subtopic));
    }
    ArrowTable {
        batch: batch(columns),
    }
}

/// A TREC run file (`path`) or its content (`data`) as an Arrow table, with the run's name (the
/// tag of its last valid line) and the warning about skipped lines.
#[pyfunction]
#[pyo3(signature = (source, *, path=None, data=None, lenient=false))]
fn read_trec_run_table(
    py: Python<'_>,
    source: String,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyBytes>>,
    lenient: bool,
) -> PyResult<(ArrowTable, String, Warning)> {
    let read = trec::read_run_file;
    let (run, warning) = read_trec(py, &source, path, data, lenient, read, trec::parse_run)?;
    let name = run.name.clone();
    Ok((py.detach(|| run_table(run)), name, warning))
}

/// A TREC qrels file (`path`) or its content (`data`) as an Arrow table, and the warning about
/// skipped lines.
#[pyfunction]
#[pyo3(signature = (source, *, path=None, data=None, lenient=false))]
fn read_trec_qrels_table(
    py: Python<'_>,
    source: String,
    path: Option<PathBuf>,
    data: Option<Bound<'_, PyBytes>>,
    lenient: bool,
) -> PyResult<(ArrowTable, Warning)> {
    let read = trec::read_qrels_file;
    let (qrels, warning) = read_trec(py, &source, path, data, lenient, read, trec::parse_qrels)?;
    Ok((py.detach(|| qrels_table(qrels)), warning))
}

/// A piece of a TREC file (whole lines) parsed with the GIL released by `parse` (a reader that
/// gives an empty table for a piece without rows), its lines numbered from `first_line`; and
/// the warning about lines skipped in lenient mode.
fn parse_piece<T: Send>(
    py: Python<'_>,
    source: &str,
    data: &Bound<'_, PyBytes>,
    first_line: u64,
    lenient: bool,
    parse: impl Fn(&[u8], &str, &ReadOptions) -> rankscope_core::Result<Parsed<T>> + Sync,
) -> PyResult<(T, Warning)> {
    let bytes = data.as_bytes();
    let options = ReadOptions {
        lenient,
        first_line,
    };
    let parsed = py.detach(|| parse(bytes, source, &options)).or_raise(py)?;
    Ok((parsed.table, parsed.skipped.warning(source)))
}

/// The rows of a piece of a TREC run (`data`: whole lines; `first_line`: the number of its first
/// line in the file, 1 for the file's start, where a byte order mark is skipped) as an Arrow
/// table, the tag of its last valid line ("" without rows), and the warning about skipped lines.
/// A piece without rows is an empty table, not an error.
#[pyfunction]
#[pyo3(signature = (source, data, *, first_line=1, lenient=false))]
fn parse_trec_run_rows(
    py: Python<'_>,
    source: String,
    data: Bound<'_, PyBytes>,
    first_line: u64,
    lenient: bool,
) -> PyResult<(ArrowTable, String, Warning)> {
    let parse = trec::parse_run_rows;
    let (run, warning) = parse_piece(py, &source, &data, first_line, lenient, parse)?;
    let name = run.name.clone();
    Ok((py.detach(|| run_table(run)), name, warning))
}

/// The rows of a piece of TREC qrels, as [`parse_trec_run_rows`] reads a piece of a run.
#[pyfunction]
#[pyo3(signature = (source, data, *, first_line=1, lenient=false))]
fn parse_trec_qrels_rows(
    py: Python<'_>,
    source: String,
    data: Bound<'_, PyBytes>,
    first_line: u64,
    lenient: bool,
) -> PyResult<(ArrowTable, Warning)> {
    let parse = trec::parse_qrels_rows;
    let (qrels, warning) = parse_piece(py, &source, &data, first_line, lenient, parse)?;
    Ok((py.detach(|| qrels_table(qrels)), warning))
}

/// The tag of the last valid line of a plain TREC run file (the run's name), read from its end;
/// `None` when no line is valid.
#[pyfunction]
fn last_trec_run_tag(py: Python<'_>, path: PathBuf, source: String) -> PyResult<Option<String>> {
    py.detach(|| trec::last_run_tag(&path, &source))
        .or_raise(py)
}

/// Refuse `path` (`source` names it) where it cannot be read as a file: missing, or a
/// directory (an `InputError`, as every reader of the core words it).
#[pyfunction]
fn check_input_file(py: Python<'_>, path: PathBuf, source: &str) -> PyResult<()> {
    trec::check_input_file(&path, source).or_raise(py)
}

/// What a chunked read holds between chunks.
struct ChunkState {
    chunks: RunChunks<QueryBlocks<Box<dyn Read + Send>>>,
    /// The exception a read of a Python file raised, if one did.
    failure: Option<Arc<Mutex<Option<PyErr>>>>,
    /// The run's name: the tag of the file's last valid line, else of the first chunk's.
    name: Option<String>,
}

/// A TREC run read a chunk of whole queries at a time (memory bounded by `chunk_bytes`): the
/// plain file at `path`, or the binary file `file` (decompressing, or standard input). Iterating
/// gives Arrow tables; `name` is the run's name once known (before the first chunk for a file
/// at `path`), `warning` the warning about skipped lines once the end is reached.
#[pyclass(module = "rankscope._core", name = "TrecRunChunks")]
pub struct TrecRunChunks {
    state: Mutex<ChunkState>,
    source: String,
}

#[pymethods]
impl TrecRunChunks {
    #[new]
    #[pyo3(signature = (source, *, chunk_bytes, lenient=false, path=None, file=None))]
    fn new(
        py: Python<'_>,
        source: String,
        chunk_bytes: usize,
        lenient: bool,
        path: Option<PathBuf>,
        file: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let mut failure = None;
        let (reader, name): (Box<dyn Read + Send>, Option<String>) = match (path, file) {
            (Some(path), None) => {
                let name = py
                    .detach(|| trec::last_run_tag(&path, &source))
                    .or_raise(py)?;
                let file = ReadAhead::open(&path, &source).or_raise(py)?;
                (Box::new(file), name)
            }
            (None, Some(file)) => {
                let reader = PyFileReader::new(file);
                failure = Some(reader.failure());
                (Box::new(reader), None)
            }
            _ => return Err(PyValueError::new_err("give either path or file")),
        };
        let chunks = RunChunks::new(reader, chunk_bytes, &source, lenient);
        Ok(Self {
            state: Mutex::new(ChunkState {
                chunks,
                failure,
                name,
            }),
            source,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ArrowTable>> {
        let failure = self.lock().failure.clone();
        let next = py.detach(|| {
            let mut state = self.lock();
            let chunk = state.chunks.next_chunk()?;
            Ok(chunk.map(|chunk| {
                if state.name.is_none() {
                    state.name = Some(chunk.name.clone());
                }
                run_table(chunk)
            }))
        });
        if next.is_err() {
            if let Some(raised) = failure.and_then(|f| f.lock().ok()?.take()) {
                return Err(raised);
            }
        }
        next.or_raise(py)
    }

    /// The run's name, once known.
    #[getter]
    fn name(&self) -> Option<String> {
        self.lock().name.clone()
    }

    /// The warning about the lines skipped so far (lenient mode), if any.
    #[getter]
    fn warning(&self) -> Warning {
        self.lock().chunks.skipped.warning(&self.source)
    }
}

impl TrecRunChunks {
    fn lock(&self) -> std::sync::MutexGuard<'_, ChunkState> {
        self.state
            .lock()
            .expect("a read that panicked is not read on")
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowTable>()?;
    m.add_class::<TrecRunChunks>()?;
    m.add_function(wrap_pyfunction!(read_trec_run_table, m)?)?;
    m.add_function(wrap_pyfunction!(read_trec_qrels_table, m)?)?;
    m.add_function(wrap_pyfunction!(parse_trec_run_rows, m)?)?;
    m.add_function(wrap_pyfunction!(parse_trec_qrels_rows, m)?)?;
    m.add_function(wrap_pyfunction!(last_trec_run_tag, m)?)?;
    m.add_function(wrap_pyfunction!(check_input_file, m)?)?;
    Ok(())
}
