"""WeKnora's generation metrics (``internal/application/service/metric``), reproduced exactly.

WeKnora scores a generated answer against one reference answer with BLEU-1/2/4 and
ROUGE-1/2/L. Both start from the same two steps, which carry most of its departures from
standard practice:

``split_sentences``
    Splits at every ``.`` and ``。`` and keeps only the 1st, 3rd, 5th, ... pieces: Go's
    ``regexp.Split`` drops the separators, but the loop that follows expects them at the odd
    positions and discards what it finds there. Every second sentence is never scored, and a
    decimal point (``3.14``) splits a sentence too.
``split_words``
    Runs of Han characters are segmented by jieba (precise mode, HMM on); runs of
    ``[a-zA-Z0-9_.,!?]`` are one token each (so ``"world,"`` keeps its comma); any other
    punctuation character is a token of its own; everything else (spaces, symbols such as
    ``$``, letters outside ASCII such as ``é``) is dropped.

Then:

BLEU (``NewBLEUMetric(true, weights)``)
    Tokens lower-cased. Modified n-gram precision with add-1 smoothing,
    ``p_n = (clipped_n + 1) / (total_n + 1)``, for n = 1..4 (0 when the answer has fewer
    than n tokens); ``BLEU = BP * exp(Σ w_n log p_n)`` over the non-zero ``p_n``, without
    renormalising the weights; ``BP = 1`` if the answer is longer than the reference, else
    ``exp(1 - r / c)``. An empty answer scores 0; an empty reference does not (every p_n is
    ``1 / (total_n + 1)`` and BP is 1). Weights: BLEU-1 (1, 0, 0, 0), BLEU-2 (.5, .5, 0, 0),
    BLEU-3 (.33, .33, .33, 0), BLEU-4 (.25, .25, .25, .25).
ROUGE-1, ROUGE-2 (``NewRougeMetric(true, "rouge-N", "f")``)
    Case-sensitive, over the *sets* of distinct n-grams of the whole text (n-grams run across
    sentence boundaries); WeKnora's ``exclusive`` flag changes nothing, because only the number
    of distinct keys is ever read. ``p = |H ∩ R| / |H|``, ``r = |H ∩ R| / |R|``,
    ``F = 2 p r / (p + r + 1e-8)``, so identical texts score 0.999999995, not 1.
ROUGE-L (``"rouge-l"``)
    Summary level, over distinct words: for every (reference sentence, answer sentence) pair one
    longest common subsequence is rebuilt (ties broken as WeKnora's backtracking does) and the
    union of the *words* of all of them, as a set, is the overlap; ``p`` and ``r`` divide it by
    the number of distinct words of the answer and of the reference; F as above.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from rankscope.errors import MissingDependencyError

__all__ = [
    "BLEU_WEIGHTS",
    "ROUGE_VARIANTS",
    "sentence_lines",
    "split_sentences",
    "split_words",
    "weknora_bleu",
    "weknora_rouge",
]

BLEU_WEIGHTS: dict[int, tuple[float, ...]] = {
    1: (1.0, 0.0, 0.0, 0.0),
    2: (0.5, 0.5, 0.0, 0.0),
    3: (0.33, 0.33, 0.33, 0.0),
    4: (0.25, 0.25, 0.25, 0.25),
}
"""WeKnora's ``BLEU1Gram`` ... ``BLEU4Gram`` (BLEU-3's weights are 0.33, not 1/3)."""

ROUGE_VARIANTS = ("rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-5", "rouge-l")
"""The metric names WeKnora's ``RougeMetric`` accepts."""

_SENTENCE_END = re.compile("[。.]")
# Go's unicode.IsSpace, which strings.TrimSpace uses (Python's str.isspace also takes
# U+001C..U+001F).
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)
_ROUGE_EPSILON = 1e-8


def split_sentences(text: str) -> list[str]:
    """WeKnora's ``splitSentences``: the 1st, 3rd, 5th, ... pieces between ``.`` and ``。``.

    Examples
    --------
    >>> split_sentences("One. Two. Three.")
    ['One', 'Three']
    >>> split_sentences("Pi is 3.14 exactly")
    ['Pi is 3']
    >>> split_sentences("第一句。第二句。第三句")
    ['第一句', '第三句']
    """
    sentences = []
    current = ""
    for position, piece in enumerate(_SENTENCE_END.split(text)):
        if position % 2 == 0:
            current += piece
        elif current:
            if sentence := current.strip(_GO_SPACE):
                sentences.append(sentence)
            current = ""
    if remaining := current.strip(_GO_SPACE):
        sentences.append(remaining)
    return sentences


@cache
def _word_pattern() -> Any:
    """WeKnora's word pattern; Python's ``re`` has no ``\\p{Han}``, the ``regex`` package has."""
    try:
        import regex
    except ImportError:
        raise MissingDependencyError("regex", "WeKnora's text metrics", "answers") from None
    return regex.compile(r"(\p{Han}+)|([a-zA-Z0-9_.,!?]+)|(\p{P})")


