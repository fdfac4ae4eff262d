//! `PerQuery`: the per-query values of an evaluation, kept in Rust until Python asks for them.
//!
//! Python sees them as `to_dict()` (dicts built here, in one pass), as one column at a time
//! through the buffer protocol (`Column`: numpy's `asarray` shares the memory), and as an Arrow
//! stream (`__arrow_c_stream__`) that polars and pyarrow import without a copy of the values.

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use pyo3::exceptions::{PyBufferError, PyIndexError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList, PyString};
use rankscope_core::measures::Aggregate;
use rankscope_core::output::table::RunValues;

use crate::evaluate::aggregate_named;

/// Per-query values: one row per query (ids in byte-wise order), one column per measure.
#[pyclass(frozen, module = "rankscope._core")]
pub struct PerQuery {
    query_ids: Vec<String>,
    names: Vec<String>,
    aggregates: Vec<Aggregate>,
    columns: Vec<Arc<[f64]>>,
}

impl PerQuery {
    /// Rows sorted by query id (byte-wise), whatever order `query_ids` came in; `columns[m]`
    /// holds measure `names[m]`, combined over queries by `aggregates[m]`.
    pub fn new(
        query_ids: Vec<String>,
        names: Vec<String>,
        aggregates: Vec<Aggregate>,
        columns: Vec<Vec<f64>>,
    ) -> Self {
        let mut order: Vec<usize> = (0..query_ids.len()).collect();
        order.sort_unstable_by(|&a, &b| query_ids[a].as_bytes().cmp(query_ids[b].as_bytes()));
        let already = order.iter().enumerate().all(|(i, &row)| i == row);
        let (query_ids, columns) = if already {
            (query_ids, columns)
        } else {
            let ids = order.iter().map(|&row| query_ids[row].clone()).collect();
            let cols = columns
                .iter()
                .map(|column| order.iter().map(|&row| column[row]).collect())
                .collect();
            (ids, cols)
        };
        Self {
            query_ids,
            names,
            aggregates,
            columns: columns.into_iter().map(Arc::from).collect(),
        }
    }

    /// A run's values as the results' table shows them: `columns[i]`, the column of the
    /// table's heading `i`, and its aggregate.
    pub fn run_values<'a>(
        &'a self,
        run_name: &'a str,
        columns: &[usize],
    ) -> PyResult<RunValues<'a>> {
        let column = |&index: &usize| {
            self.columns.get(index).ok_or_else(|| {
                PyIndexError::new_err(format!("column {index} of {} measures", self.columns.len()))
            })
        };
        let chosen = columns.iter().map(column).collect::<PyResult<Vec<_>>>()?;
        Ok(RunValues {
            run_name,
            query_ids: &self.query_ids,
            aggregates: columns
                .iter()
                .zip(&chosen)
                .map(|(&index, values)| self.aggregates[index].apply(values))
                .collect(),
            columns: chosen.into_iter().map(|values| &values[..]).collect(),
        })
    }

    /// How column `index`'s values combine.
    pub fn aggregate_of(&self, index: usize) -> Option<Aggregate> {
        self.aggregates.get(index).copied()
    }

    fn record_batch(&self) -> Result<RecordBatch, ArrowError> {
        let mut fields = vec![Field::new("query_id", DataType::Utf8, false)];
        let mut arrays: Vec<ArrayRef> = vec![Arc::new(StringArray::from_iter_values(
            self.query_ids.iter(),
        ))];
        for (name, column) in self.names.iter().zip(&self.columns) {
            fields.push(Field::new(name, DataType::Float64, false));
            arrays.push(Arc::new(Float64Array::from(column.to_vec())));
        }
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
    }
}

#[pymethods]
impl PerQuery {
    /// Values computed elsewhere: `columns[m][q]` is measure `names[m]` of `query_ids[q]`,
    /// combined by the aggregate named `aggregates[m]` (`mean`, `geometric_mean`, `sum`,
    /// `count`).
    #[new]
    fn py_new(
        query_ids: Vec<String>,
        names: Vec<String>,
        aggregates: Vec<String>,
        columns: Vec<Vec<f64>>,
    ) -> PyResult<Self> {
        if names.len() != columns.len() || names.len() != aggregates.len() {
            return Err(PyValueError::new_err(format!(
                "{} measure names and {} aggregates for {} columns",
                names.len(),
                aggregates.len(),
                columns.len()
            )));
        }
        if let Some(column) = columns.iter().find(|c| c.len() != query_ids.len()) {
            return Err(PyValueError::new_err(format!(
                "a column holds {} values for {} queries",
                column.len(),
                query_ids.len()
            )));
        }
        let aggregates = aggregates
            .iter()
            .map(|name| aggregate_named(name))
            .collect::<PyResult<_>>()?;
        Ok(Self::new(query_ids, names, aggregates, columns))
    }

