"""The web console: pages served at ``/`` beside the API, for people rather than scripts.

=======  ===========================  =========================================================
GET      /                            the tasks: status, live progress, dataset, retriever,
                                      main metrics, duration; pick some to compare
GET      /tasks/new                   the form that starts an evaluation
POST     /tasks/new                   start it (then its page)
GET      /tasks/{id}                  a task: metrics and answer measures (running means while
                                      it runs), the distribution of the main measure over the
                                      questions, latency, throughput, the per-question table
                                      (with each generated answer beside its reference),
                                      failures, exports
POST     /tasks/{id}/cancel|resume    cancel or resume it
POST     /tasks/{id}/judge            fill the task's holes with a judge: start a judging
                                      task on the unjudged documents of its top k (then its
                                      page)
GET      /judgings/{id}               a judging task: pairs graded, failed and pending, calls,
                                      tokens and cost, failures by kind, the agreement with
                                      human judgements, and the evaluation task's measures
                                      before and after its holes were judged; downloads
POST     /judgings/{id}/cancel|resume cancel or resume it
GET      /compare?task=A&task=B...    the report of ``rankscope compare --format html``, with
                                      the test chosen (``&test=tukey``) and every pair
                                      compared (``&pairs=all``) or each with the first
GET|POST /signin, POST /signout       a session from the server's token (when it has one)
=======  ===========================  =========================================================

The pages are one `APIRouter` (``router``) whose shared dependencies check the Host, the
Origin and the session; the sign-in pages another (``signin_router``), open to anyone the Host
and Origin checks admit. Pages are Jinja2 templates; a little plain JavaScript
(``static/console.js``) polls the JSON API to keep progress and metrics live and pages the
per-question table. Every asset is a file of
this package, and every page forbids anything else (Content-Security-Policy). Forms carry the
session's CSRF token, checked on every POST.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the pages at run
# time.
import functools
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from rankscope.compare import PAIR_TEST_NAMES
from rankscope.engine.profiles import PROFILES
from rankscope.errors import (
    MissingDependencyError,
    OptionError,
    RankscopeError,
    TaskNotFoundError,
)
from rankscope.service.tasks.compare import comparable
from rankscope.service.tasks.scoring import (
    DEFAULT_TREC_MEASURES,
    WEKNORA_ANSWER_MEASURES,
    WEKNORA_MEASURES,
)
from rankscope.service.web.dependencies import (
    checked_host,
    client_address,
    not_throttled,
    page_caller,
    same_origin,
    session_nonce,
)
from rankscope.service.web.errors import public_message
from rankscope.service.web.models import EvaluationIn, JudgingIn
from rankscope.service.web.routers.evaluations import start_evaluation
from rankscope.service.web.routers.judgings import JUDGING_PREFIX, check_resume, start_judging
from rankscope.service.web.session import COOKIE, SESSION_SECONDS, Sessions

__all__ = ["install_console", "router", "signin_router"]

HERE = Path(__file__).resolve().parent.parent / "console"
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)
# The report has its own inline style; sandboxed, it can reach nothing of the console.
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; sandbox"
)
_DATASET_MARKERS = ("queries.parquet", "queries.jsonl")
_SKIPPED = {".git", ".venv", "node_modules", "__pycache__", "target"}
_MAX_DATASETS = 200
_MAX_DEPTH = 3
_COMPARED = 8


def find_datasets(roots: Sequence[Path]) -> list[str]:
    """Dataset directories (WeKnora or BEIR layout) under the roots, at most three levels
    down, as paths relative to the first root where they lie under it."""
    found: list[str] = []
    for root in roots:
        for directory, subdirectories, files in os.walk(root):
            depth = len(Path(directory).relative_to(root).parts)
            subdirectories[:] = sorted(
                name
                for name in subdirectories
                if name not in _SKIPPED and not name.startswith(".") and depth < _MAX_DEPTH
            )
            if any(marker in files for marker in _DATASET_MARKERS):
                path = Path(directory)
                found.append(
                    str(path.relative_to(roots[0])) if path.is_relative_to(roots[0]) else str(path)
                )
                if len(found) >= _MAX_DATASETS:
                    return found
    return found


def _metric(value: Any) -> str:
    if value is None or not isinstance(value, int | float) or value != value:
        return "–"
    return f"{value:.4f}"


def _seconds(value: Any) -> str:
    if not isinstance(value, int | float):
        return "–"
    if value < 60:
        return f"{value:.1f} s"
    minutes, seconds = divmod(int(value), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {seconds:02d} s"


def _when(value: Any, shape: str = "%Y-%m-%d %H:%M:%S") -> str:
    if not isinstance(value, int | float):
        return "–"
    return time.strftime(shape, time.localtime(value))


def _retriever_label(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type")
    if kind == "bm25":
        return f"BM25 (k1 {spec.get('k1', 1.5):g}, b {spec.get('b', 0.75):g})"
    if kind == "http":
        return f"{spec.get('method', 'POST')} {spec.get('url')}"
    return str(spec.get("target") or spec.get("description") or kind)


def _form_fields(body: bytes) -> dict[str, list[str]]:
    return parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)


def _local_target(value: str | None) -> str:
    """Where to go after signing in: a path of this server, nothing else."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def evaluation_payload(form: Mapping[str, list[str]]) -> dict[str, Any]:
    """The API's request body (`EvaluationIn`) from the fields of the console's form."""

    def one(name: str) -> str:
        return (form.get(name) or [""])[0].strip()

    def number(name: str) -> int | float | str | None:
        text = one(name)
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                return text  # refused, with its field named, by the model's validation

    def template(name: str, what: str) -> Any:
        import json

        text = one(name)
        try:
            return json.loads(text) if text else None
        except json.JSONDecodeError as error:
            raise ValueError(f"{what} is not JSON: {error}") from None

    kind = one("retriever")
    retriever: dict[str, Any] = {"type": kind}
    if kind == "bm25":
        retriever.update(k1=number("k1"), b=number("b"))
    elif kind == "http":
        retriever.update(
            url=one("url"),
            method=one("method") or None,
            body=template("body", "the request template"),
            results_path=one("results_path") or None,
            id_field=one("id_field") or None,
            score_field=one("score_field") or None,
        )
    elif kind == "callable":
        retriever["target"] = one("target")
    generator: dict[str, Any] | None = None
    generator_kind = one("generator")
    if generator_kind == "http":
        generator = {
            "type": "http",
            "url": one("generator_url"),
            "body": template("generator_body", "the generator's request template"),
            "answer_path": one("answer_path") or None,
        }
    elif generator_kind == "callable":
        generator = {"type": "callable", "target": one("generator_target")}
    if generator is not None:
        generator["max_passages"] = number("max_passages")
        generator = {key: value for key, value in generator.items() if value is not None}
    profile = one("profile") or "weknora"
    if profile == "weknora":
        measures = form.get("measure") or None
    else:
        text = one("trec_measures").replace(",", " ")
        measures = text.split() or None
    dataset: dict[str, Any] = {"path": one("dataset") or None, "split": one("split") or None}
    return {
        "dataset": dataset,
        "retriever": {key: value for key, value in retriever.items() if value is not None},
        "profile": profile,
        "measures": measures,
        "k": number("k"),
        "concurrency": number("concurrency") or 4,
        "max_failures": number("max_failures"),
        "name": one("name") or None,
        "generator": generator,
        "answer_measures": (
            one("answer_measures").replace(",", " ").split() or None if generator else None
        ),
    }


