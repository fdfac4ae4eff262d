"""The API's judging tasks: ``/api/v1/judgings`` and the routes below it, one `APIRouter`.

=======  =======================================  ==============================================
POST     /api/v1/judgings                         submit a judging task (a pool file, or the
                                                  holes of an evaluation task) and start it
                                                  -> 202 with the task
GET      /api/v1/judgings                         judging tasks, newest first (``limit``,
                                                  ``offset``, ``status``)
GET      /api/v1/judgings/{id}                    status, pairs graded / failed / pending,
                                                  calls, tokens, cost, agreement with humans
POST     /api/v1/judgings/{id}/cancel             cancel a pending or running judging task
POST     /api/v1/judgings/{id}/resume             resume it: nothing judged is asked again
GET      /api/v1/judgings/{id}/qrels              the judged qrels: ``format=trec|csv|jsonl``
                                                  (csv and jsonl with the ``source`` column),
                                                  ``merged`` with the evaluation task's own
GET      /api/v1/judgings/{id}/failures           the failed pairs: ``format=csv|jsonl``
GET      /api/v1/judgings/{id}/reevaluation       the evaluation task's measures before and
                                                  after its holes were judged
=======  =======================================  ==============================================

Every route shares the API's dependencies (`API_DEPENDENCIES`); the judge, its URL and the
files named are checked against the server's policy as retrievers and datasets are.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the endpoints at
# run time.
import io
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response

from rankscope.service.tasks.info import STATUSES
from rankscope.service.tasks.judging import JudgingInfo
from rankscope.service.tasks.service import EvaluationService
from rankscope.service.web import models
from rankscope.service.web.routers.evaluations import API_DEPENDENCIES

__all__ = ["FAILURE_COLUMNS", "JUDGING_PREFIX", "check_resume", "router", "start_judging"]

JUDGING_PREFIX = "/api/v1/judgings"
FAILURE_COLUMNS = ("query_id", "doc_id", "failure", "error", "answer", "attempts")
"""The columns of a judging task's failures, as `EvaluationService.judging_failures` gives them."""


def _answer(model: Any, text: str) -> dict[str, Any]:
    return {"model": model, "description": text}


_MISSING: dict[int | str, dict[str, Any]] = {
    404: _answer(models.ErrorOut, "No judging task has this id")
}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: _answer(models.ErrorOut, "The task's status does not allow this")
}

router = APIRouter(prefix=JUDGING_PREFIX, tags=["judgings"], dependencies=API_DEPENDENCIES)


def _service(request: Request) -> EvaluationService:
    service: EvaluationService = request.app.state.service
    return service


def start_judging(service: EvaluationService, policy: Any, body: Any) -> JudgingInfo:
    """Submit and start the judging task a client asked for (a `JudgingIn`), within
    ``policy``: the judge and its URL admitted by the allow-lists, the files inside the data
    roots."""
    given = body.judge if isinstance(body.judge, str) else body.judge.model_dump()
    judge = policy.judge(given if isinstance(given, str) else _set(given))

    def file(value: str | None) -> str | None:
        return None if value is None else policy.data_file(value)

    calibrate = body.calibrate if isinstance(body.calibrate, bool) else file(body.calibrate)
    info = service.submit_judging(
        judge,
        pairs=file(body.pairs),
        queries=file(body.queries),
        corpus=file(body.corpus),
        holes_of=None if body.holes_of is None else service.resolve(body.holes_of),
        depth=body.depth,
        prompt=body.prompt,
        concurrency=body.concurrency,
        calibrate=calibrate,
        calibration_sample=body.calibration_sample,
        seed=body.seed,
        name=body.name,
    )
    if not info.done and info.status != "running":
        service.start(info.id)
    return service.judging(info.id)


def _set(given: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in given.items() if value is not None}


@router.post(
    "",
    status_code=202,
    summary="Submit a judging task and start it",
    response_model=models.JudgingOut,
)
def submit(request: Request, body: models.JudgingIn) -> Any:
    return start_judging(_service(request), request.app.state.policy, body).to_dict()


