"""What the store keeps of a task's results: each finished query (`QueryRecord`) and the task's
running totals (`Counters`), and their JSON forms."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rankscope.service.tasks.latency import add_latency

__all__ = [
    "MAX_SHOWN_DEPTH",
    "Counters",
    "QueryRecord",
    "decoded",
    "json_safe",
    "record_from_row",
]


@dataclass
class Counters:
    """A task's running totals, kept in its row of ``tasks``.

    Attributes
    ----------
    succeeded, failed
        Queries recorded with each status.
    sums
        The sum of every measure over the succeeded queries.
    latency_sum, latency_bins, latency_max
        Sum, histogram (see `rankscope.service.tasks.latency`) and largest of the latencies
        (seconds) of the succeeded queries.
    answered, answer_sums, answer_counts, answer_failed
        Succeeded queries whose answer was scored (by every measure when it has a reference
        answer; without one, by the judged measures that need none), the sum of every answer
        measure over them, how many of them have a value of each measure, and how many the
        judge gave no grade of each judged measure (NaN: left out of the sum and counted
        apart, never in the mean). A measure that needs a reference answer and an answer
        without one do not meet: neither a value nor a failure.
    """

    succeeded: int = 0
    failed: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    latency_sum: float = 0.0
    latency_bins: dict[str, int] = field(default_factory=dict)
    latency_max: float | None = None
    answered: int = 0
    answer_sums: dict[str, float] = field(default_factory=dict)
    answer_counts: dict[str, int] = field(default_factory=dict)
    answer_failed: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Counters:
        """The counters of a task row (JSON columns decoded or not)."""

        def decoded(value: Any) -> Any:
            return json.loads(value) if isinstance(value, str) else dict(value or {})

        return cls(
            int(row["succeeded"]),
            int(row["failed"]),
            decoded(row["sums"]),
            float(row["latency_sum"]),
            decoded(row["latency_bins"]),
            row["latency_max"],
            int(row["answered"]),
            decoded(row["answer_sums"]),
            decoded(row["answer_counts"]),
            decoded(row["answer_failed"]),
        )

    def count(
        self,
        status: str,
        metrics: Mapping[str, float] | None,
        latency: float | None,
        sign: int,
        answer_metrics: Mapping[str, float] | None = None,
    ) -> None:
        """Add (``sign=1``) or take away (``-1``) one recorded query."""
        if status != "succeeded":
            self.failed += sign
            return
        self.succeeded += sign
        for name, value in (metrics or {}).items():
            self.sums[name] = self.sums.get(name, 0.0) + sign * value
        if answer_metrics is not None:
            self.answered += sign
            for name, value in answer_metrics.items():
                if value is None or not math.isfinite(value):
                    self.answer_counts.setdefault(name, 0)
                    self.answer_failed[name] = self.answer_failed.get(name, 0) + sign
                    continue
                self.answer_sums[name] = self.answer_sums.get(name, 0.0) + sign * value
                self.answer_counts[name] = self.answer_counts.get(name, 0) + sign
        if latency is not None:
            self.latency_sum += sign * latency
            add_latency(self.latency_bins, latency, sign)
            if sign > 0:
                self.latency_max = max(latency, self.latency_max or 0.0)

    def columns(self) -> dict[str, Any]:
        """The values of the counter columns, for `Store.update_task`."""
        return {
            "succeeded": self.succeeded,
            "failed": self.failed,
            "sums": self.sums,
            "latency_sum": self.latency_sum,
            "latency_bins": self.latency_bins,
            "latency_max": self.latency_max,
            "answered": self.answered,
            "answer_sums": self.answer_sums,
            "answer_counts": self.answer_counts,
            "answer_failed": self.answer_failed,
        }

    def answer_mean(self, name: str) -> float:
        """The running mean of an answer measure over the answers with a value of it (NaN
        of none).

        >>> counters = Counters()
        >>> for value in (1.0, float("nan"), 0.5):
        ...     counters.count("succeeded", {}, None, 1, {"Faithfulness": value})
        >>> counters.answer_mean("Faithfulness"), counters.answer_failed["Faithfulness"]
        (0.75, 1)
        """
        count = self.answer_counts.get(name, 0)
        return self.answer_sums.get(name, 0.0) / count if count else math.nan


MAX_SHOWN_DEPTH = 32
"""Levels of nesting a value is shown to (deeper ones as ``"…"``): a stored specification,
however deep, never breaks a listing."""


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` with NaN and infinities (which JSON cannot carry) replaced by None, and
    anything nested deeper than `MAX_SHOWN_DEPTH` levels by ``"…"``.

    >>> json_safe({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict | list) and depth >= MAX_SHOWN_DEPTH:
        return "…"
    if isinstance(value, dict):
        return {key: json_safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item, depth + 1) for item in value]
    return value


@dataclass(frozen=True)
class QueryRecord:
    """One finished query, as stored.

    Attributes
    ----------
    query_id, position
        The query and its place in the dataset (0-based).
    status
        ``"succeeded"`` or ``"failed"``.
    doc_ids, scores
        What the retriever returned (scores None when it gave none).
    latency
        Seconds of the retriever call (None if it never answered).
    attempts
        Calls made, retries included.
    metrics
        ``{measure: value}`` of a succeeded query; None for a failed one.
    error
        Why a failed query failed.
    finished_at
        Unix time it was recorded.
    answer
        The generator's answer (None without a generator, or if it was never asked).
    answer_metrics
        ``{answer measure: value}`` of the answer; None if it was not scored (no reference
        answer, no generator, a failed query).
    answer_latency
        Seconds of the generator call.
    references
        The question's reference answers, as the task keeps them (read, never written, with
        the record); None if it has none.
    """

    query_id: str
    position: int
    status: str
    doc_ids: tuple[str, ...] = ()
    scores: tuple[float, ...] | None = None
    latency: float | None = None
    attempts: int = 1
    metrics: Mapping[str, float] | None = None
    error: str | None = None
    finished_at: float = 0.0
    answer: str | None = None
    answer_metrics: Mapping[str, float] | None = None
    answer_latency: float | None = None
    references: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (a value that is not finite as None)."""
        shown: dict[str, Any] = json_safe(
            {
                "query_id": self.query_id,
                "position": self.position,
                "status": self.status,
                "doc_ids": list(self.doc_ids),
                "scores": None if self.scores is None else list(self.scores),
                "latency": self.latency,
                "attempts": self.attempts,
                "metrics": None if self.metrics is None else dict(self.metrics),
                "error": self.error,
                "finished_at": self.finished_at,
                "answer": self.answer,
                "answer_metrics": None
                if self.answer_metrics is None
                else dict(self.answer_metrics),
                "answer_latency": self.answer_latency,
                "references": None if self.references is None else list(self.references),
            }
        )
        return shown


def decoded(value: str | None) -> Any:
    """A JSON column's value (None stays None)."""
    return None if value is None else json.loads(value)


def record_from_row(row: Mapping[str, Any]) -> QueryRecord:
    """The `QueryRecord` of a row of ``results`` (with its question's reference answers)."""
    scores = row["scores"]
    metrics = row["metrics"]
    references = decoded(row["reference_answers"])
    return QueryRecord(
        query_id=row["query_id"],
        position=row["position"],
        status=row["status"],
        doc_ids=tuple(json.loads(row["doc_ids"])),
        scores=None if scores is None else tuple(json.loads(scores)),
        latency=row["latency"],
        attempts=row["attempts"],
        metrics=None if metrics is None else json.loads(metrics),
        error=row["error"],
        finished_at=row["finished_at"],
        answer=row["answer"],
        answer_metrics=decoded(row["answer_metrics"]),
        answer_latency=row["answer_latency"],
        references=None if references is None else tuple(references),
    )
