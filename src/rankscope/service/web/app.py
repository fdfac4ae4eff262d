"""The HTTP API of the evaluation service (FastAPI), a thin shell over `EvaluationService`.

=======  =======================================  ==============================================
POST     /api/v1/evaluations                      submit a task (a retriever, and optionally a
                                                  generator) and start it -> 202 with the task
GET      /api/v1/evaluations                      tasks, newest first (``limit``, ``offset``,
                                                  ``status``)
GET      /api/v1/evaluations/{id}                 status, progress, metrics, latency percentiles
GET      /api/v1/evaluations/{id}/queries         per-query results (``limit``, ``offset``,
                                                  ``status``, ``sort``, ``search``)
POST     /api/v1/evaluations/{id}/cancel          cancel a pending or running task
POST     /api/v1/evaluations/{id}/resume          resume a failed, cancelled or interrupted task
GET      /api/v1/evaluations/{id}/export          ``format=json|csv|trec``
=======  =======================================  ==============================================

An unknown id answers 404; an invalid body, dataset, measure or retriever 422 with the reason;
an operation the task's status does not allow 409; a body over the limit 413; a Host header
the server does not answer to 400. With a token, every request must carry
``Authorization: Bearer <token>`` or a console session (401 otherwise). Tasks run in the
server's threads, so they go on when the client disconnects. The web console (`_console`) and
the offline API documentation at ``/docs`` are served beside it.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the endpoints at
# run time.
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from rankscope.errors import (
    InputError,
    MissingDependencyError,
    RankscopeError,
    TaskNotFoundError,
    TaskStateError,
)
from rankscope.service.tasks.service import EXPORT_FORMATS, STATUSES, EvaluationService, TaskInfo
from rankscope.service.web.guard import LOOPBACK_HOSTS

__all__ = ["API_PREFIX", "create_app", "is_loopback", "public_message", "start_evaluation"]

API_PREFIX = "/api/v1/evaluations"
MAX_BODY_BYTES = 1024 * 1024
SORT_PATTERN = r"^-?[^\x00-\x1f]{1,200}$"


def public_message(error: RankscopeError) -> str:
    """The error's message for a client: an input error without the offending line, so that
    no file content is ever sent."""
    if isinstance(error, InputError):
        return str(InputError(error.message, source=error.source, line=error.line))
    return str(error)


def create_app(
    service: EvaluationService,
    *,
    token: str | None = None,
    recover: Literal["resume", "fail", "leave"] = "resume",
    allowed_callables: Sequence[str] = (),
    allowed_urls: Sequence[str] | None = None,
    data_roots: Sequence[str | Path] | None = None,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    max_body_bytes: int = MAX_BODY_BYTES,
    console: bool = True,
) -> Any:
    """The FastAPI application serving ``service``: the API, ``/docs`` and the web console.

    Parameters
    ----------
    service
        The service whose tasks are served.
    token
        If given, every request must carry ``Authorization: Bearer <token>`` or the cookie of
        a console session signed in with the token.
    recover
        What to do at start-up with tasks a previous server left pending or running:
        ``resume`` them, mark them ``fail``-ed, or ``leave`` them.
    allowed_callables
        Patterns ``module:name`` of the callables a client may name as retrievers, and a task
        may be resumed with. Empty (the default) refuses them all: importing a module runs its
        code.
    allowed_urls
        Patterns of the HTTP retriever URLs a client may name, matched against
        ``scheme://host:port/path`` (default: loopback only).
    data_roots
        Directories the datasets a client names must lie in (default: the working directory).
    allowed_hosts
        ``Host`` header names (fnmatch) the server answers (default: loopback names).
    max_body_bytes
        Largest request body accepted (413 above).
    console
        Serve the web console at ``/``.
    """
    try:
        from contextlib import asynccontextmanager

        from fastapi import FastAPI, Query, Request, Response
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import JSONResponse, PlainTextResponse
        from starlette.exceptions import HTTPException

        from rankscope.service.web import models
    except ImportError as error:
        raise MissingDependencyError(
            str(error.name or "fastapi"), "the HTTP API", "service"
        ) from None
    from rankscope.service.sources.policy import Policy
    from rankscope.service.web.docs import install_docs
    from rankscope.service.web.guard import Guard
    from rankscope.service.web.session import Sessions

    policy = Policy.make(data_roots, allowed_callables, allowed_urls)
    sessions = Sessions(token)

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        service.recover(
            recover,
            allowed_callables=policy.allowed_callables,
            allowed_urls=policy.allowed_urls,
        )
        yield
        service.shutdown()

    def answer(model: Any, text: str) -> dict[str, Any]:
        return {"model": model, "description": text}

    common: dict[int | str, dict[str, Any]] = {
        400: answer(models.ErrorOut, "The Host header names no host this server answers to"),
        403: answer(models.ErrorOut, "A request from a page of another origin"),
        413: answer(models.ErrorOut, "The request body is too large"),
        422: answer(models.ValidationErrorOut, "Invalid request"),
    }
    if token is not None:
        common[401] = answer(models.ErrorOut, "Missing or wrong bearer token")
    missing: dict[int | str, dict[str, Any]] = {404: answer(models.ErrorOut, "No task has this id")}
    conflict: dict[int | str, dict[str, Any]] = {
        409: answer(models.ErrorOut, "The task's status does not allow this")
    }

    app = FastAPI(
        title="rankscope evaluation service",
        version="1",
        description="Evaluate a live retriever on a dataset; every per-query result is kept.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        responses=common,
    )
    app.state.service = service
    app.state.policy = policy
    app.state.sessions = sessions
    app.add_middleware(
        Guard, sessions=sessions, allowed_hosts=allowed_hosts, max_body_bytes=max_body_bytes
    )

    @app.exception_handler(TaskNotFoundError)
    async def not_found(request: Request, error: TaskNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=404)

    @app.exception_handler(TaskStateError)
    async def conflicting(request: Request, error: TaskStateError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=409)

    @app.exception_handler(MissingDependencyError)
    async def unavailable(request: Request, error: MissingDependencyError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=501)

    @app.exception_handler(RankscopeError)
    async def invalid(request: Request, error: RankscopeError) -> JSONResponse:
        return JSONResponse({"detail": public_message(error)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, error: RequestValidationError) -> JSONResponse:
        # Where, what and why; never the input, which may be huge or not JSON (1e400).
        items = [
            {
                "loc": [part if isinstance(part, int) else str(part) for part in item["loc"]],
                "msg": str(item["msg"]),
                "type": str(item["type"]),
            }
            for item in error.errors()
        ]
        return JSONResponse({"detail": items}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        headers = dict(error.headers or {})
        if error.status_code == 405:
            # Starlette names the methods of the first route of the path; a path may have
            # several (GET and POST of the evaluations).
            headers["Allow"] = ", ".join(sorted(methods_of(request.url.path)))
        return JSONResponse(
            {"detail": str(error.detail)}, status_code=error.status_code, headers=headers
        )

    def methods_of(path: str) -> set[str]:
        methods: set[str] = set()
        for route in app.routes:
            pattern = getattr(route, "path_regex", None)
            if pattern is not None and pattern.match(path):
                methods |= set(getattr(route, "methods", None) or ()) - {"HEAD"}
        return methods

    def page(items: Sequence[dict[str, Any]], total: int, limit: int, offset: int) -> Any:
        return {"items": list(items), "total": total, "limit": limit, "offset": offset}

    @app.post(
        API_PREFIX,
        status_code=202,
        summary="Submit an evaluation and start it",
        response_model=models.TaskOut,
        responses={501: answer(models.ErrorOut, "A dependency of the retriever is missing")},
    )
    def submit(body: models.EvaluationIn) -> Any:
        return start_evaluation(service, policy, body).to_dict()

    @app.get(API_PREFIX, summary="List evaluations, newest first", response_model=models.TaskPage)
    def list_tasks(
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=models.MAX_OFFSET),
        status: Literal[STATUSES] | None = None,  # type: ignore[valid-type]
    ) -> Any:
        tasks, total = service.list_tasks(status=status, limit=limit, offset=offset)
        return page([task.to_dict() for task in tasks], total, limit, offset)

    @app.get(
        API_PREFIX + "/{task_id}",
        summary="Status, progress, metrics and latency",
        response_model=models.TaskOut,
        responses=missing,
    )
    def show(task_id: str) -> Any:
        return service.get(task_id).to_dict()

    @app.get(
        API_PREFIX + "/{task_id}/queries",
        summary="Per-query results (dataset order, or sorted), filtered, a page at a time",
        response_model=models.QueryPage,
        responses=missing,
    )
    def queries(
        task_id: str,
        limit: int = Query(100, ge=1, le=10_000),
        offset: int = Query(0, ge=0, le=models.MAX_OFFSET),
        status: Literal["succeeded", "failed"] | None = None,
        sort: str | None = Query(
            None,
            pattern=SORT_PATTERN,
            description="query_id, position, latency, attempts or a measure; '-' first for "
            "descending",
        ),
        search: str | None = Query(None, max_length=200, description="part of the query id"),
    ) -> Any:
        records, total = service.query_page(
            task_id, status=status, limit=limit, offset=offset, sort=sort, search=search
        )
        return page([record.to_dict() for record in records], total, limit, offset)

    @app.post(
        API_PREFIX + "/{task_id}/cancel",
        summary="Cancel a pending or running task",
        response_model=models.TaskOut,
        responses={**missing, **conflict},
    )
    def cancel(task_id: str) -> Any:
        return service.cancel(task_id).to_dict()

    @app.post(
        API_PREFIX + "/{task_id}/resume",
        status_code=202,
        summary="Resume a task",
        response_model=models.TaskOut,
        responses={**missing, **conflict},
    )
    def resume(task_id: str) -> Any:
        policy.check_resume(service.get(task_id))
        return service.resume_in_background(task_id).to_dict()

    @app.get(
        API_PREFIX + "/{task_id}/export",
        summary="Export: json, csv or a TREC run",
        responses={
            **missing,
            200: {
                "description": "The task's results",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/csv": {"schema": {"type": "string"}},
                    "text/plain": {"schema": {"type": "string"}},
                },
            },
        },
    )
    def export(
        task_id: str,
        format: Literal[EXPORT_FORMATS] = "json",  # type: ignore[valid-type]
    ) -> Response:
        text = service.export_text(task_id, format)
        media = {"json": "application/json", "csv": "text/csv", "trec": "text/plain"}[format]
        filename = f"rankscope-{task_id}.{ {'json': 'json', 'csv': 'csv', 'trec': 'run'}[format] }"
        return PlainTextResponse(
            text,
            media_type=media,
            headers={"Content-Disposition": f'inline; filename="{filename}"'},
        )

    install_docs(app)
    if console:
        from rankscope.service.web.routers.console import install_console

        install_console(app)
    return app


def start_evaluation(service: EvaluationService, policy: Any, body: Any) -> TaskInfo:
    """Submit and start the task a client asked for (an `EvaluationIn`), within ``policy``."""
    dataset = body.dataset if isinstance(body.dataset, str) else body.dataset.model_dump()
    retriever = _spec_of(body.retriever)
    info = service.submit(
        policy.dataset(dataset),
        policy.retriever(retriever),
        measures=body.measures,
        profile=body.profile,
        k=body.k,
        concurrency=body.concurrency,
        max_failures=body.max_failures,
        name=body.name,
        generator=None if body.generator is None else policy.generator(_spec_of(body.generator)),
        answer_measures=body.answer_measures,
    )
    service.start(info.id)
    return info


def _spec_of(given: Any) -> str | dict[str, Any]:
    """A retriever's or generator's specification as a client gave it: text, or the fields
    it set."""
    if isinstance(given, str):
        return given
    return {key: value for key, value in given.model_dump().items() if value is not None}


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (binding it needs no token).

    >>> [is_loopback(host) for host in ("127.0.0.1", "localhost", "::1", "0.0.0.0")]
    [True, True, True, False]
    """
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
