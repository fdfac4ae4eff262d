"""Retrievers: what the service asks for a ranking of each question.

A retriever is given a question's text and a depth k and returns document ids best first,
optionally with scores. Three kinds are built from a specification that is stored with the task
(so an interrupted task can be resumed by another process):

* ``bm25``: the built-in BM25 baseline over the dataset's corpus (:mod:`.bm25`).
* ``module:function``: a Python callable ``function(text, k)`` (sync or async) returning ids,
  or ``(id, score)`` pairs.
* ``http://...`` / ``https://...``: an HTTP endpoint (:mod:`.http`).
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from rankscope.errors import InputError, RetrieverError
from rankscope.service.sources.allow import import_target
from rankscope.service.sources.datasets import Dataset

__all__ = [
    "CallableRetriever",
    "FunctionCaller",
    "Ranking",
    "Retriever",
    "build_retriever",
    "normalise_ranking",
    "parse_retriever_spec",
    "target_of",
]

TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class Ranking:
    """What one retriever call returned, normalised.

    Attributes
    ----------
    doc_ids
        Document ids, best first, at most k.
    scores
        One finite score per document, or None when the retriever gave none.
    attempts
        How many calls it took (retries of transient HTTP failures included).
    latency
        Seconds of the call that succeeded, if the retriever measured it (else the service
        measures the whole call).
    """

    doc_ids: list[str]
    scores: list[float] | None
    attempts: int = 1
    latency: float | None = None


def _doc_id(value: Any, index: int) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise RetrieverError(
            f"document {index + 1} of the ranking: expected an id (string or integer); "
            f"found {type(value).__name__} {value!r:.60}"
        )
    text = str(value).strip()
    if not text:
        raise RetrieverError(f"document {index + 1} of the ranking has an empty id")
    return text


def normalise_ranking(raw: Any, k: int) -> tuple[list[str], list[float] | None]:
    """Ids and scores from a retriever's answer: ids, or ``(id, score)`` pairs, best first.

    The first ``k`` are kept. Either every document has a finite score or none has.

    Examples
    --------
    >>> normalise_ranking([3, "a", 7], 2)
    (['3', 'a'], None)
    >>> normalise_ranking([("d1", 2.5), ("d2", 1)], 10)
    (['d1', 'd2'], [2.5, 1.0])
    >>> normalise_ranking([("d1", float("nan"))], 10)
    Traceback (most recent call last):
    ...
    rankscope.errors.RetrieverError: document 1 of the ranking: ... found nan
    """
    if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Iterable):
        raise RetrieverError(
            "expected a list of document ids or of (id, score) pairs; "
            f"found {type(raw).__name__} {raw!r:.80}"
        )
    doc_ids: list[str] = []
    scores: list[float] = []
    with_scores = 0
    for index, item in enumerate(raw):
        if index >= k:
            break
        if isinstance(item, tuple | list):
            if len(item) != 2:
                raise RetrieverError(
                    f"document {index + 1} of the ranking: expected (id, score); found {item!r:.80}"
                )
            doc, score = item
            if isinstance(score, bool) or not isinstance(score, int | float):
                raise RetrieverError(
                    f"document {index + 1} of the ranking: the score must be a number; "
                    f"found {score!r:.40}"
                )
            try:
                value = float(score)
            except OverflowError:  # an integer beyond a float's range
                value = math.inf
            if not math.isfinite(value):
                raise RetrieverError(
                    f"document {index + 1} of the ranking: the score must be a finite number; "
                    f"found {score!r:.40}"
                )
            doc_ids.append(_doc_id(doc, index))
            scores.append(value)
            with_scores += 1
        else:
            doc_ids.append(_doc_id(item, index))
    if with_scores and with_scores != len(doc_ids):
        raise RetrieverError(
            f"the ranking gives scores for {with_scores} of {len(doc_ids)} documents; "
            "give a score for every document or for none"
        )
    return doc_ids, (scores if with_scores else None)


class Retriever:
    """Base of the retrievers: ``open``, then ``retrieve`` (concurrently), then ``aclose``.

    Attributes
    ----------
    spec
        A JSON-able description from which `build_retriever` builds the retriever again, or
        None if it cannot be rebuilt (a Python object passed to the library).
    """

    spec: dict[str, Any] | None = None

    async def open(self, concurrency: int) -> None:
        """Prepare for up to ``concurrency`` calls at once (load an index, open a client)."""

    async def retrieve(self, query_id: str, text: str, k: int) -> Ranking:
        """The ranking for one question."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Release what `open` acquired."""

    def describe(self) -> str:
        """A one-line description for listings."""
        return type(self).__name__


