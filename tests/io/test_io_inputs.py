"""Inputs as users hold them: frames of every kind, ir_datasets' and ir_measures' tuples, BEIR
qrels without a header, RAG-style JSONL runs and ranx's JSON files, all evaluated alike."""

from __future__ import annotations

import json
import warnings
from collections import namedtuple
from pathlib import Path
from typing import Any

import datasets
import ir_measures
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import rankscope
from rankscope.io import as_qrels, as_run, read_qrels, read_run

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 1}}
RUN = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d9": 0.9, "d5": 0.5, "d4": 0.1}}
MEASURES = ["nDCG@10", "AP", "RR", "P@2"]


def _expected() -> dict[str, dict[str, float]]:
    return rankscope.evaluate(QRELS, RUN, MEASURES).to_dict()


def _rows(nested: dict[str, dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]


def _columns(
    nested: dict[str, dict[str, Any]], names: tuple[str, str, str]
) -> dict[str, list[Any]]:
    rows = _rows(nested)
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


QRELS_NAMES = [
    ("query_id", "doc_id", "relevance"),
    ("qid", "docno", "label"),
    ("query-id", "corpus-id", "score"),
    ("qid", "docid", "grade"),
]
RUN_NAMES = [
    ("query_id", "doc_id", "score"),
    ("qid", "docno", "score"),
    ("query-id", "corpus-id", "score"),
]
FRAMES = {
    "polars": pl.DataFrame,
    "polars-lazy": lambda data: pl.LazyFrame(data),
    "pandas": pd.DataFrame,
    "pyarrow": pa.table,
    "pyarrow-batch": pa.RecordBatch.from_pydict,
    "datasets": datasets.Dataset.from_dict,
}


@pytest.mark.parametrize("kind", sorted(FRAMES))
@pytest.mark.parametrize(
    ("qrels_names", "run_names"), list(zip(QRELS_NAMES, [*RUN_NAMES, RUN_NAMES[0]], strict=True))
)
def test_frames_of_every_kind_evaluate_like_dicts(
    kind: str, qrels_names: tuple[str, str, str], run_names: tuple[str, str, str]
) -> None:
    make = FRAMES[kind]
    qrels = make(_columns(QRELS, qrels_names))
    run = make(_columns(RUN, run_names))
    assert rankscope.evaluate(qrels, run, MEASURES).to_dict() == _expected()


class _ArrowStream:
    """Any object exporting an Arrow stream (the PyCapsule interface), not a known frame."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.table.__arrow_c_stream__(requested_schema)


def test_any_arrow_stream_is_read() -> None:
    qrels = _ArrowStream(pa.table(_columns(QRELS, ("qid", "docno", "rel"))))
    run = _ArrowStream(pa.table(_columns(RUN, ("qid", "docno", "score"))))
    assert rankscope.evaluate(qrels, run, MEASURES).to_dict() == _expected()


def test_a_datasets_selection_keeps_its_rows_and_order() -> None:
    table = datasets.Dataset.from_dict(_columns(RUN, ("query_id", "doc_id", "score")))
    chosen = table.select([5, 4, 0])  # an indices mapping over the Arrow table
    assert as_run(chosen).frame.rows() == [("q2", "d4", 0.1), ("q2", "d5", 0.5), ("q1", "d1", 0.9)]


def test_frame_columns_can_be_named_and_wrong_names_are_explained() -> None:
    frame = pl.DataFrame({"topic": ["q1"], "document": ["d1"], "judgement": [1]})
    qrels = as_qrels(frame, query_id="topic", doc_id="document", relevance="judgement")
    assert qrels.frame.rows() == [("q1", "d1", 1)]
    assert rankscope.Qrels.from_df(
        frame, query_id="topic", doc_id="document", relevance="judgement"
    ).frame.rows() == [("q1", "d1", 1)]
    with pytest.raises(
        rankscope.InputError, match=r"<DataFrame>: no column for query_id: expected"
    ):
        as_qrels(frame)
    with pytest.raises(rankscope.InputError, match=r"no column 'qid' \(given as query_id='qid'\)"):
        as_qrels(frame, query_id="qid")


def test_frame_values_are_checked_as_file_values_are() -> None:
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [0.5, float("nan")]})
    with pytest.raises(
        rankscope.InputError,
        match=r"score must be a finite number; found None for query 'q1', document 'd2' \(row 2\)",
    ):
        as_run(frame)
    grades = pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "relevance": [0.5]})
    with pytest.raises(rankscope.InputError, match="relevance must be an integer grade"):
        as_qrels(grades)


def test_ir_measures_tuples_evaluate_like_dicts_and_agree_with_ir_measures() -> None:
    qrels = [ir_measures.Qrel(q, d, g) for q, d, g in _rows(QRELS)]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in _rows(RUN)]
    results = rankscope.evaluate(iter(qrels), iter(run), MEASURES)
    assert results.to_dict() == _expected()
    theirs = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(m) for m in ["nDCG@10", "AP", "RR", "P@2"]], qrels, run
    )
    for name, value in results.mean().items():
        assert value == pytest.approx(theirs[ir_measures.parse_measure(name)], abs=1e-12)


# The shapes of ir_datasets' records (its qrels_iter() and scoreddocs_iter() yield these).
TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
GenericScoredDoc = namedtuple("GenericScoredDoc", "query_id doc_id score")


def test_ir_datasets_records_dicts_and_triples_evaluate_like_dicts() -> None:
    qrels = (TrecQrel(q, d, g, "0") for q, d, g in _rows(QRELS))
    run = (GenericScoredDoc(q, d, s) for q, d, s in _rows(RUN))
    assert rankscope.evaluate(qrels, run, MEASURES).to_dict() == _expected()
    records = [{"qid": q, "docno": d, "score": s} for q, d, s in _rows(RUN)]
    assert rankscope.evaluate(_rows(QRELS), records, MEASURES).to_dict() == _expected()


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([], "the qrels iterable holds no records"),
        ([TrecQrel("q1", "d1", 1, "0"), ("q1", "d2")], r"record 2 is not shaped like the first"),
        ([TrecQrel("q1", "d1", 1.5, "0")], "relevance must be an integer grade; found 1.5"),
        ([TrecQrel("q1", 3.0, 1, "0")], "document ids must be strings or integers; found float"),
        ([("q1", "d1")], "qrels records must be named tuples"),
        ([{"topic": "q1"}], "no key for query_id"),
    ],
)
def test_bad_records_are_named(records: list[Any], message: str) -> None:
    with pytest.raises(rankscope.InputError, match=message):
        as_qrels(records)


# -- files ------------------------------------------------------------------------------------


def test_beir_qrels_with_or_without_a_header_read_alike(tmp_path: Path) -> None:
    rows = "".join(f"{q}\t{d}\t{g}\n" for q, d, g in _rows(QRELS))
    with_header = tmp_path / "test.tsv"
    with_header.write_text("query-id\tcorpus-id\tscore\n" + rows)
    without = tmp_path / "qrels.txt"
    without.write_text(rows)
    assert read_qrels(without).frame.rows() == read_qrels(with_header).frame.rows()
    assert read_qrels(without).frame.rows() == _rows(QRELS)
    without.write_text(rows + "q3\td7\tx\n")
    with pytest.raises(rankscope.ParseError, match=r"qrels.txt:6: relevance must be an integer"):
        read_qrels(without)


def test_a_trec_qrels_line_lacking_a_field_is_not_taken_for_beir(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1\t0\td1\n")
    with pytest.raises(rankscope.ParseError, match="expected 4 whitespace-separated fields"):
        read_qrels(path)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ({"query_id": "q1", "doc_ids": ["d1", "d3", "d2"]}, None),
        ({"id": "q1", "question": "?", "retrieved": ["d1", "d3", "d2"]}, None),
        (
            {"question_id": "q1", "ctxs": [{"id": "d1", "score": "9"}, {"id": "d3"}, {"id": "d2"}]},
            None,
        ),
        ({"qid": "q1", "hits": [{"docid": "d1"}, {"docid": "d3"}, {"docid": "d2"}]}, None),
        ({"qid": "q1", "mine": [{"_id": "d1"}, {"_id": "d3"}, {"_id": "d2"}], "docs": []}, "mine"),
    ],
)
def test_jsonl_runs_with_any_list_key(
    tmp_path: Path, line: dict[str, Any], key: str | None
) -> None:
    path = tmp_path / "rag.jsonl"
    path.write_text(json.dumps(line) + "\n")
    run = read_run(path, list_key=key)
    assert run.frame.rows() == [("q1", "d1", 3.0), ("q1", "d3", 2.0), ("q1", "d2", 1.0)]


def test_jsonl_list_key_errors(tmp_path: Path) -> None:
    path = tmp_path / "rag.jsonl"
    path.write_text(
        '{"id": "q1", "ctxs": [{"id": "d1"}]}\n{"id": "q2", "ctxs": [{"title": "t"}]}\n'
    )
    with pytest.raises(rankscope.ParseError, match=r"rag.jsonl:2: in 'ctxs': key 'id' is missing"):
        read_run(path)
    with pytest.raises(rankscope.InputError, match=r"no key 'retrieved' \(given as the run's list"):
        read_run(path, list_key="retrieved")
    path.write_text('{"id": "q1", "ctxs": [{"title": "t"}]}\n')
    with pytest.raises(rankscope.InputError, match=r"need a document id under one of 'doc_id'"):
        read_run(path)
    trec = tmp_path / "run.txt"
    trec.write_text("q1 Q0 d1 1 1.0 tag\n")
    with pytest.raises(rankscope.InputError, match=r"a list key .* applies to JSON Lines runs"):
        read_run(trec, list_key="ctxs")


def test_ranx_json_runs_and_qrels(tmp_path: Path) -> None:
    run_path, qrels_path, hub_path = (
        tmp_path / "run.json",
        tmp_path / "qrels.json",
        tmp_path / "hub.json",
    )
    run_path.write_text(json.dumps(RUN))  # ranx's Run.save("run.json"): one object
    qrels_path.write_text(json.dumps(QRELS, indent=2))
    hub_path.write_text(json.dumps({"metadata": {"run": {"name": "bm25"}}, "run": RUN}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = rankscope.evaluate(qrels_path, run_path, MEASURES)
    assert results.to_dict() == _expected()
    assert results.run_name == "run"
    assert read_run(hub_path).name == "bm25"
    assert read_run(run_path).frame.rows() == _rows(RUN)


def test_one_line_jsonl_is_still_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text('{"query_id": "q1", "doc_id": "d1", "score": 1.5}\n')
    assert read_run(path).frame.rows() == [("q1", "d1", 1.5)]
