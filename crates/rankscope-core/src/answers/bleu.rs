//! Sentence BLEU as sacrebleu's `BLEU(effective_order=True).sentence_score` computes it with its
//! default `exp` smoothing, over interned tokens.
//!
//! Per order n = 1..N: the answer's n-grams (`total`), and how many of them a reference holds,
//! each n-gram's count clipped by its highest count in any one reference (`correct`). The
//! brevity penalty takes the reference length closest to the answer's (the shorter one on a
//! tie): `exp(1 - r / c)` when the answer is shorter, 0 for an empty answer, else 1. No match
//! at any order scores 0. Otherwise the orders up to the last with `total > 0` count
//! (effective order); a precision is `100 correct / total`, or, where `correct` is 0,
//! `100 / (2^k total)` for the k-th such order (mteval's smoothing); BLEU is the brevity penalty
//! times the geometric mean of the precisions, divided by 100 here (0-1). The arithmetic is
//! sacrebleu's, operation for operation, so the values agree to the last bit.

use super::ngrams::{count, runs, sorted_keys};

/// sacrebleu's `_get_closest_ref_len`: the reference length nearest `answer`, the smaller on a
/// tie (`None` without references).
fn closest_length(answer: usize, references: &[&[u32]]) -> Option<usize> {
    references
        .iter()
        .map(|r| r.len())
        .min_by_key(|&length| (length.abs_diff(answer), length))
}

/// Sentence BLEU (0-1) of `answer` against `references` up to n-grams of `max_order` (1-4);
/// 0 without references.
pub fn sentence_bleu(answer: &[u32], references: &[&[u32]], max_order: usize) -> f64 {
    let Some(reference_length) = closest_length(answer.len(), references) else {
        return 0.0;
    };
    let mut correct = [0u64; super::ngrams::MAX_ORDER];
    let mut total = [0u64; super::ngrams::MAX_ORDER];
    for n in 1..=max_order {
        let keys = sorted_keys(answer, n);
        total[n - 1] = keys.len() as u64;
        let reference_keys: Vec<Vec<u128>> = references.iter().map(|r| sorted_keys(r, n)).collect();
        for (key, answer_count) in runs(&keys) {
            let most = reference_keys
                .iter()
                .map(|r| count(r, key))
                .max()
                .unwrap_or(0);
            correct[n - 1] += u64::from(answer_count.min(most));
        }
    }
    let (c, r) = (answer.len(), reference_length);
    let brevity = if c < r {
        if c > 0 {
            (1.0 - r as f64 / c as f64).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    if correct[..max_order].iter().all(|&k| k == 0) {
        return 0.0;
    }
    let mut smooth = 1.0f64;
    let mut precisions = [0.0f64; super::ngrams::MAX_ORDER];
    let mut order = max_order;
    for n in 1..=max_order {
        if total[n - 1] == 0 {
            break;
        }
        order = n;
        precisions[n - 1] = if correct[n - 1] == 0 {
            smooth *= 2.0;
            100.0 / (smooth * total[n - 1] as f64)
        } else {
            100.0 * correct[n - 1] as f64 / total[n - 1] as f64
        };
    }
    let sum = precisions[..order].iter().fold(0.0f64, |sum, &p| {
        sum + if p == 0.0 { -9_999_999_999.0 } else { p.ln() }
    });
    brevity * (sum / order as f64).exp() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one_as_sacrebleu_rounds_it() {
        // sacrebleu.sentence_bleu("a b c d e", ["a b c d e"]).score / 100: exp(log(100)) is
        // 100.00000000000004.
        let text = [1, 2, 3, 4, 5];
        assert_eq!(sentence_bleu(&text, &[&text], 4), 1.000_000_000_000_000_4);
    }

    #[test]
    fn no_match_scores_zero_and_no_reference_too() {
        assert_eq!(sentence_bleu(&[1, 2], &[&[3, 4]], 4), 0.0);
        assert_eq!(sentence_bleu(&[1, 2], &[], 4), 0.0);
        assert_eq!(sentence_bleu(&[], &[&[1]], 4), 0.0);
    }

    #[test]
    fn smoothing_and_effective_order_as_sacrebleu() {
        // sacrebleu.sentence_bleu("a b c", ["a b d"]).score / 100: p1 = 2/3, p2 = 1/2,
        // p3 = 1/(2 * 1) (smoothed), effective order 3.
        let expected = ((200.0f64 / 3.0).ln() + 50.0f64.ln() + 50.0f64.ln()) / 3.0;
        let value = sentence_bleu(&[1, 2, 3], &[&[1, 2, 4]], 4);
        assert!((value - expected.exp() / 100.0).abs() < 1e-15, "{value}");
    }

    #[test]
    fn the_closest_reference_sets_the_brevity_penalty() {
        assert_eq!(closest_length(3, &[&[1; 5], &[1; 1]]), Some(1));
        assert_eq!(closest_length(3, &[&[1; 4], &[1; 2]]), Some(2));
        assert_eq!(closest_length(3, &[&[1; 2], &[1; 4]]), Some(2));
    }
}
