"""Judging tasks of the service: a judge grades pairs (a pool, or the holes of an evaluation
task: the unjudged documents of its top k), through the judging loop of `rankscope.judge`
(`submit_judging`, `run_judging`), every call and grade committed to the service's store as it
arrives, so a task killed with its process resumes with nothing asked twice.

`JudgingInfo` is such a task as the service reports it; `judging_source` finds the pairs and
texts of an evaluation task's holes; `reevaluated` scores an evaluation task's rankings again
with the judged qrels merged into its own.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, Qrels
from rankscope.service.tasks.info import JudgeTallies, _redacted

if TYPE_CHECKING:
    from rankscope.judge import JudgementAgreement
    from rankscope.service.store import QueryRecord
    from rankscope.service.tasks.spec import TaskSpec

__all__ = ["JudgingInfo", "judging_info", "reevaluated", "unjudged_pairs"]


@dataclass(frozen=True)
class JudgingInfo:
    """A judging task as the service reports it.

    Attributes
    ----------
    id, name, status
        ``status`` is one of pending, running, succeeded, failed, cancelled.
    total, graded, failed
        Its pairs (calibration pairs included); those judged with a grade; those whose
        judgement failed (never given a grade).
    failures, calls
        Failed pairs per kind of failure (`rankscope.judge.FAILURES`), and the calls made per
        outcome (retries included).
    prompt_tokens, completion_tokens, cost
        What the endpoint reported (0 where it reported nothing).
    judge
        The judge's specification (the API key's variable, never the key).
    concurrency
        Calls in flight at once.
    source
        ``{"evaluation": id, "depth": k}`` for the holes of an evaluation task, else None.
    agreement
        The judge's agreement with human judgements on the pairs both judge (the calibration
        pairs, and the source task's qrels), once some are judged; None otherwise.
    """

    id: str
    name: str | None
    status: str
    total: int
    graded: int
    failed: int
    failures: dict[str, int]
    calls: dict[str, int]
    prompt_tokens: int
    completion_tokens: int
    cost: float
    judge: dict[str, Any]
    concurrency: int
    source: dict[str, Any] | None
    error: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    updated_at: float
    active_seconds: float
    agreement: JudgementAgreement | None = field(default=None, compare=False)

    @property
    def pending(self) -> int:
        """Pairs without a stored judgement yet."""
        return self.total - self.graded - self.failed

    @property
    def done(self) -> bool:
        """Whether it has ended (succeeded, failed or cancelled)."""
        return self.status in ("succeeded", "failed", "cancelled")

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (the API's ``JudgingOut``)."""
        judged = self.graded + self.failed
        return {
            "id": self.id,
            "name": self.name,
            "status": self.status,
            "progress": {
                "total": self.total,
                "graded": self.graded,
                "failed": self.failed,
                "pending": self.pending,
                "fraction": judged / self.total if self.total else 1.0,
            },
            "failures": self.failures,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": self.cost,
            "judge": self.judge,
            "concurrency": self.concurrency,
            "source": self.source,
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
            "error": self.error,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "updated_at": self.updated_at,
            "active_seconds": self.active_seconds,
        }


def judging_info(row: Mapping[str, Any], agreement: JudgementAgreement | None) -> JudgingInfo:
    """The `JudgingInfo` of a judging task's row."""
    service = (row["spec"] or {}).get("service") or {}
    tallies = JudgeTallies.of(row["tallies"])
    judge = dict(service.get("judge") or row["spec"].get("judge") or {})
    return JudgingInfo(
        id=row["id"],
        name=row["name"],
        status=row["status"],
        total=int(row["total"]),
        graded=int(row["succeeded"]),
        failed=int(row["failed"]),
        failures=tallies.failures,
        calls=tallies.calls,
        prompt_tokens=tallies.prompt_tokens,
        completion_tokens=tallies.completion_tokens,
        cost=tallies.cost,
        judge=_redacted(judge),
        concurrency=int(service.get("concurrency", 4)),
        source=service.get("source"),
        error=row["error"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        updated_at=row["updated_at"],
        active_seconds=float(row["active_seconds"] or 0.0),
        agreement=agreement,
    )


def unjudged_pairs(qrels: Qrels, run: Any, depth: int) -> pl.DataFrame:
    """The holes of a run: ``query_id``, ``doc_id`` of the documents of its top ``depth`` that
    ``qrels`` does not judge, for the queries it judges (`rankscope.judge.holes`)."""
    from rankscope.judge import holes

    (found,) = holes(qrels, [run], [f"P@{depth}"], cutoffs=[depth])
    return found.unjudged.select(QUERY_ID, DOC_ID)


def merged_judgements(
    judgements: Mapping[str, Sequence[tuple[str, int]]], judged: pl.DataFrame
) -> dict[str, list[tuple[str, int]]]:
    """A task's judgements with a judge's grades added where the task has none."""
    merged = {query_id: list(docs) for query_id, docs in judgements.items()}
    known = {(q, d) for q, docs in judgements.items() for d, _ in docs}
    for query_id, doc_id, grade in judged.select(QUERY_ID, DOC_ID, RELEVANCE).iter_rows():
        if (query_id, doc_id) not in known:
            merged.setdefault(query_id, []).append((doc_id, int(grade)))
    return merged


def reevaluated(
    spec: TaskSpec,
    records: Sequence[QueryRecord],
    judgements: Mapping[str, Sequence[tuple[str, int]]],
    judged: pl.DataFrame,
) -> dict[str, Any]:
    """An evaluation task's measures over its succeeded queries, as its judgements stand and
    with the judge's grades merged in (``before``, ``after``), and the judgements added."""
    from rankscope.service.tasks.scoring import MeasureSet, QueryScorer

    measure_set = MeasureSet.resolve(spec.measures, spec.profile)
    merged = merged_judgements(judgements, judged)
    added = sum(len(docs) for docs in merged.values()) - sum(
        len(docs) for docs in judgements.values()
    )
    means: dict[str, dict[str, float | None]] = {}
    for label, used in (("before", judgements), ("after", merged)):
        scorer = QueryScorer(measure_set, used)
        values = [scorer.score(r.query_id, r.doc_ids, r.scores) for r in records]
        means[label] = {
            name: statistics.fmean(v[name] for v in values) if values else None
            for name in measure_set.names
        }
    return {"queries": len(records), "added": added, "measures": list(measure_set.names), **means}
