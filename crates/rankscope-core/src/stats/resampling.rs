//! The resampling of the paired tests and the bootstrap intervals: means of sign-flipped
//! differences and means of bootstrap resamples, each equal to the last bit to what NumPy
//! computes from the same generator.
//!
//! NumPy draws a round's sign flips as `rng.random(n) < 0.5` (one double per query) and a
//! bootstrap resample as `rng.integers(0, n, n)` (Lemire's bounded method over 32-bit draws,
//! two per 64-bit output, low half first), and takes each round's mean with `mean(axis=1)`:
//! its pairwise sum (blocks of eight, split in halves past 128 values) divided by `n`. The same
//! steps here give the same numbers, so moving the loop into the core changes no p-value and no
//! interval; it only drops NumPy's temporary arrays (a 10,000 x 1,000 resampling allocates and
//! walks 160 MB of them).

use rayon::prelude::*;

use super::Pcg64;
use crate::parallel::PARALLEL_MIN_ROWS;

/// Rounds written by one task of the sign flips.
const ROUNDS_PER_TASK: usize = 64;

/// NumPy's pairwise summation of doubles (`pairwise_sum` in its loops), the order of the
/// additions included: below 8 values one by one; up to 128 in eight interleaved sums, then
/// the rest; beyond that the two halves (the first a multiple of 8) summed apart.
#[must_use]
pub fn pairwise_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        return values.iter().fold(0.0, |sum, &value| sum + value);
    }
    if n <= 128 {
        let mut sums = [0.0; 8];
        sums.copy_from_slice(&values[..8]);
        let whole = n - n % 8;
        for block in values[8..whole].chunks_exact(8) {
            for (sum, &value) in sums.iter_mut().zip(block) {
                *sum += value;
            }
        }
        let mut total = ((sums[0] + sums[1]) + (sums[2] + sums[3]))
            + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
        for &value in &values[whole..] {
            total += value;
        }
        return total;
    }
    let mut half = n / 2;
    half -= half % 8;
    pairwise_sum(&values[..half]) + pairwise_sum(&values[half..])
}

/// The mean of a row as NumPy's `mean(axis=1)` takes it: the sum starts from 0.
#[allow(clippy::cast_precision_loss)] // counts of queries are far below 2^53
fn row_mean(row: &[f64]) -> f64 {
    (0.0 + pairwise_sum(row)) / row.len() as f64
}

/// The mean of `differences` under each of `rounds` random sign flips: round `b` flips the
/// sign of difference `i` when the generator's `(b * n + i)`-th double is below one half
/// (`n`: the number of differences), as `rng.random((rounds, n)) < 0.5` does. The stream
/// starts at `rng`; rounds run in parallel, each from its own stretch of it.
#[must_use]
pub fn sign_flip_means(differences: &[f64], rounds: usize, rng: &Pcg64) -> Vec<f64> {
    let n = differences.len();
    let mut means = vec![0.0; rounds];
    let fill = |(task, chunk): (usize, &mut [f64])| {
        let mut stream = rng.clone();
        stream.advance((task * ROUNDS_PER_TASK * n) as u128);
        let mut row = vec![0.0; n];
        for mean in chunk {
            for (value, &difference) in row.iter_mut().zip(differences) {
                *value = if stream.next_f64() < 0.5 {
                    -difference
                } else {
                    difference
                };
            }
            *mean = row_mean(&row);
        }
    };
    if n.saturating_mul(rounds) < PARALLEL_MIN_ROWS {
        means.chunks_mut(ROUNDS_PER_TASK).enumerate().for_each(fill);
    } else {
        means
            .par_chunks_mut(ROUNDS_PER_TASK)
            .enumerate()
            .for_each(fill);
    }
    means
}

/// NumPy's 32-bit draws from a [`Pcg64`]: each 64-bit output gives its low half, and keeps its
/// high half for the next draw (the bit generator's `has_uint32` and `uinteger`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Halves {
    /// The generator.
    pub rng: Pcg64,
    /// Whether `high` is kept for the next draw (`has_uint32`).
    pub held: bool,
    /// The high half of the last output (`uinteger`; NumPy leaves it there once drawn).
    pub high: u32,
}

