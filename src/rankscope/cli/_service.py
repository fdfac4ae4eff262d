"""``rankscope run``, ``tasks``, ``serve`` and ``worker``: the evaluation service.

``run`` evaluates a live retriever (and optionally a generator of answers) on a dataset,
recording every query in the task store, and prints the metrics and the task id; ``tasks``
lists, shows, resumes, cancels, exports and compares stored tasks; ``serve`` starts the HTTP
API; ``worker`` runs the pending tasks of a store that several processes share (PostgreSQL).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rankscope.cli._common import (
    PROFILE_NAMES,
    add_measure_option,
    add_measures_from_option,
    split_measures,
)
from rankscope.cli._judge import add_endpoint_arguments
from rankscope.cli._report import (
    add_pair_options,
    add_report_options,
    check_report_options,
    pair_options,
    write_report,
)
from rankscope.errors import InputError, MissingDependencyError, OptionError

EXIT_OK = 0
EXIT_TASK_NOT_SUCCEEDED = 1


def add_parser(subparsers: Any) -> None:
    """Register ``run``, ``tasks``, ``serve`` and ``worker``."""
    _add_run(subparsers)
    _add_tasks(subparsers)
    _add_serve(subparsers)
    _add_worker(subparsers)


# --- arguments ------------------------------------------------------------------------------


def _db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="FILE|URL",
        help="the task store: a SQLite file, or a PostgreSQL server's postgresql://user@host/db "
        "URL that several machines share (default: $RANKSCOPE_DB, else "
        "~/.local/share/rankscope/tasks.db)",
    )


def _add_run(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="evaluate a live retriever on a dataset, keeping every result",
        description="Run every judged question of a dataset through a retriever, score each "
        "ranking and commit it to the task store as it finishes. Kill it at any point: "
        "'rankscope tasks resume ID' continues where it stopped.",
    )
    data = parser.add_argument_group("dataset")
    data.add_argument("--dataset", metavar="DIR", help="a WeKnora or BEIR dataset directory")
    data.add_argument("--split", help="the BEIR split (default: test)")
    data.add_argument("--queries", metavar="FILE", help="queries file (JSONL, TSV, Parquet)")
    data.add_argument("--qrels", metavar="FILE", help="qrels file (TREC, BEIR TSV, JSONL, Parquet)")
    data.add_argument("--corpus", metavar="FILE", help="corpus file, for the BM25 baseline")
    parser.add_argument(
        "--retriever",
        required=True,
        metavar="SPEC",
        help="'bm25' (built-in baseline), 'module:function', or an http(s):// URL",
    )
    add_measure_option(
        parser,
        help="repeatable, or comma-separated: weknora profile: some of precision, recall, "
        "ndcg3, ndcg10, mrr, map (default all); trec profile: rankscope measures (default: "
        "the trec profile's, as rankscope evaluate's)",
    )
    parser.add_argument("--profile", default="weknora", choices=PROFILE_NAMES)
    parser.add_argument(
        "-k",
        "--depth",
        type=int,
        dest="k",
        help="documents per question (default 10 under weknora, 100 under trec)",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="calls in flight (default 4)")
    parser.add_argument(
        "--max-failures",
        type=int,
        help="fail the task once more than N queries failed (default: never, failures are counted)",
    )
    parser.add_argument("--name", help="a name for the task (the tag of its TREC run)")
    http = parser.add_argument_group("HTTP retriever")
    http.add_argument("--method", choices=("POST", "GET"), help="default POST")
    http.add_argument(
        "--request-template",
        metavar="JSON",
        help='request body with "{query}", "{k}", "{query_id}" (default {"query": "{query}", '
        '"k": "{k}"})',
    )
    http.add_argument(
        "--results-path", help="where the ranking is in the response (default results)"
    )
    http.add_argument("--id-field", help="id of each result (default id)")
    http.add_argument("--score-field", help="score of each result (default score)")
    http.add_argument("--header", action="append", metavar="'NAME: VALUE'", help="repeatable")
    http.add_argument("--timeout", type=float, help="seconds per call (default 30)")
    http.add_argument("--retries", type=int, help="retries of transient failures (default 3)")
    answers = parser.add_argument_group(
        "answers",
        "A generator answers each question from the text of its retrieved passages; the "
        "answer is stored and scored against the question's reference answers (WeKnora's "
        "answers.parquet + qas.parquet, an 'answer' field in BEIR/JSONL queries).",
    )
    answers.add_argument(
        "--generator",
        metavar="SPEC",
        help="'module:function' (f(question, passages) -> answer) or an http(s):// URL",
    )
    answers.add_argument(
        "-A",
        "--answer-measure",
        dest="answer_measures",
        action="append",
        metavar="MEASURE",
        help="repeatable, or comma-separated: WeKnora's bleu1, bleu2, bleu4, rouge1, rouge2, "
        "rougel and/or BLEU, ROUGE-1, ROUGE-2, ROUGE-L, ExactMatch, TokenF1 (default "
        "WeKnora's six under weknora, the standard six otherwise)",
    )
    answers.add_argument(
        "--max-passages", type=int, metavar="N", help="passages per question (default: all)"
    )
    answers.add_argument(
        "--generator-template",
        metavar="JSON",
        help='HTTP request body with "{query}", "{query_id}", "{passages}", "{doc_ids}" '
        '(default {"question": "{query}", "passages": "{passages}"})',
    )
    answers.add_argument(
        "--answer-path", help="where the answer is in the HTTP response (default answer)"
    )
    answers.add_argument(
        "--generator-header", action="append", metavar="'NAME: VALUE'", help="repeatable"
    )
    answers.add_argument(
        "--generator-timeout", type=float, help="seconds per generator call (default 30)"
    )
    answers.add_argument(
        "--generator-retries", type=int, help="retries of transient failures (default 3)"
    )
    judged = parser.add_argument_group(
        "the judge of answers",
        "for the judged answer measures Faithfulness, AnswerRelevance and ReferenceAgreement "
        "(each with repeats=N and stat=mean|sd|failed): an OpenAI-compatible chat-completions "
        "endpoint, asked with the question, the answer, the passages the generator was given "
        "and the references; each asking is stored as it ends, and an answer it gives no "
        "grade is counted apart, never in the mean",
    )
    add_endpoint_arguments(judged, "judge-")
    judged.add_argument(
        "--judge-repeats",
        type=int,
        metavar="N",
        help="askings of each judged measure named without repeats= (default 1)",
    )
    _db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the task as JSON")
    parser.set_defaults(handler=_run)


def _add_tasks(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tasks",
        help="list, show, resume, cancel, export or compare stored evaluation tasks",
        description="Manage the tasks of the evaluation service's store.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="tasks, newest first")
    listing.add_argument(
        "--status", choices=("pending", "running", "succeeded", "failed", "cancelled")
    )
    listing.add_argument("--limit", type=int, default=50)
    listing.add_argument("--offset", type=int, default=0)
    listing.add_argument("--json", action="store_true")
    _db_argument(listing)
    listing.set_defaults(handler=_tasks_list)

    show = actions.add_parser("show", help="a task's status, metrics, latency and failures")
    show.add_argument("task", help="task id (or a unique prefix of it)")
    show.add_argument("--queries", type=int, default=0, metavar="N", help="also show N queries")
    show.add_argument("--json", action="store_true")
    _db_argument(show)
    show.set_defaults(handler=_tasks_show)

    resume = actions.add_parser("resume", help="continue an interrupted task where it stopped")
    resume.add_argument("task")
    resume.add_argument("--force", action="store_true", help="even if its process seems alive")
    resume.add_argument("--json", action="store_true")
    _db_argument(resume)
    resume.set_defaults(handler=_tasks_resume)

    cancel = actions.add_parser("cancel", help="cancel a pending or running task")
    cancel.add_argument("task")
    _db_argument(cancel)
    cancel.set_defaults(handler=_tasks_cancel)

    export = actions.add_parser("export", help="write a task's results as JSON, CSV or a TREC run")
    export.add_argument("task")
    export.add_argument("--format", "-f", choices=("json", "csv", "trec"), default="json")
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    _db_argument(export)
    export.set_defaults(handler=_tasks_export)

    compare = actions.add_parser(
        "compare",
        help="compare tasks on the same dataset: each with the first, with several baselines "
        "(--baseline) or every pair (--all-pairs); paired tests or Tukey's HSD tests",
    )
    compare.add_argument("tasks", nargs="+", metavar="TASK")
    add_pair_options(compare, "task")
    add_report_options(compare)
    _db_argument(compare)
    compare.set_defaults(handler=_tasks_compare)


def _allow_arguments(parser: argparse.ArgumentParser) -> None:
    """The allow-lists of ``serve`` and ``worker``: what their tasks may import, call, read."""
    parser.add_argument(
        "--allow-callable",
        action="append",
        default=[],
        metavar="PATTERN",
        help="module:name retrievers clients may name (fnmatch on each side, e.g. "
        "'myretrievers:*'; never a dotted name after the colon); none by default, since "
        "importing a module runs its code",
    )
    parser.add_argument(
        "--allow-url",
        action="append",
        metavar="PATTERN",
        help="HTTP retriever URLs clients may name, fnmatch patterns over "
        "scheme://host:port/path (e.g. 'https://search.internal:443/*'); default: loopback "
        "addresses only",
    )
    parser.add_argument(
        "--data-root",
        action="append",
        metavar="DIR",
        help="directory the datasets clients name must lie in (repeatable; symbolic links "
        "resolved); default: the working directory",
    )


def _add_serve(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the evaluation service's web console and HTTP API",
        description="Serve the web console at / and the HTTP API (FastAPI + uvicorn; "
        "documentation at /docs, usable offline). Binds 127.0.0.1 unless told otherwise; "
        "another address needs a bearer token (the console asks for it at sign-in).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    add_measures_from_option(parser)
    parser.add_argument(
        "--token",
        help="bearer token required on every request (default: $RANKSCOPE_TOKEN); "
        "required when binding an address other than loopback",
    )
    _allow_arguments(parser)
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host header name the server answers besides loopback names (fnmatch; the "
        "name clients use to reach it); refuses others against DNS rebinding",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=1024 * 1024,
        metavar="N",
        help="largest request body accepted (default 1 MiB; 413 above)",
    )
    parser.add_argument(
        "--on-interrupted",
        choices=("resume", "fail", "leave"),
        default="resume",
        help="what to do at start-up with tasks a previous run left unfinished (default resume)",
    )
    parser.add_argument(
        "--max-running",
        type=int,
        default=2,
        help="tasks run at once in this process (default 2; 0 leaves them to workers)",
    )
    parser.add_argument(
        "--max-pending",
        type=int,
        default=100,
        metavar="N",
        help="tasks that may wait to run, in the whole store (default 100; 429 beyond)",
    )
    limits = parser.add_argument_group("slow clients")
    limits.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a connection must send its request's headers within this (default 10)",
    )
    limits.add_argument(
        "--body-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="a request's body must arrive whole within this (default 30; 408 after)",
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=200,
        metavar="N",
        help="connections open at once; more are closed as they open (default 200)",
    )
    _db_argument(parser)
    parser.set_defaults(handler=_serve)


def _add_worker(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "worker",
        help="run the pending evaluation and judging tasks of a shared store",
        description="Take the pending tasks of the store, evaluations and judgings, one at a "
        "time and run them (each question, and each pair judged, committed as it finishes), "
        "with other workers and 'rankscope serve' "
        "processes on any machine that share the store (a PostgreSQL server: tasks are "
        "claimed with SELECT ... FOR UPDATE SKIP LOCKED, so none runs twice). A task whose "
        "worker died is taken up again where it stopped. SIGTERM or Ctrl-C stop it; the "
        "tasks it was running go back to the queue.",
    )
    parser.add_argument("--max-running", type=int, default=1, help="tasks run at once (default 1)")
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how often an idle worker looks for a task (default 1)",
    )
    _allow_arguments(parser)
    _db_argument(parser)
    parser.set_defaults(handler=_worker)


# --- helpers ----------------------------------------------------------------------------------


def _service(args: argparse.Namespace, **options: Any) -> Any:
    from rankscope.service import EvaluationService

    return EvaluationService(args.db, **options)


def _endpoint_options(
    template: tuple[str, str | None], headers: tuple[str, list[str] | None], **given: Any
) -> dict[str, Any]:
    """An HTTP endpoint's options from the command line: its request template (JSON), its
    ``Name: value`` headers (each as ``(option, value)``) and the options given (None: not
    given)."""
    options: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
    if template[1] is not None:
        try:
            options["body"] = json.loads(template[1])
        except json.JSONDecodeError as error:
            raise InputError(f"{template[0]} is not JSON: {error}") from None
    named: dict[str, str] = {}
    for header in headers[1] or []:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            raise InputError(f"{headers[0]} must be 'Name: value'; found {header!r}")
        named[name.strip()] = value.strip()
    if named:
        options["headers"] = named
    return options


def _http_options(args: argparse.Namespace) -> dict[str, Any]:
    return _endpoint_options(
        ("--request-template", args.request_template),
        ("--header", args.header),
        **{
            key: getattr(args, key)
            for key in ("method", "results_path", "id_field", "score_field", "timeout", "retries")
        },
    )


def _generator_options(args: argparse.Namespace) -> dict[str, Any]:
    return _endpoint_options(
        ("--generator-template", args.generator_template),
        ("--generator-header", args.generator_header),
        answer_path=args.answer_path,
        timeout=args.generator_timeout,
        retries=args.generator_retries,
        max_passages=args.max_passages,
    )


def _format(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}"


def _print_task(info: Any, *, detailed: bool = True) -> None:
    rate = f", {info.queries_per_second:.1f} queries/s" if info.queries_per_second else ""
    print(
        f"task {info.id} {info.status}: {info.finished} of {info.total} queries "
        f"({info.failed} failed) in {info.active_seconds:.2f} s{rate}"
    )
    if info.error:
        print(f"  error: {info.error}")
    width = max((len(name) for name in (*info.measures, *info.answer_measures)), default=0)
    for name in info.measures:
        print(f"  {name:<{width}}  {_format(info.metrics.get(name))}")
    if info.generator is not None:
        print(f"  answers scored: {info.answered} (generator {_retriever_label(info.generator)})")
        for name in info.answer_measures:
            count = info.answer_counts.get(name, 0)
            failed = info.answer_failed.get(name, 0)
            over = f"  (over {count}" + (f", {failed} not graded)" if failed else ")")
            shown = over if count < info.answered or failed else ""
            print(f"  {name:<{width}}  {_format(info.answer_metrics.get(name))}{shown}")
        tallies = info.judge_tallies
        if tallies is not None:
            from rankscope.cli._judge import calls_line, counts

            failed = sum(tallies.failed.values())
            kinds = f" ({counts(tallies.failures)})" if tallies.failures else ""
            print(
                f"  judge: {tallies.askings} askings, {failed} without a grade{kinds}; "
                + calls_line(
                    tallies.calls, tallies.prompt_tokens, tallies.completion_tokens, tallies.cost
                )
            )
        if info.answer_note:
            print(f"  note: {info.answer_note}")
    if detailed and info.latency_ms:
        latency = ", ".join(f"{key} {value:.1f}" for key, value in info.latency_ms.items())
        print(f"  latency ms: {latency}")
    if detailed:
        print(
            f"  profile {info.profile}, k {info.k}, dataset {info.dataset.get('name')}, "
            f"retriever {_retriever_label(info.retriever)}"
        )


def _retriever_label(spec: dict[str, Any]) -> str:
    return str(spec.get("target") or spec.get("url") or spec.get("description") or spec.get("type"))


@contextmanager
def _progress_bar(total: int, task_id: str) -> Iterator[Callable[[Any], None]]:
    """A progress bar on standard error when it is a terminal (the task's queries, failures and
    its first running metric); else nothing."""
    from rankscope._progress import steps

    with steps(total, f"task {task_id}", True) as advance:

        def update(progress: Any) -> None:
            first = next(iter(progress.running_metrics.items()), None)
            detail = f"failed {progress.failed}"
            if first is not None:
                detail += f"  {first[0]} {first[1]:.4f}"
            advance(progress.finished, detail)

        yield update


def _execute(
    service: Any, task_id: str, total: int, args: argparse.Namespace, force: bool = False
) -> int:
    try:
        with _progress_bar(total, task_id) as update:
            info = service.run(task_id, progress=update, force=force)
    except KeyboardInterrupt:
        print(
            f"rankscope: task {task_id} stopped; continue with: rankscope tasks resume {task_id}",
            file=sys.stderr,
        )
        raise
    if args.json:
        print(json.dumps(info.to_dict(), indent=1))
    else:
        _print_task(info)
        print(f"task id: {info.id}")
    if info.status != "succeeded":
        return EXIT_TASK_NOT_SUCCEEDED
    return EXIT_OK


# --- handlers ---------------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    if args.dataset is not None:
        if args.queries or args.qrels:
            raise InputError("give --dataset, or --queries and --qrels, not both")
        dataset: dict[str, Any] = {"path": args.dataset, "split": args.split}
    elif args.queries and args.qrels:
        dataset = {"queries": args.queries, "qrels": args.qrels, "corpus": args.corpus}
    else:
        raise InputError("give --dataset DIR, or --queries FILE and --qrels FILE")
    service = _service(args)
    try:
        info = service.submit(
            dataset,
            args.retriever,
            measures=split_measures(args.measures) or None,
            profile=args.profile,
            k=args.k,
            concurrency=args.concurrency,
            max_failures=args.max_failures,
            name=args.name,
            http_options=_http_options(args),
            generator=args.generator,
            answer_measures=split_measures(args.answer_measures) or None,
            generator_options=_generator_options(args),
            answer_judge=_answer_judge(args),
        )
        if not args.json:
            print(
                f"task {info.id}: {info.total} queries, store {service.store.location}",
                file=sys.stderr,
            )
        return _execute(service, info.id, info.total, args)
    finally:
        service.close()


def _answer_judge(args: argparse.Namespace) -> dict[str, Any] | None:
    """The task's judge of answers, when the options name one."""
    if args.judge_url is None and args.judge_model is None:
        if args.judge_repeats is not None:
            raise OptionError("--judge-repeats goes with a judge: --judge-url and --judge-model")
        return None
    if args.judge_url is None or args.judge_model is None:
        raise OptionError("give the judge's --judge-url and --judge-model")
    judge = {
        "type": "http",
        "url": args.judge_url,
        "model": args.judge_model,
        "api_key_env": args.judge_api_key_env,
        "max_tokens": args.judge_max_tokens,
        "temperature": args.judge_temperature,
        "seed": args.judge_seed,
        "timeout": args.judge_timeout,
        "retries": args.judge_retries,
        "backoff": args.judge_backoff,
    }
    return {
        "judge": {key: value for key, value in judge.items() if value is not None},
        "concurrency": args.judge_concurrency,
        "repeats": args.judge_repeats,
    }


