"""`Results` as a mapping from query id to the query's values (pytrec_eval's shape), a
measure's name giving its value per query; `print(report)` printing the comparison's table;
both shown in Jupyter as HTML tables rounded as the command line rounds them."""

from __future__ import annotations

import math
import warnings

import pytest

import rankscope
from rankscope.report.results import render

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "AP": {"a": 1}}
RUN = {"q1": ["b", "a"], "q2": ["c"], "AP": ["x", "y", "a"]}


@pytest.fixture(scope="module")
def results() -> rankscope.Results:
    return rankscope.evaluate(QRELS, RUN, ["RR", "P@2", "NumRet"])


def test_a_query_id_gives_the_querys_values(results: rankscope.Results) -> None:
    assert results["q1"] == {"RR": 0.5, "P@2": 0.5, "NumRet": 2.0}
    assert results["q1"] == results.to_dict()["q1"]


def test_a_measure_name_gives_its_value_per_query(results: rankscope.Results) -> None:
    expected = {"AP": 1 / 3, "q1": 0.5, "q2": 1.0}
    assert results["RR"] == expected
    assert results["recip_rank"] == expected  # trec_eval's name for it
    assert results.score_dict("RR") == expected
    assert list(results["RR"]) == results.query_ids


def test_a_query_id_that_is_also_a_measure_name_is_the_query(
    results: rankscope.Results,
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_ap = rankscope.evaluate(QRELS, RUN, ["AP", "RR"])
    assert with_ap["AP"] == {"AP": 1 / 3, "RR": 1 / 3}  # the query named AP
    assert with_ap.score_dict("AP") == {"AP": 1 / 3, "q1": 0.5, "q2": 1.0}


def test_len_iteration_membership_and_dict(results: rankscope.Results) -> None:
    assert len(results) == 3 == results.num_queries
    assert list(results) == ["AP", "q1", "q2"] == results.keys()
    assert "q1" in results and "q9" not in results and "RR" not in results
    assert dict(results) == results.to_dict()
    assert dict(results.items()) == results.to_dict()


def test_an_unknown_key_is_a_key_error_naming_what_there_is(
    results: rankscope.Results,
) -> None:
    with pytest.raises(KeyError, match=r"'q9' is neither an evaluated query nor a computed"):
        results["q9"]
    with pytest.raises(KeyError, match=r"measures: RR, P@2, NumRet"):
        results["nDCG@10"]  # a measure, not computed
    assert results.get("q9") is None and results.get("q9", 0) == 0
    assert results.get("q2") == {"RR": 1.0, "P@2": 0.5, "NumRet": 1.0}


def test_integer_query_ids_are_looked_up_as_strings() -> None:
    results = rankscope.evaluate({1: {"a": 1}}, {1: ["a"]}, "RR")
    assert results[1] == results["1"] == {"RR": 1.0} and 1 in results


def test_jupyter_shows_the_aggregates_rounded_and_the_queries_folded(
    results: rankscope.Results,
) -> None:
    page = results._repr_html_()
    means = render([results], "table").splitlines()[1].split()
    assert means == ["run", "0.6111", "0.3333", "6"]  # the command line's rounding
    assert "<tr><td>run</td><td>0.6111</td><td>0.3333</td><td>6</td></tr>" in page
    assert "<details><summary>per query</summary>" in page
    assert "<tr><td>q1</td><td>0.5000</td><td>0.5000</td><td>2</td></tr>" in page
    assert "&quot;" not in page and "shape:" not in page and "f64" not in page
    assert not math.isnan(results.mean()["RR"])


def test_names_are_escaped_in_html() -> None:
    results = rankscope.evaluate({"<q>": {"a": 1}}, {"<q>": ["a"]}, "RR").renamed("a&b")
    page = results._repr_html_()
    assert "<strong>a&amp;b</strong>" in page and "<td>&lt;q&gt;</td>" in page


def test_print_of_a_report_prints_its_table() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(8)}
    base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    from rankscope.compare import build_report

    report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    assert str(report) == report.to_text()
    assert str(report).splitlines()[:3] == [
        "run                  RR",
        "bm25 (baseline)  0.5000",
        "dense            1.0000†",
    ]
    assert repr(report).startswith("ComparisonReport(dense vs bm25;")
