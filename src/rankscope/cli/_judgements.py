"""What ``rankscope pool``, ``holes`` and ``agree`` share: their output formats, a table of
text cells rendered in each, and a spinner for the work that takes seconds.

Nothing heavy is imported here: building a parser (for ``--help``) must stay fast.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import sys
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["TABLE_FORMATS", "add_output_options", "number", "render_table", "working"]

TABLE_FORMATS = ("table", "json", "csv", "markdown")
"""The formats of ``holes`` and ``agree``; JSON is built from the library's ``to_dict``."""


def add_output_options(parser: Any, formats: Sequence[str] = TABLE_FORMATS) -> None:
    """``-f/--format`` and ``-o/--output``."""
    parser.add_argument(
        "-f", "--format", choices=formats, default="table", help="output format (default table)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def number(value: float | None) -> str:
    """A value as the tables print it: 4 decimals, as trec_eval (``nan`` when undefined).

    >>> number(0.5), number(float("nan")), number(None)
    ('0.5000', 'nan', '')
    """
    if value is None:
        return ""
    return "nan" if math.isnan(value) else f"{value:.4f}"


def render_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], format: str, labels: int
) -> str:
    """Text cells as an aligned text table, GitHub Markdown or CSV; the first ``labels``
    columns are left-aligned, the others (numbers) right-aligned.

    Examples
    --------
    >>> print(render_table(["run", "P@10"], [["bm25", "0.5000"]], "markdown", 1), end="")
    | run | P@10 |
    | --- | ---: |
    | bm25 | 0.5000 |
    """
    if format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buffer.getvalue()
    if format == "markdown":
        align = ["---"] * labels + ["---:"] * (len(header) - labels)
        return "".join("| " + " | ".join(cells) + " |\n" for cells in [header, align, *rows])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(width) if i < labels else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()
        for cells in [header, *rows]
    ]
    return "".join(line + "\n" for line in lines)


@contextlib.contextmanager
def working(message: str) -> Iterator[None]:
    """Show ``message`` with a spinner on standard error while the block runs, on a terminal
    (and where rich is installed); nothing otherwise."""
    if not sys.stderr.isatty():
        yield
        return
    try:
        from rich.console import Console
    except ImportError:
        yield
        return
    with Console(stderr=True).status(message):
        yield
