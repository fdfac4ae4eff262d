"""Judged answer measures in a task with a generator, against the local OpenAI-compatible
server the judge tests start, on both back-ends of the store: the values equal
`rankscope.evaluate_answers` with the same judge; an answer the judge gives no grade is
counted apart per measure (never in the mean); a SIGKILL of the running process, resumed as a
server resumes at start-up, asks every asking exactly once; the HTTP API and its checks."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from service_helpers import client_for, make_beir

import rankscope
from chat_server import ChatServer, serve_chat
from rankscope.errors import InputError
from rankscope.judge import ChatJudge
from rankscope.service import EvaluationService, load_dataset
from rankscope.service.store import open_store
from rankscope.service.store.judging import answer_calls, answer_judgements
from rankscope.service.web.models import TaskOut

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

QUESTION = re.compile(r"Question: .* q(\d+)\n")
MEASURES = ["TokenF1", "Faithfulness", "AnswerRelevance(repeats=2)",
            "AnswerRelevance(repeats=2,stat=failed)", "ReferenceAgreement"]  # fmt: skip


def chat_judge(url: str) -> dict[str, object]:
    return {"type": "http", "url": url, "model": "judge-model", "backoff": 0.01, "timeout": 5}


def question_of(prompt: str) -> int:
    found = QUESTION.search(prompt)
    assert found is not None, prompt
    return int(found[1])


def faults(prompt: str, passage: str, attempt: int) -> str | None:
    """No grade for every AnswerRelevance asking of q0-q5's answers, for the first asking of
    q6-q11's; a malformed body for Faithfulness of q3."""
    i = question_of(prompt)
    if prompt.startswith("Grade how well the answer addresses") and (
        i < 6 or (i < 12 and attempt == 1)
    ):
        return "no grade"
    if prompt.startswith("Grade how far every statement") and i == 3:
        return "malformed"
    return None


