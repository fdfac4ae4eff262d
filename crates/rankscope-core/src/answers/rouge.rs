//! ROUGE-N and ROUGE-L as rouge-score's `RougeScorer` computes them, over interned tokens.
//!
//! ROUGE-N: the overlap is the sum over the reference's n-grams of the smaller of its two
//! counts; `P = overlap / max(answer n-grams, 1)`, `R = overlap / max(reference n-grams, 1)`.
//! ROUGE-L: the length of the longest common subsequence over the answer's and the
//! reference's lengths (all 0 when either has no token). `F = 2 P R / (P + R)`, 0 when both
//! are. With several references, rouge-score's `score_multi`: the scores against the reference
//! with the highest F (the first of equals).

use super::ngrams::{count, runs, sorted_keys};

/// Precision, recall and F-measure of one answer against one reference.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F-measure, their harmonic mean.
    pub f: f64,
}

impl Prf {
    /// rouge-score's `scoring.fmeasure` of `precision` and `recall`.
    fn new(precision: f64, recall: f64) -> Self {
        let f = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Self {
            precision,
            recall,
            f,
        }
    }
}

/// Which ROUGE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rouge {
    /// ROUGE-N over n-grams of this order (1-4; WeKnora's, 1-5).
    N(usize),
    /// ROUGE-L, the longest common subsequence.
    L,
}

/// ROUGE-N of `answer` against `reference`.
pub fn rouge_n(answer: &[u32], reference: &[u32], n: usize) -> Prf {
    let answer_keys = sorted_keys(answer, n);
    let reference_keys = sorted_keys(reference, n);
    let overlap: u64 = runs(&reference_keys)
        .map(|(key, reference_count)| u64::from(reference_count.min(count(&answer_keys, key))))
        .sum();
    let overlap = overlap as f64;
    Prf::new(
        overlap / answer_keys.len().max(1) as f64,
        overlap / reference_keys.len().max(1) as f64,
    )
}

/// The length of the longest common subsequence of `a` and `b` (one row of the table kept).
pub fn lcs_length(a: &[u32], b: &[u32]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &x in a {
        let mut diagonal = 0;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// ROUGE-L of `answer` against `reference`.
pub fn rouge_l(answer: &[u32], reference: &[u32]) -> Prf {
    if answer.is_empty() || reference.is_empty() {
        return Prf::default();
    }
    let common = lcs_length(reference, answer) as f64;
    Prf::new(
        common / answer.len() as f64,
        common / reference.len() as f64,
    )
}

/// `kind` of `answer` against the best of `references` (`score_multi`); zero without any.
pub fn best(kind: Rouge, answer: &[u32], references: &[&[u32]]) -> Prf {
    let mut best: Option<Prf> = None;
    for reference in references {
        let score = match kind {
            Rouge::N(n) => rouge_n(answer, reference, n),
            Rouge::L => rouge_l(answer, reference),
        };
        if best.map_or(true, |b| score.f > b.f) {
            best = Some(score);
        }
    }
    best.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_n_counts_clipped_overlaps() {
        // rouge-score: score("a a b", "a b b") rouge1 = P 2/3, R 2/3.
        let score = rouge_n(&[1, 2, 2], &[1, 1, 2], 1);
        assert_eq!(score.precision, 2.0 / 3.0);
        assert_eq!(score.recall, 2.0 / 3.0);
        assert_eq!(rouge_n(&[1], &[1], 2), Prf::default());
    }

    #[test]
    fn rouge_l_is_the_subsequence_over_the_lengths() {
        assert_eq!(lcs_length(&[1, 2, 3, 4], &[1, 3, 4, 2]), 3);
        let score = rouge_l(&[1, 3, 4, 2], &[1, 2, 3, 4]);
        assert_eq!((score.precision, score.recall), (0.75, 0.75));
        assert_eq!(rouge_l(&[], &[1]), Prf::default());
    }

    #[test]
    fn several_references_take_the_best_f() {
        let answer = [1, 2, 3];
        let worse: &[u32] = &[1, 9, 9, 9];
        let better: &[u32] = &[1, 2];
        assert_eq!(
            best(Rouge::L, &answer, &[worse, better]),
            rouge_l(&answer, better)
        );
        assert_eq!(best(Rouge::N(1), &answer, &[]), Prf::default());
    }
}
