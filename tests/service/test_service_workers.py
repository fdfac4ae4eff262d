"""Several processes on one queue: two ``rankscope worker`` processes share a store (a SQLite
file, a PostgreSQL server); one is killed with SIGKILL in the middle of a task. Every question
of every task is scored exactly once, none that was committed is retrieved again, and the
results equal an uninterrupted run's on SQLite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from service_helpers import make_beir

from rankscope.service import EvaluationService, load_dataset
from rankscope.service.store import open_store

TASKS = 4


def _tagged(root: Path, tag: str) -> Path:
    """A copy of a BEIR dataset whose question texts end with ``<tag>x<query id>``, so that the
    toy retriever's log of calls names the task as well as the question."""
    folder = make_beir(root, n_queries=40)
    lines = []
    for line in (folder / "queries.jsonl").read_text().splitlines():
        record = json.loads(line)
        record["text"] = f"{record['text']} {tag}x{record['_id']}"
        lines.append(json.dumps(record))
    (folder / "queries.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def _worker(location: str, log: Path, tmp_path: Path, module: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "modules"), *sys.path]),
        "TOY_CALLS": str(log),
        "TOY_DELAY": "0.02",
    }
    command = [sys.executable, "-m", "rankscope", "worker", "--db", location, "--poll", "0.1"]
    command += ["--allow-callable", f"{module}:*", "--data-root", str(tmp_path)]
    return subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)


def _calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_two_workers_one_killed_every_question_scored_once(
    tmp_path: Path, beir_dir: Path, toy_module: str, store_location: str
) -> None:
    datasets = [_tagged(tmp_path / f"data{i}", f"t{i}") for i in range(TASKS)]
    spec = f"{toy_module}:search"
    service = EvaluationService(store_location)
    tasks = [service.submit(folder, spec, concurrency=2, name=f"t{i}") for i, folder in
             enumerate(datasets)]  # fmt: skip
    service.close()

    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    first = _worker(store_location, logs[0], tmp_path, toy_module)
    second = _worker(store_location, logs[1], tmp_path, toy_module)
    store = open_store(store_location)
    try:
        # Kill the first worker once it has committed part of a task it runs.
        deadline = time.monotonic() + 60
        victim = None
        while victim is None:
            assert time.monotonic() < deadline, "the first worker recorded nothing in 60 s"
            for task in tasks:
                row = store.task(task.id)
                owner = row["owner"] or ""
                mine = row["status"] == "running" and owner.split(":")[1:2] == [str(first.pid)]
                if mine and 5 <= len(store.finished_query_ids(task.id)) < task.total - 5:
                    victim = task
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        committed_by_first = store.finished_query_ids(victim.id)
        first_calls = set(_calls(logs[0]))

        # The second worker takes the killed task up again, and finishes everything.
        deadline = time.monotonic() + 120
        while any(store.status(task.id) != "succeeded" for task in tasks):
            assert second.poll() is None, "the second worker ended"
            assert time.monotonic() < deadline, "the tasks did not finish in 120 s"
            time.sleep(0.1)
    finally:
        for worker in (first, second):
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in (first, second):
            worker.wait(timeout=30)
        store.close()
    assert second.returncode == 0

    finished = EvaluationService(store_location)
    reference = EvaluationService(tmp_path / "reference.db")
    try:
        second_calls = _calls(logs[1])
        # The second worker retrieved each question it ran once: none committed before
        # the kill was asked again.
        assert len(second_calls) == len(set(second_calls))
        victim_tag = f"t{tasks.index(victim)}x"
        retried = {call.removeprefix(victim_tag) for call in second_calls
                   if call.startswith(victim_tag)}  # fmt: skip
        queries = {query_id for query_id, _ in load_dataset(datasets[tasks.index(victim)]).queries}
        assert retried == queries - committed_by_first
        assert not committed_by_first & retried
        # Every question of every task is recorded once; every call is of one of them.
        assert {call for call in first_calls | set(second_calls)} <= {
            f"t{i}x{query_id}" for i in range(TASKS) for query_id in queries
        }
        for index, task in enumerate(tasks):
            info = finished.get(task.id)
            assert info.status == "succeeded" and info.succeeded == task.total
            assert finished.store.result_rows(task.id) == (task.total, task.total)
            alone = reference.run(reference.submit(datasets[index], spec, concurrency=2).id)
            assert info.metrics == alone.metrics
            assert [(r.query_id, r.doc_ids, r.scores, r.metrics) for r in
                    finished.query_results(task.id)] == [
                (r.query_id, r.doc_ids, r.scores, r.metrics)
                for r in reference.query_results(alone.id)
            ]  # fmt: skip
    finally:
        finished.close()
        reference.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_workers_run_judging_tasks_one_killed_each_pair_judged_once(
    tmp_path: Path, store_location: str, toy_module: str
) -> None:
    from chat_server import ChatServer, grade_of, passage, query, serve_chat, write_inputs
    from rankscope.service.store.judging import judging_calls, stored_grades

    pytest.importorskip("fastapi")
    count = 30
    files = write_inputs(tmp_path / "in", count)
    with serve_chat(ChatServer(delay=0.05)) as server:
        service = EvaluationService(store_location)
        judge = {"type": "http", "url": server.url, "model": "m", "backoff": 0.01, "timeout": 5}
        task = service.submit_judging(judge, **files, concurrency=2)
        service.close()

        def graded() -> int:
            store = open_store(store_location)
            try:
                return len(stored_grades(store, task.id))
            finally:
                store.close()

        first = _worker(store_location, tmp_path / "first.log", tmp_path, toy_module)
        second: subprocess.Popen[bytes] | None = None
        try:
            deadline = time.monotonic() + 60
            while graded() < 6:
                assert first.poll() is None, "the first worker ended"
                assert time.monotonic() < deadline, "the first worker judged nothing in 60 s"
                time.sleep(0.01)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
            store = open_store(store_location)
            try:
                before = {(g.pair.query_id, g.pair.doc_id) for g in stored_grades(store, task.id)}
            finally:
                store.close()
            asked_before = sum(server.calls.values())
            # The second worker takes the judging task up again where the first stopped.
            second = _worker(store_location, tmp_path / "second.log", tmp_path, toy_module)
            watching = EvaluationService(store_location)
            try:
                done = watching.wait_judging(task.id, timeout=120)
            finally:
                watching.close()
        finally:
            for worker in (first, second):
                if worker is not None and worker.poll() is None:
                    worker.send_signal(signal.SIGTERM)
            for worker in (first, second):
                if worker is not None:
                    worker.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    assert (done.status, done.graded, done.failed) == ("succeeded", count, 0)
    assert 6 <= len(before) < count
    store = open_store(store_location)
    try:
        grades = stored_grades(store, task.id)
        calls = judging_calls(store, task.id)
    finally:
        store.close()
    assert all(
        g.grade == grade_of(query(int(g.pair.query_id[1:])), passage(int(g.pair.doc_id[1:])))
        for g in grades
    )
    for i in range(count):
        asked = server.calls[(query(i), passage(i))]
        assert asked == 1 if (f"q{i:02d}", f"d{i:02d}") in before else 1 <= asked <= 2
    assert sum(server.calls.values()) - asked_before == count - len(before)
    assert len(calls) == count and len({c["owner"] for c in calls}) == 2
