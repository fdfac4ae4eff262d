"""The one-query path (`evaluate_query`, for WeKnora's API and the service) gives exactly what
`evaluate` gives on the same query as tables."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.engine import evaluate_query, parse_measures, resolve_profile
from rankscope.io import Qrels, Run

docs = st.sampled_from([f"d{i}" for i in range(8)])
MEASURES = {
    "trec": parse_measures(["nDCG@3", "nDCG", "AP", "RR", "P@5", "R@5", "Rprec", "Bpref"]),
    "trec9": parse_measures(["nDCG@3", "AP@5", "IPrec@0.3", "Success@2", "NumRelRet"]),
    "weknora": parse_measures(["nDCG@3", "nDCG@10", "P", "R", "RR", "AP"]),
}


@settings(max_examples=150, deadline=None)
@given(
    judged=st.lists(st.tuples(docs, st.integers(-1, 3)), min_size=1, max_size=8),
    ranking=st.lists(
        st.tuples(docs, st.sampled_from([0.5, 1.0, 1.0 + 1e-9, 2.0])), min_size=1, max_size=10
    ),
    profile=st.sampled_from(["trec", "trec9", "weknora"]),
    level=st.integers(1, 2),
)
def test_same_values_as_the_columnar_path(
    judged: list[tuple[str, int]], ranking: list[tuple[str, float]], profile: str, level: int
) -> None:
    conventions = resolve_profile(profile)
    if not conventions.keeps_duplicate_judgements:
        judged = list(dict(judged).items())
    if conventions.duplicate_documents == "error":
        ranking = list(dict(ranking).items())
    qrels = Qrels.from_frame(
        pl.DataFrame(
            {
                "query_id": ["q"] * len(judged),
                "doc_id": [d for d, _ in judged],
                "relevance": [g for _, g in judged],
            }
        )
    )
    run = Run.from_frame(
        pl.DataFrame(
            {
                "query_id": ["q"] * len(ranking),
                "doc_id": [d for d, _ in ranking],
                "score": [s for _, s in ranking],
            }
        )
    )
    measures = MEASURES[profile]
    columnar = rankscope.evaluate(qrels, run, measures, conventions, relevance_level=level)
    single = evaluate_query(judged, ranking, measures, conventions, relevance_level=level)
    assert single == [columnar.mean()[m.name] for m in measures]


@pytest.mark.parametrize(
    ("judged", "ranking", "message"),
    [
        ([("a", 1), ("a", 0)], [("a", 1.0)], "document 'a' appears more than once in the qrels"),
        ([("a", 1)], [("b", 1.0), ("b", 0.5)], "document 'b' appears more than once in the run"),
    ],
)
def test_duplicates_are_errors_under_trec(
    judged: list[Any], ranking: list[Any], message: str
) -> None:
    with pytest.raises(rankscope.DuplicateDocumentError, match=message):
        evaluate_query(judged, ranking, MEASURES["trec"], resolve_profile("trec"))