def judging_payload(form: Mapping[str, list[str]], task_id: str) -> dict[str, Any]:
    """The API's request body (`JudgingIn`) from the fields of a task page's judge form."""

    def one(name: str) -> str:
        return (form.get(name) or [""])[0].strip()

    def number(name: str) -> int | str | None:
        text = one(name)
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            return text  # refused, with its field named, by the model's validation

    judge = {
        "type": "http",
        "url": one("judge_url"),
        "model": one("judge_model"),
        "api_key_env": one("api_key_env") or None,
    }
    sample = number("calibration_sample")
    body: dict[str, Any] = {
        "judge": {key: value for key, value in judge.items() if value is not None},
        "holes_of": task_id,
        "depth": number("depth") or 10,
        "concurrency": number("judge_concurrency") or 4,
        "calibrate": bool(sample),
        "name": one("judging_name") or None,
    }
    if sample:
        body["calibration_sample"] = sample
    return body


router = APIRouter(
    include_in_schema=False,
    dependencies=[Depends(checked_host), Depends(same_origin), Depends(page_caller)],
)
signin_router = APIRouter(
    include_in_schema=False, dependencies=[Depends(checked_host), Depends(same_origin)]
)
# The sign-in form checks a token: it waits, as the API does, after too many wrong ones.


