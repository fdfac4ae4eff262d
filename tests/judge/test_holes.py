"""Holes: Judged@k, the unjudged documents and the bounds of each measure, checked by hand."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope.errors import InputError, OptionError
from rankscope.judge import holes

# q1 judges d1 (2), d2 (0) and d4 (1, never retrieved); the run ranks d3 and d5, never judged.
# q2 judges e1 alone; the run ranks e2 (never judged) above it. q3 is not judged at all.
QRELS = {"q1": {"d1": 2, "d2": 0, "d4": 1}, "q2": {"e1": 1}}
RUN = {
    "q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7, "d5": 0.6},
    "q2": {"e2": 0.9, "e1": 0.5},
    "q3": {"x": 1.0},
}
MEASURES = ["P@2", "RR", "R@4", "AP", "nDCG@3", "Bpref"]
LOG3 = math.log2(3)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"


@pytest.fixture(scope="module")
def found() -> rankscope.judge.RunHoles:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        [run_holes] = holes(QRELS, [RUN], MEASURES, cutoffs=[3, 1])
    return run_holes


def test_judged_at_k_and_the_unjudged_documents_of_the_top_k(
    found: rankscope.judge.RunHoles,
) -> None:
    # Judged@1: q1 1/1, q2 0/1. Judged@3: q1 2/3 (d1, d2), q2 1/2 (two retrieved).
    assert found.judged == {1: 0.5, 3: pytest.approx((2 / 3 + 1 / 2) / 2)}
    # The top 3 (the largest k) of the judged queries; d5 (rank 4) and q3 are not listed.
    assert found.unjudged.rows() == [("q1", 2, "d3"), ("q2", 1, "e2")]
    assert found.holes == 3  # d3, d5, e2
    assert found.grade == 2  # the highest grade of the qrels
    assert found.measured.query_ids == ["q1", "q2"]


def test_bounds_by_hand(found: rankscope.judge.RunHoles) -> None:
    q1_ndcg_low = 2 / (2 + 1 / LOG3)  # grades 2, -, 0 against the ideal 2, 1, 0
    q1_ndcg_high = (2 + 2 / LOG3) / (2 + 2 / LOG3 + 2 / 2)  # 2, 2, 0 against 2, 2, 2
    expected = {
        # holes not relevant | holes relevant at grade 2
        "P@2": (0.5, 1.0),  # q1 1/2, q2 1/2 | both 2/2
        "RR": (0.75, 1.0),  # q1 1, q2 1/2 | both 1
        "R@4": (0.75, 0.875),  # q1 1/2 (d4 missed), q2 1 | q1 3/4 (d1 d3 d5 of 4), q2 1
        "AP": (0.5, 0.84375),  # q1 1/2, q2 1/2 | q1 (1 + 1 + 3/4) / 4, q2 (1 + 1) / 2
        "nDCG@3": ((q1_ndcg_low + 1 / LOG3) / 2, (q1_ndcg_high + 1) / 2),
        # Bpref counts judged non-relevant documents: a hole judged 0 above e1 costs q2 all.
        "Bpref": (0.25, 0.75),  # q1 1/2, q2 0 | q1 (1 + 1 + 0) / 4, q2 1
    }
    bounds = found.bounds()
    assert list(bounds) == MEASURES
    for name, (low, high) in expected.items():
        assert bounds[name] == (pytest.approx(low), pytest.approx(high)), name


def test_as_judged_the_holes_count_as_trec_eval_counts_them(
    found: rankscope.judge.RunHoles,
) -> None:
    measured = found.measured.mean()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        assert measured == rankscope.evaluate(QRELS, RUN, MEASURES).mean()
    low = found.holes_nonrelevant.mean()
    assert {name for name in MEASURES if measured[name] != low[name]} == {"Bpref"}
    assert measured["Bpref"] == 0.75  # unjudged documents are skipped: q1 1/2, q2 1


def test_to_dict_holds_every_number(found: rankscope.judge.RunHoles) -> None:
    data = found.to_dict()
    assert data["judged"] == {"Judged@1": 0.5, "Judged@3": found.judged[3]}
    assert data["unjudged"] == {
        "q1": [{"rank": 2, "doc_id": "d3"}],
        "q2": [{"rank": 1, "doc_id": "e2"}],
    }
    assert data["measures"]["P@2"] == {
        "value": 0.5,
        "holes_nonrelevant": 0.5,
        "holes_relevant": 1.0,
    }
    assert (data["queries"], data["holes"], data["grade"]) == (2, 3, 2)


def test_the_grade_of_the_holes_can_be_set() -> None:
    [found] = holes({"q": {"a": 3, "b": 0}}, [{"q": {"c": 2.0, "a": 1.0}}], ["nDCG@2"], 2, grade=1)
    # Ranking c (1), a (3) against the ideal 3, 1: (1 + 3/log2 3) / (3 + 1/log2 3).
    assert found.bounds()["nDCG@2"][1] == pytest.approx((1 + 3 / LOG3) / (3 + 1 / LOG3))
    assert found.grade == 1


def test_several_runs_are_reported_in_order() -> None:
    runs = [
        rankscope.Run.from_lists({"q1": ["d1", "d2"]}, name="full"),
        rankscope.Run.from_lists({"q1": ["d7", "d1"]}, name="new"),
    ]
    found = holes({"q1": {"d1": 1, "d2": 0}}, runs, "P@1", cutoffs=2)
    assert [h.run_name for h in found] == ["full", "new"]
    assert [h.judged[2] for h in found] == [1.0, 0.5]
    assert [h.bounds()["P@1"] for h in found] == [(1.0, 1.0), (0.0, 1.0)]


def test_diversity_qrels_are_refused() -> None:
    with pytest.raises(InputError, match=r"diversity\.qrels: .* these qrels judge subtopics"):
        holes(str(EXAMPLES / "diversity.qrels"), [str(EXAMPLES / "diversity.run")], "P@1")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cutoffs": [0]}, "every cutoff must be an integer >= 1; got 0"),
        ({"cutoffs": []}, "cutoffs must hold at least one k"),
        ({"grade": 0}, "grade must be an integer >= 1; got 0"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        holes({"q": {"a": 1}}, [{"q": {"a": 1.0}}], "P@1", **options)  # type: ignore[arg-type]
