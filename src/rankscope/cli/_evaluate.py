"""``rankscope evaluate QRELS RUN [RUN ...]``: one table, a row per run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankscope.cli._common import (
    DEFAULT_MEASURES,
    add_input_options,
    add_measure_options,
    load_qrels,
    load_run,
    measure_names,
    reading,
)
from rankscope.engine import evaluate, parse_measures
from rankscope.engine.results import Results
from rankscope.errors import OptionError
from rankscope.report.results import OUTPUT_FORMATS, table_rows, write_results


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="evaluate one or more runs against qrels",
        description=(
            "Evaluate runs against relevance judgements. Formats (TREC, JSONL, CSV/TSV, "
            "Parquet, compressed) are detected from the extension and content. "
            f"Default measures: {', '.join(DEFAULT_MEASURES)}."
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="ranked results, one or more")
    add_measure_options(parser)
    parser.add_argument(
        "-q", "--per-query", action="store_true", help="also show every query's values"
    )
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
    parser.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="evaluate a TREC run block by block, with bounded memory, whatever it holds; "
        "--no-stream reads it whole (default: a file of 64 MiB or more that is grouped by "
        "query is read in chunks, the next read on a second core; others whole below 2 GiB)",
    )
    parser.add_argument(
        "--chunk-mb",
        type=int,
        default=128,
        metavar="MB",
        help="how much of a run a streamed chunk reads (default 128)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=list(OUTPUT_FORMATS),
        default="table",
        help="output format (parquet needs --output)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument(
        "--engine",
        choices=("memory", "spark"),
        default="memory",
        help="memory (default), or spark: read and evaluate with Apache Spark (TREC or Parquet "
        "files, directories or globs of them; needs rankscope[spark])",
    )
    parser.add_argument(
        "--master",
        metavar="URL",
        help="with --engine spark: the Spark master (default local[*])",
    )
    add_input_options(parser)
    parser.set_defaults(handler=run)


def _rich_table(runs: list[Results], per_query: bool) -> bool:
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


def _evaluate_on_spark(args: argparse.Namespace, measures: list[str]) -> list[Results]:
    for flag, given in (("--stream", args.stream is not None), ("--lenient", args.lenient)):
        if given:
            raise OptionError(f"{flag} applies to the memory engine, not to --engine spark")
    import rankscope.spark as on_spark  # or MissingDependencyError, naming the extra

    return on_spark.evaluate_files(
        on_spark.local_session(args.master or "local[*]"),
        args.qrels,
        args.runs,
        measures,
        qrels_format=args.qrels_format,
        run_format=args.run_format,
        profile=args.profile,
        complete=args.complete,
        relevance_level=args.relevance_level,
        max_documents=args.max_documents,
    )


def run(args: argparse.Namespace) -> int:
    measures = parse_measures(measure_names(args.measures))
    if args.engine == "spark":
        return _write(_evaluate_on_spark(args, [m.name for m in measures]), args)
    if args.master is not None:
        raise OptionError("--master applies to --engine spark")
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient)
    if args.stream and args.run_format not in (None, "trec"):
        raise OptionError(f"--stream reads TREC runs only; a {args.run_format} run is read whole")
    results = []
    for path in args.runs:
        # A path lets evaluate() stream a large TREC run; a forced format is read here.
        forced = args.run_format is not None and not (args.stream and args.run_format == "trec")
        run = load_run(path, args.run_format, args.lenient) if forced else path
        with reading(path):
            results.append(
                evaluate(
                    qrels,
                    run,
                    measures,
                    profile=args.profile,
                    complete=args.complete,
                    relevance_level=args.relevance_level,
                    max_documents=args.max_documents,
                    stream=args.stream,
                    chunk_bytes=args.chunk_mb * 1024 * 1024,
                    lenient=args.lenient,
                )
            )
    return _write(results, args)


def _write(results: list[Results], args: argparse.Namespace) -> int:
    terminal = args.format == "table" and args.output is None and sys.stdout.isatty()
    if terminal and _rich_table(results, args.per_query):
        return 0
    write_results(results, args.output, args.format, args.per_query)
    return 0
