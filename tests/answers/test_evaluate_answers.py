"""`evaluate_answers`: inputs (dicts, JSONL, CSV, TSV, Parquet, WeKnora's layout), the Results it
returns, and its errors."""

from __future__ import annotations

import gzip
import json
import re
import warnings
from pathlib import Path

import polars as pl
import pytest

import rankscope
from rankscope.compare import build_report
from rankscope.errors import EmptyInputError, InputError, ParseError, RankscopeWarning
from rankscope.metric import MetricInput, generation_metrics

WEKNORA = Path(__file__).parent / "data" / "weknora"
WEKNORA_REFERENCE = "计算机的操作系统有 UNIX、Linux、FreeBSD、Mac OS 和 DOS。"

REFERENCES = {"q1": "The cat sat on the mat.", "q2": "Paris is the capital of France.", "q3": "42"}
ANSWERS = {"q1": "A cat sat on the mat.", "q2": "The capital is Paris.", "q3": "forty-two"}


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return path


def test_results_are_those_of_evaluate() -> None:
    results = rankscope.evaluate_answers(REFERENCES, ANSWERS, ["TokenF1", "ROUGE-L"])
    assert isinstance(results, rankscope.Results)
    assert results.query_ids == ["q1", "q2", "q3"]
    assert [m.name for m in results.measures] == ["TokenF1", "ROUGE-L"]
    assert list(results.scores("token_f1")) == [1.0, pytest.approx(2 * 0.6 / 1.6), 0.0]
    assert results.mean()["TokenF1"] == pytest.approx((1.0 + 0.75) / 3)
    frame = results.to_polars()
    assert frame.columns == ["query_id", "TokenF1", "ROUGE-L"]
    assert results.to_pandas().shape == (3, 3)
    assert results.profile == "standard" and results.run_name == "answers"


def test_default_measures_per_profile() -> None:
    standard = rankscope.evaluate_answers(REFERENCES, ANSWERS)
    assert [m.name for m in standard.measures] == [
        "BLEU", "ROUGE-1", "ROUGE-2", "ROUGE-L", "ExactMatch", "TokenF1",
    ]  # fmt: skip
    weknora = rankscope.evaluate_answers(REFERENCES, ANSWERS, profile="weknora")
    assert [m.name for m in weknora.measures] == [
        "BLEU(n=1)", "BLEU(n=2)", "BLEU(n=4)", "ROUGE-1", "ROUGE-2", "ROUGE-L",
    ]  # fmt: skip


def test_weknora_profile_equals_generation_metrics() -> None:
    results = rankscope.evaluate_answers(REFERENCES, ANSWERS, profile="weknora")
    for q in REFERENCES:
        expected = generation_metrics(
            MetricInput(generated_texts=ANSWERS[q], generated_gt=REFERENCES[q])
        )
        assert list(results.to_dict()[q].values()) == list(expected.as_dict().values())


def test_compare_works_on_answer_results() -> None:
    references = {f"q{i}": f"answer number {i} is right" for i in range(8)}
    good = {q: text for q, text in references.items()}
    poor = {q: "something else" for q in references}
    baseline = rankscope.evaluate_answers(references, poor, ["ROUGE-L", "TokenF1"])
    better = rankscope.evaluate_answers(references, good, ["ROUGE-L", "TokenF1"])
    report = build_report(baseline, [better], names=["poor", "good"], test="randomization")
    row = report.comparison.row("good", "TokenF1")
    assert (row.baseline_mean, row.system_mean, row.win_tie_loss.wins) == (0.0, 1.0, 8)


def test_missing_and_unjudged_questions() -> None:
    answers = {"q1": ANSWERS["q1"], "extra": "no reference for this"}
    with pytest.warns(RankscopeWarning, match="1 answers of 'answers' have no reference"):
        results = rankscope.evaluate_answers(REFERENCES, answers, "TokenF1")
    assert results.query_ids == ["q1"]
    assert results.unjudged_queries == ("extra",)
    assert results.missing_queries == ("q2", "q3")
    with pytest.warns(RankscopeWarning):
        complete = rankscope.evaluate_answers(REFERENCES, answers, "TokenF1", complete=True)
    assert complete.to_dict() == {
        "q1": {"TokenF1": 1.0}, "q2": {"TokenF1": 0.0}, "q3": {"TokenF1": 0.0},
    }  # fmt: skip
    assert complete.mean() == {"TokenF1": pytest.approx(1 / 3)}


def test_no_question_in_common_is_an_error() -> None:
    with pytest.raises(InputError, match="none in common; check that the question ids match"):
        rankscope.evaluate_answers({"a": "x"}, {"b": "x"}, "BLEU")


def test_weknora_reference_answers(tmp_path: Path) -> None:
    answers = write_jsonl(tmp_path / "generated.jsonl", [{"qid": 1, "answer": WEKNORA_REFERENCE}])
    results = rankscope.evaluate_answers(WEKNORA, answers, profile="weknora")
    assert results.query_ids == ["1"] and results.run_name == "generated"
    assert results.mean()["BLEU(n=4)"] == 1.0
    assert results.mean()["ROUGE-L"] == pytest.approx(0.999999995)


def test_weknora_layout_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"answers\.parquet is missing"):
        rankscope.evaluate_answers(tmp_path, {"1": "x"})
    pl.DataFrame({"id": [1], "text": ["reference"]}).write_parquet(tmp_path / "answers.parquet")
    with pytest.raises(InputError, match=r"qas\.parquet is missing"):
        rankscope.evaluate_answers(tmp_path, {"1": "x"})
    pl.DataFrame({"qid": ["1"], "aid": [7]}).write_parquet(tmp_path / "qas.parquet")
    with pytest.raises(InputError, match=r"answer id 7 of question .1. is not in answers\.parquet"):
        rankscope.evaluate_answers(tmp_path, {"1": "x"})


