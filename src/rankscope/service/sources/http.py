"""An HTTP retriever: a JSON request from a template, ids and scores taken from the response.

The request body (or, for GET, the query parameters) is a JSON template in which the strings
``"{query}"``, ``"{k}"`` and ``"{query_id}"`` are replaced: a value that is exactly a
placeholder becomes the question, the integer k, or the id; a placeholder inside a longer
string is replaced as text. The ranking is the list found at ``results_path`` (dots separate
keys and list indexes) in the JSON response; each item is an id, an ``[id, score]`` pair, or an
object with the id at ``id_field`` and the score at ``score_field``.

Timeouts, connection errors and the statuses 429, 500, 502, 503 and 504 are transient: the call
is retried up to ``retries`` times, waiting ``backoff * 2**attempt`` seconds (with jitter,
at most 30 s; a ``Retry-After`` header of at most 60 s is honoured), as `rankscope._http`
retries every endpoint. Other 4xx statuses and answers that are not a ranking fail at once. A
question whose call still fails is recorded as a failed query and the task goes on.

A template may be nested `MAX_TEMPLATE_DEPTH` levels deep at most and take `MAX_TEMPLATE_BYTES`
as JSON; a response is read up to 16 MiB (a longer one fails the call). With a
server's allow-list of URLs, the endpoint's host name is resolved before each call and refused
if it leads to an address the list does not admit (`rankscope.service.sources.allow`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rankscope._http import JSONEndpoint, call_json, client_for, option_number
from rankscope.errors import CallError, InputError, RetrieverError
from rankscope.service.sources.allow import check_address, plain_url, url_parts
from rankscope.service.sources.retrievers import Ranking, Retriever, normalise_ranking

__all__ = [
    "DEFAULT_BODY",
    "HTTPEndpoint",
    "HTTPRetriever",
    "call_json",
    "client_for",
    "extract",
    "fill",
    "fill_template",
    "http_spec",
    "http_spec_options",
    "walk",
]

DEFAULT_BODY: dict[str, Any] = {"query": "{query}", "k": "{k}"}
MAX_TEMPLATE_BYTES = 64 * 1024
MAX_TEMPLATE_DEPTH = 32
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
    spec = http_spec_options(options, _SPEC_KEYS, DEFAULT_BODY, "HTTP retriever")
    score_field = options.get("score_field", "score")
    results_path = options.get("results_path")
    spec.update(
        results_path=str(results_path if results_path is not None else "results"),
        id_field=str(options.get("id_field") or "id"),
        score_field=str(score_field) if score_field else None,
    )
    return spec


def http_spec_options(
    options: Mapping[str, Any], keys: set[str], default_body: Any, what: str
) -> dict[str, Any]:
    """The options every HTTP endpoint has (``url``, ``method``, ``body``, ``headers``,
    ``timeout``, ``retries``, ``backoff``), checked, defaults filled in; ``keys`` are every
    option the endpoint knows."""
    unknown = sorted(set(options) - keys)
    if unknown:
        raise InputError(
            f"unknown {what} options {unknown}; expected some of {sorted(keys - {'type'})}"
        )
    url = options.get("url")
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        raise InputError(f"the {what} needs an http:// or https:// url; found {url!r}")
    plain_url(url)
    method = str(options.get("method") or "POST").upper()
    if method not in ("GET", "POST"):
        raise InputError(f"method must be GET or POST; found {method!r}")
    body = options.get("body", default_body)
    if body is None:
        body = default_body
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
    depth = _depth(body)
    if depth > MAX_TEMPLATE_DEPTH:
        raise InputError(
            f"the request template is nested {depth} levels deep; at most {MAX_TEMPLATE_DEPTH}"
        )
    size = len(json.dumps([body, headers], default=str))
    if size > MAX_TEMPLATE_BYTES:
        raise InputError(
            f"the request template and headers take {size} bytes as JSON; at most "
            f"{MAX_TEMPLATE_BYTES} are kept with a task"
        )

    return {
        "type": "http",
        "url": url,
        "method": method,
        "body": body,
        "headers": dict(headers),
        "timeout": option_number(options, "timeout", 30.0, 0.001, 3600.0),
        "retries": int(option_number(options, "retries", 3, 0, 100)),
        "backoff": option_number(options, "backoff", 0.5, 0.0, 60.0),
    }


def _depth(value: Any) -> int:
    """How deeply a JSON value is nested (a scalar is 0), without recursion.

    >>> _depth({"a": [1, {"b": 2}]}), _depth("x")
    (3, 0)
    """
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            level += 1
            deepest = max(deepest, level)
            if level > MAX_TEMPLATE_DEPTH:
                return level
            stack.extend(
                (child, level) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def fill_template(template: Any, query_id: str, text: str, k: int) -> Any:
    """A retriever's request template with its placeholders replaced.

    >>> fill_template({"q": "{query}", "top": "{k}", "tag": "q-{query_id}"}, "7", "hi", 5)
    {'q': 'hi', 'top': 5, 'tag': 'q-7'}
    """
    return fill(
        template, {"query": (text, text), "k": (k, str(k)), "query_id": (query_id, query_id)}
    )


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: Any, values: Mapping[str, tuple[Any, str]]) -> Any:
    """``template`` with each ``{name}`` of ``values`` replaced: a string that is exactly a
    placeholder becomes the value itself (a number, a list), one inside a longer string its
    text; placeholders are replaced in one pass, so a value's own text is never read again.

    >>> fill({"ids": "{ids}", "note": "ids: {ids}"}, {"ids": (["a", "b"], "a b")})
    {'ids': ['a', 'b'], 'note': 'ids: a b'}
    """
    if isinstance(template, str):
        exact = _PLACEHOLDER.fullmatch(template)
        if exact and exact.group(1) in values:
            return values[exact.group(1)][0]
        return _PLACEHOLDER.sub(
            lambda found: values[found.group(1)][1] if found.group(1) in values else found.group(0),
            template,
        )
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, values) for value in template]
    return template


def walk(value: Any, path: str, what: str, error: type[CallError] = RetrieverError) -> Any:
    """The value at ``path`` (dots separate keys and list indexes) in a JSON ``value``."""
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
            raise error(f"the {what} has no {part!r} (path {path!r}); found {found}")
    return value


def extract(payload: Any, results_path: str, id_field: str, score_field: str | None) -> list[Any]:
    """The ranking in a response, as ids or ``(id, score)`` pairs.

    >>> extract({"hits": [{"doc": {"id": 3}, "s": 0.9}]}, "hits", "doc.id", "s")
    [(3, 0.9)]
    >>> extract({"ids": ["a", "b"]}, "ids", "id", "score")
    ['a', 'b']
    """
    items = walk(payload, results_path, "response")
    if not isinstance(items, list):
        raise RetrieverError(
            f"expected a list at {results_path or 'the top'} of the response; "
            f"found {type(items).__name__}"
        )
    ranking: list[Any] = []
    for item in items:
        if isinstance(item, Mapping):
            doc_id = walk(item, id_field, "result")
            if score_field and _has(item, score_field):
                ranking.append((doc_id, walk(item, score_field, "result")))
            else:
                ranking.append(doc_id)
        elif isinstance(item, list):
            ranking.append(tuple(item))
        else:
            ranking.append(item)
    return ranking


def _has(item: Mapping[str, Any], path: str) -> bool:
    try:
        walk(item, path, "result")
    except RetrieverError:
        return False
    return True


class HTTPEndpoint(JSONEndpoint):
    """What the HTTP retriever, generator and judge share: one httpx client for the endpoint of
    ``spec`` (`http_spec_options`), opened for the task's concurrency, and calls through
    `rankscope._http.call_json`, each once the endpoint's host name is checked against the
    allow-list."""

    def __init__(
        self, spec: Mapping[str, Any], what: str, allowed_urls: Sequence[str] | None = None
    ) -> None:
        super().__init__(spec, what)
        self.allowed_urls = None if allowed_urls is None else tuple(allowed_urls)

    async def check(self, error: type[CallError]) -> None:
        """Refuse a host name that resolves to an address the allow-list does not admit
        (`check_address`); an address in the URL was checked when the task was submitted."""
        if self.allowed_urls is None:
            return
        import asyncio
        import ipaddress
        import socket

        parts = url_parts(self.spec["url"])
        host = parts.host.strip("[]")
        try:
            ipaddress.ip_address(host)
            return
        except ValueError:
            pass
        role = self.what.removeprefix("the ")
        try:
            found = await asyncio.get_running_loop().getaddrinfo(
                host, int(parts.port), type=socket.SOCK_STREAM
            )
        except OSError as failure:
            raise error(f"cannot resolve {host!r}: {failure}", transient=True) from None
        try:
            for *_, address in found:
                check_address(self.spec["url"], str(address[0]), self.allowed_urls, role)
        except InputError as refused:
            raise error(str(refused)) from None


class HTTPRetriever(Retriever):
    """Calls an HTTP endpoint with httpx, with a timeout, retries and a connection limit."""

    spec: dict[str, Any]

    def __init__(
        self, spec: Mapping[str, Any], *, allowed_urls: Sequence[str] | None = None
    ) -> None:
        self.spec = http_spec(dict(spec))
        self._endpoint = HTTPEndpoint(self.spec, "the HTTP retriever", allowed_urls)

    async def open(self, concurrency: int) -> None:
        await self._endpoint.open(concurrency)

    async def retrieve(self, query_id: str, text: str, k: int) -> Ranking:
        spec = self.spec
        request = fill_template(spec["body"], query_id, text, k)

        def ranking(payload: Any) -> tuple[list[str], list[float] | None]:
            raw = extract(payload, spec["results_path"], spec["id_field"], spec["score_field"])
            return normalise_ranking(raw, k)

        (doc_ids, scores), attempt, latency = await self._endpoint.call(
            request, ranking, RetrieverError
        )
        return Ranking(doc_ids, scores, attempt, latency)

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    def describe(self) -> str:
        return self._endpoint.describe()
