"""``rankscope compare QRELS BASELINE RUN [RUN ...]``: systems against a baseline, with tests."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from rankscope.cli._common import (
    DEFAULT_MEASURES,
    add_input_options,
    add_measure_options,
    load_qrels,
    load_run,
    measure_names,
)
from rankscope.compare import CORRECTION_NAMES, TEST_NAMES
from rankscope.engine import evaluate, parse_measures
from rankscope.engine.results import Results
from rankscope.errors import OptionError
from rankscope.report.compare import FORMATS, render_comparison, rich_table
from rankscope.report.compare_inputs import ComparisonReport, build_report
from rankscope.report.results import write_text


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare runs with a baseline: significance tests, tables, an HTML report",
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
        "--test",
        default="t",
        metavar="TEST",
        help=f"paired significance test: {', '.join(TEST_NAMES)} (default t)",
    )
    parser.add_argument(
        "--correction",
        default="holm",
        metavar="METHOD",
        help="correction for testing every run on every measure: "
        f"{', '.join(CORRECTION_NAMES)} (default holm)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level; intervals are at 1 - alpha (default 0.05)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the resampling procedures (default 0)"
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=10_000,
        metavar="N",
        help="permutations or bootstrap resamples (default 10000)",
    )
    parser.add_argument(
        "--show-p", action="store_true", help="show each run's corrected p-value in the table"
    )
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged queries missing from a run as 0; without it, the comparison is "
        "restricted to the queries every run holds (with a warning)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=list(FORMATS),
        default="table",
        help="output format (html: a self-contained report file)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_input_options(parser)
    parser.set_defaults(handler=run)


def _check_options(args: argparse.Namespace) -> None:
    """Refuse bad option values before reading any file."""
    if args.test not in TEST_NAMES:
        raise OptionError(
            f"unknown test {args.test!r} for --test; expected one of {', '.join(TEST_NAMES)}"
        )
    if args.correction not in CORRECTION_NAMES:
        raise OptionError(
            f"unknown correction {args.correction!r} for --correction; expected one of "
            f"{', '.join(CORRECTION_NAMES)}"
        )
    if not 0.0 < args.alpha < 1.0:
        raise OptionError(f"--alpha must lie strictly between 0 and 1; got {args.alpha:g}")
    if args.seed < 0:
        raise OptionError(f"--seed must be an integer >= 0; got {args.seed}")
    if args.resamples < 1:
        raise OptionError(f"--resamples must be an integer >= 1; got {args.resamples}")


def run_names(results: list[Results], paths: list[str]) -> list[str]:
    """Each run's name (its tag); file names where tags repeat; a suffix where those do too."""
    names = [r.run_name for r in results]
    if len(set(names)) == len(names):
        return names
    names = [Path(path).name for path in paths]
    counts = Counter(names)
    seen: Counter[str] = Counter()
    unique = []
    for name in names:
        seen[name] += 1
        unique.append(name if counts[name] == 1 else f"{name}#{seen[name]}")
    return unique


def _report(args: argparse.Namespace) -> ComparisonReport:
    measures = parse_measures(measure_names(args.measures))
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient)
    paths = [args.baseline, *args.runs]
    results = [
        evaluate(
            qrels,
            load_run(path, args.run_format, args.lenient),
            measures,
            profile=args.profile,
            complete=args.complete,
            relevance_level=args.relevance_level,
        )
        for path in paths
    ]
    return build_report(
        results[0],
        results[1:],
        names=run_names(results, paths),
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        seed=args.seed,
        n_resamples=args.resamples,
    )


def run(args: argparse.Namespace) -> int:
    _check_options(args)
    report = _report(args)
    if args.format == "table" and args.output is None and sys.stdout.isatty():
        try:
            table = rich_table(report, args.show_p)
        except ImportError:  # rich is missing: the plain table below says the same
            pass
        else:
            from rich.console import Console

            Console().print(table)
            return 0
    write_text(render_comparison(report, args.format, args.show_p), args.output)
    return 0
