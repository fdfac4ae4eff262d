"""Shared machinery of the text readers of JSON Lines and CSV/TSV (TREC files are the native
core's): lines as a column, value checks, bad-line reports.

Every reader works the same way: a columnar reader (polars) turns the file into columns, vectorized
expressions compute a *problem* code for every row (null when the row is fine), and only when a
row has a problem does Python look at it, to describe the first one (strict mode: raise a
`ParseError` naming the file, the 1-based physical line and the line's text) or to count them all
(lenient mode: drop them, and report the count in one `RankscopeWarning`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankscope.errors import EmptyInputError, ParseError, RankscopeWarning
from rankscope.io._files import Input

__all__ = [
    "LINE",
    "LINE_INDEX",
    "PROBLEM",
    "Problem",
    "Skipped",
    "empty_error",
    "grade_values",
    "python_lines",
    "read_lines",
    "score_values",
    "settle",
]

LINE = "__line__"
LINE_INDEX = "__line_index__"
PROBLEM = "__problem__"

_LINES_SCHEMA = {LINE: pl.String}


def _lines_options() -> dict[str, Any]:
    # A NUL separator (files holding NUL bytes are refused before this) and no quoting: every
    # physical line becomes one string, an empty line a null, "\r\n" endings lose the "\r".
    return {
        "separator": "\x00",
        "has_header": False,
        "quote_char": None,
        "schema": _LINES_SCHEMA,
        "row_index_name": LINE_INDEX,
        "glob": False,  # a file named "run[1].txt" is that file, not a pattern
    }


def read_lines(opened: Input, *, lenient: bool) -> tuple[pl.DataFrame, Skipped]:
    """The physical lines of a file as columns ``LINE_INDEX`` (0-based) and ``LINE``, with any
    unreadable lines.

    Lines that are not UTF-8 text or hold NUL bytes are errors, or skipped in lenient mode.
    """
    if not opened.contains_any((b"\x00",)):
        try:
            return pl.read_csv(opened.polars_source, **_lines_options()), Skipped()
        except pl.exceptions.ComputeError:
            pass  # not valid UTF-8: python_lines finds the lines
    return python_lines(opened.read_bytes(), source=opened.source, lenient=lenient)


def python_lines(
    data: bytes, *, source: str, lenient: bool, first_line: int = 1
) -> tuple[pl.DataFrame, Skipped]:
    """Lines split and decoded in Python: the slow path, taken only for files with bad bytes."""
    indices: list[int] = []
    texts: list[str | None] = []
    skipped = Skipped()
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for index, raw in enumerate(pieces):
        message = None
        text = ""
        if b"\x00" in raw:
            message = "line holds a NUL byte; expected text (is this a binary file?)"
        else:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                message = f"line is not valid UTF-8 (byte {error.start + 1} of the line)"
        if message is not None:
            shown = raw.decode("utf-8", errors="replace").replace("\x00", "\\x00")
            line = index + first_line
            if not lenient:
                raise ParseError(message, source=source, line=line, text=shown)
            skipped = skipped + Skipped(1, line, message)
            continue
        text = text.removesuffix("\r")
        indices.append(index)
        texts.append(text or None)
    frame = pl.DataFrame(
        {LINE_INDEX: indices, LINE: texts}, schema={LINE_INDEX: pl.UInt32, LINE: pl.String}
    )
    return frame, skipped


@dataclass(frozen=True)
class Skipped:
    """Malformed lines (or rows) left out in lenient mode: how many, and the first of them."""

    count: int = 0
    first_line: int = 0
    first_message: str = ""

    def __add__(self, other: Skipped) -> Skipped:
        if self.count == 0:
            return other
        if other.count == 0:
            return self
        first = self if self.first_line <= other.first_line else other
        return Skipped(self.count + other.count, first.first_line, first.first_message)

    def warn(self, source: str, *, unit: str = "line", stacklevel: int = 3) -> None:
        """Emit the one `RankscopeWarning` that reports the skipped lines, if there are any."""
        if self.count == 0:
            return
        plural = "" if self.count == 1 else "s"
        warnings.warn(
            f"skipped {self.count} malformed {unit}{plural} in {source}; first at {unit} "
            f"{self.first_line}: {self.first_message}",
            RankscopeWarning,
            stacklevel=stacklevel,
        )


def empty_error(
    opened: Input,
    expected: str,
    skipped: Skipped,
    *,
    found: str = "only comments and blank lines",
) -> EmptyInputError:
    """The error for a file that yielded no rows: empty, ``found`` (comments...), or all bad."""
    if skipped.count:
        plural = "" if skipped.count == 1 else "s"
        return EmptyInputError(
            f"no valid data: {skipped.count} malformed line{plural} skipped and nothing else "
            f"found; first at line {skipped.first_line}: {skipped.first_message}",
            source=opened.source,
        )
    if not opened.head().strip():
        return EmptyInputError(f"file is empty; expected {expected}", source=opened.source)
    return EmptyInputError(f"file holds {found}; expected {expected}", source=opened.source)


@dataclass(frozen=True)
class Problem:
    """What is wrong with one row, for the message: the text, the line (or row) and its text."""

    message: str
    line: int | None = None
    text: str | None = None
    row: int | None = None


def settle(
    frame: pl.DataFrame,
    describe: Callable[[dict[str, Any]], Problem],
    *,
    lenient: bool,
    source: str,
) -> tuple[pl.DataFrame, Skipped]:
    """Drop the ``PROBLEM`` column: raise for the first problem row, or skip the problem rows.

    ``describe`` turns the first problem row (as a dict of its columns) into a `Problem`; it may
    use Python, since it runs once per file and only when something is wrong.
    """
    bad = frame[PROBLEM].is_not_null()
    count = int(bad.sum())
    if count == 0:
        return frame.drop(PROBLEM), Skipped()
    problem = describe(frame.row(int(bad.arg_max() or 0), named=True))
    message = problem.message
    if problem.row is not None:
        message = f"{message} (row {problem.row})"
    if not lenient:
        raise ParseError(message, source=source, line=problem.line, text=problem.text)
    position = problem.line if problem.line is not None else problem.row or 0
    return frame.filter(~bad).drop(PROBLEM), Skipped(count, position, problem.message)


def score_values(values: pl.Expr) -> pl.Expr:
    """Scores from text or numbers as Float64; null where not a finite number.

    Examples
    --------
    >>> s = pl.Series(["1.5", "nan", "inf", "x", "-2e3"])
    >>> pl.select(score_values(pl.lit(s))).to_series().to_list()
    [1.5, None, None, None, -2000.0]
    """
    scores = values.cast(pl.Float64, strict=False)
    return pl.when(scores.is_finite()).then(scores)


def grade_values(values: pl.Expr, *, from_text: bool = True) -> pl.Expr:
    """Integer grades from text (or, with ``from_text=False``, floats) as Int64; null where not
    an integer.

    Whole numbers written as floats ("2.0") are accepted, as `Qrels.from_frame` does.

    Examples
    --------
    >>> s = pl.Series(["1", "-1", "2.0", "1.5", "x", "+3"])
    >>> pl.select(grade_values(pl.lit(s))).to_series().to_list()
    [1, -1, 2, None, None, 3]
    >>> f = pl.Series([1.0, 1.5, None])
    >>> pl.select(grade_values(pl.lit(f), from_text=False)).to_series().to_list()
    [1, None, None]
    """
    as_float = values.cast(pl.Float64, strict=False)
    whole = as_float.is_finite() & (as_float == as_float.round(0)) & (as_float.abs() < 2.0**62)
    from_float = pl.when(whole).then(as_float).cast(pl.Int64, strict=False)
    if not from_text:
        return from_float
    return pl.coalesce(values.cast(pl.Int64, strict=False), from_float)
