"""Task summaries are kept up to date as results are recorded: reading a task reads its row
only, whatever the number of its results; latency percentiles are estimated within 2.2 % while
it runs and exact once it is done."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from rankscope.service import Dataset, EvaluationService, QueryRecord
from rankscope.service.store import Counters
from rankscope.service.store.sqlite import SQLiteStore
from rankscope.service.tasks.latency import exact_summary, histogram_summary


def _record_many(service: EvaluationService, n: int, seed: int = 0) -> tuple[str, list[float]]:
    queries = {f"q{i}": f"text {i}" for i in range(n)}
    data = Dataset.from_records(queries, {q: {"d": 1} for q in queries})
    task = service.submit(data, lambda text, k: ["d"])
    writer = service.store.writer(task.id, "test")
    rng = random.Random(seed)
    latencies = [rng.lognormvariate(-3.0, 1.0) for _ in range(n)]
    for position, (query_id, latency) in enumerate(zip(queries, latencies, strict=True)):
        metrics = dict.fromkeys(task.measures, position % 2 * 1.0)
        writer.record(
            QueryRecord(query_id, position, "succeeded", ("d",), None, latency, 1, metrics)
        )
    return task.id, latencies


def test_reading_a_task_never_reads_its_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task_id, latencies = _record_many(service, 2000)

        def refuse(*args: object, **kwargs: object) -> None:
            raise AssertionError("reading a task read its results")

        monkeypatch.setattr(service.store, "results", refuse)
        monkeypatch.setattr(service.store, "latencies", refuse)
        info = service.get(task_id)
        listed, _ = service.list_tasks()
    finally:
        monkeypatch.undo()
        service.close()
    assert info.succeeded == 2000 and listed[0].succeeded == 2000
    assert info.metrics["precision"] == pytest.approx(0.5)
    exact = exact_summary(latencies)
    assert info.latency_ms is not None and exact is not None
    assert info.latency_ms["mean"] == pytest.approx(exact["mean"])
    assert info.latency_ms["max"] == pytest.approx(exact["max"])
    for key in ("p50", "p90", "p95", "p99"):
        assert info.latency_ms[key] == pytest.approx(exact[key], rel=0.03)


def test_a_finished_task_reports_exact_percentiles(tmp_path: Path) -> None:
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(
            Dataset.from_records(
                {f"q{i}": f"t{i}" for i in range(40)}, {f"q{i}": {"d": 1} for i in range(40)}
            ),
            lambda text, k: ["d"],
        )
        info = service.run(task.id)
        latencies = service.store.latencies(task.id)
    finally:
        service.close()
    assert info.latency_ms == exact_summary(latencies)


def test_histogram_percentiles_are_within_their_bound() -> None:
    rng = np.random.default_rng(1)
    values = rng.lognormal(-4, 1.5, 5000)
    counters = Counters()
    for value in values:
        counters.count("succeeded", None, float(value), 1)
    estimate = histogram_summary(counters.latency_bins, counters.latency_sum, counters.latency_max)
    assert estimate is not None
    for percentile in (50, 90, 95, 99):
        # nearest rank, the definition the histogram follows
        exact = float(np.sort(values)[int(np.ceil(percentile / 100 * len(values))) - 1]) * 1000
        assert abs(estimate[f"p{percentile}"] / exact - 1) <= 0.022


def test_a_version_1_store_is_migrated_with_its_counters(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    service = EvaluationService(path)
    task_id, _ = _record_many(service, 50)
    before = service.get(task_id)
    service.close()
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE tasks DROP COLUMN latency_bins")
        db.execute("ALTER TABLE tasks DROP COLUMN latency_max")
        db.execute("UPDATE tasks SET succeeded = 0, failed = 0, sums = '{}', latency_sum = 0")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    SQLiteStore(path).close()
    service = EvaluationService(path)
    try:
        after = service.get(task_id)
    finally:
        service.close()
    assert after.succeeded == before.succeeded == 50
    assert after.metrics == pytest.approx(before.metrics)
    assert after.latency_ms == pytest.approx(before.latency_ms)
