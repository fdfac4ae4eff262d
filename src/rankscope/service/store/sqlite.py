"""The task store: one SQLite file in WAL mode, a commit per finished query.

Tables
------
``tasks``
    One row per task: status, specification, the process that owns it while it runs and its
    heartbeat, the time it has run, the final summary, and its counters: succeeded and failed
    queries, the sum of every measure and of the latencies, a histogram of the latencies, and
    for a task with a generator the number of scored answers and the sum of every answer
    measure. The counters change in the same transaction as the result that changes them, so
    reading a task never reads its results.
``task_queries``, ``task_qrels``
    The task's questions (with their reference answers, for a task with a generator) and
    judgements, copied in when it is submitted, so a task can be shown, exported, compared and
    resumed without its dataset files.
``results``
    One row per finished query, keyed by ``(task_id, query_id)``: status, retrieved ids and
    scores, latency, attempts, measure values, error, and the generated answer with its
    measure values and latency. Written with an upsert, so recording a query twice leaves one
    row.

Crash safety: each finished query's row (its answer included) is written in its own
transaction, committed before the worker that ran it takes another query. With WAL and
``synchronous=NORMAL`` a committed transaction survives the death of the process (kill -9) at
any point; ``synchronous=FULL`` also survives a power cut, at the cost of an fsync per query.

Versions: 1 had no latency histogram, 2 no answers; `Store` brings an older file up to date
when it opens it (columns added, counters recomputed), keeping every task.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rankscope.errors import InputError, TaskNotFoundError
from rankscope.service.tasks.latency import add_latency, latency_bin

__all__ = ["Counters", "QueryRecord", "Store", "TaskWriter", "json_safe"]

SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    name TEXT,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    updated_at REAL NOT NULL,
    owner TEXT,
    heartbeat REAL,
    total INTEGER NOT NULL,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    sums TEXT NOT NULL DEFAULT '{}',
    latency_sum REAL NOT NULL DEFAULT 0,
    latency_bins TEXT NOT NULL DEFAULT '{}',
    latency_max REAL,
    active_seconds REAL NOT NULL DEFAULT 0,
    answered INTEGER NOT NULL DEFAULT 0,
    answer_sums TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    spec TEXT NOT NULL,
    dataset TEXT NOT NULL,
    summary TEXT
);
CREATE INDEX IF NOT EXISTS tasks_by_created ON tasks (created_at);
CREATE TABLE IF NOT EXISTS task_queries (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    text TEXT NOT NULL,
    reference_answers TEXT,
    PRIMARY KEY (task_id, query_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS task_qrels (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    relevance INTEGER NOT NULL,
    PRIMARY KEY (task_id, query_id, doc_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS results (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    status TEXT NOT NULL,
    doc_ids TEXT NOT NULL,
    scores TEXT,
    latency REAL,
    attempts INTEGER NOT NULL,
    metrics TEXT,
    error TEXT,
    finished_at REAL NOT NULL,
    answer TEXT,
    answer_metrics TEXT,
    answer_latency REAL,
    PRIMARY KEY (task_id, query_id)
) WITHOUT ROWID;
"""

_TASK_COLUMNS = (
    "id, name, status, created_at, started_at, finished_at, updated_at, owner, heartbeat, "
    "total, succeeded, failed, sums, latency_sum, latency_bins, latency_max, active_seconds, "
    "answered, answer_sums, error, spec, dataset, summary"
)
_JSON_COLUMNS = ("sums", "latency_bins", "answer_sums", "spec", "dataset", "summary")
_ADDED_COLUMNS = {
    2: [
        ("tasks", "latency_bins", "TEXT NOT NULL DEFAULT '{}'"),
        ("tasks", "latency_max", "REAL"),
    ],
    3: [
        ("tasks", "answered", "INTEGER NOT NULL DEFAULT 0"),
        ("tasks", "answer_sums", "TEXT NOT NULL DEFAULT '{}'"),
        ("task_queries", "reference_answers", "TEXT"),
        ("results", "answer", "TEXT"),
        ("results", "answer_metrics", "TEXT"),
        ("results", "answer_latency", "REAL"),
    ],
}
"""The columns each schema version added, for migrating older files."""


