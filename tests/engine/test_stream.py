"""Streaming evaluation gives exactly the in-memory results, whatever the chunking."""

from __future__ import annotations

import gzip
import importlib
import itertools
import json
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import rankscope
from rankscope import _core
from rankscope.engine import plan
from rankscope.io import read_run_batches
from rankscope.io._native import read_native_qrels

EVALUATE = importlib.import_module("rankscope.engine._evaluate")  # the module, not the function
MEASURES = ["nDCG@10", "nDCG", "AP", "RR", "P@5", "R@10", "Bpref", "NumRet", "NumRel", "GM_AP"]


def write_files(folder: Path, seed: int = 7, grouped: bool = True) -> tuple[Path, Path]:
    """A qrels and a TREC run of 60 queries (some unjudged, some judged but not retrieved)."""
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for q in range(60):
        qid = f"q{q:03d}"
        if q % 9 != 4:  # q004, q013, ... are in the run only
            for d in rng.choice(200, 15, replace=False):
                qrels_lines.append(f"{qid} 0 d{d} {rng.integers(0, 4)}")
        if q % 11 != 6:  # q006, q017, ... are judged but not retrieved
            docs = rng.choice(200, rng.integers(1, 40), replace=False)
            scores = np.round(rng.random(docs.size), 2)  # many ties
            for rank, (d, s) in enumerate(zip(docs, scores, strict=True), start=1):
                run_lines.append(f"{qid} Q0 d{d} {rank} {s} sys")
    if not grouped:
        rng.shuffle(run_lines)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("# a comment line\n" + "\n".join(run_lines) + "\n")
    return qrels, run


def evaluate(qrels: Path, run: Path, **options: Any) -> rankscope.Results:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return rankscope.evaluate(qrels, run, MEASURES, **options)


@pytest.mark.parametrize("chunk_bytes", [1, 50, 333, 4096, 1 << 20])
@pytest.mark.parametrize(
    "options",
    [{}, {"complete": True}, {"max_documents": 7}, {"profile": "trec9", "relevance_level": 2}],
)
def test_streaming_equals_in_memory(
    tmp_path: Path, chunk_bytes: int, options: dict[str, Any]
) -> None:
    qrels, run = write_files(tmp_path)
    expected = evaluate(qrels, run, stream=False, **options)
    streamed = evaluate(qrels, run, stream=True, chunk_bytes=chunk_bytes, **options)
    assert_same_results(streamed, expected)


def error_messages(
    error: type[Exception], qrels: Path, run: Path, streams: tuple[bool | None, ...], **options: Any
) -> list[str]:
    """The message of ``error``, raised as ``run`` is read each way of ``streams``."""
    messages = []
    for stream in streams:
        with pytest.raises(error) as raised:
            evaluate(qrels, run, stream=stream, **options)
        messages.append(str(raised.value))
    return messages


def assert_same_results(got: rankscope.Results, expected: rankscope.Results) -> None:
    assert got.per_query.equals(expected.per_query)
    assert got.mean() == expected.mean()
    assert got.unjudged_queries == expected.unjudged_queries
    assert got.missing_queries == expected.missing_queries
    assert got.run_name == expected.run_name == "sys"


def test_chunks_hold_whole_queries_even_when_a_block_ends_inside_one(tmp_path: Path) -> None:
    _, run = write_files(tmp_path)
    chunks = list(read_run_batches(run, chunk_bytes=100))
    assert len(chunks) > 10
    seen: list[str] = []
    for chunk in chunks:
        queries = chunk.frame["query_id"].unique(maintain_order=True).to_list()
        assert not set(queries) & set(seen)
        seen.extend(queries)
    whole = pl.concat([c.frame for c in chunks])
    assert whole.equals(rankscope.io.read_run(run).frame)


def test_a_run_not_grouped_by_query_is_partitioned_with_a_warning(tmp_path: Path) -> None:
    qrels, run = write_files(tmp_path, grouped=False)
    expected = evaluate(qrels, run, stream=False)
    with pytest.warns(rankscope.RankscopeWarning) as caught:
        streamed = rankscope.evaluate(qrels, run, MEASURES, stream=True, chunk_bytes=500)
    assert any("the run is not grouped by query" in str(w.message) for w in caught)
    assert streamed.per_query.equals(expected.per_query)


def test_grouping_can_be_required(tmp_path: Path) -> None:
    qrels, run = write_files(tmp_path, grouped=False)
    with pytest.raises(
        rankscope.errors.NotGroupedError, match=r"query '.*' appears again after other queries"
    ):
        _core.evaluate_stream(
            read_native_qrels(qrels),
            str(run),
            plan(MEASURES, chunk_bytes=500),
            grouping="grouped",
            path=str(run),
        )


