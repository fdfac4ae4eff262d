"""``rankscope evaluate QRELS RUN [RUN ...]``: one table, a row per run."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    RESULT_FORMATS,
    add_cutoff_options,
    add_input_options,
    add_measure_options,
    default_measures_help,
    duplicate_policy,
    load_judgements,
    load_ranking,
    measure_names,
    reading,
    rich_table,
)
from rankscope.errors import OptionError

if TYPE_CHECKING:
    from rankscope.engine import Measure, Results


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help=COMMANDS["evaluate"][1],
        description=(
            "Evaluate runs against relevance judgements. Formats (TREC, JSONL, CSV/TSV, "
            "Parquet, compressed) are detected from the extension and content. "
            + default_measures_help()
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="ranked results, one or more")
    add_measure_options(parser)
    parser.add_argument(
        "-q", "--per-query", action="store_true", help="also show every query's values"
    )
    add_cutoff_options(parser)
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
        choices=RESULT_FORMATS,
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


def _evaluate_in_memory(args: argparse.Namespace, measures: list[Measure]) -> list[Results]:
    from rankscope.engine import evaluate
    from rankscope.engine._evaluate import counts_progress

    qrels = load_judgements(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    if args.stream and args.run_format not in (None, "trec"):
        raise OptionError(f"--stream reads TREC runs only; a {args.run_format} run is read whole")
    # A path lets evaluate() stream a large TREC run; a run read with options is read here.
    options = args.run_columns or args.run_key or args.run_format not in (None, "trec")
    forced = options or (args.run_format == "trec" and not args.stream)
    results = []
    for path in args.runs:
        run = (
            load_ranking(path, args.run_format, args.lenient, args.run_columns, args.run_key)
            if forced
            else path
        )
        # A bar of the bytes read where the reading can count them, else a spinner.
        counted = not forced and counts_progress(path, args.stream)
        with contextlib.nullcontext() if counted else reading(path):
            results.append(
                evaluate(
                    qrels,
                    run,
                    measures,
                    profile=args.profile,
                    complete=args.complete,
                    relevance_level=args.relevance_level,
                    max_documents=args.max_documents,
                    duplicate_documents=duplicate_policy(args),
                    stream=args.stream,
                    chunk_bytes=args.chunk_mb * 1024 * 1024,
                    lenient=args.lenient,
                    progress=counted,
                )
            )
    return results


def run(args: argparse.Namespace) -> int:
    from rankscope.engine import parse_measures
    from rankscope.engine.provenance import Provenance, command_line, distinct_names
    from rankscope.report.results import write_results

    measures = parse_measures(measure_names(args.measures, args.profile))
    if args.engine == "spark":
        results = _evaluate_on_spark(args, [m.name for m in measures])
    else:
        if args.master is not None:
            raise OptionError("--master applies to --engine spark")
        results = _evaluate_in_memory(args, measures)
    names = distinct_names([r.run_name for r in results], args.runs)
    results = [r.renamed(name) for r, name in zip(results, names, strict=True)]
    terminal = args.format == "table" and args.output is None and sys.stdout.isatty()
    if terminal and rich_table(results, args.per_query):
        return 0
    provenance = Provenance.now(
        qrels=args.qrels,
        runs=list(zip(names, args.runs, strict=True)),
        profile=results[0].profile,
        measures=[m.name for m in measures],
        command=command_line(args.argv),
    )
    write_results(results, args.output, args.format, args.per_query, provenance)
    return 0