@dataclass
class Counters:
    """A task's running totals, kept in its row of ``tasks``.

    Attributes
    ----------
    succeeded, failed
        Queries recorded with each status.
    sums
        The sum of every measure over the succeeded queries.
    latency_sum, latency_bins, latency_max
        Sum, histogram (see `rankscope.service.tasks.latency`) and largest of the latencies
        (seconds) of the succeeded queries.
    answered, answer_sums
        Succeeded queries whose answer was scored (they have a reference answer), and the
        sum of every answer measure over them.
    """

    succeeded: int = 0
    failed: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    latency_sum: float = 0.0
    latency_bins: dict[str, int] = field(default_factory=dict)
    latency_max: float | None = None
    answered: int = 0
    answer_sums: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Counters:
        """The counters of a task row (JSON columns decoded or not)."""

        def decoded(value: Any) -> Any:
            return json.loads(value) if isinstance(value, str) else dict(value or {})

        return cls(
            int(row["succeeded"]),
            int(row["failed"]),
            decoded(row["sums"]),
            float(row["latency_sum"]),
            decoded(row["latency_bins"]),
            row["latency_max"],
            int(row["answered"]),
            decoded(row["answer_sums"]),
        )

    def count(
        self,
        status: str,
        metrics: Mapping[str, float] | None,
        latency: float | None,
        sign: int,
        answer_metrics: Mapping[str, float] | None = None,
    ) -> None:
        """Add (``sign=1``) or take away (``-1``) one recorded query."""
        if status != "succeeded":
            self.failed += sign
            return
        self.succeeded += sign
        for name, value in (metrics or {}).items():
            self.sums[name] = self.sums.get(name, 0.0) + sign * value
        if answer_metrics is not None:
            self.answered += sign
            for name, value in answer_metrics.items():
                self.answer_sums[name] = self.answer_sums.get(name, 0.0) + sign * value
        if latency is not None:
            self.latency_sum += sign * latency
            add_latency(self.latency_bins, latency, sign)
            if sign > 0:
                self.latency_max = max(latency, self.latency_max or 0.0)

    def columns(self) -> dict[str, Any]:
        """The values of the counter columns, for `Store.update_task`."""
        return {
            "succeeded": self.succeeded,
            "failed": self.failed,
            "sums": self.sums,
            "latency_sum": self.latency_sum,
            "latency_bins": self.latency_bins,
            "latency_max": self.latency_max,
            "answered": self.answered,
            "answer_sums": self.answer_sums,
        }


