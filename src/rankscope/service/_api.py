"""The HTTP API of the evaluation service (FastAPI), a thin shell over `EvaluationService`.

=======  =======================================  ==============================================
POST     /api/v1/evaluations                      submit a task and start it -> 202 with the task
GET      /api/v1/evaluations                      tasks, newest first (``limit``, ``offset``,
                                                  ``status``)
GET      /api/v1/evaluations/{id}                 status, progress, metrics, latency percentiles
GET      /api/v1/evaluations/{id}/queries         per-query results (``limit``, ``offset``,
                                                  ``status``)
POST     /api/v1/evaluations/{id}/cancel          cancel a pending or running task
POST     /api/v1/evaluations/{id}/resume          resume a failed, cancelled or interrupted task
GET      /api/v1/evaluations/{id}/export          ``format=json|csv|trec``
=======  =======================================  ==============================================

An unknown id answers 404; an invalid body, dataset, measure or retriever 422 with the reason;
an operation the task's status does not allow 409. With a token, every request must carry
``Authorization: Bearer <token>`` (401 otherwise). Tasks run in the server's threads, so they go
on when the client disconnects.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the endpoints,
# whose models are local to create_app, at run time.
import hmac
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from rankscope.errors import MissingDependencyError, RankscopeError
from rankscope.service._errors import TaskNotFoundError, TaskStateError
from rankscope.service._retrievers import check_allowed, parse_retriever_spec
from rankscope.service._service import EXPORT_FORMATS, STATUSES, EvaluationService

__all__ = ["create_app"]

API_PREFIX = "/api/v1/evaluations"


def create_app(
    service: EvaluationService,
    *,
    token: str | None = None,
    recover: Literal["resume", "fail", "leave"] = "resume",
    allowed_callables: Sequence[str] = (),
) -> Any:
    """The FastAPI application serving ``service``.

    Parameters
    ----------
    service
        The service whose tasks are served.
    token
        If given, every request must carry ``Authorization: Bearer <token>``.
    recover
        What to do at start-up with tasks a previous server left pending or running:
        ``resume`` them, mark them ``fail``-ed, or ``leave`` them.
    allowed_callables
        Patterns (``fnmatch``) of the ``module:function`` retrievers a client may name, and a
        task may be resumed with. Empty (the default) refuses them all: importing a module
        runs its code.
    """
    allowed = tuple(allowed_callables)
    try:
        from contextlib import asynccontextmanager

        from fastapi import FastAPI, Query, Request, Response
        from fastapi.responses import JSONResponse, PlainTextResponse
        from pydantic import BaseModel, ConfigDict, Field
    except ImportError as error:
        raise MissingDependencyError(
            str(error.name or "fastapi"), "the HTTP API", "service"
        ) from None

    class DatasetIn(BaseModel):
        """A dataset directory (WeKnora or BEIR layout), or queries and qrels files."""

        model_config = ConfigDict(extra="forbid")
        path: str | None = Field(None, description="WeKnora or BEIR dataset directory")
        split: str | None = Field(None, description="BEIR split (default: test)")
        queries: str | None = Field(None, description="queries file, instead of path")
        qrels: str | None = Field(None, description="qrels file, instead of path")
        corpus: str | None = Field(None, description="corpus file (for the BM25 baseline)")
        name: str | None = None

    class RetrieverIn(BaseModel):
        """A retriever specification: bm25, a callable, or an HTTP endpoint."""

        model_config = ConfigDict(extra="forbid")
        type: Literal["bm25", "callable", "http"]
        target: str | None = Field(None, description="module:function, for type callable")
        url: str | None = Field(None, description="endpoint, for type http")
        method: Literal["GET", "POST"] | None = None
        body: Any = Field(None, description="JSON request template with {query}, {k}, {query_id}")
        headers: dict[str, str] | None = None
        results_path: str | None = None
        id_field: str | None = None
        score_field: str | None = None
        timeout: float | None = Field(None, gt=0)
        retries: int | None = Field(None, ge=0, le=100)
        backoff: float | None = Field(None, ge=0)
        k1: float | None = None
        b: float | None = None

    class EvaluationIn(BaseModel):
        """A task to run."""

        model_config = ConfigDict(extra="forbid")
        dataset: str | DatasetIn = Field(description="a dataset directory, or its description")
        retriever: str | RetrieverIn = Field(
            description="'bm25', 'module:function', an http(s):// URL, or a specification"
        )
        measures: list[str] | None = Field(
            None, description="WeKnora fields under weknora; rankscope measures under trec"
        )
        profile: Literal["weknora", "trec", "trec9"] = "weknora"
        k: int | None = Field(None, ge=1, le=100_000, description="documents per question")
        concurrency: int = Field(4, ge=1, le=256)
        max_failures: int | None = Field(None, ge=0)
        name: str | None = Field(None, max_length=200)

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        service.recover(recover, allowed_callables=allowed)
        yield
        service.shutdown()

    app = FastAPI(
        title="rankscope evaluation service",
        version="1",
        description="Evaluate a live retriever on a dataset; every per-query result is kept.",
        lifespan=lifespan,
    )

    if token is not None:
        expected = f"Bearer {token}".encode()

        @app.middleware("http")
        async def bearer(
            request: Request, call_next: Callable[[Request], Awaitable[Response]]
        ) -> Response:
            given = request.headers.get("authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return JSONResponse(
                    {"detail": "missing or wrong bearer token"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
            return await call_next(request)

    @app.exception_handler(TaskNotFoundError)
    async def not_found(request: Request, error: TaskNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=404)

    @app.exception_handler(TaskStateError)
    async def conflict(request: Request, error: TaskStateError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=409)

    @app.exception_handler(MissingDependencyError)
    async def missing(request: Request, error: MissingDependencyError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=501)

    @app.exception_handler(RankscopeError)
    async def invalid(request: Request, error: RankscopeError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=422)

    def page(
        items: Sequence[dict[str, Any]], total: int, limit: int, offset: int
    ) -> dict[str, Any]:
        return {"items": list(items), "total": total, "limit": limit, "offset": offset}

    @app.post(API_PREFIX, status_code=202, summary="Submit an evaluation and start it")
    def submit(body: EvaluationIn) -> dict[str, Any]:
        dataset: Any = body.dataset if isinstance(body.dataset, str) else body.dataset.model_dump()
        retriever: Any = (
            body.retriever
            if isinstance(body.retriever, str)
            else {k: v for k, v in body.retriever.model_dump().items() if v is not None}
        )
        if isinstance(retriever, str | dict):
            check_allowed(parse_retriever_spec(retriever), allowed)
        info = service.submit(
            dataset,
            retriever,
            measures=body.measures,
            profile=body.profile,
            k=body.k,
            concurrency=body.concurrency,
            max_failures=body.max_failures,
            name=body.name,
        )
        service.start(info.id)
        return info.to_dict()

    @app.get(API_PREFIX, summary="List evaluations, newest first")
    def list_tasks(
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0),
        status: Literal[STATUSES] | None = None,  # type: ignore[valid-type]
    ) -> dict[str, Any]:
        tasks, total = service.list_tasks(status=status, limit=limit, offset=offset)
        return page([task.to_dict() for task in tasks], total, limit, offset)

    @app.get(API_PREFIX + "/{task_id}", summary="Status, progress, metrics and latency")
    def show(task_id: str) -> dict[str, Any]:
        return service.get(task_id).to_dict()

    @app.get(API_PREFIX + "/{task_id}/queries", summary="Per-query results, in dataset order")
    def queries(
        task_id: str,
        limit: int = Query(100, ge=1, le=10_000),
        offset: int = Query(0, ge=0),
        status: Literal["succeeded", "failed"] | None = None,
    ) -> dict[str, Any]:
        records = service.query_results(task_id, status=status, limit=limit, offset=offset)
        total = service.store.count_results(task_id, status)
        return page([record.to_dict() for record in records], total, limit, offset)

    @app.post(API_PREFIX + "/{task_id}/cancel", summary="Cancel a pending or running task")
    def cancel(task_id: str) -> dict[str, Any]:
        return service.cancel(task_id).to_dict()

    @app.post(API_PREFIX + "/{task_id}/resume", status_code=202, summary="Resume a task")
    def resume(task_id: str) -> dict[str, Any]:
        check_allowed(service.get(task_id).retriever, allowed)
        return service.resume_in_background(task_id).to_dict()

    @app.get(API_PREFIX + "/{task_id}/export", summary="Export: json, csv or a TREC run")
    def export(
        task_id: str,
        format: Literal[EXPORT_FORMATS] = "json",  # type: ignore[valid-type]
    ) -> Response:
        text = service.export_text(task_id, format)
        media = {"json": "application/json", "csv": "text/csv", "trec": "text/plain"}[format]
        return PlainTextResponse(text, media_type=media)

    return app


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
