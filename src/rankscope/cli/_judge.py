"""``rankscope judge PAIRS --db STORE -o QRELS``: grade pairs with an LLM judge (or a Python
function), every call and grade committed to the store as it arrives, resumed by running the
same command again; the grades written as qrels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import load_qrels
from rankscope.errors import OptionError

if TYPE_CHECKING:
    from rankscope.judge import Judge, JudgingReport

OUTPUT_FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "judge",
        help=COMMANDS["judge"][1],
        description=(
            "Grade each (query, document) pair of PAIRS (a to-judge file of 'rankscope pool', "
            "or any qrels: their grades are ignored) with a judge: an OpenAI-compatible "
            "chat-completions endpoint (--url, --model) or a Python function (--python). "
            "Every call and its raw answer, and every grade, are committed to --db as they "
            "arrive: run the same command again after a crash and it resumes, asking no pair "
            "twice. An answer without a grade is a failure, counted by kind, never a guess. "
            "The grades are written to -o as qrels (with --merge, beside the human ones)."
        ),
    )
    parser.add_argument("pairs", metavar="PAIRS", help="the pairs to judge (qrels or a pool file)")
    parser.add_argument("--queries", required=True, metavar="FILE", help="the queries' texts")
    parser.add_argument("--corpus", required=True, metavar="FILE", help="the documents' texts")
    parser.add_argument(
        "--db",
        required=True,
        metavar="STORE",
        help="where calls and grades are kept: a SQLite file or a postgresql:// URL",
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the qrels written ('-': stdout)"
    )
    parser.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        help="of -o (default: from its extension, else trec); csv, tsv, jsonl and parquet add "
        "a 'source' column (judge or human), which qrels readers ignore",
    )
    judge = parser.add_argument_group("the judge")
    add_endpoint_arguments(judge)
    judge.add_argument(
        "--python",
        metavar="MODULE:FUNCTION",
        help="a function f(query, passage) returning a grade or an answer text, instead of an "
        "endpoint",
    )
    judge.add_argument(
        "--prompt",
        metavar="FILE",
        help="the prompt template, replacing the built-in one: text holding {query} and {passage}",
    )
    trust = parser.add_argument_group("trust")
    trust.add_argument(
        "--calibrate",
        metavar="HUMAN_QRELS",
        help="first judge a seeded sample of these human-judged pairs, and print the judge's "
        "agreement with the humans (kappa, alpha, the confusion matrix)",
    )
    trust.add_argument(
        "--calibration-sample",
        type=int,
        default=50,
        metavar="N",
        help="pairs of the sample (default 50)",
    )
    trust.add_argument(
        "--calibration-seed", type=int, default=0, metavar="N", help="its seed (default 0)"
    )
    parser.add_argument(
        "--merge",
        metavar="HUMAN_QRELS",
        help="write these judgements too, in place of the judge's where both judge a pair; "
        "where both do, the judge's agreement with them is printed",
    )
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="ask again the pairs whose judgement failed in an earlier run of the same command",
    )
    parser.add_argument("--name", help="a name for the judging task")
    parser.set_defaults(handler=run)


def add_endpoint_arguments(group: Any, prefix: str = "") -> None:
    """The options of a chat-completions judge (``--url``, ``--model``, ...), each named with
    ``prefix`` (``--judge-url`` for ``prefix="judge-"``); `endpoint_judge` builds it."""
    group.add_argument(
        f"--{prefix}url", help="the endpoint: its base (http://host:8000/v1) or full URL"
    )
    group.add_argument(f"--{prefix}model", help="the model name sent with each request")
    group.add_argument(
        f"--{prefix}api-key-env", metavar="VAR", help="the environment variable holding the API key"
    )
    group.add_argument(
        f"--{prefix}max-tokens", type=int, metavar="N", help="sent with each request"
    )
    group.add_argument(f"--{prefix}temperature", type=float, default=0.0, help="default 0")
    group.add_argument(f"--{prefix}seed", type=int, metavar="N", help="sent with each request")
    group.add_argument(
        f"--{prefix}timeout", type=float, default=60.0, metavar="S", help="default 60"
    )
    group.add_argument(f"--{prefix}retries", type=int, default=4, metavar="N", help="default 4")
    group.add_argument(f"--{prefix}backoff", type=float, default=1.0, metavar="S", help="default 1")
    group.add_argument(
        f"--{prefix}concurrency",
        type=int,
        default=4,
        metavar="N",
        help="calls in flight (default 4)",
    )


def endpoint_judge(args: argparse.Namespace, prefix: str = "", prompt: Any = None) -> Judge:
    """The chat-completions judge of the options `add_endpoint_arguments` added."""
    from rankscope.judge import RELEVANCE_PROMPT, ChatJudge

    def option(name: str) -> Any:
        return getattr(args, (prefix + name).replace("-", "_"))

    return ChatJudge(
        option("url"),
        option("model"),
        api_key_env=option("api-key-env"),
        temperature=option("temperature"),
        max_tokens=option("max-tokens"),
        seed=option("seed"),
        timeout=option("timeout"),
        retries=option("retries"),
        backoff=option("backoff"),
        prompt=prompt or RELEVANCE_PROMPT,
    )


def build_judge(args: argparse.Namespace) -> Judge:
    """The judge the options describe."""
    from rankscope.judge import RELEVANCE_PROMPT, CallableJudge, Prompt

    prompt = RELEVANCE_PROMPT
    if args.prompt is not None:
        try:
            template = Path(args.prompt).read_text(encoding="utf-8")
        except OSError as error:
            raise OptionError(f"--prompt: cannot read {args.prompt}: {error.strerror}") from None
        prompt = Prompt(template, RELEVANCE_PROMPT.system)
    if args.python is not None:
        if args.url is not None or args.model is not None:
            raise OptionError("--python replaces --url and --model: give one judge")
        from rankscope.service.sources.allow import import_target

        function = import_target(args.python, "judge")
        return CallableJudge(function, spec={"type": "python", "target": args.python})
    if args.url is None or args.model is None:
        raise OptionError("give the judge: --url and --model (an endpoint), or --python")
    return endpoint_judge(args, prompt=prompt)


def counts(tallies: dict[str, int]) -> str:
    """``key n, ...`` of a tally."""
    return ", ".join(f"{key} {value}" for key, value in tallies.items())


def calls_line(
    calls: dict[str, int], prompt_tokens: int, completion_tokens: int, cost: float
) -> str:
    """What a judge's calls took: calls by outcome, tokens and cost (what was reported).

    >>> calls_line({"answered": 2}, 0, 0, 0.5)
    'calls: 2 (answered 2); cost 0.5000'
    """
    line = f"calls: {sum(calls.values())}"
    if calls:
        line += f" ({counts(calls)})"
    if prompt_tokens or completion_tokens:
        line += f"; tokens: {prompt_tokens} prompt, {completion_tokens} completion"
    if cost:
        line += f"; cost {cost:.4f}"
    return line


def summary(report: JudgingReport) -> str:
    """The lines a run prints: pairs graded and failed (by kind), calls (by outcome),
    tokens and cost.

    >>> from rankscope.judge import JudgingReport
    >>> print(summary(JudgingReport("judge-1", 10, 4, 8, 2, {"malformed": 2},
    ...                             {"answered": 9, "timed out": 1}, 900, 70, 0.0)))
    judged 10 pairs (4 judged before, not asked again): 8 graded, 2 failed (malformed 2)
    calls: 10 (answered 9, timed out 1); tokens: 900 prompt, 70 completion
    """
    before = f" ({report.resumed} judged before, not asked again)" if report.resumed else ""
    failed = f" ({counts(report.failures)})" if report.failures else ""
    return (
        f"judged {report.total} pairs{before}: {report.graded} graded, {report.failed} "
        f"failed{failed}\n"
        + calls_line(report.calls, report.prompt_tokens, report.completion_tokens, report.cost)
    )


def _output_format(args: argparse.Namespace) -> str:
    from rankscope.io._formats import normalize_format

    if args.format is not None:
        return str(args.format)
    name = args.output.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    for fmt in OUTPUT_FORMATS[1:]:
        if name.endswith(f".{fmt}"):
            return normalize_format(fmt)
    return "trec"


def progress_lines(stream: Any = None) -> Any:
    """How a run shows its progress: a bar when standard error is a terminal, else a line of
    counts each tenth of the pairs (and at the last).

    >>> import io
    >>> out = io.StringIO()
    >>> show = progress_lines(out)
    >>> for done in range(1, 21):
    ...     show(done, 20)
    >>> print(out.getvalue().splitlines()[0], out.getvalue().count("\\n"))
    rankscope: judge: 2 of 20 pairs judged 10
    """
    stream = sys.stderr if stream is None else stream
    if stream is sys.stderr and stream.isatty():
        return True

    def counts(done: int, total: int) -> None:
        every = max(1, total // 10)
        if done % every == 0 or done == total:
            print(f"rankscope: judge: {done} of {total} pairs judged", file=stream, flush=True)

    return counts


def run(args: argparse.Namespace) -> int:
    from rankscope.cli._agree import _judgement_lines
    from rankscope.io import Qrels, write_qrels
    from rankscope.io._write import write_table
    from rankscope.judge import human_agreement, judge_pairs, judged_qrels
    from rankscope.judge._judging import SOURCE

    fmt = _output_format(args)
    judge = build_judge(args)
    pairs = load_qrels(args.pairs, None, False, None)
    human = None if args.calibrate is None else load_qrels(args.calibrate, None, False, None)
    merged = None if args.merge is None else load_qrels(args.merge, None, False, None)

    report = judge_pairs(
        pairs,
        judge,
        queries=args.queries,
        corpus=args.corpus,
        store=args.db,
        calibrate=human,
        calibration_sample=args.calibration_sample,
        seed=args.calibration_seed,
        concurrency=args.concurrency,
        name=args.name,
        retry_failed=args.retry_failed,
        progress=progress_lines(),
    )
    frame = judged_qrels(args.db, report.task_id, merged)
    if fmt == "trec":
        write_qrels(Qrels.from_frame(frame.drop(SOURCE)), args.output, "trec")
    else:
        write_table(frame, args.output, fmt)
    print(f"rankscope: judge: task {report.task_id}", file=sys.stderr)
    for line in summary(report).splitlines():
        print(f"rankscope: judge: {line}", file=sys.stderr)
    if report.calibration is not None:
        print("calibration on the human-judged sample (A: human, B: judge)", file=sys.stderr)
        print(_judgement_lines(report.calibration, "table"), file=sys.stderr, end="")
    if merged is not None and args.merge != args.calibrate:
        found = human_agreement(args.db, report.task_id, merged)
        if found is not None:
            print(f"agreement with {args.merge} (A: human, B: judge)", file=sys.stderr)
            print(_judgement_lines(found, "table"), file=sys.stderr, end="")
    return 0
