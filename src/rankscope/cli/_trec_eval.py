"""``rankscope trec-eval [trec_eval's options] QRELS RUN``: a drop-in for trec_eval.

Accepts trec_eval's options and prints its exact output for every measure rankscope implements.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import load_qrels, load_run
from rankscope.errors import MeasureError, OptionError

# trec_eval options that rankscope does not offer, with what they do there.
_UNSUPPORTED = {
    "-J": "judged documents only",
    "-N": "number of documents in the collection",
    "-D": "debug level",
    "-R": "relevance-information format",
    "-T": "results format",
    "-Z": "z-score file",
    "-o": "old output format",
}


class _Unsupported(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        name = option or "?"
        raise OptionError(
            f"trec_eval option {name} ({_UNSUPPORTED.get(name[:2], 'unknown')}) is not "
            "supported by rankscope trec-eval"
        )


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trec-eval",
        help=COMMANDS["trec-eval"][1],
        description=(
            "A drop-in for trec_eval: same options, same output, byte for byte, for the "
            "measures rankscope implements (others are named on standard error)."
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="trec_rel_file")
    parser.add_argument("run", metavar="RUN", help="trec_top_file")
    parser.add_argument("-q", "--query", action="store_true", help="per-query values too")
    parser.add_argument("-n", "--nosummary", action="store_true", help="print no summary (with -q)")
    parser.add_argument(
        "-c",
        "--all_queries",
        action="store_true",
        help="average over all judged queries, missing ones scoring 0",
    )
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE[.PARAMS]",
        help="all_trec, official, or a family with parameters such as P.5,10",
    )
    parser.add_argument(
        "-l", "--level_for_rel", type=int, default=1, metavar="N", help="relevance level"
    )
    parser.add_argument(
        "-M",
        "--max_retrieved_per_topic",
        type=int,
        metavar="N",
        help="evaluate only the first N documents of each ranking",
    )
    parser.add_argument(
        "--profile",
        choices=["trec", "trec9"],
        default="trec",
        help="trec (trec_eval 10, default) or trec9 (trec_eval 9: float32 scores)",
    )
    for option in _UNSUPPORTED:
        parser.add_argument(option, nargs="?", action=_Unsupported, help=argparse.SUPPRESS)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rankscope.engine import evaluate
    from rankscope.report.results import write_text
    from rankscope.report.trec_eval import format_trec_eval, trec_eval_measures

    lines, skipped = trec_eval_measures(args.measures or [])
    if skipped:
        print(
            "rankscope: warning: trec_eval measures not implemented yet, left out: "
            + ", ".join(skipped),
            file=sys.stderr,
        )
    measures = [line.measure for line in lines if line.measure is not None]
    if not measures:
        raise MeasureError("no implemented trec_eval measure was asked for")
    qrels = load_qrels(args.qrels, "trec", lenient=False)
    results = evaluate(
        qrels,
        load_run(args.run, "trec", lenient=False),
        measures,
        profile=args.profile,
        complete=args.all_queries,
        relevance_level=args.level_for_rel,
        max_documents=args.max_retrieved_per_topic,
    )
    text = format_trec_eval(results, lines, per_query=args.query, summary=not args.nosummary)
    write_text(text, None)
    return 0
