//! Bindings of the fusion core: `FusionRuns` holds the runs' rankings over shared query and
//! document codes; columns cross the boundary as native-endian bytes (NumPy's `tobytes()`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};

use std::sync::Arc;

use rankscope_core::fuse::{self, Method, Norm, Rankings, SortedIds, Training};
use rankscope_core::Error;

fn decode<T, const N: usize>(bytes: &[u8], what: &str, from: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if bytes.len() % N != 0 {
        return Err(PyValueError::new_err(format!(
            "{what}: {} bytes is not a whole number of {N}-byte values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(N)
        .map(|chunk| from(chunk.try_into().expect("chunk of N bytes")))
        .collect())
}

fn encode<T: Copy, const N: usize>(
    py: Python<'_>,
    values: &[T],
    to: fn(T) -> [u8; N],
) -> Py<PyBytes> {
    let bytes: Vec<u8> = values.iter().flat_map(|&v| to(v)).collect();
    PyBytes::new(py, &bytes).unbind()
}

/// The ids of a string column given as the bytes of all ids end to end and their byte
/// lengths (uint32).
fn split_ids<'a>(lengths: &[u8], blob: &'a [u8]) -> PyResult<Vec<&'a str>> {
    let text = std::str::from_utf8(blob)
        .map_err(|e| PyValueError::new_err(format!("ids are not UTF-8: {e}")))?;
    let mut ids = Vec::with_capacity(lengths.len() / 4);
    let mut start = 0usize;
    for length in decode(lengths, "lengths", u32::from_ne_bytes)? {
        let end = start + length as usize;
        let id = text
            .get(start..end)
            .ok_or_else(|| PyValueError::new_err("id lengths do not match the id bytes"))?;
        ids.push(id);
        start = end;
    }
    if start != text.len() {
        return Err(PyValueError::new_err(
            "id lengths do not match the id bytes",
        ));
    }
    Ok(ids)
}

/// A core error of fusion as `rankscope.fuse` reads it (see [`crate::errors`]).
fn to_py(error: Error) -> PyErr {
    Python::attach(|py| crate::errors::to_py(py, error))
}

fn param<'py>(params: &Bound<'py, PyDict>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    params
        .get_item(name)?
        .ok_or_else(|| PyValueError::new_err(format!("missing parameter {name:?}")))
}

fn method(name: &str, params: &Bound<'_, PyDict>) -> PyResult<Method> {
    let weights = || param(params, "weights")?.extract::<Vec<f64>>();
    let probs = || param(params, "probs")?.extract::<Vec<Vec<f64>>>();
    Ok(match name {
        "sum" => Method::Sum,
        "mnz" => Method::Mnz,
        "max" => Method::Max,
        "min" => Method::Min,
        "med" => Method::Med,
        "anz" => Method::Anz,
        "gmnz" => Method::Gmnz {
            gamma: param(params, "gamma")?.extract()?,
        },
        "wsum" => Method::Wsum {
            weights: weights()?,
        },
        "wmnz" => Method::Wmnz {
            weights: weights()?,
        },
        "mixed" => Method::Mixed {
            weights: weights()?,
        },
        "rrf" => Method::Rrf {
            k: param(params, "k")?.extract()?,
        },
        "isr" => Method::Isr,
        "log_isr" => Method::LogIsr,
        "logn_isr" => Method::LognIsr {
            sigma: param(params, "sigma")?.extract()?,
        },
        "rbc" => Method::Rbc {
            phi: param(params, "phi")?.extract()?,
        },
        "bordafuse" => Method::Bordafuse,
        "w_bordafuse" => Method::WBordafuse {
            weights: weights()?,
        },
        "condorcet" => Method::Condorcet,
        "w_condorcet" => Method::WCondorcet {
            weights: weights()?,
        },
        "probfuse" => Method::Probfuse { probs: probs()? },
        "segfuse" => Method::Segfuse { probs: probs()? },
        "slidefuse" => Method::Slidefuse {
            probs: probs()?,
            w: param(params, "w")?.extract()?,
        },
        "mapfuse" => Method::Mapfuse {
            map_scores: param(params, "map_scores")?.extract()?,
        },
        "posfuse" => Method::Posfuse { probs: probs()? },
        "bayesfuse" => Method::Bayesfuse {
            log_odds: param(params, "log_odds")?.extract()?,
        },
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown fusion method {other:?}"
            )))
        }
    })
}

