//! The run's rows grouped by query: ranges when the file groups them, else listed.

use crate::table::Run;

/// The rows of each query code in their order (a stable counting sort): query q's rows are
/// `rows[starts[q]..starts[q + 1]]`.
pub(super) fn rows_by_query(codes: &[u32], queries: usize) -> (Vec<usize>, Vec<u32>) {
    let mut starts = vec![0usize; queries + 1];
    for &q in codes {
        starts[q as usize + 1] += 1;
    }
    for q in 0..queries {
        starts[q + 1] += starts[q];
    }
    let mut fill = starts.clone();
    let mut rows = vec![0u32; codes.len()];
    for (row, &q) in codes.iter().enumerate() {
        rows[fill[q as usize]] = row as u32;
        fill[q as usize] += 1;
    }
    (starts, rows)
}

/// One query to prepare: its id, its code in the qrels, and its rows in the run (if any).
pub(super) struct Entry<'r> {
    pub(super) name: &'r str,
    pub(super) qrels_code: u32,
    pub(super) run_code: u32,
    pub(super) rows: Rows<'r>,
}

/// A query's rows: a range of the run (grouped files) or listed (others).
#[derive(Clone, Copy)]
pub(super) enum Rows<'r> {
    Range(usize, usize),
    Listed(&'r [u32]),
}

impl Rows<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Rows::Range(start, end) => end - start,
            Rows::Listed(rows) => rows.len(),
        }
    }

    pub(super) fn fill(&self, out: &mut Vec<u32>) {
        out.clear();
        match *self {
            Rows::Range(start, end) => out.extend(start as u32..end as u32),
            Rows::Listed(rows) => out.extend_from_slice(rows),
        }
    }
}

/// The run's rows grouped by query: ranges when each query's rows are together (as files
/// write them), else listed by a stable counting sort on the query code.
pub(super) struct QueryGroups {
    /// Per query code: its rows `start..end` (grouped), or its slice of `listed` (not grouped).
    bounds: Vec<(usize, usize)>,
    listed: Option<Vec<u32>>,
}

impl QueryGroups {
    pub(super) fn of(run: &Run) -> Self {
        let queries = run.queries.len();
        let mut bounds = vec![(usize::MAX, usize::MAX); queries];
        let mut previous: Option<u32> = None;
        let mut grouped = true;
        for (row, &q) in run.query.iter().enumerate() {
            if previous != Some(q) {
                if bounds[q as usize].0 != usize::MAX {
                    grouped = false;
                    break;
                }
                bounds[q as usize].0 = row;
                if let Some(p) = previous {
                    bounds[p as usize].1 = row;
                }
                previous = Some(q);
            }
        }
        if grouped {
            if let Some(p) = previous {
                bounds[p as usize].1 = run.len();
            }
            return Self {
                bounds,
                listed: None,
            };
        }
        let (starts, listed) = rows_by_query(&run.query, queries);
        let bounds = (0..queries).map(|q| (starts[q], starts[q + 1])).collect();
        Self {
            bounds,
            listed: Some(listed),
        }
    }

    /// The rows of query `code`; `None` if it has none.
    pub(super) fn rows(&self, code: usize) -> Option<Rows<'_>> {
        let (start, end) = self.bounds[code];
        if start == usize::MAX || start == end {
            return None;
        }
        Some(match &self.listed {
            None => Rows::Range(start, end),
            Some(listed) => Rows::Listed(&listed[start..end]),
        })
    }
}