def test_judged_measures_equal_evaluate_answers_and_failures_are_counted(
    store_location: str, tmp_path: Path, toy_module: str
) -> None:
    beir = make_beir(tmp_path / "answered", answers=True)
    data = load_dataset(beir)
    with serve_chat(ChatServer(faults=faults)) as server:
        service = EvaluationService(store_location)
        try:
            task = service.submit(
                data,
                f"{toy_module}:search",
                profile="trec",
                generator=f"{toy_module}:answer",
                answer_measures=MEASURES,
                answer_judge={"judge": chat_judge(server.url), "concurrency": 3},
            )
            assert task.spec.answer_judge == {
                "judge": task.spec.answer_judge["judge"],
                "concurrency": 3,
                "repeats": None,
                "prompts": {},
            }
            info = service.run(task.id)
            records = service.query_results(task.id, status="succeeded")
            asked = answer_judgements(service.store, task.id)
        finally:
            service.close()
        calls = sum(server.calls.values())
        # Every answer is judged: Faithfulness once, AnswerRelevance twice (the failed
        # statistic shares those askings); ReferenceAgreement once, of the 24 answers with a
        # reference (the other six, to every fifth question, are judged by the measures that
        # need none).
        answered = [r for r in records if r.answer_metrics is not None]
        assert info.status == "succeeded" and info.answered == len(answered) == 30
        assert len(asked) == calls == 3 * 30 + 24
        assert {a["query_id"] for a in asked if a["measure"] == "ReferenceAgreement"} == set(
            data.references
        )
        assert all(count == 1 for (prompt, _), count in server.calls.items()
                   if not prompt.startswith("Grade how well"))  # fmt: skip

        # The same values as evaluate_answers with the same judge (asked afresh: the faults
        # are by attempt), NaN where no grade.
        server.calls.clear()
        corpus = dict(data.corpus())
        references = {q: list(texts) for q, texts in data.references.items()}
        answers = {r.query_id: r.answer or "" for r in answered}
        with (
            pytest.warns(rankscope.RankscopeWarning, match="judge askings gave no grade"),
            pytest.warns(rankscope.RankscopeWarning, match="6 answers .* no reference answer"),
        ):
            expected = rankscope.evaluate_answers(
                {q: references[q] for q in answers if q in references},
                answers,
                MEASURES,
                judge=ChatJudge(server.url, "judge-model", backoff=0.01, timeout=5),
                questions={q: text for q, text in data.queries},
                contexts={r.query_id: [corpus[d] for d in r.doc_ids] for r in answered},
            ).to_dict()
        relevance = "AnswerRelevance(repeats=2)"
        free = ["Faithfulness", "AnswerRelevance(repeats=2)",
                "AnswerRelevance(repeats=2,stat=failed)"]  # fmt: skip
        for record in answered:
            values = record.answer_metrics or {}
            referenced = record.query_id in references
            assert list(values) == (MEASURES if referenced else free)
            for name in MEASURES if referenced else free:
                want = expected[record.query_id][name]
                assert (math.isnan(values[name]) and math.isnan(want)) or values[name] == want
            i = int(record.query_id[1:])
            assert math.isnan(values[relevance]) == (i < 6)
            assert values["AnswerRelevance(repeats=2,stat=failed)"] == (
                1.0 if i < 6 else 0.5 if i < 12 else 0.0
            )
            assert math.isnan(values["Faithfulness"]) == (i == 3)

        # Counted per measure, and the means over the answers judged.
        failed = sum(1 for r in answered if int(r.query_id[1:]) < 6)
        assert failed == 6
        assert info.answer_counts[relevance] == 30 - failed
        assert info.answer_counts["Faithfulness"] == 29 and info.answer_counts["TokenF1"] == 24
        graded = [r.answer_metrics[relevance] for r in answered if int(r.query_id[1:]) >= 6]
        assert info.answer_metrics[relevance] == pytest.approx(sum(graded) / len(graded))
        assert all(math.isfinite(value) for value in info.answer_metrics.values())
        counts = info.to_dict()["answers"]["counts"]
        assert counts[relevance] == {"scored": 30 - failed, "failed": failed}
        assert counts["Faithfulness"] == {"scored": 29, "failed": 1}
        assert counts["TokenF1"] == {"scored": 24, "failed": 0}
        assert counts["ReferenceAgreement"] == {"scored": 24, "failed": 0}
        assert info.answer_note == (
            "6 of 30 questions have no reference answer: Faithfulness, "
            "AnswerRelevance(repeats=2), AnswerRelevance(repeats=2,stat=failed) judge their "
            "answers, TokenF1, ReferenceAgreement need one and skip them"
        )

        # What the judge did, as the store tallied it as each asking ended: the API's model.
        shown = TaskOut.model_validate(info.to_dict()).answers
        assert shown is not None
        tallies = shown.tallies
        assert tallies is not None and tallies.askings == len(asked) == 3 * 30 + 24
        assert tallies.asked == dict(sorted(Counter(a["measure"] for a in asked).items()))
        unanswered = [a for a in asked if a["grade"] is None]
        assert tallies.failed == dict(sorted(Counter(a["measure"] for a in unanswered).items()))
        assert tallies.failures == dict(sorted(Counter(a["failure"] for a in unanswered).items()))
        assert tallies.failed == {"AnswerRelevance": 6 * 2 + 6, "Faithfulness": 1}
        assert sum(tallies.calls.values()) == len(asked)
        reported = [a for a in asked if a["prompt_tokens"] is not None]
        assert len(reported) >= len(asked) - 1  # the malformed body reports nothing
        assert tallies.prompt_tokens == sum(a["prompt_tokens"] for a in reported)
        assert tallies.prompt_tokens >= 100 * len(reported)
        assert tallies.completion_tokens == 7 * len(reported)
        assert info.judge_tallies is not None and info.judge_tallies.askings == len(asked)

    if store_location.startswith("postgres"):
        return
    # A version 5 store (no count of the answers the judge failed to grade) gains them from
    # the task's results when it is opened.
    import sqlite3

    with sqlite3.connect(store_location) as old:
        old.execute("ALTER TABLE tasks DROP COLUMN answer_failed")
        old.execute("DROP TABLE answer_calls")
        old.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    service = EvaluationService(store_location)
    try:
        again = service.get(task.id)
        # The table of calls is there again; the calls of version 5 are not made up.
        assert answer_calls(service.store, task.id) == []
    finally:
        service.close()
    assert again.answer_counts == info.answer_counts
    assert again.answer_failed == info.answer_failed
    assert again.answer_failed[relevance] == failed and again.answer_failed["TokenF1"] == 0


