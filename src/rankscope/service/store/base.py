"""`Store`: the one interface of the task store, its SQL written once for every back-end.

A back-end (`rankscope.service.store.sqlite`, `rankscope.service.store.postgres`) gives the
connections, the transactions and the few words its SQL spells differently (`Dialect`); every
query, the migrations and the single writer of a running task (`TaskWriter`) live here.

Crash safety: each finished query's row (its answer included) is written in its own
transaction, committed before the worker that ran it takes another query, with the task's
counters changed in the same transaction. A transaction the back-end committed survives the
death of the process (kill -9) at any point.

Ownership: a running task's row names its owner. Every write of a run checks, in its own
transaction and with the task's row locked, that the run still owns the task: once another
process has taken it over (a forced resume), the old run stops at its next write
(`TaskTakenOverError`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from rankscope.errors import InputError, TaskNotFoundError
from rankscope.service.store.records import (
    Counters,
    QueryRecord,
    decoded,
    record_from_row,
)
from rankscope.service.store.schema import (
    ADDED_COLUMNS,
    INDEXES,
    SCHEMA_VERSION,
    TASK_COLUMNS,
    TASK_JSON_COLUMNS,
    schema,
)
from rankscope.service.store.writer import OwnedWriter

__all__ = ["SORT_COLUMNS", "Connection", "Dialect", "Store", "TaskWriter", "order_by"]

SORT_COLUMNS = ("query_id", "position", "status", "latency", "attempts")


class Connection(Protocol):
    """What the store asks of a back-end's connection: ``execute`` with ``?`` placeholders,
    returning a cursor whose rows read by column name and by index."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...


@dataclass(frozen=True)
class Dialect:
    """The words a back-end's SQL spells its own way.

    Attributes
    ----------
    real, without_rowid
        The float type and the end of a table keyed by its primary key (see `schema`).
    lock
        What ends a ``SELECT`` that locks the rows it reads until the transaction ends
        (``" FOR UPDATE"``; empty where a write transaction locks everything already).
    skip_locked
        What ends a ``SELECT`` that locks its rows and skips those another transaction holds.
    no_limit
        The ``LIMIT`` that means none.
    schema_lock
        A statement that makes the transaction creating the schema wait for any other (empty
        where a write transaction excludes every other already).
    """

    real: str = "REAL"
    without_rowid: str = " WITHOUT ROWID"
    lock: str = ""
    skip_locked: str = ""
    no_limit: int | None = -1
    schema_lock: str = ""

    def json_number(self, column: str, key: str) -> tuple[str, list[Any]]:
        """An expression for the number under ``key`` of a JSON ``column``, and its parameters;
        a value JSON cannot carry (NaN, as Python writes it) is taken as missing."""
        path = '$."' + key.replace('"', "") + '"'
        return (
            f"(CASE WHEN instr({column}, 'NaN') OR instr({column}, 'Infinity') THEN NULL "
            f"ELSE json_extract({column}, ?) END)",
            [path],
        )

    def contains(self, column: str) -> str:
        """A condition: ``column`` holds the parameter's text, in any case."""
        return f"instr(lower({column}), lower(?)) > 0"

    def starts_with(self, column: str) -> tuple[str, Callable[[str], list[Any]]]:
        """A condition: ``column`` starts with the given text, and its parameters."""
        return f"{column} >= ? AND {column} < ?", lambda prefix: [prefix, prefix + "\U0010ffff"]


