//! Python dicts of dicts and ranked lists walked straight into the core's columns.
//!
//! The rules and messages are those of `rankscope.io.tables` (`Qrels.from_dict`,
//! `Run.from_dict`, `Run.from_lists`): ids are strings or integers (integers become their
//! decimal text), grades integers (or whole floats), scores finite numbers; a mistake names the
//! query and the document. numpy scalars are accepted like Python numbers, recognized only when
//! numpy is already imported (a numpy scalar cannot exist otherwise).

use std::borrow::Cow;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rankscope_core::table::{Qrels, Run};

/// A grade or a score as it came: Python's `_number` keeps floats and integers apart.
enum Number {
    Integer(i64),
    Float(f64),
}

/// What Python's `rankscope.errors.InputError(message, source=source)` would raise.
fn input_error(py: Python<'_>, message: String, source: &str) -> PyErr {
    let raised = || -> PyResult<PyErr> {
        let class = py.import("rankscope.errors")?.getattr("InputError")?;
        let options = PyDict::new(py);
        options.set_item("source", source)?;
        Ok(PyErr::from_value(class.call((message,), Some(&options))?))
    };
    raised().unwrap_or_else(|failed| failed)
}

fn repr(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.repr()?.to_str()?.to_owned())
}

fn type_name(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.get_type().name()?.to_str()?.to_owned())
}

/// The numpy module if it is imported (numpy scalars are possible only then).
fn numpy_if_loaded(py: Python<'_>) -> PyResult<Option<Bound<'_, PyAny>>> {
    let modules = py.import("sys")?.getattr("modules")?;
    let numpy = modules.call_method1("get", ("numpy",))?;
    Ok((!numpy.is_none()).then_some(numpy))
}

/// Recognizes ids and numbers, numpy scalars included.
struct Values<'py> {
    /// numpy's `integer` and `floating` classes, when numpy is imported.
    numpy: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
}

impl<'py> Values<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        let numpy = match numpy_if_loaded(py)? {
            Some(numpy) => Some((numpy.getattr("integer")?, numpy.getattr("floating")?)),
            None => None,
        };
        Ok(Self { numpy })
    }

    fn is_numpy_integer(&self, value: &Bound<'py, PyAny>) -> PyResult<bool> {
        match &self.numpy {
            Some((integer, _)) => value.is_instance(integer),
            None => Ok(false),
        }
    }

    fn is_numpy_floating(&self, value: &Bound<'py, PyAny>) -> PyResult<bool> {
        match &self.numpy {
            Some((_, floating)) => value.is_instance(floating),
            None => Ok(false),
        }
    }

    /// Python integers (not booleans) and numpy's.
    fn is_integer(&self, value: &Bound<'py, PyAny>) -> PyResult<bool> {
        if value.is_exact_instance_of::<PyInt>() {
            return Ok(true);
        }
        Ok(
            (value.is_instance_of::<PyInt>() && !value.is_instance_of::<PyBool>())
                || self.is_numpy_integer(value)?,
        )
    }

    /// An id as text (borrowed from a Python string, without a copy), or the error of
    /// Python's `_id`.
    fn id<'a>(
        &self,
        value: &'a Bound<'py, PyAny>,
        what: &str,
        source: &str,
        query_id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Cow<'a, str>> {
        if let Ok(text) = value.cast::<PyString>() {
            return Ok(Cow::Borrowed(text.to_str()?));
        }
        if self.is_integer(value)? {
            return Ok(Cow::Owned(value.str()?.to_str()?.to_owned()));
        }
        let place = match query_id {
            Some(query) => format!(" in query {}", repr(query)?),
            None => String::new(),
        };
        Err(input_error(
            value.py(),
            format!(
                "{what} ids must be strings or integers; found {} {}{place}",
                type_name(value)?,
                repr(value)?
            ),
            source,
        ))
    }

    /// A grade or score, or the error of Python's `_number`.
    fn number(
        &self,
        value: &Bound<'py, PyAny>,
        rule: &str,
        query_id: &Bound<'py, PyAny>,
        doc_id: &Bound<'py, PyAny>,
        source: &str,
    ) -> PyResult<Number> {
        if let Ok(float) = value.cast_exact::<PyFloat>() {
            return Ok(Number::Float(float.value()));
        }
        if value.is_exact_instance_of::<PyInt>() {
            if let Ok(integer) = value.extract::<i64>() {
                return Ok(Number::Integer(integer));
            }
        } else if value.is_instance_of::<PyFloat>() || self.is_numpy_floating(value)? {
            return Ok(Number::Float(value.extract::<f64>()?));
        }
        if self.is_integer(value)? {
            if let Ok(integer) = value.extract::<i64>() {
                return Ok(Number::Integer(integer));
            }
        }
        Err(input_error(
            value.py(),
            format!(
                "{rule}; found {} for query {}, document {}",
                repr(value)?,
                repr(query_id)?,
                repr(doc_id)?
            ),
            source,
        ))
    }
}

