"""What every request passes before it is routed (one ASGI middleware): a request body may not
exceed ``max_body_bytes`` (413), whether it says its length or not, and must arrive whole within
``body_timeout`` seconds of the request's start (408), so that a slow client cannot hold a
connection and a worker. The headers' own deadline and the connection limit are the server's
(`rankscope.service.web.server`).

The checks of who may ask what (Host, Origin, token, session and CSRF) are the routers' shared
dependencies (`rankscope.service.web.dependencies`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from starlette.exceptions import HTTPException

__all__ = ["Guard"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _BodyTooLarge(HTTPException):
    """Raised while the body is read: FastAPI answers it as the 413 it is."""


class _BodyTooSlow(HTTPException):
    """Raised while the body is read: FastAPI answers it as the 408 it is."""


class Guard:
    """The ASGI middleware described in the module's docstring."""

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        *,
        max_body_bytes: int = 1024 * 1024,
        body_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = ""
        for name, value in scope.get("headers", []):
            if name.lower() == b"content-length":
                length = value.decode("latin-1")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _json(send, 413, f"the request body exceeds {self.max_body_bytes} bytes")
            return
        await self._limited(scope, receive, send)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        received = 0
        started = False
        deadline = asyncio.get_running_loop().time() + self.body_timeout
        slow = f"the request body did not arrive within {self.body_timeout:g} s"

        whole = False

        async def counted_receive() -> Message:
            nonlocal received, whole
            if whole:  # the body is in: what follows (a disconnect) has no deadline
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(left, 0.0))
            except asyncio.TimeoutError:
                raise _BodyTooSlow(408, slow) from None
            whole = message["type"] != "http.request" or not message.get("more_body", False)
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
        except _BodyTooSlow:
            if started:
                raise
            await _json(send, 408, slow, [(b"connection", b"close")])


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
