//! Tables in through the Arrow PyCapsule interface (`__arrow_c_stream__`: polars and pyarrow
//! frames, pandas through pyarrow), read batch by batch into the core's columns; and tables out
//! through the same interface.

use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch, RecordBatchIterator};
use arrow_schema::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use rankscope_core::table::{Qrels, Run};

/// `batch` as the Arrow PyCapsule interface hands a table out: a capsule named
/// `arrow_array_stream` holding an `ArrowArrayStream` of the one batch. The consumer moves the
/// stream out and leaves a released one behind; dropping the capsule's value releases a stream
/// nobody took.
pub fn stream_capsule(py: Python<'_>, batch: RecordBatch) -> PyResult<Bound<'_, PyCapsule>> {
    let schema = batch.schema();
    let reader = RecordBatchIterator::new([Ok(batch)], schema);
    let stream = FFI_ArrowArrayStream::new(Box::new(reader));
    PyCapsule::new(py, stream, Some(c"arrow_array_stream".to_owned()))
}

/// The record batches of `table.__arrow_c_stream__()`.
fn batches(table: &Bound<'_, PyAny>) -> PyResult<ArrowArrayStreamReader> {
    let capsule = table.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let pointer = capsule
        .pointer_checked(Some(c"arrow_array_stream"))?
        .as_ptr()
        .cast::<FFI_ArrowArrayStream>();
    // SAFETY: the capsule holds an ArrowArrayStream (the PyCapsule interface); `from_raw`
    // moves it out and leaves a released stream behind, which the capsule's destructor skips.
    #[allow(unsafe_code)]
    let reader = unsafe { ArrowArrayStreamReader::from_raw(pointer) };
    reader.map_err(|e| PyTypeError::new_err(format!("cannot read the Arrow stream: {e}")))
}

fn arrow_error(error: impl std::fmt::Display) -> PyErr {
    PyTypeError::new_err(format!("cannot read the Arrow stream: {error}"))
}

fn column<'b>(batch: &'b RecordBatch, name: &str) -> PyResult<&'b dyn Array> {
    batch
        .column_by_name(name)
        .map(AsRef::as_ref)
        .ok_or_else(|| PyTypeError::new_err(format!("the Arrow table has no column {name:?}")))
}

/// A string column of any of Arrow's string layouts, read row by row.
enum Strings<'a> {
    Small(&'a arrow_array::StringArray),
    Large(&'a arrow_array::LargeStringArray),
    View(&'a arrow_array::StringViewArray),
}

impl<'a> Strings<'a> {
    fn of(array: &'a dyn Array, name: &str) -> PyResult<Self> {
        if let Some(row) = (0..array.len()).find(|&i| array.is_null(i)) {
            return Err(PyTypeError::new_err(format!(
                "column '{name}' is empty or null at row {}",
                row + 1
            )));
        }
        Ok(match array.data_type() {
            DataType::Utf8 => Strings::Small(array.as_string::<i32>()),
            DataType::LargeUtf8 => Strings::Large(array.as_string::<i64>()),
            DataType::Utf8View => Strings::View(array.as_string_view()),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "column '{name}' must hold strings; found {other}"
                )))
            }
        })
    }

    fn get(&self, row: usize) -> &str {
        match self {
            Strings::Small(a) => a.value(row),
            Strings::Large(a) => a.value(row),
            Strings::View(a) => a.value(row),
        }
    }
}

