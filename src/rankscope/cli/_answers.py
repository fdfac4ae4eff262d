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
from rankscope.cli._judge import add_endpoint_arguments, endpoint_judge
from rankscope.errors import OptionError

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
    judged = parser.add_argument_group(
        "the judge",
        "for the judged measures Faithfulness, AnswerRelevance and ReferenceAgreement (each "
        "with repeats=N and stat=mean|sd|failed): an OpenAI-compatible chat-completions "
        "endpoint; failed askings are counted, never guessed",
    )
    add_endpoint_arguments(judged, "judge-")
    judged.add_argument(
        "--questions", metavar="FILE", help="the questions' texts (any queries file)"
    )
    judged.add_argument(
        "--contexts",
        metavar="FILE",
        help="JSONL: an id key and 'contexts', the passages each answer was written from "
        "(for Faithfulness)",
    )
    parser.set_defaults(handler=run)


def _judge_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The judge and its inputs, when the options name one."""
    if args.judge_url is None and args.judge_model is None:
        if args.questions is not None or args.contexts is not None:
            raise OptionError(
                "--questions and --contexts go with a judge: --judge-url and --judge-model"
            )
        return {}
    if args.judge_url is None or args.judge_model is None:
        raise OptionError("give the judge's --judge-url and --judge-model")
    from rankscope.answers._read import read_texts

    return {
        "judge": endpoint_judge(args, "judge-"),
        "questions": args.questions,
        "contexts": None
        if args.contexts is None
        else read_texts(args.contexts, several=True, what="contexts")[0],
        "concurrency": args.judge_concurrency,
    }


def run(args: argparse.Namespace) -> int:
    from rankscope.answers import evaluate_answers
    from rankscope.engine.provenance import distinct_names
    from rankscope.report.results import write_results

    measures = split_measures(args.measures) or None
    judging = _judge_inputs(args)
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
                    **judging,
                )
            )
    names = distinct_names([r.run_name for r in results], args.answers)
    results = [r.renamed(name) for r, name in zip(results, names, strict=True)]
    terminal = args.format == "table" and args.output is None and sys.stdout.isatty()
    if terminal and rich_table(results, args.per_query):
        return 0
    write_results(results, args.output, args.format, args.per_query)
    return 0
