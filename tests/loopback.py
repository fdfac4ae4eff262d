"""Servers a test starts on loopback: an ASGI app served by uvicorn in a thread of the test
process (so that it outlives a process the test kills), on a free port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(app: Any, config: Any = None) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port (or as ``config`` says), in a thread;
    its base URL."""
    import uvicorn

    if config is None:
        config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    port = config.port
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
