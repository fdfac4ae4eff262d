"""EvaluationService in process: runs, results equal to rankscope.evaluate, failures, cancel,
resume, idempotent records, persistence, export, compare."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from service_helpers import make_corpus, overlap_search

import rankscope
from rankscope.compare import compare_pairs
from rankscope.errors import InputError
from rankscope.io.tables import Run
from rankscope.service import (
    Dataset,
    EvaluationService,
    QueryRecord,
    TaskNotFoundError,
    TaskStateError,
    load_dataset,
)


@pytest.fixture
def service(store_location: str) -> Any:
    """A service on each back-end of the store in turn (SQLite, PostgreSQL)."""
    service = EvaluationService(store_location)
    yield service
    service.close()


def _trec_lines_to_run(text: str) -> Run:
    rows = [line.split() for line in text.splitlines()]
    frame = pl.DataFrame(
        {
            "query_id": [r[0] for r in rows],
            "doc_id": [r[2] for r in rows],
            "score": [float(r[4]) for r in rows],
        }
    )
    return Run.from_frame(frame)


@pytest.mark.parametrize(
    ("profile", "measures", "names"),
    [
        ("weknora", None, ["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]),
        ("trec", ["nDCG@10", "AP", "RR", "P@5", "R@10"], ["nDCG@10", "AP", "RR", "P@5", "R@10"]),
    ],
)
def test_results_equal_evaluate_on_the_exported_run(
    service: EvaluationService,
    beir_dir: Path,
    profile: str,
    measures: list[str] | None,
    names: list[str],
) -> None:
    data = load_dataset(beir_dir)
    corpus = dict(data.corpus())
    task = service.submit(
        data,
        lambda text, k: overlap_search(corpus, text, k),
        profile=profile,
        measures=measures,
        k=10,
        concurrency=3,
    )
    info = service.run(task.id)
    assert info.status == "succeeded" and info.succeeded == info.total == 30

    run = _trec_lines_to_run(service.export_text(task.id, "trec"))
    expected = rankscope.evaluate(data.qrels, run, names, profile=profile)
    ours = {r.query_id: list((r.metrics or {}).values()) for r in service.query_results(task.id)}
    assert {q: list(values.values()) for q, values in expected.to_dict().items()} == {
        q: ours[q] for q in expected.to_dict()
    }
    # The summary is the exact mean, as evaluate computes it.
    assert list(info.metrics.values()) == list(expected.mean().values())
    again = rankscope.evaluate(
        service.qrels(task.id), service.run_of(task.id), names, profile=profile
    )
    assert again.to_dict() == expected.to_dict()
    assert info.latency_ms is not None and set(info.latency_ms) == {
        "mean",
        "p50",
        "p90",
        "p95",
        "p99",
        "max",
    }
    assert info.queries_per_second is not None and info.queries_per_second > 0


def test_failed_queries_are_recorded_and_the_task_goes_on(service: EvaluationService) -> None:
    data = Dataset.from_records(
        {f"q{i}": f"text {i}" for i in range(6)}, {f"q{i}": {"d1": 1} for i in range(6)}
    )

    def flaky(text: str, k: int) -> list[str]:
        if text.endswith(("1", "4")):
            raise ConnectionError(f"backend down for {text}")
        return ["d1", "d2"]

    info = service.run(service.submit(data, flaky).id)
    assert (info.status, info.succeeded, info.failed) == ("succeeded", 4, 2)
    failed = service.query_results(info.id, status="failed")
    assert [(r.query_id, r.error) for r in failed] == [
        ("q1", "ConnectionError: backend down for text 1"),
        ("q4", "ConnectionError: backend down for text 4"),
    ]
    assert info.metrics["mrr"] == 1.0  # means over the succeeded queries


def test_max_failures_fails_the_task(service: EvaluationService) -> None:
    data = Dataset.from_records(
        {f"q{i}": f"t{i}" for i in range(20)}, {f"q{i}": {"d": 1} for i in range(20)}
    )

    def broken(text: str, k: int) -> list[str]:
        raise TimeoutError("no answer")

    info = service.run(service.submit(data, broken, max_failures=2, concurrency=1).id)
    assert info.status == "failed"
    assert info.failed == 3
    assert "more than 2 queries failed" in (info.error or "")


def test_bad_rankings_fail_their_query_with_the_reason(service: EvaluationService) -> None:
    data = Dataset.from_records({"a": "x", "b": "y", "c": "z"}, {q: {"d": 1} for q in "abc"})
    answers: dict[str, Any] = {"x": [("d", float("nan"))], "y": {"d": 1.0}, "z": [("d", 1.0), "e"]}
    info = service.run(service.submit(data, lambda text, k: answers[text]).id)
    errors = {r.query_id: r.error for r in service.query_results(info.id)}
    assert "finite number; found nan" in (errors["a"] or "")
    assert "expected a list of document ids" in (errors["b"] or "")
    assert "scores for 1 of 2 documents" in (errors["c"] or "")


def test_resume_runs_only_the_queries_not_recorded(service: EvaluationService) -> None:
    data = Dataset.from_records(
        {f"q{i}": f"t{i}" for i in range(10)}, {f"q{i}": {"d1": 1} for i in range(10)}
    )
    calls: list[str] = []

    def search(text: str, k: int) -> list[str]:
        calls.append(text)
        return ["d1"]

    task = service.submit(data, search)
    writer = service.store.writer(task.id, "earlier run")
    for i in range(4):
        writer.record(
            QueryRecord(
                f"q{i}", i, "succeeded", ("d1",), None, 0.001, 1, dict.fromkeys(task.measures, 1.0)
            )
        )
    info = service.resume(task.id)
    assert info.status == "succeeded" and info.succeeded == 10
    assert sorted(calls) == sorted(f"t{i}" for i in range(4, 10))
    with pytest.raises(TaskStateError, match="succeeded already"):
        service.resume(task.id)


def test_recording_a_query_twice_keeps_one_row(service: EvaluationService) -> None:
    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    task = service.submit(data, lambda text, k: ["d"])
    writer = service.store.writer(task.id, "me")
    writer.record(QueryRecord("q", 0, "failed", error="first try"))
    writer.record(
        QueryRecord("q", 0, "succeeded", ("d",), None, 0.01, 1, dict.fromkeys(task.measures, 1.0))
    )
    rows = service.store._connection().execute(
        "SELECT COUNT(*) FROM results WHERE task_id = ?", (task.id,)
    )
    assert rows.fetchone()[0] == 1
    assert (writer.counters.succeeded, writer.counters.failed) == (1, 0)
    assert service.get(task.id).metrics["map"] == 1.0
    # A second writer (a forced resume elsewhere) corrects the same counters, not its own copy.
    other = service.store.writer(task.id, "someone else")
    other.record(QueryRecord("q", 0, "failed", error="again"))
    writer.record(QueryRecord("q", 0, "failed", error="and again"))
    info = service.get(task.id)
    assert (info.succeeded, info.failed, info.latency_ms) == (0, 1, None)


def test_cancel_stops_a_running_task_and_resume_finishes_it(service: EvaluationService) -> None:
    data = Dataset.from_records(
        {f"q{i}": f"t{i}" for i in range(200)}, {f"q{i}": {"d": 1} for i in range(200)}
    )

    def slow(text: str, k: int) -> list[str]:
        time.sleep(0.01)
        return ["d"]

    task = service.submit(data, slow, concurrency=2)
    service.start(task.id)
    deadline = time.monotonic() + 10
    while service.get(task.id).finished < 10 and time.monotonic() < deadline:
        time.sleep(0.02)
    cancelled = service.cancel(task.id)
    assert cancelled.status == "cancelled"
    time.sleep(0.3)
    stopped_at = service.get(task.id).finished
    assert 10 <= stopped_at < 200
    time.sleep(0.2)
    assert service.get(task.id).finished == stopped_at  # nothing more ran
    with pytest.raises(TaskStateError, match="only pending or running"):
        service.cancel(task.id)
    finished = service.resume(task.id)
    assert finished.status == "succeeded" and finished.succeeded == 200


def test_unknown_ids(service: EvaluationService) -> None:
    with pytest.raises(TaskNotFoundError, match="no task with id 'nope'"):
        service.get("nope")
    with pytest.raises(TaskNotFoundError):
        service.cancel("nope")


def test_tasks_persist_across_service_instances(tmp_path: Path) -> None:
    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    first = EvaluationService(tmp_path / "x.db")
    task_ids = [
        first.run(first.submit(data, lambda text, k: ["d"], name=f"n{i}").id).id for i in range(3)
    ]
    first.close()
    second = EvaluationService(tmp_path / "x.db")
    try:
        assert second.store.journal_mode() == "wal"
        page, total = second.list_tasks(limit=2)
        assert total == 3 and [t.id for t in page] == task_ids[::-1][:2]
        assert second.list_tasks(limit=2, offset=2)[0][0].id == task_ids[0]
        assert second.get(task_ids[0]).metrics["ndcg10"] == 1.0
        assert second.resolve(task_ids[1][:8]) == task_ids[1]
    finally:
        second.close()


def test_exports(service: EvaluationService) -> None:
    data = Dataset.from_records({"q1": "t1", "q2": "t2"}, {"q1": {"a": 1}, "q2": {"b": 1}})
    answers = {"t1": ["a", "b"], "t2": ["c"]}
    info = service.run(service.submit(data, lambda text, k: answers[text], name="my run").id)

    exported = json.loads(service.export_text(info.id, "json"))
    assert exported["task"]["id"] == info.id and exported["task"]["status"] == "succeeded"
    assert [q["doc_ids"] for q in exported["queries"]] == [["a", "b"], ["c"]]

    rows = list(csv.DictReader(io.StringIO(service.export_text(info.id, "csv"))))
    assert [(r["query_id"], r["retrieved"], r["mrr"]) for r in rows] == [
        ("q1", "a b", "1.0"),
        ("q2", "c", "0.0"),
    ]

    assert service.export_text(info.id, "trec").splitlines() == [
        "q1 Q0 a 1 2.0 my_run",
        "q1 Q0 b 2 1.0 my_run",
        "q2 Q0 c 1 1.0 my_run",
    ]
    with pytest.raises(InputError, match="unknown export format 'xml'"):
        service.export_text(info.id, "xml")


def test_compare_two_tasks(service: EvaluationService) -> None:
    corpus = make_corpus(40)
    queries = {f"q{i}": " ".join(corpus[f"d{i}"].split()[:3]) for i in range(20)}
    data = Dataset.from_records(queries, {f"q{i}": {f"d{i}": 1} for i in range(20)})
    good = service.submit(data, lambda t, k: overlap_search(corpus, t, k), name="good")
    good = service.run(good.id)
    bad = service.submit(
        data, lambda t, k: [d for d, _ in overlap_search(corpus, t, 40)][::-1][:k], name="bad"
    )
    bad = service.run(bad.id)
    report, left_out = service.compare([good.id, bad.id], test="randomization", n_resamples=500)
    assert left_out == 0
    row = report.comparison.row("bad", "mrr")
    assert row.baseline_mean == good.metrics["mrr"] and row.system_mean == bad.metrics["mrr"]
    assert row.system_mean < row.baseline_mean
    assert report.provenance is not None
    assert report.provenance.runs == (("good", f"task {good.id}"), ("bad", f"task {bad.id}"))

    # Many systems: every pair with Tukey's HSD, as compare_pairs gives it over the same
    # per-query values; several baselines, named by name or by id.
    middle = service.run(
        service.submit(data, lambda t, k: overlap_search(corpus, t, k)[1:], name="middle").id
    )
    ids = [good.id, bad.id, middle.id]
    tukey, _ = service.compare(ids, test="tukey", pairs="all")
    found = {(row.baseline, row.system) for row in tukey.comparison.rows}
    assert found == {("good", "bad"), ("good", "middle"), ("bad", "middle")}
    scores = {
        name: {
            measure: [
                record.metrics[measure]
                for record in sorted(
                    service.store.results(task, status="succeeded"), key=lambda r: r.query_id
                )
            ]
            for measure in good.measures
        }
        for name, task in zip(("good", "bad", "middle"), ids, strict=True)
    }
    reference = compare_pairs(scores, sorted(found), test="tukey")
    for row in tukey.comparison.rows:
        expected = reference.pair(row.baseline, row.system, row.measure)
        assert row.corrected_p_value == pytest.approx(expected.corrected_p_value, abs=1e-12)
    several, _ = service.compare(ids, baselines=["good", middle.id], test="t")
    assert {(row.baseline, row.system) for row in several.comparison.rows} == {
        ("good", "bad"),
        ("good", "middle"),
        ("middle", "bad"),
    }


def test_submit_checks_before_anything_runs(service: EvaluationService) -> None:
    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    with pytest.raises(InputError, match="concurrency must be an integer >= 1"):
        service.submit(data, lambda t, k: [], concurrency=0)
    with pytest.raises(InputError, match="BM25 baseline needs a corpus"):
        service.submit(data, "bm25")
    with pytest.raises(InputError, match="cannot import module 'no_such_module_xyz'"):
        service.submit(data, "no_such_module_xyz:search")
    assert service.list_tasks()[1] == 0


def test_bm25_on_the_weknora_sample(service: EvaluationService, weknora_samples_dir: Path) -> None:
    info = service.run(service.submit(weknora_samples_dir, "bm25").id)
    assert info.status == "succeeded"
    # One question, four passages, all relevant: every metric is 1.
    assert info.metrics == dict.fromkeys(
        ["precision", "recall", "ndcg3", "ndcg10", "mrr", "map"], 1.0
    )
    (record,) = service.query_results(info.id)
    assert sorted(record.doc_ids) == ["1", "2", "3", "4"]
    assert record.scores is not None and list(record.scores) == sorted(record.scores, reverse=True)


def test_a_service_in_a_thread_with_a_running_loop_still_runs(service: EvaluationService) -> None:
    import asyncio

    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    task = service.submit(data, lambda t, k: ["d"])
    result: list[str] = []

    async def inside_a_loop() -> None:
        result.append(service.run(task.id).status)

    threading.Thread(target=lambda: asyncio.run(inside_a_loop())).start()
    deadline = time.monotonic() + 10
    while not result and time.monotonic() < deadline:
        time.sleep(0.02)
    assert result == ["succeeded"]


def test_shutdown_puts_running_tasks_back_to_pending(service: EvaluationService) -> None:
    data = Dataset.from_records(
        {f"q{i}": f"t{i}" for i in range(100)}, {f"q{i}": {"d": 1} for i in range(100)}
    )

    def slow(text: str, k: int) -> list[str]:
        time.sleep(0.01)
        return ["d"]

    task = service.submit(data, slow, concurrency=2)
    service.start(task.id)
    while service.get(task.id).finished < 5:
        time.sleep(0.01)
    service.shutdown()
    stopped = service.get(task.id)
    assert stopped.status == "pending" and 5 <= stopped.finished < 100
    assert service.recover("resume") == [task.id]
    assert service.wait(task.id, timeout=20).status == "succeeded"
