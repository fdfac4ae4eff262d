"""``rankscope explain QRELS RUN -m MEASURE``: why the measure differs between profiles (and
from another tool's output, ``--against FILE``)."""

from __future__ import annotations

import argparse
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    add_cutoff_options,
    add_input_options,
    add_relevance_option,
    duplicate_policy,
    load_qrels,
    load_run,
)

FORMATS = ("text", "json", "md")
"""The output formats (`rankscope.report.explain.EXPLAIN_FORMATS`; a test keeps them equal)."""

VALUE_FORMATS = ("trec_eval", "json", "csv")
"""The formats of ``--against`` (`rankscope.io._values.VALUE_FORMATS`; a test keeps them
equal)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain",
        help=COMMANDS["explain"][1],
        description=(
            "Compute one measure under several profiles side by side (means and per query) and, "
            "for each pair that differs, which conventions account for the difference: each "
            "convention switched one at a time from one profile to the other (in the order of "
            "the core's table of conventions), alone, and last. Then the causes in the "
            "data (ties, float32 collisions, duplicates, negative grades, missing queries, "
            "short rankings), and with --against which profile reproduces another tool's "
            "output."
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument("run", metavar="RUN", help="ranked results")
    parser.add_argument(
        "-m",
        "--measure",
        required=True,
        metavar="MEASURE",
        help="the measure to explain: nDCG@10, AP, ndcg_cut.10, ...",
    )
    parser.add_argument(
        "--profiles",
        metavar="A,B,...",
        help="the profiles to compare, comma-separated (default: every built-in profile)",
    )
    parser.add_argument(
        "--against",
        metavar="FILE",
        help="another tool's output: trec_eval's text (with or without -q), pytrec_eval or "
        "ranx JSON {query: {measure: value}}, or a CSV of per-query values",
    )
    parser.add_argument(
        "--against-format",
        choices=VALUE_FORMATS,
        help="the format of --against (default: detected)",
    )
    add_relevance_option(parser)
    add_cutoff_options(parser)
    parser.add_argument(
        "--top",
        type=int,
        default=5,
        metavar="N",
        help="how many queries each convention names (default 5)",
    )
    parser.add_argument("-f", "--format", choices=FORMATS, default="text", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_input_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rankscope.explain import explain
    from rankscope.report.explain import render_explanation
    from rankscope.report.results import write_text

    if args.against_format is not None and args.against is None:
        from rankscope.errors import OptionError

        raise OptionError("--against-format describes the file of --against; give --against")
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    ranking = load_run(args.run, args.run_format, args.lenient, args.run_columns, args.run_key)
    explanation = explain(
        qrels,
        ranking,
        args.measure,
        profiles=args.profiles,
        against=args.against,
        against_format=args.against_format,
        complete=args.complete,
        relevance_level=args.relevance_level,
        max_documents=args.max_documents,
        duplicate_documents=duplicate_policy(args),
        top=args.top,
    )
    write_text(render_explanation(explanation, args.format), args.output)
    return 0
