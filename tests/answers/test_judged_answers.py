"""The judged answer measures (Faithfulness, AnswerRelevance, ReferenceAgreement) in
`evaluate_answers`: a deterministic judge's grades over 3, the mean and spread of repeated
askings, failures counted (in a warning and in stat=failed) and never turned into grades,
against a Python judge and the local chat server."""

from __future__ import annotations

import math
import statistics
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from chat_server import ChatServer, grade_of, serve_chat
from rankscope import evaluate_answers
from rankscope.answers._judged import ANSWER_PROMPTS
from rankscope.answers._scorers import score_columns
from rankscope.engine.measures import parse_measures
from rankscope.errors import MeasureError, OptionError, ProfileError, RankscopeWarning
from rankscope.judge import ChatJudge, PromptJudge

QUESTIONS = {"q1": "What is the capital of France?", "q2": "Who wrote Hamlet?"}
REFERENCES = {"q1": "Paris", "q2": "William Shakespeare"}
ANSWERS = {"q1": "The capital of France is Paris.", "q2": "Christopher Marlowe"}
CONTEXTS = {"q1": ["Paris is the capital of France."], "q2": ["Hamlet is a tragedy."]}


def by_content(messages: list[dict[str, str]]) -> str:
    """A judge that grades 3 when the answer names Paris, else 1, and says which prompt it
    was given."""
    content = messages[-1]["content"]
    grade = 3 if "Answer: The capital of France is Paris." in content else 1
    return f"Read it.\nGrade: {grade}"


def test_each_judged_measure_is_the_grade_over_three() -> None:
    measures = ["Faithfulness", "AnswerRelevance", "ReferenceAgreement", "TokenF1"]
    results = evaluate_answers(
        REFERENCES,
        ANSWERS,
        measures,
        judge=PromptJudge(by_content),
        questions=QUESTIONS,
        contexts=CONTEXTS,
    )
    assert results.to_dict() == {
        "q1": {
            "Faithfulness": 1.0,
            "AnswerRelevance": 1.0,
            "ReferenceAgreement": 1.0,
            "TokenF1": pytest.approx(1 / 3),  # 1 of 5 tokens, the 1 of 1
        },
        "q2": {
            "Faithfulness": 1 / 3,
            "AnswerRelevance": 1 / 3,
            "ReferenceAgreement": 1 / 3,
            "TokenF1": 0.0,
        },
    }


def test_the_prompts_hold_the_passages_the_reference_and_the_answer() -> None:
    seen: list[str] = []

    def judge(messages: list[dict[str, str]]) -> str:
        seen.append(messages[-1]["content"])
        return "Grade: 2"

    evaluate_answers(
        {"q1": ["Paris", "Paris, France"]},
        {"q1": "Paris."},
        ["Faithfulness", "ReferenceAgreement", "AnswerRelevance"],
        judge=PromptJudge(judge),
        questions=QUESTIONS,
        contexts={"q1": ["first passage", "second passage"]},
        concurrency=1,
    )
    faithfulness, agreement, relevance = sorted(seen, key=lambda text: text[:40])
    assert "Passages:\n[1] first passage\n\n[2] second passage" in faithfulness
    assert "Reference answer:\n- Paris\n- Paris, France" in agreement
    assert "Question: What is the capital of France?\n\nAnswer: Paris." in relevance
    assert all(
        text.endswith("Write the grade alone on the last line, as: Grade: N") for text in seen
    )
    assert set(ANSWER_PROMPTS) == {"Faithfulness", "AnswerRelevance", "ReferenceAgreement"}


def test_repeats_give_the_mean_and_the_spread_of_the_same_askings() -> None:
    asked: Counter[str] = Counter()
    cycle = (3, 1, 2)

    def judge(messages: list[dict[str, str]]) -> str:
        key = messages[-1]["content"]
        grade = cycle[asked[key] % 3]
        asked[key] += 1
        return f"Grade: {grade}"

    results = evaluate_answers(
        REFERENCES,
        ANSWERS,
        [
            "AnswerRelevance(repeats=3)",
            "AnswerRelevance(repeats=3,stat=sd)",
            "AnswerRelevance(repeats=3,stat=failed)",
        ],
        judge=PromptJudge(judge),
        questions=QUESTIONS,
        concurrency=1,
    )
    assert sum(asked.values()) == 6  # three askings per question, shared by the three stats
    for values in results.to_dict().values():
        assert values["AnswerRelevance(repeats=3)"] == pytest.approx(2 / 3)
        assert values["AnswerRelevance(repeats=3,stat=sd)"] == pytest.approx(
            statistics.pstdev([1, 1 / 3, 2 / 3])
        )
        assert values["AnswerRelevance(repeats=3,stat=failed)"] == 0.0


