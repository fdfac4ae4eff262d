"""The core's WeKnora kernels equal WeKnora's arithmetic as written out below in Python, to the
last bit: BLEU smoothed or not with any 1-4 weights, ROUGE-1 ... ROUGE-5 and ROUGE-L with each
of their statistics, through `rankscope.metric`'s classes and `evaluate_answers`' profile
``weknora``.

The reference implementation here follows WeKnora's Go code (``bleu.go``, ``rouge.go``,
``rouge_score.go`` of ``internal/application/service/metric``) line by line, over the sentences
and words of `rankscope.answers._weknora` (the splitting is not what is under test here:
``test_weknora_generation`` checks it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.answers._weknora import (
    BLEU_WEIGHTS,
    ROUGE_VARIANTS,
    split_sentences,
    split_words,
)
from rankscope.metric import BLEUMetric, MetricInput, RougeMetric, generation_metrics

EPSILON = 1e-8


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def modified_precision(
    candidate: Sequence[str], reference: Sequence[str], n: int, smoothing: bool
) -> float:
    counts = Counter(ngrams(candidate, n))
    if not counts:
        return 0.0
    reference_counts = Counter(ngrams(reference, n))
    clipped = sum(min(count, reference_counts[gram]) for gram, count in counts.items())
    add = 1.0 if smoothing else 0.0
    return (clipped + add) / (sum(counts.values()) + add)


def oracle_bleu(answer: str, reference: str, weights: Sequence[float], smoothing: bool) -> float:
    candidate = [token.lower() for token in split_words(split_sentences(answer))]
    reference_tokens = [token.lower() for token in split_words(split_sentences(reference))]
    total = 0.0
    nonzero = 0
    for n, weight in enumerate(weights, start=1):
        precision = modified_precision(candidate, reference_tokens, n, smoothing)
        if precision > 0.0:
            nonzero += 1
            total += weight * math.log(precision)
    if nonzero == 0:
        return 0.0
    c, r = len(candidate), len(reference_tokens)
    brevity = 1.0 if c > r else math.exp(1 - r / c)
    return brevity * math.exp(total)


def rouge_prf(overlap: int, answer_count: int, reference_count: int) -> dict[str, float]:
    p = overlap / answer_count if answer_count else 0.0
    r = overlap / reference_count if reference_count else 0.0
    return {"p": p, "r": r, "f": 2.0 * ((p * r) / (p + r + EPSILON))}


def rouge_n(answer: list[str], reference: list[str], n: int) -> dict[str, float]:
    answer_grams = set(ngrams(split_words(answer), n))
    reference_grams = set(ngrams(split_words(reference), n))
    return rouge_prf(len(answer_grams & reference_grams), len(answer_grams), len(reference_grams))


def lcs_words(x: Sequence[str], y: Sequence[str]) -> set[str]:
    table = [[0] * (len(y) + 1) for _ in range(len(x) + 1)]
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            if x[i - 1] == y[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    words: set[str] = set()
    i, j = len(x), len(y)
    while i > 0 and j > 0:
        if x[i - 1] == y[j - 1]:
            words.add(x[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return words


def rouge_l(answer: list[str], reference: list[str]) -> dict[str, float]:
    answer_sentences = [split_words([sentence]) for sentence in answer]
    union: set[str] = set()
    for reference_sentence in reference:
        reference_words = split_words([reference_sentence])
        for answer_words in answer_sentences:
            union |= lcs_words(reference_words, answer_words)
    return rouge_prf(len(union), len(set(split_words(answer))), len(set(split_words(reference))))


def oracle_rouge(answer: str, reference: str, variant: str, stat: str) -> float:
    answer_sentences, reference_sentences = split_sentences(answer), split_sentences(reference)
    if variant == "rouge-l":
        return rouge_l(answer_sentences, reference_sentences)[stat]
    n = int(variant.removeprefix("rouge-"))
    return rouge_n(answer_sentences, reference_sentences, n)[stat]


# Texts: few distinct words, so long n-grams match (ROUGE-5, BLEU's 4-grams); letter case,
# punctuation, Chinese, dropped sentences and empty texts.
PIECES = [
    "The", "the", "cat", "sat.", "on", "mat", "3.14", "Hello,", "world!", "café", "我爱",
    "北京天安门", "。", "，", "！", "$", "-", " ", ". ", "计算机的操作系统", "(", ")",
]  # fmt: skip
WORDS = ["a", "b", "A", "c", "a b", "北京", "，", "."]
pieces_text = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
words_text = st.lists(st.sampled_from(WORDS), max_size=24).map(" ".join)
texts = st.one_of(pieces_text, words_text)
weights = st.one_of(
    st.sampled_from(sorted(BLEU_WEIGHTS.values())),
    st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=1, max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(answer=texts, reference=texts, weights=weights, smoothing=st.booleans())
def test_bleu_metric_equals_the_oracle(
    answer: str, reference: str, weights: list[float], smoothing: bool
) -> None:
    example = MetricInput(generated_texts=answer, generated_gt=reference)
    expected = oracle_bleu(answer, reference, weights, smoothing)
    assert BLEUMetric(smoothing, weights).compute(example) == expected


@settings(max_examples=300, deadline=None)
@given(
    answer=texts,
    reference=texts,
    variant=st.sampled_from(ROUGE_VARIANTS),
    stat=st.sampled_from(["f", "p", "r"]),
    exclusive=st.booleans(),
)
def test_rouge_metric_equals_the_oracle(
    answer: str, reference: str, variant: str, stat: str, exclusive: bool
) -> None:
    example = MetricInput(generated_texts=answer, generated_gt=reference)
    expected = oracle_rouge(answer, reference, variant, stat)
    assert RougeMetric(exclusive, variant, stat).compute(example) == expected


def oracle_six(answer: str, reference: str) -> dict[str, float]:
    """WeKnora's EvaluationService's six generation numbers, by the oracle."""
    bleu = {n: oracle_bleu(answer, reference, BLEU_WEIGHTS[n], True) for n in (1, 2, 4)}
    rouge = {v: oracle_rouge(answer, reference, f"rouge-{v}", "f") for v in ("1", "2", "l")}
    return {
        "bleu1": bleu[1],
        "bleu2": bleu[2],
        "bleu4": bleu[4],
        "rouge1": rouge["1"],
        "rouge2": rouge["2"],
        "rougel": rouge["l"],
    }


@settings(max_examples=200, deadline=None)
@given(answer=texts, reference=texts)
def test_generation_metrics_equal_the_oracle(answer: str, reference: str) -> None:
    example = MetricInput(generated_texts=answer, generated_gt=reference)
    assert generation_metrics(example).as_dict() == oracle_six(answer, reference)


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(texts, texts), min_size=1, max_size=5))
def test_the_weknora_profile_equals_the_oracle(pairs: list[tuple[str, str]]) -> None:
    references = {f"q{i}": reference for i, (_, reference) in enumerate(pairs)}
    answers = {f"q{i}": answer for i, (answer, _) in enumerate(pairs)}
    per_query = rankscope.evaluate_answers(references, answers, profile="weknora").to_dict()
    for i, (answer, reference) in enumerate(pairs):
        six = oracle_six(answer, reference)
        assert per_query[f"q{i}"] == {
            "BLEU(n=1)": six["bleu1"],
            "BLEU(n=2)": six["bleu2"],
            "BLEU(n=4)": six["bleu4"],
            "ROUGE-1": six["rouge1"],
            "ROUGE-2": six["rouge2"],
            "ROUGE-L": six["rougel"],
        }


def test_rouge_5_and_unsmoothed_bleu_worked_by_hand() -> None:
    # Answer words a b c d e a b c d e: six 5-grams, five distinct; the reference's one 5-gram
    # is among them. Unsmoothed BLEU-4 of "a b c" against "a b d": p = 2/3, 1/2, 0 (skipped),
    # and no 4-gram; BP = exp(1 - 3/3) = 1.
    example = MetricInput(generated_texts="a b c d e a b c d e", generated_gt="a b c d e")
    assert RougeMetric(True, "rouge-5", "p").compute(example) == 1 / 5
    assert RougeMetric(True, "rouge-5", "r").compute(example) == 1.0
    assert oracle_rouge("a b c d e a b c d e", "a b c d e", "rouge-5", "p") == 1 / 5
    other = MetricInput(generated_texts="a b c", generated_gt="a b d")
    expected = math.exp(0.25 * math.log(2 / 3) + 0.25 * math.log(1 / 2))
    assert BLEUMetric(False, BLEU_WEIGHTS[4]).compute(other) == expected