type Rows = (Py<PyBytes>, Py<PyBytes>, Py<PyBytes>);

/// Rankings as `(queries, docs, scores)` bytes (uint32, uint32, float64).
fn rows(py: Python<'_>, rankings: &Rankings) -> Rows {
    let (offsets, docs, scores) = rankings.columns();
    let mut queries = Vec::with_capacity(docs.len());
    for (query, window) in offsets.windows(2).enumerate() {
        queries.extend(std::iter::repeat(query as u32).take(window[1] - window[0]));
    }
    (
        encode(py, &queries, u32::to_ne_bytes),
        encode(py, docs, u32::to_ne_bytes),
        encode(py, scores, f64::to_ne_bytes),
    )
}

/// One string column: `(byte lengths as uint32, all ids end to end)`.
type Ids = (PyBackedBytes, PyBackedBytes);

/// Several runs ranked over shared codes, with the ids the codes stand for (sorted byte-wise).
#[pyclass(frozen, module = "rankscope._core")]
pub struct FusionRuns {
    runs: Vec<Rankings>,
    query_ids: Arc<SortedIds>,
    doc_ids: Arc<SortedIds>,
}

#[pymethods]
impl FusionRuns {
    /// From `(queries, docs, scores)` per run (ids as [`Ids`], scores float64 bytes);
    /// `extra_queries` (judged queries) join the query codes.
    #[new]
    #[pyo3(signature = (runs, extra_queries = None))]
    fn new(
        py: Python<'_>,
        runs: Vec<(Ids, Ids, PyBackedBytes)>,
        extra_queries: Option<Ids>,
    ) -> PyResult<Self> {
        let mut query_columns = Vec::with_capacity(runs.len() + 1);
        let mut doc_columns = Vec::with_capacity(runs.len());
        let mut score_columns = Vec::with_capacity(runs.len());
        for ((query_lengths, queries), (doc_lengths, docs), scores) in &runs {
            query_columns.push(split_ids(query_lengths, queries)?);
            doc_columns.push(split_ids(doc_lengths, docs)?);
            score_columns.push(decode(scores, "scores", f64::from_ne_bytes)?);
        }
        if let Some((lengths, queries)) = &extra_queries {
            query_columns.push(split_ids(lengths, queries)?);
        }
        let built = py.detach(|| {
            let (query_ids, query_codes) = SortedIds::code(&query_columns);
            let (doc_ids, doc_codes) = SortedIds::code(&doc_columns);
            let runs = score_columns
                .iter()
                .enumerate()
                .map(|(run, scores)| {
                    Rankings::from_rows(
                        run,
                        query_ids.len(),
                        doc_ids.len(),
                        &query_codes[run],
                        &doc_codes[run],
                        scores,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, Error>(Self {
                runs,
                query_ids: Arc::new(query_ids),
                doc_ids: Arc::new(doc_ids),
            })
        });
        built.map_err(to_py)
    }

    /// The query ids, in code order.
    fn query_ids(&self) -> Vec<&str> {
        self.query_ids.names().iter().map(|n| &**n).collect()
    }

    /// The document ids, in code order.
    fn doc_ids(&self) -> Vec<&str> {
        self.doc_ids.names().iter().map(|n| &**n).collect()
    }

    /// The codes (uint32 bytes) of some query ids; 4294967295 for an unknown one.
    fn query_codes(&self, py: Python<'_>, lengths: &[u8], ids: &[u8]) -> PyResult<Py<PyBytes>> {
        codes_of(py, &self.query_ids, lengths, ids)
    }

    /// The codes (uint32 bytes) of some document ids; 4294967295 for an unknown one.
    fn doc_codes(&self, py: Python<'_>, lengths: &[u8], ids: &[u8]) -> PyResult<Py<PyBytes>> {
        codes_of(py, &self.doc_ids, lengths, ids)
    }

    /// The runs with every query's scores normalised (`min-max`, `min-max-inverted`, `max`,
    /// `sum`, `zmuv`, `rank`, `borda`).
    fn normalize(&self, py: Python<'_>, norm: &str) -> PyResult<Self> {
        let norm = Norm::from_name(norm)
            .ok_or_else(|| PyValueError::new_err(format!("unknown normalization {norm:?}")))?;
        Ok(Self {
            runs: py.detach(|| fuse::normalize(&self.runs, norm)),
            query_ids: Arc::clone(&self.query_ids),
            doc_ids: Arc::clone(&self.doc_ids),
        })
    }

    /// Fuse with `method` (a ranx name) and `params`; the fused rows as `(queries, docs,
    /// scores)` bytes, each query's documents in rank order.
    fn fuse(
        &self,
        py: Python<'_>,
        method_name: &str,
        params: &Bound<'_, PyDict>,
    ) -> PyResult<Rows> {
        let method = method(method_name, params)?;
        let fused = py
            .detach(|| fuse::fuse(&self.runs, &method))
            .map_err(to_py)?;
        Ok(rows(py, &fused))
    }

    /// Run `index`'s rows as `(queries, docs, scores)` bytes, each query in rank order.
    fn rows(&self, py: Python<'_>, index: usize) -> PyResult<Rows> {
        let run = self
            .runs
            .get(index)
            .ok_or_else(|| PyValueError::new_err(format!("no run {index}")))?;
        Ok(rows(py, run))
    }

    /// Train `kind` (`probfuse`, `segfuse`, `positions`, `bayesfuse`) on the judged queries
    /// (`judged`: one byte per query code) and the relevant `(query, doc)` codes; one list of
    /// values per run.
    #[pyo3(signature = (kind, judged, relevant_queries, relevant_docs, n_segments = 0))]
    fn train(
        &self,
        py: Python<'_>,
        kind: &str,
        judged: &[u8],
        relevant_queries: &[u8],
        relevant_docs: &[u8],
        n_segments: usize,
    ) -> PyResult<Vec<Vec<f64>>> {
        let training = match kind {
            "probfuse" => Training::Probfuse { n_segments },
            "segfuse" => Training::Segfuse,
            "positions" => Training::Positions,
            "bayesfuse" => Training::Bayesfuse,
            other => return Err(PyValueError::new_err(format!("unknown training {other:?}"))),
        };
        let queries = decode(relevant_queries, "relevant_queries", u32::from_ne_bytes)?;
        let docs = decode(relevant_docs, "relevant_docs", u32::from_ne_bytes)?;
        let judged: Vec<bool> = judged.iter().map(|&b| b != 0).collect();
        let mut relevant = vec![Vec::new(); judged.len()];
        for (&q, &d) in queries.iter().zip(&docs) {
            relevant
                .get_mut(q as usize)
                .ok_or_else(|| PyValueError::new_err(format!("query code {q} out of range")))?
                .push(d);
        }
        for docs in &mut relevant {
            docs.sort_unstable();
        }
        py.detach(|| fuse::train(&self.runs, &judged, &relevant, training))
            .map_err(to_py)
    }

    /// Number of runs.
    fn __len__(&self) -> usize {
        self.runs.len()
    }
}

fn codes_of(py: Python<'_>, ids: &SortedIds, lengths: &[u8], blob: &[u8]) -> PyResult<Py<PyBytes>> {
    let codes: Vec<u32> = split_ids(lengths, blob)?
        .iter()
        .map(|id| ids.get(id).unwrap_or(u32::MAX))
        .collect();
    Ok(encode(py, &codes, u32::to_ne_bytes))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<FusionRuns>()
}
