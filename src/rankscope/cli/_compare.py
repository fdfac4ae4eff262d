"""``rankscope compare QRELS BASELINE RUN [RUN ...]``: systems against a baseline, with tests;
every pair (``--all-pairs``), several baselines (``--baseline``), Tukey's HSD tests, and the
measures' discriminative power (``--discriminative-power``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rankscope._progress import steps
from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    add_input_options,
    add_measure_options,
    default_measures_help,
    duplicate_policy,
    load_qrels,
    load_run,
    measure_names,
)
from rankscope.cli._report import (
    add_pair_options,
    add_report_options,
    check_report_options,
    pair_options,
    write_report,
)
from rankscope.errors import OptionError

if TYPE_CHECKING:
    from rankscope.compare import AlignedScores, ComparisonReport
    from rankscope.engine.provenance import Provenance


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare",
        help=COMMANDS["compare"][1],
        description=(
            "Compare one or more runs with a baseline run on the same queries: per measure, "
            "a paired significance test of each run against the baseline, corrected for "
            "multiple comparisons, with bootstrap confidence intervals. With --all-pairs every "
            "pair of runs is compared, with --baseline each run against several baselines; "
            "--test tukey (Tukey's HSD, topics as blocks) and randomized-tukey test all the "
            "runs at once, and the reports add a compact letter display, the pairwise matrix "
            "and the ANOVA table. --discriminative-power reports instead how many run pairs "
            "each measure separates. Output as a table, Markdown, LaTeX (booktabs), JSON, or a "
            "self-contained HTML report. " + default_measures_help()
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument(
        "baseline",
        metavar="BASELINE",
        help="the run the others are compared to (with --all-pairs or --baseline: a run)",
    )
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs to compare, one or more")
    add_pair_options(parser, "run")
    parser.add_argument(
        "--discriminative-power",
        action="store_true",
        help="report each measure's discriminative power: the share of run pairs that differ "
        "significantly (default test randomized-tukey), with its ASL curve in HTML",
    )
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


def _aligned(args: argparse.Namespace) -> tuple[AlignedScores, list[str], Provenance]:
    """Every run evaluated and lined up by query, the runs' names, and the provenance."""
    from rankscope.compare import align_results
    from rankscope.engine import evaluate, parse_measures
    from rankscope.engine.provenance import Provenance, command_line, distinct_names

    measures = parse_measures(measure_names(args.measures, args.profile))
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    paths = [args.baseline, *args.runs]
    results = []
    with steps(len(paths), "evaluating runs", True) as advance:  # a bar on a terminal only
        for done, path in enumerate(paths, 1):
            results.append(
                evaluate(
                    qrels,
                    load_run(path, args.run_format, args.lenient, args.run_columns, args.run_key),
                    measures,
                    profile=args.profile,
                    complete=args.complete,
                    relevance_level=args.relevance_level,
                    duplicate_documents=duplicate_policy(args),
                )
            )
            advance(done)
    names = distinct_names([r.run_name for r in results], paths)
    provenance = Provenance.now(
        qrels=args.qrels,
        runs=list(zip(names, paths, strict=True)),
        profile=results[0].profile,
        measures=[m.name for m in measures],
        command=command_line(args.argv),
    )
    aligned = align_results(results[0], results[1:], names)
    return aligned, paths, provenance


def _test_options(args: argparse.Namespace) -> dict[str, Any]:
    """The test's options as the library takes them."""
    return {
        "test": args.test,
        "correction": args.correction,
        "alpha": args.alpha,
        "seed": args.seed,
        "n_resamples": args.resamples,
    }


def _report(args: argparse.Namespace) -> ComparisonReport:
    from rankscope.compare import compare_aligned

    aligned, paths, provenance = _aligned(args)
    return compare_aligned(
        aligned,
        **_test_options(args),
        provenance=provenance,
        progress=True,  # a bar of the intervals on a terminal, nothing when piped
        **pair_options(args, "run", list(aligned.names), paths),
    )


def _power(args: argparse.Namespace) -> int:
    from rankscope.compare import power_report
    from rankscope.report.results import write_text

    aligned, _, provenance = _aligned(args)
    report = power_report(aligned, **_test_options(args), provenance=provenance)
    write_text(report.render(args.format), args.output)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.discriminative_power:
        if args.all_pairs or args.baselines or args.show_p:
            raise OptionError(
                "--discriminative-power compares every pair of runs itself; drop --all-pairs, "
                "--baseline and --show-p"
            )
        if args.test is None:
            args.test = "randomized-tukey"
        check_report_options(args)
        return _power(args)
    check_report_options(args)
    write_report(_report(args), args)
    return 0
