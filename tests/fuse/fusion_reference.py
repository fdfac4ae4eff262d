"""ranx as the reference for fusion, fed the rankings rankscope documents.

ranx sorts runs with NumPy's unstable quicksort, so its order of tied documents is arbitrary
(and, after the ``borda`` normalisation, follows a Python set's iteration order). To compare
the arithmetic, the reference gives ranx's fusion functions the rankings rankscope works on:

* runs in rankscope's order (score descending, ties by document id descending), built as ranx
  typed dicts without re-sorting, every query present (an empty ranking where a run lacks it);
* normalised with ranx's own normalisation functions, then, for ``min-max-inverted`` and
  ``borda`` (which change the order), put in the same order by their normalised scores;
* fused with ranx's own fusion (and training) functions.

ranx's fused output is then compared as documents and scores per query, and its order up to
ties (its tie order being arbitrary); rankscope's own tie order is checked separately.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ranx
from numba import types
from numba.typed import Dict as TypedDict
from ranx.fusion import fusion_switch
from ranx.normalization import norm_switch

Scores = dict[str, dict[str, float]]

REORDERING_NORMS = {"min-max-inverted", "borda"}


def trec_order(results: Mapping[str, float]) -> list[tuple[str, float]]:
    """Score descending, ties by document id descending (Python compares str by code point,
    which is UTF-8 byte order)."""
    return sorted(results.items(), key=lambda item: (item[1], item[0]), reverse=True)


def _typed(rankings: Mapping[str, list[tuple[str, float]]]) -> ranx.Run:
    """A ranx Run holding ``rankings`` (query -> (doc, score) in rank order), not re-sorted."""
    result = ranx.Run()
    for query_id, ranking in rankings.items():
        inner = TypedDict.empty(key_type=types.unicode_type, value_type=types.float64)
        for doc_id, score in ranking:
            inner[doc_id] = score
        result.run[query_id] = inner
    result.sorted = True
    return result


def ranx_run(run: Mapping[str, Mapping[str, float]], query_ids: list[str]) -> ranx.Run:
    """A ranx Run of ``run`` in rankscope's order, every query present (sorted)."""
    return _typed({q: trec_order(run.get(q, {})) for q in query_ids})


def to_python(run: ranx.Run) -> dict[str, list[tuple[str, float]]]:
    """Per query, ranx's (document, score) pairs in ranx's order (empty queries left out)."""
    return {q: list(docs.items()) for q, docs in run.run.items() if len(docs) > 0}


def normalized(runs: list[Scores], norm: str | None, query_ids: list[str]) -> list[ranx.Run]:
    """ranx's normalisation of the runs, in rankscope's rankings.

    Normalising an empty ranking changes nothing: ranx is given each run's non-empty queries
    only (its ``zmuv`` divides 0 by 0 on an empty one, which stops its parallel loop), except
    for ``borda``, which needs every run to hold every query.
    """
    if norm is None:
        return [ranx_run(run, query_ids) for run in runs]
    if norm == "borda":
        result = norm_switch(norm)([ranx_run(run, query_ids) for run in runs])
    else:
        result = [norm_switch(norm)(ranx_run(run, sorted(run))) for run in runs]
    scores = [{q: list(r.run[q].items()) if q in r.run else [] for q in query_ids} for r in result]
    if norm in REORDERING_NORMS:
        return [
            ranx_run({q: dict(ranking) for q, ranking in run.items()}, query_ids) for run in scores
        ]
    # The other normalisations keep each ranking's order.
    return [_typed(run) for run in scores]


def ranx_fuse(
    runs: list[Scores], method: str, norm: str | None, params: Mapping[str, Any]
) -> dict[str, list[tuple[str, float]]]:
    """ranx's fusion of ``runs`` (over the union of their queries)."""
    query_ids = sorted({q for run in runs for q in run})
    return to_python(fusion_switch(method)(normalized(runs, norm, query_ids), **params))


def ranx_qrels(qrels: Mapping[str, Mapping[str, int]]) -> ranx.Qrels:
    return ranx.Qrels({q: dict(docs) for q, docs in sorted(qrels.items())})


def assert_same_fusion(
    ours: dict[str, list[tuple[str, float]]],
    theirs: dict[str, list[tuple[str, float]]],
    tolerance: float = 1e-9,
) -> None:
    """Same queries, same documents with the same scores, the same order up to ties, and
    rankscope's tie order (score descending, document id descending)."""
    assert ours.keys() == theirs.keys()
    for query_id, ranking in ours.items():
        expected = theirs[query_id]
        assert len(ranking) == len(expected), query_id
        assert ranking == trec_order(dict(ranking)), f"{query_id}: not in the trec order"
        their_scores = dict(expected)
        assert {doc for doc, _ in ranking} == their_scores.keys(), query_id
        for doc_id, score in ranking:
            assert abs(score - their_scores[doc_id]) <= tolerance, (query_id, doc_id)
        # Order up to ties: both lists cut into runs of scores within the tolerance hold
        # the same documents at the same positions.
        start = 0
        for end in range(1, len(expected) + 1):
            if end == len(expected) or expected[end - 1][1] - expected[end][1] > tolerance:
                our_block = {doc for doc, _ in ranking[start:end]}
                their_block = {doc for doc, _ in expected[start:end]}
                assert our_block == their_block, (query_id, start, end)
                start = end