@functools.cache
def _templates() -> Any:
    try:
        import jinja2
    except ImportError:
        raise MissingDependencyError("jinja2", "the web console", "service") from None
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    templates.filters.update(
        metric=_metric,
        seconds=_seconds,
        when=_when,
        retriever=_retriever_label,
        pattern=lambda text: str(text).replace("[[]", "["),  # fnmatch's literal [ as typed
    )
    return templates


def install_console(app: FastAPI) -> None:
    """Add the console's pages and static files to the FastAPI ``app`` of `create_app`."""
    _templates()  # a missing jinja2 is named now, not at the first page
    app.mount("/static/console", StaticFiles(directory=HERE / "static"), name="console")
    app.include_router(signin_router)
    app.include_router(router)


def _sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


def secured(response: Response, policy_header: str = PAGE_POLICY) -> Response:
    response.headers["Content-Security-Policy"] = policy_header
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["Cache-Control"] = "no-store"
    return response


def _set_session(request: Request, response: Response, cookie: str) -> None:
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    sessions = _sessions(request)
    nonce = session_nonce(request)
    new_cookie = None
    if nonce is None and sessions.token is None:
        # No token: an anonymous session, for the CSRF tokens of the forms.
        new_cookie = sessions.issue()
        nonce = sessions.verify(new_cookie)
    context.setdefault("page", "")
    page = (
        _templates()
        .get_template(template)
        .render(
            csrf=sessions.csrf(nonce) if nonce else "",
            signed_in=sessions.token is not None and nonce is not None,
            api="/api/v1/evaluations",
            **context,
        )
    )
    response = HTMLResponse(page, status_code=status)
    if new_cookie is not None:
        _set_session(request, response, new_cookie)
    return secured(response)


async def form_of(request: Request) -> dict[str, list[str]] | None:
    """The posted form, or None if its CSRF token is not the session's."""
    form = _form_fields(await request.body())
    given = (form.get("csrf") or [""])[0]
    return form if _sessions(request).csrf_ok(session_nonce(request), given) else None


def refused(request: Request) -> Response:
    return render(
        request,
        "message.html",
        status=403,
        title="Refused",
        message="The form's security token is missing or stale; reload the page and try again.",
    )


def _reasons(error: ValidationError) -> str:
    """What a form's fields got wrong, field by field, in one line."""
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}" for item in error.errors()
    )


def see_other(location: str) -> Response:
    return secured(RedirectResponse(location, status_code=303))


# --- signing in -------------------------------------------------------------------------------


@signin_router.get("/signin")
def signin_page(request: Request, next: str = "/") -> Response:
    if _sessions(request).token is None or session_nonce(request) is not None:
        return see_other(_local_target(next))
    return render(request, "signin.html", next=_local_target(next), error=None)


@signin_router.post("/signin", dependencies=[Depends(not_throttled)])
async def signin(request: Request) -> Response:
    sessions = _sessions(request)
    form = _form_fields(await request.body())
    target = _local_target((form.get("next") or ["/"])[0])
    if sessions.token is None:
        return see_other(target)
    if not sessions.token_ok((form.get("token") or [""])[0], client_address(request)):
        return render(
            request, "signin.html", status=401, next=target, error="That is not the token."
        )
    response = see_other(target)
    _set_session(request, response, sessions.issue())
    return response


