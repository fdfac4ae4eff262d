//! The fusion methods: each turns the runs' rankings of one query into fused scores.

use rayon::prelude::*;

use super::normalize::ranx_extreme;
use super::rankings::{trec_order, Rankings};
use super::train::SEGFUSE_ENDS;
use crate::error::{Error, FusionProblem};

/// A fusion method with its parameters (ranx's name in parentheses).
///
/// For a document `d`, `s_r` is its (normalised) score in run `r`, `i_r` its 0-based rank
/// there, and `n` the number of runs that retrieved it. Unless said otherwise a run that did
/// not retrieve `d` adds nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// (`sum`, CombSUM) `Σ s_r`.
    Sum,
    /// (`mnz`, CombMNZ) `n · Σ s_r`.
    Mnz,
    /// (`max`, CombMAX) `max s_r`, a missing score counting as -1e9.
    Max,
    /// (`min`, CombMIN) `min s_r`, a missing score counting as 1e9.
    Min,
    /// (`med`, CombMED) the median of the retrieved scores.
    Med,
    /// (`anz`, CombANZ) `Σ s_r / n`.
    Anz,
    /// (`gmnz`, CombGMNZ) `n^gamma · Σ s_r`.
    Gmnz {
        /// The exponent of the number of runs that retrieved the document.
        gamma: f64,
    },
    /// (`wsum`) `Σ w_r s_r`.
    Wsum {
        /// One weight per run, in the runs' order.
        weights: Vec<f64>,
    },
    /// (`wmnz`) `Σ s_r · Σ w_r`, both over the runs that retrieved `d`.
    Wmnz {
        /// One weight per run, in the runs' order.
        weights: Vec<f64>,
    },
    /// (`mixed`) `√n · Σ w_r s_r`.
    Mixed {
        /// One weight per run, in the runs' order.
        weights: Vec<f64>,
    },
    /// (`rrf`) `Σ 1 / (k + i_r + 1)`.
    Rrf {
        /// The constant added to each rank (60 in ranx).
        k: f64,
    },
    /// (`isr`) `n · Σ 1 / (i_r + 1)²`.
    Isr,
    /// (`log_isr`) `ln(n) · Σ 1 / (i_r + 1)²`.
    LogIsr,
    /// (`logn_isr`) `ln(n + sigma) · Σ 1 / (i_r + 1)²`.
    LognIsr {
        /// The constant added to the number of runs.
        sigma: f64,
    },
    /// (`rbc`) `Σ (1 - phi) phi^i_r`.
    Rbc {
        /// The persistence: how much each rank down weighs less.
        phi: f64,
    },
    /// (`bordafuse`) `Σ (c - i_r)` over `c` candidates; a run that missed `d` gives it
    /// `(c - m_r + 1) / 2`, `m_r` being the number of documents it retrieved.
    Bordafuse,
    /// (`w_bordafuse`) BordaFuse's points weighted: `Σ w_r points_r`.
    WBordafuse {
        /// One weight per run, in the runs' order.
        weights: Vec<f64>,
    },
    /// (`condorcet`) candidates sorted by pairwise majority (a run ranks `x` above `y` if it
    /// retrieved `x` higher, or only `x`); scores `c, c - 1, ..., 1`.
    Condorcet,
    /// (`w_condorcet`) Condorcet with weighted votes.
    WCondorcet {
        /// One weight per run, in the runs' order.
        weights: Vec<f64>,
    },
    /// (`probfuse`) `Σ P_r(k) / (k + 1)`, `k` the segment of `i_r` when the ranking is cut
    /// into `len(P_r)` segments of equal size.
    Probfuse {
        /// Per run, the trained probabilities (by segment or position).
        probs: Vec<Vec<f64>>,
    },
    /// (`segfuse`) `Σ P_r(k) (s_r + 1)`, `k` the segment of `i_r` among segments of sizes
    /// 5, 10, 20, ... (10 · 2^(k-1) - 5 ends).
    Segfuse {
        /// Per run, the trained probabilities (by segment or position).
        probs: Vec<Vec<f64>>,
    },
    /// (`slidefuse`) `Σ mean(P_r[i_r - w ..= i_r + w])` (the window cut at the ranking's ends,
    /// positions beyond `P_r` counting as 0).
    Slidefuse {
        /// Per run, the trained probability of each position.
        probs: Vec<Vec<f64>>,
        /// How many positions on each side the window takes.
        w: usize,
    },
    /// (`mapfuse`) `Σ MAP_r / (i_r + 1)`.
    Mapfuse {
        /// Each run's MAP on the training queries.
        map_scores: Vec<f64>,
    },
    /// (`posfuse`) `Σ P_r(i_r)` (0 beyond the trained positions).
    Posfuse {
        /// Per run, the trained probabilities (by segment or position).
        probs: Vec<Vec<f64>>,
    },
    /// (`bayesfuse`) `Σ O_r(i_r)`, log-odds of relevance at the rank, a run that missed `d`
    /// (or ranked it beyond the trained ranks) giving `ln(0.001 / 0.999)`.
    Bayesfuse {
        /// Per run, the log-odds of relevance at each rank.
        log_odds: Vec<Vec<f64>>,
    },
}

