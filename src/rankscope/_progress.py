"""Progress of the long calls: a rich bar on standard error when it is a terminal, a callback,
or nothing. One convention for every ``progress=`` of the Python API and the command line."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeAlias

ProgressOption: TypeAlias = "bool | Callable[[int, int], None] | None"
"""``True``: a bar on standard error if it is a terminal (nothing otherwise); a callable: called
with ``(done, total)`` after each step; ``None`` or ``False``: nothing."""


_BAR_SHOWN: ContextVar[bool] = ContextVar("rankscope_bar_shown", default=False)
"""Whether a bar of `steps` is on the terminal: another display there would garble it."""


def bar_shown() -> bool:
    """Whether a bar of `steps` is on the terminal now (a spinner then stays away)."""
    return _BAR_SHOWN.get()


def shown(progress: ProgressOption) -> bool:
    """Whether ``progress`` asks for the steps to be seen: a callback, or a bar on a terminal.

    Examples
    --------
    >>> shown(None), shown(lambda done, total: None)
    (False, True)
    """
    return callable(progress) or (bool(progress) and sys.stderr.isatty())


@contextmanager
def steps(total: int, label: str, progress: ProgressOption) -> Iterator[Callable[..., None]]:
    """A function to call with the number of steps done (and, for the bar, a short text after
    it: ``advance(done, detail="failed 0")``), showing them as ``progress`` asks.

    Examples
    --------
    >>> seen = []
    >>> with steps(3, "trials", lambda done, total: seen.append((done, total))) as advance:
    ...     for done in range(1, 4):
    ...         advance(done)
    >>> seen
    [(1, 3), (2, 3), (3, 3)]
    """
    if callable(progress):
        report = progress
        yield lambda done, detail="": report(done, total)
        return
    if not shown(progress) or bar_shown():  # one bar at a time: the outer one shows
        yield lambda done, detail="": None
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )
    except ImportError:  # rich comes with the cli extra; without it, no bar
        yield lambda done, detail="": None
        return
    bar = Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(label, total=total, detail="")
    token = _BAR_SHOWN.set(True)
    try:
        with bar:
            yield lambda done, detail="": bar.update(task, completed=done, detail=detail)
    finally:
        _BAR_SHOWN.reset(token)
