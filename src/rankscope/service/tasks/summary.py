"""A finished task's summary: exact means and latency percentiles from its per-query values,
computed once, when the task ends, and kept in its row."""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

from rankscope.service.store import QueryRecord
from rankscope.service.tasks.latency import exact_summary
from rankscope.service.tasks.spec import TaskSpec

__all__ = ["mean", "summary"]


def mean(values: list[float]) -> float:
    """The mean as the core aggregates it: a plain sum in query order, then one division
    (NaN of no value); `rankscope.engine` has no public aggregate over bare values.

    >>> mean([0.5, 1.0, 0.0]), mean([])
    (0.5, nan)
    """
    return functools.reduce(operator.add, values, 0.0) / len(values) if values else math.nan


def summary(succeeded: list[QueryRecord], spec: TaskSpec) -> dict[str, Any]:
    """``{"metrics", "latency_ms", "answer_metrics"}`` of a task's succeeded queries, in
    query-id order as `rankscope.evaluate` takes them."""
    records = sorted(succeeded, key=lambda record: record.query_id)
    answered = [r.answer_metrics for r in records if r.answer_metrics is not None]
    latencies = [r.latency for r in records if r.latency is not None]
    return {
        "metrics": {
            name: mean([(r.metrics or {})[name] for r in records]) for name in spec.measures
        },
        "latency_ms": exact_summary(latencies),
        "answer_metrics": {
            name: mean([values[name] for values in answered]) for name in spec.answer_measures
        },
    }
