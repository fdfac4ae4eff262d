"""Generators: what answers a question from its retrieved passages, for a RAG evaluation.

A task may name a generator. After a question's retrieval, the generator is given the question
and the text of the retrieved passages (best first, at most ``max_passages`` of them) and
returns the answer, which is stored with the question and scored against its reference answers.
Two kinds are built from a specification stored with the task, so an interrupted task can be
resumed by another process:

* ``module:function``: a Python callable ``function(question, passages)`` (sync or async),
  ``passages`` a list of texts, returning the answer text.
* ``http://...`` / ``https://...``: an HTTP endpoint called with a JSON request made from a
  template, as the HTTP retriever is (the same client, timeouts, retries with back-off and
  concurrency limit). In the template, a string that is exactly ``"{query}"``,
  ``"{query_id}"``, ``"{passages}"`` (the list of texts) or ``"{doc_ids}"`` (the list of ids)
  becomes that value; inside a longer string the passages are joined by blank lines and the ids
  by spaces. The answer is the string found at ``answer_path`` (dots separate keys and list
  indexes) in the JSON response.

The allow-lists of the server apply to generators as to retrievers (``--allow-callable``,
``--allow-url``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rankscope.errors import GeneratorError, InputError
from rankscope.service.sources.allow import import_target
from rankscope.service.sources.http import HTTPEndpoint, fill, http_spec_options, walk
from rankscope.service.sources.retrievers import TARGET, FunctionCaller, target_of

__all__ = [
    "DEFAULT_GENERATOR_BODY",
    "CallableGenerator",
    "Generation",
    "Generator",
    "build_generator",
    "parse_generator_spec",
]

DEFAULT_GENERATOR_BODY: dict[str, Any] = {"question": "{query}", "passages": "{passages}"}
_HTTP_KEYS = {
    "type",
    "url",
    "method",
    "body",
    "headers",
    "answer_path",
    "timeout",
    "retries",
    "backoff",
    "max_passages",
}
_MAX_PASSAGES = 10_000


@dataclass(frozen=True)
class Generation:
    """What one generator call returned.

    Attributes
    ----------
    answer
        The answer text.
    attempts
        How many calls it took (retries of transient HTTP failures included).
    latency
        Seconds of the call that succeeded.
    """

    answer: str
    attempts: int = 1
    latency: float | None = None


def answer_text(raw: Any) -> str:
    """The answer a generator returned, which must be a string.

    >>> answer_text("Paris")
    'Paris'
    >>> answer_text(["Paris"])
    Traceback (most recent call last):
    ...
    rankscope.errors.GeneratorError: expected the answer as a string; found list ...
    """
    if not isinstance(raw, str):
        raise GeneratorError(
            f"expected the answer as a string; found {type(raw).__name__} {raw!r:.80}"
        )
    return raw


class Generator:
    """Base of the generators: ``open``, then ``generate`` (concurrently), then ``aclose``.

    Attributes
    ----------
    spec
        A JSON-able description from which `build_generator` builds the generator again, or
        None if it cannot be rebuilt (a Python object passed to the library).
    max_passages
        Passages given per question, the best first; None gives every retrieved one.
    """

    spec: dict[str, Any] | None = None
    max_passages: int | None = None

    async def open(self, concurrency: int) -> None:
        """Prepare for up to ``concurrency`` calls at once."""

    async def generate(
        self, query_id: str, question: str, doc_ids: Sequence[str], passages: Sequence[str]
    ) -> Generation:
        """The answer to one question from its passages (``doc_ids`` are theirs)."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Release what `open` acquired."""

    def describe(self) -> str:
        """A one-line description for listings."""
        return type(self).__name__


