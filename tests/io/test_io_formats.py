"""Every format, compression and standard input give the same tables and the same evaluation."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import zstandard

import rankscope
from rankscope.io import Qrels, Run, read_qrels, read_run
from rankscope.io._formats import detect_format

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "R@100"]

COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    ".zst": lambda data: zstandard.ZstdCompressor().compress(data),
}

# -- JSONL ---------------------------------------------------------------------------------------


def test_jsonl_rows(tmp_path: Path) -> None:
    path = tmp_path / "qrels.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_id": "d1", "relevance": 2, "note": "extra keys are ignored"}\n'
        "\n"
        '{"query_id": 7, "doc_id": 11, "relevance": 0.0}\n'
    )
    assert read_qrels(path).frame.rows() == [("q1", "d1", 2), ("7", "11", 0)]


def test_jsonl_rows_with_other_key_names(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q1", "docno": "d1", "score": 0.5}\n')
    assert read_run(path).frame.rows() == [("q1", "d1", 0.5)]
    path.write_text('{"topic": "q1", "doc": "d1", "sim": 0.5}\n')
    run = read_run(path, query_id="topic", doc_id="doc", score="sim")
    assert run.frame.rows() == [("q1", "d1", 0.5)]
    assert run.name == "run"


def test_jsonl_ranked_lists_score_by_position(tmp_path: Path) -> None:
    path = tmp_path / "rag.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_ids": ["c", "a", "b"]}\n'
        '{"query_id": "q2", "doc_ids": []}\n'
        '{"query_id": "q3", "doc_ids": [42]}\n'
    )
    run = read_run(path)
    expected = Run.from_lists({"q1": ["c", "a", "b"], "q3": ["42"]})
    assert run.frame.equals(expected.frame)
    assert run.name == "rag"


def test_jsonl_results_lists(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"query_id": "q1", "results": [{"doc_id": "a", "score": 2}, '
        '{"doc_id": "b", "score": 0.5}]}\n'
    )
    assert read_run(path).frame.rows() == [("q1", "a", 2.0), ("q1", "b", 0.5)]


def test_jsonl_relevant_lists_have_grade_one(tmp_path: Path) -> None:
    path = tmp_path / "qrels.jsonl"
    path.write_text('{"query_id": "q1", "relevant_doc_ids": ["a", "b"]}\n')
    assert read_qrels(path).frame.rows() == [("q1", "a", 1), ("q1", "b", 1)]


# -- CSV, TSV, BEIR, Parquet ---------------------------------------------------------------------


def test_beir_qrels_tsv(tmp_path: Path) -> None:
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\tdoc-007\t1\nq2\t12\t2\n")
    assert read_qrels(path).frame.rows() == [("q1", "doc-007", 1), ("q2", "12", 2)]


def test_csv_keeps_ids_as_text_and_handles_quotes(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text('QID,DocNo,Score,extra\n007,"d,1",1.5,x\n007,"say ""hi""",2,y\n\n')
    run = read_run(path)
    assert run.frame.rows() == [("007", "d,1", 1.5), ("007", 'say "hi"', 2.0)]
    assert run.name == "run"


def test_csv_column_mapping(tmp_path: Path) -> None:
    path = tmp_path / "judgements.csv"
    path.write_text("topic,document,label\nq1,d1,1\n")
    qrels = read_qrels(path, query_id="topic", doc_id="document", relevance="label")
    assert qrels.frame.rows() == [("q1", "d1", 1)]


def test_parquet_with_integer_ids(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame({"qid": [1, 1], "pid": [10, 20], "score": [3, 2]}).write_parquet(path)
    run = read_run(path)
    assert run.frame.rows() == [("1", "10", 3.0), ("1", "20", 2.0)]
    assert run.frame.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    )


def test_weknora_sample_qrels_parquet(weknora_samples_dir: Path) -> None:
    qrels = read_qrels(weknora_samples_dir / "qrels.parquet")
    assert len(qrels) == 4
    assert qrels.frame.row(0) == ("1", "2", 1)


# -- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extension", "head", "expected"),
    [
        (".txt", b"301 Q0 FR940202-2-00150 1 2.13 STANDARD\n", "trec"),
        (".test", b"# comment\n301 0 CR93E-10279 0\n", "trec"),
        ("", b"query-id\tcorpus-id\tscore\nq1\td1\t1\n", "tsv"),
        (".txt", b"qid,docno,rel\nq1,d1,1\n", "csv"),
        (".csv", b"a,b\n", "csv"),
        (".tsv", b"1185869\t0\t0\t1\n", "trec"),  # MS MARCO's qrels: TREC fields, .tsv name
        (".run", b'\n{"query_id": "q1", "doc_ids": ["d1"]}\n', "jsonl"),
        (".json", b"", "jsonl"),
        (".bin", b"PAR1\x15\x04", "parquet"),
        (".pq", b"", "parquet"),
    ],
)
def test_detect_format(extension: str, head: bytes, expected: str) -> None:
    assert detect_format(extension, head) == expected