def order_by(
    sort: str | None, answer_measures: Sequence[str] = (), dialect: Dialect | None = None
) -> tuple[str, list[Any]]:
    """The ORDER BY clause of a sort key: a column of `SORT_COLUMNS`, a measure name or one of
    ``answer_measures``, ``-`` first for descending; empty values (a failed query's measures,
    an answer without a reference) last, ties in dataset order.

    >>> clause, parameters = order_by("-ndcg10")
    >>> clause.endswith("json_extract(metrics, ?) END) DESC, position")
    True
    >>> parameters
    ['$."ndcg10"', '$."ndcg10"']
    >>> "answer_metrics" in order_by("rougel", ["rougel"])[0], order_by("-latency")[0]
    (True, 'latency IS NULL, latency DESC, position')
    """
    if not sort:
        return "position", []
    dialect = dialect or Dialect()
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    direction = "DESC" if descending else "ASC"
    if key in SORT_COLUMNS:
        return f"{key} IS NULL, {key} {direction}, position", []
    column = "answer_metrics" if key in answer_measures else "metrics"
    value, parameters = dialect.json_number(column, key)
    return f"{value} IS NULL, {value} {direction}, position", [*parameters, *parameters]


def _filters(
    task_id: str, status: str | None, search: str | None, dialect: Dialect
) -> tuple[str, list[Any]]:
    where = "r.task_id = ?"
    params: list[Any] = [task_id]
    if status is not None:
        where += " AND r.status = ?"
        params.append(status)
    if search:
        where += " AND " + dialect.contains("r.query_id")
        params.append(search)
    return where, params


def _task_from_row(row: Any) -> dict[str, Any]:
    task = {key: row[key] for key in row.keys()}  # noqa: SIM118 - rows are not dicts
    for column in TASK_JSON_COLUMNS:
        if task[column] is not None:
            task[column] = json.loads(task[column])
    return task


def _write_counters(db: Connection, task_id: str, counters: Counters) -> None:
    values = counters.columns()
    for column in ("sums", "latency_bins", "answer_sums", "answer_counts", "answer_failed"):
        values[column] = json.dumps(values[column])
    sets = ", ".join(f"{column} = ?" for column in values)
    db.execute(f"UPDATE tasks SET {sets} WHERE id = ?", [*values.values(), task_id])