class CallableGenerator(Generator):
    """A Python function ``f(question, passages)`` (or ``async def``) returning the answer.

    Synchronous functions run in a pool of ``concurrency`` threads.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        spec: dict[str, Any] | None,
        max_passages: int | None = None,
    ) -> None:
        self._caller = FunctionCaller(function, "generator")
        self.function = function
        self.spec = spec
        self.max_passages = max_passages

    async def open(self, concurrency: int) -> None:
        self._caller.open(concurrency)

    async def generate(
        self, query_id: str, question: str, doc_ids: Sequence[str], passages: Sequence[str]
    ) -> Generation:
        try:
            raw, latency = await self._caller.call(question, list(passages))
        except GeneratorError:
            raise
        except Exception as error:
            raise GeneratorError(f"{type(error).__name__}: {error}") from error
        return Generation(answer_text(raw), 1, latency)

    async def aclose(self) -> None:
        self._caller.close()

    def describe(self) -> str:
        target = (self.spec or {}).get("target")
        return str(target) if target else repr(self.function)


class HTTPGenerator(Generator):
    """Calls an HTTP endpoint with httpx, with a timeout, retries and a connection limit."""

    spec: dict[str, Any]

    def __init__(
        self, spec: Mapping[str, Any], *, allowed_urls: Sequence[str] | None = None
    ) -> None:
        self.spec = parse_generator_spec(dict(spec))
        self.max_passages = self.spec["max_passages"]
        self._endpoint = HTTPEndpoint(self.spec, "the HTTP generator", allowed_urls)

    async def open(self, concurrency: int) -> None:
        await self._endpoint.open(concurrency)

    async def generate(
        self, query_id: str, question: str, doc_ids: Sequence[str], passages: Sequence[str]
    ) -> Generation:
        spec = self.spec
        request = fill(
            spec["body"],
            {
                "query": (question, question),
                "query_id": (query_id, query_id),
                "passages": (list(passages), "\n\n".join(passages)),
                "doc_ids": (list(doc_ids), " ".join(doc_ids)),
            },
        )

        def answer(payload: Any) -> str:
            return answer_text(walk(payload, spec["answer_path"], "response", GeneratorError))

        text, attempts, latency = await self._endpoint.call(request, answer, GeneratorError)
        return Generation(text, attempts, latency)

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    def describe(self) -> str:
        return self._endpoint.describe()


def _max_passages(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _MAX_PASSAGES:
        raise InputError(
            f"max_passages must be an integer in [1, {_MAX_PASSAGES}] or None; found {value!r}"
        )
    return value


def parse_generator_spec(
    spec: str | Mapping[str, Any], http_options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A stored generator specification from what a user wrote.

    Examples
    --------
    >>> parse_generator_spec("mypackage.rag:answer")
    {'type': 'callable', 'target': 'mypackage.rag:answer', 'max_passages': None}
    >>> spec = parse_generator_spec("http://127.0.0.1:9000/answer", {"max_passages": 3})
    >>> spec["body"], spec["answer_path"], spec["max_passages"], spec["retries"]
    ({'question': '{query}', 'passages': '{passages}'}, 'answer', 3, 3)
    >>> parse_generator_spec("gpt")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: unknown generator 'gpt'; expected 'module:function' or an ...
    """
    if isinstance(spec, Mapping):
        kind = spec.get("type")
        if kind == "callable":
            unknown = sorted(set(spec) - {"type", "target", "max_passages"})
            if unknown:
                raise InputError(
                    f"unknown callable generator options {unknown}; expected target, max_passages"
                )
            target = spec.get("target")
            if not isinstance(target, str) or not TARGET.match(target):
                raise InputError(
                    f"a callable generator needs 'target': 'module:function'; found {target!r}"
                )
            return {
                "type": "callable",
                "target": target,
                "max_passages": _max_passages(spec.get("max_passages")),
            }
        if kind == "http":
            parsed = http_spec_options(spec, _HTTP_KEYS, DEFAULT_GENERATOR_BODY, "HTTP generator")
            answer_path = spec.get("answer_path")
            parsed["answer_path"] = str(answer_path if answer_path is not None else "answer")
            parsed["max_passages"] = _max_passages(spec.get("max_passages"))
            return parsed
        raise InputError(f"unknown generator type {kind!r}; expected 'callable' or 'http'")
    if not isinstance(spec, str):
        raise InputError(
            f"a generator is 'module:function', an http(s):// URL or a specification; "
            f"found {type(spec).__name__}"
        )
    text = spec.strip()
    options = dict(http_options or {})
    if text.lower().startswith(("http://", "https://")):
        return parse_generator_spec({**options, "type": "http", "url": text})
    if TARGET.match(text):
        passages = {"max_passages": options["max_passages"]} if "max_passages" in options else {}
        return parse_generator_spec({"type": "callable", "target": text, **passages})
    raise InputError(f"unknown generator {spec!r}; expected 'module:function' or an http(s):// URL")


def build_generator(
    generator: str | Mapping[str, Any] | Callable[..., Any] | Generator,
    *,
    allowed_callables: Sequence[str] | None = None,
    allowed_urls: Sequence[str] | None = None,
) -> Generator:
    """A generator from a specification, a Python callable or a `Generator`; a server's
    allow-lists (`rankscope.service.sources.allow`) govern the imports and the calls."""
    if isinstance(generator, Generator):
        return generator
    if callable(generator) and not isinstance(generator, str | Mapping):
        target = target_of(generator)
        rebuilt = {"type": "callable", "target": target, "max_passages": None} if target else None
        return CallableGenerator(generator, rebuilt)
    spec = parse_generator_spec(generator)
    if spec["type"] == "callable":
        function = import_target(spec["target"], "generator", allowed_callables)
        return CallableGenerator(function, spec, spec["max_passages"])
    return HTTPGenerator(spec, allowed_urls=allowed_urls)
