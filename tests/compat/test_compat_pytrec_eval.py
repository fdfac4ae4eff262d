"""`rankscope.compat.pytrec_eval` gives pytrec_eval's dicts: the same queries, keys and values,
on generated data with tied scores (also ties that only float32 rounding creates), graded and
negative grades, unjudged documents, queries missing from either side, and every measure set
pytrec_eval supports."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from peer_child import in_child, pytrec_eval_dicts

from rankscope.compat import pytrec_eval as compat
from rankscope.errors import ParseError

pytrec_eval = pytest.importorskip("pytrec_eval")

DOCS = [f"d{i}" for i in range(12)]
# Few values, so that ties are common; 1.0 + 1e-9 ties with 1.0 only in float32.
SCORES = [0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, -1.5, 3.25]

MEASURE_SETS: list[set[str]] = [
    {"all_trec"},
    {"official"},
    {"set"},
    {"map", "ndcg_cut", "P", "recall"},
    {"map_cut", "iprec_at_recall", "success", "relative_P", "Rprec_mult"},
    {"ndcg_cut.10,20", "P.5", "P_3", "recall.1,2,1000", "map_cut.2"},
    {"success.1,2", "iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,1.5", "relative_P_4"},
    {"set_F.0.5", "utility.1,2,3,4", "11pt_avg.0.3,0.6", "relstring.5", "runid"},
    {"gm_map", "gm_bpref", "infAP", "binG", "G", "ndcg", "ndcg_rel", "Rndcg"},
    {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_map"},
    {"P_5x"},  # pytrec_eval reads the longest prefix it understands
]

# A query's judgements, empty or with at least one grade >= 0: where every grade is negative,
# pytrec_eval counts no document retrieved (num_ret 0) or crashes; rankscope counts them.
judgements = st.dictionaries(
    st.sampled_from(DOCS), st.sampled_from([-1, 0, 0, 1, 1, 2, 3]), max_size=8
).filter(lambda judged: not judged or max(judged.values()) >= 0)
qrels_strategy = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(6)]), judgements, min_size=1, max_size=6
)
run_strategy = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(8)]),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), max_size=10),
    max_size=8,
)


def pytrec_eval_in_child(
    qrels: dict[str, Any], run: dict[str, Any], measures: set[str], **options: Any
) -> Any:
    """pytrec_eval's dicts, computed in a child process (`peer_child`): pytrec_eval reads
    memory it never wrote on some queries without relevant or judged documents retrieved (it
    crashes, or returns NaN). None when it does; rankscope's values there are the measures'
    own."""
    result = in_child(pytrec_eval_dicts, qrels, run, measures, options)
    if result is None:
        return None
    if any(math.isnan(v) for values in result.values() for v in values.values()):
        return None
    return result


def both(
    qrels: dict[str, Any], run: dict[str, Any], measures: set[str], **options: Any
) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compat is as quiet as pytrec_eval
        ours = compat.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    return ours, pytrec_eval_in_child(qrels, run, measures, **options)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    qrels=qrels_strategy,
    run=run_strategy,
    measures=st.sampled_from(MEASURE_SETS),
    relevance_level=st.sampled_from([1, 2]),
    judged_only=st.booleans(),
)
def test_identical_dicts(
    qrels: dict[str, Any],
    run: dict[str, Any],
    measures: set[str],
    relevance_level: int,
    judged_only: bool,
) -> None:
    # A judged query held with no document is pytrec_eval's undefined case (see
    # test_a_query_ranking_nothing_is_evaluated).
    assume(all(documents for query, documents in run.items() if query in qrels))
    ours, theirs = both(
        qrels,
        run,
        measures,
        relevance_level=relevance_level,
        judged_docs_only_flag=judged_only,
    )
    assume(theirs is not None)
    assert ours == theirs
    assert [list(v) for v in ours.values()] == [list(v) for v in theirs.values()]  # key order


@pytest.mark.parametrize("measures", MEASURE_SETS, ids=lambda m: ",".join(sorted(m)))
def test_every_measure_set_on_a_larger_run(measures: set[str]) -> None:
    """40 queries of up to 60 documents, so that the default cutoffs matter."""
    import random

    rng = random.Random(7)
    qrels = {
        f"q{q}": {f"d{d}": rng.choice([-1, 0, 0, 1, 2]) for d in rng.sample(range(200), 30)}
        for q in range(40)
    }
    run = {
        f"q{q}": {f"d{d}": rng.choice([0.5, 1.0, 1.0 + 1e-9, rng.random()]) for d in range(60)}
        for q in range(3, 43)
    }
    ours, theirs = both(qrels, run, measures)
    assert ours == theirs


def test_keys_and_aggregates_match() -> None:
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1}, "q3": {}}
    run = {"q1": {"a": 0.5, "b": 0.7, "c": 0.1}, "q2": {"d": 1.0}, "q3": {"a": 1.0}}
    ours, theirs = both(qrels, run, {"map", "ndcg_cut", "P", "recall", "gm_map", "num_ret"})
    assert ours == theirs
    assert list(ours) == ["q1", "q2"]  # a query without judgements is not evaluated
    assert list(ours["q1"])[:3] == ["num_ret", "map", "gm_map"]
    assert "ndcg_cut_1000" in ours["q1"] and "P_5" in ours["q1"]
    for key in ours["q1"]:
        values = [ours[q][key] for q in ours]
        assert compat.compute_aggregated_measure(key, values) == (
            pytrec_eval.compute_aggregated_measure(key, values)
        )
    assert math.isclose(
        compat.compute_aggregated_measure("gm_map", [ours[q]["gm_map"] for q in ours]),
        math.sqrt(ours["q1"]["map"] * ours["q2"]["map"]),
    )


def test_a_query_ranking_nothing_is_evaluated() -> None:
    """A judged query the run holds with no document is evaluated, as by pytrec_eval (which
    crashes or gives NaN for gm_map, gm_bpref and iprec_at_recall there; rankscope gives what
    the measures give for an empty ranking)."""
    qrels = {"q0": {"d0": 0, "d1": 2}, "q1": {"d0": 1}, "q2": {"d3": 1}}
    run = {"q0": {}, "q1": {"d0": 1.0, "d5": 2.0}}
    measures = {"map", "P", "ndcg_cut", "recall", "num_rel", "num_ret", "utility", "bpref"}
    measures |= {"recip_rank", "Rprec", "success", "set_P", "set_recall", "set_F", "ndcg"}
    ours, _ = both(qrels, run, measures)
    assert list(ours) == ["q0", "q1"]
    # pytrec_eval reads memory it never wrote for q0 (its values there, or a crash, depend on
    # the process): compared where it is defined, q1; q0 is what an empty ranking gives.
    _, theirs = both(qrels, {"q1": run["q1"]}, measures)
    assert ours["q1"] == theirs["q1"]
    assert ours["q0"]["num_rel"] == 1.0
    assert {key for key, value in ours["q0"].items() if value != 0.0} == {"num_rel"}


def test_supported_measures_are_pytrec_evals() -> None:
    assert compat.supported_measures == set(pytrec_eval.supported_measures)
    for nickname in ("official", "set", "all_trec"):
        assert compat.supported_nicknames[nickname] == set(
            pytrec_eval.supported_nicknames[nickname]
        )


def test_empty_run_gives_an_empty_dict() -> None:
    assert compat.RelevanceEvaluator({"q": {"a": 1}}, {"map"}).evaluate({}) == {}


@pytest.mark.parametrize(
    ("measures", "message"),
    [
        ({"foo"}, "unsupported measure foo"),
        ({"P_x"}, "unsupported measure P_x"),
        ({"ndcg.1"}, "grade=gain pairs"),
        ({"utility.1,2"}, "utility takes 4 distinct coefficients"),
    ],
)
def test_bad_measures_raise_value_error(measures: set[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compat.RelevanceEvaluator({"q": {"a": 1}}, measures)


def test_bad_relevance_level() -> None:
    with pytest.raises(ValueError, match="relevance_level must be at least 1"):
        compat.RelevanceEvaluator({"q": {"a": 1}}, {"map"}, relevance_level=0)


def test_parse_qrel_and_run_as_pytrec_eval() -> None:
    qrel_lines = ["q1 0 d1 2\n", "q1 0 d2 0\n", "q2 0 d3 1\n"]
    run_lines = ["q1 Q0 d1 1 2.5 bm25\n", "q1 Q0 d2 2 1.5 bm25\n", "q2 Q0 d3 1 -1 bm25\n"]
    assert compat.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    assert compat.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)


@pytest.mark.parametrize(
    ("lines", "parse", "message"),
    [
        (["q1 0 d1 1", "q1 0 d1 2"], compat.parse_qrel, "<qrels>:2: document 'd1' appears twice"),
        (["q1 0 d1"], compat.parse_qrel, "<qrels>:1: expected 4 whitespace-separated fields"),
        (["q1 0 d1 x"], compat.parse_qrel, "relevance must be an integer grade; found 'x'"),
        (["q1 Q0 d1 1 high run"], compat.parse_run, "score must be a finite number; found 'high'"),
    ],
)
def test_parse_errors_name_the_line(lines: list[str], parse: Any, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse(lines)