class Store:
    """The store of tasks and their per-query results; a back-end's subclass gives the
    connections (one per thread) and its `Dialect`.

    Attributes
    ----------
    location
        Where the store is, for messages to the operator (a file, or a server's URL without
        its password); never sent to a client of the HTTP API.
    """

    dialect = Dialect()
    location: str
    _connections: list[Any]
    _local: threading.local
    _lock: threading.Lock

    # --- what a back-end gives --------------------------------------------------------------

    def _connection(self) -> Connection:
        """This thread's connection."""
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[Connection]:
        """A write transaction, committed on success, rolled back on an error (which a back-end
        turns into a `rankscope.errors.StoreError` where the store cannot be written)."""
        raise NotImplementedError

    def _columns(self, db: Connection, table: str) -> set[str]:
        """The columns a table has now."""
        raise NotImplementedError

    def close(self) -> None:
        """Close every connection this store opened (a back-end keeps them in
        ``_connections``, one per thread in ``_local``, under ``_lock``)."""
        with self._lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()

    # --- schema -----------------------------------------------------------------------------

    def _create_schema(self) -> None:
        """Create the tables if missing, or bring an older schema up to date."""
        with self.transaction() as db:
            if self.dialect.schema_lock:
                db.execute(self.dialect.schema_lock)
            for statement in schema(self.dialect.real, self.dialect.without_rowid).split(";"):
                if statement.strip():
                    db.execute(statement)
            row = db.execute(
                f"SELECT value FROM meta WHERE key = 'schema_version'{self.dialect.lock}"
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif int(row[0]) < SCHEMA_VERSION:
                self._migrate(db, int(row[0]))
            elif int(row[0]) != SCHEMA_VERSION:
                raise InputError(
                    f"task database has schema version {row[0]}; this rankscope reads version "
                    f"{SCHEMA_VERSION}",
                    source=self.location,
                )
            for statement in INDEXES:
                db.execute(statement)

    def _schema_current(self) -> bool:
        """Whether the store's schema is this version's (so opening it writes nothing)."""
        try:
            row = (
                self._connection()
                .execute("SELECT value FROM meta WHERE key = 'schema_version'")
                .fetchone()
            )
        except Exception:  # no table yet: a new store
            return False
        return row is not None and int(row[0]) == SCHEMA_VERSION

    def _migrate(self, db: Connection, version: int) -> None:
        """Bring a store of an older schema ``version`` up to `SCHEMA_VERSION`: add the columns
        later versions added (those not there yet), and recompute every task's counters from
        its results."""
        for added in range(version + 1, SCHEMA_VERSION + 1):
            for table, column, declaration in ADDED_COLUMNS[added]:
                if column not in self._columns(db, table):
                    kind = declaration.replace("{real}", self.dialect.real)
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        for (task_id,) in db.execute("SELECT id FROM tasks WHERE kind = 'evaluation'").fetchall():
            counters = Counters()
            for status, metrics, latency, answer_metrics in db.execute(
                "SELECT status, metrics, latency, answer_metrics FROM results WHERE task_id = ?",
                (task_id,),
            ).fetchall():
                counters.count(status, decoded(metrics), latency, 1, decoded(answer_metrics))
            _write_counters(db, task_id, counters)
        for task_id, spec in db.execute(
            "SELECT id, spec FROM tasks WHERE kind = 'judging' AND source_task IS NULL"
        ).fetchall():
            source = (json.loads(spec).get("service") or {}).get("source") or {}
            if source.get("evaluation") is not None:
                db.execute(
                    "UPDATE tasks SET source_task = ? WHERE id = ?", (source["evaluation"], task_id)
                )
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))

    # --- tasks ------------------------------------------------------------------------------

    def _not_found(self, task_id: str) -> TaskNotFoundError:
        return TaskNotFoundError(f"no task with id {task_id!r}", task_id)

    def create_task(
        self,
        task: Mapping[str, Any],
        queries: Sequence[tuple[str, str]],
        judgements: Sequence[tuple[str, str, int]],
        references: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """Insert a task with its questions (and their reference answers) and judgements, in
        one transaction."""
        kept = references or {}
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO tasks (id, name, status, created_at, updated_at, total, sums, spec, "
                "dataset) VALUES (?, ?, 'pending', ?, ?, ?, '{}', ?, ?)",
                (
                    task["id"],
                    task.get("name"),
                    now,
                    now,
                    len(queries),
                    json.dumps(task["spec"]),
                    json.dumps(task["dataset"]),
                ),
            )
            db.executemany(
                "INSERT INTO task_queries (task_id, position, query_id, text, reference_answers) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        task["id"],
                        position,
                        qid,
                        text,
                        json.dumps(list(kept[qid])) if qid in kept else None,
                    )
                    for position, (qid, text) in enumerate(queries)
                ],
            )
            db.executemany(
                "INSERT INTO task_qrels (task_id, query_id, doc_id, relevance) VALUES (?, ?, ?, ?)",
                [(task["id"], qid, doc, grade) for qid, doc, grade in judgements],
            )

    def task(self, task_id: str) -> dict[str, Any]:
        """The task's row (JSON columns decoded).

        Raises
        ------
        TaskNotFoundError
        """
        row = (
            self._connection()
            .execute(f"SELECT {TASK_COLUMNS} FROM tasks WHERE id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            raise self._not_found(task_id)
        return _task_from_row(row)

    def resolve(self, prefix: str) -> str:
        """The id of the one task whose id starts with ``prefix``."""
        condition, parameters = self.dialect.starts_with("id")
        rows = (
            self._connection()
            .execute(
                f"SELECT id FROM tasks WHERE {condition} ORDER BY id LIMIT 2", parameters(prefix)
            )
            .fetchall()
        )
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise self._not_found(prefix)
        raise TaskNotFoundError(
            f"{prefix!r} is the start of several task ids; give more characters", prefix
        )

    def list_tasks(
        self,
        *,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        kind: str = "evaluation",
        source_task: str | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """Tasks of a ``kind`` (``evaluation`` or ``judging``) newest first, and how many
        there are in all; with ``source_task``, the judging tasks of that evaluation task's
        holes only (an indexed look-up)."""
        where, params = "WHERE kind = ?", [kind]
        if status:
            where, params = where + " AND status = ?", [*params, status]
        if source_task is not None:
            where, params = where + " AND source_task = ?", [*params, source_task]
        db = self._connection()
        total = db.execute(f"SELECT COUNT(*) FROM tasks {where}", params).fetchone()[0]
        rows = db.execute(
            f"SELECT {TASK_COLUMNS} FROM tasks {where} ORDER BY created_at DESC, id "
            "LIMIT ? OFFSET ?",
            [*params, limit, offset],
        ).fetchall()
        return [_task_from_row(row) for row in rows], int(total)

    def task_ids(self, statuses: Sequence[str], kind: str = "evaluation") -> list[str]:
        """Ids of the tasks of a ``kind`` in one of ``statuses``, oldest first."""
        marks = ",".join("?" * len(statuses))
        rows = (
            self._connection()
            .execute(
                f"SELECT id FROM tasks WHERE kind = ? AND status IN ({marks}) ORDER BY created_at",
                [kind, *statuses],
            )
            .fetchall()
        )
        return [row[0] for row in rows]

    def count_tasks(self, statuses: Sequence[str], kind: str = "evaluation") -> int:
        """How many tasks of a ``kind`` are in one of ``statuses``."""
        marks = ",".join("?" * len(statuses))
        row = (
            self._connection()
            .execute(
                f"SELECT COUNT(*) FROM tasks WHERE kind = ? AND status IN ({marks})",
                [kind, *statuses],
            )
            .fetchone()
        )
        return int(row[0])

    def update_task(
        self,
        task_id: str,
        *,
        when_status: Sequence[str] | None = None,
        when_owner: str | None = None,
        **values: Any,
    ) -> bool:
        """Set columns of a task, if its status (and owner) are as given; whether it changed."""
        values["updated_at"] = time.time()
        for column in TASK_JSON_COLUMNS:
            if column in values and values[column] is not None:
                values[column] = json.dumps(values[column])
        sets = ", ".join(f"{column} = ?" for column in values)
        sql = f"UPDATE tasks SET {sets} WHERE id = ?"
        params: list[Any] = [*values.values(), task_id]
        if when_status is not None:
            sql += f" AND status IN ({','.join('?' * len(when_status))})"
            params.extend(when_status)
        if when_owner is not None:
            sql += " AND owner = ?"
            params.append(when_owner)
        with self.transaction() as db:
            changed = db.execute(sql, params).rowcount
        return bool(changed)

    def claim(self, task_id: str, owner: str, may_take: Callable[[dict[str, Any]], None]) -> None:
        """Make ``owner`` the owner of a task and mark it running, in one transaction with the
        task's row locked; ``may_take(row)`` raises if the task may not be taken."""
        now = time.time()
        with self.transaction() as db:
            row = db.execute(
                f"SELECT id, status, owner, heartbeat FROM tasks WHERE id = ?{self.dialect.lock}",
                (task_id,),
            ).fetchone()
            if row is None:
                raise self._not_found(task_id)
            may_take({key: row[key] for key in row.keys()})  # noqa: SIM118
            db.execute(
                "UPDATE tasks SET status = 'running', owner = ?, heartbeat = ?, error = NULL, "
                "finished_at = NULL, summary = NULL, started_at = COALESCE(started_at, ?), "
                "updated_at = ? WHERE id = ?",
                (owner, now, now, now, task_id),
            )

    def claim_next(self, owner: str, kinds: Sequence[str] = ("evaluation",)) -> str | None:
        """Take the oldest pending task of one of ``kinds`` for ``owner`` (marked running),
        skipping those another worker is taking at the same moment; None if no task waits."""
        now = time.time()
        marks = ",".join("?" * len(kinds))
        with self.transaction() as db:
            row = db.execute(
                f"SELECT id FROM tasks WHERE status = 'pending' AND kind IN ({marks}) "
                "ORDER BY created_at, id LIMIT 1" + self.dialect.skip_locked,
                list(kinds),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE tasks SET status = 'running', owner = ?, heartbeat = ?, error = NULL, "
                "finished_at = NULL, summary = NULL, started_at = COALESCE(started_at, ?), "
                "updated_at = ? WHERE id = ? AND status = 'pending'",
                (owner, now, now, now, row[0]),
            )
            return str(row[0])

    def status(self, task_id: str) -> str:
        """The task's status."""
        row = (
            self._connection()
            .execute("SELECT status FROM tasks WHERE id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            raise self._not_found(task_id)
        return str(row[0])

    def queries(self, task_id: str) -> list[tuple[int, str, str]]:
        """``(position, query_id, text)`` of the task's questions, in dataset order."""
        rows = (
            self._connection()
            .execute(
                "SELECT position, query_id, text FROM task_queries WHERE task_id = ? "
                "ORDER BY position",
                (task_id,),
            )
            .fetchall()
        )
        return [(row[0], row[1], row[2]) for row in rows]

    def judgements(self, task_id: str) -> dict[str, list[tuple[str, int]]]:
        """``{query_id: [(doc_id, grade), ...]}`` of the task."""
        rows = (
            self._connection()
            .execute(
                "SELECT query_id, doc_id, relevance FROM task_qrels WHERE task_id = ? "
                "ORDER BY query_id, doc_id",
                (task_id,),
            )
            .fetchall()
        )
        result: dict[str, list[tuple[str, int]]] = {}
        for query_id, doc_id, grade in rows:
            result.setdefault(query_id, []).append((doc_id, grade))
        return result

    def references(self, task_id: str) -> dict[str, list[str]]:
        """``{query_id: [reference answer, ...]}`` of the task's questions that have one."""
        rows = (
            self._connection()
            .execute(
                "SELECT query_id, reference_answers FROM task_queries WHERE task_id = ? "
                "AND reference_answers IS NOT NULL",
                (task_id,),
            )
            .fetchall()
        )
        return {row[0]: json.loads(row[1]) for row in rows}

    # --- results ----------------------------------------------------------------------------

    def finished_query_ids(self, task_id: str) -> set[str]:
        """Ids of the task's queries that have a recorded result."""
        rows = (
            self._connection()
            .execute("SELECT query_id FROM results WHERE task_id = ?", (task_id,))
            .fetchall()
        )
        return {row[0] for row in rows}

    def result_rows(self, task_id: str) -> tuple[int, int]:
        """How many result rows the task has, and how many distinct queries they are (equal
        unless the store were corrupt)."""
        row = (
            self._connection()
            .execute(
                "SELECT COUNT(*), COUNT(DISTINCT query_id) FROM results WHERE task_id = ?",
                (task_id,),
            )
            .fetchone()
        )
        return int(row[0]), int(row[1])

    def results(
        self,
        task_id: str,
        *,
        status: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        sort: str | None = None,
        search: str | None = None,
        answer_measures: Sequence[str] = (),
    ) -> list[QueryRecord]:
        """Recorded queries in dataset order, or sorted by ``sort`` (see `order_by`), of a
        ``status``, whose id contains ``search``, with their reference answers."""
        where, params = _filters(task_id, status, search, self.dialect)
        sql = (
            "SELECT query_id, position, status, doc_ids, scores, latency, attempts, metrics, "
            "error, finished_at, answer, answer_metrics, answer_latency, "
            "(SELECT reference_answers FROM task_queries q WHERE q.task_id = r.task_id "
            f"AND q.query_id = r.query_id) AS reference_answers FROM results r WHERE {where}"
        )
        order, order_params = order_by(sort, answer_measures, self.dialect)
        sql += f" ORDER BY {order} LIMIT ? OFFSET ?"
        params.extend([*order_params, self.dialect.no_limit if limit is None else limit, offset])
        rows = self._connection().execute(sql, params).fetchall()
        return [record_from_row(row) for row in rows]

    def count_results(
        self, task_id: str, status: str | None = None, search: str | None = None
    ) -> int:
        """How many queries of the task are recorded (with that status, matching ``search``)."""
        where, params = _filters(task_id, status, search, self.dialect)
        sql = f"SELECT COUNT(*) FROM results r WHERE {where}"
        return int(self._connection().execute(sql, params).fetchone()[0])

    def latencies(self, task_id: str) -> list[float]:
        """Retriever latencies (seconds) of the task's succeeded queries."""
        rows = (
            self._connection()
            .execute(
                "SELECT latency FROM results WHERE task_id = ? AND status = 'succeeded' "
                "AND latency IS NOT NULL",
                (task_id,),
            )
            .fetchall()
        )
        return [row[0] for row in rows]

    def writer(self, task_id: str, owner: str) -> TaskWriter:
        """The single writer of a running task's results."""
        return TaskWriter(self, task_id, owner)


class TaskWriter(OwnedWriter):
    """Records the finished queries of one task, one committed transaction per query.

    Each transaction locks the task's row, checks the run still owns the task, writes the
    query's row and the task's counters (`Counters`), taking away the row it replaces, if
    any, so the stored counters stay exact across crashes, resumes, a query recorded twice and
    two writers at once.

    Attributes
    ----------
    counters
        The counters as this writer has seen them change (for progress reports).
    seconds
        Time spent in `record` (the store's share of a run).
    """

    def started(self, task: dict[str, Any]) -> None:
        self.counters = Counters.from_row(task)

    def _owned(self, db: Connection) -> Counters:
        """The task's counters, its row locked; `TaskTakenOverError` if another run owns it."""
        return Counters.from_row(
            self.locked(
                db,
                "succeeded, failed, sums, latency_sum, latency_bins, latency_max, answered, "
                "answer_sums, answer_counts, answer_failed",
            )
        )

    def record(self, record: QueryRecord) -> None:
        """Commit one finished query: an upsert keyed by task and query, and the counters."""
        with self.timed(), self.store.transaction() as db:
            stored = self._owned(db)
            previous = db.execute(
                "SELECT status, metrics, latency, answer_metrics FROM results "
                "WHERE task_id = ? AND query_id = ?",
                (self.task_id, record.query_id),
            ).fetchone()
            if previous is not None:
                replaced = (
                    previous["status"],
                    decoded(previous["metrics"]),
                    previous["latency"],
                    -1,
                    decoded(previous["answer_metrics"]),
                )
                stored.count(*replaced)
                self.counters.count(*replaced)
            stored.count(record.status, record.metrics, record.latency, 1, record.answer_metrics)
            _write_counters(db, self.task_id, stored)
            db.execute(
                "INSERT INTO results (task_id, query_id, position, status, doc_ids, scores, "
                "latency, attempts, metrics, error, finished_at, answer, answer_metrics, "
                "answer_latency) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (task_id, query_id) DO UPDATE SET position = excluded.position, "
                "status = excluded.status, doc_ids = excluded.doc_ids, "
                "scores = excluded.scores, latency = excluded.latency, "
                "attempts = excluded.attempts, metrics = excluded.metrics, "
                "error = excluded.error, finished_at = excluded.finished_at, "
                "answer = excluded.answer, answer_metrics = excluded.answer_metrics, "
                "answer_latency = excluded.answer_latency",
                (
                    self.task_id,
                    record.query_id,
                    record.position,
                    record.status,
                    json.dumps(list(record.doc_ids)),
                    None if record.scores is None else json.dumps(list(record.scores)),
                    record.latency,
                    record.attempts,
                    None if record.metrics is None else json.dumps(dict(record.metrics)),
                    record.error,
                    record.finished_at or time.time(),
                    record.answer,
                    None
                    if record.answer_metrics is None
                    else json.dumps(dict(record.answer_metrics)),
                    record.answer_latency,
                ),
            )
        self.counters.count(record.status, record.metrics, record.latency, 1, record.answer_metrics)
