"""Lining up evaluated runs by query id: the shared-queries and `complete` policies."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from compare_report_data import FIXED_QRELS, FIXED_RUNS, evaluate_lists

import rankscope
from rankscope.compare import align_results, build_report
from rankscope.errors import InputError, RankscopeWarning

# Three judged queries; each run ranks "a" at a different position per query, so scores
# matched by position instead of by query id would come out visibly wrong.
QRELS = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}, "q4": {"a": 1}}
BASE = {"q1": ["a"], "q2": ["x", "a"], "q3": ["x", "y", "a"], "q4": ["x", "y", "z", "a"]}
# Lacks q2: positionally its q3 score would land on q2.
LACKING = {"q1": ["x", "a"], "q3": ["a"], "q4": ["x", "a"]}


def test_without_complete_the_comparison_is_restricted_to_shared_queries() -> None:
    base, other = evaluate_lists(QRELS, {"base": BASE, "other": LACKING}, ["RR"])
    with pytest.warns(RankscopeWarning) as caught:
        aligned = align_results(base, [other])
    assert aligned.query_ids == ("q1", "q3", "q4")
    assert aligned.scores["base"]["RR"].tolist() == [1.0, 1 / 3, 0.25]
    assert aligned.scores["other"]["RR"].tolist() == [0.5, 1.0, 0.5]
    assert aligned.lacking == {"base": (), "other": ("q2",)}
    message = str(caught[0].message)
    assert message.startswith("1 query is not in every run and was left out")
    assert "the 3 queries all runs share" in message
    assert "'other' lacks 1 (q2)" in message
    assert "--complete" in message


def test_with_complete_missing_queries_score_zero_and_nothing_is_left_out() -> None:
    base, other = evaluate_lists(QRELS, {"base": BASE, "other": LACKING}, ["RR"], complete=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankscopeWarning)
        aligned = align_results(base, [other])
    assert aligned.query_ids == ("q1", "q2", "q3", "q4")
    assert aligned.scores["other"]["RR"].tolist() == [0.5, 0.0, 1.0, 0.5]
    assert aligned.complete
    assert aligned.note() is None


def test_the_warning_names_at_most_five_queries_per_run_and_counts_all() -> None:
    qrels = {f"q{i:02d}": {"a": 1} for i in range(20)}
    full = {query: ["a"] for query in qrels}
    half = {query: ["a"] for i, query in enumerate(qrels) if i % 2 == 0}
    base, other = evaluate_lists(qrels, {"base": full, "half": half}, ["RR"])
    with pytest.warns(RankscopeWarning, match=r"10 queries are not in every run") as caught:
        align_results(base, [other])
    assert "'half' lacks 10 (q01, q03, q05, q07, q09, ...)" in str(caught[0].message)


def test_a_query_missing_from_the_baseline_is_left_out_too() -> None:
    base, other = evaluate_lists(QRELS, {"base": LACKING, "other": BASE}, ["RR"])
    with pytest.warns(RankscopeWarning, match="'base' lacks 1 \\(q2\\)"):
        aligned = align_results(base, [other])
    assert "q2" not in aligned.query_ids
    assert aligned.left_out == ("q2",)


def test_no_shared_query_is_an_error_naming_both_runs() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}}
    base, other = evaluate_lists(
        qrels, {"bm25": {"q1": ["a"]}, "dense": {"q2": ["a"], "q3": ["a"]}}, ["RR"]
    )
    with pytest.raises(InputError, match="run 'dense' and the baseline 'bm25' have no query in"):
        align_results(base, [other])


def test_no_query_shared_by_all_runs_is_an_error() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}}
    runs = {
        "a": {"q1": ["a"], "q2": ["a"]},
        "b": {"q1": ["a"], "q3": ["a"]},
        "c": {"q2": ["a"], "q3": ["a"]},
    }
    base, *systems = evaluate_lists(qrels, runs, ["RR"])
    with pytest.raises(InputError, match="no query is evaluated in every run"):
        align_results(base, systems)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("no systems", "expected at least one system"),
        ("same names", "two runs are named 'run'"),
        ("wrong count of names", r"expected one name per run \(2\), got 3"),
        ("other measures", r"run 'other' was evaluated with measures \['AP'\]"),
        ("mixed complete", "run 'other' was evaluated with complete=True but the baseline"),
        ("complete, other qrels", "were they evaluated against different qrels"),
    ],
)
def test_inputs_that_cannot_be_aligned_are_refused(case: str, message: str) -> None:
    base = rankscope.evaluate(QRELS, BASE, "RR")
    names: list[str] | None = ["base", "other"]
    if case == "no systems":
        systems = []
    elif case == "same names":
        systems, names = [rankscope.evaluate(QRELS, LACKING, "RR")], None
    elif case == "wrong count of names":
        systems, names = [rankscope.evaluate(QRELS, LACKING, "RR")], ["a", "b", "c"]
    elif case == "other measures":
        systems = [rankscope.evaluate(QRELS, LACKING, "AP")]
    elif case == "mixed complete":
        systems = [rankscope.evaluate(QRELS, LACKING, "RR", complete=True)]
    else:
        base = rankscope.evaluate(QRELS, BASE, "RR", complete=True)
        fewer = {query: QRELS[query] for query in ("q1", "q3", "q4")}
        systems = [rankscope.evaluate(fewer, LACKING, "RR", complete=True)]
    with pytest.raises(InputError, match=message):
        align_results(base, systems, names)


def test_build_report_compares_the_aligned_scores() -> None:
    base, better, mixed = evaluate_lists(FIXED_QRELS, FIXED_RUNS, ["RR"])
    report = build_report(base, [better, mixed], test="randomization", n_resamples=500)
    row = report.comparison.row("mixed", "RR")
    assert row.n == 12
    assert row.baseline_mean == 0.5
    assert row.system_mean == pytest.approx(2 / 3)
    assert (row.win_tie_loss.wins, row.win_tie_loss.losses) == (6, 6)
    assert report.comparison.test == "randomization"
    np.testing.assert_array_equal(report.aligned.scores["better"]["RR"], better.scores("RR"))
