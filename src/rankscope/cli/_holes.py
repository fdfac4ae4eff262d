"""``rankscope holes QRELS RUN ...``: how much of each run is judged, what is not, and how far
the holes could move each measure."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
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
    from rankscope.judge import RunHoles


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "holes",
        help=COMMANDS["holes"][1],
        description=(
            "For each run: Judged@k (the share of its top k the qrels judge), how many of its "
            "documents nobody judged, and every measure as judged, with every hole judged not "
            "relevant, and with every hole judged relevant at the highest grade (--grade). "
            "--unjudged lists the unjudged documents of the top k instead. "
            + default_measures_help("trec")
        ),
    )
    parser.add_argument("qrels", metavar="QRELS", help="relevance judgements ('-' for stdin)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="ranked results, one or more")
    add_measure_option(parser)
    parser.add_argument(
        "-k",
        "--cutoff",
        dest="cutoffs",
        action="append",
        metavar="K",
        help="the k of Judged@k, repeatable or comma-separated (default 10); the unjudged "
        "documents listed are those of the top largest k",
    )
    add_relevance_option(parser)
    parser.add_argument(
        "--grade",
        type=int,
        metavar="N",
        help="the grade holes take when judged relevant (default: the highest of the qrels)",
    )
    parser.add_argument(
        "--unjudged",
        action="store_true",
        help="list the unjudged documents of each run's top k (run, query, rank, document)",
    )
    add_output_options(parser)
    add_input_options(parser, duplicates=False)
    parser.set_defaults(handler=run)


def cutoff_values(given: list[str] | None) -> list[int]:
    """The k of repeated ``-k`` options, each a comma-separated list; 10 when none is given.

    >>> cutoff_values(["5,10", "20"]), cutoff_values(None)
    ([5, 10, 20], [10])
    """
    values: list[int] = []
    for item in given or ["10"]:
        for text in item.split(","):
            try:
                value = int(text)
            except ValueError:
                value = 0
            if value < 1:
                raise OptionError(f"-k/--cutoff must be integers >= 1; got {text.strip()!r}")
            values.append(value)
    return values


def _summary(found: list[RunHoles], cutoffs: list[int]) -> tuple[list[str], list[list[str]]]:
    deepest = max(cutoffs)
    header = ["run", "queries", *(f"Judged@{k}" for k in sorted(set(cutoffs)))]
    header += [f"unjudged@{deepest}", "holes"]
    rows = [
        [
            holes.run_name,
            str(holes.measured.num_queries),
            *(number(value) for value in holes.judged.values()),
            str(holes.unjudged.height),
            str(holes.holes),
        ]
        for holes in found
    ]
    return header, rows


def _measures(found: list[RunHoles]) -> tuple[list[str], list[list[str]]]:
    grade = found[0].grade
    header = ["run", "measure", "as judged", "holes = 0", f"holes = {grade}"]
    rows = []
    for holes in found:
        measured = holes.measured.mean()
        for name, (low, high) in holes.bounds().items():
            rows.append([holes.run_name, name, number(measured[name]), number(low), number(high)])
    return header, rows


def _csv(found: list[RunHoles]) -> str:
    """One row per run and measure; Judged@k rows have no bounds."""
    header = ["run", "measure", "value", "holes_nonrelevant", "holes_relevant"]
    rows = []
    for holes in found:
        for k, value in holes.judged.items():
            rows.append([holes.run_name, f"Judged@{k}", repr(value), "", ""])
        measured = holes.measured.mean()
        for name, (low, high) in holes.bounds().items():
            rows.append([holes.run_name, name, repr(measured[name]), repr(low), repr(high)])
    return render_table(header, rows, "csv", 2)


def _unjudged(found: list[RunHoles], fmt: str) -> str:
    if fmt == "json":
        listed = [
            {"run": holes.run_name, "query_id": query_id, "rank": rank, "doc_id": doc_id}
            for holes in found
            for query_id, rank, doc_id in holes.unjudged.iter_rows()
        ]
        return json.dumps(listed, indent=2) + "\n"
    rows = [
        [holes.run_name, query_id, str(rank), doc_id]
        for holes in found
        for query_id, rank, doc_id in holes.unjudged.iter_rows()
    ]
    return render_table(["run", "query_id", "rank", "doc_id"], rows, fmt, 2)


def render(found: list[RunHoles], fmt: str, cutoffs: list[int], unjudged: bool) -> str:
    """The holes of every run in one of the formats (the table's two parts one after the
    other)."""
    if unjudged:
        return _unjudged(found, fmt)
    if fmt == "json":
        return json.dumps({"runs": [holes.to_dict() for holes in found]}, indent=2) + "\n"
    if fmt == "csv":
        return _csv(found)
    summary = render_table(*_summary(found, cutoffs), fmt, 1)
    return summary + "\n" + render_table(*_measures(found), fmt, 2)


def run(args: argparse.Namespace) -> int:
    from rankscope.engine import parse_measures
    from rankscope.engine.provenance import distinct_names
    from rankscope.judge import holes
    from rankscope.report.results import write_text

    cutoffs = cutoff_values(args.cutoffs)
    measures = parse_measures(measure_names(args.measures, "trec"))
    if args.grade is not None and args.grade < 1:
        raise OptionError(f"--grade must be an integer >= 1; got {args.grade}")
    qrels = load_qrels(args.qrels, args.qrels_format, args.lenient, args.qrels_columns)
    runs = [
        load_run(path, args.run_format, args.lenient, args.run_columns, args.run_key)
        for path in args.runs
    ]
    names = distinct_names([r.name for r in runs], args.runs)
    runs = [replace(r, name=name) for r, name in zip(runs, names, strict=True)]
    with working(f"finding the holes of {len(runs)} runs"):
        found = holes(
            qrels,
            runs,
            measures,
            cutoffs,
            relevance_level=args.relevance_level,
            grade=args.grade,
        )
    write_text(render(found, args.format, cutoffs, args.unjudged), args.output)
    return 0
