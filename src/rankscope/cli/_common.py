"""What the subcommands share: the options about inputs and measures, reading the inputs (with
a progress display), and the names the options offer.

This module imports nothing heavy: building a parser (for ``--help``) must stay fast. The names
below mirror the library's tables (a test keeps them equal), so that offering them does not load
the engine. The default measures are each profile's, read from the registry when used.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rankscope._progress import bar_shown
from rankscope.engine.profiles import PROFILES
from rankscope.errors import OptionError, RankscopeError

if TYPE_CHECKING:
    from rankscope.engine.results import Results
    from rankscope.io import Qrels, Run
    from rankscope.io._native import NativeQrels, NativeRun

PROFILE_NAMES = tuple(PROFILES)
ANSWER_PROFILE_NAMES = ("standard", "weknora")
INPUT_FORMATS = ("trec", "jsonl", "csv", "tsv", "parquet")
INPUT_FORMAT_ALIASES = ("beir", "json", "ndjson", "pq")
RESULT_FORMATS = ("table", "json", "jsonl", "csv", "markdown", "trec", "parquet")
COMPARISON_FORMATS = ("table", "markdown", "latex", "json", "html")
TEST_NAMES = ("t", "wilcoxon", "randomization", "bootstrap", "tukey", "randomized-tukey")
TUKEY_TEST_NAMES = ("tukey", "randomized-tukey")
CORRECTION_NAMES = ("holm", "bonferroni", "bh", "none")
DUPLICATE_POLICIES = {"error": "error", "keep-first": "keep_first", "keep-all": "keep_all"}
"""``--duplicates`` value -> the library's ``duplicate_documents``."""

# Files at least this large get a progress display on a terminal.
PROGRESS_BYTES = 20 * 1024 * 1024


@contextlib.contextmanager
def reading(path: str) -> Iterator[None]:
    """Show "reading PATH" with a spinner on standard error, on a terminal, for big files."""
    size = os.path.getsize(path) if path != "-" and os.path.isfile(path) else 0
    if size < PROGRESS_BYTES or not sys.stderr.isatty() or bar_shown():  # the bar says it
        yield
        return
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(f"reading {path} ({size / 1e6:.0f} MB)"):
        yield


def load_qrels(
    path: str, format: str | None, lenient: bool, columns: dict[str, str] | None = None
) -> Qrels:
    from rankscope.io import read_qrels

    with reading(path):
        return read_qrels(path, format=format, lenient=lenient, **(columns or {}))


def load_judgements(
    path: str, format: str | None, lenient: bool, columns: dict[str, str] | None = None
) -> NativeQrels:
    """The qrels, read once by the core for every run to evaluate (a TREC file natively; with
    column names, through `load_qrels`)."""
    from rankscope.io._native import native_qrels, read_native_qrels

    if columns:
        return native_qrels(load_qrels(path, format, lenient, columns))
    with reading(path):
        return read_native_qrels(path, lenient=lenient, format=format)


def load_ranking(
    path: str,
    format: str | None,
    lenient: bool,
    columns: dict[str, str] | None = None,
    list_key: str | None = None,
) -> NativeRun:
    """A run read by the core (a TREC file natively; with column names or a list key, through
    `load_run`)."""
    from rankscope.io._native import native_run, read_native_run

    if columns or list_key:
        return native_run(load_run(path, format, lenient, columns, list_key))
    with reading(path):
        return read_native_run(path, lenient=lenient, format=format)


def load_run(
    path: str,
    format: str | None,
    lenient: bool,
    columns: dict[str, str] | None = None,
    list_key: str | None = None,
) -> Run:
    from rankscope.io import read_run

    with reading(path):
        return read_run(path, format=format, lenient=lenient, list_key=list_key, **(columns or {}))