def test_every_call_of_the_judge_of_answers_is_a_row_the_deciding_one_marked(
    store_location: str, tmp_path: Path, toy_module: str
) -> None:
    def retried(prompt: str, passage: str, attempt: int) -> str | None:
        """A 503 for the first call of q0-q2's asking, a 429 for the second of q0's."""
        i = question_of(prompt)
        if i < 3 and attempt == 1:
            return "503"
        return "429" if i == 0 and attempt == 2 else None

    data = load_dataset(make_beir(tmp_path / "answered", answers=True))
    with serve_chat(ChatServer(faults=retried)) as server:
        service = EvaluationService(store_location)
        try:
            task = service.submit(
                data,
                f"{toy_module}:search",
                profile="trec",
                generator=f"{toy_module}:answer",
                answer_measures=["AnswerRelevance"],
                answer_judge={"judge": chat_judge(server.url), "concurrency": 2},
            )
            info = service.run(task.id)
            calls = answer_calls(service.store, task.id)
            asked = answer_judgements(service.store, task.id)
        finally:
            service.close()
    assert info.status == "succeeded" and len(asked) == 30
    # One row per call the server answered, retries included: 30 askings, 3 + 1 retried.
    assert len(calls) == sum(server.calls.values()) == 34
    assert sum(a["attempts"] for a in asked) == len(calls)
    by_asking: dict[str, list[dict[str, Any]]] = {}
    for call in calls:
        assert (call["measure"], call["repeats"], call["asking"]) == ("AnswerRelevance", 1, 0)
        by_asking.setdefault(str(call["query_id"]), []).append(call)
    assert sorted(by_asking) == sorted(a["query_id"] for a in asked)
    for query_id, made in by_asking.items():
        # In the order made, numbered from 1; the last call decides, and only it.
        assert [c["number"] for c in made] == list(range(1, len(made) + 1))
        assert [c["deciding"] for c in made] == [0] * (len(made) - 1) + [1]
        assert made[-1]["outcome"] == "answered" and made[-1]["prompt_tokens"] is not None
        outcomes = [c["outcome"] for c in made[:-1]]
        i = int(query_id[1:])
        assert outcomes == (
            ["server error", "rate limited"] if i == 0 else ["server error"] if i < 3 else []
        )
        assert all(c["answer"] is not None and c["error"] for c in made[:-1])
    # The tallies count every call, as the rows do.
    tallies = info.judge_tallies
    assert tallies is not None and tallies.askings == 30
    assert tallies.calls == dict(sorted(Counter(str(c["outcome"]) for c in calls).items()))
    assert tallies.calls == {"answered": 30, "rate limited": 1, "server error": 3}
    assert tallies.prompt_tokens == sum(c["prompt_tokens"] or 0 for c in calls)


CHILD = """
import sys
from rankscope.service import EvaluationService
EvaluationService(sys.argv[1]).run(sys.argv[2])
"""


