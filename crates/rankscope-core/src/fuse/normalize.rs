//! ranx's score normalisations, query by query.

use rayon::prelude::*;

use super::methods::Candidates;
use super::rankings::{trec_order, Rankings};

/// A normalisation of each query's scores (ranx's names in parentheses).
///
/// Every one keeps the rank order except `MinMaxInverted` (which reverses it) and `Borda`
/// (which adds, at the bottom, every document another run retrieved for the query); those two
/// are ranked again by the `trec` rule on their normalised scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Norm {
    /// (`min-max`) `(s - min) / max(max - min, 1e-9)`.
    MinMax,
    /// (`min-max-inverted`) `(max - s) / max(max - min, 1e-9)`.
    MinMaxInverted,
    /// (`max`) `s / max(max, 1e-9)`.
    Max,
    /// (`sum`) `(s - min) / max(sum - min * n, 1e-9)`.
    Sum,
    /// (`zmuv`) `(s - mean) / max(std, 1e-9)`, the population standard deviation.
    Zmuv,
    /// (`rank`) `1 - i / n` for the document at 0-based rank `i` of `n`.
    Rank,
    /// (`borda`) `1 - i / c` for a retrieved document, `0.5 - (n - 1) / (2c)` for the others
    /// of the `c` documents any run retrieved for the query.
    Borda,
}

impl Norm {
    /// The normalisation of a ranx name (`min-max` or `min_max` spelling alike).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "min-max" | "min_max" => Norm::MinMax,
            "min-max-inverted" | "min_max_inverted" => Norm::MinMaxInverted,
            "max" => Norm::Max,
            "sum" => Norm::Sum,
            "zmuv" => Norm::Zmuv,
            "rank" => Norm::Rank,
            "borda" => Norm::Borda,
            _ => return None,
        })
    }
}

/// Normalise every query of every run.
pub fn normalize(runs: &[Rankings], norm: Norm) -> Vec<Rankings> {
    let n_queries = runs.first().map_or(0, Rankings::n_queries);
    let borda_candidates: Option<Vec<Vec<u32>>> = (norm == Norm::Borda).then(|| {
        (0..n_queries)
            .into_par_iter()
            .map(|query| Candidates::of(runs, query).docs)
            .collect()
    });
    runs.iter()
        .map(|run| {
            let lists = (0..n_queries)
                .into_par_iter()
                .map(|query| {
                    let (docs, scores) = run.query(query);
                    match &borda_candidates {
                        Some(candidates) => borda(docs, &candidates[query]),
                        None => scale(docs, scores, norm),
                    }
                })
                .collect();
            Rankings::from_lists(lists)
        })
        .collect()
}

fn scale(docs: &[u32], scores: &[f64], norm: Norm) -> Vec<(u32, f64)> {
    let n = scores.len();
    let min = ranx_extreme(scores.iter().copied(), |a, b| a < b).unwrap_or(0.0);
    let max = ranx_extreme(scores.iter().copied(), |a, b| a > b).unwrap_or(0.0);
    let apply = |f: &dyn Fn(f64) -> f64| -> Vec<(u32, f64)> {
        docs.iter().zip(scores).map(|(&d, &s)| (d, f(s))).collect()
    };
    match norm {
        Norm::MinMax => {
            let denominator = (max - min).max(1e-9);
            apply(&|s| (s - min) / denominator)
        }
        Norm::MinMaxInverted => {
            let denominator = (max - min).max(1e-9);
            let mut list = apply(&|s| (max - s) / denominator);
            list.sort_by(trec_order);
            list
        }
        Norm::Max => {
            let denominator = max.max(1e-9);
            apply(&|s| s / denominator)
        }
        Norm::Sum => {
            let total = scores.iter().fold(0.0, |acc, &s| acc + s);
            let denominator = (total - min * n as f64).max(1e-9);
            apply(&|s| (s - min) / denominator)
        }
        Norm::Zmuv => {
            let mean = scores.iter().fold(0.0, |acc, &s| acc + s) / n as f64;
            let squares = scores
                .iter()
                .fold(0.0, |acc, &s| acc + (s - mean) * (s - mean));
            // numba's np.std is var ** 0.5 (pow, not sqrt).
            let deviation = (squares / n as f64).powf(0.5);
            let denominator = deviation.max(1e-9);
            apply(&|s| (s - mean) / denominator)
        }
        Norm::Rank => docs
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, 1.0 - (i as f64 / n as f64)))
            .collect(),
        Norm::Borda => unreachable!("borda needs the candidates of every run"),
    }
}

