"""Bad input never gives a number: each case raises an error that says what and where."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import rankscope
from rankscope import Qrels, Run

GOOD_QRELS = {"q1": {"d1": 1, "d2": 0}}
GOOD_RUN = {"q1": {"d1": 1.0, "d2": 0.5}}


@pytest.mark.parametrize(
    ("qrels", "run", "error", "message"),
    [
        (
            GOOD_QRELS,
            {"q1": {"d1": math.nan}},
            rankscope.InputError,
            "score must be a finite number; found nan for query 'q1', document 'd1'",
        ),
        (
            GOOD_QRELS,
            {"q1": {"d1": math.inf}},
            rankscope.InputError,
            "score must be a finite number; found inf",
        ),
        (
            GOOD_QRELS,
            {"q1": {"d1": "high"}},
            rankscope.InputError,
            "score must be a finite number; found 'high'",
        ),
        (
            {"q1": {"d1": 1.5}},
            GOOD_RUN,
            rankscope.InputError,
            "relevance must be an integer grade; found 1.5 for query 'q1', document 'd1'",
        ),
        (
            {"q1": {"d1": "yes"}},
            GOOD_RUN,
            rankscope.InputError,
            "relevance must be an integer grade; found 'yes'",
        ),
        (
            {"q1": {"d1": True}},
            GOOD_RUN,
            rankscope.InputError,
            "relevance must be an integer grade; found True",
        ),
        (
            {"q1": ["d1"]},
            GOOD_RUN,
            rankscope.InputError,
            "qrels of query 'q1' must be a mapping doc_id -> grade; found list",
        ),
        (
            {"q2": {"d1": 1}},
            GOOD_RUN,
            rankscope.InputError,
            "no query of the run (<dict>) is judged in the qrels (<dict>)",
        ),
        (42, GOOD_RUN, rankscope.InputError, "qrels must be a Qrels, a dict"),
        ([("q1", "d1")], GOOD_RUN, rankscope.InputError, "qrels records must be named tuples"),
        (GOOD_QRELS, 42, rankscope.InputError, "run must be a Run, a dict"),
        (GOOD_QRELS, "no/such/run.txt", rankscope.InputError, "no/such/run.txt: no such file"),
    ],
)
def test_bad_inputs_raise(qrels: Any, run: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        rankscope.evaluate(qrels, run, "AP")
    assert message in str(raised.value)


@pytest.mark.parametrize("profile", ["trec", "trec9", "weknora"])
def test_a_query_given_an_empty_ranking_retrieved_nothing(profile: str) -> None:
    run: dict[str, dict[str, float]] = {"q1": {}, "q2": {"d1": 1.0}}
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    values = rankscope.evaluate(qrels, run, ["AP", "RR", "nDCG@3"], profile=profile).to_dict()
    assert values == {
        "q1": {"AP": 0.0, "RR": 0.0, "nDCG@3": 0.0},
        "q2": {"AP": 1.0, "RR": 1.0, "nDCG@3": 1.0},
    }
    alone = rankscope.evaluate(qrels, {"q1": {}}, "AP", profile=profile).to_dict()
    assert alone == {"q1": {"AP": 0.0}}


def test_duplicate_document_in_a_ranking_is_an_error_under_trec() -> None:
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "score": [1.0, 0.5]})
    run = Run.from_frame(frame, source="run.tsv")
    with pytest.raises(rankscope.DuplicateDocumentError) as raised:
        rankscope.evaluate(GOOD_QRELS, run, "AP")
    assert str(raised.value).startswith(
        "run.tsv: document 'd1' appears more than once in the run of query 'q1'"
    )
    kept = rankscope.evaluate(GOOD_QRELS, run, "NumRet", duplicate_documents="keep_first")
    assert kept.mean() == {"NumRet": 1.0}


def test_duplicate_judgement_is_an_error() -> None:
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 0]})
    with pytest.raises(rankscope.DuplicateDocumentError, match="in the qrels of query 'q1'"):
        rankscope.evaluate(Qrels.from_frame(frame), GOOD_RUN, "AP")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"profile": "trac"}, "unknown profile 'trac'; expected one of 'trec', 'trec9', 'weknora'"),
        ({"relevance_level": 1.5}, "relevance_level must be an integer; got 1.5"),
        ({"max_documents": -1}, "max_documents must be an integer >= 0; got -1"),
        ({"max_documents": True}, "max_documents must be an integer >= 0; got True"),
        ({"complete": "no"}, "complete must be True or False; got 'no'"),
        ({"stream": True}, "stream=True needs the run as a file path; a dict is already"),
        (
            {"duplicate_documents": "merge"},
            "duplicate_documents must be one of 'error', 'keep_first', 'keep_all'; got 'merge'",
        ),
    ],
)
def test_bad_options_raise(options: dict[str, Any], message: str) -> None:
    with pytest.raises(rankscope.RankscopeError) as raised:
        rankscope.evaluate(GOOD_QRELS, GOOD_RUN, "AP", **options)
    assert message in str(raised.value)


def test_unjudged_run_queries_are_ignored_and_counted_in_a_warning() -> None:
    run = {**GOOD_RUN, "q9": {"d1": 1.0}, "q8": {"d2": 1.0}}
    with pytest.warns(
        rankscope.RankscopeWarning, match="2 queries of run 'run' have no judgements"
    ):
        results = rankscope.evaluate(GOOD_QRELS, run, "AP")
    assert results.query_ids == ["q1"]
    assert results.unjudged_queries == ("q8", "q9")


def test_inputs_are_not_mutated() -> None:
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d2": 0.9, "d1": 0.1}}
    frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.3]})
    before = (repr(qrels), repr(run), frame.copy())
    rankscope.evaluate(qrels, run, ["AP", "nDCG@10"])
    rankscope.evaluate(qrels, Run.from_df(frame), "AP")
    assert (repr(qrels), repr(run)) == before[:2]
    pd.testing.assert_frame_equal(frame, before[2])


def test_integer_ids_and_dataframes_give_the_same_results_as_dicts() -> None:
    by_dict = rankscope.evaluate({1: {10: 1, 11: 2}}, {1: {10: 0.2, 11: 0.9, 12: 0.5}}, "nDCG@2")
    qrels_df = pd.DataFrame({"qid": [1, 1], "docno": [10, 11], "rel": [1, 2]})
    run_df = pl.DataFrame({"query_id": [1, 1, 1], "doc_id": [10, 11, 12], "score": [0.2, 0.9, 0.5]})
    by_frames = rankscope.evaluate(
        Qrels.from_df(qrels_df, query_id="qid", doc_id="docno", relevance="rel"),
        Run.from_df(run_df),
        "nDCG@2",
    )
    assert by_dict.to_dict() == by_frames.to_dict()
    assert by_dict.query_ids == ["1"]


def test_missing_dataframe_columns_are_named() -> None:
    with pytest.raises(
        rankscope.InputError, match=r"no column for score: expected one named 'score'"
    ):
        Run.from_df(pd.DataFrame({"query_id": ["q"], "doc_id": ["d"]}))


def test_results_conversions_agree() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = rankscope.evaluate(GOOD_QRELS, GOOD_RUN, ["AP", "P@1", "NumRet"])
    assert results.to_dict() == {"q1": {"AP": 1.0, "P@1": 1.0, "NumRet": 2.0}}
    assert results.to_pandas().to_dict("records") == [
        {"query_id": "q1", "AP": 1.0, "P@1": 1.0, "NumRet": 2.0}
    ]
    assert results.to_polars().equals(results.per_query)
    np.testing.assert_array_equal(results.scores("map"), [1.0])
    with pytest.raises(rankscope.MeasureError, match="nDCG was not computed"):
        results.scores("nDCG")


def test_duplicates_beyond_the_cut_are_not_evaluated_as_in_trec_eval() -> None:
    frame = pl.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d2"], "score": [3.0, 2.0, 1.0]}
    )
    run = Run.from_frame(frame)
    assert rankscope.evaluate(GOOD_QRELS, run, "NumRet", max_documents=1).mean() == {"NumRet": 1.0}
    with pytest.raises(rankscope.DuplicateDocumentError, match="document 'd2'"):
        rankscope.evaluate(GOOD_QRELS, run, "NumRet", max_documents=3)


def test_duplicates_count_only_in_judged_queries_whatever_the_order() -> None:
    # q9 has no judgements: trec_eval never looks at its ranking, duplicates and all.
    frame = pl.DataFrame(
        {"query_id": ["q1", "q9", "q9"], "doc_id": ["d1", "x", "x"], "score": [1.0, 2.0, 1.0]}
    )
    with pytest.warns(rankscope.RankscopeWarning, match="no judgements and were ignored: q9"):
        results = rankscope.evaluate(GOOD_QRELS, Run.from_frame(frame), "NumRet")
    assert results.unjudged_queries == ("q9",)
    # Tied documents written in the wrong order are reordered; the duplicate is still seen.
    tied = pl.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["d1", "d2", "d1"], "score": [1.0, 1.0, 0.5]}
    )
    with pytest.raises(rankscope.DuplicateDocumentError, match="document 'd1'"):
        rankscope.evaluate(GOOD_QRELS, Run.from_frame(tied), "NumRet")


def test_qrels_duplicates_say_judged_once() -> None:
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 0]})
    with pytest.raises(rankscope.DuplicateDocumentError) as raised:
        rankscope.evaluate(Qrels.from_frame(frame), GOOD_RUN, "AP")
    assert "each document may be judged once per query" in str(raised.value)
    assert "keep_first" not in str(raised.value)


def test_exponential_gain_refuses_grades_that_overflow() -> None:
    qrels = {"q1": {"d1": 2000}}
    assert rankscope.evaluate(qrels, GOOD_RUN, "nDCG@10").mean() == {"nDCG@10": 1.0}
    with pytest.raises(rankscope.MeasureError, match="gain=exp needs grades up to 1023"):
        rankscope.evaluate(qrels, GOOD_RUN, "nDCG(gain=exp)@10")


def test_levels_below_one_and_no_documents_are_taken_as_trec_eval_takes_them() -> None:
    # trec_eval -l0: the judged non-relevant document counts; -M0: nothing is retrieved.
    qrels = {"q": {"a": 2, "b": 0, "c": -1}}
    run = {"q": {"b": 3.0, "x": 2.0, "a": 1.0}}
    names = ["P@1", "NumRel", "NumRelRet", "NumRet"]
    assert rankscope.evaluate(qrels, run, names).mean() == {
        "P@1": 0.0,
        "NumRel": 1.0,
        "NumRelRet": 1.0,
        "NumRet": 3.0,
    }
    assert rankscope.evaluate(qrels, run, names, relevance_level=0).mean() == {
        "P@1": 1.0,
        "NumRel": 2.0,
        "NumRelRet": 2.0,
        "NumRet": 3.0,
    }
    nothing = rankscope.evaluate(qrels, run, names, max_documents=0).mean()
    assert nothing == {"P@1": 0.0, "NumRel": 1.0, "NumRelRet": 0.0, "NumRet": 0.0}
