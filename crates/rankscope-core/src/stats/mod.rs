//! The resampling loops of the statistics: the permutations of the randomized Tukey HSD test
//! (Carterette 2012; Sakai 2018, §4.5), here, and the sign flips and bootstrap resamples of the
//! paired tests and intervals ([`resampling`]); and Student's t distribution ([`student`]).
//!
//! A score matrix holds one row per topic and one column per system. Each round permutes every
//! topic's row at random (the systems are exchangeable within a topic under the null
//! hypothesis) and records the range of the systems' means, `max_i mean_i - min_i mean_i`;
//! the caller counts how often the range reaches each observed difference.
//!
//! The random numbers are NumPy's: [`Pcg64`] is the generator behind
//! `numpy.random.default_rng`, started from the state the caller hands over (through the
//! bindings), and each permutation
//! is a Fisher-Yates shuffle driven by `Generator.random()` doubles (one per position, last
//! position first). With two systems a round draws one double per topic and swaps the pair
//! when it is below one half, which is the sign flip of the paired randomization test drawn
//! from the same stream: the two tests agree exactly for the same seed and rounds.
//!
//! Every round takes its numbers from its own stretch of the stream (the generator jumps
//! ahead to it), so rounds run in parallel and the result depends only on the scores, the
//! number of rounds and the starting state, never on the number of threads.

use rayon::prelude::*;

use crate::parallel::PARALLEL_MIN_ROWS;

pub mod resampling;
pub mod student;

/// NumPy's default multiplier of the 128-bit linear congruential step (`pcg64.h`).
const MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

/// Rounds written by one task: enough work per task, little waiting at the end.
const ROUNDS_PER_TASK: usize = 16;

/// NumPy's `PCG64` bit generator (PCG XSL-RR 128/64), started from a given state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcg64 {
    state: u128,
    increment: u128,
}

impl Pcg64 {
    /// The generator in `state`, with stream `increment` (odd): NumPy's
    /// `bit_generator.state["state"]`, its `"state"` and `"inc"`.
    #[must_use]
    pub fn new(state: u128, increment: u128) -> Self {
        Self { state, increment }
    }

    /// The state and the stream, as [`Pcg64::new`] takes them (to hand the generator back).
    #[must_use]
    pub fn state(&self) -> (u128, u128) {
        (self.state, self.increment)
    }

    /// The next 64 random bits: step, then output the new state.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self
            .state
            .wrapping_mul(MULTIPLIER)
            .wrapping_add(self.increment);
        let high = (self.state >> 64) as u64;
        let low = self.state as u64;
        let rotation = (self.state >> 122) as u32;
        (high ^ low).rotate_right(rotation)
    }

    /// A double in `[0, 1)` with 53 random bits, as `Generator.random()` makes it.
    pub fn next_f64(&mut self) -> f64 {
        const SCALE: f64 = 1.0 / 9_007_199_254_740_992.0; // 2^-53
        #[allow(clippy::cast_precision_loss)] // 53 bits fit a double exactly
        let bits = (self.next_u64() >> 11) as f64;
        bits * SCALE
    }

    /// Skip `steps` outputs in O(log steps) (Brown 1994, "Random number generation with
    /// arbitrary strides").
    pub fn advance(&mut self, mut steps: u128) {
        let (mut multiplier, mut increment) = (MULTIPLIER, self.increment);
        let (mut total_multiplier, mut total_increment) = (1u128, 0u128);
        while steps > 0 {
            if steps & 1 == 1 {
                total_multiplier = total_multiplier.wrapping_mul(multiplier);
                total_increment = total_increment
                    .wrapping_mul(multiplier)
                    .wrapping_add(increment);
            }
            increment = multiplier.wrapping_add(1).wrapping_mul(increment);
            multiplier = multiplier.wrapping_mul(multiplier);
            steps >>= 1;
        }
        self.state = total_multiplier
            .wrapping_mul(self.state)
            .wrapping_add(total_increment);
    }
}

