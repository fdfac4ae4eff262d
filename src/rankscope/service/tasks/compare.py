"""Tasks side by side: the statistics of `rankscope.compare` over their per-query values, and
the HTML report of `rankscope.compare_runs` (``rankscope compare --format html``) for the web
console."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rankscope.errors import InputError
from rankscope.service.tasks.info import TaskInfo

if TYPE_CHECKING:
    from rankscope.service.tasks.service import EvaluationService

__all__ = ["comparable", "compare_tasks", "comparison_html", "task_scores"]


def comparable(service: EvaluationService, task_ids: Sequence[str]) -> list[TaskInfo]:
    """The tasks, checked to share a dataset and a profile (the first is the baseline)."""
    if len(task_ids) < 2:
        raise InputError("compare needs at least two tasks: a baseline and a system")
    infos = [service.get(task_id) for task_id in task_ids]
    first = infos[0]
    for info in infos[1:]:
        if info.dataset.get("fingerprint") != first.dataset.get("fingerprint"):
            raise InputError(f"tasks {first.id} and {info.id} evaluated different datasets")
        if info.profile != first.profile:
            raise InputError(
                f"tasks {first.id} ({first.profile}) and {info.id} ({info.profile}) use "
                "different profiles"
            )
    return infos


def _labels(infos: Sequence[TaskInfo]) -> list[str]:
    labels = [info.name or info.id for info in infos]
    return labels if len(set(labels)) == len(labels) else [info.id for info in infos]


def _common_measures(infos: Sequence[TaskInfo]) -> list[str]:
    measures = [m for m in infos[0].measures if all(m in info.measures for info in infos)]
    if not measures:
        raise InputError("the tasks have no measure in common")
    return measures


def task_scores(
    service: EvaluationService, task_ids: Sequence[str]
) -> tuple[list[str], list[str], list[dict[str, Mapping[str, float]]]]:
    """A distinct label per task, the measures the tasks share, and per task
    ``{query_id: {measure: value}}`` of its succeeded queries."""
    infos = comparable(service, task_ids)
    per_task = [
        {r.query_id: r.metrics or {} for r in service.store.results(info.id, status="succeeded")}
        for info in infos
    ]
    return _labels(infos), _common_measures(infos), per_task


def compare_tasks(
    service: EvaluationService,
    task_ids: Sequence[str],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
) -> tuple[Any, int]:
    """The `Comparison` of the tasks over the queries every one scored, and how many queries
    were left out because some task did not score them."""
    from rankscope.compare import compare

    labels, measures, per_task = task_scores(service, task_ids)
    every = set().union(*per_task)
    common = sorted(set.intersection(*(set(values) for values in per_task)))
    if not common:
        raise InputError("no query succeeded in every task; nothing to compare")
    arrays = [
        {m: np.array([values[q][m] for q in common]) for m in measures} for values in per_task
    ]
    comparison = compare(
        arrays[0],
        dict(zip(labels[1:], arrays[1:], strict=True)),
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
    )
    return comparison, len(every) - len(common)


def comparison_html(
    service: EvaluationService, task_ids: Sequence[str], *, n_resamples: int = 10_000
) -> str:
    """The HTML report of `rankscope.compare_runs` (what ``rankscope compare --format html``
    writes) for the tasks' runs against their judgements; the first task is the baseline."""
    from rankscope import compare_runs
    from rankscope.service.tasks.scoring import MeasureSet

    infos = comparable(service, task_ids)
    names = _common_measures(infos)
    measure_set = MeasureSet.resolve(names, infos[0].profile)
    runs = {
        label: service.run_of(info.id) for label, info in zip(_labels(infos), infos, strict=True)
    }
    report = compare_runs(
        service.qrels(infos[0].id),
        runs,
        list(measure_set.measures),
        profile=infos[0].profile,
        n_resamples=n_resamples,
    )
    return str(report.to_html())
