"""Running a coroutine to its end from code that is not async, whether or not the calling
thread runs an event loop already (a notebook does, and so does Playwright's sync API)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["run_to_end"]

T = TypeVar("T")


def run_to_end(coroutine: Callable[[], Coroutine[Any, Any, T]], name: str = "rankscope") -> T:
    """What ``coroutine()`` returns, run by `asyncio.run` here, or in a thread of its own
    (named ``name``) when this thread runs an event loop already; its exception is raised here.

    Examples
    --------
    >>> async def two() -> int:
    ...     return 2
    >>> run_to_end(two)
    2
    >>> async def inside() -> int:  # asyncio.run would refuse to run from here
    ...     return run_to_end(two)
    >>> asyncio.run(inside())
    2
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine())
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coroutine()))
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=target, name=name)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]
