"""Measures the registry has as kernels (P@k, nDCG@k), written as a user writes them: what
the tests of `rankscope.measures.define` load, in Python and with ``--measures-from``."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankscope.measures import define


def precision(ranked: Any, judged: Any, *, k: int, rel: int) -> float:
    """Relevant documents among the first k, over k.

    Documents graded rel or more are relevant; k counts even when fewer were retrieved.
    """
    return float(np.count_nonzero(ranked[:k] >= rel)) / k


def precisions(
    ranked: Any, offsets: Any, judged: Any, judged_offsets: Any, *, k: int, rel: int
) -> Any:
    """P@k of every query at once, from cumulative counts of the relevant documents."""
    hits = np.concatenate(([0], np.cumsum(ranked >= rel)))
    starts = offsets[:-1]
    ends = np.minimum(offsets[1:], starts + k)
    return (hits[ends] - hits[starts]) / k


def ndcg(ranked: Any, judged: Any, *, k: int | None, rel: int, gain: str) -> float:
    """DCG over the ideal DCG of the judged grades, gain = grade (or 2^grade - 1), discount
    log2(rank + 1)."""
    top = np.maximum(ranked if k is None else ranked[:k], 0)
    ideal = np.maximum(judged if k is None else judged[:k], 0)
    if gain == "exp":
        top, ideal = np.exp2(top) - 1, np.exp2(ideal) - 1
    best = _dcg(ideal)
    return _dcg(top) / best if best > 0 else 0.0


def _dcg(gains: Any) -> float:
    total = 0.0
    for rank, value in enumerate(gains.tolist(), start=1):
        if value:
            total += value / np.log2(rank + 1)
    return total


define("UserP", precision, cutoff="required")
define("UserPVec", precisions, cutoff="required", vectorized=True)
define("UserNDCG", ndcg, params={"gain": ["linear", "exp"]})
