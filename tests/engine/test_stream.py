"""Streaming evaluation gives exactly the in-memory results, whatever the chunking."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import rankscope
from rankscope.engine import parse_measures, resolve_profile
from rankscope.engine.stream import NotGroupedError, evaluate_chunks
from rankscope.io import read_run_batches

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
    assert streamed.per_query.equals(expected.per_query)
    assert streamed.mean() == expected.mean()
    assert streamed.unjudged_queries == expected.unjudged_queries
    assert streamed.missing_queries == expected.missing_queries
    assert streamed.run_name == expected.run_name == "sys"


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
    with pytest.raises(NotGroupedError, match=r"query '.*' appears again after other queries"):
        evaluate_chunks(
            rankscope.io.read_qrels(qrels),
            lambda: read_run_batches(run, chunk_bytes=500),
            parse_measures(MEASURES),
            resolve_profile("trec"),
            grouped=True,
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