def _tasks_list(args: argparse.Namespace) -> int:
    service = _service(args)
    try:
        tasks, total = service.list_tasks(status=args.status, limit=args.limit, offset=args.offset)
        if args.json:
            print(json.dumps({"items": [t.to_dict() for t in tasks], "total": total}, indent=1))
            return EXIT_OK
        if not tasks:
            print("no tasks" if total == 0 else f"no tasks at offset {args.offset} (of {total})")
            return EXIT_OK
        print(
            f"{'id':<12}  {'status':<9}  {'done':>11}  {'failed':>6}  {'profile':<7}  "
            f"{'dataset':<16}  name"
        )
        for task in tasks:
            done = f"{task.finished}/{task.total}"
            print(
                f"{task.id:<12}  {task.status:<9}  {done:>11}  {task.failed:>6}  "
                f"{task.profile:<7}  "
                f"{str(task.dataset.get('name'))[:16]:<16}  {task.name or ''}"
            )
        if total > args.offset + len(tasks):
            print(f"... {total - args.offset - len(tasks)} more (use --offset)")
        return EXIT_OK
    finally:
        service.close()


def _tasks_show(args: argparse.Namespace) -> int:
    service = _service(args)
    try:
        info = service.get(service.resolve(args.task))
        records = service.query_results(info.id, limit=args.queries) if args.queries else []
        failures = service.query_results(info.id, status="failed", limit=5)
        if args.json:
            print(
                json.dumps(
                    {"task": info.to_dict(), "queries": [r.to_dict() for r in records]}, indent=1
                )
            )
            return EXIT_OK
        _print_task(info)
        for record in failures:
            print(f"  failed query {record.query_id}: {record.error}")
        if info.failed > len(failures):
            print(f"  ... {info.failed - len(failures)} more failed queries (tasks export)")
        for record in records:
            measured = {**(record.metrics or {}), **(record.answer_metrics or {})}
            values = " ".join(f"{k}={v:.4f}" for k, v in measured.items())
            print(
                f"  {record.query_id}\t{record.status}\t{' '.join(record.doc_ids[:10])}\t{values}"
            )
            if record.answer is not None:
                print(f"    answer: {record.answer!r:.200}")
        return EXIT_OK
    finally:
        service.close()


