"""What every request passes before it reaches the API or the console (one ASGI middleware).

1. The ``Host`` header must name the server: loopback names by default, more with
   ``--allowed-host`` (fnmatch patterns). A page of another site that points its own name at
   127.0.0.1 (DNS rebinding) is refused with 400.
2. A request that changes something (POST) and comes from a page of another origin (its
   ``Origin`` header) is refused with 403, so no other site can start or cancel a task through
   the visitor's browser, token or not.
3. A request body may not exceed ``max_body_bytes`` (413), whether it says its length or not.
4. With a token, a request must carry ``Authorization: Bearer <token>`` (the scheme in any case)
   or the cookie of a signed-in console session; an unsafe API request made with the cookie
   must also carry the session's ``X-CSRF-Token`` header. The sign-in page and the console's
   static files are open. Otherwise: 401 for the API, a redirect to the sign-in page for a
   console page.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from fnmatch import fnmatchcase
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException

from rankscope.service.web.session import COOKIE, Sessions

__all__ = ["LOOPBACK_HOSTS", "Guard", "host_name"]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
OPEN_PATHS = ("/signin", "/static/", "/favicon.ico")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _BodyTooLarge(HTTPException):
    """Raised while the body is read: FastAPI answers it as the 413 it is."""


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port and brackets, in lower case.

    >>> host_name("LocalHost:8000"), host_name("[::1]:80"), host_name("127.0.0.1")
    ('localhost', '::1', '127.0.0.1')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _same_origin(headers: dict[str, str]) -> bool:
    """Whether the request's ``Origin`` (sent by browsers) is this server, or absent (a
    client that is not a browser)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    _, _, authority = origin.partition("://")
    return authority.lower() == headers.get("host", "").lower()


def _headers(scope: Scope) -> dict[str, str]:
    return {
        name.decode("latin-1").lower(): value.decode("latin-1")
        for name, value in scope.get("headers", [])
    }


def session_nonce(headers: dict[str, str], sessions: Sessions) -> str | None:
    """The nonce of the request's session cookie, if it carries a valid one."""
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no session
        return None
    morsel = cookie.get(COOKIE)
    return sessions.verify(morsel.value if morsel is not None else None)


class Guard:
    """The ASGI middleware described in the module's docstring."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        *,
        sessions: Sessions,
        allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
        max_body_bytes: int = 1024 * 1024,
    ) -> None:
        self.app = app
        self.sessions = sessions
        self.allowed_hosts = tuple(host.lower() for host in allowed_hosts)
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = host_name(headers.get("host", ""))
        if not any(fnmatchcase(host, pattern) for pattern in self.allowed_hosts):
            await _json(send, 400, f"unknown host {host[:100]!r}; see --allowed-host")
            return
        if scope["method"] not in SAFE_METHODS and not _same_origin(headers):
            # A page of another site posting a form (to cancel a task, say): a browser says
            # where the request comes from.
            await _json(send, 403, "cross-origin request refused")
            return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _json(send, 413, f"the request body exceeds {self.max_body_bytes} bytes")
            return
        nonce = session_nonce(headers, self.sessions)
        scope.setdefault("state", {})["session"] = nonce
        if self.sessions.token is not None and not self._authorized(scope, headers, nonce):
            path = scope["path"]
            if path.startswith(("/api/", "/openapi.json", "/docs")):
                await _json(
                    send,
                    401,
                    "missing or wrong bearer token",
                    [(b"www-authenticate", b"Bearer")],
                )
            else:
                target = quote(path if scope["method"] in SAFE_METHODS else "/", safe="/")
                await _respond(send, 303, b"", [(b"location", f"/signin?next={target}".encode())])
            return
        await self._limited(scope, receive, send)

    def _authorized(self, scope: Scope, headers: dict[str, str], nonce: str | None) -> bool:
        path = scope["path"]
        if path.startswith(OPEN_PATHS):
            return True
        scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() == "bearer" and self.sessions.token_ok(credentials.strip()):
            return True
        if nonce is None:
            return False
        if path.startswith("/api/") and scope["method"] not in SAFE_METHODS:
            return self.sessions.csrf_ok(nonce, headers.get("x-csrf-token"))
        return True

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise _BodyTooLarge(
                        413, f"the request body exceeds {self.max_body_bytes} bytes"
                    )
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except _BodyTooLarge:
            if started:
                raise
            await _json(send, 413, f"the request body exceeds {self.max_body_bytes} bytes")


async def _respond(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _json(
    send: Send, status: int, detail: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps({"detail": detail}).encode()
    await _respond(send, status, body, [(b"content-type", b"application/json"), *headers])
