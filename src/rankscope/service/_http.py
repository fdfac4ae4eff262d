"""An HTTP retriever: a JSON request from a template, ids and scores taken from the response.

The request body (or, for GET, the query parameters) is a JSON template in which the strings
``"{query}"``, ``"{k}"`` and ``"{query_id}"`` are replaced: a value that is exactly a
placeholder becomes the question, the integer k, or the id; a placeholder inside a longer
string is replaced as text. The ranking is the list found at ``results_path`` (dots separate
keys and list indexes) in the JSON response; each item is an id, an ``[id, score]`` pair, or an
object with the id at ``id_field`` and the score at ``score_field``.

Timeouts, connection errors and the statuses 429, 500, 502, 503 and 504 are transient: the call
is retried up to ``retries`` times, waiting ``backoff * 2**attempt`` seconds (with jitter,
at most 30 s; a ``Retry-After`` header of at most 60 s is honoured). Other 4xx statuses and
answers that are not a ranking fail at once. A question whose call still fails is recorded as a
failed query and the task goes on.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from typing import Any

from rankscope.errors import InputError, MissingDependencyError
from rankscope.service._errors import RetrieverError
from rankscope.service._retrievers import Ranking, Retriever, normalise_ranking

__all__ = ["DEFAULT_BODY", "HTTPRetriever", "extract", "fill_template", "http_spec"]

DEFAULT_BODY: dict[str, Any] = {"query": "{query}", "k": "{k}"}
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_TEMPLATE_BYTES = 64 * 1024
_MAX_DELAY = 30.0
_MAX_RETRY_AFTER = 60.0
_SPEC_KEYS = {
    "type",
    "url",
    "method",
    "body",
    "headers",
    "results_path",
    "id_field",
    "score_field",
    "timeout",
    "retries",
    "backoff",
}


def http_spec(options: dict[str, Any]) -> dict[str, Any]:
    """A validated HTTP retriever specification with every default filled in.

    Examples
    --------
    >>> spec = http_spec({"url": "http://127.0.0.1:9000/search"})
    >>> spec["method"], spec["body"], spec["results_path"], spec["timeout"], spec["retries"]
    ('POST', {'query': '{query}', 'k': '{k}'}, 'results', 30.0, 3)
    """
    unknown = sorted(set(options) - _SPEC_KEYS)
    if unknown:
        raise InputError(
            f"unknown HTTP retriever options {unknown}; "
            f"expected some of {sorted(_SPEC_KEYS - {'type'})}"
        )
    url = options.get("url")
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise InputError(f"the HTTP retriever needs an http:// or https:// url; found {url!r}")
    method = str(options.get("method") or "POST").upper()
    if method not in ("GET", "POST"):
        raise InputError(f"method must be GET or POST; found {method!r}")
    body = options.get("body", DEFAULT_BODY)
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except json.JSONDecodeError as error:
            raise InputError(f"the request template is not JSON: {error}") from None
    if method == "GET" and not isinstance(body, dict):
        raise InputError("a GET request template must be a JSON object (the query parameters)")
    headers = options.get("headers") or {}
    if not isinstance(headers, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
    ):
        raise InputError(f"headers must map names to strings; found {headers!r}")
    size = len(json.dumps([body, headers], default=str))
    if size > MAX_TEMPLATE_BYTES:
        raise InputError(
            f"the request template and headers take {size} bytes as JSON; at most "
            f"{MAX_TEMPLATE_BYTES} are kept with a task"
        )
    score_field = options.get("score_field", "score")

    def number(key: str, default: float, low: float, high: float) -> float:
        value = options.get(key, default)
        if value is None:
            value = default
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise InputError(f"{key} must be a number in [{low}, {high}]; found {value!r}")
        return float(value)

    return {
        "type": "http",
        "url": url,
        "method": method,
        "body": body,
        "headers": dict(headers),
        "results_path": str(
            options.get("results_path") if options.get("results_path") is not None else "results"
        ),
        "id_field": str(options.get("id_field") or "id"),
        "score_field": str(score_field) if score_field else None,
        "timeout": number("timeout", 30.0, 0.001, 3600.0),
        "retries": int(number("retries", 3, 0, 100)),
        "backoff": number("backoff", 0.5, 0.0, 60.0),
    }


def fill_template(template: Any, query_id: str, text: str, k: int) -> Any:
    """The template with its placeholders replaced.

    >>> fill_template({"q": "{query}", "top": "{k}", "tag": "q-{query_id}"}, "7", "hi", 5)
    {'q': 'hi', 'top': 5, 'tag': 'q-7'}
    """
    if isinstance(template, str):
        exact: dict[str, Any] = {"{query}": text, "{k}": k, "{query_id}": query_id}
        if template in exact:
            return exact[template]
        return (
            template.replace("{query_id}", query_id).replace("{query}", text).replace("{k}", str(k))
        )
    if isinstance(template, dict):
        return {key: fill_template(value, query_id, text, k) for key, value in template.items()}
    if isinstance(template, list):
        return [fill_template(value, query_id, text, k) for value in template]
    return template


def _walk(value: Any, path: str, what: str) -> Any:
    if not path:
        return value
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            found = sorted(value)[:10] if isinstance(value, Mapping) else type(value).__name__
            raise RetrieverError(f"the {what} has no {part!r} (path {path!r}); found {found}")
    return value


def extract(payload: Any, results_path: str, id_field: str, score_field: str | None) -> list[Any]:
    """The ranking in a response, as ids or ``(id, score)`` pairs.

    >>> extract({"hits": [{"doc": {"id": 3}, "s": 0.9}]}, "hits", "doc.id", "s")
    [(3, 0.9)]
    >>> extract({"ids": ["a", "b"]}, "ids", "id", "score")
    ['a', 'b']
    """
    items = _walk(payload, results_path, "response")
    if not isinstance(items, list):
        raise RetrieverError(
            f"expected a list at {results_path or 'the top'} of the response; "
            f"found {type(items).__name__}"
        )
    ranking: list[Any] = []
    for item in items:
        if isinstance(item, Mapping):
            doc_id = _walk(item, id_field, "result")
            if score_field and _has(item, score_field):
                ranking.append((doc_id, _walk(item, score_field, "result")))
            else:
                ranking.append(doc_id)
        elif isinstance(item, list):
            ranking.append(tuple(item))
        else:
            ranking.append(item)
    return ranking


def _has(item: Mapping[str, Any], path: str) -> bool:
    try:
        _walk(item, path, "result")
    except RetrieverError:
        return False
    return True


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if 0 <= seconds <= _MAX_RETRY_AFTER else None


def _described(response: Any) -> str:
    kind = response.headers.get("content-type") or "no content type"
    return f"{kind}, {len(response.content)} bytes"


class HTTPRetriever(Retriever):
    """Calls an HTTP endpoint with httpx, with a timeout, retries and a connection limit."""

    spec: dict[str, Any]

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = http_spec(dict(spec))
        self._client: Any = None

    async def open(self, concurrency: int) -> None:
        try:
            import httpx
        except ImportError:
            raise MissingDependencyError("httpx", "the HTTP retriever", "service") from None
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(self.spec["timeout"]),
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            headers=self.spec["headers"],
        )

    async def retrieve(self, query_id: str, text: str, k: int) -> Ranking:
        import asyncio

        import httpx

        if self._client is None:
            await self.open(1)
        spec = self.spec
        request = fill_template(spec["body"], query_id, text, k)
        attempts = spec["retries"] + 1
        last = ""
        for attempt in range(1, attempts + 1):
            wait: float | None = None
            started = time.perf_counter()
            try:
                if spec["method"] == "GET":
                    response = await self._client.get(
                        spec["url"], params={key: str(value) for key, value in request.items()}
                    )
                else:
                    response = await self._client.post(spec["url"], json=request)
            except httpx.TimeoutException:
                last = f"timed out after {spec['timeout']:g} s"
            except httpx.TransportError as error:
                last = f"{type(error).__name__}: {error}"
            else:
                latency = time.perf_counter() - started
                if response.status_code in TRANSIENT_STATUSES:
                    last = f"HTTP {response.status_code} {response.reason_phrase}"
                    wait = _retry_after(response.headers.get("retry-after"))
                elif response.is_error or response.is_redirect:
                    # Never the body: it may come from anywhere the URL leads.
                    raise RetrieverError(
                        f"{spec['method']} {spec['url']}: HTTP {response.status_code} "
                        f"{response.reason_phrase} ({_described(response)})",
                        attempts=attempt,
                    )
                else:
                    try:
                        payload = response.json()
                    except ValueError:
                        raise RetrieverError(
                            f"{spec['method']} {spec['url']}: the response is not JSON "
                            f"({_described(response)})",
                            attempts=attempt,
                        ) from None
                    raw = extract(
                        payload, spec["results_path"], spec["id_field"], spec["score_field"]
                    )
                    doc_ids, scores = normalise_ranking(raw, k)
                    return Ranking(doc_ids, scores, attempt, latency)
            if attempt < attempts:
                delay = min(spec["backoff"] * 2 ** (attempt - 1), _MAX_DELAY)
                delay *= random.uniform(0.5, 1.0)
                await asyncio.sleep(max(delay, wait or 0.0))
        raise RetrieverError(
            f"{spec['method']} {spec['url']}: {last} (gave up after {attempts} attempts)",
            attempts=attempts,
            transient=True,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def describe(self) -> str:
        return f"{self.spec['method']} {self.spec['url']}"
