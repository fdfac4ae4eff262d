//! One run's rankings: for each query, its documents in rank order with their scores.

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::error::{Error, FusionProblem};

/// For each query code `0..n_queries`, the documents of one run in rank order (best first).
#[derive(Debug, Clone, PartialEq)]
pub struct Rankings {
    offsets: Vec<usize>,
    docs: Vec<u32>,
    scores: Vec<f64>,
}

/// The `trec` rule: score descending, ties by document code (= id byte order) descending.
pub(crate) fn trec_order(a: &(u32, f64), b: &(u32, f64)) -> Ordering {
    b.1.partial_cmp(&a.1)
        .unwrap_or(Ordering::Equal)
        .then(b.0.cmp(&a.0))
}

impl Rankings {
    /// Group rows `(query, doc, score)` by query and rank each query's documents by the `trec`
    /// rule. `run` only names the run in errors.
    pub fn from_rows(
        run: usize,
        n_queries: usize,
        n_docs: usize,
        queries: &[u32],
        docs: &[u32],
        scores: &[f64],
    ) -> Result<Self, Error> {
        if queries.len() != docs.len() || docs.len() != scores.len() {
            return Err(FusionProblem::LengthMismatch { run }.into());
        }
        let mut offsets = vec![0usize; n_queries + 1];
        for (row, &query) in queries.iter().enumerate() {
            if query as usize >= n_queries {
                return Err(FusionProblem::CodeOutOfRange {
                    what: "query",
                    code: query,
                    limit: n_queries,
                }
                .into());
            }
            if docs[row] as usize >= n_docs {
                let code = docs[row];
                return Err(FusionProblem::CodeOutOfRange {
                    what: "document",
                    code,
                    limit: n_docs,
                }
                .into());
            }
            if !scores[row].is_finite() {
                let doc = docs[row];
                return Err(FusionProblem::NonFiniteScore { run, query, doc }.into());
            }
            offsets[query as usize + 1] += 1;
        }
        for q in 0..n_queries {
            offsets[q + 1] += offsets[q];
        }
        let mut next = offsets.clone();
        let mut rows = vec![(0u32, 0f64); queries.len()];
        for (row, &query) in queries.iter().enumerate() {
            let slot = &mut next[query as usize];
            rows[*slot] = (docs[row], scores[row]);
            *slot += 1;
        }
        let duplicate = for_each_query_mut(&offsets, &mut rows, |query, ranking| {
            ranking.sort_unstable_by(trec_order);
            let mut seen: Vec<u32> = ranking.iter().map(|&(doc, _)| doc).collect();
            seen.sort_unstable();
            seen.windows(2).find(|pair| pair[0] == pair[1]).map(|pair| {
                Error::Fusion(FusionProblem::DuplicateDocument {
                    run,
                    query,
                    doc: pair[0],
                })
            })
        });
        if let Some(error) = duplicate {
            return Err(error);
        }
        let (docs, scores) = rows.into_iter().unzip();
        Ok(Self {
            offsets,
            docs,
            scores,
        })
    }

    /// Rankings from per-query lists of `(doc, score)` already in rank order.
    pub(crate) fn from_lists(lists: Vec<Vec<(u32, f64)>>) -> Self {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        offsets.push(0);
        let total = lists.iter().map(Vec::len).sum();
        let mut docs = Vec::with_capacity(total);
        let mut scores = Vec::with_capacity(total);
        for list in lists {
            for (doc, score) in list {
                docs.push(doc);
                scores.push(score);
            }
            offsets.push(docs.len());
        }
        Self {
            offsets,
            docs,
            scores,
        }
    }

    /// Number of queries (codes `0..n_queries`).
    pub fn n_queries(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Total number of ranked documents over all queries.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no query holds any document.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Every query's documents and scores, concatenated in query order, with the offsets at
    /// which each query starts (`n_queries + 1` of them).
    pub fn columns(&self) -> (&[usize], &[u32], &[f64]) {
        (&self.offsets, &self.docs, &self.scores)
    }

    /// The documents of `query` in rank order, and their scores.
    pub fn query(&self, query: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[query]..self.offsets[query + 1];
        (&self.docs[range.clone()], &self.scores[range])
    }
}

/// Run `work` on every query's rows in parallel; the first error any query returns, if one.
fn for_each_query_mut<T: Send, E: Send>(
    offsets: &[usize],
    rows: &mut [T],
    work: impl Fn(u32, &mut [T]) -> Option<E> + Sync,
) -> Option<E> {
    let mut slices = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = rows;
    for window in offsets.windows(2) {
        let (head, tail) = rest.split_at_mut(window[1] - window[0]);
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .enumerate()
        .find_map_any(|(query, slice)| work(query as u32, slice))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_score_then_doc_id_descending() {
        let rankings =
            Rankings::from_rows(0, 2, 4, &[1, 0, 0, 0], &[3, 0, 2, 1], &[1.0, 0.5, 0.9, 0.9])
                .unwrap();
        assert_eq!(rankings.query(0), (&[2, 1, 0][..], &[0.9, 0.9, 0.5][..]));
        assert_eq!(rankings.query(1), (&[3][..], &[1.0][..]));
    }

    #[test]
    fn refuses_duplicates_and_non_finite_scores() {
        let duplicate = Rankings::from_rows(2, 1, 2, &[0, 0], &[1, 1], &[0.1, 0.2]);
        assert_eq!(
            duplicate,
            Err(Error::Fusion(FusionProblem::DuplicateDocument {
                run: 2,
                query: 0,
                doc: 1
            }))
        );
        let nan = Rankings::from_rows(0, 1, 2, &[0], &[1], &[f64::NAN]);
        assert!(matches!(
            nan,
            Err(Error::Fusion(FusionProblem::NonFiniteScore { .. }))
        ));
        let range = Rankings::from_rows(0, 1, 2, &[1], &[1], &[0.0]);
        assert!(matches!(
            range,
            Err(Error::Fusion(FusionProblem::CodeOutOfRange { .. }))
        ));
    }
}
