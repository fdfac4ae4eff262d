"""``rankscope agree QRELS_A QRELS_B [RUN ...]``: how far two sets of judgements agree, on the
pairs both judge and on the leaderboards they give the runs."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    add_input_options,
    add_measure_option,
    add_relevance_option,
    default_measures_help,
    load_qrels,
    load_run,
    measure_names,
)
from rankscope.cli._judgements import add_output_options, number, render_table, working
from rankscope.errors import OptionError

if TYPE_CHECKING:
    from rankscope.judge import JudgementAgreement, RankingAgreement

AGREE_FORMATS = ("table", "json", "markdown")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agree",
        help=COMMANDS["agree"][1],
        description=(
            "Agreement of two sets of judgements. On the (query, document) pairs both judge: "
            "Cohen's kappa of relevance (grade >= -l) and weighted over the grades (linear, "
            "quadratic), Krippendorff's ordinal alpha, and the confusion matrix. Given runs, "
            "the leaderboard each set gives them on the queries both judge, compared per "
            "measure with Kendall's tau, tau_AP (QRELS_A as the truth), Spearman's rho and "
            "rank-biased overlap, with the pairs of runs that swap. Needs rankscope[judge]. "
            + default_measures_help("trec")
        ),
    )
    parser.add_argument("qrels_a", metavar="QRELS_A", help="judgements (the reference of tau_AP)")
    parser.add_argument("qrels_b", metavar="QRELS_B", help="judgements to compare with them")
    parser.add_argument("runs", metavar="RUN", nargs="*", help="runs to rank, two or more")
    add_measure_option(parser)
    add_relevance_option(parser)
    parser.add_argument(
        "--rbo-p",
        type=float,
        default=0.9,
        metavar="P",
        help="persistence of rank-biased overlap, 0 < P < 1 (default 0.9)",
    )
    add_output_options(parser, AGREE_FORMATS)
    add_input_options(parser, duplicates=False)
    parser.set_defaults(handler=run)


def _judgement_lines(found: JudgementAgreement, fmt: str) -> str:
    pairs = (
        f"{found.shared} pairs judged in both ({found.only_a} judged in QRELS_A only, "
        f"{found.only_b} in QRELS_B only)"
    )
    statistics = [
        ["same grade", number(found.same_grade)],
        [f"same relevance (grade >= {found.relevance_level})", number(found.same_relevance)],
        [f"Cohen's kappa (grade >= {found.relevance_level})", number(found.kappa)],
        ["Cohen's kappa, linear weights", number(found.kappa_linear)],
        ["Cohen's kappa, quadratic weights", number(found.kappa_quadratic)],
        ["Krippendorff's alpha, ordinal", number(found.alpha)],
    ]
    grades = [str(g) for g in found.grades]
    confusion = [
        [grade, *(str(count) for count in row)]
        for grade, row in zip(grades, found.confusion, strict=True)
    ]
    return (
        _heading(f"judgements: {pairs}", fmt)
        + render_table(["statistic", "value"], statistics, fmt, 1)
        + "\n"
        + _heading("confusion: rows QRELS_A's grades, columns QRELS_B's", fmt)
        + render_table(["A \\ B", *grades], confusion, fmt, 1)
    )


def _ranking_lines(found: RankingAgreement, fmt: str) -> str:
    tied = any(math.isnan(m.tau_ap) or math.isnan(m.rbo) for m in found.measures)
    title = (
        f"leaderboards: {len(found.runs)} runs on the {found.queries} queries both judge "
        f"(RBO p = {found.rbo_p:g}{'; tau_AP and RBO are undefined with tied scores' * tied})"
    )
    rows = [
        [
            m.measure,
            number(m.kendall_tau),
            number(m.tau_ap),
            number(m.spearman_rho),
            number(m.rbo),
            str(len(m.swaps)),
        ]
        for m in found.measures
    ]
    header = ["measure", "Kendall tau", "tau_AP", "Spearman rho", "RBO", "swaps"]
    text = _heading(title, fmt) + render_table(header, rows, fmt, 1)
    scores = [
        [m.measure, run, number(a), number(b)]
        for m in found.measures
        for run, a, b in zip(found.runs, m.scores_a, m.scores_b, strict=True)
    ]
    text += "\n" + _heading("scores", fmt)
    text += render_table(["measure", "run", "QRELS_A", "QRELS_B"], scores, fmt, 2)
    swaps = [[m.measure, ahead_a, ahead_b] for m in found.measures for ahead_a, ahead_b in m.swaps]
    if swaps:
        text += "\n" + _heading("swaps: pairs of runs the two order oppositely", fmt)
        text += render_table(
            ["measure", "ahead under QRELS_A", "ahead under QRELS_B"], swaps, fmt, 3
        )
    return text


def _heading(text: str, fmt: str) -> str:
    return f"**{text}**\n\n" if fmt == "markdown" else f"{text}\n"


def render(
    judgements: JudgementAgreement, rankings: RankingAgreement | None, fmt: str, args: Any
) -> str:
    """Both agreements in one of `AGREE_FORMATS`."""
    if fmt == "json":
        document = {
            "qrels_a": args.qrels_a,
            "qrels_b": args.qrels_b,
            "judgements": judgements.to_dict(),
            "rankings": None if rankings is None else rankings.to_dict(),
        }
        return json.dumps(document, indent=2) + "\n"
    text = _judgement_lines(judgements, fmt)
    if rankings is not None:
        text += "\n" + _ranking_lines(rankings, fmt)
    return text


def run(args: argparse.Namespace) -> int:
    from rankscope.engine import parse_measures
    from rankscope.judge import judgement_agreement, ranking_agreement
    from rankscope.report.results import write_text

    measures = parse_measures(measure_names(args.measures, "trec"))
    if len(args.runs) == 1:
        raise OptionError("comparing leaderboards needs at least two runs; got 1")
    if not 0.0 < args.rbo_p < 1.0:
        raise OptionError(f"--rbo-p must lie strictly between 0 and 1; got {args.rbo_p:g}")
    first, second = (
        load_qrels(path, args.qrels_format, args.lenient, args.qrels_columns)
        for path in (args.qrels_a, args.qrels_b)
    )
    judgements = judgement_agreement(first, second, args.relevance_level)
    rankings = None
    if args.runs:
        runs = [
            load_run(path, args.run_format, args.lenient, args.run_columns, args.run_key)
            for path in args.runs
        ]
        with working(f"ranking {len(runs)} runs under both qrels"):
            rankings = ranking_agreement(
                first,
                second,
                runs,
                measures,
                relevance_level=args.relevance_level,
                rbo_p=args.rbo_p,
            )
    write_text(render(judgements, rankings, args.format, args), args.output)
    return 0
