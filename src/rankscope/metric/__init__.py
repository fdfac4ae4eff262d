"""WeKnora's metric API, in Python: ``NDCGMetric(k).compute(MetricInput(...))`` and siblings.

These reproduce WeKnora's evaluation metrics exactly (profile ``weknora``), including the ways
they depart from standard practice. They are thin wrappers over the same kernels that
`rankscope.evaluate` and `rankscope.evaluate_answers` run (the core's); each call builds a
one-query (or one-query-per-list, or one-answer) batch.

How WeKnora's metrics differ from trec_eval's, and why most users want ``profile="trec"``:

* **Binary relevance.** A document is relevant if it is in any ground-truth list; grades are not
  used. NDCG's gain is ``2**rel - 1``, so 1 for every relevant document.
* **The ideal ranking is capped by what was retrieved.** IDCG@k has
  ``min(countGt, len(ids[:k]))`` ones, where countGt counts every ground-truth entry, duplicates
  and all lists included. Returning fewer documents can therefore *raise* NDCG: with ground
  truth ``[[1, 2, 3]]``, returning only ``[1]`` scores 1.0, a perfect score.
* **Duplicates count every time.** Retrieving the same relevant document again adds gain again,
  so NDCG can exceed 1 (``[[1, 2]]`` and ids ``[1, 1, 1, 1]`` give 1.5706 at k = 10) and
  recall can exceed 1 (2.0 for that input).
* **No cut-off except NDCG's.** Precision, recall, MRR and MAP look at the whole list of ids,
  score each ground-truth list separately and average over the lists.
* **MAP divides by the hits.** Average precision is the sum of precision at each hit divided
  by the number of hits, not by the number of relevant documents, so a system that finds one
  relevant document out of ten at rank 1 gets AP = 1.0.

Departure from WeKnora: ``NDCGMetric(k)`` with ``k < 1`` raises `OptionError`, a ValueError
(WeKnora returns 0 for k = 0 and panics for negative k).

WeKnora's generation metrics (`BLEUMetric`, `RougeMetric`, `generation_metrics`) score the
generated answer (``generated_texts``) against the reference answer (``generated_gt``). Where they
depart from standard practice (the details are in `rankscope.answers._weknora`):

* **Every second sentence is dropped.** The sentence splitter cuts at ``.`` and ``。`` and keeps
  the 1st, 3rd, 5th, ... pieces only, so a difference in the 2nd sentence is never seen; a
  decimal point splits too.
* **Tokens.** jieba words for Han text; ASCII runs ``[a-zA-Z0-9_.,!?]`` (a trailing comma stays
  on its word); other punctuation one token each; non-ASCII letters (``é``) are dropped.
* **BLEU** lower-cases, smooths every n-gram precision by add-1 (so an unrelated answer still
  scores above 0, and so does any answer to an empty reference) and does not renormalize the
  weights when the answer is shorter than n tokens.
* **ROUGE** is case-sensitive (while BLEU is not: texts differing in letter case score BLEU 1 and
  ROUGE 0), counts distinct n-grams rather than n-gram occurrences, and its F carries a 1e-8 in
  the denominator (identical texts: 0.999999995). ROUGE-L is summary level, over the distinct
  words of the union of sentence-pair LCSs.

jieba's Python segmenter stands in for WeKnora's Go port (gojieba: the same dictionary and HMM
model, plus a small user dictionary). They agree on the sentences gojieba's and cppjieba's own
tests segment (tested), but not everywhere: cppjieba's tests expect 马克思主义/和/习总书记/... where
Python's jieba gives 马克思主义/和习/总书记/..., and characters outside U+4E00..U+9FD5 (CJK
extension A, 〇) are single tokens in Python's jieba. Scores on such text can differ slightly.

Examples
--------
WeKnora's documented example (its documentation guesses NDCG@10 ≈ 0.78; its code and the
formula give 0.885460):

>>> from rankscope.metric import MetricInput, NDCGMetric, retrieval_metrics
>>> ids = [1, 3, 5, 7, 8, 10, 12, 14, 16, 18]
>>> example = MetricInput(retrieval_gt=[[1, 5, 8]], retrieval_ids=ids)
>>> round(NDCGMetric(10).compute(example), 6)
0.88546
>>> retrieval_metrics(example).rounded(6)
RetrievalMetrics(precision=0.3, recall=1.0, ndcg3=0.703918, ndcg10=0.88546, mrr=1.0,
                 map=0.755556)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypeVar

from rankscope.answers._weknora import (
    BLEU_WEIGHTS,
    ROUGE_VARIANTS,
    bleu_spec,
    rouge_spec,
    weknora_bleu,
    weknora_rouge,
    weknora_scores,
)
from rankscope.engine import evaluate_query
from rankscope.engine.measures import Measure
from rankscope.engine.profiles import PROFILES
from rankscope.errors import OptionError

__all__ = [
    "BLEU1_GRAM",
    "BLEU2_GRAM",
    "BLEU3_GRAM",
    "BLEU4_GRAM",
    "BLEUMetric",
    "GenerationMetrics",
    "MAPMetric",
    "MRRMetric",
    "MetricInput",
    "NDCGMetric",
    "PrecisionMetric",
    "RecallMetric",
    "RetrievalMetrics",
    "RougeMetric",
    "generation_metrics",
    "retrieval_metrics",
]

_WEKNORA = PROFILES["weknora"]


@dataclass(frozen=True)
class MetricInput:
    """One question's retrieval result and ground truth, as WeKnora's ``types.MetricInput``.

    Attributes
    ----------
    retrieval_gt
        Ground-truth lists of relevant document ids (WeKnora's ``RetrievalGT [][]int``).
    retrieval_ids
        Retrieved document ids, best first (``RetrievalIDs []int``).
    generated_texts, generated_gt
        Generated answer and reference answer (``GeneratedTexts``, ``GeneratedGT``), for the
        generation metrics.
    """

    retrieval_gt: Sequence[Sequence[Hashable]] = ()
    retrieval_ids: Sequence[Hashable] = ()
    generated_texts: str = ""
    generated_gt: str = ""


def _scores(gt_lists: Sequence[Sequence[Hashable]], ids: Sequence[Hashable], m: Measure) -> float:
    """Value of ``m`` for each non-empty ground-truth list taken as one query, summed."""
    ranking = [(str(doc), 0.0) for doc in ids]
    total = 0.0
    for gt in gt_lists:
        if len(gt):
            total += evaluate_query([(str(doc), 1) for doc in gt], ranking, [m], _WEKNORA)[0]
    return total


def _per_list_mean(metric_input: MetricInput, m: Measure) -> float:
    """WeKnora's Precision, Recall, MRR and MAP: each ground-truth list scored, then averaged."""
    gt_lists, ids = metric_input.retrieval_gt, metric_input.retrieval_ids
    if not gt_lists or not ids or not any(len(gt) for gt in gt_lists):
        return 0.0
    return _scores(gt_lists, ids, m) / len(gt_lists)


class NDCGMetric:
    """NDCG@k with binary relevance, gain 2^rel - 1 and WeKnora's capped ideal ranking.

    ``DCG = Σ_{i<k} (2^rel_i - 1) / log2(i + 2)`` over ``ids[:k]``, rel_i = 1 if the id is in
    any ground-truth list; ``IDCG`` has ``min(countGt, len(ids[:k]))`` ones.

    Examples
    --------
    >>> NDCGMetric(10).compute(MetricInput([[1, 2, 3]], [1]))
    1.0
    >>> round(NDCGMetric(10).compute(MetricInput([[1, 2]], [1, 1, 1, 1])), 6)
    1.570642
    >>> NDCGMetric(0)
    Traceback (most recent call last):
    ...
    rankscope.errors.OptionError: The 'k' parameter of NDCGMetric must be an int in the range
    [1, inf). Got 0 instead.
    """

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise OptionError(
                "The 'k' parameter of NDCGMetric must be an int in the range [1, inf). "
                f"Got {k!r} instead."
            )
        self.k = k
        self._measure = Measure("nDCG", k)

    def compute(self, metric_input: MetricInput) -> float:
        """The NDCG@k of one question."""
        gt_lists, ids = metric_input.retrieval_gt, metric_input.retrieval_ids
        if not ids or not any(len(gt) for gt in gt_lists):
            return 0.0
        # One query holding every ground-truth entry: relevance is the union, and the ideal
        # ranking counts entries with their duplicates (countGt).
        return _scores([[doc for gt in gt_lists for doc in gt]], ids, self._measure)

    def __repr__(self) -> str:
        return f"NDCGMetric(k={self.k})"


class PrecisionMetric:
    """Hits / len(ids) per ground-truth list, averaged over the lists (duplicates count).

    Examples
    --------
    >>> PrecisionMetric().compute(MetricInput([[1, 5, 8]], [1, 3, 5, 7, 8, 10, 12, 14, 16, 18]))
    0.3
    """

    _measure = Measure("P")

    def compute(self, metric_input: MetricInput) -> float:
        """The precision of one question."""
        return _per_list_mean(metric_input, self._measure)


class RecallMetric:
    """Hits / |set(gt)| per ground-truth list, averaged; duplicates count, so it can exceed 1.

    Examples
    --------
    >>> RecallMetric().compute(MetricInput([[1, 2]], [1, 1, 1, 1]))
    2.0
    """

    _measure = Measure("R")

    def compute(self, metric_input: MetricInput) -> float:
        """The recall of one question."""
        return _per_list_mean(metric_input, self._measure)


class MRRMetric:
    """1 / rank of the first hit per ground-truth list, averaged over the lists.

    Examples
    --------
    >>> MRRMetric().compute(MetricInput([[3], [9]], [1, 3, 9]))
    0.41666666666666663
    """

    _measure = Measure("RR")

    def compute(self, metric_input: MetricInput) -> float:
        """The reciprocal rank of one question."""
        return _per_list_mean(metric_input, self._measure)


class MAPMetric:
    """Σ over hits of (hits so far / rank), divided by the number of hits, per list, averaged.

    Examples
    --------
    >>> round(MAPMetric().compute(MetricInput([[1, 2], [2, 3]], [2, 9, 1])), 6)
    0.916667
    """

    _measure = Measure("AP")

    def compute(self, metric_input: MetricInput) -> float:
        """The average precision of one question."""
        return _per_list_mean(metric_input, self._measure)


_Metrics = TypeVar("_Metrics", bound="_MetricFields")


class _MetricFields:
    """``rounded`` and ``as_dict`` for WeKnora's result structs (dataclasses of floats)."""

    def rounded(self: _Metrics, digits: int) -> _Metrics:
        """A copy with every value rounded to ``digits`` decimals."""
        values = {f.name: round(getattr(self, f.name), digits) for f in fields(self)}  # type: ignore[arg-type]
        return replace(self, **values)  # type: ignore[type-var]

    def as_dict(self) -> dict[str, float]:
        """``{field: value}``."""
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The fields' names, in WeKnora's order (``precision``, ``recall``, ...)."""
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]


@dataclass(frozen=True)
class RetrievalMetrics(_MetricFields):
    """WeKnora's ``RetrievalMetrics``: the six retrieval numbers of one question (or a mean)."""

    precision: float = 0.0
    recall: float = 0.0
    ndcg3: float = 0.0
    ndcg10: float = 0.0
    mrr: float = 0.0
    map: float = 0.0


def retrieval_metrics(metric_input: MetricInput) -> RetrievalMetrics:
    """Fill a `RetrievalMetrics` from one `MetricInput`, as WeKnora's EvaluationService does.

    Examples
    --------
    >>> retrieval_metrics(MetricInput([[1, 2], [2, 3]], [2, 9, 1])).rounded(6)
    RetrievalMetrics(precision=0.5, recall=0.75, ndcg3=0.703918, ndcg10=0.703918, mrr=1.0,
                     map=0.916667)
    >>> retrieval_metrics(MetricInput([], [1, 2]))
    RetrievalMetrics(precision=0.0, recall=0.0, ndcg3=0.0, ndcg10=0.0, mrr=0.0, map=0.0)
    """
    return RetrievalMetrics(
        precision=PrecisionMetric().compute(metric_input),
        recall=RecallMetric().compute(metric_input),
        ndcg3=NDCGMetric(3).compute(metric_input),
        ndcg10=NDCGMetric(10).compute(metric_input),
        mrr=MRRMetric().compute(metric_input),
        map=MAPMetric().compute(metric_input),
    )


BLEU1_GRAM = BLEU_WEIGHTS[1]
BLEU2_GRAM = BLEU_WEIGHTS[2]
BLEU3_GRAM = BLEU_WEIGHTS[3]
BLEU4_GRAM = BLEU_WEIGHTS[4]


class BLEUMetric:
    """WeKnora's ``BLEUMetric``: sentence BLEU over lower-cased tokens, add-1 smoothed.

    ``p_n = (clipped_n + s) / (total_n + s)`` with s = 1 when smoothing (0 otherwise), and
    ``BLEU = BP * exp(Σ w_n log p_n)`` over the n with ``p_n > 0``; ``BP = 1`` if the answer is
    longer than the reference, else ``exp(1 - r / c)``. Papineni et al., "BLEU: a method for
    automatic evaluation of machine translation", ACL 2002.

    Examples
    --------
    >>> BLEUMetric(True, BLEU4_GRAM).compute(MetricInput(generated_texts="Hello World",
    ...                                                 generated_gt="hello world"))
    1.0
    >>> BLEUMetric(True, BLEU1_GRAM).compute(MetricInput(generated_texts="",
    ...                                                 generated_gt="hello world"))
    0.0
    """

    def __init__(self, smoothing: bool = True, weights: Sequence[float] = BLEU4_GRAM) -> None:
        if not weights or len(weights) > 4:
            raise OptionError(f"BLEU weights are 1 to 4 numbers (n = 1..4); got {weights!r}")
        self.smoothing = smoothing
        self.weights = tuple(float(w) for w in weights)

    def compute(self, metric_input: MetricInput) -> float:
        """The BLEU of one question's generated answer."""
        return weknora_bleu(
            metric_input.generated_texts, metric_input.generated_gt, self.weights, self.smoothing
        )

    def __repr__(self) -> str:
        return f"BLEUMetric(smoothing={self.smoothing}, weights={list(self.weights)})"


class RougeMetric:
    """WeKnora's ``RougeMetric``: ``metric`` rouge-1 ... rouge-5 or rouge-l, ``stats`` f, p, r.

    ROUGE-N over distinct n-grams, case-sensitive; ROUGE-L at summary level. Lin, "ROUGE: a
    package for automatic evaluation of summaries", ACL Workshop 2004. ``exclusive`` is kept for
    WeKnora's signature; it changes no value (WeKnora reads only the number of distinct n-grams).

    Examples
    --------
    >>> RougeMetric(True, "rouge-1", "f").compute(MetricInput(generated_texts="Hello World",
    ...                                                      generated_gt="hello world"))
    0.0
    >>> RougeMetric(True, "rouge-l", "f").compute(MetricInput(generated_texts="A b. C d. E f.",
    ...                                                      generated_gt="A b. X y. E f."))
    0.999999995
    """

    def __init__(self, exclusive: bool = True, metric: str = "rouge-l", stats: str = "f") -> None:
        if metric not in ROUGE_VARIANTS:
            raise OptionError(
                f"unknown ROUGE metric {metric!r}; expected one of {', '.join(ROUGE_VARIANTS)}"
            )
        if stats not in ("f", "p", "r"):
            raise OptionError(f"ROUGE stats must be 'f', 'p' or 'r'; got {stats!r}")
        self.exclusive = exclusive
        self.metric = metric
        self.stats = stats

    def compute(self, metric_input: MetricInput) -> float:
        """The ROUGE statistic of one question's generated answer."""
        return weknora_rouge(
            metric_input.generated_texts, metric_input.generated_gt, self.metric, self.stats
        )

    def __repr__(self) -> str:
        return (
            f"RougeMetric(exclusive={self.exclusive}, metric={self.metric!r}, stats={self.stats!r})"
        )


_GENERATION = (
    bleu_spec(BLEU1_GRAM),
    bleu_spec(BLEU2_GRAM),
    bleu_spec(BLEU4_GRAM),
    rouge_spec("rouge-1"),
    rouge_spec("rouge-2"),
    rouge_spec("rouge-l"),
)
"""What `generation_metrics` computes, in `GenerationMetrics`' order: WeKnora's six calculators."""


@dataclass(frozen=True)
class GenerationMetrics(_MetricFields):
    """WeKnora's ``GenerationMetrics``: BLEU-1/2/4 and ROUGE-1/2/L F of one answer (or a mean)."""

    bleu1: float = 0.0
    bleu2: float = 0.0
    bleu4: float = 0.0
    rouge1: float = 0.0
    rouge2: float = 0.0
    rougel: float = 0.0


def generation_metrics(metric_input: MetricInput) -> GenerationMetrics:
    """Fill a `GenerationMetrics` from one `MetricInput`, as WeKnora's EvaluationService does.

    Examples
    --------
    Identical texts score 1 (ROUGE's F: 0.999999995); letter case matters to ROUGE only:

    >>> generation_metrics(MetricInput(generated_texts="The cat sat.",
    ...                                generated_gt="The cat sat.")).rounded(6)
    GenerationMetrics(bleu1=1.0, bleu2=1.0, bleu4=1.0, rouge1=1.0, rouge2=1.0, rougel=1.0)
    >>> generation_metrics(MetricInput(generated_texts="THE CAT SAT",
    ...                                generated_gt="the cat sat")).rounded(6)
    GenerationMetrics(bleu1=1.0, bleu2=1.0, bleu4=1.0, rouge1=0.0, rouge2=0.0, rougel=0.0)
    """
    values = weknora_scores(metric_input.generated_texts, metric_input.generated_gt, _GENERATION)
    return GenerationMetrics(*values)
