"""One JSON exchange with an HTTP endpoint, retried as every caller of an endpoint retries it:
the service's retrievers and generators and the judges of `rankscope.judge`.

`exchange` sends a request and returns the last response it got, or the last failure:
timeouts, connection errors and the statuses in `TRANSIENT_STATUSES` are retried up to
``retries`` times, waiting ``backoff * 2**(attempt - 1)`` seconds with jitter (a half to the
whole of it, at most 30 s), or longer when the answer says so (``Retry-After`` in seconds,
``retry-after-ms``, at most 60 s). Each attempt that is retried is handed to ``on_retry`` as
it ends, so a caller can keep it; the attempt that decides is returned. `call_json` makes the
outcome a parsed JSON value or a `rankscope.errors.CallError`.

A response is read up to `MAX_RESPONSE_BYTES`; a longer one ends the exchange. httpx is
imported when a client is made.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from rankscope.errors import CallError, InputError, MissingDependencyError

__all__ = [
    "MAX_RESPONSE_BYTES",
    "TRANSIENT_STATUSES",
    "Attempt",
    "JSONEndpoint",
    "call_json",
    "client_for",
    "exchange",
    "option_number",
]

TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
_MAX_DELAY = 30.0
_MAX_RETRY_AFTER = 60.0


@dataclass(frozen=True)
class Attempt:
    """One call of an endpoint and how it ended.

    Attributes
    ----------
    number
        1 for the first call of an exchange, 2 for its first retry, ...
    started_at
        Unix time the call was sent.
    latency
        Seconds until the whole response had arrived (None when none did).
    outcome
        ``"answered"`` (a 2xx response), ``"rate limited"`` (429), ``"server error"`` (500,
        502, 503, 504), ``"refused"`` (another 4xx or 5xx status, or a redirect), ``"too
        large"`` (a body over `MAX_RESPONSE_BYTES`), ``"timed out"`` or ``"unreachable"`` (a
        connection error).
    status, reason
        The HTTP status and its phrase (None without a response).
    body
        The response's body (None without one, or when it was too large).
    content_type
        The response's ``Content-Type``.
    error
        What went wrong, in words (None when answered).
    retry_after
        The wait the response asked for, in seconds (None if it asked none).
    """

    number: int
    started_at: float
    latency: float | None
    outcome: str
    status: int | None = None
    reason: str | None = None
    body: bytes | None = None
    content_type: str | None = None
    error: str | None = None
    retry_after: float | None = None

    @property
    def transient(self) -> bool:
        """Whether an attempt that ended so is retried."""
        return self.outcome in ("rate limited", "server error", "timed out", "unreachable")

    def text(self) -> str | None:
        """The body as text (invalid UTF-8 replaced), or None."""
        return None if self.body is None else self.body.decode("utf-8", "replace")

    def described(self) -> str:
        """The body's kind and size, for messages (never the body: it may come from anywhere
        the URL leads)."""
        kind = self.content_type or "no content type"
        return f"{kind}, {0 if self.body is None else len(self.body)} bytes"


def option_number(
    options: Mapping[str, Any], key: str, default: float, low: float, high: float
) -> float:
    """An endpoint's numeric option (``timeout``, ``retries``, ``backoff``...): the default when
    it is missing or None, else a number in ``[low, high]``.

    >>> option_number({"timeout": 5}, "timeout", 30.0, 0.001, 3600.0)
    5.0
    >>> option_number({"retries": -1}, "retries", 3, 0, 100)
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: retries must be a number in [0, 100]; found -1
    """
    value = options.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InputError(f"{key} must be a number in [{low}, {high}]; found {value!r}")
    return float(value)


def client_for(spec: Mapping[str, Any], concurrency: int, what: str) -> Any:
    """An ``httpx.AsyncClient`` for an endpoint: its timeout and headers, ``concurrency``
    connections at most (``what`` names the feature in the message of a missing httpx)."""
    try:
        import httpx
    except ImportError:
        raise MissingDependencyError("httpx", what, "service") from None
    return httpx.AsyncClient(
        timeout=httpx.Timeout(spec["timeout"]),
        limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        headers=spec["headers"],
    )


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for: ``retry-after-ms`` (milliseconds) or ``Retry-After``
    (seconds), when it is a number from 0 to 60 s.

    >>> retry_after({"retry-after": "2"}), retry_after({"retry-after-ms": "250"})
    (2.0, 0.25)
    >>> retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    True
    """
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        if 0 <= seconds <= _MAX_RETRY_AFTER:
            return seconds
    return None


