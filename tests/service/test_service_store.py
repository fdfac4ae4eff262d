"""The store's one interface on both back-ends (a SQLite file, a PostgreSQL server): the same
calls give the same answers, workers never take a task twice, and counters stay exact under
concurrent writers."""

from __future__ import annotations

import math
import threading
from collections import Counter

import pytest

from rankscope.errors import TaskNotFoundError
from rankscope.service import Dataset, EvaluationService, QueryRecord
from rankscope.service.store import open_store


def _submit(service: EvaluationService, n: int = 6) -> str:
    queries = {f"q{i}": f"text {i}" for i in range(n)}
    judgements = {f"q{i}": {"d1": 1} for i in range(n)}
    return service.submit(Dataset.from_records(queries, judgements), lambda t, k: ["d1"]).id


def test_opening_a_store_twice_keeps_its_tasks(store_location: str) -> None:
    service = EvaluationService(store_location)
    task_id = _submit(service)
    service.close()
    again = open_store(store_location)
    try:
        assert again.task(task_id)["status"] == "pending"
        assert again.resolve(task_id[:6]) == task_id
        with pytest.raises(TaskNotFoundError, match="no task with id 'zzz'"):
            again.resolve("zzz")
        assert again.list_tasks()[1] == 1
    finally:
        again.close()


def test_sorting_searching_and_paging_agree(store_location: str) -> None:
    service = EvaluationService(store_location)
    try:
        task_id = _submit(service, n=12)
        writer = service.store.writer(task_id, "me")
        measures = service.get(task_id).measures
        for i in range(12):
            value = math.nan if i == 3 else i / 10
            status = "failed" if i == 5 else "succeeded"
            metrics = None if status == "failed" else dict.fromkeys(measures, value)
            writer.record(QueryRecord(f"q{i}", i, status, ("d1",), None, 0.01 * i, 1, metrics))
        first = measures[0]
        page, total = service.query_page(task_id, sort=f"-{first}", limit=4)
        assert total == 12 and [r.query_id for r in page] == ["q11", "q10", "q9", "q8"]
        last = service.query_page(task_id, sort=first, limit=100)[0]
        assert [r.query_id for r in last][-2:] == ["q3", "q5"]  # no value (NaN, failed) last
        found, count = service.query_page(task_id, search="Q1")
        assert count == 3 and [r.query_id for r in found] == ["q1", "q10", "q11"]
        assert len(service.query_results(task_id, status="failed")) == 1
        assert service.store.count_results(task_id, "succeeded") == 11
        assert service.store.latencies(task_id)[:2] == [0.0, 0.01]
    finally:
        service.close()


def test_workers_never_claim_a_task_twice(store_location: str) -> None:
    service = EvaluationService(store_location)
    try:
        ids = [_submit(service, n=2) for _ in range(20)]
    finally:
        service.close()
    claimed: list[str] = []
    lock = threading.Lock()

    def claim(worker: int) -> None:
        store = open_store(store_location)
        try:
            while (task_id := store.claim_next(f"host:{worker}:x")) is not None:
                with lock:
                    claimed.append(task_id)
        finally:
            store.close()

    threads = [threading.Thread(target=claim, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Counter(claimed) == Counter(ids)
    store = open_store(store_location)
    try:
        assert {store.task(task_id)["status"] for task_id in ids} == {"running"}
    finally:
        store.close()


def test_counters_stay_exact_with_two_writers_at_once(store_location: str) -> None:
    service = EvaluationService(store_location)
    try:
        task_id = _submit(service, n=40)
        measures = service.get(task_id).measures

        def write(offset: int) -> None:
            store = open_store(store_location)
            writer = store.writer(task_id, "me")
            try:
                for i in range(offset, 40, 2):
                    metrics = dict.fromkeys(measures, 0.5)
                    writer.record(
                        QueryRecord(f"q{i}", i, "succeeded", ("d1",), None, 0.1, 1, metrics)
                    )
                    writer.record(
                        QueryRecord(f"q{i}", i, "succeeded", ("d1",), None, 0.1, 1, metrics)
                    )
            finally:
                store.close()

        threads = [threading.Thread(target=write, args=(offset,)) for offset in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        info = service.get(task_id)
        assert info.succeeded == 40 and info.failed == 0
        assert info.metrics == pytest.approx(dict.fromkeys(measures, 0.5))
        assert service.store.result_rows(task_id) == (40, 40)
    finally:
        service.close()