def _tasks_resume(args: argparse.Namespace) -> int:
    service = _service(args)
    try:
        task_id = service.resolve(args.task)
        info = service.get(task_id)
        return _execute(service, task_id, info.total, args, force=args.force)
    finally:
        service.close()


def _tasks_cancel(args: argparse.Namespace) -> int:
    service = _service(args)
    try:
        info = service.cancel(service.resolve(args.task))
        print(f"task {info.id} cancelled after {info.finished} of {info.total} queries")
        return EXIT_OK
    finally:
        service.close()


def _tasks_export(args: argparse.Namespace) -> int:
    service = _service(args)
    try:
        task_id = service.resolve(args.task)
        service.export(task_id, args.format, args.output if args.output else sys.stdout)
        return EXIT_OK
    finally:
        service.close()


def _tasks_compare(args: argparse.Namespace) -> int:
    from rankscope.engine.provenance import command_line
    from rankscope.service.tasks.compare import task_labels

    check_report_options(args)
    service = _service(args)
    try:
        ids = [service.resolve(task) for task in args.tasks]
        labels = task_labels([service.get(task_id) for task_id in ids])
        report, _ = service.compare(
            ids,
            test=args.test,
            correction=args.correction,
            alpha=args.alpha,
            seed=args.seed,
            n_resamples=args.resamples,
            command=command_line(args.argv),
            **pair_options(args, "task", labels, ids),
        )
    finally:
        service.close()
    write_report(report, args)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from rankscope.service.web.app import create_app, is_loopback

    token = args.token or os.environ.get("RANKSCOPE_TOKEN") or None
    if not is_loopback(args.host) and token is None:
        raise InputError(
            f"binding {args.host} exposes the service beyond this machine; give a bearer token "
            "with --token or $RANKSCOPE_TOKEN"
        )
    try:
        import uvicorn
    except ImportError:
        raise MissingDependencyError("uvicorn", "rankscope serve", "service") from None
    from rankscope.service.sources.policy import Policy
    from rankscope.service.web.session import Sessions

    Sessions(token)  # a token too short to be safe is refused before anything starts
    from rankscope.service.web.dependencies import LOOPBACK_HOSTS

    if args.max_body_bytes < 1024:
        raise InputError(f"--max-body-bytes must be at least 1024; found {args.max_body_bytes}")
    for option, value, low in (
        ("--max-pending", args.max_pending, 1),
        ("--max-connections", args.max_connections, 1),
        ("--header-timeout", args.header_timeout, 0.1),
        ("--body-timeout", args.body_timeout, 0.1),
    ):
        if not value >= low:
            raise InputError(f"{option} must be at least {low}; found {value}")
    policy = Policy.make(args.data_root, args.allow_callable, args.allow_url)
    for root in policy.data_roots:
        if not root.is_dir():
            raise InputError(f"--data-root {root} is not a directory")
    hosts = [*LOOPBACK_HOSTS, *args.allowed_host]
    if args.host not in ("0.0.0.0", "::") and not is_loopback(args.host):
        hosts.append(args.host.strip("[]"))
    service = _service(
        args,
        allowed_callables=policy.allowed_callables,
        allowed_urls=policy.allowed_urls,
        data_roots=policy.data_roots,
        max_running=args.max_running,
        max_pending=args.max_pending,
    )
    app = create_app(
        service,
        token=token,
        recover=args.on_interrupted,
        allowed_callables=policy.allowed_callables,
        allowed_urls=policy.allowed_urls,
        data_roots=policy.data_roots,
        allowed_hosts=hosts,
        max_body_bytes=args.max_body_bytes,
        body_timeout=args.body_timeout,
    )
    shown = args.host if ":" not in args.host else f"[{args.host}]"
    print(
        f"rankscope: serving the console on http://{shown}:{args.port}/ and the API "
        f"(documentation at /docs); datasets under {', '.join(map(str, policy.data_roots))}; "
        f"store {service.store.location}",
        file=sys.stderr,
    )
    from rankscope.service.web.server import server_config

    config = server_config(
        app,
        args.host,
        args.port,
        header_timeout=args.header_timeout,
        max_connections=args.max_connections,
    )
    try:
        uvicorn.Server(config).run()
    finally:
        service.close()
    return EXIT_OK


def _worker(args: argparse.Namespace) -> int:
    import signal
    import threading

    from rankscope.service.sources.policy import Policy

    if args.max_running < 1 or not args.poll > 0:
        raise InputError("--max-running must be at least 1 and --poll above 0")
    policy = Policy.make(args.data_root, args.allow_callable, args.allow_url)
    service = _service(
        args,
        allowed_callables=policy.allowed_callables,
        allowed_urls=policy.allowed_urls,
        data_roots=policy.data_roots,
        max_running=args.max_running,
    )
    stop = threading.Event()

    def stopping(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    print(
        f"rankscope: worker running up to {args.max_running} tasks of {service.store.location}",
        file=sys.stderr,
    )
    threads = [
        threading.Thread(target=service.work, args=(stop,), kwargs={"poll": args.poll})
        for _ in range(args.max_running)
    ]
    for thread in threads:
        thread.start()
    try:
        while any(thread.is_alive() for thread in threads) and not stop.is_set():
            stop.wait(0.5)
    finally:
        stop.set()
        service.shutdown()  # the tasks running here go back to pending
        for thread in threads:
            thread.join()
        service.close()
    return EXIT_OK
