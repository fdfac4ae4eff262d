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

Then, computed by the core (``rankscope_core::answers::weknora``, `weknora_columns`) over the
sentences' words:

BLEU (``NewBLEUMetric(true, weights)``)
    Tokens lower-cased. Modified n-gram precision with add-1 smoothing,
    ``p_n = (clipped_n + 1) / (total_n + 1)`` (``NewBLEUMetric(false, ...)``:
    ``clipped_n / total_n``), for n = 1 up to the number of weights (0 when the answer has fewer
    than n tokens); ``BLEU = BP * exp(Σ w_n log p_n)`` over the non-zero ``p_n``, without
    renormalising the weights; ``BP = 1`` if the answer is longer than the reference, else
    ``exp(1 - r / c)``. An empty answer scores 0; an empty reference does not (every p_n is
    ``1 / (total_n + 1)`` and BP is 1). Weights: BLEU-1 (1, 0, 0, 0), BLEU-2 (.5, .5, 0, 0),
    BLEU-3 (.33, .33, .33, 0), BLEU-4 (.25, .25, .25, .25).
ROUGE-1, ROUGE-2 (``NewRougeMetric(true, "rouge-N", "f")``; ``rouge-3`` ... ``rouge-5`` too)
    Case-sensitive, over the *sets* of distinct n-grams of the whole text (n-grams run across
    sentence boundaries); WeKnora's ``exclusive`` flag changes nothing, because only the number
    of distinct keys is ever read. ``p = |H ∩ R| / |H|``, ``r = |H ∩ R| / |R|``,
    ``F = 2 p r / (p + r + 1e-8)``, so identical texts score 0.999999995, not 1.
ROUGE-L (``"rouge-l"``)
    Summary level, over distinct words: for every (reference sentence, answer sentence) pair one
    longest common subsequence is rebuilt (ties broken as WeKnora's backtracking does) and the
    union of the *words* of all of them, as a set, is the overlap; ``p`` and ``r`` divide it by
    the number of distinct words of the answer and of the reference; F as above. ``stats``
    ``p`` and ``r`` return those instead of F.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from rankscope.engine import native
from rankscope.errors import MissingDependencyError

__all__ = [
    "BLEU_WEIGHTS",
    "ROUGE_VARIANTS",
    "WeknoraSpec",
    "bleu_spec",
    "rouge_spec",
    "sentence_lines",
    "split_sentences",
    "split_words",
    "weknora_bleu",
    "weknora_columns",
    "weknora_rouge",
    "weknora_scores",
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


WeknoraSpec = tuple[str, list[float], str]
"""How the core's ``score_weknora_answers`` names a WeKnora measure: ``(kind, weights, option)``,
made by `bleu_spec` and `rouge_spec`."""


def bleu_spec(weights: Sequence[float], smoothing: bool = True) -> WeknoraSpec:
    """The core's name of ``NewBLEUMetric(smoothing, weights)`` (1 to 4 weights)."""
    return ("BLEU", [float(w) for w in weights], "smoothed" if smoothing else "unsmoothed")


def rouge_spec(variant: str, stat: str = "f") -> WeknoraSpec:
    """The core's name of ``NewRougeMetric(_, variant, stat)``: ``variant`` one of
    `ROUGE_VARIANTS`, ``stat`` ``f``, ``p`` or ``r``."""
    return (variant.upper(), [], stat)


def weknora_columns(
    pairs: Sequence[tuple[str, str]], specs: Sequence[WeknoraSpec]
) -> list[list[float]]:
    """The values of the WeKnora measures ``specs`` for each ``(answer, reference)`` pair, one
    column per measure: the sentences and words split here, the arithmetic done by the core
    (``rankscope_core::answers::weknora``), batch-wise."""
    answers = [sentence_lines(answer) for answer, _ in pairs]
    references = [sentence_lines(reference) for _, reference in pairs]
    return native.score_weknora_answers(answers, references, list(specs))


def weknora_scores(answer: str, reference: str, specs: Sequence[WeknoraSpec]) -> list[float]:
    """The value of each of ``specs`` for one answer against its reference.

    Examples
    --------
    >>> weknora_scores("The cat sat", "the cat sat", [bleu_spec(BLEU_WEIGHTS[4])])
    [1.0]
    >>> weknora_scores("a b c", "a b d", [rouge_spec("rouge-2", "p"), rouge_spec("rouge-1")])
    [0.5, 0.6666666616666668]
    """
    return [column[0] for column in weknora_columns([(answer, reference)], specs)]


def weknora_bleu(
    answer: str, reference: str, weights: Sequence[float], smoothing: bool = True
) -> float:
    """WeKnora's ``BLEUMetric.Compute``: sentence BLEU over lower-cased tokens, add-1 smoothed
    unless ``smoothing`` is False.

    Examples
    --------
    >>> weknora_bleu("The cat sat", "the cat sat", BLEU_WEIGHTS[4])
    1.0
    >>> round(weknora_bleu("the cat", "the cat sat on the mat", BLEU_WEIGHTS[1]), 6)
    0.135335
    """
    return weknora_scores(answer, reference, [bleu_spec(weights, smoothing)])[0]


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
    return weknora_scores(answer, reference, [rouge_spec(variant, stat)])[0]
