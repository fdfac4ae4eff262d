"""``rankscope pool RUN ... --depth K``: what to judge next, as a to-judge file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankscope._progress import steps
from rankscope.cli import COMMANDS
from rankscope.cli._common import add_input_options, load_qrels, load_run
from rankscope.cli._judgements import working
from rankscope.errors import OptionError

POOL_FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pool",
        help=COMMANDS["pool"][1],
        description=(
            "Pool runs to a depth: the union of each run's top K documents per query (ranked "
            "as trec_eval ranks them: score descending, ties by document id descending), less "
            "the pairs --qrels already judge. Written as TREC qrels with a placeholder grade, "
            "or as CSV, TSV, JSONL or Parquet with the query and document texts (--queries, "
            "--corpus) and, per pair, how many runs pooled it and its best rank."
        ),
    )
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs to pool, one or more")
    parser.add_argument(
        "--depth",
        type=int,
        required=True,
        metavar="K",
        help="how many of each ranking's first documents to pool",
    )
    parser.add_argument(
        "--qrels", metavar="EXISTING", help="judgements already made: their pairs are left out"
    )
    parser.add_argument(
        "--corpus",
        metavar="FILE",
        help="document texts (BEIR corpus.jsonl, MS MARCO collection.tsv, WeKnora "
        "corpus.parquet) to write beside each pair; needs a format other than trec",
    )
    parser.add_argument(
        "--queries",
        metavar="FILE",
        help="query texts (queries.jsonl, queries.tsv, queries.parquet) to write beside each pair",
    )
    parser.add_argument(
        "--placeholder",
        type=int,
        default=-1,
        metavar="GRADE",
        help="the grade of a pair until it is judged (default -1: read as not judged)",
    )
    parser.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="the to-judge file (default stdout)"
    )
    parser.add_argument(
        "-f",
        "--format",
        dest="output_format",
        choices=POOL_FORMATS,
        help="output format (default: from --output's extension, else trec; csv when "
        "--corpus or --queries is given and the extension says nothing)",
    )
    add_input_options(parser, duplicates=False)
    parser.set_defaults(handler=run)


def _output_format(args: argparse.Namespace) -> str:
    from rankscope.cli._fuse import output_format

    texts = args.corpus is not None or args.queries is not None
    fmt: str = args.output_format or output_format(args.output)
    if args.output_format is None and fmt == "trec" and texts:
        fmt = "csv"  # a file named without a known extension, or stdout
    if fmt == "trec" and texts:
        raise OptionError(
            "--corpus and --queries write texts, which TREC qrels cannot hold; choose "
            "--format csv, tsv, jsonl or parquet"
        )
    if fmt == "parquet" and args.output == "-":
        raise OptionError("--format parquet needs --output FILE")
    return fmt


def run(args: argparse.Namespace) -> int:
    from rankscope.judge import pool, write_pool

    if args.depth < 1:
        raise OptionError(f"--depth must be an integer >= 1; got {args.depth}")
    fmt = _output_format(args)
    runs = []
    with steps(len(args.runs), "reading runs", True) as advance:  # a bar on a terminal only
        for done, path in enumerate(args.runs, 1):
            runs.append(
                load_run(path, args.run_format, args.lenient, args.run_columns, args.run_key)
            )
            advance(done)
    qrels = (
        None
        if args.qrels is None
        else load_qrels(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    )
    with working(f"pooling {len(runs)} runs to depth {args.depth}"):
        pooled = pool(runs, args.depth, qrels)
    write_pool(
        pooled,
        args.output,
        fmt,
        corpus=args.corpus,
        queries=args.queries,
        placeholder=args.placeholder,
    )
    judged = f"; {pooled.judged} pairs already judged left out" if qrels is not None else ""
    print(
        f"rankscope: pool: {len(pooled)} pairs to judge in {len(pooled.query_ids)} queries "
        f"(depth {args.depth}, {len(runs)} run{'s' * (len(runs) != 1)}{judged})",
        file=sys.stderr,
    )
    return 0
