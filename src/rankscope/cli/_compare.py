"""``rankscope compare QRELS BASELINE RUN [RUN ...]``: systems against a baseline, with tests."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    DEFAULT_MEASURES,
    add_input_options,
    add_measure_options,
    duplicate_policy,
    load_qrels,
    load_run,
    measure_names,
)
from rankscope.cli._report import add_report_options, check_report_options, write_report

if TYPE_CHECKING:
    from rankscope.compare import ComparisonReport


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help=COMMANDS["compare"][1],
        description=(
            "Compare one or more runs with a baseline run on the same queries: per measure, "
            "a paired significance test of each run against the baseline, corrected for "
            "multiple comparisons, with bootstrap confidence intervals. Output as a table, "
            "Markdown, LaTeX (booktabs), JSON, or a self-contained HTML report. "
            f"Default measures: {', '.join(DEFAULT_MEASURES)}."
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument("baseline", metavar="BASELINE", help="the run the others are compared to")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs to compare, one or more")
    add_measure_options(parser)
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0; without it, the comparison is "
        "restricted to the queries every run holds (with a warning)",
    )
    add_report_options(parser)
    add_input_options(parser)
    parser.set_defaults(handler=run)


def _report(args: argparse.Namespace) -> ComparisonReport:
    from rankscope.compare import build_report
    from rankscope.engine import evaluate, parse_measures
    from rankscope.engine.provenance import Provenance, command_line, distinct_names

    measures = parse_measures(measure_names(args.measures))
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    paths = [args.baseline, *args.runs]
    results = [
        evaluate(
            qrels,
            load_run(path, args.run_format, args.lenient, args.run_columns, args.run_key),
            measures,
            profile=args.profile,
            complete=args.complete,
            relevance_level=args.relevance_level,
            duplicate_documents=duplicate_policy(args),
        )
        for path in paths
    ]
    names = distinct_names([r.run_name for r in results], paths)
    provenance = Provenance.now(
        qrels=args.qrels,
        runs=list(zip(names, paths, strict=True)),
        profile=results[0].profile,
        measures=[m.name for m in measures],
        command=command_line(args.argv),
    )
    return build_report(
        results[0],
        results[1:],
        names=names,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        seed=args.seed,
        n_resamples=args.resamples,
        provenance=provenance,
    )


def run(args: argparse.Namespace) -> int:
    check_report_options(args)
    write_report(_report(args), args)
    return 0