def _asked(location: str, task_id: str) -> int:
    store = open_store(location)
    try:
        return len(answer_judgements(store, task_id))
    finally:
        store.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_sigkill_mid_task_then_resume_asks_every_asking_once(
    store_location: str, tmp_path: Path, toy_module: str
) -> None:
    data = load_dataset(make_beir(tmp_path / "answered", answers=True))
    with serve_chat(ChatServer(delay=0.03)) as server:
        service = EvaluationService(store_location)
        task = service.submit(
            data,
            f"{toy_module}:search",
            profile="trec",
            generator=f"{toy_module}:answer",
            answer_measures=["AnswerRelevance", "ReferenceAgreement(stat=sd)"],
            answer_judge={"judge": chat_judge(server.url), "repeats": 2, "concurrency": 2},
            concurrency=2,
        )
        assert task.answer_measures == ("AnswerRelevance(repeats=2)",
                                        "ReferenceAgreement(repeats=2,stat=sd)")  # fmt: skip
        service.close()
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                [str(tmp_path / "modules"), os.environ.get("PYTHONPATH", "")]
            ),
        }
        child = subprocess.Popen([sys.executable, "-c", CHILD, store_location, task.id], env=env)
        try:
            deadline = time.monotonic() + 60
            while _asked(store_location, task.id) < 12:
                assert child.poll() is None, "the task's process ended before it was killed"
                assert time.monotonic() < deadline, "the task's process judged too little"
                time.sleep(0.01)
            child.send_signal(signal.SIGKILL)
        finally:
            child.kill()
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL

        resumed = EvaluationService(store_location)
        try:
            before = {
                (a["query_id"], a["measure"], a["number"])
                for a in answer_judgements(resumed.store, task.id)
            }
            assert resumed.get(task.id).status == "running"
            asked_before = sum(server.calls.values())
            assert resumed.recover("resume") == [task.id]
            done = resumed.wait(task.id, timeout=120)
            asked = answer_judgements(resumed.store, task.id)
        finally:
            resumed.close()
    # Every answer judged by AnswerRelevance, the 24 with a reference by ReferenceAgreement.
    assert done.status == "succeeded" and done.answered == 30
    # Two askings per measure and answer, each stored once; none stored before the kill was
    # asked again (what was in flight then, answered and never stored, was asked once more).
    assert len(asked) == 2 * (30 + 24) and len({a["owner"] for a in asked}) == 2
    assert sum(server.calls.values()) - asked_before == len(asked) - len(before)
    in_flight = asked_before - len(before)
    assert 0 <= in_flight <= 2  # the judge's concurrency
    assert all(count in (2, 3) for count in server.calls.values())
    assert done.answer_counts == {
        "AnswerRelevance(repeats=2)": 30,
        "ReferenceAgreement(repeats=2,stat=sd)": 24,
    }
    assert done.answer_failed == {name: 0 for name in done.answer_measures}


def test_the_api_takes_an_answer_judge_and_checks_it(tmp_path: Path, toy_module: str) -> None:
    beir = make_beir(tmp_path / "answered", answers=True)
    with serve_chat() as server:
        service = EvaluationService(tmp_path / "tasks.db")
        with client_for(service, tmp_path, allowed_callables=[f"{toy_module}:*"]) as client:
            body = {
                "dataset": "answered",
                "retriever": f"{toy_module}:search",
                "profile": "trec",
                "generator": f"{toy_module}:answer",
                "answer_measures": ["AnswerRelevance", "TokenF1"],
                "answer_judge": {"judge": chat_judge(server.url), "concurrency": 2},
            }
            started = client.post("/api/v1/evaluations", json=body)
            assert started.status_code == 202, started.text
            task_id = started.json()["id"]
            done = service.wait(task_id, timeout=60)
            assert done.status == "succeeded", done.error
            shown = client.get(f"/api/v1/evaluations/{task_id}").json()["answers"]
            assert shown["counts"]["AnswerRelevance"] == {"scored": 30, "failed": 0}
            assert shown["counts"]["TokenF1"] == {"scored": 24, "failed": 0}
            assert shown["judge"]["judge"]["model"] == "judge-model"
            tallies = shown["tallies"]
            assert tallies["askings"] == 30 and tallies["calls"] == {"answered": 30}
            assert tallies["completion_tokens"] == 7 * 30
            page = client.get(f"/tasks/{task_id}").text
            assert (
                f'<p class="hint" id="judge-tallies">Judge: 30 askings, 0 without a grade; 30 '
                f"calls (answered 30); tokens {tallies['prompt_tokens']} prompt, 210 "
                "completion</p>"
            ) in page

            refused = client.post(
                "/api/v1/evaluations",
                json=body | {"answer_judge": {"judge": chat_judge("http://10.1.2.3/v1")}},
            )
            assert refused.status_code == 422 and "not allowed" in refused.json()["detail"]
            unjudged = client.post("/api/v1/evaluations", json=body | {"answer_judge": None})
            assert unjudged.status_code == 422
            assert "graded by a judge" in unjudged.json()["detail"]
        service.close()
    assert beir.exists()


