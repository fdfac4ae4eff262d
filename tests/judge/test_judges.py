"""The judges against a local OpenAI-compatible server started by the test: grades read by the
documented rule, every injected failure a failed judgement of its kind with the raw answer
kept (never a grade), retries and Retry-After, the concurrency limit, the token and cost
ledger; the callable judges; the prompt and the reading rule."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import pytest

from chat_server import ChatServer, grade_of, serve_chat
from rankscope.errors import OptionError
from rankscope.judge import (
    RELEVANCE_PROMPT,
    Call,
    CallableJudge,
    ChatJudge,
    Judgement,
    Prompt,
    PromptJudge,
    read_grade,
)

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

PAIRS = [(f"what is topic {i}", f"passage {i} about topic {i}") for i in range(24)]


def judge_all(
    judge: Any, pairs: Sequence[tuple[str, str]], concurrency: int = 4
) -> tuple[list[Judgement], list[Call]]:
    """Every pair's judgement (``concurrency`` at once) and the calls retried on the way."""
    retried: list[Call] = []

    async def main() -> list[Judgement]:
        await judge.open(concurrency)
        gate = asyncio.Semaphore(concurrency)

        async def one(query: str, passage: str) -> Judgement:
            async with gate:
                found: Judgement = await judge.grade(query, passage, retried.append)
                return found

        try:
            return list(await asyncio.gather(*(one(q, p) for q, p in pairs)))
        finally:
            await judge.aclose()

    return asyncio.run(main()), retried


def chat(server: ChatServer, **options: Any) -> ChatJudge:
    options.setdefault("backoff", 0.01)
    return ChatJudge(server.url, "judge-model", **options)


def test_grades_are_the_servers_read_from_its_answers() -> None:
    with serve_chat() as server:
        found, retried = judge_all(chat(server, max_tokens=32, seed=7), PAIRS)
    assert [j.grade for j in found] == [grade_of(q, p) for q, p in PAIRS]
    assert all(j.failure is None and j.attempts == 1 for j in found) and retried == []
    assert server.calls == {pair: 1 for pair in PAIRS}
    body = server.bodies[0]
    assert body["model"] == "judge-model" and body["temperature"] == 0.0
    assert body["max_tokens"] == 32 and body["seed"] == 7
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == RELEVANCE_PROMPT.system
    first = found[0]
    assert first.answer == f"The passage bears on the query.\nGrade: {first.grade}"
    assert first.call is not None and first.call.outcome == "answered"
    assert first.call.status == 200 and '"chat.completion"' in (first.call.answer or "")


def test_usage_is_counted_and_priced() -> None:
    with serve_chat() as server:
        [priced], _ = judge_all(chat(server, prices=(2.0, 8.0)), PAIRS[:1])
        [unpriced], _ = judge_all(chat(server), PAIRS[:1])
    call = priced.call
    assert call is not None
    assert call.prompt_tokens == 100 + len(PAIRS[0][1]) and call.completion_tokens == 7
    assert call.cost == pytest.approx((call.prompt_tokens * 2.0 + 7 * 8.0) / 1e6)
    assert unpriced.call is not None and unpriced.call.cost is None


@pytest.mark.parametrize(
    ("fault", "failure", "message"),
    [
        ("malformed", "malformed", "the response is not a chat completion"),
        ("no choices", "malformed", "the response is not a chat completion"),
        ("truncated", "truncated", "cut short (finish_reason length)"),
        ("no grade", "no grade", "no grade of the scale 0-3 in the answer"),
        ("400", "refused", "HTTP 400 Bad Request"),
    ],
)
def test_an_answer_without_a_grade_is_a_failure_never_a_guess(
    fault: str, failure: str, message: str
) -> None:
    state = ChatServer(faults=lambda query, passage, attempt: fault)
    with serve_chat(state) as server:
        [found], retried = judge_all(chat(server), PAIRS[:1])
    assert found.grade is None and found.failure == failure
    assert message in (found.error or "")
    assert retried == [] and server.calls[PAIRS[0]] == 1  # not retried: it would answer alike
    assert found.call is not None and found.call.answer  # the raw answer is kept
    if fault == "truncated":
        # The truncated text holds a number of the scale: it is not read as the grade.
        assert read_grade(found.answer or "") == 2


@pytest.mark.parametrize("fault", ["429", "503", "timeout"])
def test_transient_failures_are_retried_and_each_retried_call_handed_over(fault: str) -> None:
    state = ChatServer(faults=lambda query, passage, attempt: fault if attempt <= 2 else None)
    state.hang = 2.0
    with serve_chat(state) as server:
        found, retried = judge_all(chat(server, timeout=0.3, retries=3), PAIRS[:6])
    assert [j.grade for j in found] == [grade_of(q, p) for q, p in PAIRS[:6]]
    assert all(j.attempts == 3 for j in found)
    outcome = {"429": "rate limited", "503": "server error", "timeout": "timed out"}[fault]
    assert sorted(call.number for call in retried) == [1] * 6 + [2] * 6
    assert {call.outcome for call in retried} == {outcome}
    if fault != "timeout":
        assert {call.status for call in retried} == {int(fault)}


def test_retries_spent_is_a_failure_of_that_kind() -> None:
    state = ChatServer(faults=lambda query, passage, attempt: "429")
    with serve_chat(state) as server:
        [found], retried = judge_all(chat(server, retries=2), PAIRS[:1])
    assert found.grade is None and found.failure == "rate limited"
    assert "gave up after 3 attempts" in (found.error or "")
    assert len(retried) == 2 and found.attempts == 3 and server.calls[PAIRS[0]] == 3


