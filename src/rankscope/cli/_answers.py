"""``rankscope answers REFERENCES ANSWERS [ANSWERS ...]``: generated answers against references."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import (
    ANSWER_PROFILE_NAMES,
    RESULT_FORMATS,
    add_measure_option,
    reading,
    rich_table,
    split_measures,
)

# trec_eval's text names measures as trec_eval does, and it has no answer measures.
_FORMATS = [name for name in RESULT_FORMATS if name != "trec"]


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "answers",
        help=COMMANDS["answers"][1],
        description=(
            "Score generated answers against reference answers, question by question. Inputs: "
            "JSONL (an id key such as qid and a text key such as answer), CSV or TSV with a "
            "header, Parquet, or for the references a WeKnora dataset directory "
            "(answers.parquet and qas.parquet). Default measures: BLEU, ROUGE-1, ROUGE-2, "
            "ROUGE-L, ExactMatch, TokenF1; with --profile weknora, WeKnora's BLEU(n=1), "
            "BLEU(n=2), BLEU(n=4), ROUGE-1, ROUGE-2, ROUGE-L."
        ),
    )
    parser.add_argument("references", metavar="REFERENCES", help="reference answers")
    parser.add_argument(
        "answers", metavar="ANSWERS", nargs="+", help="generated answers, one file per system"
    )
    add_measure_option(
        parser,
        help="BLEU, BLEU(n=2), BLEU(tokenize=zh), ROUGE-1, ROUGE-2, ROUGE-L, "
        "ROUGE-L(stem=True), ExactMatch, TokenF1 (repeatable; comma-separated lists allowed)",
    )
    parser.add_argument(
        "--profile",
        choices=ANSWER_PROFILE_NAMES,
        default="standard",
        help="standard (sacrebleu, rouge-score, SQuAD; default) or weknora (WeKnora's BLEU "
        "and ROUGE, quirks included)",
    )
    parser.add_argument(
        "-q", "--per-query", action="store_true", help="also show every question's values"
    )
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score questions without an answer as an empty answer",
    )
    parser.add_argument("-f", "--format", choices=_FORMATS, default="table", help="output format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rankscope.answers import evaluate_answers
    from rankscope.engine.provenance import distinct_names
    from rankscope.report.results import write_results

    measures = split_measures(args.measures) or None
    results = []
    for path in args.answers:
        with reading(path):
            results.append(
                evaluate_answers(
                    args.references,
                    path,
                    measures,
                    profile=args.profile,
                    complete=args.complete,
                )
            )
    names = distinct_names([r.run_name for r in results], args.answers)
    results = [r.renamed(name) for r, name in zip(results, names, strict=True)]
    terminal = args.format == "table" and args.output is None and sys.stdout.isatty()
    if terminal and rich_table(results, args.per_query):
        return 0
    write_results(results, args.output, args.format, args.per_query)
    return 0
