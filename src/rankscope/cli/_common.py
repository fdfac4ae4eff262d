"""What the subcommands share: reading inputs (with a progress display), writing output."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from rankscope.engine.results import Results
from rankscope.io import Qrels, Run, read_qrels, read_run
from rankscope.report.results import table_rows

DEFAULT_MEASURES = ("nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10", "R@100")

# Files at least this large get a progress display on a terminal.
PROGRESS_BYTES = 20 * 1024 * 1024


@contextlib.contextmanager
def reading(path: str) -> Iterator[None]:
    """Show "reading PATH" with a spinner on standard error, on a terminal, for big files."""
    size = os.path.getsize(path) if path != "-" and os.path.isfile(path) else 0
    if size < PROGRESS_BYTES or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(f"reading {path} ({size / 1e6:.0f} MB)"):
        yield


def load_qrels(path: str, format: str | None, lenient: bool) -> Qrels:
    with reading(path):
        return read_qrels(path, format=format, lenient=lenient)


def load_run(path: str, format: str | None, lenient: bool) -> Run:
    with reading(path):
        return read_run(path, format=format, lenient=lenient)


def add_measure_options(parser: Any) -> None:
    """``-m``, ``--profile`` and ``-l``: what to compute, under which conventions."""
    from rankscope.engine import PROFILES

    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure such as nDCG@10, AP, P(rel=2)@5 or ndcg_cut.10 (repeatable; "
        "comma-separated lists allowed); see `rankscope measures`",
    )
    parser.add_argument(
        "--profile",
        choices=list(PROFILES),
        default="trec",
        help="conventions to follow: trec (trec_eval 10, default), trec9 (trec_eval 9, "
        "pytrec_eval), weknora (WeKnora's metrics)",
    )
    parser.add_argument(
        "-l",
        "--relevance-level",
        type=int,
        default=1,
        metavar="N",
        help="lowest grade that counts as relevant (default 1)",
    )


def add_input_options(parser: Any) -> None:
    """Options every evaluating command takes about its input files."""
    parser.add_argument(
        "--qrels-format", metavar="FORMAT", help="force the qrels format instead of detecting it"
    )
    parser.add_argument(
        "--run-format", metavar="FORMAT", help="force the run format instead of detecting it"
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="skip malformed lines (counted in a warning) instead of stopping",
    )


def measure_names(given: list[str] | None) -> list[str]:
    """The measure names of repeated ``-m`` options; the defaults when none were given."""
    if not given:
        return list(DEFAULT_MEASURES)
    names: list[str] = []
    for item in given:
        # Commas separate measures, except inside parameter lists: P(rel=2)@5,AP
        depth, start = 0, 0
        for i, char in enumerate(item):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                names.append(item[start:i])
                start = i + 1
        names.append(item[start:])
    return [name.strip() for name in names if name.strip()]


def rich_table(runs: list[Results], per_query: bool) -> bool:
    """Print a rich table on a terminal; False when rich is not installed."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        return False
    header, rows = table_rows(runs, per_query)
    labels = 2 if per_query else 1
    table = Table(show_edge=False, header_style="bold")
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i < labels else "right")
    for row in rows:
        table.add_row(*row, style="bold" if per_query and row[1] == "all" else None)
    Console().print(table)
    return True