def test_an_answer_judge_is_checked_at_submission(tmp_path: Path, toy_module: str) -> None:
    data = load_dataset(make_beir(tmp_path / "answered", answers=True))
    service = EvaluationService(tmp_path / "tasks.db")
    judge = {"type": "http", "url": "http://127.0.0.1:9/v1", "model": "m"}

    def submit(**options: object) -> None:
        service.submit(data, f"{toy_module}:search", generator=f"{toy_module}:answer",
                       profile="trec", **options)  # type: ignore[arg-type]  # fmt: skip

    try:
        with pytest.raises(InputError, match="Faithfulness is graded by a judge"):
            submit(answer_measures=["Faithfulness"])
        with pytest.raises(InputError, match="the task names none"):
            submit(answer_measures=["TokenF1"], answer_judge={"judge": judge})
        with pytest.raises(InputError, match="unknown options"):
            submit(answer_measures=["Faithfulness"], answer_judge={"judge": judge, "n": 1})
        with pytest.raises(InputError, match="repeats must be an integer 1-100"):
            submit(answer_measures=["Faithfulness"], answer_judge={"judge": judge, "repeats": 0})
        with pytest.raises(InputError, match="a callable judge grades"):
            submit(answer_measures=["Faithfulness"], answer_judge={"judge": "json:loads"})
        with pytest.raises(InputError, match="which the task does not measure"):
            submit(
                answer_measures=["Faithfulness"],
                answer_judge={
                    "judge": judge,
                    "prompts": {"AnswerRelevance": "{question} {answer}"},
                },
            )
        with pytest.raises(InputError, match="go with a generator"):
            service.submit(data, f"{toy_module}:search", answer_judge={"judge": judge})
    finally:
        service.close()


def test_rankscope_run_takes_a_judge_of_answers(
    tmp_path: Path, toy_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankscope.cli import main

    beir = make_beir(tmp_path / "answered", answers=True)
    db = str(tmp_path / "cli.db")
    common = ["run", "--dataset", str(beir), "--retriever", f"{toy_module}:search", "--profile",
              "trec", "--generator", f"{toy_module}:answer", "-A", "TokenF1,AnswerRelevance",
              "--db", db]  # fmt: skip
    with serve_chat(ChatServer(faults=faults)) as server:
        judge = ["--judge-url", server.url, "--judge-model", "m", "--judge-backoff", "0.01"]
        assert main([*common, *judge, "--judge-repeats", "2", "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        answers = shown["answers"]
        assert answers["measures"] == ["TokenF1", "AnswerRelevance(repeats=2)"]
        assert answers["judge"]["repeats"] == 2 and answers["judge"]["judge"]["model"] == "m"
        # q0-q5's answers (q4 has no reference, AnswerRelevance needs none) got no grade in
        # either asking.
        assert answers["counts"]["AnswerRelevance(repeats=2)"] == {"scored": 24, "failed": 6}
        assert answers["counts"]["TokenF1"] == {"scored": 24, "failed": 0}
        assert sum(server.calls.values()) == 2 * 30
        tallies = answers["tallies"]
        assert tallies["askings"] == 2 * 30 and tallies["asked"] == {"AnswerRelevance": 60}
        assert main(["tasks", "show", shown["id"], "--db", db]) == 0
        out = capsys.readouterr().out
        assert "(over 24, 6 not graded)" in out
        failed = tallies["failed"]["AnswerRelevance"]
        assert failed == 6 * 2 + 6  # q0-q5 twice, q6-q11 once
        assert (
            f"  judge: 60 askings, {failed} without a grade (no grade {failed}); calls: 60 "
            f"({', '.join(f'{k} {n}' for k, n in tallies['calls'].items())}); tokens: "
            f"{tallies['prompt_tokens']} prompt, {7 * 60} completion\n"
        ) in out
    assert main([*common, "--judge-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--judge-url and --judge-model" in capsys.readouterr().err
    assert main([*common]) == 1
    assert "graded by a judge" in capsys.readouterr().err
