"""Crash safety: a process killed with SIGKILL mid-task, resumed, gives the results of an
uninterrupted run, with no query lost, none run twice and no duplicate in the store; with a
generator (a callable, or an HTTP endpoint served by the test), no committed question is
answered again, and the answers and their measures equal an uninterrupted run's. Each runs
against both back-ends of the store (a SQLite file, a PostgreSQL server)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from service_helpers import GENERATOR_OPTIONS, make_beir, serve_generator

from rankscope.service import EvaluationService, load_dataset
from rankscope.service.store import open_store

CHILD = """
import sys
from rankscope.service import EvaluationService
EvaluationService(sys.argv[1]).run(sys.argv[2])
"""


def _comparable(service: EvaluationService, task_id: str) -> list[tuple[object, ...]]:
    return [
        (r.query_id, r.position, r.status, r.doc_ids, r.scores, r.attempts, r.metrics, r.error)
        for r in service.query_results(task_id)
    ]


def _kill_once_recorded(
    child: subprocess.Popen[bytes], location: str, task_id: str, count: int
) -> None:
    """SIGKILL the child once it has recorded ``count`` queries of the task."""
    store = open_store(location)
    try:
        deadline = time.monotonic() + 30
        while len(store.finished_query_ids(task_id)) < count:
            assert child.poll() is None, "the child ended before it was killed"
            assert time.monotonic() < deadline, "the child recorded too little in 30 s"
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=10)
        store.close()
    assert child.returncode == -signal.SIGKILL


def _recorded(location: str, task_id: str) -> set[str]:
    store = open_store(location)
    try:
        return store.finished_query_ids(task_id)
    finally:
        store.close()


def _settled(attempts: dict[str, int]) -> dict[str, int]:
    """The server's count of calls once no call of the killed child is still arriving."""
    seen = dict(attempts)
    while True:
        time.sleep(0.3)
        if dict(attempts) == seen:
            return seen
        seen = dict(attempts)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize("kill_after", [1, 45])
def test_sigkill_mid_task_then_resume_equals_an_uninterrupted_run(
    tmp_path: Path,
    beir_dir: Path,
    toy_module: str,
    monkeypatch: pytest.MonkeyPatch,
    kill_after: int,
    store_location: str,
) -> None:
    # The same corpus as beir_dir (the toy retriever's), with more questions.
    data = load_dataset(make_beir(tmp_path / "bigger", n_queries=120))
    spec = f"{toy_module}:search"
    db = store_location
    service = EvaluationService(db)
    task = service.submit(data, spec, concurrency=4)
    service.close()

    child_calls = tmp_path / "child_calls.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path / "modules"), os.environ.get("PYTHONPATH", "")]
        ),
        "TOY_CALLS": str(child_calls),
        "TOY_DELAY": "0.02",
    }
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), task.id], env=env)
    _kill_once_recorded(child, db, task.id, kill_after)
    committed = _recorded(db, task.id)
    assert kill_after <= len(committed) < task.total

    monkeypatch.setenv("TOY_CALLS", str(tmp_path / "resume_calls.log"))
    resumed_service = EvaluationService(db)
    try:
        interrupted = resumed_service.get(task.id)
        assert interrupted.status == "running" and not resumed_service.is_running(task.id)
        resumed = resumed_service.resume(task.id)
        assert resumed.status == "succeeded" and resumed.succeeded == task.total

        retrieved_on_resume = (tmp_path / "resume_calls.log").read_text().split()
        # Nothing committed before the kill was retrieved again, and everything else was once.
        assert sorted(retrieved_on_resume) == sorted(
            query_id for query_id, _ in data.queries if query_id not in committed
        )

        monkeypatch.delenv("TOY_CALLS")
        reference = resumed_service.submit(data, spec, concurrency=4)
        uninterrupted = resumed_service.run(reference.id)
        assert _comparable(resumed_service, task.id) == _comparable(resumed_service, reference.id)
        assert resumed.metrics == uninterrupted.metrics

        rows, distinct = resumed_service.store.result_rows(task.id)
        assert rows == distinct == task.total
    finally:
        resumed_service.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize("kind", ["callable", "http"])
def test_sigkill_with_a_generator_then_resume_answers_every_question_once(
    tmp_path: Path,
    beir_dir: Path,
    toy_module: str,
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    store_location: str,
) -> None:
    data = load_dataset(make_beir(tmp_path / "bigger", n_queries=80, answers=True))
    texts = dict(data.queries)
    spec = f"{toy_module}:search"
    db = store_location
    with serve_generator() as server:
        generator = f"{toy_module}:answer" if kind == "callable" else server.url
        options = None if kind == "callable" else GENERATOR_OPTIONS
        service = EvaluationService(db)
        task = service.submit(
            data, spec, concurrency=4, generator=generator, generator_options=options
        )
        service.close()

        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                [str(tmp_path / "modules"), os.environ.get("PYTHONPATH", "")]
            ),
            "TOY_ANSWER_CALLS": str(tmp_path / "child_answers.log"),
            "TOY_DELAY": "0.02",
        }
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), task.id], env=env)
        _kill_once_recorded(child, db, task.id, 25)
        committed = _recorded(db, task.id)
        assert 25 <= len(committed) < task.total
        asked_before = _settled(server.attempts)

        resume_log = tmp_path / "resume_answers.log"
        monkeypatch.setenv("TOY_ANSWER_CALLS", str(resume_log))
        resumed_service = EvaluationService(db)
        try:
            resumed = resumed_service.resume(task.id)
            assert resumed.status == "succeeded" and resumed.succeeded == task.total
            if kind == "callable":
                answered_on_resume = resume_log.read_text().split()
            else:
                answered_on_resume = [
                    query_id
                    for query_id, text in texts.items()
                    for _ in range(server.attempts.get(text, 0) - asked_before.get(text, 0))
                ]
            # No committed question was answered again; every other one exactly once.
            assert sorted(answered_on_resume) == sorted(set(texts) - committed)

            monkeypatch.delenv("TOY_ANSWER_CALLS")
            reference = resumed_service.submit(
                data, spec, concurrency=4, generator=generator, generator_options=options
            )
            uninterrupted = resumed_service.run(reference.id)
            interrupted_answers = _answered(resumed_service, task.id)
            assert interrupted_answers == _answered(resumed_service, reference.id)
            assert sum(answer is not None for _, answer, _ in interrupted_answers) == task.total
            assert _comparable(resumed_service, task.id) == _comparable(
                resumed_service, reference.id
            )
            assert resumed.metrics == uninterrupted.metrics
            assert resumed.answer_metrics == uninterrupted.answer_metrics
            assert resumed.answered == uninterrupted.answered == len(data.references)
            assert resumed.to_dict()["answers"] == uninterrupted.to_dict()["answers"]
        finally:
            resumed_service.close()


def _answered(service: EvaluationService, task_id: str) -> list[tuple[object, ...]]:
    return [(r.query_id, r.answer, r.answer_metrics) for r in service.query_results(task_id)]
