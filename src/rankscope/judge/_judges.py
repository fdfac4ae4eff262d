"""Judges: what grades a (query, passage) pair, and answers the prompts of the answer measures.

Three kinds share one interface (`Judge`: ``open``, then ``grade`` or ``complete`` as often
and as concurrently as wanted, then ``aclose``):

* `ChatJudge`: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp's server,
  Ollama, a hosted API) through httpx, as many calls in flight as it was opened for; timeouts,
  429 and 5xx retried with back-off and jitter, ``Retry-After`` respected
  (`rankscope._http`); the tokens the endpoint reports counted, and their cost where it
  reports one or prices are given.
* `PromptJudge`: a Python function given the chat messages, returning the answer text (a
  model in the same process).
* `CallableJudge`: a Python function ``f(query, passage)`` returning a grade, a score (with
  thresholds: a cross-encoder) or an answer text; it has no prompt.

Whatever the kind, an answer is read by one rule (`rankscope.judge.read_grade`), and what
cannot be read is a failed `Judgement` with its kind and the raw answer, never a grade. Every
call is handed to the caller as it ends (``on_call``): the calls that are retried at once, the
one that decides with the judgement.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rankscope._http import Attempt, JSONEndpoint, option_number
from rankscope.errors import InputError, JudgeError, OptionError
from rankscope.judge._prompt import (
    DEFAULT_GRADES,
    RELEVANCE_PROMPT,
    Prompt,
    check_grades,
    read_grade,
)

__all__ = [
    "FAILURES",
    "Call",
    "CallableJudge",
    "ChatJudge",
    "Judge",
    "Judgement",
    "PromptJudge",
    "Reply",
    "chat_url",
]

FAILURES = (
    "no grade",
    "truncated",
    "malformed",
    "rate limited",
    "server error",
    "timed out",
    "unreachable",
    "refused",
    "too large",
    "error",
)
"""Why a judgement can fail: the answer holds no grade of the scale; it was cut short
(``finish_reason`` ``length``); the response is not a chat completion (not JSON, no message);
the endpoint still answered 429, or 5xx, or nothing in time, or could not be reached, once the
retries were spent; it refused the request (another 4xx) or sent more than 16 MiB; the
function raised or returned what is not an answer."""

OnCall = Callable[["Call"], None]


@dataclass(frozen=True)
class Call:
    """One call of a judge, as it is stored.

    Attributes
    ----------
    number
        1 for the first call for a pair (or prompt), 2 for its first retry, ...
    started_at, latency
        Unix time it was made, seconds until its answer was whole (None without one).
    outcome
        ``"answered"``, or how it failed (`rankscope._http.Attempt.outcome`, ``"error"`` for
        a function that raised).
    status
        The HTTP status (None for a function, or without a response).
    answer
        The raw answer: the response's body, or what the function returned, as text.
    error
        What went wrong, in words.
    prompt_tokens, completion_tokens, cost
        The usage the endpoint reported for the call (None where it reported none), and its
        cost.
    """

    number: int
    started_at: float
    latency: float | None
    outcome: str
    status: int | None = None
    answer: str | None = None
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None

    @classmethod
    def of(cls, attempt: Attempt) -> Call:
        """The call of an HTTP attempt."""
        return cls(
            attempt.number,
            attempt.started_at,
            attempt.latency,
            attempt.outcome,
            attempt.status,
            attempt.text(),
            attempt.error,
        )


@dataclass(frozen=True)
class Reply:
    """What a judge answered a prompt.

    Attributes
    ----------
    text
        The answer (None when the call failed).
    finish_reason
        Why the endpoint stopped (``"stop"``, ``"length"``...), if it said.
    failure, error
        The kind of failure (one of `FAILURES`) and what went wrong, when the call failed.
    call
        The call that decided (the ones retried before it were handed to ``on_call``).
    """

    text: str | None
    finish_reason: str | None = None
    failure: str | None = None
    error: str | None = None
    call: Call | None = None


@dataclass(frozen=True)
class Judgement:
    """A judge's grade of one pair, or why it has none.

    Attributes
    ----------
    grade
        The grade read from the answer, on the judge's scale; None when it failed.
    failure, error
        The kind of failure (one of `FAILURES`) and what went wrong.
    answer
        The raw answer the grade was read from (or could not be).
    call
        The call that decided: stored with the judgement, in one transaction.
    """

    grade: int | None
    failure: str | None = None
    error: str | None = None
    answer: str | None = None
    call: Call | None = None

    @property
    def attempts(self) -> int:
        """Calls made for the pair."""
        return 0 if self.call is None else self.call.number


def judgement_of(reply: Reply, grades: Sequence[int]) -> Judgement:
    """The judgement a reply gives: a failed call stays failed, an answer cut short is
    ``truncated`` (its last grade may be its reasoning's), one without a grade ``no grade``.

    >>> judgement_of(Reply("Relevance: 2", "stop"), (0, 1, 2, 3)).grade
    2
    >>> judgement_of(Reply("The passage says 3 things and", "length"), (0, 1, 2, 3)).failure
    'truncated'
    """
    if reply.failure is not None:
        return Judgement(None, reply.failure, reply.error, reply.text, reply.call)
    text = reply.text or ""
    if reply.finish_reason == "length":
        error = "the answer was cut short (finish_reason length): no final grade"
        return Judgement(None, "truncated", error, text, reply.call)
    grade = read_grade(text, grades)
    if grade is None:
        error = f"no grade of the scale {min(grades)}-{max(grades)} in the answer"
        return Judgement(None, "no grade", error, text, reply.call)
    return Judgement(grade, answer=text, call=reply.call)


class Judge:
    """Base of the judges.

    Attributes
    ----------
    spec
        A JSON-able description from which the service builds the judge again to resume a
        task, or None (a Python object that cannot be rebuilt).
    grades
        The scale of its grades.
    prompt
        The relevance prompt (`RELEVANCE_PROMPT` unless replaced).
    """

    spec: dict[str, Any] | None = None
    grades: tuple[int, ...] = DEFAULT_GRADES
    prompt: Prompt = RELEVANCE_PROMPT

    async def open(self, concurrency: int) -> None:
        """Prepare for up to ``concurrency`` calls at once."""

    async def aclose(self) -> None:
        """Release what `open` acquired."""

    def describe(self) -> str:
        """A one-line description for listings."""
        return type(self).__name__

    async def complete(
        self, messages: Sequence[Mapping[str, str]], on_call: OnCall | None = None
    ) -> Reply:
        """The answer to a prompt's messages."""
        raise JudgeError(f"{self.describe()} grades pairs; it does not answer prompts")

    async def grade(self, query: str, passage: str, on_call: OnCall | None = None) -> Judgement:
        """The grade of a passage for a query: the prompt's answer, read by `read_grade`."""
        reply = await self.complete(self.prompt.messages(query=query, passage=passage), on_call)
        return judgement_of(reply, self.grades)


def chat_url(url: str) -> str:
    """The chat-completions URL of an endpoint: as given when it ends with
    ``/chat/completions``, else with it appended (``http://host:8000/v1`` is vLLM's base).

    >>> chat_url("http://127.0.0.1:8000/v1/"), chat_url("https://api.example.com/chat/completions")
    ('http://127.0.0.1:8000/v1/chat/completions', 'https://api.example.com/chat/completions')
    """
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise InputError(f"the judge's endpoint must be an http:// or https:// URL; got {url!r}")
    trimmed = url.rstrip("/")
    return trimmed if trimmed.endswith("/chat/completions") else trimmed + "/chat/completions"


def _count(usage: Mapping[str, Any], key: str) -> int | None:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class ChatJudge(Judge):
    """A judge behind an OpenAI-compatible chat-completions endpoint.

    Parameters
    ----------
    url
        The endpoint: its base (``http://127.0.0.1:8000/v1``) or its ``/chat/completions``
        URL (`chat_url`).
    model
        The model name sent with each request.
    api_key_env
        The environment variable holding the API key, sent as ``Authorization: Bearer``; the
        key itself is never stored. None sends no key (a local server).
    temperature, max_tokens, seed
        Sent with each request (``max_tokens`` and ``seed`` only when given).
    timeout, retries, backoff
        Seconds a call may take; retries of a timeout, 429 or 5xx; the first wait between
        them (doubled each time, with jitter).
    prices
        ``(per million prompt tokens, per million completion tokens)``, for the cost of calls
        whose endpoint reports tokens but no cost.
    grades, prompt
        The scale, and the relevance prompt (`RELEVANCE_PROMPT` by default).
    endpoint
        How calls are made (`rankscope._http.JSONEndpoint`); the service passes one that checks
        its allow-list.

    Examples
    --------
    >>> judge = ChatJudge("http://127.0.0.1:8000/v1", "qwen2.5-7b-instruct", max_tokens=64)
    >>> judge.spec["url"], judge.spec["max_tokens"], judge.describe()
    ('http://127.0.0.1:8000/v1/chat/completions', 64, 'qwen2.5-7b-instruct at http://127.0.0.1:8000/v1/chat/completions')
    """

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        seed: int | None = None,
        timeout: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        prices: tuple[float, float] | None = None,
        grades: Sequence[int] = DEFAULT_GRADES,
        prompt: Prompt = RELEVANCE_PROMPT,
        endpoint: JSONEndpoint | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise OptionError(f"the judge needs a model name; got {model!r}")
        options = {"timeout": timeout, "retries": retries, "backoff": backoff}
        temperature = option_number({"temperature": temperature}, "temperature", 0.0, 0.0, 2.0)
        if max_tokens is not None:
            max_tokens = int(option_number({"max_tokens": max_tokens}, "max_tokens", 1, 1, 10**6))
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise OptionError(f"seed must be an integer; got {seed!r}")
        if prices is not None:
            prices = (
                option_number({"price": prices[0]}, "price", 0.0, 0.0, 1e6),
                option_number({"price": prices[1]}, "price", 0.0, 0.0, 1e6),
            )
        if api_key_env is not None and not api_key_env.strip():
            raise OptionError("api_key_env must name an environment variable")
        self.model = model
        self.url = chat_url(url)
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.prices = prices
        self.grades = check_grades(grades)
        self.prompt = prompt
        self.spec: dict[str, Any] = {
            "type": "chat",
            "url": self.url,
            "model": model,
            "api_key_env": api_key_env,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
            "timeout": option_number(options, "timeout", 60.0, 0.001, 3600.0),
            "retries": int(option_number(options, "retries", 4, 0, 100)),
            "backoff": option_number(options, "backoff", 1.0, 0.0, 60.0),
            "prices": None if prices is None else list(prices),
        }
        self._endpoint = endpoint or JSONEndpoint(self.endpoint_spec(), "the HTTP judge")

    def endpoint_spec(self) -> dict[str, Any]:
        """What `rankscope._http` needs of the endpoint: URL, method, headers (the key read
        from its variable now), timeout, retries, back-off."""
        headers = {}
        if self.api_key_env is not None:
            key = os.environ.get(self.api_key_env)
            if key:
                headers["Authorization"] = f"Bearer {key}"
        return {
            "url": self.url,
            "method": "POST",
            "headers": headers,
            **{key: self.spec[key] for key in ("timeout", "retries", "backoff")},
        }

    async def open(self, concurrency: int) -> None:
        await self._endpoint.open(concurrency)

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    def describe(self) -> str:
        return f"{self.model} at {self.url}"

    def request(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        """The request body of a prompt."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(message) for message in messages],
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    def _cost(self, usage: Mapping[str, Any], prompt: int | None, completion: int | None) -> Any:
        reported = usage.get("cost")
        if isinstance(reported, int | float) and not isinstance(reported, bool):
            return float(reported) if math.isfinite(reported) and reported >= 0 else None
        if self.prices is None or prompt is None or completion is None:
            return None
        return (prompt * self.prices[0] + completion * self.prices[1]) / 1e6

    async def complete(
        self, messages: Sequence[Mapping[str, str]], on_call: OnCall | None = None
    ) -> Reply:
        def retried(attempt: Attempt) -> None:
            if on_call is not None:
                on_call(Call.of(attempt))

        try:
            attempt = await self._endpoint.exchange(self.request(messages), JudgeError, retried)
        except JudgeError as refused:  # the allow-list refused the endpoint's address
            call = Call(1, time.time(), None, "refused", error=str(refused))
            return Reply(None, failure="refused", error=str(refused), call=call)
        call = Call.of(attempt)
        where = f"POST {self.url}"
        if attempt.outcome != "answered":
            error = attempt.error or attempt.outcome
            if attempt.transient:
                error += f" (gave up after {attempt.number} attempts)"
            elif attempt.outcome == "refused":
                error += f" ({attempt.described()})"
            return Reply(None, failure=attempt.outcome, error=f"{where}: {error}", call=call)
        try:
            payload = json.loads(attempt.body or b"")
            choice = payload["choices"][0]
            text = choice["message"]["content"]
            if not isinstance(text, str):
                raise TypeError("content is not a string")
        except (ValueError, LookupError, TypeError) as error:
            message = (
                f"{where}: the response is not a chat completion ({attempt.described()}: "
                f"{type(error).__name__} {error})"
            )
            return Reply(
                None, failure="malformed", error=message, call=replace(call, error=message)
            )
        usage = payload.get("usage") if isinstance(payload, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        prompt_tokens = _count(usage, "prompt_tokens")
        completion_tokens = _count(usage, "completion_tokens")
        call = replace(
            call,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=self._cost(usage, prompt_tokens, completion_tokens),
        )
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        return Reply(text, finish if isinstance(finish, str) else None, call=call)


async def _called(function: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """What ``function(*args)`` returned (awaited if need be; a synchronous one in a thread),
    and the seconds it took."""
    started = time.perf_counter()
    if inspect.iscoroutinefunction(function):
        result = await function(*args)
    else:
        result = await asyncio.to_thread(function, *args)
        if inspect.isawaitable(result):
            result = await result
    return result, time.perf_counter() - started


class PromptJudge(Judge):
    """A Python function ``f(messages) -> answer text`` (or ``async def``): a model run in this
    process, asked the same prompts as an endpoint.

    Examples
    --------
    >>> import asyncio
    >>> judge = PromptJudge(lambda messages: "Grade: 2")
    >>> asyncio.run(judge.grade("what is bm25", "BM25 is a ranking function")).grade
    2
    """

    def __init__(
        self,
        function: Callable[[list[dict[str, str]]], str | Awaitable[str]],
        *,
        spec: dict[str, Any] | None = None,
        grades: Sequence[int] = DEFAULT_GRADES,
        prompt: Prompt = RELEVANCE_PROMPT,
    ) -> None:
        if not callable(function):
            raise OptionError(f"the judge must be callable; got {type(function).__name__}")
        self.function = function
        self.spec = spec
        self.grades = check_grades(grades)
        self.prompt = prompt

    def describe(self) -> str:
        target = (self.spec or {}).get("target")
        return str(target) if target else repr(self.function)

    async def complete(
        self, messages: Sequence[Mapping[str, str]], on_call: OnCall | None = None
    ) -> Reply:
        started_at = time.time()
        try:
            answer, latency = await _called(self.function, [dict(m) for m in messages])
        except Exception as error:
            message = f"{type(error).__name__}: {error}"
            call = Call(1, started_at, None, "error", error=message)
            return Reply(None, failure="error", error=message, call=call)
        if not isinstance(answer, str):
            message = f"expected the answer as a string; found {type(answer).__name__}"
            call = Call(1, started_at, latency, "error", answer=repr(answer)[:1000], error=message)
            return Reply(None, failure="error", error=message, call=call)
        return Reply(answer, call=Call(1, started_at, latency, "answered", answer=answer))


class CallableJudge(Judge):
    """A Python function ``f(query, passage)`` (or ``async def``) that grades a pair itself.

    It returns a grade of the scale (an int), a score that ``thresholds`` turn into a grade (a
    cross-encoder's: the grade is the number of thresholds the score reaches), or an answer
    text read by `read_grade`. Anything else is a failed judgement.

    Examples
    --------
    >>> import asyncio
    >>> judge = CallableJudge(lambda query, passage: 0.7, thresholds=(0.2, 0.5, 0.8))
    >>> asyncio.run(judge.grade("what is bm25", "BM25 is a ranking function")).grade
    2
    """

    def __init__(
        self,
        function: Callable[[str, str], Any],
        *,
        thresholds: Sequence[float] | None = None,
        spec: dict[str, Any] | None = None,
        grades: Sequence[int] = DEFAULT_GRADES,
    ) -> None:
        if not callable(function):
            raise OptionError(f"the judge must be callable; got {type(function).__name__}")
        self.function = function
        self.grades = check_grades(grades)
        if thresholds is not None:
            thresholds = tuple(float(t) for t in thresholds)
            if len(thresholds) != len(self.grades) - 1 or list(thresholds) != sorted(thresholds):
                raise OptionError(
                    f"thresholds: {len(self.grades) - 1} ascending numbers, one per grade above "
                    f"{self.grades[0]}; got {list(thresholds)}"
                )
        self.thresholds = thresholds
        self.spec = spec

    def describe(self) -> str:
        target = (self.spec or {}).get("target")
        return str(target) if target else repr(self.function)

    def _grade(self, value: Any) -> int | str | None:
        """The grade a returned value gives, or None; a text is returned to be read."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int) and value in self.grades:
            return value
        if isinstance(value, int | float) and self.thresholds is not None:
            if not math.isfinite(value):
                return None
            return self.grades[sum(value >= t for t in self.thresholds)]
        if isinstance(value, str):
            return value
        return None

    async def grade(self, query: str, passage: str, on_call: OnCall | None = None) -> Judgement:
        started_at = time.time()
        try:
            value, latency = await _called(self.function, query, passage)
        except Exception as error:
            message = f"{type(error).__name__}: {error}"
            return Judgement(None, "error", message, call=Call(1, started_at, None, "error"))
        shown = value if isinstance(value, str) else repr(value)
        call = Call(1, started_at, latency, "answered", answer=shown[:100_000])
        grade = self._grade(value)
        if isinstance(grade, str):
            return judgement_of(Reply(grade, call=call), self.grades)
        if grade is None:
            expected = f"a grade of {list(self.grades)}"
            if self.thresholds is not None:
                expected += ", a finite score"
            message = f"expected {expected} or an answer text; found {shown[:200]}"
            return Judgement(None, "no grade", message, shown, replace(call, error=message))
        return Judgement(grade, answer=shown, call=call)
