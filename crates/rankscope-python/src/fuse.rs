//! Bindings of the fusion core: `FusionRuns` holds the runs' rankings over shared query and
//! document codes; columns cross the boundary as native-endian bytes (NumPy's `tobytes()`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use rankscope_core::fuse::{self, FuseError, Method, Norm, Rankings, Training};

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

/// A `ValueError` whose args are `(message, kind, run, query, doc)`, so that Python can name
/// the run, query and document.
fn to_py(error: FuseError) -> PyErr {
    let message = error.to_string();
    let (kind, run, query, doc) = match error {
        FuseError::DuplicateDocument { run, query, doc } => ("duplicate", run, query, doc),
        FuseError::NonFiniteScore { run, query, doc } => ("non_finite", run, query, doc),
        FuseError::Overflow { query, doc } => ("overflow", 0, query, doc),
        _ => ("parameter", 0, 0, 0),
    };
    PyValueError::new_err((message, kind, run, query, doc))
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

/// Several runs ranked over shared codes: `runs` is a list of `(queries, docs, scores)` bytes
/// (uint32, uint32, float64), document codes in the byte order of the ids.
#[pyclass(frozen, module = "rankscope._core")]
pub struct FusionRuns {
    runs: Vec<Rankings>,
}

#[pymethods]
impl FusionRuns {
    #[new]
    fn new(
        py: Python<'_>,
        n_queries: usize,
        n_docs: usize,
        runs: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    ) -> PyResult<Self> {
        let mut columns = Vec::with_capacity(runs.len());
        for (queries, docs, scores) in &runs {
            columns.push((
                decode(queries, "queries", u32::from_ne_bytes)?,
                decode(docs, "docs", u32::from_ne_bytes)?,
                decode(scores, "scores", f64::from_ne_bytes)?,
            ));
        }
        let runs = py.detach(|| {
            columns
                .iter()
                .enumerate()
                .map(|(run, (q, d, s))| Rankings::from_rows(run, n_queries, n_docs, q, d, s))
                .collect::<Result<Vec<_>, _>>()
        });
        Ok(Self {
            runs: runs.map_err(to_py)?,
        })
    }

    /// The runs with every query's scores normalised (`min-max`, `min-max-inverted`, `max`,
    /// `sum`, `zmuv`, `rank`, `borda`).
    fn normalize(&self, py: Python<'_>, norm: &str) -> PyResult<Self> {
        let norm = Norm::from_name(norm)
            .ok_or_else(|| PyValueError::new_err(format!("unknown normalization {norm:?}")))?;
        Ok(Self {
            runs: py.detach(|| fuse::normalize(&self.runs, norm)),
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
        judged: Vec<u8>,
        relevant_queries: Vec<u8>,
        relevant_docs: Vec<u8>,
        n_segments: usize,
    ) -> PyResult<Vec<Vec<f64>>> {
        let training = match kind {
            "probfuse" => Training::Probfuse { n_segments },
            "segfuse" => Training::Segfuse,
            "positions" => Training::Positions,
            "bayesfuse" => Training::Bayesfuse,
            other => return Err(PyValueError::new_err(format!("unknown training {other:?}"))),
        };
        let queries = decode(&relevant_queries, "relevant_queries", u32::from_ne_bytes)?;
        let docs = decode(&relevant_docs, "relevant_docs", u32::from_ne_bytes)?;
        let judged: Vec<bool> = judged.iter().map(|&b| b != 0).collect();
        let mut relevant = vec![Vec::new(); judged.len()];
        for (&q, &d) in queries.iter().zip(&docs) {
            relevant
                .get_mut(q as usize)
                .ok_or_else(|| PyValueError::new_err(format!("query code {q} out of range")))?
                .push(d);
        }
        relevant.iter_mut().for_each(|docs| docs.sort_unstable());
        py.detach(|| fuse::train(&self.runs, &judged, &relevant, training))
            .map_err(to_py)
    }

    /// Number of runs.
    fn __len__(&self) -> usize {
        self.runs.len()
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<FusionRuns>()
}
