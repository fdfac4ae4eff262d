"""`TaskInfo`: a task as the service reports it, read from its row in the store alone."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rankscope.service.store import Counters, json_safe
from rankscope.service.tasks.latency import histogram_summary
from rankscope.service.tasks.spec import TaskSpec

__all__ = ["ACTIVE", "STATUSES", "JudgeTallies", "TaskInfo", "task_info"]

STATUSES = ("pending", "running", "succeeded", "failed", "cancelled")
ACTIVE = ("pending", "running")


def _redacted(spec: Mapping[str, Any]) -> dict[str, Any]:
    shown = dict(spec)
    if isinstance(shown.get("headers"), Mapping):
        shown["headers"] = dict.fromkeys(shown["headers"], "***")
    return shown


@dataclass(frozen=True)
class JudgeTallies:
    """What a task's judge did, as the store tallies it in the task's row (``tallies``, in the
    transaction of each call or asking that changes it): for a judging task, of its pairs; for
    an evaluation task, of its judged answer measures.

    Attributes
    ----------
    asked, failed
        Askings of the judge of answers per judged measure (family), and those that gave no
        grade (empty for a judging task).
    failures
        Failed pairs, or askings, per kind of failure (`rankscope.judge.FAILURES`).
    calls
        Calls per outcome, retries included.
    prompt_tokens, completion_tokens, cost
        What the endpoint reported (0 where it reported nothing).

    >>> tallies = JudgeTallies.of({"asked": {"Faithfulness": 3}, "failed": {"Faithfulness": 1},
    ...                            "failures": {"no grade": 1}, "calls": {"ok": 4},
    ...                            "prompt_tokens": 900, "cost": 0.25})
    >>> tallies.askings, tallies.completion_tokens, tallies.to_dict()["failed"]
    (3, 0, {'Faithfulness': 1})
    """

    asked: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    @classmethod
    def of(cls, tallies: Mapping[str, Any] | None) -> JudgeTallies:
        """The tallies of a task's row (its ``tallies`` column, decoded)."""
        given = tallies or {}

        def counts(key: str) -> dict[str, int]:
            return {name: int(n) for name, n in sorted((given.get(key) or {}).items())}

        return cls(
            counts("asked"),
            counts("failed"),
            counts("failures"),
            counts("calls"),
            int(given.get("prompt_tokens", 0)),
            int(given.get("completion_tokens", 0)),
            float(given.get("cost", 0.0)),
        )

    @property
    def askings(self) -> int:
        """Askings of the judge of answers, over every measure."""
        return sum(self.asked.values())

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (the API's ``JudgeTalliesOut``)."""
        return {
            "askings": self.askings,
            "asked": self.asked,
            "failed": self.failed,
            "failures": self.failures,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class TaskInfo:
    """A task as the service reports it.

    Attributes
    ----------
    id, name, status
        ``status`` is one of pending, running, succeeded, failed, cancelled.
    total, succeeded, failed
        Questions in the task; recorded as succeeded; recorded as failed.
    metrics
        Mean of every measure over the succeeded queries: exact for a finished task (computed
        from the per-query values), a running mean while it runs.
    latency_ms
        Retriever latency over the succeeded queries, in milliseconds: mean, p50, p90, p95,
        p99, max. Exact for a finished task; while it runs, the percentiles come from a
        histogram of the latencies (within 2.2 %).
    queries_per_second
        Throughput: recorded queries per second of running time (all runs of the task).
    active_seconds
        Time the task has spent running, over every run.
    spec
        How it is evaluated (`TaskSpec`); ``profile``, ``measures``, ``k``, ``concurrency``,
        ``max_failures``, ``answer_measures`` and ``references`` are read from it.
    retriever, dataset
        Their descriptions (header values of an HTTP retriever hidden).
    error
        Why it failed or was cancelled, if it did.
    created_at, started_at, finished_at, updated_at
        Unix times.
    generator
        The generator's description (header values hidden), or None for a retrieval-only task.
    answer_metrics
        Mean of every answer measure over the questions whose answer was scored: exact for a
        finished task, a running mean while it runs.
    answered
        Succeeded questions whose answer was scored: those with a reference answer, and,
        with a judged measure that needs none (``Faithfulness``, ``AnswerRelevance``), those
        without one.
    answer_counts, answer_failed
        Per answer measure, the scored answers that have a value of it (for a computed
        measure, those with a reference answer; for a judged one, those the judge gave a
        grade), and those the judge failed to grade, left out of the mean.
    judge_tallies
        The askings of the judge of answers, its calls, tokens and cost (None without one).
    """

    id: str
    name: str | None
    status: str
    total: int
    succeeded: int
    failed: int
    metrics: dict[str, float]
    latency_ms: dict[str, float] | None
    queries_per_second: float | None
    active_seconds: float
    spec: TaskSpec
    retriever: dict[str, Any]
    dataset: dict[str, Any]
    error: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    updated_at: float
    generator: dict[str, Any] | None = None
    answer_metrics: dict[str, float] = field(default_factory=dict)
    answered: int = 0
    answer_counts: dict[str, int] = field(default_factory=dict)
    answer_failed: dict[str, int] = field(default_factory=dict)
    judge_tallies: JudgeTallies | None = None

    @property
    def profile(self) -> str:
        """The profile the task is scored under."""
        return self.spec.profile

    @property
    def measures(self) -> tuple[str, ...]:
        """The measures of its rankings."""
        return self.spec.measures

    @property
    def k(self) -> int:
        """Documents asked of the retriever per question."""
        return self.spec.k

    @property
    def concurrency(self) -> int:
        """Calls in flight at once."""
        return self.spec.concurrency

    @property
    def max_failures(self) -> int | None:
        """Failed queries beyond which the task fails (None: never)."""
        return self.spec.max_failures

    @property
    def answer_measures(self) -> tuple[str, ...]:
        """The measures of its answers (empty without a generator)."""
        return self.spec.answer_measures

    @property
    def references(self) -> int | None:
        """Questions of the task with a reference answer (None without a generator)."""
        return self.spec.references

    @property
    def finished(self) -> int:
        """Queries recorded, succeeded or failed."""
        return self.succeeded + self.failed

    @property
    def answer_note(self) -> str | None:
        """What a task with a generator cannot score, said plainly (None if nothing)."""
        if self.generator is None or self.references is None:
            return None
        if self.references == 0:
            return (
                "the dataset has no reference answers: the answers are stored, and no answer "
                "measure is computed"
            )
        if self.references < self.total:
            from rankscope.answers._judged import needs_reference
            from rankscope.service.tasks.scoring import AnswerMeasureSet

            measures = AnswerMeasureSet.resolve(self.answer_measures, self.profile).measures
            free = [m.name for m in measures if not needs_reference(m)]
            unreferenced = self.total - self.references
            if free:
                skipping = [m.name for m in measures if needs_reference(m)]
                return (
                    f"{unreferenced} of {self.total} questions have no reference answer: "
                    f"{', '.join(free)} judge their answers"
                    + (f", {', '.join(skipping)} need one and skip them" if skipping else "")
                )
            return (
                f"{unreferenced} of {self.total} questions have no reference answer: their "
                "answers are stored, not scored"
            )
        return None

    @property
    def done(self) -> bool:
        """Whether the task has stopped for good (succeeded, failed or cancelled)."""
        return self.status not in ACTIVE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (what the HTTP API returns); a mean of no query is None."""
        shown: dict[str, Any] = json_safe(
            {
                "id": self.id,
                "name": self.name,
                "status": self.status,
                "progress": {
                    "total": self.total,
                    "finished": self.finished,
                    "succeeded": self.succeeded,
                    "failed": self.failed,
                    "fraction": self.finished / self.total if self.total else 1.0,
                },
                "metrics": self.metrics,
                "latency_ms": self.latency_ms,
                "queries_per_second": self.queries_per_second,
                "active_seconds": self.active_seconds,
                "profile": self.profile,
                "measures": list(self.measures),
                "k": self.k,
                "concurrency": self.concurrency,
                "max_failures": self.max_failures,
                "retriever": self.retriever,
                "dataset": self.dataset,
                "error": self.error,
                "created_at": self.created_at,
                "started_at": self.started_at,
                "finished_at": self.finished_at,
                "updated_at": self.updated_at,
                "answers": None
                if self.generator is None
                else {
                    "generator": self.generator,
                    "measures": list(self.answer_measures),
                    "metrics": self.answer_metrics,
                    "scored": self.answered,
                    "counts": {
                        name: {
                            "scored": self.answer_counts.get(name, 0),
                            "failed": self.answer_failed.get(name, 0),
                        }
                        for name in self.answer_measures
                    },
                    "judge": None
                    if self.spec.answer_judge is None
                    else {
                        **self.spec.answer_judge,
                        "judge": _redacted(self.spec.answer_judge["judge"]),
                    },
                    "tallies": None if self.judge_tallies is None else self.judge_tallies.to_dict(),
                    "references": self.references,
                    "note": self.answer_note,
                },
            }
        )
        return shown


def task_info(row: Mapping[str, Any]) -> TaskInfo:
    """The `TaskInfo` of a task's row (`Store.task`): no result is read."""
    spec = TaskSpec.model_validate(row["spec"])
    summary = row["summary"]
    counters = Counters.from_row(row)
    names = spec.measures
    succeeded = counters.succeeded
    answer_names = spec.answer_measures
    if summary is not None:
        metrics = dict(summary["metrics"])
        latency = summary.get("latency_ms")
        answer_metrics = dict(summary.get("answer_metrics") or {})
    else:
        metrics = {
            name: counters.sums.get(name, 0.0) / succeeded if succeeded else math.nan
            for name in names
        }
        answer_metrics = {name: counters.answer_mean(name) for name in answer_names}
        latency = histogram_summary(
            counters.latency_bins, counters.latency_sum, counters.latency_max
        )
    finished = succeeded + counters.failed
    active = float(row["active_seconds"])
    if row["status"] == "running" and row["heartbeat"]:
        active += max(0.0, time.time() - row["heartbeat"])
    return TaskInfo(
        id=row["id"],
        name=row["name"],
        status=row["status"],
        total=row["total"],
        succeeded=succeeded,
        failed=counters.failed,
        metrics=metrics,
        latency_ms=latency,
        queries_per_second=finished / active if active > 0 and finished else None,
        active_seconds=active,
        spec=spec,
        retriever=_redacted(spec.retriever),
        dataset=row["dataset"],
        error=row["error"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        updated_at=row["updated_at"],
        generator=None if spec.generator is None else _redacted(spec.generator),
        answer_metrics={name: answer_metrics.get(name, math.nan) for name in answer_names},
        answered=counters.answered,
        answer_counts={name: counters.answer_counts.get(name, 0) for name in answer_names},
        answer_failed={name: counters.answer_failed.get(name, 0) for name in answer_names},
        judge_tallies=None if spec.answer_judge is None else JudgeTallies.of(row["tallies"]),
    )
