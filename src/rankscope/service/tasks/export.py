"""A task's results as files: JSON (the task and every query), CSV (a row per query), or a TREC
run of what the retriever returned. A task with a generator adds each question's answer, its
measure values and the reference answers (JSON: every field; CSV: columns after the others)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from typing import TextIO

from rankscope.service.store import QueryRecord
from rankscope.service.tasks.info import TaskInfo
from rankscope.service.tasks.scoring import effective_scores

__all__ = ["EXPORT_FORMATS", "write_export"]

EXPORT_FORMATS = ("json", "csv", "trec")


def write_export(
    info: TaskInfo, records: Sequence[QueryRecord], format: str, handle: TextIO
) -> None:
    """Write ``records`` of the task ``info`` in ``format`` (one of `EXPORT_FORMATS`)."""
    if format == "json":
        payload = {"task": info.to_dict(), "queries": [record.to_dict() for record in records]}
        json.dump(payload, handle, indent=1, allow_nan=False)
        handle.write("\n")
    elif format == "csv":
        _write_csv(info, records, handle)
    else:
        _write_trec(info, records, handle)


def _values(values: Mapping[str, float] | None, names: Sequence[str]) -> list[str]:
    return [repr(values[name]) if values and name in values else "" for name in names]


def _milliseconds(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1000:.3f}"


def _write_csv(info: TaskInfo, records: Sequence[QueryRecord], handle: TextIO) -> None:
    writer = csv.writer(handle, lineterminator="\n")
    answers = info.generator is not None
    answer_columns = [*info.answer_measures, "answer_latency_ms", "answer", "references"]
    writer.writerow(
        [
            "query_id",
            "position",
            "status",
            *info.measures,
            "latency_ms",
            "attempts",
            "retrieved",
            "error",
            *(answer_columns if answers else []),
        ]
    )
    for record in records:
        row = [
            record.query_id,
            record.position,
            record.status,
            *_values(record.metrics, info.measures),
            _milliseconds(record.latency),
            record.attempts,
            " ".join(record.doc_ids),
            record.error or "",
        ]
        if answers:
            row.extend(
                [
                    *_values(record.answer_metrics, info.answer_measures),
                    _milliseconds(record.answer_latency),
                    record.answer or "",
                    "\n".join(record.references or ()),
                ]
            )
        writer.writerow(row)


def _write_trec(info: TaskInfo, records: Sequence[QueryRecord], handle: TextIO) -> None:
    tag = "".join(ch if not ch.isspace() else "_" for ch in (info.name or f"rankscope-{info.id}"))
    for record in records:
        if record.status != "succeeded":
            continue
        scores = effective_scores(record.doc_ids, record.scores)
        for rank, (doc_id, score) in enumerate(zip(record.doc_ids, scores, strict=True), 1):
            handle.write(f"{record.query_id} Q0 {doc_id} {rank} {score!r} {tag}\n")
