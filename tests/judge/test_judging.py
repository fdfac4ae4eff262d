"""Stored, resumable judging (``rankscope judge``, `judge_pairs`) against a local
OpenAI-compatible server started by the test, on SQLite and on PostgreSQL: every pair judged
exactly once across a SIGKILL of the judging process and a resume, every call the server saw
stored, the injected failures counted by kind and no grade invented; calibration on human
pairs; the grades written as qrels, merged with human ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from chat_server import ChatServer, grade_of, passage, query, serve_chat, write_inputs
from rankscope.cli import EXIT_OK, EXIT_USAGE, main
from rankscope.errors import TaskStateError
from rankscope.io import read_qrels
from rankscope.judge import CallableJudge, ChatJudge, judge_pairs, judged_qrels
from rankscope.service.store import open_store
from rankscope.service.store.judging import (
    JudgePair,
    create_judging,
    judging_calls,
    stored_grades,
)

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[2]


def base_command(files: dict[str, str], db: str, output: str) -> list[str]:
    """``rankscope judge``'s arguments but the judge."""
    inputs = ["--queries", files["queries"], "--corpus", files["corpus"]]
    return ["judge", files["pairs"], *inputs, "--db", db, "-o", output]


def judge_command(files: dict[str, str], url: str, db: str, output: str, *extra: str) -> list[str]:
    judge = ["--url", url, "--model", "judge-model", "--backoff", "0.01"]
    return [*base_command(files, db, output), *judge, *extra]


def judging_task(location: str) -> str:
    store = open_store(location)
    try:
        tasks, count = store.list_tasks(kind="judging")
        assert count == 1
        return str(tasks[0]["id"])
    finally:
        store.close()


def grades_stored(location: str) -> int:
    store = open_store(location)
    try:
        return int(store._connection().execute("SELECT COUNT(*) FROM judge_grades").fetchone()[0])
    except Exception:  # the judging process has not created the tables yet
        return 0
    finally:
        store.close()


# -- a kill and a resume --------------------------------------------------------------------


def test_every_pair_is_judged_once_across_a_kill_and_resume(
    store_location: str, tmp_path: Path
) -> None:
    count, concurrency = 30, 2
    files = write_inputs(tmp_path / "in", count)
    output = str(tmp_path / "judged.qrels")
    with serve_chat(ChatServer(delay=0.08)) as server:
        command = [
            sys.executable,
            "-m",
            "rankscope",
            *judge_command(
                files, server.url, store_location, output, "--concurrency", str(concurrency)
            ),
        ]
        first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while grades_stored(store_location) < 8:
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the judging process stored nothing"
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        assert first.returncode == -signal.SIGKILL
        store = open_store(store_location)
        task_id = judging_task(store_location)
        before = {(g.pair.query_id, g.pair.doc_id) for g in stored_grades(store, task_id)}
        assert 8 <= len(before) < count
        assert not Path(output).exists()
        asked_before_resume = sum(server.calls.values())

        resumed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert resumed.returncode == EXIT_OK, resumed.stderr
        assert f"({len(before)} judged before, not asked again)" in resumed.stderr
        assert f": {count} graded, 0 failed" in resumed.stderr

        grades = stored_grades(store, task_id)
        calls = judging_calls(store, task_id)
        store.close()
        # Every pair once, with the server's grade.
        assert len(grades) == count
        assert sorted((g.pair.query_id, g.pair.doc_id) for g in grades) == [
            (f"q{i:02d}", f"d{i:02d}") for i in range(count)
        ]
        assert all(
            g.grade == grade_of(query(int(g.pair.query_id[1:])), passage(int(g.pair.query_id[1:])))
            for g in grades
        )
        # Nothing judged before the kill was asked again; what was in flight at the kill
        # (at most `concurrency` pairs, answered but not yet stored) was asked once more.
        for i in range(count):
            asked = server.calls[(query(i), passage(i))]
            if (f"q{i:02d}", f"d{i:02d}") in before:
                assert asked == 1
            else:
                assert 1 <= asked <= 2
        total_asked = sum(server.calls.values())
        assert count <= total_asked <= count + concurrency
        assert total_asked - asked_before_resume == count - len(before)
        # One stored, answered call per pair: those lost in the kill were never stored.
        assert len(calls) == count and {c["outcome"] for c in calls} == {"answered"}
        assert len({(c["query_id"], c["doc_id"]) for c in calls}) == count
        assert len({c["owner"] for c in calls}) == 2  # the killed run and the resumed one
    written = read_qrels(output).frame.rows()
    assert written == [
        (f"q{i:02d}", f"d{i:02d}", grade_of(query(i), passage(i))) for i in range(count)
    ]