const MISSING_MAX: f64 = -1e9;
const MISSING_MIN: f64 = 1e9;
fn min_odd() -> f64 {
    (0.001f64 / 0.999).ln()
}

impl Method {
    /// Check the parameters against the number of runs.
    fn check(&self, n_runs: usize) -> Result<(), Error> {
        let per_run = |what: &str, len: usize| {
            if len == n_runs {
                Ok(())
            } else {
                Err(FusionProblem::Parameter(format!(
                    "{what}: expected one per run ({n_runs}); got {len}"
                ))
                .into())
            }
        };
        match self {
            Method::Wsum { weights }
            | Method::Wmnz { weights }
            | Method::Mixed { weights }
            | Method::WBordafuse { weights }
            | Method::WCondorcet { weights } => per_run("weights", weights.len()),
            Method::Probfuse { probs } => {
                if probs.iter().any(Vec::is_empty) {
                    return Err(FusionProblem::Parameter(
                        "probs: every run needs at least one segment".into(),
                    )
                    .into());
                }
                per_run("probs", probs.len())
            }
            Method::Segfuse { probs }
            | Method::Posfuse { probs }
            | Method::Slidefuse { probs, .. } => per_run("probs", probs.len()),
            Method::Mapfuse { map_scores } => per_run("map_scores", map_scores.len()),
            Method::Bayesfuse { log_odds } => per_run("log_odds", log_odds.len()),
            _ => Ok(()),
        }
    }
}

/// numba's `float ** int`: exponentiation by squaring, as ranx's compiled code computes it.
fn int_power(base: f64, exponent: usize) -> f64 {
    if exponent > 0x10000 {
        return base.powf(exponent as f64);
    }
    let (mut result, mut base, mut exponent) = (1.0, base, exponent);
    while exponent != 0 {
        if exponent & 1 == 1 {
            result *= base;
        }
        exponent >>= 1;
        base *= base;
    }
    result
}

/// A query's candidates: every document any run retrieved, in order of first appearance
/// (runs in their order, each in rank order), with a map from document code to position.
pub(crate) struct Candidates {
    pub docs: Vec<u32>,
    slots: SlotMap,
}

impl Candidates {
    pub fn of(runs: &[Rankings], query: usize) -> Self {
        let total = runs.iter().map(|run| run.query(query).0.len()).sum();
        let mut slots = SlotMap::with_capacity(total);
        let mut docs = Vec::with_capacity(total);
        for run in runs {
            for &doc in run.query(query).0 {
                if slots.insert(doc, docs.len() as u32) {
                    docs.push(doc);
                }
            }
        }
        Self { docs, slots }
    }

    fn slot(&self, doc: u32) -> usize {
        self.slots.get(doc) as usize
    }
}

/// Open addressing from document codes to positions (codes are dense; a multiplicative hash
/// spreads them).
struct SlotMap {
    keys: Vec<u32>,
    values: Vec<u32>,
    mask: usize,
}