/// The built-in `min` / `max` ranx calls: the first value no later one beats (None if there is
/// none; ranx's
/// `safe_min` / `safe_max` then use 0).
pub(crate) fn ranx_extreme(
    mut values: impl Iterator<Item = f64>,
    beats: impl Fn(f64, f64) -> bool,
) -> Option<f64> {
    let first = values.next()?;
    Some(values.fold(first, |best, v| if beats(v, best) { v } else { best }))
}

fn borda(docs: &[u32], candidates: &[u32]) -> Vec<(u32, f64)> {
    let c = candidates.len() as f64;
    let n = docs.len() as f64;
    let unranked = 0.5 - ((n - 1.0) / (2.0 * c));
    let mut retrieved: Vec<u32> = docs.to_vec();
    retrieved.sort_unstable();
    let mut list: Vec<(u32, f64)> = docs
        .iter()
        .enumerate()
        .map(|(i, &d)| (d, 1.0 - (i as f64 / c)))
        .collect();
    list.extend(
        candidates
            .iter()
            .filter(|d| retrieved.binary_search(d).is_err())
            .map(|&d| (d, unranked)),
    );
    list.sort_by(trec_order);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(docs: &[u32], scores: &[f64]) -> Rankings {
        Rankings::from_lists(vec![docs
            .iter()
            .copied()
            .zip(scores.iter().copied())
            .collect()])
    }

    #[test]
    fn min_max_and_inverted() {
        let run = one(&[0, 1, 2], &[3.0, 2.0, 1.0]);
        let normal = &normalize(std::slice::from_ref(&run), Norm::MinMax)[0];
        assert_eq!(normal.query(0), (&[0, 1, 2][..], &[1.0, 0.5, 0.0][..]));
        let inverted = &normalize(&[run], Norm::MinMaxInverted)[0];
        assert_eq!(inverted.query(0), (&[2, 1, 0][..], &[1.0, 0.5, 0.0][..]));
    }

    #[test]
    fn constant_scores_divide_by_the_floor() {
        let run = one(&[0, 1], &[2.0, 2.0]);
        let normal = &normalize(&[run], Norm::MinMax)[0];
        assert_eq!(normal.query(0).1, &[0.0, 0.0]);
    }

    #[test]
    fn zmuv_rank_sum_max() {
        let run = one(&[0, 1], &[3.0, 1.0]);
        let runs = [run];
        assert_eq!(normalize(&runs, Norm::Zmuv)[0].query(0).1, &[1.0, -1.0]);
        assert_eq!(normalize(&runs, Norm::Rank)[0].query(0).1, &[1.0, 0.5]);
        assert_eq!(normalize(&runs, Norm::Sum)[0].query(0).1, &[1.0, 0.0]);
        assert_eq!(normalize(&runs, Norm::Max)[0].query(0).1, &[1.0, 1.0 / 3.0]);
    }

    #[test]
    fn borda_adds_the_other_runs_documents() {
        let runs = [one(&[5, 3], &[2.0, 1.0]), one(&[7], &[1.0])];
        let normal = normalize(&runs, Norm::Borda);
        // Three candidates: ranks 0 and 1 score 1 and 2/3; the unranked 0.5 - 1/6.
        assert_eq!(normal[0].query(0).0, &[5, 3, 7]);
        assert_eq!(
            normal[0].query(0).1,
            &[1.0, 1.0 - 1.0 / 3.0, 0.5 - 1.0 / 6.0]
        );
        assert_eq!(normal[1].query(0).0, &[7, 5, 3]);
        assert_eq!(normal[1].query(0).1, &[1.0, 0.5, 0.5]);
    }
}
