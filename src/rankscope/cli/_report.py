"""The options and output of a comparison report, shared by ``rankscope compare`` and
``rankscope tasks compare``: which pairs are compared, the test, the correction, the format
(every one the report renders), the LaTeX caption and label."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from rankscope.cli._common import (
    COMPARISON_FORMATS,
    CORRECTION_NAMES,
    TEST_NAMES,
    TUKEY_TEST_NAMES,
)
from rankscope.errors import OptionError

if TYPE_CHECKING:
    from rankscope.compare import ComparisonReport


def add_pair_options(parser: Any, what: str) -> None:
    """``--all-pairs`` and ``--baseline`` (repeatable); ``what`` names the compared things."""
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help=f"compare every pair of {what}s (not each {what} with the baseline)",
    )
    parser.add_argument(
        "--baseline",
        dest="baselines",
        action="append",
        metavar=what.upper(),
        help=f"a baseline, by {what} name or {'file' if what == 'run' else 'id'} (repeat for "
        f"several): every other {what} is compared with each",
    )


def pair_options(
    args: argparse.Namespace, what: str, names: list[str], sources: list[str]
) -> dict[str, Any]:
    """``pairs`` and ``baselines`` as the library takes them, each ``--baseline`` found by its
    name or its source (a run's file, a task's id) among ``names``/``sources``."""
    baselines = None
    if args.baselines:
        baselines = []
        for wanted in args.baselines:
            if wanted in names:
                baselines.append(wanted)
            elif wanted in sources:
                baselines.append(names[sources.index(wanted)])
            else:
                raise OptionError(
                    f"--baseline {wanted!r} is not one of the {what}s; {what}s: {', '.join(names)}"
                )
    return {"pairs": "all" if args.all_pairs else "baseline", "baselines": baselines}


def add_report_options(parser: Any) -> None:
    """``--test``, ``--correction``, ``--alpha``, ``--seed``, ``--resamples``, ``--show-p``,
    ``-f/--format``, ``--caption``, ``--label``, ``-o/--output``."""
    parser.add_argument(
        "--test",
        default=None,
        metavar="TEST",
        help=f"significance test: {', '.join(TEST_NAMES)} (default t; tukey: Tukey's HSD with "
        "topics as blocks, randomized-tukey: the randomized Tukey HSD test, both over all runs)",
    )
    parser.add_argument(
        "--correction",
        default=None,
        metavar="METHOD",
        help="correction for testing every run on every measure: "
        f"{', '.join(CORRECTION_NAMES)} (default holm; the Tukey tests adjust themselves)",
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
        "-f",
        "--format",
        choices=COMPARISON_FORMATS,
        default="table",
        help="output format (html: a self-contained report file)",
    )
    parser.add_argument(
        "--caption", help="the LaTeX table's caption (default: a sentence naming the runs)"
    )
    parser.add_argument(
        "--label", help="the LaTeX table's label for \\ref (default: tab:comparison)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")


def check_report_options(args: argparse.Namespace) -> None:
    """Refuse bad option values before reading any file (and settle the default test)."""
    if getattr(args, "all_pairs", False) and getattr(args, "baselines", None):
        raise OptionError("--all-pairs compares every pair; it takes no --baseline")
    if args.test is None:
        args.test = "t"
    if args.test not in TEST_NAMES:
        raise OptionError(
            f"unknown test {args.test!r} for --test; expected one of {', '.join(TEST_NAMES)}"
        )
    if args.correction is not None and args.test in TUKEY_TEST_NAMES:
        raise OptionError(
            f"--correction does not apply to --test {args.test}: the test adjusts its p-values "
            "for every pair itself"
        )
    if args.correction is not None and args.correction not in CORRECTION_NAMES:
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
    _check_latex_options(args)


def _check_latex_options(args: argparse.Namespace) -> None:
    """``--caption`` and ``--label`` are for LaTeX: refuse them with another format."""
    for flag, value in (("--caption", args.caption), ("--label", args.label)):
        if value is not None and args.format != "latex":
            raise OptionError(f"{flag} applies to --format latex; the format is {args.format}")


def write_report(report: ComparisonReport, args: argparse.Namespace) -> None:
    """Print or write ``report`` as ``--format``, ``--output``, ``--show-p``, ``--caption`` and
    ``--label`` say (a rich table on a terminal)."""
    from rankscope.report.compare import render_comparison, rich_table
    from rankscope.report.results import write_text

    if args.format == "table" and args.output is None and sys.stdout.isatty():
        try:
            table = rich_table(report, args.show_p)
        except ImportError:  # rich is missing: the plain table below says the same
            pass
        else:
            from rich.console import Console

            Console().print(table)
            return
    text = render_comparison(
        report, args.format, args.show_p, caption=args.caption, label=args.label
    )
    write_text(text, args.output)
