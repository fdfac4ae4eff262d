"""Tasks side by side: the statistics of `rankscope.compare` over their per-query values (each
task against the first, against several baselines, or every pair; the paired tests and the
Tukey tests), and the HTML report of `rankscope.compare_runs` (``rankscope compare --format
html``) for the web console."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rankscope.errors import InputError
from rankscope.service.tasks.info import TaskInfo

if TYPE_CHECKING:
    from rankscope.compare import ComparisonReport
    from rankscope.service.tasks.service import EvaluationService

__all__ = ["comparable", "compare_tasks", "comparison_html", "task_labels", "task_scores"]


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


def task_labels(infos: Sequence[TaskInfo]) -> list[str]:
    """A distinct label per task: its name, or every task's id where two names are equal."""
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
    return task_labels(infos), _common_measures(infos), per_task


def compare_tasks(
    service: EvaluationService,
    task_ids: Sequence[str],
    *,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    pairs: str | Sequence[tuple[str, str]] = "baseline",
    baselines: Sequence[str] | None = None,
    command: str | None = None,
) -> tuple[ComparisonReport, int]:
    """The comparison of the tasks over the queries every one scored (the first is the
    baseline), with the tests of `rankscope.compare.compare_aligned`, and how many queries were
    left out because some task did not score them.

    ``pairs`` and ``baselines`` name tasks by their labels (a task's name, else its id) or
    their ids. ``command`` is recorded in the report's provenance.
    """
    from rankscope.compare import align_values, compare_aligned
    from rankscope.engine.provenance import Provenance

    labels, measures, per_task = task_scores(service, task_ids)
    infos = [service.get(task_id) for task_id in task_ids]
    ids = [info.id for info in infos]
    every = set().union(*per_task)
    common = set.intersection(*(set(values) for values in per_task))
    if not common:
        raise InputError("no query succeeded in every task; nothing to compare")

    def label(task: str) -> str:
        return labels[ids.index(task)] if task in ids and task not in labels else task

    chosen_pairs: str | list[tuple[str, str]] = (
        pairs if isinstance(pairs, str) else [(label(a), label(b)) for a, b in pairs]
    )
    provenance = Provenance.now(
        qrels=str(infos[0].dataset.get("path") or infos[0].dataset.get("name") or "the dataset"),
        runs=[(name, f"task {info.id}") for name, info in zip(labels, infos, strict=True)],
        profile=infos[0].profile,
        measures=measures,
        command=command or f"EvaluationService.compare({ids!r})",
    )
    report = compare_aligned(
        align_values(labels, measures, per_task),
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
        provenance=provenance,
        pairs=chosen_pairs,
        baselines=None if baselines is None else [label(task) for task in baselines],
    )
    return report, len(every) - len(common)


def comparison_html(
    service: EvaluationService,
    task_ids: Sequence[str],
    *,
    test: str = "t",
    pairs: str = "baseline",
    n_resamples: int = 10_000,
) -> str:
    """The HTML report of `rankscope.compare_runs` (what ``rankscope compare --format html``
    writes) for the tasks' runs against their judgements: the first task is the baseline
    (``pairs="baseline"``), or every pair is compared (``"all"``), with ``test``."""
    from rankscope import compare_runs
    from rankscope.service.tasks.scoring import MeasureSet

    infos = comparable(service, task_ids)
    names = _common_measures(infos)
    measure_set = MeasureSet.resolve(names, infos[0].profile)
    labels = task_labels(infos)
    runs = {label: service.run_of(info.id) for label, info in zip(labels, infos, strict=True)}
    report = compare_runs(
        service.qrels(infos[0].id),
        runs,
        list(measure_set.measures),
        profile=infos[0].profile,
        test=test,
        pairs=pairs,
        n_resamples=n_resamples,
    )
    return str(report.to_html())
