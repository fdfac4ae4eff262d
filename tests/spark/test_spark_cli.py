"""`rankscope evaluate --engine spark`: what the in-memory command prints, from TREC files,
Parquet directories and globs; malformed lines as messages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rankscope.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, main

# A slow group (a local Spark cluster): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
QRELS, BM25, DENSE = (str(EXAMPLE / name) for name in ("qrels.txt", "bm25.run", "dense.run"))


def run_cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["evaluate", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "options",
    [
        ["-f", "json", "-q", "-c"],
        ["-m", "nDCG@10,P(rel=2)@5,IPrec@0.5,NumRel", "-f", "csv", "-l", "2", "-M", "20"],
    ],
    ids=["json-per-query-complete", "csv-measures"],
)
def test_spark_prints_what_the_in_memory_command_prints(
    spark: Any, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    memory = run_cli(capsys, QRELS, BM25, DENSE, *options)
    on_spark = run_cli(
        capsys, QRELS, BM25, DENSE, *options, "--engine", "spark", "--master", "local[2]"
    )
    assert memory[0] == EXIT_OK, memory[2]
    assert on_spark[0] == memory[0]
    if "json" in options:  # the same, but for provenance (the command and the time differ)
        printed = [json.loads(out) for out in (memory[1], on_spark[1])]
        assert {key for key in printed[0] if key != "provenance"} == {"runs"}
        assert [p["runs"] for p in printed] == [printed[0]["runs"]] * 2
        assert printed[1]["provenance"]["command"].endswith("--engine spark --master 'local[2]'")
    else:
        assert on_spark[1] == memory[1]
    assert "bm25" in on_spark[1] and "dense" in on_spark[1]


def test_parquet_directories_and_globs_of_trec_files(
    spark: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The run split over two TREC files (a glob) and over Parquet files in a directory.
    lines = Path(BM25).read_text().splitlines(keepends=True)
    half = len(lines) // 2
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.run").write_text("".join(lines[:half]))
    (parts / "b.run").write_text("".join(lines[half:]))
    table = pl.read_csv(
        BM25,
        separator=" ",
        has_header=False,
        new_columns=["qid", "q0", "docno", "rank", "score", "tag"],
        schema_overrides={"qid": pl.String, "docno": pl.String},
    )
    folder = tmp_path / "bm25_parquet"
    folder.mkdir()
    table[:100].select("qid", "docno", "score").write_parquet(folder / "part-0.parquet")
    table[100:].select("qid", "docno", "score").write_parquet(folder / "part-1.parquet")
    shutil.copy(QRELS, tmp_path / "qrels.txt")

    expected = run_cli(capsys, QRELS, BM25, "-f", "csv", "-q")
    assert expected[0] == EXIT_OK
    globbed = run_cli(capsys, QRELS, str(parts / "*.run"), "-f", "csv", "-q", "--engine", "spark")
    assert globbed[:2] == expected[:2]
    parquet = run_cli(capsys, QRELS, str(folder), "-f", "csv", "-q", "--engine", "spark")
    assert parquet[0] == EXIT_OK, parquet[2]
    # A Parquet run has no tag: it is named after its directory.
    assert parquet[1] == expected[1].replace("bm25", "bm25_parquet")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("q1 Q0 d1 1 0.5", "expected at least 6 whitespace-separated fields"),
        ("q1 Q0 d1 1 nan bm25", "score must be a finite number; found 'nan'"),
    ],
)
def test_a_malformed_run_line_is_an_error_naming_file_and_line(
    spark: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, message: str
) -> None:
    run = tmp_path / "bad.run"
    good = Path(BM25).read_text()
    run.write_text(good + line + "\n")
    code, out, err = run_cli(capsys, QRELS, str(run), "--engine", "spark")
    assert code == EXIT_INPUT
    assert out == ""
    assert err.startswith(f"rankscope: error: {run}:{len(good.splitlines()) + 1}: {message}")
    assert err.rstrip().endswith(line)


def test_a_malformed_qrels_line_is_an_error(
    spark: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels = tmp_path / "qrels.txt"
    good = Path(QRELS).read_text()
    qrels.write_text(good + "q1 0 d1 1.5\n")
    code, _, err = run_cli(capsys, str(qrels), BM25, "--engine", "spark")
    assert code == EXIT_INPUT
    line = len(good.splitlines()) + 1
    message = "relevance must be an integer grade; found '1.5'"
    assert f"{qrels}:{line}: {message}\n    q1 0 d1 1.5" in err


def test_options_of_the_memory_engine_are_refused_with_spark(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(capsys, QRELS, BM25, "--engine", "spark", "--lenient")
    assert code == EXIT_USAGE
    assert "--lenient applies to the memory engine" in err
    code, _, err = run_cli(capsys, QRELS, BM25, "--master", "local[2]")
    assert code == EXIT_USAGE
    assert "--master applies to --engine spark" in err