# -- injected failures ------------------------------------------------------------------------

FAULTS: dict[int, Any] = {
    0: lambda attempt: "timeout" if attempt == 1 else None,  # retried, then graded
    1: lambda attempt: "429" if attempt <= 2 else None,  # retried twice, then graded
    2: lambda attempt: "429",  # rate limited
    3: lambda attempt: "503",  # server error
    4: lambda attempt: "malformed",
    5: lambda attempt: "no choices",  # malformed too
    6: lambda attempt: "truncated",
    7: lambda attempt: "no grade",
    8: lambda attempt: "400",  # refused
    9: lambda attempt: "timeout",  # timed out
}
EXPECTED_FAILURES = {
    "malformed": 2,
    "no grade": 1,
    "rate limited": 1,
    "refused": 1,
    "server error": 1,
    "timed out": 1,
    "truncated": 1,
}


def faults(query_text: str, passage_text: str, attempt: int) -> str | None:
    index = int(query_text.rsplit(" ", 1)[1])
    fault = FAULTS.get(index)
    return None if fault is None else fault(attempt)


def test_injected_failures_are_counted_by_kind_and_no_grade_is_invented(
    store_location: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 20
    files = write_inputs(tmp_path / "in", count)
    output = str(tmp_path / "judged.csv")
    with serve_chat(ChatServer(faults=faults, hang=1.0)) as server:
        code = main(
            judge_command(
                files, server.url, store_location, output, "--timeout", "0.3", "--retries", "2"
            )
        )
        err = capsys.readouterr().err
        assert code == EXIT_OK, err
        asked = sum(server.calls.values())
    failed = sum(EXPECTED_FAILURES.values())
    shown = ", ".join(f"{kind} {n}" for kind, n in sorted(EXPECTED_FAILURES.items()))
    assert f"judged {count} pairs: {count - failed} graded, {failed} failed ({shown})" in err
    store = open_store(store_location)
    task_id = judging_task(store_location)
    grades = {g.pair.query_id: g for g in stored_grades(store, task_id)}
    calls = judging_calls(store, task_id)
    tallies = store.task(task_id)["tallies"]
    store.close()
    assert tallies["failures"] == EXPECTED_FAILURES
    # Every call the server saw is stored; the retries are counted by outcome.
    assert len(calls) == asked == sum(tallies["calls"].values())
    assert tallies["calls"]["timed out"] == 1 + 3
    assert tallies["calls"]["rate limited"] == 2 + 3
    assert tallies["calls"]["server error"] == 3
    assert grades["q00"].grade == grade_of(query(0), passage(0)) and grades["q00"].attempts == 2
    assert grades["q01"].grade == grade_of(query(1), passage(1)) and grades["q01"].attempts == 3
    kinds = {f"q{i:02d}": grades[f"q{i:02d}"].failure for i in range(2, 10)}
    assert kinds == {
        "q02": "rate limited",
        "q03": "server error",
        "q04": "malformed",
        "q05": "malformed",
        "q06": "truncated",
        "q07": "no grade",
        "q08": "refused",
        "q09": "timed out",
    }
    for i in range(2, 10):
        assert grades[f"q{i:02d}"].grade is None and grades[f"q{i:02d}"].status == "failed"
    assert grades["q07"].answer == "I cannot tell from this passage."
    assert (grades["q06"].answer or "").startswith("The passage bears on the query in 2 ways")
    # The qrels hold the graded pairs only, each the server's grade, with its source.
    written = read_qrels(output).frame.rows()
    graded = [i for i in range(count) if i not in range(2, 10)]
    assert written == [(f"q{i:02d}", f"d{i:02d}", grade_of(query(i), passage(i))) for i in graded]
    assert Path(output).read_text().splitlines()[0] == "query_id,doc_id,relevance,source"


def test_a_failed_pair_is_not_asked_again_on_a_second_run(tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 4)
    db = str(tmp_path / "judging.db")
    with serve_chat(
        ChatServer(faults=lambda q, p, a: "no grade" if q.endswith(" 3") else None)
    ) as server:
        judge = ChatJudge(server.url, "judge-model", backoff=0.01)
        first = judge_pairs(
            files["pairs"], judge, queries=files["queries"], corpus=files["corpus"], store=db
        )
        second = judge_pairs(
            files["pairs"], judge, queries=files["queries"], corpus=files["corpus"], store=db
        )
        assert sum(server.calls.values()) == 4
    assert (first.graded, first.failed, first.failures) == (3, 1, {"no grade": 1})
    assert (second.resumed, second.graded, second.failed) == (4, 3, 1)
    assert second.task_id == first.task_id


def test_a_resumed_task_may_reach_its_judge_otherwise(tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 3)
    db = str(tmp_path / "judging.db")
    inputs = {"queries": files["queries"], "corpus": files["corpus"], "store": db}
    with serve_chat(ChatServer()) as server:
        first = judge_pairs(files["pairs"], ChatJudge(server.url, "judge-model"), **inputs)
        patient = ChatJudge(server.url, "judge-model", timeout=300, retries=9, backoff=0.5)
        again = judge_pairs(files["pairs"], patient, **inputs)
        other = judge_pairs(files["pairs"], ChatJudge(server.url, "other-model"), **inputs)
        assert sum(server.calls.values()) == 6  # the other model's task asked each pair
    assert again.task_id == first.task_id and (again.resumed, again.graded) == (3, 3)
    assert other.task_id != first.task_id and other.resumed == 0


def test_retry_failed_asks_the_failed_pairs_again_and_replaces_their_failure(
    store_location: str, tmp_path: Path
) -> None:
    files = write_inputs(tmp_path / "in", 4)
    state = ChatServer(faults=lambda q, p, a: "no grade" if q.endswith(" 3") and a == 1 else None)
    with serve_chat(state) as server:
        judge = ChatJudge(server.url, "judge-model", backoff=0.01)
        inputs: dict[str, Any] = {"queries": files["queries"], "corpus": files["corpus"]}
        first = judge_pairs(files["pairs"], judge, store=store_location, **inputs)
        again = judge_pairs(
            files["pairs"], judge, store=store_location, retry_failed=True, **inputs
        )
        assert server.calls[(query(3), passage(3))] == 2
        assert sum(server.calls.values()) == 5
    assert (first.graded, first.failed) == (3, 1)
    assert (again.resumed, again.graded, again.failed, again.failures) == (3, 4, 0, {})
    assert again.calls == {"answered": 5}
    store = open_store(store_location)
    try:
        grades = stored_grades(store, again.task_id)
    finally:
        store.close()
    assert [g.grade for g in grades] == [grade_of(query(i), passage(i)) for i in range(4)]


# -- calibration, merging --------------------------------------------------------------------


def test_calibration_judges_a_seeded_human_sample_first_and_reports_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 30
    files = write_inputs(tmp_path / "in", count)
    # Humans judged pairs 10-29; they agree with the server on 10-24, not on 25-29.
    human = tmp_path / "human.qrels"
    truth = {i: grade_of(query(i), passage(i)) for i in range(count)}
    human.write_text(
        "".join(
            f"q{i:02d} 0 d{i:02d} {truth[i] if i < 25 else (truth[i] + 1) % 4}\n"
            for i in range(10, count)
        )
    )
    (tmp_path / "pairs.qrels").write_text("".join(f"q{i:02d} 0 d{i:02d} -1\n" for i in range(10)))
    files["pairs"] = str(tmp_path / "pairs.qrels")
    output = str(tmp_path / "judged.qrels")
    with serve_chat(ChatServer()) as server:
        judge = ChatJudge(server.url, "judge-model", backoff=0.01)
        report = judge_pairs(
            files["pairs"],
            judge,
            queries=files["queries"],
            corpus=files["corpus"],
            store=tmp_path / "j.db",
            calibrate=str(human),
            calibration_sample=20,
        )
        assert server.prompts[0][-1]["content"].count("topic") >= 1
        code = main(
            judge_command(
                files,
                server.url,
                str(tmp_path / "j2.db"),
                output,
                "--calibrate",
                str(human),
                "--calibration-sample",
                "20",
                "--concurrency",
                "1",
            )
        )
        err = capsys.readouterr().err
        # With one call at a time the order is the task's: the calibration pairs first.
        first = [server.pair(p)[0] for p in server.prompts[-30:-10]]
        assert sorted(first) == sorted(query(i) for i in range(10, 30))
    assert code == EXIT_OK, err
    found = report.calibration
    assert found is not None and found.shared == 20
    assert found.same_grade == pytest.approx(15 / 20)
    assert "calibration on the human-judged sample (A: human, B: judge)" in err
    assert "same grade" in err and "0.7500" in err and "Krippendorff's alpha" in err
    # The calibration pairs are not in the judged qrels.
    assert [q for q, _, _ in read_qrels(output).frame.rows()] == [f"q{i:02d}" for i in range(10)]


def test_a_smaller_sample_is_seeded(tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 12)
    human = {f"q{i:02d}": {f"d{i:02d}": 1} for i in range(12)}
    pairs = {"q00": {"d00": -1}}
    judge = CallableJudge(lambda q, p: 1)

    def sampled(seed: int, db: str) -> list[str]:
        judge_pairs(
            pairs,
            judge,
            queries=files["queries"],
            corpus=files["corpus"],
            store=tmp_path / db,
            calibrate=human,
            calibration_sample=4,
            seed=seed,
        )
        store = open_store(tmp_path / db)
        try:
            task_id = store.list_tasks(kind="judging")[0][0]["id"]
            return [g.pair.query_id for g in stored_grades(store, task_id) if g.pair.calibration]
        finally:
            store.close()

    assert sampled(1, "a.db") == sampled(1, "b.db")
    assert len(sampled(1, "c.db")) == 4 and "q00" not in sampled(1, "d.db")
    assert sampled(1, "e.db") != sampled(2, "f.db")


def test_merged_qrels_keep_the_human_grade_and_name_each_source(tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 3)
    db = tmp_path / "j.db"
    report = judge_pairs(
        files["pairs"],
        CallableJudge(lambda q, p: 2),
        queries=files["queries"],
        corpus=files["corpus"],
        store=db,
    )
    merged = judged_qrels(db, report.task_id, {"q00": {"d00": 0}, "q09": {"d09": 3}})
    assert merged.rows() == [
        ("q00", "d00", 0, "human"),
        ("q01", "d01", 2, "judge"),
        ("q02", "d02", 2, "judge"),
        ("q09", "d09", 3, "human"),
    ]


# -- the service keeps to its own tasks --------------------------------------------------------


def test_the_service_neither_lists_nor_runs_a_judging_task(store_location: str) -> None:
    store = open_store(store_location)
    try:
        create_judging(
            store,
            {"id": "j1", "spec": {}},
            [JudgePair(0, "q", "d")],
            {"q": "a query"},
            {"d": "a passage"},
        )
        assert store.claim_next("someone") is None
        assert store.list_tasks() == ([], 0)
        assert store.task_ids(("pending",)) == [] and store.count_tasks(("pending",)) == 0
        assert store.list_tasks(kind="judging")[1] == 1
    finally:
        store.close()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give the judge: --url and --model (an endpoint), or --python"),
        (["--url", "http://127.0.0.1:1/v1"], "give the judge"),
        (["--python", "json:loads", "--model", "m"], "--python replaces --url and --model"),
    ],
)
def test_refuses_a_missing_or_doubled_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    files = write_inputs(tmp_path / "in", 2)
    code = main([*base_command(files, str(tmp_path / "j.db"), "-"), *extra])
    assert code == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_merge_prints_the_agreement_where_humans_and_the_judge_both_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = write_inputs(tmp_path / "in", 6)
    truth = {i: grade_of(query(i), passage(i)) for i in range(6)}
    human = tmp_path / "human.qrels"
    human.write_text(
        "".join(
            f"q{i:02d} 0 d{i:02d} {truth[i] if i < 3 else (truth[i] + 1) % 4}\n" for i in range(4)
        )
        + "q09 0 d09 2\n"
    )
    output = tmp_path / "judged.jsonl"
    with serve_chat(ChatServer()) as server:
        code = main(
            judge_command(
                files, server.url, str(tmp_path / "j.db"), str(output), "--merge", str(human)
            )
        )
    err = capsys.readouterr().err
    assert code == EXIT_OK, err
    assert f"agreement with {human} (A: human, B: judge)" in err
    assert "4 pairs judged in both (1 judged in QRELS_A only, 2 in QRELS_B only)" in err
    assert "same grade" in err and "0.7500" in err
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert [(r["query_id"], r["relevance"], r["source"]) for r in rows] == [
        ("q00", truth[0], "human"),
        ("q01", truth[1], "human"),
        ("q02", truth[2], "human"),
        ("q03", (truth[3] + 1) % 4, "human"),
        ("q04", truth[4], "judge"),
        ("q05", truth[5], "judge"),
        ("q09", 2, "human"),
    ]


