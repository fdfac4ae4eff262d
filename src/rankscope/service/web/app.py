"""The application of the evaluation service (FastAPI): it wires the routers, the guard and
the error answers, and holds the service and the server's settings in its state.

Routers (`rankscope.service.web.routers`): ``evaluations`` (the API at
``/api/v1/evaluations``), ``judgings`` (its judging tasks, at ``/api/v1/judgings``),
``console`` (the web console at ``/``), and the offline API
documentation at ``/docs`` beside the schema at ``/openapi.json``.

An unknown id answers 404; an invalid body, dataset, measure or retriever 422 with the reason;
an operation the task's status does not allow 409; a body over the limit 413; a Host header
the server does not answer to 400. With a token, every request must carry
``Authorization: Bearer <token>`` or a console session (401 otherwise). Tasks run in the
server's threads, so they go on when the client disconnects.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the endpoints at
# run time.
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from rankscope.errors import (
    MissingDependencyError,
    QueueFullError,
    RankscopeError,
    StoreFullError,
    StoreReadOnlyError,
    TaskNotFoundError,
    TaskStateError,
)
from rankscope.service.tasks.service import EvaluationService
from rankscope.service.web.dependencies import LOOPBACK_HOSTS
from rankscope.service.web.errors import public_message

__all__ = ["MAX_BODY_BYTES", "create_app", "is_loopback"]

MAX_BODY_BYTES = 1024 * 1024


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
    body_timeout: float = 30.0,
    console: bool = True,
) -> Any:
    """The FastAPI application serving ``service``: the API, ``/docs`` and the web console.

    Parameters
    ----------
    service
        The service whose tasks are served.
    token
        If given (16 characters at least), every request must carry ``Authorization: Bearer
        <token>`` or the cookie of a console session signed in with the token.
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
    body_timeout
        Seconds a request's body may take to arrive whole (408 after).
    console
        Serve the web console at ``/``.
    """
    try:
        from contextlib import asynccontextmanager

        from fastapi import FastAPI, Request, Response
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import JSONResponse
        from starlette.exceptions import HTTPException

        from rankscope.service.web import models
        from rankscope.service.web.routers import evaluations, judgings
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
        408: answer(models.ErrorOut, "The request body was too slow to arrive"),
        413: answer(models.ErrorOut, "The request body is too large"),
        422: answer(models.ValidationErrorOut, "Invalid request"),
        503: answer(models.ErrorOut, "The task store cannot be written (read-only)"),
        507: answer(models.ErrorOut, "The task store's disk is full"),
    }
    if token is not None:
        common[401] = answer(models.ErrorOut, "Missing or wrong bearer token")
        common[429] = answer(models.ErrorOut, "Too many wrong tokens: wait Retry-After seconds")

    app = FastAPI(
        title="rankscope evaluation service",
        version="1",
        description="Evaluate a live retriever on a dataset; every per-query result is kept.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        responses=common,
    )
    app.state.service = service
    app.state.policy = policy
    app.state.sessions = sessions
    app.state.allowed_hosts = tuple(host.lower() for host in allowed_hosts)
    app.add_middleware(Guard, max_body_bytes=max_body_bytes, body_timeout=body_timeout)

    @app.exception_handler(TaskNotFoundError)
    async def not_found(request: Request, error: TaskNotFoundError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=404)

    @app.exception_handler(TaskStateError)
    async def conflicting(request: Request, error: TaskStateError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=409)

    @app.exception_handler(QueueFullError)
    async def queue_full(request: Request, error: QueueFullError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=429, headers={"Retry-After": "5"})

    @app.exception_handler(StoreFullError)
    async def store_full(request: Request, error: StoreFullError) -> JSONResponse:
        # Where the store lies is the operator's to know (the server's log says it).
        detail = "the task store's disk is full: the server's operator must free space"
        return JSONResponse({"detail": detail}, status_code=507)

    @app.exception_handler(StoreReadOnlyError)
    async def store_read_only(request: Request, error: StoreReadOnlyError) -> JSONResponse:
        detail = "the task store cannot be written (it is read-only); try again later"
        return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": "30"})

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
        if error.status_code == 303:  # a console page asked for before signing in
            return Response(status_code=303, headers=headers)
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

    app.include_router(evaluations.router)
    app.include_router(judgings.router)
    install_docs(app)
    if console:
        from rankscope.service.web.routers.console import install_console

        install_console(app)
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
