"""WeKnora's worked numbers and quirks, through rankscope.metric and evaluate(profile="weknora")."""

from __future__ import annotations

import pytest

import rankscope
from rankscope.metric import (
    MAPMetric,
    MetricInput,
    MRRMetric,
    NDCGMetric,
    PrecisionMetric,
    RecallMetric,
    RetrievalMetrics,
    retrieval_metrics,
)

DOC_EXAMPLE = MetricInput([[1, 5, 8]], [1, 3, 5, 7, 8, 10, 12, 14, 16, 18])


@pytest.mark.parametrize(
    ("metric", "metric_input", "expected"),
    [
        # WeKnora's documented example: its documentation guesses 0.78, the formula gives this.
        (NDCGMetric(10), DOC_EXAMPLE, 0.885460),
        (NDCGMetric(3), DOC_EXAMPLE, 0.703918),
        (PrecisionMetric(), DOC_EXAMPLE, 0.3),
        (RecallMetric(), DOC_EXAMPLE, 1.0),
        (MRRMetric(), DOC_EXAMPLE, 1.0),
        (MAPMetric(), DOC_EXAMPLE, 0.755556),
        # Returning fewer documents can raise NDCG: the ideal is capped by what was retrieved.
        (NDCGMetric(10), MetricInput([[1, 2, 3]], [1]), 1.0),
        # Duplicates add gain every time: NDCG and recall above 1.
        (NDCGMetric(10), MetricInput([[1, 2]], [1, 1, 1, 1]), 1.570642),
        (NDCGMetric(3), MetricInput([[1, 2]], [1, 1, 1, 1]), 1.306574),
        (RecallMetric(), MetricInput([[1, 2]], [1, 1, 1, 1]), 2.0),
        # Several ground-truth lists: NDCG over their union, the others averaged per list.
        (NDCGMetric(3), MetricInput([[1, 2], [2, 3]], [2, 9, 1]), 0.703918),
        (MAPMetric(), MetricInput([[1, 2], [2, 3]], [2, 9, 1]), 0.916667),
        (PrecisionMetric(), MetricInput([[1, 2], [2, 3]], [2, 9, 1]), 0.5),
        (RecallMetric(), MetricInput([[1, 2], [2, 3]], [2, 9, 1]), 0.75),
        (MRRMetric(), MetricInput([[3], [9]], [1, 3, 9]), (1 / 2 + 1 / 3) / 2),
        # MAP divides by the hits, not by the relevant count: one of ten found at rank 1 is 1.0.
        (MAPMetric(), MetricInput([list(range(10))], [0, 50, 51]), 1.0),
        # String ids work as well as integers.
        (NDCGMetric(10), MetricInput([["a", "b"]], ["a", "x", "b"]), 0.919721),
    ],
)
def test_worked_numbers(metric: object, metric_input: MetricInput, expected: float) -> None:
    assert metric.compute(metric_input) == pytest.approx(expected, abs=5e-7)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "metric_input",
    [
        MetricInput([], [1, 2, 3]),
        MetricInput([[1, 2]], []),
        MetricInput([[]], [1, 2]),
        MetricInput([], []),
    ],
)
def test_empty_ids_or_ground_truth_give_zero_everywhere(metric_input: MetricInput) -> None:
    assert retrieval_metrics(metric_input) == RetrievalMetrics()


def test_an_empty_list_among_several_counts_as_zero() -> None:
    # Precision per list: [] -> 0, [1] -> 1/2; averaged over the two lists.
    assert PrecisionMetric().compute(MetricInput([[], [1]], [1, 2])) == pytest.approx(0.25)


def test_retrieval_metrics_fills_all_six_fields() -> None:
    got = retrieval_metrics(DOC_EXAMPLE).rounded(6)
    assert got == RetrievalMetrics(
        precision=0.3, recall=1.0, ndcg3=0.703918, ndcg10=0.88546, mrr=1.0, map=0.755556
    )
    assert set(got.as_dict()) == {"precision", "recall", "ndcg3", "ndcg10", "mrr", "map"}


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_k_below_one_is_refused(k: object) -> None:
    with pytest.raises(ValueError, match=r"'k' parameter of NDCGMetric must be an int"):
        NDCGMetric(k)  # type: ignore[arg-type]


def test_evaluate_with_the_weknora_profile_matches_the_metric_api() -> None:
    qrels = {"q": {"1": 1, "5": 1, "8": 1}}
    run = {"q": ["1", "3", "5", "7", "8", "10", "12", "14", "16", "18"]}
    means = rankscope.evaluate(
        qrels, run, ["nDCG@10", "nDCG@3", "P", "R", "RR", "AP"], profile="weknora"
    ).mean()
    assert means == pytest.approx(
        {"nDCG@10": 0.885460, "nDCG@3": 0.703918, "P": 0.3, "R": 1.0, "RR": 1.0, "AP": 0.755556},
        abs=5e-7,
    )


def test_weknora_profile_uses_list_order_not_scores() -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {"b": 0.9, "a": 0.1}}  # given order: b, a; a is second whatever its score
    assert rankscope.evaluate(qrels, run, "RR", profile="weknora").mean()["RR"] == 1.0 / 2
    reordered = {"q": {"a": 0.1, "b": 0.9}}
    assert rankscope.evaluate(qrels, reordered, "RR", profile="weknora").mean()["RR"] == 1.0
    assert rankscope.evaluate(qrels, reordered, "RR", profile="trec").mean()["RR"] == 0.5


def test_weknora_profile_treats_grades_as_binary_and_gain_as_exponential() -> None:
    qrels = {"q": {"a": 3, "b": 1}}
    run = {"q": ["b", "a"]}
    weknora = rankscope.evaluate(qrels, run, "nDCG@2", profile="weknora").mean()["nDCG@2"]
    assert weknora == 1.0  # both relevant, grades ignored
    trec = rankscope.evaluate(qrels, run, "nDCG@2").mean()["nDCG@2"]
    assert trec < 1.0  # grade 3 ranked second


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Bpref", "Bpref is not defined by the weknora profile"),
        ("P@10", "defines P over the whole ranking, without a cutoff"),
        ("P(rel=2)", "binary relevance"),
    ],
)
def test_weknora_profile_refuses_what_it_does_not_define(name: str, message: str) -> None:
    with pytest.raises(rankscope.ProfileError, match=message):
        rankscope.evaluate({"q": {"a": 1}}, {"q": ["a"]}, name, profile="weknora")
