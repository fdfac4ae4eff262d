"""Judging tasks in the store: the pairs a judge grades, the texts it reads, every call it
makes and each pair's grade, written as they happen (the tables of
`rankscope.service.store.schema`).

The judged answer measures of an evaluation task keep each asking of their judge in
``answer_judgements`` as it ends, and each call in ``answer_calls`` (`AnswerLedger`).

A judging task is a row of ``tasks`` of kind ``judging``; its single writer (`JudgeWriter`)
commits each call that is retried at once, and the call that decides a pair with the pair's
grade (or failure) and the task's tallies, in one transaction. A pair is judged once: its
grade row is keyed by task, query and document, and a pair with a row is not asked again.

>>> import pathlib, tempfile
>>> from rankscope.service.store import open_store
>>> store = open_store(pathlib.Path(tempfile.mkdtemp()) / "judging.db")
>>> create_judging(store, {"id": "t1", "spec": {}}, [JudgePair(0, "q1", "d1")],
...                {"q1": "what is bm25"}, {"d1": "BM25 is a ranking function"})
>>> [pair.doc_id for pair in pending_pairs(store, "t1")], store.task("t1")["kind"]
(['d1'], 'judging')
>>> store.close()
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankscope.service.store.writer import OwnedWriter

if TYPE_CHECKING:
    from rankscope.judge import Call, Judgement
    from rankscope.service.store.base import Connection, Store

__all__ = [
    "AnswerLedger",
    "JudgePair",
    "JudgeWriter",
    "StoredGrade",
    "answer_calls",
    "answer_judgements",
    "create_judging",
    "judging_calls",
    "judging_pairs",
    "judging_texts",
    "pending_pairs",
    "stored_grades",
]


@dataclass(frozen=True)
class JudgePair:
    """A pair a judging task grades.

    Attributes
    ----------
    position
        Its place in the task's order (the calibration pairs first).
    query_id, doc_id
        The pair.
    calibration
        Whether it is a calibration pair (a human-judged pair judged again to measure the
        judge), and its human grade.
    """

    position: int
    query_id: str
    doc_id: str
    calibration: bool = False
    human: int | None = None


@dataclass(frozen=True)
class StoredGrade:
    """A pair's stored judgement: its grade, or why it has none (see `rankscope.judge.Judgement`).

    ``status`` is ``graded`` or ``failed``; ``attempts`` the calls the pair took.
    """

    pair: JudgePair
    status: str
    grade: int | None
    failure: str | None
    error: str | None
    answer: str | None
    attempts: int
    latency: float | None


def create_judging(
    store: Store,
    task: Mapping[str, Any],
    pairs: Sequence[JudgePair],
    queries: Mapping[str, str],
    documents: Mapping[str, str],
) -> None:
    """Insert a judging task (``id``, optional ``name``, ``spec``: the judge's and the
    inputs', optional ``source_task``: the evaluation task whose holes it fills), its pairs
    and the texts they need, in one transaction."""
    now = time.time()
    with store.transaction() as db:
        db.execute(
            "INSERT INTO tasks (id, name, status, created_at, updated_at, total, sums, spec, "
            "dataset, kind, tallies, source_task) VALUES (?, ?, 'pending', ?, ?, ?, '{}', ?, "
            "'{}', 'judging', '{}', ?)",
            (
                task["id"],
                task.get("name"),
                now,
                now,
                len(pairs),
                json.dumps(task["spec"]),
                task.get("source_task"),
            ),
        )
        db.executemany(
            "INSERT INTO judge_pairs (task_id, position, query_id, doc_id, calibration, human) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (task["id"], p.position, p.query_id, p.doc_id, int(p.calibration), p.human)
                for p in pairs
            ],
        )
        db.executemany(
            "INSERT INTO judge_texts (task_id, kind, id, text) VALUES (?, ?, ?, ?)",
            [(task["id"], "query", key, text) for key, text in queries.items()]
            + [(task["id"], "document", key, text) for key, text in documents.items()],
        )


def _pair(row: Any) -> JudgePair:
    return JudgePair(
        row["position"], row["query_id"], row["doc_id"], bool(row["calibration"]), row["human"]
    )


def judging_pairs(store: Store, task_id: str) -> list[JudgePair]:
    """The task's pairs, in order."""
    rows = (
        store._connection()
        .execute(
            "SELECT position, query_id, doc_id, calibration, human FROM judge_pairs "
            "WHERE task_id = ? ORDER BY position",
            (task_id,),
        )
        .fetchall()
    )
    return [_pair(row) for row in rows]


def pending_pairs(store: Store, task_id: str, failed: bool = False) -> list[JudgePair]:
    """The task's pairs without a stored judgement (and, with ``failed``, those whose stored
    judgement failed), in order: what a run (or a resumed one) has left to ask."""
    kept = " AND g.status = 'graded'" if failed else ""
    rows = (
        store._connection()
        .execute(
            "SELECT p.position, p.query_id, p.doc_id, p.calibration, p.human FROM judge_pairs p "
            "WHERE p.task_id = ? AND NOT EXISTS (SELECT 1 FROM judge_grades g WHERE "
            "g.task_id = p.task_id AND g.query_id = p.query_id AND g.doc_id = p.doc_id"
            f"{kept}) ORDER BY p.position",
            (task_id,),
        )
        .fetchall()
    )
    return [_pair(row) for row in rows]


def judging_texts(store: Store, task_id: str) -> tuple[dict[str, str], dict[str, str]]:
    """The texts of the task's queries and documents."""
    texts: dict[str, dict[str, str]] = {"query": {}, "document": {}}
    for kind, key, text in (
        store._connection()
        .execute("SELECT kind, id, text FROM judge_texts WHERE task_id = ?", (task_id,))
        .fetchall()
    ):
        texts[kind][key] = text
    return texts["query"], texts["document"]


def stored_grades(store: Store, task_id: str) -> list[StoredGrade]:
    """The task's judged pairs, in order."""
    rows = (
        store._connection()
        .execute(
            "SELECT g.position, g.query_id, g.doc_id, p.calibration, p.human, g.status, "
            "g.grade, g.failure, g.error, g.answer, g.attempts, g.latency FROM judge_grades g "
            "JOIN judge_pairs p ON p.task_id = g.task_id AND p.query_id = g.query_id AND "
            "p.doc_id = g.doc_id WHERE g.task_id = ? ORDER BY g.position",
            (task_id,),
        )
        .fetchall()
    )
    return [
        StoredGrade(
            _pair(row),
            row["status"],
            row["grade"],
            row["failure"],
            row["error"],
            row["answer"],
            row["attempts"],
            row["latency"],
        )
        for row in rows
    ]


def _dicts(store: Store, sql: str, task_id: str) -> list[dict[str, Any]]:
    """The rows a query of one task's rows gives, as dicts."""
    rows = store._connection().execute(sql, (task_id,)).fetchall()
    return [{key: row[key] for key in row.keys()} for row in rows]  # noqa: SIM118


def judging_calls(store: Store, task_id: str) -> list[dict[str, Any]]:
    """Every stored call of the task, in the order they were made."""
    return _dicts(
        store,
        "SELECT query_id, doc_id, owner, number, started_at, latency, outcome, status, "
        "answer, error, prompt_tokens, completion_tokens, cost FROM judge_calls "
        "WHERE task_id = ? ORDER BY started_at, number",
        task_id,
    )


# What both call tables (judge_calls, answer_calls) store of a call, in this order.
_CALL_COLUMNS = (
    "number, started_at, latency, outcome, status, answer, error, prompt_tokens, "
    "completion_tokens, cost"
)


def _call_values(call: Call) -> tuple[Any, ...]:
    """A call's values for `_CALL_COLUMNS`."""
    return (
        call.number,
        call.started_at,
        call.latency,
        call.outcome,
        call.status,
        call.answer,
        call.error,
        call.prompt_tokens,
        call.completion_tokens,
        call.cost,
    )


def _add(tallies: dict[str, Any], group: str, key: str) -> None:
    counts = tallies.setdefault(group, {})
    counts[key] = counts.get(key, 0) + 1


def _count_call(tallies: dict[str, Any], call: Call) -> None:
    _add(tallies, "calls", call.outcome)
    for key in ("prompt_tokens", "completion_tokens", "cost"):
        value = getattr(call, key)
        if value is not None:
            tallies[key] = tallies.get(key, 0) + value


class JudgeWriter(OwnedWriter):
    """The single writer of a running judging task: each call as it ends, each pair's
    judgement with the call that decided it, the task's tallies and counters with them.

    Attributes
    ----------
    tallies
        The task's tallies as this writer last wrote them: ``grades`` (per grade),
        ``failures`` (per kind), ``calls`` (per outcome), ``prompt_tokens``,
        ``completion_tokens`` and ``cost``.
    """

    def started(self, task: dict[str, Any]) -> None:
        self.tallies: dict[str, Any] = dict(task["tallies"] or {})

    def _tallies(self, db: Connection) -> tuple[dict[str, Any], int, int]:
        row = self.locked(db, "tallies, succeeded, failed")
        return json.loads(row["tallies"] or "{}"), int(row["succeeded"]), int(row["failed"])

    def _insert_call(self, db: Connection, query_id: str, doc_id: str, call: Call) -> None:
        db.execute(
            "INSERT INTO judge_calls (task_id, call_id, query_id, doc_id, owner, "
            f"{_CALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.task_id, uuid.uuid4().hex, query_id, doc_id, self.owner, *_call_values(call)),
        )

    def call(self, pair: JudgePair, call: Call) -> None:
        """Commit a call that is retried (the pair is still being judged)."""
        with self.timed(), self.store.transaction() as db:
            tallies, _, _ = self._tallies(db)
            self._insert_call(db, pair.query_id, pair.doc_id, call)
            _count_call(tallies, call)
            db.execute(
                "UPDATE tasks SET tallies = ?, updated_at = ? WHERE id = ?",
                (json.dumps(tallies), time.time(), self.task_id),
            )
        self.tallies = tallies

    def judged(self, pair: JudgePair, judgement: Judgement) -> bool:
        """Commit a pair's judgement with the call that decided it, in place of a failed one
        (whose failure leaves the tallies); False (and nothing written) if the pair has a
        stored grade already."""
        with self.timed(), self.store.transaction() as db:
            tallies, succeeded, failed = self._tallies(db)
            stored = db.execute(
                "SELECT status, failure FROM judge_grades WHERE task_id = ? AND query_id = ? "
                "AND doc_id = ?",
                (self.task_id, pair.query_id, pair.doc_id),
            ).fetchone()
            if stored is not None:
                if stored["status"] == "graded":
                    return False
                kind = stored["failure"] or "error"
                tallies["failures"][kind] -= 1
                if not tallies["failures"][kind]:
                    del tallies["failures"][kind]
                failed -= 1
                db.execute(
                    "DELETE FROM judge_grades WHERE task_id = ? AND query_id = ? AND doc_id = ?",
                    (self.task_id, pair.query_id, pair.doc_id),
                )
            call = judgement.call
            if call is not None:
                self._insert_call(db, pair.query_id, pair.doc_id, call)
                _count_call(tallies, call)
            if judgement.grade is None:
                _add(tallies, "failures", judgement.failure or "error")
                failed += 1
            else:
                _add(tallies, "grades", str(judgement.grade))
                succeeded += 1
            db.execute(
                "INSERT INTO judge_grades (task_id, query_id, doc_id, position, status, grade, "
                "failure, error, answer, attempts, latency, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.task_id,
                    pair.query_id,
                    pair.doc_id,
                    pair.position,
                    "failed" if judgement.grade is None else "graded",
                    judgement.grade,
                    judgement.failure,
                    judgement.error,
                    judgement.answer,
                    judgement.attempts,
                    None if call is None else call.latency,
                    time.time(),
                ),
            )
            db.execute(
                "UPDATE tasks SET tallies = ?, succeeded = ?, failed = ?, updated_at = ? "
                "WHERE id = ?",
                (json.dumps(tallies), succeeded, failed, time.time(), self.task_id),
            )
        self.tallies = tallies
        return True


