"""`rankscope answers`: tables and JSON of answer measures, WeKnora's layout, errors as messages."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import rankscope
from rankscope.cli import EXIT_DEPENDENCY, EXIT_INPUT, EXIT_OK, EXIT_USAGE, main

WEKNORA = str(Path(__file__).resolve().parents[1] / "answers" / "data" / "weknora")


def run_cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["answers", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    references = tmp_path / "refs.jsonl"
    references.write_text(
        '{"qid": "q1", "answer": "The cat sat on the mat."}\n'
        '{"qid": "q2", "answer": "Paris is the capital of France."}\n'
    )
    good = tmp_path / "good.csv"
    good.write_text('qid,answer\nq1,"The cat sat on the mat."\nq2,"Paris is the capital."\n')
    poor = tmp_path / "poor.jsonl"
    poor.write_text('{"qid": "q1", "answer": "a dog"}\n{"qid": "q2", "answer": "Rome"}\n')
    return str(references), str(good), str(poor)


def test_a_row_per_system_with_the_measures_asked(
    capsys: pytest.CaptureFixture[str], files: tuple[str, str, str]
) -> None:
    references, good, poor = files
    code, out, err = run_cli(capsys, references, good, poor, "-m", "BLEU", "-m", "ROUGE-L")
    assert code == EXIT_OK, err
    lines = out.splitlines()
    assert lines[0].split() == ["run", "BLEU", "ROUGE-L"]
    assert [line.split()[0] for line in lines[1:]] == ["good", "poor"]
    expected = rankscope.evaluate_answers(references, good, ["BLEU", "ROUGE-L"]).mean()
    assert lines[1].split()[1:] == [f"{expected['BLEU']:.4f}", f"{expected['ROUGE-L']:.4f}"]


def test_json_per_question_and_default_measures(
    capsys: pytest.CaptureFixture[str], files: tuple[str, str, str]
) -> None:
    references, good, _ = files
    code, out, _ = run_cli(capsys, references, good, "-q", "-f", "json")
    assert code == EXIT_OK
    (entry,) = json.loads(out)["runs"]
    assert list(entry["mean"]) == ["BLEU", "ROUGE-1", "ROUGE-2", "ROUGE-L", "ExactMatch", "TokenF1"]
    assert entry["per_query"]["q1"]["ExactMatch"] == 1.0
    assert entry["profile"] == "standard"


def test_weknora_dataset_and_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    answers = tmp_path / "generated.jsonl"
    answers.write_text(
        '{"qid": "1", "answer": "计算机的操作系统有 UNIX、Linux、FreeBSD、Mac OS 和 DOS。"}\n'
    )
    code, out, err = run_cli(capsys, WEKNORA, str(answers), "--profile", "weknora", "-f", "csv")
    assert code == EXIT_OK, err
    header, row = out.splitlines()[:2]
    assert header.split(",")[-6:] == [
        "BLEU(n=1)", "BLEU(n=2)", "BLEU(n=4)", "ROUGE-1", "ROUGE-2", "ROUGE-L",
    ]  # fmt: skip
    assert [float(value) for value in row.split(",")[-6:-3]] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-m", "nDCG@10"], "nDCG@10 scores rankings, not answers; use rankscope evaluate ("),
        (["-m", "BLEU(n=7)"], "parameter n of BLEU must be one of"),
        (["-m", "ExactMatch", "--profile", "weknora"], "use --profile standard"),
    ],
)
def test_measure_errors_are_usage_errors(
    capsys: pytest.CaptureFixture[str],
    files: tuple[str, str, str],
    arguments: list[str],
    message: str,
) -> None:
    references, good, _ = files
    code, _, err = run_cli(capsys, references, good, *arguments)
    assert code == EXIT_USAGE
    assert message in err and "Traceback" not in err


def test_evaluate_points_answer_measures_here(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q 0 d 1\n")
    run.write_text("q Q0 d 1 1.0 tag\n")
    code = main(["evaluate", str(qrels), str(run), "-m", "ROUGE-L"])
    assert code == EXIT_USAGE
    assert "ROUGE-L scores generated answers, not rankings; use rankscope answers" in (
        capsys.readouterr().err
    )


def test_several_references_under_weknora_are_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    references = tmp_path / "refs.csv"
    references.write_text("qid,answer\nq,one\nq,two\n")
    answers = tmp_path / "answers.csv"
    answers.write_text("qid,answer\nq,one\n")
    code, _, err = run_cli(capsys, str(references), str(answers), "--profile", "weknora")
    assert code == EXIT_INPUT
    assert "WeKnora scores one reference answer per question; question 'q' has 2" in err


@pytest.mark.parametrize("arguments", [["--profile", "trec"], ["-f", "trec"]])
def test_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], files: tuple[str, str, str], arguments: list[str]
) -> None:
    references, good, _ = files
    with pytest.raises(SystemExit) as raised:
        run_cli(capsys, references, good, *arguments)
    assert raised.value.code == EXIT_USAGE
    assert "invalid choice: 'trec'" in capsys.readouterr().err


def test_a_bad_file_names_file_and_line(
    capsys: pytest.CaptureFixture[str], files: tuple[str, str, str], tmp_path: Path
) -> None:
    references, _, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "q1", "answer": "x"}\n{"qid": "q2", "answer": 5}\n')
    code, _, err = run_cli(capsys, references, str(bad))
    assert code == EXIT_INPUT
    assert f"{bad}:2: expected a text for question 'q2'; got 5" in err


def test_a_missing_package_names_the_extra(
    capsys: pytest.CaptureFixture[str],
    files: tuple[str, str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rankscope.answers import _scorers

    # BLEU and ROUGE are the core's; stemming is nltk's. The stemmer is loaded once per
    # process: forget it before and after.
    _scorers._stem.cache_clear()
    monkeypatch.setitem(sys.modules, "nltk.stem", None)  # import fails
    references, good, _ = files
    try:
        code, _, err = run_cli(capsys, references, good, "-m", "ROUGE-L(stem=True)")
    finally:
        _scorers._stem.cache_clear()
    assert code == EXIT_DEPENDENCY
    assert "ROUGE(stem=True) needs the optional package 'nltk'" in err
    assert "pip install 'rankscope[answers]'" in err