@cache
def _jieba() -> Any:
    """A jieba tokenizer with its default dictionary (loaded once, quietly)."""
    try:
        import jieba
    except ImportError:
        raise MissingDependencyError("jieba", "WeKnora's text metrics", "answers") from None
    logging.getLogger("jieba").setLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def split_words(sentences: Sequence[str]) -> list[str]:
    """WeKnora's ``splitIntoWords``: jieba words, ASCII word runs and punctuation marks.

    Examples
    --------
    >>> split_words(["Hello, world! It's café-time"])
    ['Hello,', 'world!', 'It', "'", 's', 'caf', '-', 'time']
    >>> split_words(["我爱北京天安门，好！"])
    ['我', '爱', '北京', '天安门', '，', '好', '！']
    """
    return [token for sentence in sentences for token in _sentence_words(sentence)]


@lru_cache(maxsize=8192)
def _sentence_words(sentence: str) -> tuple[str, ...]:
    """The words of one sentence (memoized: every metric splits the same sentences again)."""
    tokens: list[str] = []
    for match in _word_pattern().finditer(sentence):
        han, ascii_run, punctuation = match.groups()
        if han:
            tokens.extend(_jieba().cut(han, HMM=True))
        else:
            tokens.append(ascii_run or punctuation)
    return tuple(tokens)


def sentence_lines(text: str) -> list[str]:
    """The sentences of ``text`` as `split_sentences` cuts them, each its `split_words` joined by
    spaces: what the core's WeKnora kernels read (no word holds a space).

    Examples
    --------
    >>> sentence_lines("Hello, world! Bye. Skipped. 我爱北京")
    ['Hello, world! Bye', '我 爱 北京']
    """
    return [_sentence_line(sentence) for sentence in split_sentences(text)]


@lru_cache(maxsize=8192)
def _sentence_line(sentence: str) -> str:
    return " ".join(_sentence_words(sentence))


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _modified_precision(
    candidate: Sequence[str], reference: Sequence[str], n: int, smoothing: bool
) -> float:
    counts = Counter(_ngrams(candidate, n))
    if not counts:
        return 0.0
    reference_counts = Counter(_ngrams(reference, n))
    clipped = sum(min(count, reference_counts[gram]) for gram, count in counts.items())
    add = 1.0 if smoothing else 0.0
    return (clipped + add) / (sum(counts.values()) + add)


def weknora_bleu(
    answer: str, reference: str, weights: Sequence[float], smoothing: bool = True
) -> float:
    """WeKnora's ``BLEUMetric.Compute``: smoothed sentence BLEU over lower-cased tokens.

    Examples
    --------
    >>> weknora_bleu("The cat sat", "the cat sat", BLEU_WEIGHTS[4])
    1.0
    >>> round(weknora_bleu("the cat", "the cat sat on the mat", BLEU_WEIGHTS[1]), 6)
    0.135335
    """
    candidate = [token.lower() for token in split_words(split_sentences(answer))]
    reference_tokens = [token.lower() for token in split_words(split_sentences(reference))]
    total = 0.0
    nonzero = 0
    for n, weight in enumerate(weights, start=1):
        precision = _modified_precision(candidate, reference_tokens, n, smoothing)
        if precision > 0.0:
            nonzero += 1
            total += weight * math.log(precision)
    if nonzero == 0:
        return 0.0
    c, r = len(candidate), len(reference_tokens)
    brevity = 1.0 if c > r else math.exp(1 - r / c)
    return brevity * math.exp(total)


def _rouge_f(overlap: int, answer_count: int, reference_count: int) -> dict[str, float]:
    p = overlap / answer_count if answer_count else 0.0
    r = overlap / reference_count if reference_count else 0.0
    return {"p": p, "r": r, "f": 2.0 * ((p * r) / (p + r + _ROUGE_EPSILON))}


def _rouge_n(answer: list[str], reference: list[str], n: int) -> dict[str, float]:
    answer_grams = set(_ngrams(split_words(answer), n))
    reference_grams = set(_ngrams(split_words(reference), n))
    return _rouge_f(len(answer_grams & reference_grams), len(answer_grams), len(reference_grams))


def _lcs_words(x: Sequence[str], y: Sequence[str]) -> set[str]:
    """The words of the longest common subsequence that WeKnora's ``reconLcs`` rebuilds."""
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


def _rouge_l(answer: list[str], reference: list[str]) -> dict[str, float]:
    answer_sentences = [split_words([sentence]) for sentence in answer]
    union: set[str] = set()
    for reference_sentence in reference:
        reference_words = split_words([reference_sentence])
        for answer_words in answer_sentences:
            union |= _lcs_words(reference_words, answer_words)
    distinct_answer = len(set(split_words(answer)))
    distinct_reference = len(set(split_words(reference)))
    return _rouge_f(len(union), distinct_answer, distinct_reference)


def weknora_rouge(answer: str, reference: str, variant: str, stat: str = "f") -> float:
    """WeKnora's ``RougeMetric.Compute``: ``variant`` is ``rouge-1`` ... ``rouge-5`` or
    ``rouge-l``, ``stat`` is ``f``, ``p`` or ``r``.

    Examples
    --------
    >>> weknora_rouge("Hello World", "hello world", "rouge-1")
    0.0
    >>> weknora_rouge("a b c", "a b d", "rouge-2", "p")
    0.5
    """
    answer_sentences = split_sentences(answer)
    reference_sentences = split_sentences(reference)
    if variant == "rouge-l":
        scores = _rouge_l(answer_sentences, reference_sentences)
    else:
        scores = _rouge_n(
            answer_sentences, reference_sentences, int(variant.removeprefix("rouge-"))
        )
    return scores[stat]
