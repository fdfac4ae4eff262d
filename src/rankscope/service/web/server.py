"""How ``rankscope serve`` runs the application: uvicorn, with limits on what a connection may
hold before it has said what it wants.

* A connection must send a request's headers within ``header_timeout`` seconds of opening (or
  of its previous answer, when it is kept alive); it is closed otherwise. uvicorn bounds an
  idle kept-alive connection but not a slow first request.
* At most ``max_connections`` connections are open at once: one more is closed as soon as it
  opens, before it can hold a file descriptor.
* The body's deadline is the application's (`rankscope.service.web.guard`).
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS", "bounded_protocol", "server_config"]

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_MAX_CONNECTIONS = 200


def bounded_protocol(header_timeout: float, max_connections: int) -> type:
    """uvicorn's HTTP/1.1 protocol (h11) with a deadline for each request's headers and a
    limit on open connections."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        """`H11Protocol` that closes a connection slow to send its headers, and one past the
        limit."""

        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.close()
                return
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            super().data_received(data)
            if self.cycle is not None and self.cycle is not before:
                self._disarm()  # a request's headers are in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return BoundedH11Protocol


def server_config(
    app: Any,
    host: str,
    port: int,
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    log_level: str = "info",
) -> Any:
    """The ``uvicorn.Config`` of the server: the application on ``host:port`` with the limits
    of the module's docstring."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=bounded_protocol(header_timeout, max_connections),
        timeout_keep_alive=max(1, int(header_timeout)),
    )