def test_retry_after_is_waited_for() -> None:
    sent: list[float] = []

    def faults(query: str, passage: str, attempt: int) -> str | None:
        sent.append(time.monotonic())
        return "429" if attempt == 1 else None

    state = ChatServer(faults=faults, retry_after="1")
    with serve_chat(state) as server:
        [found], retried = judge_all(chat(server, retries=1, backoff=0.0), PAIRS[:1])
    assert found.grade == grade_of(*PAIRS[0])
    assert [call.outcome for call in retried] == ["rate limited"]
    assert sent[1] - sent[0] >= 0.95  # no back-off asked: the wait is the server's second


def test_no_more_calls_in_flight_than_the_concurrency() -> None:
    state = ChatServer(delay=0.05)
    with serve_chat(state) as server:
        found, _ = judge_all(chat(server), PAIRS, concurrency=3)
    assert all(j.grade is not None for j in found)
    assert state.max_in_flight == 3


def test_an_unreachable_endpoint_fails_every_pair_as_unreachable() -> None:
    judge = ChatJudge("http://127.0.0.1:9/v1", "m", retries=1, backoff=0.0)
    found, retried = judge_all(judge, PAIRS[:2])
    assert [j.failure for j in found] == ["unreachable", "unreachable"]
    assert len(retried) == 2


def test_the_api_key_comes_from_its_variable_and_is_never_in_the_spec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_KEY", "sk-test-123")
    judge = ChatJudge("http://127.0.0.1:1/v1", "m", api_key_env="JUDGE_KEY")
    assert judge.endpoint_spec()["headers"] == {"Authorization": "Bearer sk-test-123"}
    assert "sk-test-123" not in repr(judge.spec) and judge.spec["api_key_env"] == "JUDGE_KEY"


def test_a_replaced_prompt_is_sent_and_read_by_the_same_rule() -> None:
    prompt = Prompt("Q={query} P={passage} {not a field}", system=None)
    state = ChatServer(answer=lambda query, passage, grade: f"##final score: {grade}")
    with serve_chat(state) as server:
        [found], _ = judge_all(chat(server, prompt=prompt), [("bm25", "a ranking function")])
    assert state.prompts[0] == [
        {"role": "user", "content": "Q=bm25 P=a ranking function {not a field}"}
    ]
    assert found.grade == grade_of(state.prompts[0][0]["content"], "")


def test_prompt_and_callable_judges() -> None:
    seen: list[list[dict[str, str]]] = []

    def model(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return "Relevance: 1"

    found, _ = judge_all(PromptJudge(model), PAIRS[:2])
    assert [j.grade for j in found] == [1, 1]
    assert seen[0] == RELEVANCE_PROMPT.messages(query=PAIRS[0][0], passage=PAIRS[0][1])

    def cross_encoder(query: str, passage: str) -> float:
        return {"a": 0.1, "b": 0.55, "c": 0.95}[passage]

    scored = CallableJudge(cross_encoder, thresholds=(0.3, 0.5, 0.9))
    found, _ = judge_all(scored, [("q", "a"), ("q", "b"), ("q", "c")])
    assert [j.grade for j in found] == [0, 2, 3]

    def odd(query: str, passage: str) -> Any:
        return {"int": 2, "out": 9, "text": "Grade: 3", "none": None, "nan": float("nan")}[passage]

    found, _ = judge_all(CallableJudge(odd), [("q", p) for p in ("int", "out", "text", "none")])
    assert [(j.grade, j.failure) for j in found] == [
        (2, None),
        (None, "no grade"),
        (3, None),
        (None, "no grade"),
    ]

    def broken(query: str, passage: str) -> int:
        raise RuntimeError("model not loaded")

    [failed], _ = judge_all(CallableJudge(broken), [("q", "p")])
    assert failed.grade is None and failed.failure == "error"
    assert failed.error == "RuntimeError: model not loaded"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"thresholds": (0.5, 0.2, 0.9)}, "3 ascending numbers"),
        ({"thresholds": (0.5,)}, "3 ascending numbers"),
        ({"grades": (1, 0)}, "two or more distinct integers >= 0 in ascending order"),
    ],
)
def test_callable_judge_options_are_checked(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        CallableJudge(lambda query, passage: 0, **arguments)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"url": "ftp://x/v1"}, "must be an http:// or https:// URL"),
        ({"model": " "}, "needs a model name"),
        ({"timeout": 0}, r"timeout must be a number in \[0.001, 3600.0\]; found 0"),
        ({"retries": 101}, r"retries must be a number in \[0, 100\]"),
        ({"temperature": 3}, r"temperature must be a number in \[0.0, 2.0\]"),
        ({"seed": 1.5}, "seed must be an integer"),
    ],
)
def test_chat_judge_options_are_checked(arguments: dict[str, Any], message: str) -> None:
    given: dict[str, Any] = {"url": "http://127.0.0.1:8000/v1", "model": "m", **arguments}
    with pytest.raises(ValueError, match=message):
        ChatJudge(given.pop("url"), given.pop("model"), **given)


@pytest.mark.parametrize(
    ("answer", "grade"),
    [
        ("Relevance: 2", 2),
        ("##final score: 2", 2),
        ("Grade: 3\n", 3),
        ("M: 2, T: 1\n##final score: 1", 1),
        ("I would grade this 2/3.", 2),
        ("2 out of 3", 2),
        ("On the 0-3 scale: 2", 2),
        ("Score: 2.5", None),
        ("Grade: 4", None),
        ("Grade: -1", None),
        ("It was cited 2024 times, grade A2", None),
        ("", None),
    ],
)
def test_the_reading_rule(answer: str, grade: int | None) -> None:
    assert read_grade(answer) == grade


def test_the_reading_rule_follows_the_scale() -> None:
    assert read_grade("Grade: 4", (0, 1, 2, 3, 4)) == 4
    assert read_grade("Grade: 0 ... final: 1", (0, 1)) == 1
