"""Judging tasks in the service, against the local OpenAI-compatible server the judge tests
start, on both back-ends of the store: a pool judged with its failures counted by kind and
downloadable; the holes of an evaluation task judged, agreeing with its human qrels on a
calibration sample, and the task scored again with the judged qrels merged (equal to a task
run on those qrels); cancel and resume; a SIGKILL of the judging process, resumed as a
server resumes at start-up, with every pair judged exactly once; the HTTP API."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from service_helpers import client_for, make_beir

from chat_server import ChatServer, grade_of, passage, query, serve_chat, write_inputs
from rankscope.errors import InputError, TaskStateError
from rankscope.io import read_qrels
from rankscope.service import Dataset, EvaluationService, load_dataset
from rankscope.service.store import open_store
from rankscope.service.store.judging import judging_calls, stored_grades

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")


def chat_judge(url: str) -> dict[str, object]:
    return {"type": "http", "url": url, "model": "judge-model", "backoff": 0.01, "timeout": 2}


FAULTS = {2: "429", 3: "malformed", 4: "no grade", 5: "truncated"}


def faults(query_text: str, passage_text: str, attempt: int) -> str | None:
    return FAULTS.get(int(query_text.rsplit(" ", 1)[1]))


def test_a_pool_is_judged_with_failures_counted_by_kind_and_downloadable(
    store_location: str, tmp_path: Path
) -> None:
    files = write_inputs(tmp_path / "in", 12)
    with serve_chat(ChatServer(faults=faults, retry_after="0")) as server:
        service = EvaluationService(store_location)
        try:
            task = service.submit_judging(
                chat_judge(server.url) | {"retries": 1}, **files, name="pool", concurrency=3
            )
            assert (task.status, task.total, task.pending, task.source) == (
                "pending",
                12,
                12,
                None,
            )
            done = service.run_judging(task.id)
            assert (done.status, done.graded, done.failed, done.pending) == ("succeeded", 8, 4, 0)
            assert done.failures == {"malformed": 1, "no grade": 1, "rate limited": 1,
                                     "truncated": 1}  # fmt: skip
            # The pair answered 429 was asked twice (one retry), every other once; the
            # malformed body was an answer of the endpoint (its pair failed, as counted above).
            assert done.calls == {"answered": 11, "rate limited": 2}
            assert sum(server.calls.values()) == 13
            assert done.prompt_tokens == sum(
                100 + len(passage(i))
                for i in range(12)
                if FAULTS.get(i) not in ("429", "malformed")
            )
            assert done.completion_tokens == 7 * 10
            assert done.agreement is None  # no human judged any of these pairs
            # The same judging submitted again is the same task: nothing is asked again.
            again = service.submit_judging(
                chat_judge(server.url) | {"retries": 1}, **files, name="pool", concurrency=3
            )
            assert again.id == task.id and again.status == "succeeded"

            judged = service.judged_qrels(task.id)
            assert judged.rows() == [
                (f"q{i:02d}", f"d{i:02d}", grade_of(query(i), passage(i)), "judge")
                for i in range(12)
                if i not in FAULTS
            ]
            failed = service.judging_failures(task.id)
            assert [(f["query_id"], f["failure"]) for f in failed] == [
                ("q02", "rate limited"),
                ("q03", "malformed"),
                ("q04", "no grade"),
                ("q05", "truncated"),
            ]
            assert failed[2]["answer"] == "I cannot tell from this passage."
            assert [info.id for info in service.list_judgings()[0]] == [task.id]
            assert service.list_tasks() == ([], 0)  # evaluations only
            with pytest.raises(InputError, match="is a judging task, not an evaluation"):
                service.submit_judging(chat_judge(server.url), holes_of=task.id)
        finally:
            service.close()


def _evaluated(tmp_path: Path, toy_module: str, store_location: str) -> tuple[Path, str]:
    """A dataset whose qrels judge only some of what the toy retriever finds, and a task of
    it that has succeeded."""
    folder = make_beir(tmp_path / "thin", n_queries=12)
    qrels = folder / "qrels" / "test.tsv"
    lines = qrels.read_text().splitlines()
    qrels.write_text("\n".join([lines[0], *lines[1::2]]) + "\n")  # half the judgements
    service = EvaluationService(store_location)
    try:
        task = service.submit(folder, f"{toy_module}:search", k=5)
        assert service.run(task.id).status == "succeeded"
    finally:
        service.close()
    return folder, task.id


def test_the_holes_of_an_evaluation_task_are_judged_and_the_task_scored_again(
    tmp_path: Path, beir_dir: Path, toy_module: str, store_location: str
) -> None:
    folder, evaluation = _evaluated(tmp_path, toy_module, store_location)
    with serve_chat() as server:
        service = EvaluationService(store_location)
        try:
            holes = service.submit_judging(
                chat_judge(server.url),
                holes_of=evaluation,
                depth=5,
                calibrate=True,
                calibration_sample=4,
            )
            assert holes.source == {"evaluation": evaluation, "depth": 5}
            data = load_dataset(folder)
            judged_pairs = {(q, d) for q, d, _ in data.qrels.frame.rows()}
            run = service.run_of(evaluation)
            top = {
                (q, d)
                for q in data.qrels.frame["query_id"].unique()
                for d in run.frame.filter(run.frame["query_id"] == q)["doc_id"].head(5)
            }
            # The holes, and the calibration sample of human-judged pairs first.
            assert holes.total == len(top - judged_pairs) + 4
            done = service.run_judging(holes.id)
            assert (done.status, done.graded, done.failed) == ("succeeded", holes.total, 0)
            assert done.agreement is not None and done.agreement.shared == 4

            merged = service.judged_qrels(holes.id, merged=True)
            assert set(merged["source"]) == {"human", "judge"}
            judge_rows = merged.filter(merged["source"] == "judge")
            assert {(q, d) for q, d, _, _ in judge_rows.rows()} == top - judged_pairs

            again = service.reevaluation(holes.id)
            assert again is not None and again["added"] == judge_rows.height
            original = service.get(evaluation)
            assert again["before"] == pytest.approx(original.metrics)
            # Scored again with the merged qrels: what a task on those qrels gives.
            on_merged = Dataset.from_records(
                dict(data.queries),
                {
                    q: {d: int(g) for _, d, g, _ in merged.filter(merged["query_id"] == q).rows()}
                    for q in merged["query_id"].unique()
                },
                corpus=dict(data.corpus()),
            )
            reference = service.run(service.submit(on_merged, f"{toy_module}:search", k=5).id)
            assert again["after"] == pytest.approx(reference.metrics)
            assert again["after"] != again["before"]
        finally:
            service.close()


def test_cancel_then_resume_asks_nothing_twice(store_location: str, tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 30)
    with serve_chat(ChatServer(delay=0.05)) as server:
        service = EvaluationService(store_location)
        try:
            task = service.submit_judging(chat_judge(server.url), **files, concurrency=2)
            service.start(task.id)
            deadline = time.monotonic() + 30
            while service.judging(task.id).graded < 5:
                assert time.monotonic() < deadline
                time.sleep(0.02)
            cancelled = service.cancel_judging(task.id)
            assert cancelled.status == "cancelled"
            stopped = _quiet(service, task.id)
            assert stopped.status == "cancelled" and 5 <= stopped.graded < 30
            with pytest.raises(TaskStateError, match="only pending or running"):
                service.cancel_judging(task.id)
            service.resume_judging_in_background(task.id)
            done = service.wait_judging(task.id, timeout=60)
            assert (done.status, done.graded) == ("succeeded", 30)
            grades = stored_grades(service.store, task.id)
            assert len(grades) == 30
            # Each pair was asked once, but those in flight at the cancel (at most 2).
            assert all(1 <= server.calls[(query(i), passage(i))] <= 2 for i in range(30))
            assert sum(server.calls.values()) <= 32
        finally:
            service.close()


def _quiet(service: EvaluationService, task_id: str) -> object:
    """The task once no run of it is left in this process."""
    deadline = time.monotonic() + 30
    while service.store.task(task_id)["owner"] is not None:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return service.judging(task_id)


CHILD = """
import sys
from rankscope.service import EvaluationService
EvaluationService(sys.argv[1]).run_judging(sys.argv[2])
"""


def _graded(location: str, task_id: str) -> int:
    store = open_store(location)
    try:
        return len(stored_grades(store, task_id))
    finally:
        store.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_sigkill_mid_judging_then_the_server_resumes_it_judging_each_pair_once(
    store_location: str, tmp_path: Path
) -> None:
    count, concurrency = 40, 2
    files = write_inputs(tmp_path / "in", count)
    with serve_chat(ChatServer(delay=0.05)) as server:
        service = EvaluationService(store_location)
        task = service.submit_judging(chat_judge(server.url), **files, concurrency=concurrency)
        service.close()

        child = subprocess.Popen([sys.executable, "-c", CHILD, store_location, task.id])
        try:
            deadline = time.monotonic() + 60
            while _graded(store_location, task.id) < 8:
                assert child.poll() is None, "the judging process ended before it was killed"
                assert time.monotonic() < deadline, "the judging process judged too little"
                time.sleep(0.01)
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL

        resumed = EvaluationService(store_location)
        try:
            before = {
                (g.pair.query_id, g.pair.doc_id) for g in stored_grades(resumed.store, task.id)
            }
            interrupted = resumed.judging(task.id)
            assert interrupted.status == "running" and 8 <= interrupted.graded < count
            asked_before = sum(server.calls.values())
            # What a server does at start-up.
            assert resumed.recover("resume") == [task.id]
            done = resumed.wait_judging(task.id, timeout=120)
            assert (done.status, done.graded, done.failed) == ("succeeded", count, 0)

            grades = stored_grades(resumed.store, task.id)
            assert sorted((g.pair.query_id, g.pair.doc_id) for g in grades) == [
                (f"q{i:02d}", f"d{i:02d}") for i in range(count)
            ]
            assert all(
                g.grade
                == grade_of(query(int(g.pair.query_id[1:])), passage(int(g.pair.doc_id[1:])))
                for g in grades
            )
            for i in range(count):
                asked = server.calls[(query(i), passage(i))]
                # Nothing judged before the kill was asked again; what was in flight then
                # (answered, never stored) was asked once more.
                assert asked == 1 if (f"q{i:02d}", f"d{i:02d}") in before else 1 <= asked <= 2
            assert sum(server.calls.values()) - asked_before == count - len(before)
            calls = judging_calls(resumed.store, task.id)
            assert len(calls) == count and len({c["owner"] for c in calls}) == 2
        finally:
            resumed.close()


def test_the_http_api_starts_watches_and_downloads_a_judging_task(tmp_path: Path) -> None:
    write_inputs(tmp_path / "in", 6)
    with serve_chat(
        ChatServer(faults=lambda q, p, a: "no grade" if q.endswith(" 1") else None)
    ) as server:
        service = EvaluationService(tmp_path / "tasks.db")
        with client_for(service, tmp_path) as client:
            body = {
                "judge": chat_judge(server.url),
                "pairs": "in/pairs.qrels",
                "queries": "in/queries.jsonl",
                "corpus": "in/corpus.jsonl",
                "name": "six",
            }
            started = client.post("/api/v1/judgings", json=body)
            assert started.status_code == 202, started.text
            task_id = started.json()["id"]
            deadline = time.monotonic() + 30
            while (shown := client.get(f"/api/v1/judgings/{task_id}").json())[
                "status"
            ] != "succeeded":
                assert time.monotonic() < deadline, shown
                time.sleep(0.05)
            assert shown["progress"] == {"total": 6, "graded": 5, "failed": 1, "pending": 0,
                                         "fraction": 1.0}  # fmt: skip
            assert shown["failures"] == {"no grade": 1} and shown["calls"] == {"answered": 6}
            assert shown["judge"]["model"] == "judge-model" and shown["name"] == "six"
            listed = client.get("/api/v1/judgings").json()
            assert listed["total"] == 1 and listed["items"][0]["id"] == task_id

            trec = client.get(f"/api/v1/judgings/{task_id}/qrels")
            assert trec.status_code == 200
            written = tmp_path / "judged.qrels"
            written.write_text(trec.text)
            assert read_qrels(written).frame.rows() == [
                (f"q{i:02d}", f"d{i:02d}", grade_of(query(i), passage(i)))
                for i in range(6)
                if i != 1
            ]
            csv = client.get(f"/api/v1/judgings/{task_id}/qrels", params={"format": "csv"}).text
            assert csv.splitlines()[0] == "query_id,doc_id,relevance,source"
            assert csv.splitlines()[1].endswith(",judge")
            jsonl = client.get(f"/api/v1/judgings/{task_id}/failures", params={"format": "jsonl"})
            (failure,) = [json.loads(line) for line in jsonl.text.splitlines()]
            assert (failure["query_id"], failure["failure"]) == ("q01", "no grade")
            header = client.get(f"/api/v1/judgings/{task_id}/failures").text.splitlines()[0]
            assert header == "query_id,doc_id,failure,error,answer,attempts"
            assert client.get(f"/api/v1/judgings/{task_id}/reevaluation").json() is None

            assert client.post(f"/api/v1/judgings/{task_id}/cancel").status_code == 409
            assert client.get("/api/v1/judgings/nope").status_code == 404
            refused = client.post(
                "/api/v1/judgings",
                json=body | {"judge": {"type": "http", "url": "http://10.1.2.3/v1", "model": "m"}},
            )
            assert refused.status_code == 422 and "not allowed" in refused.json()["detail"]
            outside = client.post("/api/v1/judgings", json=body | {"pairs": "/etc/hostname"})
            assert outside.status_code == 422
            callable_judge = client.post("/api/v1/judgings", json=body | {"judge": "json:loads"})
            assert callable_judge.status_code == 422
            assert "--allow-callable" in callable_judge.json()["detail"]
        service.close()


def test_the_task_page_fills_the_holes_with_a_judge_and_scores_the_task_again(
    tmp_path: Path, beir_dir: Path, toy_module: str
) -> None:
    import re

    db = str(tmp_path / "tasks.db")
    _, evaluation = _evaluated(tmp_path, toy_module, db)
    with serve_chat() as server:
        service = EvaluationService(db)
        with client_for(service, tmp_path) as client:
            page = client.get(f"/tasks/{evaluation}")
            assert page.status_code == 200 and 'id="judge-form"' in page.text
            csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)
            assert csrf is not None
            form = {
                "csrf": csrf[1],
                "judge_url": server.url,
                "judge_model": "judge-model",
                "depth": "5",
                "calibration_sample": "3",
                "judging_name": "holes",
            }
            refused = client.post(f"/tasks/{evaluation}/judge", data=form | {"csrf": "0" * 32},
                                  follow_redirects=False)  # fmt: skip
            assert refused.status_code == 403
            started = client.post(f"/tasks/{evaluation}/judge", data=form, follow_redirects=False)
            assert started.status_code == 303
            judging_id = started.headers["location"].rsplit("/", 1)[1]
            assert started.headers["location"] == f"/judgings/{judging_id}"
            done = service.wait_judging(judging_id, timeout=60)
            assert done.status == "succeeded" and done.source == {"evaluation": evaluation,
                                                                  "depth": 5}  # fmt: skip

            shown = client.get(f"/judgings/{judging_id}")
            assert shown.status_code == 200
            assert "default-src 'none'" in shown.headers["content-security-policy"]
            assert f"{done.total} of {done.total} pairs judged (100 %)" in shown.text
            assert 'id="agreement"' in shown.text and "3 pairs both judged" in shown.text
            again = service.reevaluation(judging_id)
            assert again is not None
            for name in again["measures"]:
                assert f'<tr data-measure="{name}">' in shown.text
                assert f'data-when="after">{again["after"][name]:.4f}<' in shown.text
            # The task's page links to its judging task.
            assert f'href="/judgings/{judging_id}"' in client.get(f"/tasks/{evaluation}").text
            wrong = client.post(f"/tasks/{evaluation}/judge", data=form | {"judge_url": "ftp://x"},
                                follow_redirects=False)  # fmt: skip
            assert wrong.status_code == 303 and "message=" in wrong.headers["location"]
            assert client.get("/judgings/nope").status_code == 404
        service.close()


def test_the_judgings_of_a_task_are_found_by_its_index_also_in_a_version_4_store(
    tmp_path: Path, toy_module: str
) -> None:
    import sqlite3

    db = tmp_path / "tasks.db"
    _, evaluation = _evaluated(tmp_path, toy_module, str(db))
    files = write_inputs(tmp_path / "in", 3)
    service = EvaluationService(db)
    try:
        holes = service.submit_judging("json:loads", holes_of=evaluation, depth=5)
        pool = service.submit_judging("json:loads", **files)
        assert [j.id for j in service.judgings_of(evaluation)] == [holes.id]
        assert service.judgings_of(pool.id) == []
        plan = (
            service.store._connection()
            .execute(
                "EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE kind = 'judging' "
                "AND source_task = ?",
                (evaluation,),
            )
            .fetchall()
        )
        assert any("tasks_by_source" in str(tuple(row)) for row in plan)
    finally:
        service.close()
    with sqlite3.connect(db) as old:
        old.execute("DROP INDEX tasks_by_source")
        for column in ("answer_counts", "source_task", "answer_failed"):
            old.execute(f"ALTER TABLE tasks DROP COLUMN {column}")
        old.execute("DROP TABLE answer_judgements")
        old.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    service = EvaluationService(db)
    try:
        # Brought up to date: the link read from the judging task's specification, indexed.
        assert [j.id for j in service.judgings_of(evaluation)] == [holes.id]
        assert service.get(evaluation).answer_counts == {}
        (version,) = (
            service.store._connection()
            .execute("SELECT value FROM meta WHERE key = 'schema_version'")
            .fetchone()
        )
        assert version == "6"
    finally:
        service.close()
