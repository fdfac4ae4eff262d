//! Training of the probabilistic methods on judged queries: relevance by rank position.
//!
//! A *hit list* is, for one judged query, 1 at each rank whose document is relevant and 0
//! elsewhere. Judged queries are taken in code order (sorted ids); a judged query the run did
//! not retrieve anything for has an empty hit list; unjudged queries are left out.

use rayon::prelude::*;

use super::rankings::Rankings;
use crate::error::{Error, FusionProblem};

/// What to estimate (ranx's training function in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Training {
    /// (`probfuse_train`) for each of `n_segments` equal segments of a ranking, the mean over
    /// queries of the segment's precision.
    Probfuse {
        /// How many segments each ranking is cut into.
        n_segments: usize,
    },
    /// (`segfuse_train`) the same over SegFuse's ten segments of growing size, each precision
    /// taken over the segment's full size.
    Segfuse,
    /// (`posfuse_train`, `slidefuse_train`) at each rank, the fraction of the queries ranked
    /// that deep whose document there is relevant.
    Positions,
    /// (`bayesfuse_train`) log-odds of relevance over the ranks 1-5, 6-10, 11-15, 16-20,
    /// 21-30, 31-100, 101-200, 201-500 and 501-1000, for each rank up to 1000.
    Bayesfuse,
}

/// Hit lists of `run` for the judged queries (`relevant[q]`: the relevant document codes of
/// query `q`, sorted; `judged[q]`: whether `q` has judgements).
pub fn hit_lists(run: &Rankings, judged: &[bool], relevant: &[Vec<u32>]) -> Vec<Vec<f64>> {
    (0..run.n_queries())
        .into_par_iter()
        .filter(|&q| judged[q])
        .map(|q| {
            run.query(q)
                .0
                .iter()
                .map(|doc| f64::from(u8::from(relevant[q].binary_search(doc).is_ok())))
                .collect()
        })
        .collect()
}

/// Estimate, for each run, what `training` asks for, from its hit lists.
pub fn train(
    runs: &[Rankings],
    judged: &[bool],
    relevant: &[Vec<u32>],
    training: Training,
) -> Result<Vec<Vec<f64>>, Error> {
    if let Training::Probfuse { n_segments: 0 } = training {
        return Err(FusionProblem::Parameter("n_segments must be at least 1".into()).into());
    }
    if !judged.iter().any(|&j| j) {
        return Err(FusionProblem::Parameter("no judged query to train on".into()).into());
    }
    Ok(runs
        .iter()
        .map(|run| {
            let hits = hit_lists(run, judged, relevant);
            match training {
                Training::Probfuse { n_segments } => probfuse(&hits, n_segments),
                Training::Segfuse => segfuse(&hits),
                Training::Positions => positions(&hits),
                Training::Bayesfuse => bayesfuse(&hits),
            }
        })
        .collect())
}

fn sum(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |acc, v| acc + v)
}

/// `values[start..end]` with the range cut at the end of `values`, as a NumPy slice.
fn clipped(values: &[f64], start: usize, end: usize) -> &[f64] {
    &values[start.min(values.len())..end.min(values.len())]
}

fn probfuse(hits: &[Vec<f64>], n_segments: usize) -> Vec<f64> {
    let mut probs = vec![0.0; n_segments];
    for hit_list in hits {
        let size = (hit_list.len() as f64 / n_segments as f64).ceil() as usize;
        for (k, prob) in probs.iter_mut().enumerate() {
            let segment = clipped(hit_list, k * size, (k + 1) * size);
            if !segment.is_empty() {
                *prob += sum(segment) / segment.len() as f64;
            }
        }
    }
    probs.iter().map(|p| p / hits.len() as f64).collect()
}

/// Where SegFuse's segments end: `10 · 2^(k-1) - 5` for k = 1..10 (sizes 5, 10, 20, ...).
pub(crate) const SEGFUSE_ENDS: [usize; 11] = [0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115];

