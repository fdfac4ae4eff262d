"""The API's evaluations: ``/api/v1/evaluations`` and the routes below it, one `APIRouter`.

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

Every route shares the router's dependencies (`API_DEPENDENCIES`: the Host, Origin and token
checks); the service and the server's policy come from the application's state.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the endpoints at
# run time.
from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response

from rankscope.errors import InputError, MissingDependencyError, RankscopeError, ServiceError
from rankscope.service.tasks.export import EXPORT_FORMATS
from rankscope.service.tasks.info import STATUSES, TaskInfo
from rankscope.service.tasks.scoring import AnswerMeasureSet, MeasureSet
from rankscope.service.tasks.service import EvaluationService
from rankscope.service.web import models
from rankscope.service.web.dependencies import api_caller, checked_host, same_origin
from rankscope.service.web.errors import public_message

__all__ = ["API_DEPENDENCIES", "API_PREFIX", "router", "start_evaluation"]

API_PREFIX = "/api/v1/evaluations"
SORT_PATTERN = r"^-?[^\x00-\x1f]{1,200}$"
API_DEPENDENCIES = [Depends(checked_host), Depends(same_origin), Depends(api_caller)]
"""What every API route (and the schema and its documentation) checks first."""


def _answer(model: Any, text: str) -> dict[str, Any]:
    return {"model": model, "description": text}


_MISSING: dict[int | str, dict[str, Any]] = {404: _answer(models.ErrorOut, "No task has this id")}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: _answer(models.ErrorOut, "The task's status does not allow this")
}

router = APIRouter(prefix=API_PREFIX, tags=["evaluations"], dependencies=API_DEPENDENCIES)


def _service(request: Request) -> EvaluationService:
    service: EvaluationService = request.app.state.service
    return service


def _page(items: list[dict[str, Any]], total: int, limit: int, offset: int) -> Any:
    return {"items": items, "total": total, "limit": limit, "offset": offset}


@router.post(
    "",
    status_code=202,
    summary="Submit an evaluation and start it",
    response_model=models.TaskOut,
    responses={501: _answer(models.ErrorOut, "A dependency of the retriever is missing")},
)
def submit(request: Request, body: models.EvaluationIn) -> Any:
    return start_evaluation(_service(request), request.app.state.policy, body).to_dict()


@router.get("", summary="List evaluations, newest first", response_model=models.TaskPage)
def list_tasks(
    request: Request,
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=models.MAX_OFFSET),
    status: Literal[STATUSES] | None = None,  # type: ignore[valid-type]
) -> Any:
    tasks, total = _service(request).list_tasks(status=status, limit=limit, offset=offset)
    return _page([task.to_dict() for task in tasks], total, limit, offset)


@router.get(
    "/{task_id}",
    summary="Status, progress, metrics and latency",
    response_model=models.TaskOut,
    responses=_MISSING,
)
def show(request: Request, task_id: str) -> Any:
    return _service(request).get(task_id).to_dict()


@router.get(
    "/{task_id}/queries",
    summary="Per-query results (dataset order, or sorted), filtered, a page at a time",
    response_model=models.QueryPage,
    responses=_MISSING,
)
def queries(
    request: Request,
    task_id: str,
    limit: int = Query(100, ge=1, le=10_000),
    offset: int = Query(0, ge=0, le=models.MAX_OFFSET),
    status: Literal["succeeded", "failed"] | None = None,
    sort: str | None = Query(
        None,
        pattern=SORT_PATTERN,
        description="query_id, position, latency, attempts or a measure; '-' first for descending",
    ),
    search: str | None = Query(None, max_length=200, description="part of the query id"),
) -> Any:
    records, total = _service(request).query_page(
        task_id, status=status, limit=limit, offset=offset, sort=sort, search=search
    )
    return _page([record.to_dict() for record in records], total, limit, offset)


@router.post(
    "/{task_id}/cancel",
    summary="Cancel a pending or running task",
    response_model=models.TaskOut,
    responses={**_MISSING, **_CONFLICT},
)
def cancel(request: Request, task_id: str) -> Any:
    return _service(request).cancel(task_id).to_dict()


@router.post(
    "/{task_id}/resume",
    status_code=202,
    summary="Resume a task",
    response_model=models.TaskOut,
    responses={**_MISSING, **_CONFLICT},
)
def resume(request: Request, task_id: str) -> Any:
    service = _service(request)
    request.app.state.policy.check_resume(service.get(task_id))
    return service.resume_in_background(task_id).to_dict()


@router.get(
    "/{task_id}/export",
    summary="Export: json, csv or a TREC run",
    responses={
        **_MISSING,
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
    request: Request,
    task_id: str,
    format: Literal[EXPORT_FORMATS] = "json",  # type: ignore[valid-type]
) -> Response:
    text = _service(request).export_text(task_id, format)
    media = {"json": "application/json", "csv": "text/csv", "trec": "text/plain"}[format]
    filename = f"rankscope-{task_id}.{ {'json': 'json', 'csv': 'csv', 'trec': 'run'}[format] }"
    return PlainTextResponse(
        text,
        media_type=media,
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


def start_evaluation(service: EvaluationService, policy: Any, body: Any) -> TaskInfo:
    """Submit and start the task a client asked for (an `EvaluationIn`), within ``policy``.

    The dataset, the retriever, the generator and the measures are checked each on its own,
    so that a request with several mistakes hears of them all (one `InputError` naming each).
    """
    problems: list[RankscopeError] = []

    def checked(step: Callable[[], Any]) -> Any:
        try:
            return step()
        except RankscopeError as error:
            if isinstance(error, MissingDependencyError | ServiceError):
                raise
            problems.append(error)
            return None

    dataset = body.dataset if isinstance(body.dataset, str) else body.dataset.model_dump()
    data = checked(lambda: policy.dataset(dataset))
    retriever = checked(lambda: policy.retriever(_spec_of(body.retriever)))
    generator = (
        None
        if body.generator is None
        else checked(lambda: policy.generator(_spec_of(body.generator)))
    )
    answer_judge: dict[str, Any] | None = None
    if body.answer_judge is not None:
        given = body.answer_judge.judge
        answer_judge = {
            **body.answer_judge.model_dump(exclude_none=True),
            "judge": checked(lambda: policy.judge(_spec_of(given))),
        }
    checked(lambda: MeasureSet.resolve(body.measures, body.profile))
    if body.answer_measures is not None:
        checked(lambda: AnswerMeasureSet.resolve(body.answer_measures, body.profile))
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputError("; ".join(public_message(problem) for problem in problems))
    info = service.submit(
        data,
        retriever,
        measures=body.measures,
        profile=body.profile,
        k=body.k,
        concurrency=body.concurrency,
        max_failures=body.max_failures,
        name=body.name,
        generator=generator,
        answer_measures=body.answer_measures,
        answer_judge=answer_judge,
    )
    service.start(info.id)
    return info


def _spec_of(given: Any) -> str | dict[str, Any]:
    """A retriever's or generator's specification as a client gave it: text, or the fields
    it set."""
    if isinstance(given, str):
        return given
    return {key: value for key, value in given.model_dump().items() if value is not None}
