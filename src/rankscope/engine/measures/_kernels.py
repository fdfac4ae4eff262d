"""Measure kernels: one float per query, computed over a whole `RankedBatch` at once.

Each kernel takes the batch, the measure (for its cutoff and parameters), the conventions and
the relevance level, and returns an array with one value per query. Notation in the formulas:
``rel_i`` is 1 when the document at rank i has grade >= the relevance level, ``g_i`` its grade,
``R`` the number of relevant judged documents of the query, ``k`` the cutoff.
"""

from __future__ import annotations

import numpy as np

from rankscope.engine.batch import FloatArray, IntArray, RankedBatch
from rankscope.engine.measures._names import Measure
from rankscope.engine.profiles import Conventions

__all__ = [
    "average_precision",
    "bpref",
    "interpolated_precision",
    "ndcg",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    "success",
]

# trec_eval's floor for geometric means (MIN_GEO_MEAN).
GEOMETRIC_MEAN_FLOOR = 1e-5


def _divide(numerator: np.ndarray, denominator: np.ndarray | int) -> FloatArray:
    """numerator / denominator, 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), numerator.shape)
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _int_cutoff(measure: Measure) -> int | None:
    return None if measure.cutoff is None else int(measure.cutoff)


def precision(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """P@k = (1/k) Σ_{i<=k} rel_i; without k, relevant retrieved / retrieved.

    trec_eval divides by k even when fewer than k documents were retrieved; the ``weknora``
    profile divides by the number retrieved.
    """
    cutoff = _int_cutoff(measure)
    hits = batch.num_relevant_retrieved(level, cutoff)
    if cutoff is None or conv.precision_denominator == "retrieved":
        denominator = batch.num_retrieved
        if cutoff is not None:
            denominator = np.minimum(denominator, cutoff)
        return _divide(hits, denominator)
    return hits / float(cutoff)


def recall(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """R@k = Σ_{i<=k} rel_i / R (0 when R = 0); without k, over the whole ranking."""
    hits = batch.num_relevant_retrieved(level, _int_cutoff(measure))
    return _divide(hits, batch.num_relevant(level))


def success(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Success@k = 1 if any of the first k documents is relevant, else 0."""
    hits = batch.num_relevant_retrieved(level, _int_cutoff(measure))
    return (hits > 0).astype(np.float64)


def reciprocal_rank(
    batch: RankedBatch, measure: Measure, conv: Conventions, level: int
) -> FloatArray:
    """RR@k = 1 / rank of the first relevant document (0 if none in the first k)."""
    first = batch.rows_at_least(level).first().within(_int_cutoff(measure))
    result = np.zeros(batch.num_queries, dtype=np.float64)
    result[first.queries] = 1.0 / (first.ranks + 1.0)
    return result


def average_precision(
    batch: RankedBatch, measure: Measure, conv: Conventions, level: int
) -> FloatArray:
    """AP@k = Σ_{i<=k, rel_i} P@i / R (trec_eval's map and map_cut).

    The ``weknora`` profile divides by the number of relevant documents retrieved instead of R.
    """
    relevant = batch.rows_at_least(level)
    precisions = relevant.count_so_far() / (relevant.ranks + 1.0)
    cutoff = _int_cutoff(measure)
    if cutoff is not None:
        keep = relevant.ranks < cutoff
        relevant, precisions = relevant.within(cutoff), precisions[keep]
    total = relevant.sum(precisions)
    if conv.ap_denominator == "relevant_retrieved":
        return _divide(total, relevant.count())
    return _divide(total, batch.num_relevant(level))