async def _bounded_body(response: Any) -> bytes | None:
    """The response's body, or None once it exceeds `MAX_RESPONSE_BYTES` (not read further)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _outcome(status: int, redirect: bool) -> str:
    if status == 429:
        return "rate limited"
    if status in TRANSIENT_STATUSES:
        return "server error"
    if status >= 400 or redirect:
        return "refused"
    return "answered"


async def _attempt(client: Any, spec: Mapping[str, Any], request: Any, number: int) -> Attempt:
    import httpx

    started_at = time.time()
    started = time.perf_counter()
    try:
        if spec["method"] == "GET":
            sent = client.build_request(
                "GET", spec["url"], params={key: str(value) for key, value in request.items()}
            )
        else:
            sent = client.build_request("POST", spec["url"], json=request)
        response = await client.send(sent, stream=True)
        try:
            body = await _bounded_body(response)
        finally:
            await response.aclose()
    except httpx.TimeoutException:
        error = f"timed out after {spec['timeout']:g} s"
        return Attempt(number, started_at, None, "timed out", error=error)
    except httpx.TransportError as failure:
        error = f"{type(failure).__name__}: {failure}"
        return Attempt(number, started_at, None, "unreachable", error=error)
    latency = time.perf_counter() - started
    status, reason = response.status_code, response.reason_phrase
    kind = response.headers.get("content-type")
    if body is None:
        error = f"the response exceeds {MAX_RESPONSE_BYTES} bytes"
        return Attempt(number, started_at, latency, "too large", status, reason, None, kind, error)
    outcome = _outcome(status, response.is_redirect)
    return Attempt(
        number,
        started_at,
        latency,
        outcome,
        status,
        reason,
        body,
        kind,
        None if outcome == "answered" else f"HTTP {status} {reason}",
        retry_after(response.headers) if outcome != "answered" else None,
    )


async def exchange(
    client: Any,
    spec: Mapping[str, Any],
    request: Any,
    on_retry: Callable[[Attempt], None] | None = None,
) -> Attempt:
    """Send ``request`` as ``spec`` says (``method``, ``url``, ``retries``, ``backoff``,
    ``timeout``), retrying what is transient; the attempt that decided (answered, refused, or
    the last transient failure). ``on_retry`` is given each attempt that is retried."""
    attempts = spec["retries"] + 1
    for number in range(1, attempts + 1):
        attempt = await _attempt(client, spec, request, number)
        if not attempt.transient or number == attempts:
            return attempt
        if on_retry is not None:
            on_retry(attempt)
        delay = min(spec["backoff"] * 2 ** (number - 1), _MAX_DELAY)
        delay *= random.uniform(0.5, 1.0)
        await asyncio.sleep(max(delay, attempt.retry_after or 0.0))
    raise AssertionError("unreachable: the last attempt is returned")  # pragma: no cover


Parsed = TypeVar("Parsed")


async def call_json(
    client: Any,
    spec: Mapping[str, Any],
    request: Any,
    parse: Callable[[Any], Parsed],
    error: type[CallError],
) -> tuple[Parsed, int, float]:
    """`exchange` ``request`` and ``parse`` the JSON answer: what it returns, the attempts made
    and the latency of the call that succeeded.

    A failure that is not transient, an answer that is not JSON and what ``parse`` raises end
    the call at once with ``error``; transient failures once the retries are spent, too.
    """
    attempt = await exchange(client, spec, request)
    where = f"{spec['method']} {spec['url']}"
    if attempt.outcome == "too large":
        raise error(f"{where}: {attempt.error}", attempts=attempt.number)
    if attempt.outcome == "refused":
        raise error(
            f"{where}: HTTP {attempt.status} {attempt.reason} ({attempt.described()})",
            attempts=attempt.number,
        )
    if attempt.transient:
        raise error(
            f"{where}: {attempt.error} (gave up after {attempt.number} attempts)",
            attempts=attempt.number,
            transient=True,
        )
    try:
        payload = json.loads(attempt.body or b"")
    except ValueError:
        raise error(
            f"{where}: the response is not JSON ({attempt.described()})", attempts=attempt.number
        ) from None
    try:
        return parse(payload), attempt.number, attempt.latency or 0.0
    except CallError as unusable:
        raise error(str(unusable), attempts=attempt.number) from None


class JSONEndpoint:
    """An endpoint of ``spec`` (``url``, ``method``, ``headers``, ``timeout``, ``retries``,
    ``backoff``) and one httpx client for it, opened for a number of calls at once; ``what``
    names it in messages ("the HTTP judge")."""

    def __init__(self, spec: Mapping[str, Any], what: str) -> None:
        self.spec = spec
        self.what = what
        self._client: Any = None

    async def open(self, concurrency: int) -> None:
        """A client with ``concurrency`` connections at most."""
        self._client = client_for(self.spec, concurrency, self.what)

    async def check(self, error: type[CallError]) -> None:
        """What a subclass checks before each call (the service's allow-list); nothing here."""

    async def client(self, error: type[CallError]) -> Any:
        """The open client (one for a call at a time if not opened), once `check` passed."""
        if self._client is None:
            await self.open(1)
        await self.check(error)
        return self._client

    async def call(
        self, request: Any, parse: Callable[[Any], Parsed], error: type[CallError]
    ) -> tuple[Parsed, int, float]:
        """`call_json` on this endpoint."""
        return await call_json(await self.client(error), self.spec, request, parse, error)

    async def exchange(
        self,
        request: Any,
        error: type[CallError],
        on_retry: Callable[[Attempt], None] | None = None,
    ) -> Attempt:
        """`exchange` on this endpoint."""
        return await exchange(await self.client(error), self.spec, request, on_retry)

    async def aclose(self) -> None:
        """Close the client."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def describe(self) -> str:
        """``METHOD url``."""
        return f"{self.spec['method']} {self.spec['url']}"