def test_a_task_another_live_process_is_judging_is_refused(tmp_path: Path) -> None:
    files = write_inputs(tmp_path / "in", 6)
    db = str(tmp_path / "j.db")
    with serve_chat(ChatServer(delay=0.3)) as server:
        command = [sys.executable, "-m", "rankscope", *judge_command(files, server.url, db, "-")]
        other = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while grades_stored(db) < 1:
                assert other.poll() is None and time.monotonic() < deadline
                time.sleep(0.02)
            judge = ChatJudge(server.url, "judge-model", backoff=0.01)
            with pytest.raises(TaskStateError, match="is running in another process"):
                judge_pairs(
                    files["pairs"],
                    judge,
                    queries=files["queries"],
                    corpus=files["corpus"],
                    store=db,
                )
        finally:
            other.kill()
            other.wait()


# -- progress --------------------------------------------------------------------------------


def test_a_piped_run_prints_counts_of_the_pairs_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = write_inputs(tmp_path / "in", 20)
    db, output = str(tmp_path / "judging.db"), str(tmp_path / "judged.qrels")
    with serve_chat() as server:
        assert main(judge_command(files, server.url, db, output)) == EXIT_OK
    lines = capsys.readouterr().err.splitlines()
    counted = [line for line in lines if line.endswith("pairs judged")]
    # Standard error is no terminal here: a line each tenth of the pairs, the last included.
    assert counted == [f"rankscope: judge: {n} of 20 pairs judged" for n in range(2, 21, 2)]
    assert lines.index(counted[-1]) < lines.index(
        "rankscope: judge: judged 20 pairs: 20 graded, 0 failed"
    )