class AnswerLedger:
    """The judged answers of a running evaluation task, in the store: each asking of the judge
    committed as it ends with the call that decided it, each call that is retried at once
    (with the task's ``tallies`` of askings per measure, failures per kind, calls per outcome,
    tokens and cost, in the same transaction), and the askings of earlier runs known, so that
    a resumed task asks nothing twice (`rankscope.answers._judged.AskingLedger`).

    ``writer`` is the task's writer: each commit checks that its run still owns the task.
    """

    def __init__(self, writer: OwnedWriter) -> None:
        self.writer = writer
        self._known: dict[tuple[str, int, str, int], tuple[str, Judgement]] = {}
        from rankscope.judge import Judgement

        for row in answer_judgements(writer.store, writer.task_id):
            key = (row["measure"], int(row["repeats"]), row["query_id"], int(row["number"]))
            judged = Judgement(row["grade"], row["failure"], row["error"], row["answer"])
            self._known[key] = (row["digest"], judged)

    def known(
        self, family: str, repeats: int, question_id: str, number: int, digest: str
    ) -> Judgement | None:
        found = self._known.get((family, repeats, question_id, number))
        return found[1] if found is not None and found[0] == digest else None

    def _insert_call(
        self,
        db: Connection,
        asking: tuple[str, int, str, int],
        call: Call,
        deciding: bool,
    ) -> None:
        family, repeats, question_id, number = asking
        if deciding:  # an asking asked again (its prompt changed): the new call decides it
            db.execute(
                "UPDATE answer_calls SET deciding = 0 WHERE task_id = ? AND query_id = ? AND "
                "measure = ? AND repeats = ? AND asking = ? AND deciding = 1",
                (self.writer.task_id, question_id, family, repeats, number),
            )
        db.execute(
            "INSERT INTO answer_calls (task_id, call_id, query_id, measure, repeats, asking, "
            f"owner, deciding, {_CALL_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.writer.task_id,
                uuid.uuid4().hex,
                question_id,
                family,
                repeats,
                number,
                self.writer.owner,
                int(deciding),
                *_call_values(call),
            ),
        )

    def retried(self, family: str, repeats: int, question_id: str, number: int, call: Call) -> None:
        writer = self.writer
        with writer.timed(), writer.store.transaction() as db:
            tallies = json.loads(writer.locked(db, "tallies")["tallies"] or "{}")
            self._insert_call(db, (family, repeats, question_id, number), call, deciding=False)
            _count_call(tallies, call)
            db.execute(
                "UPDATE tasks SET tallies = ?, updated_at = ? WHERE id = ?",
                (json.dumps(tallies), time.time(), writer.task_id),
            )

    def asked(
        self,
        family: str,
        repeats: int,
        question_id: str,
        number: int,
        digest: str,
        judgement: Judgement,
    ) -> None:
        writer = self.writer
        call = judgement.call
        with writer.timed(), writer.store.transaction() as db:
            row = writer.locked(db, "tallies")
            tallies = json.loads(row["tallies"] or "{}")
            _add(tallies, "asked", family)
            if judgement.grade is None:
                _add(tallies, "failed", family)
                _add(tallies, "failures", judgement.failure or "error")
            if call is not None:
                _count_call(tallies, call)
                self._insert_call(db, (family, repeats, question_id, number), call, deciding=True)
            db.execute(
                "INSERT INTO answer_judgements (task_id, query_id, measure, repeats, number, "
                "digest, owner, grade, failure, error, answer, attempts, latency, "
                "prompt_tokens, completion_tokens, cost, finished_at) VALUES (?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id, query_id, measure, "
                "repeats, number) DO UPDATE SET digest = excluded.digest, owner = "
                "excluded.owner, grade = excluded.grade, failure = excluded.failure, error = "
                "excluded.error, answer = excluded.answer, attempts = excluded.attempts, "
                "latency = excluded.latency, prompt_tokens = excluded.prompt_tokens, "
                "completion_tokens = excluded.completion_tokens, cost = excluded.cost, "
                "finished_at = excluded.finished_at",
                (
                    writer.task_id,
                    question_id,
                    family,
                    repeats,
                    number,
                    digest,
                    writer.owner,
                    judgement.grade,
                    judgement.failure,
                    judgement.error,
                    judgement.answer,
                    judgement.attempts,
                    None if call is None else call.latency,
                    None if call is None else call.prompt_tokens,
                    None if call is None else call.completion_tokens,
                    None if call is None else call.cost,
                    time.time(),
                ),
            )
            db.execute(
                "UPDATE tasks SET tallies = ?, updated_at = ? WHERE id = ?",
                (json.dumps(tallies), time.time(), writer.task_id),
            )
        self._known[(family, repeats, question_id, number)] = (digest, judgement)


def answer_calls(store: Store, task_id: str) -> list[dict[str, Any]]:
    """Every stored call of an evaluation task's judge of answers, in the order they were
    made, the call that decided its asking with ``deciding`` 1."""
    return _dicts(
        store,
        "SELECT query_id, measure, repeats, asking, owner, number, deciding, started_at, "
        "latency, outcome, status, answer, error, prompt_tokens, completion_tokens, cost "
        "FROM answer_calls WHERE task_id = ? ORDER BY started_at, number",
        task_id,
    )


def answer_judgements(store: Store, task_id: str) -> list[dict[str, Any]]:
    """Every asking of an evaluation task's judge of answers, by question, measure and number."""
    return _dicts(
        store,
        "SELECT query_id, measure, repeats, number, digest, owner, grade, failure, error, "
        "answer, attempts, latency, prompt_tokens, completion_tokens, cost, finished_at "
        "FROM answer_judgements WHERE task_id = ? ORDER BY query_id, measure, repeats, number",
        task_id,
    )
