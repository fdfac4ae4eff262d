"""The checks every route shares, as FastAPI dependencies: declared once on each router, never
repeated in a route.

`checked_host`
    The ``Host`` header must name the server: loopback names by default, more with
    ``--allowed-host`` (fnmatch patterns). A page of another site that points its own name at
    127.0.0.1 (DNS rebinding) is refused with 400.
`same_origin`
    A request that changes something (POST) and comes from a page of another origin (its
    ``Origin`` header) is refused with 403, so no other site can start or cancel a task through
    the visitor's browser, token or not.
`api_caller`
    With a token, an API request must carry ``Authorization: Bearer <token>`` (the scheme in
    any case) or the cookie of a signed-in console session; an unsafe request made with the
    cookie must also carry the session's ``X-CSRF-Token`` header (401 otherwise).
`page_caller`
    With a token, a console page needs a signed-in session: otherwise a redirect to the
    sign-in page.
`not_throttled`
    An address that sent too many wrong tokens waits (429 with ``Retry-After``) before it may
    try again (`rankscope.service.web.session`).

Each reads the server's settings from ``request.app.state`` (`create_app` puts them there).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request

from rankscope.service.web.session import COOKIE, Sessions

__all__ = [
    "LOOPBACK_HOSTS",
    "SignInRequired",
    "api_caller",
    "checked_host",
    "client_address",
    "host_name",
    "not_throttled",
    "page_caller",
    "same_origin",
    "session_nonce",
]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class SignInRequired(HTTPException):
    """A console page asked for without a session: answered with a redirect to sign in."""

    def __init__(self, target: str) -> None:
        super().__init__(303, "sign in first", {"Location": f"/signin?next={target}"})


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port and brackets, in lower case.

    >>> host_name("LocalHost:8000"), host_name("[::1]:80"), host_name("127.0.0.1")
    ('localhost', '::1', '127.0.0.1')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def session_nonce(request: Request) -> str | None:
    """The nonce of the request's session cookie, if it carries a valid one."""
    sessions: Sessions = request.app.state.sessions
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(request.headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no session
        return None
    morsel = cookie.get(COOKIE)
    return sessions.verify(morsel.value if morsel is not None else None)


def checked_host(request: Request) -> None:
    """400 unless the ``Host`` header names a host the server answers to."""
    host = host_name(request.headers.get("host", ""))
    patterns: tuple[str, ...] = request.app.state.allowed_hosts
    if not any(fnmatchcase(host, pattern) for pattern in patterns):
        raise HTTPException(400, f"unknown host {host[:100]!r}; see --allowed-host")


def same_origin(request: Request) -> None:
    """403 for an unsafe request from a page of another origin (a browser says where a
    request comes from; a client that is not a browser sends no ``Origin``)."""
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("origin")
    if origin is None:
        return
    _, _, authority = origin.partition("://")
    if authority.lower() != request.headers.get("host", "").lower():
        raise HTTPException(403, "cross-origin request refused")


def client_address(request: Request) -> str:
    """The address the request came from (what failed tokens are counted against)."""
    return request.client.host if request.client is not None else "unknown"


def not_throttled(request: Request) -> None:
    """429 while the request's address must wait after wrong tokens (`Sessions.wait`)."""
    sessions: Sessions = request.app.state.sessions
    wait = sessions.wait(client_address(request)) if sessions.token is not None else 0
    if wait:
        raise HTTPException(
            429,
            f"too many wrong tokens from this address; try again in {wait} s",
            {"Retry-After": str(wait)},
        )


def _bearer_ok(request: Request) -> bool:
    sessions: Sessions = request.app.state.sessions
    scheme, _, credentials = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return sessions.token_ok(credentials.strip(), client_address(request))


def api_caller(request: Request) -> None:
    """401 unless the request carries the token or a session (with its CSRF token for an
    unsafe request); nothing to check on a server without a token."""
    sessions: Sessions = request.app.state.sessions
    if sessions.token is None:
        return
    not_throttled(request)
    if _bearer_ok(request):
        return
    nonce = session_nonce(request)
    if nonce is not None and (
        request.method in SAFE_METHODS
        or sessions.csrf_ok(nonce, request.headers.get("x-csrf-token"))
    ):
        return
    raise HTTPException(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})


def page_caller(request: Request) -> Any:
    """A redirect to the sign-in page unless the request carries the token or a session (on a
    server with a token)."""
    sessions: Sessions = request.app.state.sessions
    if sessions.token is None or session_nonce(request) is not None:
        return
    not_throttled(request)
    if _bearer_ok(request):
        return
    path = request.url.path
    raise SignInRequired(quote(path if request.method in SAFE_METHODS else "/", safe="/"))