def test_weknora_profile_takes_one_reference() -> None:
    with pytest.raises(InputError, match="question 'q' has 2"):
        rankscope.evaluate_answers({"q": ["a", "b"]}, {"q": "a"}, profile="weknora")


@pytest.mark.parametrize("fmt", ["jsonl", "jsonl.gz", "csv", "tsv", "parquet"])
def test_every_file_format_gives_the_same_results(tmp_path: Path, fmt: str) -> None:
    def write(name: str, texts: dict[str, str], text_key: str) -> Path:
        path = tmp_path / f"{name}.{fmt}"
        frame = pl.DataFrame({"query_id": list(texts), text_key: list(texts.values())})
        if fmt == "parquet":
            frame.write_parquet(path)
        elif fmt == "csv":
            frame.write_csv(path)
        elif fmt == "tsv":
            frame.write_csv(path, separator="\t")
        else:
            lines = "".join(json.dumps(row) + "\n" for row in frame.to_dicts())
            path.write_bytes(
                gzip.compress(lines.encode()) if fmt.endswith("gz") else lines.encode()
            )
        return path

    references = {**REFERENCES, "q4": 'A text with "quotes", commas,\nand a line break'}
    answers = {**ANSWERS, "q4": references["q4"]}
    expected = rankscope.evaluate_answers(references, answers).to_dict()
    results = rankscope.evaluate_answers(
        write("refs", references, "reference"), write("system", answers, "answer")
    )
    assert results.to_dict() == expected
    assert results.run_name == "system"


def test_jsonl_lists_of_references(tmp_path: Path) -> None:
    references = write_jsonl(
        tmp_path / "refs.jsonl", [{"id": "q", "answers": ["Paris", "the city of Paris"]}]
    )
    results = rankscope.evaluate_answers(references, {"q": "paris"}, "ExactMatch")
    assert results.mean() == {"ExactMatch": 1.0}


def test_repeated_rows_add_references_but_not_answers(tmp_path: Path) -> None:
    references = tmp_path / "refs.csv"
    references.write_text("qid,text\nq,Paris\nq,Rome\n")
    assert rankscope.evaluate_answers(references, {"q": "rome"}, "EM").mean() == {"ExactMatch": 1.0}
    answers = tmp_path / "answers.csv"
    answers.write_text("qid,text\nq,Paris\nq,Rome\n")
    with pytest.raises(
        InputError,
        match=re.escape("answers.csv:3: question 'q' has a second answer (first at line 2)"),
    ):
        rankscope.evaluate_answers(references, answers, "EM")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"qid": "q", "answer": "x"}\n{"qid": "r"\n', "answers.jsonl:2: not valid JSON"),
        ('{"qid": "q", "answer": "x"}\n["q", "x"]\n', "answers.jsonl:2: expected a JSON object"),
        ('{"qid": "q", "answer": "x"}\n{"qid": "r"}\n', "answers.jsonl:2: key 'answer' is missing"),
        ('{"qid": "q", "answer": 3}\n', "answers.jsonl:1: expected a text for question 'q'; got 3"),
        ('{"qid": "q", "answer": ["x"]}\n', "expected a text for question 'q'; got ['x']"),
        ('{"qid": null, "answer": "x"}\n', "answers.jsonl:1: expected a question id"),
        ('{"question": "q", "answer": "x"}\n', "no question id column: expected one of query_id"),
        ('{"qid": "q", "output": "x"}\n', "no answer text column: expected one of answer"),
        ("\n\n", "answers.jsonl: no answers found: the file is empty"),
    ],
)
def test_bad_jsonl_names_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(content)
    with pytest.raises((ParseError, InputError, EmptyInputError), match=re.escape(message)):
        rankscope.evaluate_answers({"q": "x"}, path, "EM")


def test_bad_csv_and_parquet_name_the_row(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("qid,answer\nq,x\nr,y,z\n")
    with pytest.raises(ParseError, match=re.escape("answers.csv:3: expected 2 fields")):
        rankscope.evaluate_answers({"q": "x"}, path, "EM")
    parquet = tmp_path / "answers.parquet"
    pl.DataFrame({"qid": ["q", "r"], "answer": ["x", None]}).write_parquet(parquet)
    with pytest.raises(ParseError, match=re.escape("answers.parquet:2: expected a text")):
        rankscope.evaluate_answers({"q": "x"}, parquet, "EM")


def test_bad_sources() -> None:
    with pytest.raises(InputError, match="answers must be a dict"):
        rankscope.evaluate_answers({"q": "x"}, ["x"], "EM")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="no such file"):
        rankscope.evaluate_answers({"q": "x"}, "nowhere.jsonl", "EM")
    with pytest.raises(ParseError, match="expected a text or a list of texts for question 'q'"):
        rankscope.evaluate_answers({"q": 3}, {"q": "x"}, "EM")


def test_import_rankscope_loads_no_answer_package() -> None:
    import subprocess
    import sys

    code = (
        "import sys, rankscope; "
        "print(sorted(m for m in ('sacrebleu', 'rouge_score', 'jieba', 'regex', 'nltk') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unanswered_warning_is_not_raised_for_complete_inputs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rankscope.evaluate_answers(REFERENCES, ANSWERS, "EM")