/// A score matrix that does not fit its shape, or a test with nothing to permute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    /// `scores.len()` is not `topics * systems`.
    Size {
        /// The number of scores.
        len: usize,
        /// The number of topics.
        topics: usize,
        /// The number of systems.
        systems: usize,
    },
    /// Fewer than two systems or one topic.
    TooSmall {
        /// The number of topics.
        topics: usize,
        /// The number of systems.
        systems: usize,
    },
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Size {
                len,
                topics,
                systems,
            } => write!(
                f,
                "a score matrix of {topics} topics x {systems} systems needs {} scores, got {len}",
                topics * systems
            ),
            Self::TooSmall { topics, systems } => write!(
                f,
                "permuting systems within topics needs at least 2 systems and 1 topic, got \
                 {systems} systems and {topics} topics"
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

/// Shuffle `row` in place by Fisher-Yates, the last position first, one double per position.
fn shuffle(row: &mut [f64], rng: &mut Pcg64) {
    for last in (1..row.len()).rev() {
        // floor(u * (last + 1)) is at most `last` for u < 1.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let pick = (rng.next_f64() * (last + 1) as f64) as usize;
        row.swap(last, pick);
    }
}

/// The range of the systems' means in one round, every topic permuted from `rng`.
fn round_range(
    scores: &[f64],
    systems: usize,
    rng: &mut Pcg64,
    row: &mut [f64],
    sums: &mut [f64],
) -> f64 {
    sums.fill(0.0);
    for topic in scores.chunks_exact(systems) {
        row.copy_from_slice(topic);
        shuffle(row, rng);
        for (sum, value) in sums.iter_mut().zip(row.iter()) {
            *sum += value;
        }
    }
    let (low, high) = sums
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &sum| {
            (low.min(sum), high.max(sum))
        });
    #[allow(clippy::cast_precision_loss)] // topic counts are far below 2^53
    let topics = (scores.len() / systems) as f64;
    (high - low) / topics
}

/// The range of the systems' means, `max_i mean_i - min_i mean_i`, in each of `rounds` rounds
/// that permute every topic's scores across the systems.
///
/// `scores` is the matrix topic by topic (row-major: `scores[t * systems + s]`); `rng` starts
/// the stream, and round `b` uses its `b * topics * (systems - 1)`-th double onwards.
///
/// # Errors
/// [`ShapeError`] if the matrix does not have `topics * systems` scores, or there are fewer
/// than 2 systems or no topic.
pub fn permuted_ranges(
    scores: &[f64],
    topics: usize,
    systems: usize,
    rounds: usize,
    rng: &Pcg64,
) -> Result<Vec<f64>, ShapeError> {
    if scores.len() != topics.saturating_mul(systems) {
        return Err(ShapeError::Size {
            len: scores.len(),
            topics,
            systems,
        });
    }
    if systems < 2 || topics == 0 {
        return Err(ShapeError::TooSmall { topics, systems });
    }
    let per_round = (topics * (systems - 1)) as u128;
    let mut ranges = vec![0.0; rounds];
    let fill = |(task, chunk): (usize, &mut [f64])| {
        let mut stream = rng.clone();
        stream.advance((task * ROUNDS_PER_TASK) as u128 * per_round);
        let mut row = vec![0.0; systems];
        let mut sums = vec![0.0; systems];
        for range in chunk {
            *range = round_range(scores, systems, &mut stream, &mut row, &mut sums);
        }
    };
    // Below a few rounds' worth of work the pool's start costs more than it saves.
    if scores.len().saturating_mul(rounds) < PARALLEL_MIN_ROWS {
        ranges
            .chunks_mut(ROUNDS_PER_TASK)
            .enumerate()
            .for_each(fill);
    } else {
        ranges
            .par_chunks_mut(ROUNDS_PER_TASK)
            .enumerate()
            .for_each(fill);
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests;
