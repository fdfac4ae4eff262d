"""`rankscope evaluate`: the bundled example, every output format, and errors as messages."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from doors import run as run_door

import rankscope
from rankscope.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
QRELS, BM25, DENSE = (str(EXAMPLE / name) for name in ("qrels.txt", "bm25.run", "dense.run"))


# Every test here runs through both doors of the command line: the Python command and the
# native executable (which serves `evaluate` on TREC files itself, the rest by the Python command).
pytestmark = pytest.mark.usefixtures("door")


def run_cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    return run_door(["evaluate", *arguments], capsys)


def test_the_bundled_example_gives_a_table_with_a_row_per_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, QRELS, BM25, DENSE)
    assert code == EXIT_OK, err
    lines = out.splitlines()
    assert lines[0].split() == ["run", "nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10", "R@100"]
    assert [line.split()[0] for line in lines[1:]] == ["bm25", "dense"]
    expected = rankscope.evaluate(QRELS, BM25, "nDCG@10").mean()["nDCG@10"]
    assert lines[1].split()[1] == f"{expected:.4f}"


def test_json_output_holds_means_and_per_query_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, QRELS, BM25, "-m", "AP,P(rel=2)@5", "-q", "-f", "json")
    assert code == EXIT_OK
    payload = json.loads(out)["runs"][0]
    results = rankscope.evaluate(QRELS, BM25, ["AP", "P(rel=2)@5"])
    assert payload["run"] == "bm25" and payload["profile"] == "trec"
    assert payload["mean"] == results.mean()
    assert payload["per_query"] == results.to_dict()


def test_csv_markdown_and_trec_formats(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, QRELS, BM25, DENSE, "-m", "AP", "-m", "NumRet", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["run"] for row in rows] == ["bm25", "dense"]
    assert rows[0]["NumRet"] == "1500"  # counts print as integers, summed over queries
    _, out, _ = run_cli(capsys, QRELS, BM25, "-m", "RR", "-f", "markdown")
    assert out.splitlines()[:2] == ["| run | RR |", "| --- | ---: |"]
    _, out, _ = run_cli(capsys, QRELS, BM25, "-m", "ndcg_cut.10", "-f", "trec", "-q")
    assert out.splitlines()[0].startswith("ndcg_cut_10           \t101\t")
    assert out.splitlines()[-1].startswith("ndcg_cut_10           \tall\t")


def test_output_file_and_profiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.json"
    code, out, _ = run_cli(
        capsys,
        QRELS,
        BM25,
        "-m",
        "nDCG@10",
        "--profile",
        "weknora",
        "-f",
        "json",
        "-o",
        str(target),
    )
    assert code == EXIT_OK and out == ""
    mean = json.loads(target.read_text())["runs"][0]["mean"]["nDCG@10"]
    assert mean == rankscope.evaluate(QRELS, BM25, "nDCG@10", profile="weknora").mean()["nDCG@10"]


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["no-such-qrels", BM25], EXIT_INPUT, "no-such-qrels: no such file"),
        (
            [QRELS, BM25, "-m", "nDGC@10"],
            EXIT_USAGE,
            "unknown measure 'nDGC'; did you mean nDCG, RnDCG, nDCGRel?",
        ),
        ([QRELS, BM25, "--profile", "weknora", "-m", "Bpref"], EXIT_USAGE, "not defined by"),
        ([QRELS, BM25, "--profile", "weknora", "-m", "RR@5"], EXIT_USAGE, "or --profile trec"),
        ([QRELS, BM25, "-f", "xml"], EXIT_USAGE, "invalid choice: 'xml'"),
        ([QRELS, BM25, "-M", "-1"], EXIT_USAGE, "-M/--max-documents must be an integer >= 0"),
        ([QRELS, BM25, "--qrels-format", "xml"], EXIT_USAGE, "unknown format 'xml'; expected"),
        ([QRELS, BM25, "--run-columns", "sc=x"], EXIT_USAGE, "expected query_id=COLUMN,"),
        ([QRELS, BM25, "--duplicates", "drop"], EXIT_USAGE, "invalid choice: 'drop'"),
        ([QRELS], EXIT_USAGE, "the following arguments are required: RUN"),
    ],
)
def test_errors_are_one_message_and_an_exit_code(
    capsys: pytest.CaptureFixture[str], arguments: list[str], code: int, message: str
) -> None:
    try:
        got, _, err = run_cli(capsys, *arguments)
    except SystemExit as raised:  # argparse's own errors
        got, err = int(str(raised.code)), capsys.readouterr().err
    assert got == code
    assert message in err
    assert "Traceback" not in err


def test_a_malformed_run_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("101 Q0 D101-4763 1 13.2 bm25\n101 Q0 D101-2286 2 inf bm25\n")
    code, _, err = run_cli(capsys, QRELS, str(bad))
    assert code == EXIT_INPUT
    assert f"{bad}:2: score must be a finite number; found 'inf'" in err
    assert "101 Q0 D101-2286 2 inf bm25" in err
    code, out, err = run_cli(capsys, QRELS, str(bad), "--lenient", "-m", "NumRet")
    assert code == EXIT_OK
    assert "skipped 1 malformed line" in err
    assert out.splitlines()[1].split() == ["bm25", "1"]


def test_streaming_from_the_command_line_gives_the_same_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, in_memory, _ = run_cli(capsys, QRELS, BM25, DENSE, "--no-stream")
    _, streamed, _ = run_cli(capsys, QRELS, BM25, DENSE, "--stream", "--chunk-mb", "1")
    assert streamed == in_memory


def test_jsonl_and_parquet_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import polars as pl

    code, out, _ = run_cli(capsys, QRELS, BM25, DENSE, "-m", "AP", "-q", "-f", "jsonl")
    assert code == EXIT_OK
    rows = [json.loads(line) for line in out.splitlines()]
    summary = [row for row in rows if row["query_id"] == "all"]
    assert [row["run"] for row in summary] == ["bm25", "dense"]
    assert summary[0]["AP"] == rankscope.evaluate(QRELS, BM25, "AP").mean()["AP"]
    assert len(rows) == 2 * (30 + 1)

    target = tmp_path / "results.parquet"
    code, _, _ = run_cli(capsys, QRELS, BM25, "-m", "AP,NumRet", "-f", "parquet", "-o", str(target))
    assert code == EXIT_OK
    table = pl.read_parquet(target)
    assert table.columns == ["run", "query_id", "AP", "NumRet"]
    assert table.row(0) == ("bm25", "all", summary[0]["AP"], 1500.0)

    code, _, err = run_cli(capsys, QRELS, BM25, "-f", "parquet")
    assert code == EXIT_INPUT
    assert "parquet output needs a file to write to (--output FILE)" in err


def test_trec_format_prints_counts_as_integers_and_summary_only_lines_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(
        capsys, QRELS, BM25, "-m", "P@5,P(rel=2)@5,NumQ,NumRel,GM_AP", "-f", "trec", "-q"
    )
    assert code == EXIT_OK
    names_for_101 = [line.split("\t")[0].strip() for line in out.splitlines() if "\t101\t" in line]
    assert names_for_101 == ["P_5", "P(rel=2)@5", "num_rel"]
    summary = {
        line.split("\t")[0].strip(): line.split("\t")[2]
        for line in out.splitlines()
        if "\tall\t" in line
    }
    assert summary["num_q"] == "30" and summary["num_rel"] == "455"
    assert "." in summary["gm_map"]


def test_stream_with_a_forced_trec_format_still_streams(capsys: pytest.CaptureFixture[str]) -> None:
    _, expected, _ = run_cli(capsys, QRELS, BM25, "-m", "AP")
    code, out, _ = run_cli(capsys, QRELS, BM25, "-m", "AP", "--run-format", "trec", "--stream")
    assert code == EXIT_OK and out == expected
    code, _, err = run_cli(capsys, QRELS, BM25, "--run-format", "jsonl", "--stream")
    assert code == EXIT_USAGE
    assert "--stream reads TREC runs only; a jsonl run is read whole" in err
