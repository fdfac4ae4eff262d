"""Agreement on shared pairs: κ and α equal to scikit-learn and krippendorff on generated qrels,
published and hand-computed examples, the confusion matrix, and the undefined cases."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.errors import InputError
from rankscope.judge import judgement_agreement

sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")

Qrels = dict[str, dict[str, int]]


def qrels_of(grades: list[int], query: str = "q") -> Qrels:
    return {query: {f"d{i}": grade for i, grade in enumerate(grades)}}


def test_krippendorffs_binary_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section A: two
    # observers, binary data, no missing values: alpha = 0.095 (ordinal equals nominal here).
    observer_a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    observer_b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    found = judgement_agreement(qrels_of(observer_a), qrels_of(observer_b))
    assert round(found.alpha, 3) == 0.095
    assert found.confusion == ((5, 3), (1, 1))


def test_cohens_kappa_by_hand() -> None:
    # 50 pairs: both relevant 20, only A 5, only B 10, neither 15. Observed agreement 0.7;
    # chance 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    pairs = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    found = judgement_agreement(qrels_of([a for a, _ in pairs]), qrels_of([b for _, b in pairs]))
    assert found.kappa == pytest.approx(0.4)
    assert (found.same_grade, found.same_relevance) == (0.7, 0.7)


def test_weighted_kappa_by_hand() -> None:
    # A grades three pairs 0, 1, 2 and B 0, 2, 2; linear weights |i - j| / 2. Observed
    # disagreement (0 + 1/2 + 0) / 3 = 1/6. Marginals A (1/3, 1/3, 1/3), B (1/3, 0, 2/3):
    # chance disagreement 1/3 (2/3) + 1/3 (1/6 + 1/3) + 1/3 (1/3) = 1/2. kappa = 1 - 1/3.
    found = judgement_agreement(qrels_of([0, 1, 2]), qrels_of([0, 2, 2]))
    assert found.kappa_linear == pytest.approx(2 / 3)
    # Quadratic weights (|i - j| / 2)^2: observed 1/12, chance 1/3 (2/3) + 1/3 (1/12 + 1/6)
    # + 1/3 (1/3) = 5/12; kappa = 1 - 1/5.
    assert found.kappa_quadratic == pytest.approx(4 / 5)


def test_relevance_level_sets_the_binary_kappa() -> None:
    a, b = qrels_of([0, 1, 2, 2]), qrels_of([1, 1, 2, 0])
    # At level 2: A relevant d2, d3; B d2 only: po 3/4, pe 1/2 * 1/4 + 1/2 * 3/4 = 1/2.
    assert judgement_agreement(a, b, relevance_level=2).kappa == pytest.approx(0.5)
    assert judgement_agreement(a, b, relevance_level=2).same_relevance == 0.75


def test_pairs_judged_by_one_side_are_counted_not_compared() -> None:
    a = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    b = {"q1": {"d1": 1, "d9": 1}, "q3": {"d3": 0}}
    found = judgement_agreement(a, b)
    assert (found.shared, found.only_a, found.only_b) == (1, 2, 2)


def test_one_grade_everywhere_leaves_kappa_and_alpha_undefined() -> None:
    found = judgement_agreement(qrels_of([1, 1]), qrels_of([1, 1]))
    assert found.same_grade == 1.0
    assert all(math.isnan(v) for v in (found.kappa, found.kappa_linear, found.alpha))
    assert found.to_dict()["kappa"] is None


def test_no_shared_pair_is_an_error() -> None:
    with pytest.raises(InputError, match=r"the two qrels \(<dict> and <dict>\) share no judged"):
        judgement_agreement({"q": {"a": 1}}, {"q": {"b": 1}})


def test_a_pair_judged_twice_counts_its_first_grade(tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "a.qrels").write_text("q 0 d1 2\nq 0 d1 0\nq 0 d2 0\n")
    (folder / "b.qrels").write_text("q 0 d1 2\nq 0 d2 0\n")
    found = judgement_agreement(str(folder / "a.qrels"), str(folder / "b.qrels"))
    assert (found.shared, found.same_grade) == (2, 1.0)


grades = st.integers(-1, 3)


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(grades, grades), min_size=2, max_size=40),
    only_a=st.lists(grades, max_size=5),
    level=st.integers(1, 3),
)
def test_equal_to_scikit_learn_and_krippendorff(
    pairs: list[tuple[int, int]], only_a: list[int], level: int
) -> None:
    a = {"q1": {f"d{i}": x for i, (x, _) in enumerate(pairs)}}
    b = {"q1": {f"d{i}": y for i, (_, y) in enumerate(pairs)}}
    a["q2"] = {f"e{i}": grade for i, grade in enumerate(only_a)}
    found = judgement_agreement(a, b, relevance_level=level)
    first, second = [x for x, _ in pairs], [y for _, y in pairs]
    labels = sorted(set(first) | set(second))
    assert found.grades == tuple(labels)
    assert found.shared == len(pairs) and found.only_a == len(only_a)

    def same(value: float, reference: float) -> bool:
        return (math.isnan(value) and math.isnan(reference)) or value == pytest.approx(reference)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns where kappa is undefined
        binary = sklearn_metrics.cohen_kappa_score(
            [x >= level for x in first], [y >= level for y in second], labels=[False, True]
        )
        linear = sklearn_metrics.cohen_kappa_score(first, second, labels=labels, weights="linear")
        quadratic = sklearn_metrics.cohen_kappa_score(
            first, second, labels=labels, weights="quadratic"
        )
        confusion = sklearn_metrics.confusion_matrix(first, second, labels=labels).tolist()
    assert [list(row) for row in found.confusion] == confusion
    assert same(found.kappa, binary)
    assert same(found.kappa_linear, linear)
    assert same(found.kappa_quadratic, quadratic)
    if len(labels) > 1:
        reference = krippendorff.alpha(
            reliability_data=[first, second], level_of_measurement="ordinal"
        )
        assert same(found.alpha, reference)
    else:
        assert math.isnan(found.alpha)