fn segfuse(hits: &[Vec<f64>]) -> Vec<f64> {
    let mut probs = vec![0.0; SEGFUSE_ENDS.len() - 1];
    for hit_list in hits {
        for (k, prob) in probs.iter_mut().enumerate() {
            let (start, end) = (SEGFUSE_ENDS[k], SEGFUSE_ENDS[k + 1]);
            *prob += sum(clipped(hit_list, start, end)) / (end - start) as f64;
        }
    }
    probs.iter().map(|p| p / hits.len() as f64).collect()
}

fn positions(hits: &[Vec<f64>]) -> Vec<f64> {
    let depth = hits.iter().map(Vec::len).max().unwrap_or(0);
    let mut relevant = vec![0.0; depth];
    let mut ranked = vec![0.0; depth];
    for hit_list in hits {
        for (i, &hit) in hit_list.iter().enumerate() {
            ranked[i] += 1.0;
            relevant[i] += hit;
        }
    }
    relevant.iter().zip(&ranked).map(|(r, n)| r / n).collect()
}

const BAYES_CUTOFFS: [usize; 10] = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000];

fn bayesfuse(hits: &[Vec<f64>]) -> Vec<f64> {
    let mut odds = vec![0.0; BAYES_CUTOFFS[BAYES_CUTOFFS.len() - 1]];
    for window in BAYES_CUTOFFS.windows(2) {
        let (start, end) = (window[0], window[1]);
        let mut precision = 0.0;
        for hit_list in hits {
            let retrieved = sum(clipped(hit_list, start, end)) / (end - start) as f64;
            precision += retrieved / hits.len() as f64;
        }
        if precision == 0.0 {
            precision += 0.001;
        }
        let mut complement = 1.0 - precision;
        if complement == 0.0 {
            complement += 0.001;
        }
        odds[start..end].fill((precision / complement).ln());
    }
    odds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs() -> Vec<Rankings> {
        // Query 0: docs 1, 2, 3, 4 (1 and 3 relevant); query 1: doc 5 (relevant).
        vec![Rankings::from_lists(vec![
            vec![(1, 4.0), (2, 3.0), (3, 2.0), (4, 1.0)],
            vec![(5, 1.0)],
        ])]
    }

    fn judgements() -> (Vec<bool>, Vec<Vec<u32>>) {
        (vec![true, true], vec![vec![1, 3], vec![5]])
    }

    #[test]
    fn positions_and_segments_by_hand() {
        let (judged, relevant) = judgements();
        let at = train(&runs(), &judged, &relevant, Training::Positions).unwrap();
        assert_eq!(at[0], vec![1.0, 0.0, 1.0, 0.0]);
        let probfuse = Training::Probfuse { n_segments: 2 };
        let segments = train(&runs(), &judged, &relevant, probfuse).unwrap();
        // Query 0: segments [1, 0], [1, 0] -> 0.5, 0.5; query 1: [1] -> 1, nothing.
        assert_eq!(segments[0], vec![0.75, 0.25]);
        let segfuse = train(&runs(), &judged, &relevant, Training::Segfuse).unwrap();
        assert_eq!(segfuse[0][0], (2.0 / 5.0 + 1.0 / 5.0) / 2.0);
        assert_eq!(segfuse[0][1], 0.0);
    }

    #[test]
    fn bayes_log_odds_floor_and_unjudged_queries() {
        let (mut judged, relevant) = judgements();
        judged[1] = false;
        let odds = train(&runs(), &judged, &relevant, Training::Bayesfuse).unwrap();
        assert_eq!(odds[0].len(), 1000);
        assert_eq!(odds[0][0], (0.4f64 / 0.6).ln());
        assert_eq!(odds[0][999], (0.001f64 / 0.999).ln());
    }

    #[test]
    fn nothing_judged_is_an_error() {
        let (_, relevant) = judgements();
        let error = train(&runs(), &[false, false], &relevant, Training::Segfuse);
        assert!(matches!(
            error,
            Err(Error::Fusion(FusionProblem::Parameter(_)))
        ));
    }
}
