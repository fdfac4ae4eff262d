"""Measure kernels: one float per query, computed over a whole `RankedBatch` at once.

Each kernel takes the batch, the measure (for its cutoff and parameters), the conventions and
the relevance level, and returns an array with one value per query. Notation in the formulas:
``rel_i`` is 1 when the document at rank i has grade >= the relevance level, ``g_i`` its grade,
``R`` the number of relevant judged documents of the query, ``k`` the cutoff.
"""

from __future__ import annotations

import numpy as np

from rankscope.engine.batch import (
    BoolArray,
    FloatArray,
    IntArray,
    RankedBatch,
    segment_count,
    segment_first,
    segment_sum,
)
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


def _relevant_rows(batch: RankedBatch, level: int) -> tuple[IntArray, IntArray, IntArray]:
    """For each relevant retrieved document, in rank order: its query, its 0-based rank and how
    many relevant documents its query has up to and including it."""
    key = ("relevant_rows", level)
    if key not in batch._cache:
        rows = np.flatnonzero(batch.relevant(level))
        queries = batch.query_of_row[rows]
        per_query = np.bincount(queries, minlength=batch.num_queries)
        starts = np.concatenate(([0], np.cumsum(per_query)[:-1]))
        so_far = np.arange(1, rows.size + 1, dtype=np.int64) - np.repeat(starts, per_query)
        batch._cache[key] = np.stack([queries, batch.rank_index[rows], so_far])
    queries, ranks, so_far = batch._cache[key]
    return queries, ranks, so_far


def _log2_discounts(batch: RankedBatch) -> FloatArray:
    """log2(rank + 2) for 0-based ranks up to the longest ranking or ideal ranking."""
    longest = max(
        int(batch.num_retrieved.max(initial=0)),
        int(np.diff(batch.judged_offsets).max(initial=0)),
    )
    key = ("log2", longest)
    if key not in batch._cache:
        batch._cache[key] = np.log2(np.arange(2, longest + 2, dtype=np.float64))
    return batch._cache[key]


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
    first = segment_first(batch.relevant(level), batch.offsets)
    found = first >= 0
    cutoff = _int_cutoff(measure)
    if cutoff is not None:
        found &= first < cutoff
    return _divide(found, first + 1)


def average_precision(
    batch: RankedBatch, measure: Measure, conv: Conventions, level: int
) -> FloatArray:
    """AP@k = Σ_{i<=k, rel_i} P@i / R (trec_eval's map and map_cut).

    The ``weknora`` profile divides by the number of relevant documents retrieved instead of R.
    """
    queries, ranks, so_far = _relevant_rows(batch, level)
    precisions = so_far / (ranks + 1.0)
    cutoff = _int_cutoff(measure)
    if cutoff is not None:
        keep = ranks < cutoff
        queries, precisions = queries[keep], precisions[keep]
    per_query = np.bincount(queries, minlength=batch.num_queries)
    offsets = np.concatenate(([0], np.cumsum(per_query)))
    total = segment_sum(precisions, offsets)
    if conv.ap_denominator == "relevant_retrieved":
        return _divide(total, per_query)
    return _divide(total, batch.num_relevant(level))


def r_precision(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Rprec = Σ_{i<=R} rel_i / R: precision at rank R, the number of relevant documents."""
    num_rel = batch.num_relevant(level)
    in_top_r = batch.relevant(level) & (batch.rank_index < num_rel[batch.query_of_row])
    return _divide(segment_count(in_top_r, batch.offsets), num_rel)


def bpref(batch: RankedBatch, measure: Measure, conv: Conventions, level: int) -> FloatArray:
    """Bpref = (1/R) Σ_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)).

    ``n_r`` is the number of judged non-relevant documents ranked above r and N the number of
    judged non-relevant documents; a term is 1 when ``n_r`` is 0. Unjudged documents are
    skipped. Buckley & Voorhees, "Retrieval Evaluation with Incomplete Information", SIGIR 2004.
    """
    nonrelevant: BoolArray = (batch.grades >= 0) & (batch.grades < level)
    before = np.concatenate(([0], np.cumsum(nonrelevant, dtype=np.int64)))
    rows = np.flatnonzero(batch.relevant(level))
    queries = batch.query_of_row[rows]
    nonrel_above = before[rows] - before[batch.offsets[queries]]
    num_rel = batch.num_relevant(level)
    cap = np.minimum(batch.num_judged_nonrelevant(level), num_rel)[queries]
    penalty = _divide(np.minimum(nonrel_above, num_rel[queries]), cap)
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    per_query = np.bincount(queries, minlength=batch.num_queries)
    total = segment_sum(terms, np.concatenate(([0], np.cumsum(per_query))))
    return _divide(total, num_rel)


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
    queries, ranks, so_far = _relevant_rows(batch, level)
    interpolated = _segment_suffix_max(so_far / (ranks + 1.0), queries)
    num_rel_ret = batch.num_relevant_retrieved(level)
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
    log2 = _log2_discounts(batch)
    ranks = batch.rank_index
    gains = _gains(batch.grades, measure, conv) / log2[ranks]
    if cutoff is not None:
        gains = np.where(ranks < cutoff, gains, 0.0)
    dcg = segment_sum(gains, batch.offsets)

    judged_counts = np.diff(batch.judged_offsets)
    ideal_ranks = np.arange(batch.judged.size, dtype=np.int64) - np.repeat(
        batch.judged_offsets[:-1], judged_counts
    )
    limit = np.full(batch.num_queries, np.iinfo(np.int64).max, dtype=np.int64)
    if cutoff is not None:
        limit = np.minimum(limit, cutoff)
    if conv.ideal_ranking == "judged_capped_by_retrieved":
        limit = np.minimum(limit, batch.num_retrieved)
    in_ideal = ideal_ranks < np.repeat(limit, judged_counts)
    ideal_gains = np.where(in_ideal, _gains(batch.judged, measure, conv) / log2[ideal_ranks], 0.0)
    idcg = segment_sum(ideal_gains, batch.judged_offsets)
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
