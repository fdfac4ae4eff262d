"""`rankscope compare` in-process: formats, options, the missing-query policy, errors."""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from compare_report_data import write_trec_files

from rankscope.cli import main

TrecFiles = Callable[..., tuple[str, list[str]]]


@pytest.fixture
def trec_files(tmp_path: Path) -> TrecFiles:
    """Writes generated qrels and runs as TREC files: ``(qrels path, run paths)``."""
    return functools.partial(write_trec_files, tmp_path)


# Few resamples: these tests check the command, not the statistics.
FAST = ["--resamples", "300"]


def run_compare(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["compare", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_default_table_has_the_default_measures_and_a_footnote(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, (bm25, dense) = trec_files()
    code, out, err = run_compare([qrels, bm25, dense, *FAST], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["run", "nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10", "R@100"]
    assert lines[1].startswith("bm25 (baseline)")
    assert lines[2].startswith("dense")
    # The generated "dense" ranks relevant documents far higher: significant on every measure
    # but R@100, where both runs retrieve every judged document (1.0 on every query).
    assert [cell.endswith("†") for cell in lines[2].split()[1:]] == [True] * 6 + [False]
    assert lines[1].split()[-1] == lines[2].split()[-1] == "1.0000"
    assert "paired t-test, Holm correction, corrected p ≤ 0.05; 25 queries" in out
    assert "p=" not in out


def test_show_p_adds_corrected_p_values(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files()
    code, out, _ = run_compare([qrels, *runs, "-m", "AP,RR", "--show-p", *FAST], capsys)
    assert code == 0
    assert out.splitlines()[2].count("p<0.001") == 2


@pytest.mark.parametrize(
    ("test", "correction", "words"),
    [
        ("wilcoxon", "bonferroni", "Wilcoxon signed-rank test, Bonferroni correction"),
        ("randomization", "bh", "paired randomization test, Benjamini-Hochberg correction"),
        ("bootstrap", "none", "paired bootstrap test, no correction for multiple comparisons"),
    ],
)
def test_markdown_footnote_names_the_test_and_correction(
    trec_files: TrecFiles,
    capsys: pytest.CaptureFixture[str],
    test: str,
    correction: str,
    words: str,
) -> None:
    qrels, runs = trec_files()
    arguments = [qrels, *runs, "-m", "nDCG@10", "--test", test, "--correction", correction]
    code, out, _ = run_compare([*arguments, "-f", "markdown", *FAST], capsys)
    assert code == 0
    assert out.startswith("| run | nDCG@10 |\n| --- | ---: |\n| bm25 (baseline) | ")
    assert "| dense | **" in out
    assert words in out


def test_latex_and_json_go_to_the_output_file(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, runs = trec_files(systems=("bm25", "dense", "hybrid"))
    latex_path, json_path = tmp_path / "table.tex", tmp_path / "result.json"
    base = [qrels, *runs, "-m", "nDCG@10,AP", *FAST]
    assert run_compare([*base, "-f", "latex", "-o", str(latex_path)], capsys)[1] == ""
    assert run_compare([*base, "-f", "json", "--output", str(json_path)], capsys)[1] == ""
    latex = latex_path.read_text(encoding="utf-8")
    assert r"\toprule" in latex and r"\bottomrule" in latex
    assert "hybrid & " in latex
    payload = json.loads(json_path.read_text(encoding="utf-8"))
    assert payload["systems"] == ["dense", "hybrid"]
    assert len(payload["comparisons"]) == 4
    assert all(0 <= record["corrected_p_value"] <= 1 for record in payload["comparisons"])


def test_html_report_is_written(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, runs = trec_files()
    path = tmp_path / "report.html"
    code, out, _ = run_compare([qrels, *runs, "-m", "AP", "-f", "html", "-o", str(path)], capsys)
    assert code == 0 and out == ""
    page = path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'data-measure="AP"' in page


def test_missing_queries_are_left_out_with_a_warning(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files(drop={"dense": ["003", "017"]})
    code, out, err = run_compare([qrels, *runs, "-m", "AP", "-f", "json", *FAST], capsys)
    assert code == 0
    assert "rankscope: warning: 2 queries are not in every run and were left out" in err
    assert "'dense' lacks 2 (003, 017)" in err
    payload = json.loads(out)
    assert payload["queries"] == 23
    assert payload["left_out_queries"] == {"dense": ["003", "017"]}
    assert payload["complete"] is False


def test_complete_scores_missing_queries_zero(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files(drop={"dense": ["003", "017"]})
    code, out, err = run_compare(
        [qrels, *runs, "-m", "AP", "-f", "json", "--complete", *FAST], capsys
    )
    assert code == 0
    assert "left out" not in err
    payload = json.loads(out)
    assert payload["queries"] == 25
    assert payload["complete"] is True
    assert payload["left_out_queries"] == {}
    # Two zeros more in 25 queries than the 23 shared ones: dense's mean drops.
    restricted = run_compare([qrels, *runs, "-m", "AP", "-f", "json", *FAST], capsys)[1]
    assert payload["means"]["dense"]["AP"] < json.loads(restricted)["means"]["dense"]["AP"]


def test_runs_with_the_same_tag_are_named_by_file(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, (bm25, dense) = trec_files()
    copy = tmp_path / "dense-copy.run"
    copy.write_text(Path(dense).read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run_compare([qrels, bm25, dense, str(copy), "-m", "AP", *FAST], capsys)
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[1:4]]
    assert names == ["bm25", "dense.run", "dense-copy.run"]  # only the repeated tag


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--test", "ttest"], "unknown test 'ttest' for --test; expected one of t, wilcoxon,"),
        (["--correction", "fdr"], "unknown correction 'fdr' for --correction; expected one of"),
        (["--alpha", "1.5"], "--alpha must lie strictly between 0 and 1; got 1.5"),
        (["--resamples", "0"], "--resamples must be an integer >= 1; got 0"),
        (["-m", "nDCG@ten"], "nDCG@ten"),
        (["--caption", "x"], "--caption applies to --format latex; the format is table"),
        (["-f", "html", "--label", "tab:x"], "--label applies to --format latex"),
    ],
)
def test_bad_options_are_clear_errors_with_exit_code_2(
    trec_files: TrecFiles,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    qrels, runs = trec_files(n_queries=5)
    code, out, err = run_compare([qrels, *runs, *options], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("rankscope: error: ")
    assert message in err
    assert "Traceback" not in err


def test_a_baseline_sharing_no_query_is_a_clear_error(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, (bm25, dense) = trec_files(n_queries=6)
    # The same qrels, but the baseline retrieved only for queries the other run lacks.
    lines = Path(bm25).read_text(encoding="utf-8").splitlines(keepends=True)
    only_first = [line for line in lines if line.startswith(("001 ", "002 "))]
    other = [line for line in Path(dense).read_text().splitlines(True) if line[:4] > "002 "]
    Path(bm25).write_text("".join(only_first), encoding="utf-8")
    Path(dense).write_text("".join(other), encoding="utf-8")
    code, out, err = run_compare([qrels, bm25, dense], capsys)
    assert code == 1 and out == ""
    assert "rankscope: error: run 'dense' and the baseline 'bm25' have no query in common" in err


def test_a_format_outside_the_table_is_a_usage_error(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files(n_queries=5)
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", qrels, *runs, "-f", "csv"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err


def test_on_a_terminal_the_table_is_drawn_with_bold_best_values(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, runs = trec_files()
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out, _ = run_compare([qrels, *runs, "-m", "AP,R@100", *FAST], capsys)
    assert code == 0
    assert "\x1b[1m" in out  # rich's bold
    assert re.search(r"\x1b\[1m0\.\d{4}", out)  # a value in bold: dense's AP
    assert "(baseline)" in out and "Holm correction" in out