def add_measure_options(parser: Any) -> None:
    """``-m``, ``--profile`` and ``-l``: what to compute, under which conventions."""
    add_measure_option(parser)
    parser.add_argument(
        "--profile",
        choices=PROFILE_NAMES,
        default="trec",
        help="conventions to follow: trec (trec_eval 10, default), trec9 (trec_eval 9, "
        "pytrec_eval), weknora (WeKnora's metrics)",
    )
    add_relevance_option(parser)


def add_cutoff_options(parser: Any) -> None:
    """``-c/--complete`` and ``-M/--max-documents``: which queries count, and how deep."""
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0 (trec_eval -c)",
    )
    parser.add_argument(
        "-M",
        "--max-documents",
        type=int,
        metavar="N",
        help="evaluate only the first N documents of each ranking",
    )


def add_relevance_option(parser: Any) -> None:
    """``-l/--relevance-level``: the lowest grade that counts as relevant."""
    parser.add_argument(
        "-l",
        "--relevance-level",
        type=int,
        default=1,
        metavar="N",
        help="lowest grade that counts as relevant (default 1)",
    )


def add_measure_option(parser: Any, help: str | None = None) -> None:
    """``-m NAME``: repeatable, and each value may list several names separated by commas;
    with ``--measures-from``, which defines measures for ``-m`` to name."""
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help=help
        or "a measure such as nDCG@10, AP, P(rel=2)@5 or ndcg_cut.10 (repeatable; "
        "comma-separated lists allowed: -m nDCG@10,AP); see `rankscope measures`",
    )
    add_measures_from_option(parser)