def test_failures_are_counted_never_graded_against_the_chat_server() -> None:
    def faults(content: str, passage: str, attempt: int) -> str | None:
        if "Hamlet" in content:
            return "no grade"  # every asking of q2 fails
        return "truncated" if attempt == 2 else None  # one asking of q1 in three

    with serve_chat(ChatServer(faults=faults)) as server:
        judge = ChatJudge(server.url, "judge-model", backoff=0.01)
        with pytest.warns(RankscopeWarning) as caught:
            results = evaluate_answers(
                REFERENCES,
                ANSWERS,
                ["AnswerRelevance(repeats=3)", "AnswerRelevance(repeats=3,stat=failed)"],
                judge=judge,
                questions=QUESTIONS,
                concurrency=1,
            )
        q1_prompt = next(p for p in server.prompts if "France" in p[-1]["content"])
    messages = [str(w.message) for w in caught]
    assert any(
        "4 of 6 judge askings gave no grade (no grade 3, truncated 1)" in m for m in messages
    ), messages
    values = results.to_dict()
    grade = grade_of(q1_prompt[-1]["content"], "")
    assert values["q1"]["AnswerRelevance(repeats=3)"] == pytest.approx(grade / 3)
    assert values["q1"]["AnswerRelevance(repeats=3,stat=failed)"] == pytest.approx(1 / 3)
    assert math.isnan(values["q2"]["AnswerRelevance(repeats=3)"])
    assert values["q2"]["AnswerRelevance(repeats=3,stat=failed)"] == 1.0
    # The mean is over the questions with a grade: q2's failed askings do not make it NaN.
    means = results.mean()
    assert means["AnswerRelevance(repeats=3)"] == pytest.approx(grade / 3)
    assert means["AnswerRelevance(repeats=3,stat=failed)"] == pytest.approx((1 / 3 + 1.0) / 2)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({}, OptionError, "AnswerRelevance is graded by a judge: pass judge="),
        ({"judge": PromptJudge(by_content)}, OptionError, "needs the questions' texts"),
        (
            {
                "judge": PromptJudge(by_content),
                "questions": QUESTIONS,
                "measures": ["Faithfulness"],
            },
            OptionError,
            "Faithfulness needs the passages each answer was written from: contexts",
        ),
        (
            {"judge": PromptJudge(by_content), "questions": QUESTIONS, "profile": "weknora"},
            ProfileError,
            "AnswerRelevance is not defined by the weknora profile",
        ),
    ],
)
def test_what_a_judged_measure_needs_is_asked_for(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    measures = options.pop("measures", ["AnswerRelevance"])
    with pytest.raises(error, match=message):
        evaluate_answers(REFERENCES, ANSWERS, measures, **options)


@pytest.mark.parametrize(
    ("measures", "judged", "skipping"),
    [
        (["Faithfulness", "AnswerRelevance"], {"Faithfulness", "AnswerRelevance"}, []),
        (
            ["AnswerRelevance", "ReferenceAgreement", "TokenF1"],
            {"AnswerRelevance"},
            ["ReferenceAgreement", "TokenF1"],
        ),
    ],
)
def test_an_answer_without_a_reference_is_judged_by_the_measures_that_need_none(
    measures: list[str], judged: set[str], skipping: list[str]
) -> None:
    asked: list[str] = []

    def judge(messages: list[dict[str, str]]) -> str:
        asked.append(messages[-1]["content"])
        return "Grade: 2"

    answers = {**ANSWERS, "q3": "Mount Everest."}
    with pytest.warns(RankscopeWarning) if skipping else warnings.catch_warnings() as caught:
        if not skipping:
            warnings.simplefilter("error")
        results = evaluate_answers(
            REFERENCES,
            answers,
            measures,
            judge=PromptJudge(judge),
            questions={**QUESTIONS, "q3": "What is the highest mountain?"},
            contexts={**CONTEXTS, "q3": ["Everest is the highest mountain."]},
            concurrency=1,
        )
    values = results.to_dict()
    assert list(values) == ["q1", "q2", "q3"] and results.unjudged_queries == ()
    means = results.mean()
    for name in measures:
        if name in judged:
            assert values["q3"][name] == pytest.approx(2 / 3)
        else:
            assert math.isnan(values["q3"][name])
            assert math.isfinite(values["q1"][name])
        # Each mean is over the questions with a value: q3 counts only where it has one.
        present = [row[name] for row in values.values() if not math.isnan(row[name])]
        assert means[name] == pytest.approx(sum(present) / len(present))
        assert len(present) == (3 if name in judged else 2)
    # The judge is asked of q3 by the measures that need no reference, and by no other.
    about_q3 = [text for text in asked if "highest mountain" in text]
    assert len(about_q3) == len(judged)
    assert not any("Reference answer" in text for text in about_q3)
    if skipping:
        (warning,) = [str(w.message) for w in caught]  # type: ignore[union-attr]
        assert warning == (
            "1 answers of 'answers' have no reference answer: "
            f"{', '.join(skipping)} need one and have no value of them (NaN), "
            "AnswerRelevance judged them: q3"
        )


def test_answers_without_a_reference_are_ignored_when_every_measure_needs_one() -> None:
    answers = {**ANSWERS, "q3": "Mount Everest."}
    with pytest.warns(RankscopeWarning, match="1 answers of 'answers' have no reference answer "
                      "and were ignored: q3"):  # fmt: skip
        results = evaluate_answers(
            REFERENCES,
            answers,
            ["ReferenceAgreement", "TokenF1"],
            judge=PromptJudge(lambda messages: "Grade: 1"),
            questions={**QUESTIONS, "q3": "What is the highest mountain?"},
        )
    assert list(results.to_dict()) == ["q1", "q2"] and results.unjudged_queries == ("q3",)


def test_the_text_scorers_refuse_a_judged_measure() -> None:
    with pytest.raises(MeasureError, match="graded by a judge"):
        score_columns(parse_measures(["ReferenceAgreement"]), "standard", [])


def test_the_answers_command_takes_a_judge_and_its_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from rankscope.cli import EXIT_OK, EXIT_USAGE, main

    def write(name: str, rows: dict[str, Any], key: str) -> str:
        path = tmp_path / name
        path.write_text("".join(json.dumps({"qid": q, key: v}) + "\n" for q, v in rows.items()))
        return str(path)

    references = write("references.jsonl", REFERENCES, "answer")
    answers = write("answers.jsonl", ANSWERS, "answer")
    questions = write("questions.jsonl", QUESTIONS, "text")
    contexts = write("contexts.jsonl", CONTEXTS, "contexts")
    with serve_chat() as server:
        code = main(
            ["answers", references, answers, "-m", "AnswerRelevance,Faithfulness", "-q",
             "-f", "json", "--judge-url", server.url, "--judge-model", "judge-model",
             "--judge-backoff", "0.01", "--judge-concurrency", "1",
             "--questions", questions, "--contexts", contexts]
        )  # fmt: skip
        prompts = [p[-1]["content"] for p in server.prompts]
    assert code == EXIT_OK
    shown = json.loads(capsys.readouterr().out)
    library = evaluate_answers(
        REFERENCES,
        ANSWERS,
        ["AnswerRelevance", "Faithfulness"],
        judge=PromptJudge(lambda messages: f"Grade: {grade_of(messages[-1]['content'], '')}"),
        questions=QUESTIONS,
        contexts=CONTEXTS,
    )
    # Two measures, two questions, one asking each; Faithfulness is shown the contexts.
    assert len(prompts) == 4 and any("Paris is the capital of France." in p for p in prompts)
    # The server's grades, as the library gives them with a judge that grades alike.
    (run,) = shown["runs"]
    assert run["per_query"] == library.to_dict()
    assert run["mean"] == pytest.approx(library.mean())

    assert main(["answers", references, answers, "--questions", questions]) == EXIT_USAGE
    assert "go with a judge" in capsys.readouterr().err
    assert main(["answers", references, answers, "--judge-url", "http://127.0.0.1:1/v1"]) == (
        EXIT_USAGE
    )
    assert "--judge-model" in capsys.readouterr().err