@router.get("", summary="List judging tasks, newest first", response_model=models.JudgingPage)
def list_judgings(
    request: Request,
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=models.MAX_OFFSET),
    status: Literal[STATUSES] | None = None,  # type: ignore[valid-type]
) -> Any:
    tasks, total = _service(request).list_judgings(status=status, limit=limit, offset=offset)
    return {"items": [t.to_dict() for t in tasks], "total": total, "limit": limit, "offset": offset}


@router.get(
    "/{task_id}",
    summary="Status, pairs judged, calls, tokens, cost and agreement",
    response_model=models.JudgingOut,
    responses=_MISSING,
)
def show(request: Request, task_id: str) -> Any:
    return _service(request).judging(task_id).to_dict()


@router.post(
    "/{task_id}/cancel",
    summary="Cancel a pending or running judging task",
    response_model=models.JudgingOut,
    responses={**_MISSING, **_CONFLICT},
)
def cancel(request: Request, task_id: str) -> Any:
    return _service(request).cancel_judging(task_id).to_dict()


@router.post(
    "/{task_id}/resume",
    status_code=202,
    summary="Resume a judging task",
    response_model=models.JudgingOut,
    responses={**_MISSING, **_CONFLICT},
)
def resume(request: Request, task_id: str) -> Any:
    service = _service(request)
    check_resume(request.app.state.policy, service, task_id)
    return service.resume_judging_in_background(task_id).to_dict()


def check_resume(policy: Any, service: EvaluationService, task_id: str) -> None:
    """Refuse to resume a judging task whose judge the policy does not admit (or that a
    Python object given in another process judged)."""
    judge = service.judging(task_id).judge
    if judge.get("type") not in ("http", "callable"):
        from rankscope.errors import InputError

        raise InputError(f"judging task {task_id} has a Python judge; it cannot be resumed here")
    policy.judge({key: value for key, value in judge.items() if value is not None})


_TEXT: dict[int | str, dict[str, Any]] = {
    **_MISSING,
    200: {
        "description": "The rows",
        "content": {"text/csv": {"schema": {"type": "string"}}, "text/plain": {}},
    },
}


@router.get("/{task_id}/qrels", summary="The judged qrels", responses=_TEXT)
def qrels(
    request: Request,
    task_id: str,
    format: Literal["trec", "csv", "jsonl"] = "trec",
    merged: bool = Query(False, description="with the evaluation task's own judgements"),
) -> Response:
    frame = _service(request).judged_qrels(task_id, merged=merged)
    if format == "trec":
        from rankscope.io import Qrels
        from rankscope.io._trec import qrels_lines, write_lines
        from rankscope.judge._judging import SOURCE

        buffer = io.BytesIO()
        write_lines(qrels_lines(Qrels.from_frame(frame.drop(SOURCE)), f"judging {task_id}"), buffer)
        return _text(buffer.getvalue().decode("utf-8"), "text/plain", f"judged-{task_id}.qrels")
    return _table(frame, format, f"judged-{task_id}")


@router.get("/{task_id}/failures", summary="The pairs whose judgement failed", responses=_TEXT)
def failures(request: Request, task_id: str, format: Literal["csv", "jsonl"] = "csv") -> Response:
    import polars as pl

    rows = _service(request).judging_failures(task_id)
    schema = {name: pl.Int64 if name == "attempts" else pl.String for name in FAILURE_COLUMNS}
    frame = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    return _table(frame, format, f"failures-{task_id}")


@router.get(
    "/{task_id}/reevaluation",
    summary="The evaluation task's measures before and after its holes were judged",
    responses=_MISSING,
)
def reevaluation(request: Request, task_id: str) -> Any:
    return _service(request).reevaluation(task_id)


def _table(frame: Any, format: str, stem: str) -> Response:
    from rankscope.io._write import _write_table

    buffer = io.BytesIO()
    _write_table(frame, buffer, format)
    media = "application/x-ndjson" if format == "jsonl" else "text/csv"
    return _text(buffer.getvalue().decode("utf-8"), media, f"{stem}.{format}")


def _text(text: str, media: str, filename: str) -> Response:
    return PlainTextResponse(
        text, media_type=media, headers={"Content-Disposition": f'inline; filename="{filename}"'}
    )