def test_compressed_runs_stream(tmp_path: Path) -> None:
    qrels, run = write_files(tmp_path)
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    expected = evaluate(qrels, run, stream=False)
    assert evaluate(qrels, packed, stream=True, chunk_bytes=700).per_query.equals(
        expected.per_query
    )


def test_an_error_in_a_later_chunk_names_its_line(tmp_path: Path) -> None:
    qrels, run = write_files(tmp_path)
    lines = run.read_text().splitlines()
    lines[500] = lines[500].replace(" sys", "")  # 5 fields instead of 6
    run.write_text("\n".join(lines) + "\n")
    with pytest.raises(rankscope.ParseError) as raised:
        evaluate(qrels, run, stream=True, chunk_bytes=1000)
    assert f"{run}:501: expected at least 6 whitespace-separated fields" in str(raised.value)


def test_only_trec_runs_stream(tmp_path: Path) -> None:
    qrels, _ = write_files(tmp_path)
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text('{"query_id": "q000", "doc_ids": ["d1"]}\n')
    with pytest.raises(rankscope.InputError, match="only TREC run files can be streamed"):
        evaluate(qrels, jsonl, stream=True)
    assert evaluate(qrels, jsonl).query_ids == ["q000"]  # read in memory


# -- the chunked reader behind evaluate(path): polars batches, read ahead on another core ------


@pytest.fixture(autouse=True)
def _chunks_at_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """These files are small: let evaluate(path) read them in chunks as it does large ones."""
    monkeypatch.setattr(EVALUATE, "CHUNKED_MIN_BYTES", 0)


def write_clean_files(
    folder: Path, grouped: bool = True, ranked: bool = False
) -> tuple[Path, Path]:
    """`write_files` without the comment line: a run the chunked reader takes; ``ranked``:
    each query's lines in trec_eval's rank order (score, then document id, descending)."""
    qrels, run = write_files(folder, grouped=grouped)
    lines = run.read_text().split("\n", 1)[1].splitlines()
    if ranked:
        lines.sort(key=lambda line: (line.split()[0], -float(line.split()[4])))
        lines = [
            line
            for _, same in itertools.groupby(lines, key=lambda line: line.split()[::4])
            for line in sorted(same, key=lambda line: line.split()[2], reverse=True)
        ]
    run.write_text("\n".join(lines) + "\n")
    return qrels, run


def _whole_reads_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the run was read whole")

    monkeypatch.setattr(EVALUATE, "native_run", refuse)


