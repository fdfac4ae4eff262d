"""``rankscope explain QRELS RUN -m MEASURE``: the explanation in each format, and its errors
as the other commands give them (a message naming the file and the line, no traceback)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rankscope.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, _explain, main
from rankscope.io._values import VALUE_FORMATS
from rankscope.report.explain import EXPLAIN_FORMATS

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq2 0 d 1\n"
RUN = "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.5 r\nq2 Q0 d 1 0.9 r\nq2 Q0 c 2 0.8 r\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_the_text_names_the_conventions_and_the_causes(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", *files, "-m", "ndcg_cut.10"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("nDCG@10 under 8 profiles (2 queries)")  # every built-in profile
    assert re.search(r"trec -> weknora: [+-]0\.\d{4} in the mean; 2 of 2 queries differ", out)
    assert re.search(r"  ordering +score_then_docid_desc +as_given", out)
    assert "1 group of equal scores in 1 query (2 documents)" in out


def test_json_and_markdown_and_a_file(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["explain", *files, "-m", "RR", "--profiles", "trec,weknora", "-f", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [p["profile"] for p in document["profiles"]] == ["trec", "weknora"]
    assert document["pairs"][0]["contributions"][0]["convention"] == "ordering"
    target = tmp_path / "explained.md"
    argv = ["explain", *files, "-m", "RR", "--profiles", "trec,weknora", "-f", "md"]
    assert main([*argv, "-o", str(target)]) == EXIT_OK
    assert capsys.readouterr().out == ""
    assert target.read_text().startswith("# RR under 2 profiles (2 queries)")


def test_against_a_trec_eval_output(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["trec-eval", "-q", "-m", "recip_rank", *files]) == EXIT_OK
    (tmp_path / "theirs.txt").write_text(capsys.readouterr().out)
    argv = ["explain", *files, "-m", "RR", "--against", str(tmp_path / "theirs.txt")]
    assert main(argv) == EXIT_OK
    out = capsys.readouterr().out
    assert "(trec_eval, recip_rank to 4 decimals, mean 0.7500)" in out
    assert "reproduced by: trec; trec9" in out


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--profiles", "trec,trac"], EXIT_USAGE, "unknown profile 'trac'"),
        (["--against-format", "json"], EXIT_USAGE, "--against-format describes the file"),
        (["--top", "-1"], EXIT_USAGE, "--top must be an integer >= 0; got -1"),
        (["--profiles", "trec,trec"], EXIT_USAGE, "--profiles: expected each profile once"),
        (["-m", "nDGC@10"], EXIT_USAGE, "unknown measure 'nDGC'"),
    ],
)
def test_usage_errors(
    files: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str,
) -> None:
    measure = [] if "-m" in argv else ["-m", "RR"]
    assert main(["explain", *files, *measure, *argv]) == code
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_a_bad_line_names_the_file_and_the_line(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 a 1 0.5 r\nq1 Q0 b 2 high r\n")
    assert main(["explain", files[0], str(bad), "-m", "RR"]) == EXIT_INPUT
    error = capsys.readouterr().err
    assert f"{bad}:2" in error and "Traceback" not in error
    theirs = tmp_path / "theirs.txt"
    theirs.write_text("recip_rank\tq1\t1.0000\nrecip_rank\tq2\n")
    assert main(["explain", *files, "-m", "RR", "--against", str(theirs)]) == EXIT_INPUT
    error = capsys.readouterr().err
    assert f"{theirs}:2" in error and "expected trec_eval's 3 fields" in error


def test_duplicates_overrides_every_profile(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    twice = tmp_path / "twice.txt"
    twice.write_text(RUN + "q1 Q0 a 3 0.1 r\n")
    argv = ["explain", files[0], str(twice), "-m", "RR", "--profiles", "trec"]
    assert main(argv) == EXIT_INPUT  # the one profile refuses the run: its error, as evaluate's
    assert "(--duplicates keep-first keeps the first" in capsys.readouterr().err
    assert main([*argv, "--duplicates", "keep-first"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "not computed" not in out and "1 document ranked more than once in 1 query" in out


def test_the_command_offers_the_formats_the_library_has() -> None:
    assert tuple(EXPLAIN_FORMATS) == _explain.FORMATS
    assert _explain.VALUE_FORMATS == VALUE_FORMATS