    /// Every measure's aggregate over the queries, in column order (NaN with no query).
    fn aggregates(&self) -> Vec<f64> {
        self.aggregates
            .iter()
            .zip(&self.columns)
            .map(|(how, values)| how.apply(values))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.query_ids.len()
    }

    /// The measure names, in column order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The query ids, in row order.
    fn query_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, &self.query_ids)
    }

    /// Column `index`: a read-only float64 buffer over the values themselves.
    fn column(&self, index: usize) -> PyResult<Column> {
        let values = self.columns.get(index).ok_or_else(|| {
            PyIndexError::new_err(format!("column {index} of {} measures", self.columns.len()))
        })?;
        Ok(Column {
            shape: [values.len() as ffi::Py_ssize_t],
            strides: [std::mem::size_of::<f64>() as ffi::Py_ssize_t],
            values: Arc::clone(values),
        })
    }

    /// `{query_id: {measure name: value}}`, built directly. With `keys`, a list of `(key,
    /// column index)` pairs, each query's dict holds those keys in that order instead (a
    /// column may appear under several keys, or under none).
    #[pyo3(signature = (keys=None))]
    fn to_dict<'py>(
        &self,
        py: Python<'py>,
        keys: Option<Vec<(String, usize)>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let keys = match keys {
            Some(keys) => keys,
            None => self.names.iter().cloned().zip(0..).collect(),
        };
        if let Some((key, index)) = keys.iter().find(|(_, i)| *i >= self.columns.len()) {
            return Err(PyIndexError::new_err(format!(
                "key {key:?} names column {index} of {} measures",
                self.columns.len()
            )));
        }
        let keys: Vec<(Bound<'py, PyString>, &[f64])> = keys
            .iter()
            .map(|(key, index)| (PyString::new(py, key), &*self.columns[*index]))
            .collect();
        let result = PyDict::new(py);
        for (row, query_id) in self.query_ids.iter().enumerate() {
            let values = PyDict::new(py);
            for (key, column) in &keys {
                values.set_item(key, column[row])?;
            }
            result.set_item(query_id, values)?;
        }
        Ok(result)
    }

    /// The table as an Arrow C stream (the Arrow PyCapsule interface): ``query_id`` (utf8) and
    /// one float64 column per measure.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema; // the schema is fixed; consumers cast if they want another
        let batch = self
            .record_batch()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        crate::arrow::stream_capsule(py, batch)
    }
}

/// One measure's values as a read-only float64 buffer (`numpy.asarray` shares it).
#[pyclass(frozen, module = "rankscope._core")]
pub struct Column {
    values: Arc<[f64]>,
    shape: [ffi::Py_ssize_t; 1],
    strides: [ffi::Py_ssize_t; 1],
}

// The buffer protocol's slots are unsafe functions by PyO3's declaration; what they do is
// justified in the `SAFETY` note of the one block that touches the view.
#[allow(unsafe_code)]
#[pymethods]
impl Column {
    fn __len__(&self) -> usize {
        self.values.len()
    }

    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("no view to fill"));
        }
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("per-query values are read-only"));
        }
        let column = slf.get();
        // SAFETY: `view` is a valid Py_buffer to fill (checked non-null); the pointers handed
        // out point into `column`, which `view.obj` keeps alive until the buffer is released,
        // and the values are never written.
        unsafe {
            (*view).buf = column.values.as_ptr().cast_mut().cast::<c_void>();
            (*view).len = (column.values.len() * std::mem::size_of::<f64>()) as ffi::Py_ssize_t;
            (*view).readonly = 1;
            (*view).itemsize = std::mem::size_of::<f64>() as ffi::Py_ssize_t;
            (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
                c"d".as_ptr().cast_mut()
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 1;
            (*view).shape = if flags & ffi::PyBUF_ND == ffi::PyBUF_ND {
                column.shape.as_ptr().cast_mut()
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES {
                column.strides.as_ptr().cast_mut()
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = std::ptr::null_mut();
            (*view).obj = slf.into_any().into_ptr();
        }
        Ok(())
    }

    // PyO3's slot takes `&self`; the view holds nothing to release.
    #[allow(clippy::unused_self)]
    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

/// Values combined as the aggregate named `how` combines a measure's per-query values (in
/// the order given): what `Results.mean` gives for values computed elsewhere.
#[pyfunction]
fn aggregate(values: Vec<f64>, how: &str) -> PyResult<f64> {
    Ok(aggregate_named(how)?.apply(&values))
}

/// Registers this module's classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(aggregate, m)?)?;
    m.add_class::<PerQuery>()?;
    m.add_class::<Column>()?;
    Ok(())
}
