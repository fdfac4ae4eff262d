"""Per-query scoring equals WeKnora's API and rankscope.evaluate, on random rankings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.errors import DuplicateDocumentError, MeasureError
from rankscope.metric import MetricInput, retrieval_metrics
from rankscope.service import MeasureSet
from rankscope.service.tasks.scoring import QueryScorer

DOCS = st.sampled_from([f"d{i}" for i in range(8)])
GRADES = st.dictionaries(DOCS, st.integers(min_value=0, max_value=3), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(judged=GRADES, ranking=st.lists(DOCS, max_size=12))
def test_weknora_scores_equal_weknoras_retrieval_metrics(
    judged: dict[str, int], ranking: list[str]
) -> None:
    scorer = QueryScorer(MeasureSet.resolve(None, "weknora"), {"q": list(judged.items())})
    relevant = [doc for doc, grade in judged.items() if grade >= 1]
    expected = retrieval_metrics(MetricInput([relevant], ranking)).as_dict()
    assert scorer.score("q", ranking, None) == expected


@settings(max_examples=60, deadline=None)
@given(
    judged=GRADES,
    ranking=st.lists(DOCS, min_size=1, max_size=8, unique=True),
    scores=st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=8, max_size=8),
)
def test_trec_scores_equal_evaluate(
    judged: dict[str, int], ranking: list[str], scores: list[float]
) -> None:
    names = ["nDCG@5", "AP", "RR", "P@3", "R@5", "Rprec"]
    scorer = QueryScorer(MeasureSet.resolve(names, "trec"), {"q": list(judged.items())})
    given_scores = scores[: len(ranking)]
    run = {"q": dict(zip(ranking, given_scores, strict=True))}
    expected = rankscope.evaluate({"q": judged}, run, names).to_dict()["q"]
    assert scorer.score("q", ranking, given_scores) == expected


def test_a_query_that_retrieved_nothing_scores_zero() -> None:
    scorer = QueryScorer(MeasureSet.resolve(["nDCG@10", "RR"], "trec"), {"q": [("d", 1)]})
    assert scorer.score("q", [], None) == {"nDCG@10": 0.0, "RR": 0.0}


def test_duplicates_are_an_error_under_trec_and_count_under_weknora() -> None:
    trec = QueryScorer(MeasureSet.resolve(["RR"], "trec"), {"q": [("a", 1)]})
    with pytest.raises(DuplicateDocumentError, match="document 'a' appears more than once"):
        trec.score("q", ["a", "a"], None)
    weknora = QueryScorer(MeasureSet.resolve(["recall"], "weknora"), {"q": [("a", 1), ("b", 1)]})
    assert weknora.score("q", ["a", "a", "a", "a"], None) == {"recall": 2.0}


@pytest.mark.parametrize(
    ("measures", "profile", "message"),
    [
        (["nDCG@10"], "weknora", r"unknown: nDCG@10 \(use profile 'trec'"),
        (["ndcg"], "weknora", "unknown: ndcg"),
        (["precision", "precision"], "weknora", "named twice"),
        (["NumRet"], "trec", "aggregate otherwise"),
        (["AP", "ROUGE-L"], "trec", "ROUGE-L score generated answers, not rankings"),
        (["nDGC@10"], "trec", "nDGC"),
    ],
)
def test_measure_sets_are_checked(measures: list[str], profile: str, message: str) -> None:
    with pytest.raises(MeasureError, match=message):
        MeasureSet.resolve(measures, profile)


def test_trec_measure_names_are_canonical_and_merged() -> None:
    assert MeasureSet.resolve(["ndcg_cut.10", "nDCG@10", "map"], "trec").names == ("nDCG@10", "AP")
