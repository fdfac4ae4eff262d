"""Who runs a task: an owner id per run (host, process, nonce) and whether that owner lives.

A running task's row names its owner and carries a heartbeat. The owner is alive if it is a
process of this host that still exists (and, for this very process, a run still in progress)
or, on another host, if its heartbeat is fresh.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["new_owner", "owner_alive"]


def new_owner() -> str:
    """A fresh owner id, ``host:pid:nonce``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_alive(row: Mapping[str, Any], stale_after: float, running_here: bool | None) -> bool:
    """Whether the owner of the task ``row`` is alive.

    ``running_here`` says, for a task this process has started, whether its run is still in
    progress (None when this process has not started it).
    """
    owner = row["owner"]
    if not owner:
        return False
    fresh = time.time() - (row["heartbeat"] or 0.0) < stale_after
    host, pid_text, _nonce = owner.rsplit(":", 2)
    if host != socket.gethostname():
        return fresh
    pid = int(pid_text)
    if pid == os.getpid():
        return running_here if running_here is not None else fresh
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return fresh
