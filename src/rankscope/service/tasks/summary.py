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
    """``{"metrics", "latency_ms", "answer_metrics", "answer_counts"}`` of a task's
    succeeded queries, in query-id order as `rankscope.evaluate` takes them.

    An answer measure's mean is over the answers that have a value of it: a judged measure of
    an answer the judge gave no grade (NaN) is left out, and ``answer_counts`` says how many
    answers each mean is over.
    """
    records = sorted(succeeded, key=lambda record: record.query_id)
    answered = [r.answer_metrics for r in records if r.answer_metrics is not None]
    latencies = [r.latency for r in records if r.latency is not None]
    valued = {
        name: [v for values in answered if math.isfinite(v := values.get(name, math.nan))]
        for name in spec.answer_measures
    }
    return {
        "metrics": {
            name: mean([(r.metrics or {})[name] for r in records]) for name in spec.measures
        },
        "latency_ms": exact_summary(latencies),
        "answer_metrics": {name: mean(values) for name, values in valued.items()},
        "answer_counts": {name: len(values) for name, values in valued.items()},
    }