def r_precision(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Rprec = Σ_{i<=R} rel_i / R: precision at rank R, the number of relevant documents."""
    num_rel = batch.num_relevant(level)
    return _divide(batch.rows_at_least(level).within(num_rel).count(), num_rel)


def bpref(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)).

    ``n_r`` is the number of judged non-relevant documents ranked above r and N the number of
    judged non-relevant documents; a term is 1 when ``n_r`` is 0. Unjudged documents are
    skipped. Buckley & Voorhees, "Retrieval Evaluation with Incomplete Information", SIGIR 2004.
    """
    relevant = batch.rows_at_least(level)
    nonrelevant = batch.judged_nonrelevant_rows(level).positions
    query_start = batch.offsets[relevant.queries]
    nonrel_above = np.searchsorted(nonrelevant, relevant.positions) - np.searchsorted(
        nonrelevant, query_start
    )
    num_rel = batch.num_relevant(level)
    cap = np.minimum(batch.num_judged_nonrelevant(level), num_rel)[relevant.queries]
    penalty = _divide(np.minimum(nonrel_above, num_rel[relevant.queries]), cap)
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    return _divide(relevant.sum(terms), num_rel)


def _segment_suffix_max(values: FloatArray, segments: IntArray) -> FloatArray:
    """Max of values[i:] within i's segment, for every i (segments contiguous, ascending)."""
    result = values.copy()
    step = 1
    while step < result.size:
        same = segments[:-step] == segments[step:]
        if not same.any():
            break
        later = np.where(same, result[step:], -np.inf)
        result[:-step] = np.maximum(result[:-step], later)
        step *= 2
    return result


def interpolated_precision(
    batch: RankedBatch, measure: Measure, conv: Conventions, level: int
) -> FloatArray:
    """IPrec@r = max precision at any rank where recall >= r (trec_eval's iprec_at_recall).

    As trec_eval 10 does, the recall level becomes a number of relevant documents
    ``round(r * R)`` (halves away from zero; ``int(r * R + 0.9)`` under ``trec9``); levels
    beyond the relevant documents retrieved score 0.
    """
    relevant = batch.rows_at_least(level)
    precisions = relevant.count_so_far() / (relevant.ranks + 1.0)
    interpolated = _segment_suffix_max(precisions, relevant.queries)
    num_rel_ret = relevant.count()
    exact = float(measure.cutoff or 0.0) * batch.num_relevant(level)
    if conv.recall_level_rounding == "nearest":
        needed = np.floor(exact + 0.5).astype(np.int64)
    else:
        needed = (exact + 0.9).astype(np.int64)
    reachable = (num_rel_ret > 0) & (needed <= num_rel_ret)
    starts = np.concatenate(([0], np.cumsum(num_rel_ret)[:-1]))
    index = starts + np.maximum(needed, 1) - 1
    result = np.zeros(batch.num_queries, dtype=np.float64)
    result[reachable] = interpolated[index[reachable]]
    return result


def _gains(grades: IntArray, measure: Measure, conv: Conventions) -> FloatArray:
    """Gain of each grade: the grade (linear) or 2**grade - 1 (exp); 0 for grades <= 0."""
    gain = measure.param("gain") or conv.gain
    positive = np.maximum(grades, 0).astype(np.float64)
    if gain == "exp":
        return np.exp2(positive) - 1.0
    return positive


def ndcg(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i<=k} gain(g_i) / log2(i + 1); 0 when IDCG = 0.

    IDCG ranks the query's judged documents by grade (Järvelin & Kekäläinen, ACM TOIS 20(4),
    2002). Under the ``weknora`` profile the ideal ranking also has at most as many positions
    as documents were retrieved.
    """
    cutoff = _int_cutoff(measure)
    # Only documents with a positive grade have a gain.
    gaining = batch.rows_at_least(1).within(cutoff)
    gains = _gains(batch.grades[gaining.positions], measure, conv)
    dcg = gaining.sum(gains / np.log2(gaining.ranks + 2.0))

    # The ideal ranking: each query's judged grades, already sorted in descending order.
    judged_counts = np.diff(batch.judged_offsets)
    ideal_queries = np.repeat(np.arange(batch.num_queries), judged_counts)
    ideal_ranks = np.arange(batch.judged.size) - batch.judged_offsets[ideal_queries]
    limit = np.full(batch.num_queries, np.iinfo(np.int64).max, dtype=np.int64)
    if cutoff is not None:
        limit = np.minimum(limit, cutoff)
    if conv.ideal_ranking == "judged_capped_by_retrieved":
        limit = np.minimum(limit, batch.num_retrieved)
    keep = (ideal_ranks < limit[ideal_queries]) & (batch.judged > 0)
    ideal_gains = _gains(batch.judged[keep], measure, conv) / np.log2(ideal_ranks[keep] + 2.0)
    idcg = np.bincount(ideal_queries[keep], weights=ideal_gains, minlength=batch.num_queries)
    return _divide(dcg, idcg)


def num_ret(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Number of documents retrieved."""
    return batch.num_retrieved.astype(np.float64)


def num_rel(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Number of judged relevant documents (grade >= the relevance level)."""
    return batch.num_relevant(level).astype(np.float64)


def num_rel_ret(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Number of relevant documents retrieved."""
    return batch.num_relevant_retrieved(level).astype(np.float64)


def num_q(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """1 for every query; its aggregate is the number of queries evaluated."""
    return np.ones(batch.num_queries, dtype=np.float64)
