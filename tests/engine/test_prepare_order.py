"""`prepare` puts every query's documents in rank order whatever the layout of the run file:
already in rank order, in score order with ties the other way round, grouped but unsorted, or
with queries interleaved. The cheap paths (checking an order instead of sorting) must give what
a plain sort gives."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.engine import prepare, resolve_profile
from rankscope.engine.batch import UNJUDGED
from rankscope.engine.prepare import _Groups, _ties_in_order
from rankscope.io import Qrels, Run

Row = tuple[str, str, float]  # query, document, score


def _expected(rows: list[Row], grades: dict[tuple[str, str], int]) -> dict[str, list[int]]:
    """Per query, the grades in trec_eval's order: score descending, then document id
    descending (written out plainly, as the reference)."""
    by_query: dict[str, list[tuple[float, str]]] = {}
    for query, doc, score in rows:
        by_query.setdefault(query, []).append((score, doc))
    return {
        query: [grades.get((query, doc), UNJUDGED) for _, doc in sorted(pairs, reverse=True)]
        for query, pairs in by_query.items()
    }


def _layouts(rows: list[Row], seed: int) -> dict[str, list[Row]]:
    """The same rows written five ways."""
    rng = random.Random(seed)
    in_order = sorted(rows, key=lambda r: (r[0], -r[2], [-ord(c) for c in r[1]]))
    ties_ascending = sorted(rows, key=lambda r: (r[0], -r[2], r[1]))
    ties_shuffled = sorted(rows, key=lambda r: (r[0], -r[2], rng.random()))
    ascending = sorted(rows, key=lambda r: (r[0], r[2], r[1]))
    shuffled = rows[:]
    rng.shuffle(shuffled)
    return {
        "rank order": in_order,
        "ties ascending": ties_ascending,
        "ties shuffled": ties_shuffled,
        "scores ascending": ascending,
        "interleaved": shuffled,
    }


def _run(rows: list[Row]) -> Run:
    return Run.from_frame(
        pl.DataFrame(
            {
                "query_id": [q for q, _, _ in rows],
                "doc_id": [d for _, d, _ in rows],
                "score": [s for _, _, s in rows],
            }
        )
    )


def _per_query(qrels: Qrels, run: Run) -> dict[str, list[int]]:
    batch = prepare(qrels, run, resolve_profile("trec")).batch
    return {
        query: batch.grades[batch.offsets[i] : batch.offsets[i + 1]].tolist()
        for i, query in enumerate(batch.query_ids)
    }


@settings(max_examples=120, deadline=None)
@given(
    run=st.dictionaries(
        st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(list("abcdefghij"))),
        st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0]),
        min_size=1,
        max_size=25,
    ),
    grades=st.dictionaries(
        st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(list("abcdefghij"))),
        st.integers(0, 3),
        min_size=1,
        max_size=15,
    ),
    seed=st.integers(0, 1000),
)
def test_every_layout_gives_trec_eval_order(
    run: dict[tuple[str, str], float], grades: dict[tuple[str, str], int], seed: int
) -> None:
    rows = [(q, d, s) for (q, d), s in run.items()]
    judged_queries = {q for q, _ in grades}
    qrels = Qrels.from_frame(
        pl.DataFrame(
            {
                "query_id": [q for q, _ in grades],
                "doc_id": [d for _, d in grades],
                "relevance": list(grades.values()),
            }
        )
    )
    expected = {q: g for q, g in _expected(rows, grades).items() if q in judged_queries}
    if not expected:
        return
    for name, layout in _layouts(rows, seed).items():
        assert _per_query(qrels, _run(layout)) == expected, name


def test_reorders_only_the_runs_of_ties() -> None:
    frame = pl.DataFrame(
        {
            "query_id": ["q1"] * 5 + ["q2"] * 3,
            "doc_id": ["a", "b", "c", "z", "y", "a", "b", "c"],
            "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5],
        }
    )
    ordered = _ties_in_order(frame, _Groups.of(frame))
    assert ordered is not None
    assert ordered["doc_id"].to_list() == ["a", "z", "c", "b", "y", "b", "a", "c"]
    assert ordered["score"].to_list() == frame["score"].to_list()


@pytest.mark.parametrize(
    ("scores", "kept"),
    [([3.0, 2.0, 1.0], True), ([3.0, 3.0, 1.0], True), ([1.0, 2.0, 3.0], False)],
)
def test_a_rising_score_means_a_sort(scores: list[float], kept: bool) -> None:
    frame = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["c", "b", "a"], "score": scores})
    ordered = _ties_in_order(frame, _Groups.of(frame))
    assert (ordered is not None) == kept
    if ordered is not None:
        np.testing.assert_array_equal(ordered["doc_id"].to_numpy(), ["c", "b", "a"])