impl Halves {
    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        if self.held {
            self.held = false;
            return self.high;
        }
        let next = self.rng.next_u64();
        self.held = true;
        self.high = (next >> 32) as u32;
        #[allow(clippy::cast_possible_truncation)] // the low half, on purpose
        let low = next as u32;
        low
    }

    /// A number in `0..bound` by Lemire's method with rejection, as NumPy's `integers(0,
    /// bound)` draws it for a bound of at most 2^32 - 1 (`bound` >= 2).
    fn below(&mut self, bound: u32) -> u32 {
        let scaled = |bits: u32| u64::from(bits) * u64::from(bound);
        let mut product = scaled(self.next_u32());
        #[allow(clippy::cast_possible_truncation)] // the low half, on purpose
        let mut leftover = product as u32;
        if leftover < bound {
            let threshold = (u32::MAX - (bound - 1)) % bound;
            while leftover < threshold {
                product = scaled(self.next_u32());
                #[allow(clippy::cast_possible_truncation)]
                {
                    leftover = product as u32;
                }
            }
        }
        #[allow(clippy::cast_possible_truncation)] // the high half is below `bound`
        let high = (product >> 32) as u32;
        high
    }
}

/// A bootstrap that cannot be drawn as NumPy draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooManyValues(pub usize);

impl std::fmt::Display for TooManyValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bootstrap resampling draws from at most 2^32 - 1 values, got {}",
            self.0
        )
    }
}

impl std::error::Error for TooManyValues {}

/// The mean of each of `rounds` resamples of `values` drawn with replacement, resample `b`
/// made of the indices `rng.integers(0, n, (rounds, n))[b]` draws; and the generator where
/// the draws left it. The rejections of Lemire's method make the draws of a round vary in
/// number, so the rounds run one after another.
///
/// # Errors
/// [`TooManyValues`] for 2^32 values or more (NumPy draws those with 64-bit numbers).
pub fn bootstrap_means(
    values: &[f64],
    rounds: usize,
    rng: Halves,
) -> Result<(Vec<f64>, Halves), TooManyValues> {
    let n = values.len();
    let bound = u32::try_from(n)
        .ok()
        .filter(|&bound| bound < u32::MAX)
        .ok_or(TooManyValues(n))?;
    let mut rng = rng;
    if n <= 1 {
        // One value (or none): every resample is that value, and NumPy draws nothing.
        let mean = if n == 1 { row_mean(values) } else { f64::NAN };
        return Ok((vec![mean; rounds], rng));
    }
    let mut row = vec![0.0; n];
    let means = (0..rounds)
        .map(|_| {
            for value in &mut row {
                *value = values[rng.below(bound) as usize];
            }
            row_mean(&row)
        })
        .collect();
    Ok((means, rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `numpy.random.default_rng(42).bit_generator.state["state"]`.
    fn numpy_seed_42() -> Pcg64 {
        Pcg64::new(
            0xcea4_4f67_9879_8f2a_acbc_7c9d_6886_0ac8,
            0xfa50_5436_c9a8_416e_66ca_f2e2_8d25_abff,
        )
    }

    #[test]
    fn sums_run_in_numpys_order() {
        // Eight interleaved sums, then the ninth value: 1e16 + 1.0 - 1e16 loses the 1.0 only
        // if added in order; NumPy's add.reduce of these gives 17.000999999999998.
        let values = [1e16, 1.0, -1e16, 1.0, 3.0, 1e-3, 7.0, 2.0, 5.0];
        assert_eq!(pairwise_sum(&values), 17.000_999_999_999_998);
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }

    #[test]
    fn bounded_draws_are_numpys() {
        // default_rng(42).integers(0, 10, 6), which leaves no half held.
        let mut rng = Halves {
            rng: numpy_seed_42(),
            held: false,
            high: 0,
        };
        let drawn: Vec<u32> = (0..6).map(|_| rng.below(10)).collect();
        assert_eq!(drawn, [0, 7, 6, 4, 4, 8]);
        assert!(!rng.held);
    }

    #[test]
    fn sign_flips_follow_the_doubles() {
        // default_rng(42).random(4) < 0.5 is [False, True, False, False].
        let means = sign_flip_means(&[1.0, 2.0, 4.0, 8.0], 1, &numpy_seed_42());
        assert_eq!(means, [(1.0 - 2.0 + 4.0 + 8.0) / 4.0]);
    }

    #[test]
    fn a_single_value_resamples_to_itself_without_drawing() {
        let rng = Halves {
            rng: numpy_seed_42(),
            held: false,
            high: 0,
        };
        let (means, after) = bootstrap_means(&[0.25], 3, rng.clone()).unwrap();
        assert_eq!((means, after), (vec![0.25; 3], rng));
    }
}