def test_progress_calls_back_with_the_pairs_judged(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    judge = CallableJudge(lambda query, passage: 1)
    pairs = {"q1": {f"d{i}": -1 for i in range(5)}}
    texts = {f"d{i}": f"passage {i}" for i in range(5)}
    report = judge_pairs(pairs, judge, queries={"q1": "a query"}, corpus=texts,
                         store=tmp_path / "judging.db", concurrency=1,
                         progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert report.graded == 5 and seen == [(n, 5) for n in range(1, 6)]
    again: list[tuple[int, int]] = []
    judge_pairs(pairs, judge, queries={"q1": "a query"}, corpus=texts,
                store=tmp_path / "judging.db",
                progress=lambda done, total: again.append((done, total)))  # fmt: skip
    assert again == []  # nothing left to judge


def test_judging_from_inside_an_event_loop_runs_in_a_thread_of_its_own(tmp_path: Path) -> None:
    import asyncio

    async def in_a_notebook() -> Any:
        return judge_pairs({"q1": {"d1": -1, "d2": -1}}, CallableJudge(lambda q, p: 2),
                           queries={"q1": "a query"}, corpus={"d1": "one", "d2": "two"},
                           store=tmp_path / "judging.db")  # fmt: skip

    report = asyncio.run(in_a_notebook())
    assert (report.graded, report.failed) == (2, 0)


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_run_on_a_terminal_draws_a_bar(tmp_path: Path) -> None:
    import pty

    files = write_inputs(tmp_path / "in", 6)
    db, output = str(tmp_path / "judging.db"), str(tmp_path / "judged.qrels")
    with serve_chat(ChatServer(delay=0.1)) as server:
        command = [sys.executable, "-m", "rankscope", *judge_command(files, server.url, db, output)]
        leader, follower = pty.openpty()
        child = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower,
                                 env={**os.environ, "COLUMNS": "100", "TERM": "xterm"})  # fmt: skip
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        os.close(leader)
        assert child.wait(timeout=60) == EXIT_OK
    text = shown.decode("utf-8", "replace")
    # rich's bar: the label, pairs judged of all and the failures so far; no counted lines.
    assert "judging" in text and "6/6" in text and "failed 0" in text
    assert "pairs judged" not in text
    assert "judged 6 pairs: 6 graded, 0 failed" in text