def json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities (which JSON cannot carry) replaced by None.

    >>> json_safe({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    return value


@dataclass(frozen=True)
class QueryRecord:
    """One finished query, as stored.

    Attributes
    ----------
    query_id, position
        The query and its place in the dataset (0-based).
    status
        ``"succeeded"`` or ``"failed"``.
    doc_ids, scores
        What the retriever returned (scores None when it gave none).
    latency
        Seconds of the retriever call (None if it never answered).
    attempts
        Calls made, retries included.
    metrics
        ``{measure: value}`` of a succeeded query; None for a failed one.
    error
        Why a failed query failed.
    finished_at
        Unix time it was recorded.
    answer
        The generator's answer (None without a generator, or if it was never asked).
    answer_metrics
        ``{answer measure: value}`` of the answer; None if it was not scored (no reference
        answer, no generator, a failed query).
    answer_latency
        Seconds of the generator call.
    references
        The question's reference answers, as the task keeps them (read, never written, with
        the record); None if it has none.
    """

    query_id: str
    position: int
    status: str
    doc_ids: tuple[str, ...] = ()
    scores: tuple[float, ...] | None = None
    latency: float | None = None
    attempts: int = 1
    metrics: Mapping[str, float] | None = None
    error: str | None = None
    finished_at: float = 0.0
    answer: str | None = None
    answer_metrics: Mapping[str, float] | None = None
    answer_latency: float | None = None
    references: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (a value that is not finite as None)."""
        shown: dict[str, Any] = json_safe(
            {
                "query_id": self.query_id,
                "position": self.position,
                "status": self.status,
                "doc_ids": list(self.doc_ids),
                "scores": None if self.scores is None else list(self.scores),
                "latency": self.latency,
                "attempts": self.attempts,
                "metrics": None if self.metrics is None else dict(self.metrics),
                "error": self.error,
                "finished_at": self.finished_at,
                "answer": self.answer,
                "answer_metrics": None
                if self.answer_metrics is None
                else dict(self.answer_metrics),
                "answer_latency": self.answer_latency,
                "references": None if self.references is None else list(self.references),
            }
        )
        return shown


def _decoded(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def _record_from_row(row: sqlite3.Row) -> QueryRecord:
    scores = row["scores"]
    metrics = row["metrics"]
    references = _decoded(row["reference_answers"])
    return QueryRecord(
        query_id=row["query_id"],
        position=row["position"],
        status=row["status"],
        doc_ids=tuple(json.loads(row["doc_ids"])),
        scores=None if scores is None else tuple(json.loads(scores)),
        latency=row["latency"],
        attempts=row["attempts"],
        metrics=None if metrics is None else json.loads(metrics),
        error=row["error"],
        finished_at=row["finished_at"],
        answer=row["answer"],
        answer_metrics=_decoded(row["answer_metrics"]),
        answer_latency=row["answer_latency"],
        references=None if references is None else tuple(references),
    )


_SORT_COLUMNS = ("query_id", "position", "status", "latency", "attempts")


def order_by(sort: str | None, answer_measures: Sequence[str] = ()) -> tuple[str, list[Any]]:
    """The ORDER BY clause of a sort key: a column of `_SORT_COLUMNS`, a measure name or one of
    ``answer_measures``, ``-`` first for descending; empty values (a failed query's measures,
    an answer without a reference) last, ties in dataset order.

    >>> clause, parameters = order_by("-ndcg10")
    >>> clause
    'json_extract(metrics, ?) IS NULL, json_extract(metrics, ?) DESC, position'
    >>> parameters
    ['$."ndcg10"', '$."ndcg10"']
    >>> order_by("rougel", ["rougel"])[0]
    'json_extract(answer_metrics, ?) IS NULL, json_extract(answer_metrics, ?) ASC, position'
    """
    if not sort:
        return "position", []
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    direction = "DESC" if descending else "ASC"
    if key in _SORT_COLUMNS:
        return f"{key} IS NULL, {key} {direction}, position", []
    path = '$."' + key.replace('"', "") + '"'
    column = "answer_metrics" if key in answer_measures else "metrics"
    return (
        f"json_extract({column}, ?) IS NULL, json_extract({column}, ?) {direction}, position",
        [path, path],
    )


def _filters(task_id: str, status: str | None, search: str | None) -> tuple[str, list[Any]]:
    where = "r.task_id = ?"
    params: list[Any] = [task_id]
    if status is not None:
        where += " AND r.status = ?"
        params.append(status)
    if search:
        where += " AND instr(lower(r.query_id), lower(?)) > 0"
        params.append(search)
    return where, params


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a store of an older schema ``version`` up to `SCHEMA_VERSION`: add the columns
    later versions added (those not there yet), and recompute every task's counters from its
    results."""
    for added in range(version + 1, SCHEMA_VERSION + 1):
        for table, column, declaration in _ADDED_COLUMNS[added]:
            present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    for (task_id,) in db.execute("SELECT id FROM tasks").fetchall():
        counters = Counters()
        for status, metrics, latency, answer_metrics in db.execute(
            "SELECT status, metrics, latency, answer_metrics FROM results WHERE task_id = ?",
            (task_id,),
        ):
            counters.count(status, _decoded(metrics), latency, 1, _decoded(answer_metrics))
        _write_counters(db, task_id, counters)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def _write_counters(db: sqlite3.Connection, task_id: str, counters: Counters) -> None:
    values = counters.columns()
    for column in ("sums", "latency_bins", "answer_sums"):
        values[column] = json.dumps(values[column])
    sets = ", ".join(f"{column} = ?" for column in values)
    db.execute(f"UPDATE tasks SET {sets} WHERE id = ?", [*values.values(), task_id])


def _add_to_sums(
    column: str, values: Mapping[str, float], sign: int, sets: list[str], params: list[Any]
) -> None:
    """Add ``sign * value`` to each of the sums kept in the JSON ``column``."""
    paths = [f'$."{name}"' for name in values]
    sets.append(
        f"{column} = json_set({column}, "
        + ", ".join(f"?, COALESCE(json_extract({column}, ?), 0) + ?" for _ in paths)
        + ")"
    )
    for path, value in zip(paths, values.values(), strict=True):
        params.extend([path, path, sign * value])


def _change_counters(
    db: sqlite3.Connection,
    task_id: str,
    status: str,
    metrics: Mapping[str, float] | None,
    latency: float | None,
    sign: int,
    answer_metrics: Mapping[str, float] | None = None,
) -> None:
    """Add (``sign=1``) or take away (``-1``) a recorded query in the task's counters, in
    place: a single UPDATE, whatever the number of results."""
    if status != "succeeded":
        db.execute("UPDATE tasks SET failed = failed + ? WHERE id = ?", (sign, task_id))
        return
    sets = ["succeeded = succeeded + ?"]
    params: list[Any] = [sign]
    if metrics:
        _add_to_sums("sums", metrics, sign, sets, params)
    if answer_metrics is not None:
        sets.append("answered = answered + ?")
        params.append(sign)
        if answer_metrics:
            _add_to_sums("answer_sums", answer_metrics, sign, sets, params)
    if latency is not None:
        path = f'$."{latency_bin(latency)}"'
        sets.append("latency_sum = latency_sum + ?")
        sets.append(
            "latency_bins = json_set(latency_bins, ?, "
            "COALESCE(json_extract(latency_bins, ?), 0) + ?)"
        )
        params.extend([sign * latency, path, path, sign])
        if sign > 0:
            sets.append("latency_max = MAX(COALESCE(latency_max, ?), ?)")
            params.extend([latency, latency])
    db.execute(f"UPDATE tasks SET {', '.join(sets)} WHERE id = ?", [*params, task_id])


def _task_from_row(row: sqlite3.Row) -> dict[str, Any]:
    task = dict(row)
    for column in _JSON_COLUMNS:
        if task[column] is not None:
            task[column] = json.loads(task[column])
    return task


class Store:
    """The SQLite store of tasks and their per-query results.

    One connection per thread; every write is a short ``BEGIN IMMEDIATE`` transaction.

    Parameters
    ----------
    path
        The database file (created with its directory if missing).
    synchronous
        SQLite's ``synchronous`` pragma: ``"NORMAL"`` (survives a crash of the process) or
        ``"FULL"`` (also survives a power cut; an fsync per query).
    """

    def __init__(self, path: str | Path, *, synchronous: str = "NORMAL") -> None:
        if synchronous.upper() not in ("NORMAL", "FULL", "EXTRA"):
            raise InputError(f"synchronous must be NORMAL, FULL or EXTRA; found {synchronous!r}")
        self.path = Path(path)
        self.synchronous = synchronous.upper()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        connection = self._connection()
        try:
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise InputError(
                f"not a rankscope task database: {error}", source=str(self.path)
            ) from None
        if str(mode).lower() != "wal":
            raise InputError(f"cannot use WAL mode (got {mode!r})", source=str(self.path))
        with self.transaction() as db:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif int(row[0]) < SCHEMA_VERSION:
                _migrate(db, int(row[0]))
            elif int(row[0]) != SCHEMA_VERSION:
                raise InputError(
                    f"task database has schema version {row[0]}; this rankscope reads version "
                    f"{SCHEMA_VERSION}",
                    source=str(self.path),
                )

    # --- connections and transactions -----------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            connection.row_factory = sqlite3.Row
            connection.execute("PRAGMA busy_timeout = 30000")
            connection.execute(f"PRAGMA synchronous = {self.synchronous}")
            connection.execute("PRAGMA foreign_keys = ON")
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``), committed on success."""
        connection = self._connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()

    def journal_mode(self) -> str:
        """SQLite's journal mode of the file (``wal``)."""
        return str(self._connection().execute("PRAGMA journal_mode").fetchone()[0])

    # --- tasks ----------------------------------------------------------------------------

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
            .execute(f"SELECT {_TASK_COLUMNS} FROM tasks WHERE id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            raise TaskNotFoundError(f"no task with id {task_id!r} in {self.path}", task_id)
        return _task_from_row(row)

    def resolve(self, prefix: str) -> str:
        """The id of the one task whose id starts with ``prefix``."""
        rows = (
            self._connection()
            .execute(
                "SELECT id FROM tasks WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
                (prefix, prefix + "\U0010ffff"),
            )
            .fetchall()
        )
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise TaskNotFoundError(f"no task with id {prefix!r} in {self.path}", prefix)
        raise TaskNotFoundError(
            f"{prefix!r} is the start of several task ids; give more characters", prefix
        )

    def list_tasks(
        self, *, status: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[dict[str, Any]], int]:
        """Tasks newest first, and how many there are in all."""
        where, params = ("WHERE status = ?", [status]) if status else ("", [])
        db = self._connection()
        total = db.execute(f"SELECT COUNT(*) FROM tasks {where}", params).fetchone()[0]
        rows = db.execute(
            f"SELECT {_TASK_COLUMNS} FROM tasks {where} ORDER BY created_at DESC, id "
            "LIMIT ? OFFSET ?",
            [*params, limit, offset],
        ).fetchall()
        return [_task_from_row(row) for row in rows], int(total)

    def task_ids(self, statuses: Sequence[str]) -> list[str]:
        """Ids of the tasks in one of ``statuses``, oldest first."""
        marks = ",".join("?" * len(statuses))
        rows = (
            self._connection()
            .execute(
                f"SELECT id FROM tasks WHERE status IN ({marks}) ORDER BY created_at",
                list(statuses),
            )
            .fetchall()
        )
        return [row[0] for row in rows]

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
        for column in _JSON_COLUMNS:
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

    def status(self, task_id: str) -> str:
        """The task's status."""
        row = (
            self._connection()
            .execute("SELECT status FROM tasks WHERE id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            raise TaskNotFoundError(f"no task with id {task_id!r} in {self.path}", task_id)
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

    # --- results --------------------------------------------------------------------------

    def finished_query_ids(self, task_id: str) -> set[str]:
        """Ids of the task's queries that have a recorded result."""
        rows = (
            self._connection()
            .execute("SELECT query_id FROM results WHERE task_id = ?", (task_id,))
            .fetchall()
        )
        return {row[0] for row in rows}

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
        where, params = _filters(task_id, status, search)
        sql = (
            "SELECT query_id, position, status, doc_ids, scores, latency, attempts, metrics, "
            "error, finished_at, answer, answer_metrics, answer_latency, "
            "(SELECT reference_answers FROM task_queries q WHERE q.task_id = r.task_id "
            f"AND q.query_id = r.query_id) AS reference_answers FROM results r WHERE {where}"
        )
        order, order_params = order_by(sort, answer_measures)
        sql += f" ORDER BY {order} LIMIT ? OFFSET ?"
        params.extend([*order_params, -1 if limit is None else limit, offset])
        rows = self._connection().execute(sql, params).fetchall()
        return [_record_from_row(row) for row in rows]

    def count_results(
        self, task_id: str, status: str | None = None, search: str | None = None
    ) -> int:
        """How many queries of the task are recorded (with that status, matching ``search``)."""
        where, params = _filters(task_id, status, search)
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


class TaskWriter:
    """Records the finished queries of one task, one committed transaction per query.

    Each transaction writes the query's row and changes the task's counters (`Counters`) in
    SQL, taking away the row it replaces, if any, so the stored counters stay exact across
    crashes, resumes, a query recorded twice and two writers at once.

    Attributes
    ----------
    counters
        The counters as this writer has seen them change (for progress reports).
    seconds
        Time spent in `record` (the store's share of a run).
    """

    def __init__(self, store: Store, task_id: str, owner: str) -> None:
        self.store = store
        self.task_id = task_id
        self.owner = owner
        self.seconds = 0.0
        task = store.task(task_id)
        self._active_base = float(task["active_seconds"])
        self._segment_start = time.monotonic()
        self.counters = Counters.from_row(task)

    @property
    def active_seconds(self) -> float:
        """Seconds this task has been running, over every run of it."""
        return self._active_base + (time.monotonic() - self._segment_start)

    def record(self, record: QueryRecord) -> None:
        """Commit one finished query: an upsert keyed by task and query, and the counters."""
        started = time.perf_counter()
        try:
            with self.store.transaction() as db:
                previous = db.execute(
                    "SELECT status, metrics, latency, answer_metrics FROM results "
                    "WHERE task_id = ? AND query_id = ?",
                    (self.task_id, record.query_id),
                ).fetchone()
                if previous is not None:
                    replaced = (
                        previous["status"],
                        _decoded(previous["metrics"]),
                        previous["latency"],
                        -1,
                        _decoded(previous["answer_metrics"]),
                    )
                    _change_counters(db, self.task_id, *replaced)
                    self.counters.count(*replaced)
                _change_counters(
                    db,
                    self.task_id,
                    record.status,
                    record.metrics,
                    record.latency,
                    1,
                    record.answer_metrics,
                )
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
        finally:
            self.seconds += time.perf_counter() - started
        self.counters.count(record.status, record.metrics, record.latency, 1, record.answer_metrics)

    def heartbeat(self) -> None:
        """Mark the task as alive, and record its running time."""
        started = time.perf_counter()
        self.store.update_task(
            self.task_id,
            when_owner=self.owner,
            heartbeat=time.time(),
            active_seconds=self.active_seconds,
        )
        self.seconds += time.perf_counter() - started