impl SlotMap {
    const EMPTY: u32 = u32::MAX;

    fn with_capacity(n: usize) -> Self {
        let size = (2 * n).max(4).next_power_of_two();
        Self {
            keys: vec![Self::EMPTY; size],
            values: vec![0; size],
            mask: size - 1,
        }
    }

    fn home(&self, key: u32) -> usize {
        (u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask
    }

    /// Insert `key -> value` unless `key` is there; whether it was new.
    fn insert(&mut self, key: u32, value: u32) -> bool {
        let mut at = self.home(key);
        loop {
            match self.keys[at] {
                Self::EMPTY => {
                    self.keys[at] = key;
                    self.values[at] = value;
                    return true;
                }
                k if k == key => return false,
                _ => at = (at + 1) & self.mask,
            }
        }
    }

    fn get(&self, key: u32) -> u32 {
        let mut at = self.home(key);
        while self.keys[at] != key {
            at = (at + 1) & self.mask;
        }
        self.values[at]
    }
}

/// Fuse the runs (all over the same query codes) into one ranking per query, ranked by the
/// `trec` rule on the fused scores.
pub fn fuse(runs: &[Rankings], method: &Method) -> Result<Rankings, Error> {
    method.check(runs.len())?;
    let n_queries = runs.first().map_or(0, Rankings::n_queries);
    if runs.iter().any(|run| run.n_queries() != n_queries) {
        return Err(
            FusionProblem::Parameter("every run must cover the same query codes".into()).into(),
        );
    }
    let lists = (0..n_queries)
        .into_par_iter()
        .map(|query| {
            let mut list = match method {
                Method::Condorcet => condorcet(runs, query, None),
                Method::WCondorcet { weights } => condorcet(runs, query, Some(weights)),
                _ => combine(runs, query, method),
            };
            if let Some(&(doc, _)) = list.iter().find(|(_, score)| !score.is_finite()) {
                let query = query as u32;
                return Err(Error::Fusion(FusionProblem::Overflow { query, doc }));
            }
            list.sort_by(trec_order);
            Ok(list)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Rankings::from_lists(lists))
}

/// The score a run gives the document at 0-based rank `i` (of `n`) with score `s`.
fn per_run(method: &Method, run: usize, i: usize, n: usize, s: f64) -> f64 {
    match method {
        Method::Rrf { k } => 1.0 / (k + i as f64 + 1.0),
        Method::Isr | Method::LogIsr | Method::LognIsr { .. } => 1.0 / ((i + 1) * (i + 1)) as f64,
        Method::Rbc { phi } => (1.0 - phi) * int_power(*phi, i),
        Method::Probfuse { probs } => {
            let segment = (n as f64 / probs[run].len() as f64).ceil() as usize;
            let k = i / segment;
            probs[run][k] / (k + 1) as f64
        }
        Method::Segfuse { probs } => {
            let k = SEGFUSE_ENDS.windows(2).position(|w| w[0] <= i && i < w[1]);
            let p = k
                .filter(|&k| k < probs[run].len())
                .map_or(0.0, |k| probs[run][k]);
            p * (s + 1.0)
        }
        Method::Slidefuse { probs, w } => {
            let probs = &probs[run];
            let start = i.saturating_sub(*w);
            let end = (i + w).min(n - 1);
            let total = (start..=end.min(probs.len().saturating_sub(1)))
                .filter(|&j| j < probs.len())
                .fold(0.0, |acc, j| acc + probs[j]);
            total / (end - start + 1) as f64
        }
        Method::Mapfuse { map_scores } => map_scores[run] / (i + 1) as f64,
        Method::Posfuse { probs } => probs[run].get(i).copied().unwrap_or(0.0),
        Method::Bayesfuse { log_odds } => log_odds[run].get(i).copied().unwrap_or_else(min_odd),
        Method::Bordafuse | Method::WBordafuse { .. } => unreachable!("set with the candidates"),
        _ => s,
    }
}

/// The fused score of one document from its per-run scores (NaN where a run missed it).
fn combine_row(method: &Method, row: &[f64]) -> f64 {
    let present = || row.iter().copied().filter(|v| !v.is_nan());
    let weighted = |weights: &[f64]| -> (f64, f64, f64, usize) {
        // (Σ s_r, Σ w_r, Σ w_r s_r) over the runs that retrieved the document, and their count.
        row.iter()
            .zip(weights)
            .filter(|(v, _)| !v.is_nan())
            .fold((0.0, 0.0, 0.0, 0), |(s, w, ws, n), (&v, &weight)| {
                (s + v, w + weight, ws + v * weight, n + 1)
            })
    };
    let total = || present().fold(0.0, |acc, v| acc + v);
    let count = || present().count() as f64;
    match method {
        Method::Mnz | Method::Isr => total() * count(),
        Method::Max => {
            let filled = row
                .iter()
                .map(|&v| if v.is_nan() { MISSING_MAX } else { v });
            ranx_extreme(filled, |a, b| a > b).unwrap_or(MISSING_MAX)
        }
        Method::Min => {
            let filled = row
                .iter()
                .map(|&v| if v.is_nan() { MISSING_MIN } else { v });
            ranx_extreme(filled, |a, b| a < b).unwrap_or(MISSING_MIN)
        }
        Method::Med => {
            let mut values: Vec<f64> = present().collect();
            values.sort_by(|a, b| a.partial_cmp(b).expect("finite scores"));
            let half = values.len() / 2;
            if values.len() % 2 == 0 {
                (values[half - 1] + values[half]) / 2.0
            } else {
                values[half]
            }
        }
        Method::Anz => total() / count(),
        Method::Gmnz { gamma } => total() * count().powf(*gamma),
        Method::LogIsr => total() * count().ln(),
        Method::LognIsr { sigma } => total() * (count() + sigma).ln(),
        Method::Wsum { weights } | Method::WBordafuse { weights } => {
            row.iter().zip(weights).fold(0.0, |acc, (&v, w)| {
                acc + w * if v.is_nan() { 0.0 } else { v }
            })
        }
        Method::Wmnz { weights } => {
            let (s, w, _, _) = weighted(weights);
            s * w
        }
        Method::Mixed { weights } => {
            let (_, _, ws, n) = weighted(weights);
            ws * (n as f64).sqrt()
        }
        Method::Bayesfuse { .. } => row
            .iter()
            .fold(0.0, |acc, &v| acc + if v.is_nan() { min_odd() } else { v }),
        // CombSUM of the per-run scores, a missing one adding 0.
        _ => row
            .iter()
            .fold(0.0, |acc, &v| acc + if v.is_nan() { 0.0 } else { v }),
    }
}

fn combine(runs: &[Rankings], query: usize, method: &Method) -> Vec<(u32, f64)> {
    let candidates = Candidates::of(runs, query);
    let (n_runs, n_candidates) = (runs.len(), candidates.docs.len());
    let mut values = vec![f64::NAN; n_candidates * n_runs];
    let borda = matches!(method, Method::Bordafuse | Method::WBordafuse { .. });
    for (r, run) in runs.iter().enumerate() {
        let (docs, scores) = run.query(query);
        let n = docs.len();
        for (i, (&doc, &s)) in docs.iter().zip(scores).enumerate() {
            values[candidates.slot(doc) * n_runs + r] = if borda {
                (n_candidates - i) as f64
            } else {
                per_run(method, r, i, n, s)
            };
        }
        if borda {
            let unranked = (n_candidates - n + 1) as f64 / 2.0;
            for slot in 0..n_candidates {
                let value = &mut values[slot * n_runs + r];
                if value.is_nan() {
                    *value = unranked;
                }
            }
        }
    }
    candidates
        .docs
        .iter()
        .enumerate()
        .map(|(slot, &doc)| {
            let row = &values[slot * n_runs..(slot + 1) * n_runs];
            (doc, combine_row(method, row))
        })
        .collect()
}

/// Condorcet fusion: candidates sorted by pairwise majority with a stable merge sort (from
/// their order of first appearance), scored `c - position`.
///
/// ranx's comparison puts `x` first when the runs (weights) that rank `x` strictly above `y`
/// are at least as many (as heavy) as the others, the runs that retrieved neither counting
/// among the others; `x` goes before `y` when that comparison puts `x` first and not `y`.
/// Where ranx's comparison is a strict order this is ranx's order; where it puts each of two
/// documents first, or majority preference is cyclic, the order is the merge sort's (ranx's
/// then depends on a set's iteration order).
fn condorcet(runs: &[Rankings], query: usize, weights: Option<&Vec<f64>>) -> Vec<(u32, f64)> {
    let candidates = Candidates::of(runs, query);
    let (n_runs, n_candidates) = (runs.len(), candidates.docs.len());
    let mut ranks = vec![u32::MAX; n_candidates * n_runs];
    for (r, run) in runs.iter().enumerate() {
        for (i, &doc) in run.query(query).0.iter().enumerate() {
            ranks[candidates.slot(doc) * n_runs + r] = i as u32;
        }
    }
    let first = |x: usize, y: usize| -> bool {
        let (rx, ry) = (
            &ranks[x * n_runs..][..n_runs],
            &ranks[y * n_runs..][..n_runs],
        );
        match weights {
            None => {
                let votes = rx.iter().zip(ry).filter(|(a, b)| a < b).count();
                votes >= n_runs - votes
            }
            Some(weights) => {
                let (mut for_x, mut for_y) = (0.0, 0.0);
                for ((a, b), w) in rx.iter().zip(ry).zip(weights) {
                    if a < b {
                        for_x += w;
                    } else {
                        for_y += w;
                    }
                }
                for_x >= for_y
            }
        }
    };
    let beats = |x: usize, y: usize| first(x, y) && !first(y, x);
    let mut order: Vec<usize> = (0..n_candidates).collect();
    merge_sort(&mut order, &beats);
    order
        .iter()
        .enumerate()
        .map(|(position, &slot)| (candidates.docs[slot], (n_candidates - position) as f64))
        .collect()
}

/// A stable top-down merge sort that asks only "does `b` go before `a`?", so that it is well
/// defined for a relation that is not a total order.
fn merge_sort(items: &mut [usize], before: &impl Fn(usize, usize) -> bool) {
    if items.len() < 2 {
        return;
    }
    let middle = items.len() / 2;
    merge_sort(&mut items[..middle], before);
    merge_sort(&mut items[middle..], before);
    let (left, right) = items.split_at(middle);
    let mut merged = Vec::with_capacity(items.len());
    let (mut l, mut r) = (0, 0);
    while l < left.len() && r < right.len() {
        if before(right[r], left[l]) {
            merged.push(right[r]);
            r += 1;
        } else {
            merged.push(left[l]);
            l += 1;
        }
    }
    merged.extend_from_slice(&left[l..]);
    merged.extend_from_slice(&right[r..]);
    items.copy_from_slice(&merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lists: &[&[(u32, f64)]]) -> Rankings {
        Rankings::from_lists(lists.iter().map(|l| l.to_vec()).collect())
    }

    fn fused(runs: &[Rankings], method: &Method) -> Vec<(u32, f64)> {
        let out = fuse(runs, method).unwrap();
        let (docs, scores) = out.query(0);
        docs.iter().copied().zip(scores.iter().copied()).collect()
    }

    fn two_runs() -> [Rankings; 2] {
        [run(&[&[(1, 0.9), (2, 0.5)]]), run(&[&[(2, 0.8), (3, 0.4)]])]
    }

    #[test]
    fn comb_family_by_hand() {
        let runs = two_runs();
        assert_eq!(
            fused(&runs, &Method::Sum),
            vec![(2, 1.3), (1, 0.9), (3, 0.4)]
        );
        assert_eq!(
            fused(&runs, &Method::Mnz),
            vec![(2, 2.6), (1, 0.9), (3, 0.4)]
        );
        assert_eq!(
            fused(&runs, &Method::Max),
            vec![(1, 0.9), (2, 0.8), (3, 0.4)]
        );
        assert_eq!(
            fused(&runs, &Method::Min),
            vec![(1, 0.9), (2, 0.5), (3, 0.4)]
        );
        assert_eq!(
            fused(&runs, &Method::Anz),
            vec![(1, 0.9), (2, 0.65), (3, 0.4)]
        );
        assert_eq!(
            fused(&runs, &Method::Med),
            vec![(1, 0.9), (2, 0.65), (3, 0.4)]
        );
        let wsum = Method::Wsum {
            weights: vec![1.0, 2.0],
        };
        assert_eq!(fused(&runs, &wsum), vec![(2, 2.1), (1, 0.9), (3, 0.8)]);
    }

    #[test]
    fn rank_based_by_hand() {
        let runs = two_runs();
        let rrf = fused(&runs, &Method::Rrf { k: 60.0 });
        assert_eq!(rrf[0], (2, 1.0 / 62.0 + 1.0 / 61.0));
        assert_eq!(rrf[1..], [(1, 1.0 / 61.0), (3, 1.0 / 62.0)]);
        // Borda: 3 candidates; run 1 gives 1 and 2 three and two points, 3 gets (3-2+1)/2 = 1.
        let borda = fused(&runs, &Method::Bordafuse);
        assert_eq!(borda, vec![(2, 5.0), (1, 4.0), (3, 3.0)]);
        let log_isr = fused(&runs, &Method::LogIsr);
        assert_eq!(log_isr[0], (2, (0.25 + 1.0) * 2f64.ln()));
    }

    #[test]
    fn ties_break_by_doc_id_descending() {
        let runs = [run(&[&[(1, 1.0)]]), run(&[&[(4, 1.0)]])];
        assert_eq!(fused(&runs, &Method::Sum), vec![(4, 1.0), (1, 1.0)]);
    }

    #[test]
    fn condorcet_majority() {
        let runs = [
            run(&[&[(1, 3.0), (2, 2.0), (3, 1.0)]]),
            run(&[&[(2, 3.0), (1, 2.0), (3, 1.0)]]),
            run(&[&[(2, 3.0), (3, 2.0), (1, 1.0)]]),
        ];
        assert_eq!(
            fused(&runs, &Method::Condorcet),
            vec![(2, 3.0), (1, 2.0), (3, 1.0)]
        );
    }

    #[test]
    fn condorcet_counts_runs_that_retrieved_neither_against_the_first() {
        // Two runs rank 2 above 1, one ranks 1 above 2, the fourth retrieved neither and
        // counts against whichever is compared first: 2 against 1 is 2:2 (2 first), 1 against
        // 2 is 1:3, so 2 goes first where a strict majority would leave them tied.
        let runs = [
            run(&[&[(1, 1.0)]]),
            run(&[&[(2, 1.0), (1, 0.5)]]),
            run(&[&[(2, 1.0)]]),
            run(&[&[(3, 1.0)]]),
        ];
        assert_eq!(
            fused(&runs, &Method::Condorcet),
            vec![(2, 3.0), (1, 2.0), (3, 1.0)]
        );
    }

    #[test]
    fn condorcet_keeps_first_appearance_when_each_comes_first() {
        let runs = [run(&[&[(1, 1.0)]]), run(&[&[(2, 1.0)]])];
        assert_eq!(fused(&runs, &Method::Condorcet), vec![(1, 2.0), (2, 1.0)]);
    }

    #[test]
    fn numba_power_matches_repeated_multiplication() {
        assert_eq!(int_power(0.5, 3), 0.125);
        assert_eq!(int_power(0.9, 0), 1.0);
    }

    #[test]
    fn weights_must_match_the_runs() {
        let error = fuse(&two_runs(), &Method::Wsum { weights: vec![1.0] });
        assert!(matches!(
            error,
            Err(Error::Fusion(FusionProblem::Parameter(_)))
        ));
    }
}
