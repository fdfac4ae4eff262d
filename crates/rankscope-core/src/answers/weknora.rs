//! WeKnora's BLEU and ROUGE (its `metric` package), over interned words. The words come
//! sentence by sentence from WeKnora's own sentence split and word split (done above the core:
//! `rankscope.answers._weknora`, jieba for runs of Han characters).
//!
//! BLEU (`NewBLEUMetric(smoothing, weights)`): over lower-cased words, for n = 1 up to the
//! number of weights (1-4), `p_n = (clipped_n + s) / (total_n + s)` with `s = 1` when smoothing
//! and 0 otherwise (`p_n = 0` when the answer has no n-gram), `exp(Σ w_n log p_n)` over the
//! non-zero `p_n` without renormalising the weights, times `1` if the answer is longer than the
//! reference, else `exp(1 - r / c)`; 0 when no `p_n` is above 0 (an empty answer). ROUGE-N
//! (n = 1-5): over the *sets* of distinct n-grams of the whole texts. ROUGE-L: for every
//! (reference sentence, answer sentence) one longest common subsequence, rebuilt as WeKnora's
//! backtracking does, the union of their words as a set over the distinct words of each text.
//! `P = overlap / answer's`, `R = overlap / reference's` (0 over 0), and
//! `F = 2 (P R / (P + R + 1e-8))` for both.

use super::ngrams::{
    common_distinct, count, distinct, runs, sorted_keys, sorted_windows, MAX_ORDER,
};
use super::rouge::Prf;

const EPSILON: f64 = 1e-8;

/// The highest n-gram order of WeKnora's ROUGE-N (`rouge-5`).
pub const MAX_ROUGE_ORDER: usize = 5;

/// WeKnora's `BLEUMetric.Compute`: `weights` for n = 1, 2, ... (at most 4), add-1
/// smoothed or not.
pub fn bleu(answer: &[u32], reference: &[u32], weights: &[f64], smoothing: bool) -> f64 {
    debug_assert!(weights.len() <= MAX_ORDER);
    let add = if smoothing { 1.0 } else { 0.0 };
    let mut total = 0.0f64;
    let mut nonzero = 0;
    for (n, &weight) in (1..=MAX_ORDER).zip(weights) {
        let keys = sorted_keys(answer, n);
        if keys.is_empty() {
            continue;
        }
        let reference_keys = sorted_keys(reference, n);
        let clipped: u64 = runs(&keys)
            .map(|(key, c)| u64::from(c.min(count(&reference_keys, key))))
            .sum();
        let precision = (clipped as f64 + add) / (keys.len() as f64 + add);
        if precision > 0.0 {
            nonzero += 1;
            total += weight * precision.ln();
        }
    }
    if nonzero == 0 {
        return 0.0;
    }
    let (c, r) = (answer.len(), reference.len());
    let brevity = if c > r {
        1.0
    } else {
        (1.0 - r as f64 / c as f64).exp()
    };
    brevity * total.exp()
}

fn prf(overlap: usize, answer: usize, reference: usize) -> Prf {
    let ratio = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let (p, r) = (ratio(overlap, answer), ratio(overlap, reference));
    Prf {
        precision: p,
        recall: r,
        f: 2.0 * ((p * r) / (p + r + EPSILON)),
    }
}

/// P, R and F of the distinct keys of sorted `answer` and sorted `reference`.
fn distinct_overlap<K: Copy + Ord>(answer: &[K], reference: &[K]) -> Prf {
    prf(
        common_distinct(answer, reference),
        distinct(answer),
        distinct(reference),
    )
}

/// WeKnora's ROUGE-N (`rouge-1` ... `rouge-5`, n at most [`MAX_ROUGE_ORDER`]) of the words of
/// the whole answer against those of the whole reference.
pub fn rouge_n(answer: &[u32], reference: &[u32], n: usize) -> Prf {
    debug_assert!((1..=MAX_ROUGE_ORDER).contains(&n));
    if n <= MAX_ORDER {
        distinct_overlap(&sorted_keys(answer, n), &sorted_keys(reference, n))
    } else {
        distinct_overlap(&sorted_windows(answer, n), &sorted_windows(reference, n))
    }
}