@router.post("/signout")
async def signout(request: Request) -> Response:
    if await form_of(request) is None:
        return refused(request)
    response = see_other("/signin" if _sessions(request).token is not None else "/")
    response.delete_cookie(COOKIE, path="/")
    return response


# --- tasks ------------------------------------------------------------------------------------


@router.get("/")
def task_list(
    request: Request,
    offset: int = Query(0, ge=0, le=10**9),
    judging_offset: int = Query(0, ge=0, le=10**9),
) -> Response:
    """The evaluation tasks and the judging tasks, newest first, each paged on its own
    (``offset``, ``judging_offset``: 50 a page)."""
    service = request.app.state.service
    tasks, total = service.list_tasks(limit=50, offset=offset)
    judgings, judging_total = service.list_judgings(limit=50, offset=judging_offset)
    return render(
        request,
        "tasks.html",
        tasks=tasks,
        total=total,
        offset=offset,
        limit=50,
        page="tasks",
        judgings=judgings,
        judging_total=judging_total,
        judging_offset=judging_offset,
        judging_api=JUDGING_PREFIX,
    )


_PROFILE_LABELS = {
    "weknora": "weknora (WeKnora's six metrics)",
    "trec": "trec (trec_eval 10)",
    "trec9": "trec9 (scores as 32-bit floats)",
}
"""What the new-task form says beside a profile's name; the others show their name alone."""


def new_form(
    request: Request, status: int = 200, error: str | None = None, chosen: Any = None
) -> Response:
    policy = request.app.state.policy
    return render(
        request,
        "new.html",
        status=status,
        page="new",
        error=error,
        chosen=chosen or {},
        datasets=find_datasets(policy.data_roots),
        roots=policy.data_roots,
        allowed_callables=policy.allowed_callables,
        allowed_urls=policy.allowed_urls,
        profiles={name: _PROFILE_LABELS.get(name, name) for name in PROFILES},
        weknora_measures=list(WEKNORA_MEASURES),
        trec_measures=" ".join(DEFAULT_TREC_MEASURES),
        weknora_answer_measures=" ".join(WEKNORA_ANSWER_MEASURES),
    )


@router.get("/tasks/new")
def new_task_page(request: Request) -> Response:
    return new_form(request)


@router.post("/tasks/new")
async def new_task(request: Request) -> Response:
    form = await form_of(request)
    if form is None:
        return refused(request)
    chosen: dict[str, Any] = {name: values[0] for name, values in form.items() if values}
    chosen["measure"] = form.get("measure") or []
    try:
        body = EvaluationIn.model_validate(evaluation_payload(form))
        info = start_evaluation(request.app.state.service, request.app.state.policy, body)
    except ValidationError as error:
        return new_form(request, 422, _reasons(error), chosen)
    except (RankscopeError, ValueError) as error:
        message = public_message(error) if isinstance(error, RankscopeError) else str(error)
        return new_form(request, 422, message, chosen)
    return see_other(f"/tasks/{info.id}")


@router.get("/tasks/{task_id}")
def task_page(request: Request, task_id: str) -> Response:
    service = request.app.state.service
    try:
        info = service.get(task_id)
    except TaskNotFoundError:
        return render(
            request, "message.html", status=404, title="No such task",
            message=f"No task has the id {task_id!r}.",
        )  # fmt: skip
    failures, _ = service.query_page(task_id, status="failed", limit=20)
    message = request.query_params.get("message")
    return render(
        request,
        "task.html",
        task=info,
        judgings=service.judgings_of(task_id),
        failures=failures,
        histogram=histogram(service, info),
        message=message[:300] if message else None,
        page="task",
    )


HISTOGRAM_BINS = 10
HISTOGRAM_LIMIT = 100_000
"""The most questions a task page reads for its histogram (beyond, the page leaves it out)."""