class _LoadMeasures(argparse.Action):
    """Runs the module as the option is read, so that every measure it defines is known to
    the options and the command that follow; keeps the modules in order."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        from rankscope.measures import load

        load(values)
        loaded = list(getattr(namespace, self.dest, None) or [])
        setattr(namespace, self.dest, [*loaded, str(values)])


def add_measures_from_option(parser: Any) -> None:
    """``--measures-from MODULE``: a Python file (or a module's dotted name) that defines
    measures with `rankscope.measures.define`; repeatable."""
    parser.add_argument(
        "--measures-from",
        dest="measures_from",
        action=_LoadMeasures,
        metavar="MODULE",
        help="a Python file (or a module's dotted name) that defines measures with "
        "rankscope.measures.define, for -m to name (repeatable)",
    )


def _format(value: str) -> str:
    name = value.strip().lower()
    if name not in INPUT_FORMATS + INPUT_FORMAT_ALIASES:
        raise argparse.ArgumentTypeError(
            f"unknown format {value!r}; expected one of {', '.join(INPUT_FORMATS)} "
            f"(or {', '.join(INPUT_FORMAT_ALIASES)})"
        )
    return name


def _columns(kind: str) -> Any:
    ours = ("query_id", "doc_id", "relevance" if kind == "qrels" else "score")

    def parse(value: str) -> dict[str, str]:
        mapping: dict[str, str] = {}
        for item in value.split(","):
            key, equals, theirs = item.partition("=")
            key, theirs = key.strip(), theirs.strip()
            if not equals or key not in ours or not theirs:
                raise argparse.ArgumentTypeError(
                    f"expected {','.join(f'{name}=COLUMN' for name in ours)} (any of them); "
                    f"got {value!r}"
                )
            mapping[key] = theirs
        return mapping

    return parse


def add_input_options(parser: Any, duplicates: bool = True) -> None:
    """Options every evaluating command takes about its input files."""
    group = parser.add_argument_group("input files")
    group.add_argument(
        "--qrels-format",
        type=_format,
        metavar="FORMAT",
        help=f"force the qrels format ({', '.join(INPUT_FORMATS)}) instead of detecting it",
    )
    group.add_argument(
        "--run-format",
        type=_format,
        metavar="FORMAT",
        help=f"force the run format ({', '.join(INPUT_FORMATS)}) instead of detecting it",
    )
    group.add_argument(
        "--qrels-columns",
        type=_columns("qrels"),
        metavar="MAP",
        help="the qrels' column (or JSON key) names when they are not the usual ones: "
        "query_id=topic,doc_id=docno,relevance=label",
    )
    group.add_argument(
        "--run-columns",
        type=_columns("run"),
        metavar="MAP",
        help="the run's column (or JSON key) names: query_id=qid,doc_id=pid,score=sim",
    )
    group.add_argument(
        "--run-key",
        metavar="KEY",
        help="JSONL runs with a list per query: the key of the list (default: the first of "
        "doc_ids, results, retrieved, ctxs, passages, hits... found)",
    )
    if duplicates:
        group.add_argument(
            "--duplicates",
            choices=tuple(DUPLICATE_POLICIES),
            metavar="POLICY",
            help="a document ranked twice for one query: error (the trec profile's default), "
            "keep-first (trec_eval's reading of such runs), keep-all (weknora's default)",
        )
    group.add_argument(
        "--lenient",
        action="store_true",
        help="skip malformed lines (counted in a warning) instead of stopping",
    )


def duplicate_policy(args: argparse.Namespace) -> str | None:
    """The library's ``duplicate_documents`` for ``--duplicates`` (None: the profile's)."""
    return None if args.duplicates is None else DUPLICATE_POLICIES[args.duplicates]


def split_measures(given: list[str] | None) -> list[str]:
    """The measure names of repeated ``-m`` options, each read as the library reads a string
    of measures (`rankscope.engine.measures.given_measures`): split at its commas, but not at
    those inside parameter lists (``P(rel=2)@5,AP``), nor in a text that is one name."""
    from rankscope.engine.measures import split_measures as split

    return [name for item in given or [] for name in split(item)]


def measure_names(given: list[str] | None, profile: str) -> list[str]:
    """The measure names of repeated ``-m`` options; the profile's defaults when none were
    given."""
    if given:
        return split_measures(given)
    from rankscope.engine.measures import default_measures

    return list(default_measures(profile))


def default_measures_help(profile: str | None = None) -> str:
    """The help's sentence on the measures computed without ``-m`` (``profile``: the one a
    command without ``--profile`` evaluates under)."""
    whose = f"the {profile} profile's" if profile else "the profile's"
    return f"Without -m, {whose} default measures (`rankscope measures` lists them)."


def in_cli_terms(error: RankscopeError, qrels_path: str | None) -> str:
    """The error's message in the command line's terms, as the core words it for both doors
    (``rankscope_core::error::in_cli_terms``): an option the core checked named by its flag
    (the error's ``option`` field), the library's keywords replaced by the flags that set them
    (``--run-columns score=...`` for a file read as a run, ``--qrels-columns`` for the qrels).

    Examples
    --------
    >>> from rankscope.errors import InputError
    >>> error = InputError("no column for score: ... (or name it with score=...)", source="r.csv")
    >>> in_cli_terms(error, "qrels.txt")
    'r.csv: no column for score: ... (or name it with --run-columns score=...)'

    An option the core checked names its flag (from the error's ``option``):

    >>> from rankscope.errors import OptionError
    >>> error = OptionError("max_documents must be an integer >= 0; got -1", option="max_documents")
    >>> in_cli_terms(error, None)
    '-M/--max-documents must be an integer >= 0; got -1'
    """
    from rankscope.engine.native import in_cli_terms as worded

    option = error.option if isinstance(error, OptionError) else None
    source = getattr(error, "source", None)
    of_qrels = source is not None and source == qrels_path
    return worded(str(error), option, of_qrels)


def rich_table(runs: list[Results], per_query: bool) -> bool:
    """Print a rich table on a terminal; False when rich is not installed."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        return False
    from rankscope.report.results import table_rows

    header, rows = table_rows(runs, per_query)
    labels = 2 if per_query else 1
    table = Table(show_edge=False, header_style="bold")
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i < labels else "right")
    for row in rows:
        table.add_row(*row, style="bold" if per_query and row[1] == "all" else None)
    Console().print(table)
    return True