@pytest.mark.parametrize("ranked", [False, True])
@pytest.mark.parametrize("chunk_bytes", [1, 333, 1 << 20])
@pytest.mark.parametrize(
    "options",
    [{}, {"complete": True}, {"max_documents": 7}, {"profile": "trec9", "relevance_level": 2}],
)
def test_chunked_reading_equals_reading_whole(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    chunk_bytes: int,
    options: dict[str, Any],
    ranked: bool,
) -> None:
    qrels, run = write_clean_files(tmp_path, ranked=ranked)
    expected = evaluate(qrels, run, stream=False, **options)
    _whole_reads_refused(monkeypatch)
    assert_same_results(evaluate(qrels, run, chunk_bytes=chunk_bytes, **options), expected)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(b"# c\nq1 Q0 d1 1 1.5 t\n", id="comment"),
        pytest.param(b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 r2 1.0 t\n", id="rank-not-integer"),
        pytest.param(b"q1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 1.0 t\r\n", id="crlf"),
        pytest.param(b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2\t2 1.0 t\n", id="tab-inside"),
        pytest.param(b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 nan t\n", id="nan-score"),
        pytest.param(b"q1 Q0 d1 1 1.5 t\nq1 Q0  d2 2 1.0 t\n", id="empty-field"),
        pytest.param(b"q1 Q0 d1 1 1.5\n", id="no-tag"),
    ],
)
def test_what_the_chunked_reader_declines_is_read_whole(tmp_path: Path, text: bytes) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    run = tmp_path / "run.txt"
    run.write_bytes(text)
    outcomes: list[pl.DataFrame | str] = []
    for stream in (None, False):
        try:
            outcomes.append(evaluate(qrels, run, stream=stream).per_query)
        except rankscope.RankscopeError as error:
            outcomes.append(str(error))
    whole, default = outcomes[1], outcomes[0]
    if isinstance(whole, str):
        assert default == whole  # the same error, worded by the reader that reads every file
    else:
        assert isinstance(default, pl.DataFrame) and default.equals(whole)


def test_a_surprise_late_in_the_file_sends_it_to_be_read_whole(tmp_path: Path) -> None:
    # A vertical tab separates fields for trec_eval but not for polars: the byte scan finds it
    # after chunks were handed out, and the run is read again by the reader of every file.
    qrels, run = write_clean_files(tmp_path)
    lines = run.read_text().splitlines()
    lines[-1] = lines[-1].replace(" ", "\x0b", 1)
    run.write_text("\n".join(lines) + "\n")
    expected = evaluate(qrels, run, stream=False)
    assert evaluate(qrels, run, chunk_bytes=300).per_query.equals(expected.per_query)


def test_an_ungrouped_run_is_read_whole_without_a_warning(
    tmp_path: Path, recwarn: pytest.WarningsRecorder
) -> None:
    qrels, run = write_clean_files(tmp_path, grouped=False)
    expected = evaluate(qrels, run, stream=False)
    got = rankscope.evaluate(qrels, run, MEASURES, chunk_bytes=500)
    assert got.per_query.equals(expected.per_query)
    assert not [w for w in recwarn if "grouped" in str(w.message)]


def test_a_duplicate_in_a_later_chunk_is_the_same_error(tmp_path: Path) -> None:
    qrels, run = write_clean_files(tmp_path)
    lines = run.read_text().splitlines()
    lines.insert(400, lines[399])  # the same document again
    run.write_text("\n".join(lines) + "\n")
    messages = error_messages(
        rankscope.DuplicateDocumentError, qrels, run, (None, False), chunk_bytes=500
    )
    assert messages[0] == messages[1]


def test_weknora_duplicate_judgements_stream_as_in_memory(tmp_path: Path) -> None:
    # weknora keeps repeated judgements (the first grade counts for the ranking, every one for
    # recall's denominator): each chunk must see its queries' judgements in the file's order.
    qrels, run = write_clean_files(tmp_path)
    lines = qrels.read_text().splitlines()
    repeated = [f"{q} 0 {d} {3 - int(g)}" for q, _, d, g in (line.split() for line in lines[::5])]
    qrels.write_text("\n".join(lines + repeated) + "\n")
    measures = ["nDCG@3", "P", "R", "RR", "AP"]
    options: dict[str, Any] = {"profile": "weknora"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        expected = rankscope.evaluate(qrels, run, measures, stream=False, **options)
        for chunk_bytes in (300, 1 << 20):
            chunked = rankscope.evaluate(qrels, run, measures, chunk_bytes=chunk_bytes, **options)
            assert chunked.per_query.equals(expected.per_query)


def test_a_run_from_standard_input_is_read_whole(tmp_path: Path) -> None:
    qrels, run = write_clean_files(tmp_path)
    command = [sys.executable, "-m", "rankscope", "evaluate", str(qrels), "-", "-f", "json"]
    piped = subprocess.run(command, input=run.read_bytes(), capture_output=True, check=True)
    from_file = subprocess.run(
        [*command[:-3], str(run), "-f", "json"], capture_output=True, check=True
    )
    assert (
        json.loads(piped.stdout)["runs"][0]["mean"]
        == json.loads(from_file.stdout)["runs"][0]["mean"]
    )


def test_float32_overflow_ties_as_infinity(tmp_path: Path) -> None:
    # Under trec9 both scores round to float32 infinity: a tie, broken by document id.
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2e39 t\nq1 Q0 d2 2 1e39 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no numpy warning on the way
        for stream in (None, False):
            got = rankscope.evaluate(qrels, run, "RR", profile="trec9", stream=stream)
            assert got.mean() == {"RR": 0.5}


def test_an_error_in_an_early_chunk_does_not_overtake_a_later_one(tmp_path: Path) -> None:
    # A duplicate in the first chunk, a malformed line near the end: reading whole finds the
    # malformed line first (as trec_eval, which parses before it evaluates); so must we.
    qrels, run = write_clean_files(tmp_path)
    lines = run.read_text().splitlines()
    lines.insert(3, lines[2])
    lines[-3] = lines[-3] + " x"  # fine: extra fields are ignored
    lines[-2] = " ".join(lines[-2].split()[:4])  # 4 fields
    run.write_text("\n".join(lines) + "\n")
    messages = error_messages(rankscope.ParseError, qrels, run, (None, False), chunk_bytes=300)
    assert messages[0] == messages[1]


def test_no_common_queries_reads_the_same_either_way(tmp_path: Path) -> None:
    _, run = write_clean_files(tmp_path)
    other = tmp_path / "other.qrels"
    other.write_text("zz 0 d1 1\n")
    messages = error_messages(
        rankscope.InputError, other, run, (None, False, True), chunk_bytes=300
    )
    assert messages[0] == messages[1] == messages[2]
    assert "the run has 55 queries, the qrels 1, none in common" in messages[0]


def test_an_error_leaves_no_reader_behind(tmp_path: Path) -> None:
    qrels, run = write_clean_files(tmp_path)
    lines = run.read_text().splitlines()
    lines.insert(3, lines[2])  # a duplicate in the first chunk of many
    run.write_text("\n".join(lines) + "\n")
    before = threading.active_count()
    with pytest.raises(rankscope.DuplicateDocumentError) as raised:
        evaluate(qrels, run, chunk_bytes=100)
    assert raised.value is not None  # the error is kept alive, and yet
    assert threading.active_count() == before