class FunctionCaller:
    """Calls a Python function, synchronous (in a pool of threads) or ``async def``, and
    times each call; what the function raises is the caller's to wrap."""

    def __init__(self, function: Callable[..., Any], role: str) -> None:
        if not callable(function):
            raise InputError(f"the {role} must be callable; found {type(function).__name__}")
        self.function = function
        self.role = role
        self._pool: ThreadPoolExecutor | None = None
        self._is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            getattr(function, "__call__", None)  # noqa: B004 - async callable objects
        )

    def open(self, concurrency: int) -> None:
        """Start the threads of a synchronous function: ``concurrency`` calls at once."""
        if not self._is_async:
            self._pool = ThreadPoolExecutor(
                concurrency, thread_name_prefix=f"rankscope-{self.role}"
            )

    def _timed(self, *args: Any) -> tuple[Any, float]:
        started = time.perf_counter()
        result = self.function(*args)
        return result, time.perf_counter() - started

    async def call(self, *args: Any) -> tuple[Any, float]:
        """What the function returned for ``args``, and the seconds it took."""
        if self._is_async:
            started = time.perf_counter()
            result = await self.function(*args)
            return result, time.perf_counter() - started
        loop = asyncio.get_running_loop()
        result, latency = await loop.run_in_executor(self._pool, self._timed, *args)
        if inspect.isawaitable(result):
            result = await result
        return result, latency

    def close(self) -> None:
        """Let the threads go; calls still running (after a cancel) end in the background."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class CallableRetriever(Retriever):
    """A Python function ``f(text, k)`` (or ``async def``) returning ids or (id, score) pairs.

    Synchronous functions run in a pool of ``concurrency`` threads.
    """

    def __init__(self, function: Callable[..., Any], spec: dict[str, Any] | None) -> None:
        self._caller = FunctionCaller(function, "retriever")
        self.function = function
        self.spec = spec

    async def open(self, concurrency: int) -> None:
        self._caller.open(concurrency)

    async def retrieve(self, query_id: str, text: str, k: int) -> Ranking:
        try:
            raw, latency = await self._caller.call(text, k)
        except RetrieverError:
            raise
        except Exception as error:
            raise RetrieverError(f"{type(error).__name__}: {error}") from error
        doc_ids, scores = normalise_ranking(raw, k)
        return Ranking(doc_ids, scores, 1, latency)

    async def aclose(self) -> None:
        self._caller.close()

    def describe(self) -> str:
        target = (self.spec or {}).get("target")
        return str(target) if target else repr(self.function)


def target_of(function: Callable[..., Any]) -> str | None:
    """``module:qualname`` when importing it gives this very function back."""
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    if not module or not qualname or "<" in qualname or module == "__main__":
        return None
    target = f"{module}:{qualname}"
    try:
        return target if import_target(target) is function else None
    except InputError:
        return None


def _bounded(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InputError(f"BM25 {name} must be a number in [{low:g}, {high:g}]; found {value!r}")
    return float(value)


def parse_retriever_spec(
    spec: str | Mapping[str, Any], http_options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A stored specification from what a user wrote.

    Examples
    --------
    >>> parse_retriever_spec("bm25")
    {'type': 'bm25', 'k1': 1.5, 'b': 0.75}
    >>> parse_retriever_spec("mypackage.search:retrieve")
    {'type': 'callable', 'target': 'mypackage.search:retrieve'}
    >>> parse_retriever_spec("http://127.0.0.1:9000/search")["type"]
    'http'
    >>> parse_retriever_spec("search")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: unknown retriever 'search'; expected 'bm25', ...
    """
    if isinstance(spec, Mapping):
        kind = spec.get("type")
        if kind == "bm25":
            return {
                "type": "bm25",
                "k1": _bounded(spec.get("k1", 1.5), "k1", 0.0, 100.0),
                "b": _bounded(spec.get("b", 0.75), "b", 0.0, 1.0),
            }
        if kind == "callable":
            target = spec.get("target")
            if not isinstance(target, str) or not TARGET.match(target):
                raise InputError(
                    f"a callable retriever needs 'target': 'module:function'; found {target!r}"
                )
            return {"type": "callable", "target": target}
        if kind == "http":
            from rankscope.service.sources.http import http_spec

            return http_spec(dict(spec))
        raise InputError(f"unknown retriever type {kind!r}; expected 'bm25', 'callable' or 'http'")
    text = spec.strip()
    if text.lower() == "bm25":
        return parse_retriever_spec({"type": "bm25"})
    if text.lower().startswith(("http://", "https://")):
        return parse_retriever_spec({**(http_options or {}), "type": "http", "url": text})
    if TARGET.match(text):
        return {"type": "callable", "target": text}
    raise InputError(
        f"unknown retriever {spec!r}; expected 'bm25', 'module:function' or an http(s):// URL"
    )


def build_retriever(
    retriever: str | Mapping[str, Any] | Callable[..., Any] | Retriever,
    dataset: Dataset | None,
    *,
    allowed_callables: Sequence[str] | None = None,
    allowed_urls: Sequence[str] | None = None,
) -> Retriever:
    """A retriever from a specification, a Python callable or a `Retriever`; a server's
    allow-lists (`rankscope.service.sources.allow`) govern the imports and the calls."""
    if isinstance(retriever, Retriever):
        return retriever
    if callable(retriever) and not isinstance(retriever, str | Mapping):
        target = target_of(retriever)
        spec = {"type": "callable", "target": target} if target else None
        return CallableRetriever(retriever, spec)
    spec = parse_retriever_spec(retriever)
    if spec["type"] == "callable":
        return CallableRetriever(import_target(spec["target"], allowed=allowed_callables), spec)
    if spec["type"] == "http":
        from rankscope.service.sources.http import HTTPRetriever

        return HTTPRetriever(spec, allowed_urls=allowed_urls)
    from rankscope.service.sources.bm25 import BM25Retriever

    if dataset is None:
        raise InputError("the BM25 baseline needs the dataset's corpus")
    return BM25Retriever(dataset, spec)


def corpus_digest(documents: Sequence[tuple[str, str]]) -> str:
    """A SHA-256 of a corpus, to notice a changed corpus when a BM25 task is resumed."""
    digest = hashlib.sha256()
    for doc_id, text in documents:
        digest.update(doc_id.encode())
        digest.update(b"\t")
        digest.update(text.encode())
        digest.update(b"\n")
    return digest.hexdigest()
