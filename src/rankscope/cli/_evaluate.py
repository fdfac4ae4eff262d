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
    rich_table,
)
from rankscope.engine import evaluate, parse_measures
from rankscope.errors import OptionError
from rankscope.report.results import OUTPUT_FORMATS, write_results


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
    add_input_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    measures = parse_measures(measure_names(args.measures))
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
    terminal = args.format == "table" and args.output is None and sys.stdout.isatty()
    if terminal and rich_table(results, args.per_query):
        return 0
    write_results(results, args.output, args.format, args.per_query)
    return 0