def test_detection_knows_mapped_header_names() -> None:
    assert detect_format(".txt", b"topic\tdocument\tverdict\n") == "trec"
    assert detect_format(".txt", b"topic\tdocument\tverdict\n", {"query_id": "topic"}) == "tsv"


def test_forced_format(tmp_path: Path) -> None:
    path = tmp_path / "data.dat"
    path.write_text('{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n')
    assert len(read_qrels(path, format="ndjson")) == 1
    path.write_text("q1\t0\td1\t1\n")
    assert read_qrels(path, format="TREC").frame.rows() == [("q1", "d1", 1)]


# -- compression and standard input --------------------------------------------------------------

RUN_TEXT = b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\nq2 Q0 d3 1 0.5 bm25\n"
RUN_ROWS = [("q1", "d1", 2.5), ("q1", "d2", 1.5), ("q2", "d3", 0.5)]


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_compressed_trec_run(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bm25.trec{suffix}"
    path.write_bytes(COMPRESSORS[suffix](RUN_TEXT))
    run = read_run(path)
    assert run.frame.rows() == RUN_ROWS
    assert run.name == "bm25"


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_compressed_jsonl_and_csv_take_the_inner_extension(tmp_path: Path, suffix: str) -> None:
    jsonl = tmp_path / f"rag.jsonl{suffix}"
    jsonl.write_bytes(COMPRESSORS[suffix](b'{"query_id": "q1", "doc_ids": ["a", "b"]}\n'))
    assert read_run(jsonl).frame.rows() == [("q1", "a", 2.0), ("q1", "b", 1.0)]
    assert read_run(jsonl).name == "rag"
    tsv = tmp_path / f"qrels.tsv{suffix}"
    tsv.write_bytes(COMPRESSORS[suffix](b"query-id\tcorpus-id\tscore\nq1\td1\t1\n"))
    assert read_qrels(tsv).frame.rows() == [("q1", "d1", 1)]


def test_compressed_without_compression_extension_is_sniffed(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_bytes(lzma.compress(RUN_TEXT))
    assert read_run(path).frame.rows() == RUN_ROWS


@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda data: io.TextIOWrapper(io.BytesIO(data)), id="text-stream"),
        pytest.param(io.BytesIO, id="binary-stream"),
    ],
)
def test_run_from_stdin(monkeypatch: pytest.MonkeyPatch, wrap: Callable[[bytes], Any]) -> None:
    monkeypatch.setattr(sys, "stdin", wrap(RUN_TEXT))
    run = read_run("-")
    assert run.frame.rows() == RUN_ROWS
    assert run.source == "<stdin>"
    assert run.name == "bm25"


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_compressed_stdin(monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    data = COMPRESSORS[suffix](b"query_id,doc_id,relevance\nq1,d1,3\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert read_qrels("-").frame.rows() == [("q1", "d1", 3)]


def test_parquet_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.BytesIO()
    pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [1]}).write_parquet(buffer)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.getvalue())))
    assert read_qrels("-").frame.rows() == [("q1", "d1", 1)]


# -- the same data in every format evaluates the same --------------------------------------------


@pytest.fixture(scope="module")
def reference(conformance_dir: Path) -> tuple[Qrels, Run, dict[str, float]]:
    qrels = read_qrels(conformance_dir / "qrels.test")
    run = read_run(conformance_dir / "results.test")
    return qrels, run, rankscope.evaluate(qrels, run, MEASURES).mean()


def _trec_order(run: Run) -> pl.DataFrame:
    # The order the trec profile ranks in: score descending, ties by doc id descending.
    return run.frame.sort(["query_id", "score", "doc_id"], descending=[False, True, True])


