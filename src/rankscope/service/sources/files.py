"""How dataset files are opened: inside the data roots, regular files only, lines bounded.

A server confines the datasets its clients name to its data roots (`within_roots`): every path
a dataset reader opens is resolved (symbolic links followed) and must lie inside one of them,
so no client can make the server read, or echo in an error, a file it does not serve. Devices,
pipes and directories are refused where a file is expected (``/dev/zero`` would never end), and
a line longer than `MAX_LINE_BYTES` is an error rather than a read without end. Text files are
UTF-8, with or without a byte order mark; an invalid byte is reported with its file and line.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TypeVar

from rankscope.errors import InputError, ParseError

__all__ = [
    "MAX_LINE_BYTES",
    "checked_path",
    "confined",
    "regular_file",
    "text_lines",
    "within_roots",
]

MAX_LINE_BYTES = 16 * 1024 * 1024
_SHOWN_PATH = 120
_ROOTS: ContextVar[tuple[Path, ...] | None] = ContextVar("rankscope_data_roots", default=None)
T = TypeVar("T")


def _shown(path: Path | str) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in str(path))
    return text if len(text) <= _SHOWN_PATH else text[:_SHOWN_PATH] + "..."


@contextmanager
def within_roots(roots: Sequence[str | Path] | None) -> Iterator[None]:
    """Confine the dataset readers of this context to ``roots`` (None: no confinement)."""
    resolved = None if roots is None else tuple(Path(root).resolve() for root in roots)
    token = _ROOTS.set(resolved)
    try:
        yield
    finally:
        _ROOTS.reset(token)


def confined(function: Callable[[], T]) -> Callable[[], T]:
    """``function`` bound to the confinement in force now (for a reader that runs later)."""
    roots = _ROOTS.get()

    def call() -> T:
        with within_roots(roots):
            return function()

    return call


def checked_path(path: str | Path) -> Path:
    """``path`` resolved, and checked to lie inside the data roots in force.

    Raises
    ------
    InputError
        The path cannot be resolved (too long, a loop of links) or lies outside the roots.
    """
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError, ValueError) as error:
        raise InputError(
            f"cannot use this path: {getattr(error, 'strerror', None) or error}",
            source=_shown(path),
        ) from None
    roots = _ROOTS.get()
    if roots is not None and not any(resolved.is_relative_to(root) for root in roots):
        raise InputError(
            "outside the server's data roots; datasets must lie under "
            + ", ".join(str(root) for root in roots),
            source=_shown(path),
        )
    return resolved


def _status(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", source=_shown(path)) from None


def regular_file(path: str | Path, what: str = "file") -> Path:
    """The resolved ``path`` of an existing regular file inside the data roots.

    Raises
    ------
    InputError
        It is outside the roots, does not exist, or is not a regular file.
    """
    resolved = checked_path(path)
    status = _status(resolved)
    if status is None:
        raise InputError(f"the {what} does not exist", source=_shown(path))
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"the {what} is not a regular file", source=_shown(path))
    return resolved


def is_directory(path: str | Path) -> bool | None:
    """Whether ``path`` (checked as `checked_path`) is a directory; None if nothing is there."""
    status = _status(checked_path(path))
    return None if status is None else stat.S_ISDIR(status.st_mode)


def text_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 text file (a leading byte order mark dropped), with
    the line's end removed.

    Raises
    ------
    InputError
        As `regular_file`.
    ParseError
        A line is longer than `MAX_LINE_BYTES`, or is not valid UTF-8.
    """
    resolved = regular_file(path)
    source = _shown(path)
    with open(resolved, "rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise ParseError(
                    f"the line is longer than {MAX_LINE_BYTES} bytes", source=source, line=number
                )
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ParseError(
                    f"not valid UTF-8: byte 0x{raw[error.start]:02x} at column {error.start + 1}",
                    source=source,
                    line=number,
                ) from None
            yield number, line.rstrip("\r\n")
