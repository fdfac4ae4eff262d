"""`Qrels(data)` and `Run(data, name=...)` as ranx builds them: from dicts, files, frames and
records, each checked as `as_qrels` / `as_run` check them."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest

import rankscope
from rankscope.errors import InputError
from rankscope.io import Qrels, Run, read_qrels, read_run

QRELS = "examples/data/qrels.txt"
BM25 = "examples/data/bm25.run"


def test_qrels_from_a_dict_as_ranx_builds_them() -> None:
    qrels = Qrels({"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}})
    assert qrels.frame.rows() == [
        ("q_1", "d_12", 5),
        ("q_1", "d_25", 3),
        ("q_2", "d_11", 6),
        ("q_2", "d_22", 1),
    ]
    assert qrels.to_dict() == Qrels.from_dict(qrels.to_dict()).to_dict()


def test_run_from_a_dict_with_a_name_as_ranx_builds_them() -> None:
    run = Run({"q_1": {"d_12": 0.9, "d_23": 0.8}, "q_2": {"d_12": 0.9}}, name="bm25")
    assert run.name == "bm25" and len(run) == 3
    assert Run({"q": ["b", "a"]}).frame.rows() == [("q", "b", 2.0), ("q", "a", 1.0)]


def test_files_frames_and_records_are_read_as_as_run_reads_them() -> None:
    assert Run(BM25).frame.equals(read_run(BM25).frame) and Run(BM25).name == "bm25"
    assert Qrels(QRELS).frame.equals(read_qrels(QRELS).frame)
    frame = pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "label": [2]})
    assert Qrels(frame).frame.rows() == [("q1", "d1", 2)]
    assert Run([("q1", "d1", 0.5)], name="x").frame.rows() == [("q1", "d1", 0.5)]


def test_the_tables_evaluate_as_their_dicts() -> None:
    qrels, run = {"q1": {"d1": 1, "d2": 0}}, {"q1": {"d2": 2.0, "d1": 1.0}}
    ours = rankscope.evaluate(Qrels(qrels), Run(run), ["RR", "AP"]).mean()
    assert ours == rankscope.evaluate(qrels, run, ["RR", "AP"]).mean() == {"RR": 0.5, "AP": 0.5}


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Qrels({"q1": {"d1": 0.5}}), "relevance must be an integer grade; found 0.5"),
        (lambda: Qrels({"q1": [1, 2]}), "qrels of query 'q1' must be a mapping doc_id -> grade"),
        (lambda: Run({"q1": {"d1": float("nan")}}), "score must be a finite number; found nan"),
        (lambda: Run(42), "run must be a Run, a dict"),
    ],
)
def test_bad_data_is_refused_with_the_readers_messages(build, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        build()


def test_nothing_given_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"Qrels\(\) needs the judgements"):
        Qrels()
    with pytest.raises(TypeError, match=r"Run\(\) needs the rankings"):
        Run()


def test_dataclasses_replace_still_renames_a_run() -> None:
    run = Run({"q1": {"d1": 1.0}}, name="bm25")
    renamed = dataclasses.replace(run, name="dense")
    assert renamed.name == "dense" and renamed.frame is run.frame