def _run_variants(run: Run, conformance_dir: Path, folder: Path) -> dict[str, Path]:
    frame = run.frame
    text = (conformance_dir / "results.test").read_bytes()
    paths: dict[str, Path] = {}
    rows = folder / "rows.jsonl"
    rows.write_text("".join(json.dumps(row) + "\n" for row in frame.iter_rows(named=True)))
    paths["jsonl-rows"] = rows
    ranked = _trec_order(run).group_by("query_id", maintain_order=True).agg("doc_id")
    lists = folder / "lists.jsonl"
    lists.write_text(
        "".join(json.dumps({"query_id": q, "doc_ids": d}) + "\n" for q, d in ranked.iter_rows())
    )
    paths["jsonl-doc_ids"] = lists
    nested = frame.group_by("query_id", maintain_order=True).agg(
        pl.struct("doc_id", "score").alias("results")
    )
    results = folder / "results.jsonl"
    results.write_text("".join(json.dumps(row) + "\n" for row in nested.iter_rows(named=True)))
    paths["jsonl-results"] = results
    csv_path = folder / "run.csv"
    frame.rename({"query_id": "qid", "doc_id": "docno"}).write_csv(csv_path)
    paths["csv"] = csv_path
    parquet = folder / "run.parquet"
    frame.write_parquet(parquet)
    paths["parquet"] = parquet
    for suffix, compress in COMPRESSORS.items():
        compressed = folder / f"results.test{suffix}"
        compressed.write_bytes(compress(text))
        paths[f"trec{suffix}"] = compressed
    return paths


def test_every_run_format_evaluates_the_same(
    conformance_dir: Path, tmp_path: Path, reference: tuple[Qrels, Run, dict[str, float]]
) -> None:
    qrels, run, expected = reference
    variants = _run_variants(run, conformance_dir, tmp_path)
    assert len(variants) == 9
    for name, path in variants.items():
        got = rankscope.evaluate(qrels, read_run(path), MEASURES).mean()
        assert got == pytest.approx(expected, abs=1e-12), name


def test_every_qrels_format_evaluates_the_same(
    tmp_path: Path, reference: tuple[Qrels, Run, dict[str, float]]
) -> None:
    qrels, run, expected = reference
    frame = qrels.frame
    beir = tmp_path / "beir.tsv"
    frame.rename({"query_id": "query-id", "doc_id": "corpus-id", "relevance": "score"}).write_csv(
        beir, separator="\t"
    )
    rows = tmp_path / "rows.jsonl.gz"
    rows.write_bytes(
        gzip.compress("".join(json.dumps(r) + "\n" for r in frame.iter_rows(named=True)).encode())
    )
    relevant = frame.filter(pl.col("relevance") > 0).group_by("query_id", maintain_order=True)
    lists = tmp_path / "lists.jsonl"
    lists.write_text(
        "".join(
            json.dumps({"query_id": q, "relevant_doc_ids": d}) + "\n"
            for q, d in relevant.agg("doc_id").iter_rows()
        )
    )
    parquet = tmp_path / "qrels.parquet"
    frame.write_parquet(parquet)
    for path in (beir, rows, lists, parquet):
        got = rankscope.evaluate(read_qrels(path), run, MEASURES).mean()
        assert got == pytest.approx(expected, abs=1e-12), path.name


@pytest.mark.parametrize(
    ("name", "content"),
    [
        pytest.param("run[1].trec", RUN_TEXT, id="trec-fast"),
        pytest.param("run*.trec", RUN_TEXT.replace(b" ", b"\t  "), id="trec-general"),
        pytest.param(
            "run?.csv", b"query_id,doc_id,score\nq1,d1,2.5\nq1,d2,1.5\nq2,d3,0.5\n", id="csv"
        ),
        pytest.param(
            "run[*].jsonl",
            b"".join(
                json.dumps({"query_id": q, "doc_id": d, "score": s}).encode() + b"\n"
                for q, d, s in RUN_ROWS
            ),
            id="jsonl",
        ),
    ],
)
def test_glob_characters_in_file_names_are_literal(
    tmp_path: Path, name: str, content: bytes
) -> None:
    (tmp_path / "run1.trec").write_bytes(b"q9 Q0 d9 1 9 x\n")  # the pattern run[1].trec matches
    (tmp_path / "runX.csv").write_bytes(b"query_id,doc_id,score\nq9,d9,9\n")
    path = tmp_path / name
    path.write_bytes(content)
    assert read_run(path).frame.rows() == RUN_ROWS


def test_glob_characters_in_parquet_file_names_are_literal(tmp_path: Path) -> None:
    frame = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    frame.write_parquet(tmp_path / "a1.parquet")
    frame.write_parquet(tmp_path / "a[1].parquet")
    assert len(read_run(tmp_path / "a[1].parquet")) == 1


def test_named_pipe_is_read_once(tmp_path: Path) -> None:
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as writer:
            writer.write(gzip.compress(RUN_TEXT))

    feeder = threading.Thread(target=feed)
    feeder.start()
    run = read_run(fifo)
    feeder.join()
    assert run.frame.rows() == RUN_ROWS
