"""The PostgreSQL back-end of the task store: a server that several machines share.

``--db postgresql://user@host:port/database`` (psycopg 3, the ``postgres`` extra). The schema,
its migrations and every query are the SQLite store's (`rankscope.service.store.base`), with
PostgreSQL's words for a few things (`POSTGRES`): rows read to be written back are locked
(``SELECT ... FOR UPDATE``), and workers take pending tasks with ``FOR UPDATE SKIP LOCKED``, so
that any number of ``rankscope serve`` and ``rankscope worker`` processes share one queue and
no task is taken twice. A committed transaction is the server's: the death of a client process
loses nothing it committed.

One connection per thread, in autocommit mode; a write is one explicit transaction. A full
disk on the server and a read-only server (a standby, ``default_transaction_read_only``) raise
`StoreFullError` and `StoreReadOnlyError`; a server that cannot be reached, `StoreError`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rankscope.errors import (
    MissingDependencyError,
    StoreError,
    StoreFullError,
    StoreReadOnlyError,
)
from rankscope.service.store.base import Connection, Dialect, Store

__all__ = ["POSTGRES", "PostgresDialect", "PostgresStore", "shown_url"]


class PostgresDialect(Dialect):
    """PostgreSQL's words for what SQLite spells otherwise."""

    def json_number(self, column: str, key: str) -> tuple[str, list[Any]]:
        # A value JSON cannot carry (NaN, written by Python) is taken as missing.
        return (
            f"(CASE WHEN {column} ~ '(NaN|Infinity)' THEN NULL "
            f"ELSE ({column}::jsonb ->> ?)::double precision END)",
            [key],
        )

    def contains(self, column: str) -> str:
        return f"strpos(lower({column}), lower(?)) > 0"

    def starts_with(self, column: str) -> tuple[str, Any]:
        return f"starts_with({column}, ?)", lambda prefix: [prefix]


POSTGRES = PostgresDialect(
    real="DOUBLE PRECISION",
    without_rowid="",
    lock=" FOR UPDATE",
    skip_locked=" FOR UPDATE SKIP LOCKED",
    no_limit=None,
    # Two processes opening a new database at once: the first creates the tables.
    schema_lock="SELECT pg_advisory_xact_lock(7259014)",
)

_PASSWORD = re.compile(r"(://[^:/@]+):[^@]*@")


def shown_url(url: str) -> str:
    """The URL without its password, for messages.

    >>> shown_url("postgresql://rankscope:secret@db.internal:5432/rankscope")
    'postgresql://rankscope@db.internal:5432/rankscope'
    """
    return _PASSWORD.sub(r"\1@", url)


class _Row(Sequence[Any]):
    """A row read by column name and by index, as SQLite's rows are."""

    __slots__ = ("_index", "_values")

    def __init__(self, values: Sequence[Any], index: dict[str, int]) -> None:
        self._values = values
        self._index = index

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self._values[self._index[key]]
        return self._values[key]

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        """The column names."""
        return list(self._index)


def _row_factory(cursor: Any) -> Any:
    index = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: _Row(values, index)


class _Connection:
    """A psycopg connection that takes the store's ``?`` placeholders."""

    def __init__(self, connection: Any) -> None:
        self.raw = connection

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("?", "%s")

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        return self.raw.execute(self._sql(sql), list(parameters) or None)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        cursor = self.raw.cursor()
        cursor.executemany(self._sql(sql), [list(row) for row in parameters])
        return cursor


class PostgresStore(Store):
    """The PostgreSQL store of tasks and their per-query results.

    Parameters
    ----------
    url
        ``postgresql://user[:password]@host[:port]/database`` (and libpq's query options, such
        as ``?options=-csearch_path%3Dschema`` to keep the tables in a schema of their own).
    """

    dialect = POSTGRES

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise MissingDependencyError("psycopg", "a PostgreSQL task store", "postgres") from None
        self._psycopg = psycopg
        self.url = url
        self.location = shown_url(url)
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        if not self._schema_current():
            self._create_schema()

    def _error(self, error: Exception) -> Exception:
        """The clear error of what the server refused for want of room, of write access or
        of a connection; the error itself otherwise."""
        errors = self._psycopg.errors
        if isinstance(error, errors.DiskFull | errors.OutOfMemory):
            return StoreFullError(
                f"the task store's database server ({self.location}) has no room left: free "
                "space on its disk (nothing committed is lost; resume the task once there is room)"
            )
        if isinstance(error, errors.ReadOnlySqlTransaction | errors.InsufficientPrivilege):
            return StoreReadOnlyError(
                f"the task store {self.location} cannot be written ({error}); give a writable "
                "one with --db"
            )
        if isinstance(error, self._psycopg.OperationalError):
            return StoreError(f"cannot reach the task store {self.location}: {error}")
        return error

    # --- connections and transactions -------------------------------------------------------

    def _connection(self) -> Connection:
        wrapped: _Connection | None = getattr(self._local, "connection", None)
        if wrapped is None or wrapped.raw.closed:
            try:
                raw = self._psycopg.connect(self.url, autocommit=True, row_factory=_row_factory)
            except self._psycopg.Error as error:
                raise self._error(error) from None
            wrapped = _Connection(raw)
            self._local.connection = wrapped
            with self._lock:
                self._connections.append(raw)
        return wrapped

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A write transaction, committed on success."""
        connection = self._connection()
        assert isinstance(connection, _Connection)
        try:
            with connection.raw.transaction():
                yield connection
        except self._psycopg.Error as error:
            raise self._error(error) from None

    def _columns(self, db: Connection, table: str) -> set[str]:
        rows = db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND table_schema = current_schema()",
            (table,),
        ).fetchall()
        return {row[0] for row in rows}