/// The words of the longest common subsequence of `x` and `y` that WeKnora's `reconLcs`
/// rebuilds, appended to `words`.
fn lcs_words(x: &[u32], y: &[u32], words: &mut Vec<u32>) {
    let width = y.len() + 1;
    let mut table = vec![0u32; (x.len() + 1) * width];
    for i in 1..=x.len() {
        for j in 1..=y.len() {
            table[i * width + j] = if x[i - 1] == y[j - 1] {
                table[(i - 1) * width + j - 1] + 1
            } else {
                table[(i - 1) * width + j].max(table[i * width + j - 1])
            };
        }
    }
    let (mut i, mut j) = (x.len(), y.len());
    while i > 0 && j > 0 {
        if x[i - 1] == y[j - 1] {
            words.push(x[i - 1]);
            i -= 1;
            j -= 1;
        } else if table[(i - 1) * width + j] > table[i * width + j - 1] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
}

fn distinct_words(sentences: &[&[u32]]) -> usize {
    let mut words: Vec<u32> = sentences.iter().flat_map(|s| s.iter().copied()).collect();
    words.sort_unstable();
    words.dedup();
    words.len()
}

/// WeKnora's summary-level ROUGE-L of the answer's sentences against the reference's.
pub fn rouge_l(answer: &[&[u32]], reference: &[&[u32]]) -> Prf {
    let mut union = Vec::new();
    for reference_sentence in reference {
        for answer_sentence in answer {
            lcs_words(reference_sentence, answer_sentence, &mut union);
        }
    }
    union.sort_unstable();
    union.dedup();
    prf(
        union.len(),
        distinct_words(answer),
        distinct_words(reference),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bleu_smooths_and_penalises_short_answers() {
        assert_eq!(bleu(&[1, 2, 3], &[1, 2, 3], &[0.25; 4], true), 1.0);
        assert_eq!(bleu(&[], &[1], &[0.25; 4], true), 0.0);
        // "the cat" against "the cat sat on the mat", BLEU-1: p1 = 3/3, BP = exp(1 - 6/2).
        let value = bleu(&[1, 2], &[1, 2, 3, 4, 1, 5], &[1.0, 0.0, 0.0, 0.0], true);
        assert_eq!(value, (1.0f64 - 3.0).exp());
        // Smoothed, an unrelated answer still scores: (0 + 1) / (2 + 1), BP = 1 (c = r).
        assert_eq!(
            bleu(&[1, 2], &[3, 4], &[1.0], true),
            (1.0f64 / 3.0).ln().exp()
        );
    }

    #[test]
    fn bleu_without_smoothing_skips_the_empty_precisions() {
        // "a b" against "a c": p1 = 1/2, p2 = 0/1 (skipped with its weight).
        let value = bleu(&[1, 2], &[1, 3], &[0.33, 0.33, 0.33], false);
        assert_eq!(value, (0.33 * 0.5f64.ln()).exp());
        assert_eq!(bleu(&[1, 2], &[3, 4], &[0.5, 0.5], false), 0.0);
        let text = [1, 2, 3, 4];
        assert_eq!(bleu(&text, &text, &[1.0], false), 1.0);
        assert_eq!(bleu(&[1], &[1], &[0.25; 4], false), 1.0);
    }

    #[test]
    fn rouge_counts_distinct_ngrams_and_identical_texts_miss_one() {
        let text = [1, 2, 3];
        assert_eq!(rouge_n(&text, &text, 1).f, 2.0 * (1.0 / (2.0 + EPSILON)));
        let score = rouge_n(&[1, 2, 3], &[1, 2, 4], 2);
        assert_eq!((score.precision, score.recall), (0.5, 0.5));
        assert_eq!(rouge_n(&[], &[1], 1), prf(0, 0, 1));
    }

    #[test]
    fn rouge_5_counts_distinct_five_grams() {
        // The answer's six 5-grams are five distinct ones (1 2 3 4 5 twice), one of them the
        // reference's only 5-gram.
        let answer = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5];
        let score = rouge_n(&answer, &[1, 2, 3, 4, 5], 5);
        assert_eq!((score.precision, score.recall), (1.0 / 5.0, 1.0));
        assert_eq!(rouge_n(&[1, 2, 3, 4], &[1, 2, 3, 4], 5), prf(0, 0, 0));
    }

    #[test]
    fn rouge_l_unites_the_subsequences_of_every_pair_of_sentences() {
        let answer: [&[u32]; 2] = [&[1, 2], &[3]];
        let reference: [&[u32]; 1] = [&[1, 3, 2]];
        let score = rouge_l(&answer, &reference);
        assert_eq!((score.precision, score.recall), (1.0, 1.0));
    }
}