def histogram(service: Any, info: Any) -> dict[str, Any] | None:
    """The task page's histogram: the per-question values of the task's first measure in
    `HISTOGRAM_BINS` equal bins from 0 (or the lowest value) to 1 (or the highest), the last
    bin closed; None before a question succeeded, or past `HISTOGRAM_LIMIT` questions.

    Returns ``measure``, ``count`` (the values binned), ``low`` and ``high`` (the range),
    ``most`` (the largest bin's count) and ``bins``: per bin ``low``, ``high`` and ``count``,
    which the template draws as an SVG bar chart (no script: the page's CSP allows none inline).
    """
    if not info.measures or not 0 < info.succeeded <= HISTOGRAM_LIMIT:
        return None
    measure = info.measures[0]
    values = [
        value
        for record in service.query_results(info.id, status="succeeded")
        if record.metrics is not None
        and isinstance(value := record.metrics.get(measure), int | float)
        and value == value  # not NaN
    ]
    if not values:
        return None
    low, high = min(0.0, *values), max(1.0, *values)
    width = (high - low) / HISTOGRAM_BINS
    counts = [0] * HISTOGRAM_BINS
    for value in values:
        counts[min(int((value - low) / width), HISTOGRAM_BINS - 1)] += 1
    bins = [
        {"low": low + i * width, "high": low + (i + 1) * width, "count": count}
        for i, count in enumerate(counts)
    ]
    return {
        "measure": measure,
        "count": len(values),
        "low": low,
        "high": high,
        "most": max(counts),
        "bins": bins,
    }


async def act(request: Request, task_id: str, action: str, kind: str = "tasks") -> Response:
    """Cancel or resume an evaluation task (``kind`` ``tasks``) or a judging task
    (``judgings``) from its page's form, then its page again (with the reason of a refusal)."""
    if await form_of(request) is None:
        return refused(request)
    service = request.app.state.service
    policy = request.app.state.policy
    try:
        if kind == "judgings" and action == "cancel":
            service.cancel_judging(task_id)
        elif kind == "judgings":
            check_resume(policy, service, task_id)
            service.resume_judging_in_background(task_id)
        elif action == "cancel":
            service.cancel(task_id)
        else:
            policy.check_resume(service.get(task_id))
            service.resume_in_background(task_id)
    except TaskNotFoundError:
        return see_other("/")
    except RankscopeError as error:
        return see_other(f"/{kind}/{quote(task_id)}?message={quote(public_message(error))}")
    return see_other(f"/{kind}/{quote(task_id)}")


@router.post("/tasks/{task_id}/cancel")
async def cancel(request: Request, task_id: str) -> Response:
    return await act(request, task_id, "cancel")


@router.post("/tasks/{task_id}/resume")
async def resume(request: Request, task_id: str) -> Response:
    return await act(request, task_id, "resume")


# --- judging ----------------------------------------------------------------------------------


@router.post("/tasks/{task_id}/judge")
async def judge_holes(request: Request, task_id: str) -> Response:
    form = await form_of(request)
    if form is None:
        return refused(request)
    service = request.app.state.service
    try:
        body = JudgingIn.model_validate(judging_payload(form, task_id))
        info = start_judging(service, request.app.state.policy, body)
    except TaskNotFoundError:
        return see_other("/")
    except ValidationError as error:
        message = quote(_reasons(error)[:300])
        return see_other(f"/tasks/{quote(task_id)}?message={message}#judge")
    except RankscopeError as error:
        message = quote(public_message(error)[:300])
        return see_other(f"/tasks/{quote(task_id)}?message={message}#judge")
    return see_other(f"/judgings/{quote(info.id)}")