/// `(key, value)` pairs of a mapping: a dict directly, any other mapping through `items()`.
fn items<'py>(
    mapping: &Bound<'py, PyAny>,
) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    if let Ok(dict) = mapping.cast::<PyDict>() {
        return Ok(dict.iter().collect());
    }
    mapping
        .call_method0(intern!(mapping.py(), "items"))?
        .try_iter()?
        .map(|pair| pair?.extract())
        .collect()
}

fn is_mapping(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if value.is_instance_of::<PyDict>() {
        return Ok(true);
    }
    let py = value.py();
    let mapping = py.import("collections.abc")?.getattr("Mapping")?;
    value.is_instance(&mapping)
}

/// The tables a walk fills: each query is interned once, for all its rows.
trait Rows {
    fn intern(&mut self, query: &str) -> u32;
    fn reserve(&mut self, rows: usize, bytes: usize);
    /// A query given with no entries (`{q: {}}`); judgements keep nothing of it.
    fn named_without_rows(&mut self, _query: &str) {}
}

impl Rows for Qrels {
    fn intern(&mut self, query: &str) -> u32 {
        self.queries.intern(query)
    }
    fn reserve(&mut self, rows: usize, bytes: usize) {
        Qrels::reserve(self, rows, bytes);
    }
}

impl Rows for Run {
    fn intern(&mut self, query: &str) -> u32 {
        self.queries.intern(query)
    }
    fn reserve(&mut self, rows: usize, bytes: usize) {
        Run::reserve(self, rows, bytes);
    }
    /// A ranking that retrieved nothing: the query is evaluated, as pytrec_eval evaluates it.
    fn named_without_rows(&mut self, query: &str) {
        self.push_empty(query);
    }
}

/// Walks `{query_id: {doc_id: number}}` into `table`, calling `push` with the query's code for
/// each entry in order. After the first query, room is reserved for as many rows and document
/// bytes per query for every query (capacity never touched costs no memory).
fn walk_nested<'py, T: Rows>(
    nested: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
    rule: &str,
    source: &str,
    table: &mut T,
    mut push: impl FnMut(&mut T, u32, &str, Number) -> PyResult<()>,
) -> PyResult<()> {
    let py = nested.py();
    let values = Values::new(py)?;
    let pairs = items(nested)?;
    let mut first_query = true;
    for (query_id, docs) in &pairs {
        if !is_mapping(docs)? {
            return Err(input_error(
                py,
                format!(
                    "{what} of query {} must be {expected}; found {}",
                    repr(query_id)?,
                    type_name(docs)?
                ),
                source,
            ));
        }
        let query = values.id(query_id, "query", source, None)?;
        let mut code = None; // interned with the query's first row
        let (mut rows, mut bytes) = (0usize, 0usize);
        let mut entry = |table: &mut T, doc_id: &Bound<'py, PyAny>, value: &Bound<'py, PyAny>| {
            let doc = values.id(doc_id, "document", source, Some(query_id))?;
            let number = values.number(value, rule, query_id, doc_id, source)?;
            let code = *code.get_or_insert_with(|| table.intern(&query));
            rows += 1;
            bytes += doc.len();
            push(table, code, &doc, number)
        };
        if let Ok(dict) = docs.cast::<PyDict>() {
            for (doc_id, value) in dict.iter() {
                entry(table, &doc_id, &value)?;
            }
        } else {
            for (doc_id, value) in items(docs)? {
                entry(table, &doc_id, &value)?;
            }
        }
        if rows == 0 {
            table.named_without_rows(&query);
        }
        if std::mem::take(&mut first_query) {
            let more = pairs.len() - 1;
            table.reserve(rows.saturating_mul(more), bytes.saturating_mul(more));
        }
    }
    Ok(())
}

