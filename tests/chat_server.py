"""A local OpenAI-compatible chat-completions server for the judge's tests: a small FastAPI app
on loopback, deterministic answers, and the failures a test injects.

The grade of a pair is `grade_of(query, passage)` (a digest of both, 0-3) unless the test sets
``grades``; ``faults(query, passage, attempt)`` names what the attempt-th call of a pair gets:
``None`` (an answer), ``"timeout"`` (no answer before the client gives up), ``"429"`` (with
``Retry-After: retry_after``), ``"503"``, ``"400"``, ``"malformed"`` (a body that is not
JSON), ``"no choices"`` (JSON that is no chat completion), ``"truncated"`` (cut short,
``finish_reason`` ``length``) or ``"no grade"`` (an answer without a grade). Every call is
counted per pair. `write_inputs` writes the pairs and texts of a judging run (`query`,
`passage`).
"""

# No ``from __future__ import annotations``: FastAPI reads the endpoint's annotations at run time.
import asyncio
import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopback import serving

PAIR = re.compile(r"Query: (?P<query>.*?)\n\nPassage: (?P<passage>.*?)\n\nWrite", re.DOTALL)


def query(i: int) -> str:
    """The text of the i-th query of `write_inputs`."""
    return f"what is topic {i}"


def passage(i: int) -> str:
    """The text of the i-th document of `write_inputs`."""
    return f"passage {i} about topic {i}"


def write_inputs(directory: Path, count: int) -> dict[str, str]:
    """A to-judge file of ``count`` pairs (query ``q<i>``, document ``d<i>``), and the texts."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pairs.qrels").write_text(
        "".join(f"q{i:02d} 0 d{i:02d} -1\n" for i in range(count))
    )
    (directory / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i:02d}", "text": query(i)}) + "\n" for i in range(count))
    )
    (directory / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": f"d{i:02d}", "text": passage(i)}) + "\n" for i in range(count))
    )
    return {
        name: str(directory / f"{name}.{ext}")
        for name, ext in (("pairs", "qrels"), ("queries", "jsonl"), ("corpus", "jsonl"))
    }


def grade_of(query: str, passage: str) -> int:
    """The server's grade of a pair: a digest of both texts, 0-3."""
    return hashlib.sha256(f"{query}\x00{passage}".encode()).digest()[0] % 4


@dataclass
class ChatServer:
    """The server's state: what it answers and what it saw."""

    url: str = ""
    grades: Callable[[str, str], int] = grade_of
    faults: Callable[[str, str, int], str | None] = lambda query, passage, attempt: None
    answer: Callable[[str, str, int], str] = lambda query, passage, grade: (
        f"The passage bears on the query.\nGrade: {grade}"
    )
    delay: float = 0.0
    hang: float = 5.0
    retry_after: str = "0"
    calls: Counter[tuple[str, str]] = field(default_factory=Counter)
    prompts: list[list[dict[str, str]]] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pair(self, messages: list[dict[str, str]]) -> tuple[str, str]:
        """The query and passage of a relevance prompt; the whole prompt and "" otherwise."""
        found = PAIR.search(messages[-1]["content"])
        if found is None:
            return messages[-1]["content"], ""
        return found["query"], found["passage"]


def make_app(state: ChatServer) -> Any:
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse, Response

    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def completions(request: Request) -> Response:
        body = await request.json()
        messages = body["messages"]
        query, passage = state.pair(messages)
        with state.lock:
            state.bodies.append(body)
            state.prompts.append(messages)
            state.calls[(query, passage)] += 1
            attempt = state.calls[(query, passage)]
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
        try:
            if state.delay:
                await asyncio.sleep(state.delay)
            fault = state.faults(query, passage, attempt)
            if fault == "timeout":
                await asyncio.sleep(state.hang)
            if fault in ("429", "503", "400"):
                headers = {"Retry-After": state.retry_after} if fault == "429" else {}
                return JSONResponse({"error": fault}, int(fault), headers=headers)
            if fault == "malformed":
                return PlainTextResponse('{"choices": [{"message": ', media_type="application/json")
            if fault == "no choices":
                return JSONResponse({"object": "error", "message": "overloaded"})
            grade = state.grades(query, passage)
            content, finish = state.answer(query, passage, grade), "stop"
            if fault == "truncated":
                content, finish = "The passage bears on the query in 2 ways, first", "length"
            elif fault == "no grade":
                content = "I cannot tell from this passage."
            usage = {"prompt_tokens": 100 + len(passage), "completion_tokens": 7}
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            return JSONResponse(
                {
                    "id": f"chatcmpl-{attempt}",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": finish,
                        }
                    ],
                    "usage": usage,
                }
            )
        finally:
            with state.lock:
                state.in_flight -= 1

    return app


@contextmanager
def serve_chat(state: ChatServer | None = None) -> Iterator[ChatServer]:
    """The server on a free loopback port, in a thread of this process (so that it outlives a
    judging process the test kills); ``state.url`` is its ``/v1`` base."""
    state = state or ChatServer()
    with serving(make_app(state)) as url:
        state.url = f"{url}/v1"
        yield state