/// A numeric column as f64 values (integers and floats).
// One macro for every width, 64-bit integers among them (which have no lossless `From`).
#[allow(clippy::cast_lossless)]
fn numbers(array: &dyn Array, name: &str) -> PyResult<Vec<f64>> {
    if let Some(row) = (0..array.len()).find(|&i| array.is_null(i)) {
        return Err(PyTypeError::new_err(format!(
            "column '{name}' is null at row {}",
            row + 1
        )));
    }
    macro_rules! primitive {
        ($t:ty) => {
            array
                .as_primitive::<$t>()
                .values()
                .iter()
                .map(|&v| v as f64)
                .collect()
        };
    }
    Ok(match array.data_type() {
        DataType::Float64 => array.as_primitive::<Float64Type>().values().to_vec(),
        DataType::Float32 => primitive!(Float32Type),
        DataType::Int64 => primitive!(Int64Type),
        DataType::Int32 => primitive!(Int32Type),
        DataType::Int16 => primitive!(Int16Type),
        DataType::Int8 => primitive!(Int8Type),
        DataType::UInt64 => primitive!(UInt64Type),
        DataType::UInt32 => primitive!(UInt32Type),
        DataType::UInt16 => primitive!(UInt16Type),
        DataType::UInt8 => primitive!(UInt8Type),
        other => {
            return Err(PyTypeError::new_err(format!(
                "column '{name}' must hold numbers; found {other}"
            )))
        }
    })
}

/// Integer grades (64-bit integers exactly; other integer types widened).
fn grades(array: &dyn Array, name: &str) -> PyResult<Vec<i64>> {
    if array.data_type() == &DataType::Int64 {
        return Ok(array.as_primitive::<Int64Type>().values().to_vec());
    }
    if !array.data_type().is_integer() {
        return Err(PyTypeError::new_err(format!(
            "column '{name}' must hold integer grades; found {}",
            array.data_type()
        )));
    }
    Ok(numbers(array, name)?
        .into_iter()
        .map(|v| v as i64)
        .collect())
}

/// Rows `(query_id, doc_id, value, subtopic)` of every batch, handed to `push` (the subtopic
/// when the table has a `subtopic` column).
fn read_rows<V: Copy>(
    table: &Bound<'_, PyAny>,
    value_column: &str,
    values_of: impl Fn(&dyn Array, &str) -> PyResult<Vec<V>>,
    mut push: impl FnMut(&str, &str, V, Option<&str>),
) -> PyResult<()> {
    for batch in batches(table)? {
        let batch = batch.map_err(arrow_error)?;
        let values = values_of(column(&batch, value_column)?, value_column)?;
        let queries = Strings::of(column(&batch, "query_id")?, "query_id")?;
        let docs = Strings::of(column(&batch, "doc_id")?, "doc_id")?;
        let subtopics = match batch.column_by_name("subtopic") {
            Some(array) => Some(Strings::of(array.as_ref(), "subtopic")?),
            None => None,
        };
        for (row, &value) in values.iter().enumerate() {
            let subtopic = subtopics.as_ref().map(|s| s.get(row));
            push(queries.get(row), docs.get(row), value, subtopic);
        }
    }
    Ok(())
}

/// Judgements from an Arrow stream with query_id, doc_id and relevance (and subtopic, for
/// diversity qrels).
pub fn qrels_from_stream(table: &Bound<'_, PyAny>, source: &str) -> PyResult<Qrels> {
    let mut qrels = Qrels::new(source);
    read_rows(
        table,
        "relevance",
        grades,
        |q, d, g, subtopic| match subtopic {
            Some(s) => qrels.push_with_subtopic(q, s, d, g),
            None => qrels.push(q, d, g),
        },
    )?;
    qrels
        .check()
        .map_err(|e| crate::errors::to_py(table.py(), e))?;
    Ok(qrels)
}

/// A run from an Arrow stream with query_id, doc_id and score.
pub fn run_from_stream(
    table: &Bound<'_, PyAny>,
    name: &str,
    source: &str,
    empty_queries: &[String],
) -> PyResult<Run> {
    let mut run = Run::new(name, source);
    read_rows(table, "score", numbers, |q, d, s, _| run.push(q, d, s))?;
    for query_id in empty_queries {
        run.push_empty(query_id);
    }
    run.check()
        .map_err(|e| crate::errors::to_py(table.py(), e))?;
    Ok(run)
}