/// `Qrels.from_dict`: `{query_id: {doc_id: grade}}`.
pub fn qrels_from_mapping(qrels: &Bound<'_, PyAny>, source: &str) -> PyResult<Qrels> {
    let py = qrels.py();
    let mut table = Qrels::new(source);
    // A float grade must be whole; the first that is not is reported after the walk, as
    // Python checks the column once it is built (row numbers count every judgement).
    let mut bad_float: Option<(usize, f64)> = None;
    walk_nested(
        qrels,
        "qrels",
        "a mapping doc_id -> grade",
        "relevance must be an integer grade",
        source,
        &mut table,
        |table, query, doc, number| {
            let grade = match number {
                Number::Integer(grade) => grade,
                Number::Float(value) => {
                    let whole = value.is_finite() && value == value.round();
                    if !whole && bad_float.is_none() {
                        bad_float = Some((table.len(), value));
                    }
                    value as i64
                }
            };
            table.push_coded(query, doc, grade);
            Ok(())
        },
    )?;
    table
        .check()
        .map_err(|error| crate::errors::to_py(py, error))?;
    if let Some((row, value)) = bad_float {
        let found = PyFloat::new(py, value);
        let message = format!(
            "relevance must be an integer grade; found {} for query {}, document {} (row {})",
            repr(found.as_any())?,
            repr(PyString::new(py, table.query_id(row)).as_any())?,
            repr(PyString::new(py, table.docs.get(row)).as_any())?,
            row + 1
        );
        return Err(input_error(py, message, source));
    }
    Ok(table)
}

/// `Run.from_dict`: `{query_id: {doc_id: score}}`.
pub fn run_from_mapping(run: &Bound<'_, PyAny>, name: &str, source: &str) -> PyResult<Run> {
    let py = run.py();
    let mut table = Run::new(name, source);
    walk_nested(
        run,
        "results",
        "a mapping doc_id -> score (use Run.from_lists for ranked lists)",
        "score must be a finite number",
        source,
        &mut table,
        |table, query, doc, number| {
            let score = match number {
                Number::Integer(score) => score as f64,
                Number::Float(score) => score,
            };
            table.push_coded(query, doc, score);
            Ok(())
        },
    )?;
    table
        .check()
        .map_err(|error| crate::errors::to_py(py, error))?;
    Ok(table)
}

/// `Run.from_lists`: `{query_id: [doc_id, ...]}` in rank order; the i-th of n documents gets
/// the score n - i, so every profile ranks them as given.
pub fn run_from_lists(run: &Bound<'_, PyAny>, name: &str, source: &str) -> PyResult<Run> {
    let py = run.py();
    let values = Values::new(py)?;
    let mut table = Run::new(name, source);
    let abc = py.import("collections.abc")?;
    for (query_id, docs) in items(run)? {
        let ranked: Vec<Bound<'_, PyAny>> = if let Ok(list) = docs.cast::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = docs.cast::<PyTuple>() {
            tuple.iter().collect()
        } else {
            let unordered = docs.is_instance_of::<PyString>()
                || docs.is_instance_of::<pyo3::types::PyBytes>()
                || docs.is_instance(&abc.getattr("Set")?)?
                || is_mapping(&docs)?
                || !docs.is_instance(&abc.getattr("Iterable")?)?;
            if unordered {
                return Err(input_error(
                    py,
                    format!(
                        "results of query {} must be a list of document ids in rank order; \
                         found {}",
                        repr(&query_id)?,
                        type_name(&docs)?
                    ),
                    source,
                ));
            }
            docs.try_iter()?.collect::<PyResult<_>>()?
        };
        let mut doc_ids = Vec::with_capacity(ranked.len());
        for doc in &ranked {
            doc_ids.push(values.id(doc, "document", source, Some(&query_id))?);
        }
        let query = values.id(&query_id, "query", source, None)?;
        let count = doc_ids.len();
        if count > 0 {
            let code = table.queries.intern(&query);
            for (i, doc) in doc_ids.iter().enumerate() {
                table.push_coded(code, doc, (count - i) as f64);
            }
        } else {
            table.push_empty(&query);
        }
    }
    table
        .check()
        .map_err(|error| crate::errors::to_py(py, error))?;
    Ok(table)
}

/// Whether every value of the mapping is a ranked list rather than a mapping (and there is at
/// least one): how `evaluate` tells `{q: [d, ...]}` from `{q: {d: score}}`.
pub fn holds_lists(run: &Bound<'_, PyAny>) -> PyResult<bool> {
    let pairs = items(run)?;
    if pairs.is_empty() {
        return Ok(false);
    }
    for (_, value) in &pairs {
        if is_mapping(value)? {
            return Ok(false);
        }
    }
    Ok(true)
}
