"""``rankscope fuse``: in-process, on the bundled example runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import rankscope
from rankscope.cli import main
from rankscope.cli._fuse import output_format
from rankscope.io import read_run

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
RUNS = [str(DATA / "bm25.run"), str(DATA / "dense.run")]
QRELS = str(DATA / "qrels.txt")


def run_cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["fuse", *arguments])
    out, err = capsys.readouterr()
    return code, out, err


def test_fused_trec_run_is_the_library_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "fused.trec"
    code, _, err = run_cli(capsys, *RUNS, "--method", "rrf", "--param", "k=20", "-o", str(output))
    assert (code, err) == (0, "")
    expected = rankscope.fuse(RUNS, "rrf", params={"k": 20})
    got = read_run(output)
    assert got.frame.rows() == expected.frame.rows()
    first = output.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "rrf"


def test_stdout_weights_norm_and_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, *RUNS, "--method", "wsum", "--weights", "0.3,0.7", "--norm", "zmuv", "--name", "hy"
    )
    assert code == 0
    expected = rankscope.fuse(RUNS, "wsum", "zmuv", {"weights": [0.3, 0.7]})
    lines = out.splitlines()
    assert len(lines) == expected.frame.height
    query, _, doc, rank, score, tag = lines[0].split()
    assert (query, doc, float(score)) == expected.frame.row(0)
    assert (rank, tag) == ("1", "hy")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("f.jsonl", "jsonl"),
        ("f.csv.gz", "csv"),
        ("f.parquet", "parquet"),
        ("f.run", "trec"),
        ("-", "trec"),
    ],
)
def test_the_output_format_follows_the_extension(name: str, expected: str) -> None:
    assert output_format(name) == expected


def test_jsonl_output_by_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "fused.jsonl"
    assert run_cli(capsys, *RUNS, "--method", "mnz", "-o", str(output))[0] == 0
    assert read_run(output).frame.rows() == rankscope.fuse(RUNS, "mnz").frame.rows()


def test_optimize_reports_the_search_and_writes_the_best(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "fused.trec"
    code, _, err = run_cli(
        capsys,
        *RUNS,
        "--method",
        "rrf",
        "--qrels",
        QRELS,
        "--optimize",
        "nDCG@10",
        "--param",
        "k=5,60",
        "-o",
        str(output),
    )
    search = rankscope.optimize_fusion(QRELS, RUNS, "rrf", "nDCG@10", candidates={"k": [5, 60]})
    assert code == 0
    assert f"rrf: nDCG@10 = {search.score:.4f}" in err and "(best of 2 tried)" in err
    best = rankscope.fuse(RUNS, "rrf", params=search.params)
    assert read_run(output).frame.rows() == best.frame.rows()


def test_trained_method_trains_on_qrels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *RUNS, "--method", "posfuse", "--qrels", QRELS)
    search = rankscope.optimize_fusion(QRELS, RUNS, "posfuse")
    expected = rankscope.fuse(RUNS, "posfuse", params=search.params)
    assert code == 0 and "posfuse: nDCG@100" in err
    assert len(out.splitlines()) == expected.frame.height


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--method", "nope"], "invalid choice: 'nope'"),
        (["--param", "k"], "expected NAME=VALUE"),
        (["--param", "k=x"], "the value of k must be a number"),
        (["--weights", "1,a"], "expected comma-separated numbers"),
        (["--method", "gmnz"], "gmnz needs the parameter gamma"),
        (["--method", "rrf", "--param", "gamma=1"], "rrf takes no parameter gamma"),
        (["--method", "rrf", "--param", "k=1,2"], "several values are tried only with --optimize"),
        (["--method", "probfuse"], "probfuse is trained on judgements: give them with --qrels"),
        (["--optimize", "AP"], "--optimize needs --qrels"),
        (["--qrels", QRELS], "--qrels is for training or --optimize; rrf needs neither"),
        (["--method", "wsum", "--weights", "1"], "weights needs one value per run (2); got 1"),
        (["-f", "xml"], "xml"),
    ],
)
def test_bad_options_exit_2_with_a_message(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(["fuse", *RUNS, *arguments])
    except SystemExit as exit:  # argparse refuses the option itself
        code = int(str(exit.code))
    assert code == 2
    assert message in capsys.readouterr().err