@router.get("/judgings/{task_id}")
def judging_page(request: Request, task_id: str) -> Response:
    service = request.app.state.service
    try:
        info = service.judging(task_id)
    except (TaskNotFoundError, RankscopeError):
        return render(
            request, "message.html", status=404, title="No such judging task",
            message=f"No judging task has the id {task_id!r}.",
        )  # fmt: skip
    source = None
    if info.source is not None:
        try:
            source = service.get(info.source["evaluation"])
        except TaskNotFoundError:
            source = None
    again = service.reevaluation(task_id) if info.status == "succeeded" and source else None
    message = request.query_params.get("message")
    return render(
        request,
        "judging.html",
        judging=info,
        source=source,
        reevaluation=again,
        failures=service.judging_failures(task_id)[:20],
        message=message[:300] if message else None,
        judging_api=JUDGING_PREFIX,
        page="judging",
    )


@router.post("/judgings/{task_id}/cancel")
async def cancel_judging(request: Request, task_id: str) -> Response:
    return await act(request, task_id, "cancel", "judgings")


@router.post("/judgings/{task_id}/resume")
async def resume_judging(request: Request, task_id: str) -> Response:
    return await act(request, task_id, "resume", "judgings")


# --- comparing --------------------------------------------------------------------------------


def _created(info: Any) -> float:
    return float(info.created_at)


def _chosen_tasks(request: Request) -> list[str]:
    return [value for value in request.query_params.getlist("task") if value][:_COMPARED]


_TEST_LABELS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank",
    "randomization": "randomization (permutation)",
    "tukey": "Tukey's HSD (topics as blocks)",
    "randomized-tukey": "randomized Tukey HSD",
}
# Every test of `rankscope.compare_runs` (as `rankscope compare --test` names them), labelled.
_TESTS = {name: _TEST_LABELS.get(name, name) for name in PAIR_TEST_NAMES}


def _chosen_test(request: Request) -> tuple[str, str]:
    """The test and the pairs (``"baseline"`` or ``"all"``) the page was asked for."""
    test = request.query_params.get("test") or "t"
    if test not in _TESTS:
        raise OptionError(f"unknown test {test[:40]!r}; expected one of {', '.join(_TESTS)}")
    pairs = request.query_params.get("pairs") or "baseline"
    if pairs not in ("baseline", "all"):
        raise OptionError(f"pairs must be 'baseline' or 'all'; got {pairs[:40]!r}")
    return test, pairs


@router.get("/compare")
def compare_page(request: Request) -> Response:
    service = request.app.state.service
    chosen = _chosen_tasks(request)
    error = None
    infos = []
    test, pairs = "t", "baseline"
    try:
        test, pairs = _chosen_test(request)
    except RankscopeError as refused:
        error = public_message(refused)
    if len(chosen) >= 2 and error is None:
        try:
            # The task that ran first is the baseline, whatever order the boxes were in.
            infos = sorted((service.get(task_id) for task_id in chosen), key=_created)
            comparable(service, [info.id for info in infos])
        except TaskNotFoundError as missing:
            error = str(missing)
        except RankscopeError as refused:
            # Said on this page, not in the report's frame.
            error = public_message(refused)
            chosen = [info.id for info in infos] or chosen
            infos = []
        chosen = [info.id for info in infos] or chosen
    done, _ = service.list_tasks(status="succeeded", limit=200)
    query = "&".join(
        [*(f"task={quote(task_id)}" for task_id in chosen), f"test={test}", f"pairs={pairs}"]
    )
    return render(
        request,
        "compare.html",
        page="compare",
        tasks=infos,
        candidates=done,
        chosen=chosen,
        tests=_TESTS,
        test=test,
        pairs=pairs,
        report_url=f"/compare/report?{query}" if infos else None,
        error=error,
        status=422 if error else 200,
    )


@router.get("/compare/report")
def compare_report(request: Request) -> Response:
    from rankscope.service.tasks.compare import comparison_html

    try:
        test, pairs = _chosen_test(request)
        html = comparison_html(
            request.app.state.service, _chosen_tasks(request), test=test, pairs=pairs
        )
    except RankscopeError as error:
        return secured(
            HTMLResponse(
                _templates()
                .get_template("report_error.html")
                .render(message=public_message(error)),
                status_code=422,
            ),
            REPORT_POLICY,
        )
    return secured(HTMLResponse(html), REPORT_POLICY)
