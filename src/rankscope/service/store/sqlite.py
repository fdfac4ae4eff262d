"""The SQLite back-end of the task store: one file in WAL mode, the default.

One connection per thread; every write is a short ``BEGIN IMMEDIATE`` transaction, which takes
the file's write lock at once (so a transaction that reads a row and writes it back needs no
row lock). With WAL and ``synchronous=NORMAL`` a committed transaction survives the death of
the process (kill -9) at any point; ``synchronous=FULL`` also survives a power cut, at the cost
of an fsync per query.

A store on a full disk, or one that cannot be written (a read-only file, directory or file
system), raises `StoreFullError` or `StoreReadOnlyError` at its first write, naming the file;
a read-only store that is up to date can still be read (``rankscope tasks list``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rankscope.errors import InputError, StoreFullError, StoreReadOnlyError
from rankscope.service.store.base import Connection, Store, TaskWriter, order_by
from rankscope.service.store.records import Counters, QueryRecord, json_safe

__all__ = ["Counters", "QueryRecord", "SQLiteStore", "Store", "TaskWriter", "json_safe", "order_by"]


# SQLite's primary result codes (https://sqlite.org/rescode.html), which the sqlite3 module
# names only from Python 3.11 (as it gives `sqlite_errorcode` only from 3.11: on 3.10 the
# message decides).
_SQLITE_READONLY = 8
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14


def _store_error(error: sqlite3.Error, path: Path) -> Exception:
    """The clear error of a write SQLite refused for want of room or of write access; the
    error itself otherwise."""
    extended = getattr(error, "sqlite_errorcode", None)
    code = None if extended is None else extended & 0xFF
    text = str(error).lower()
    if code == _SQLITE_FULL or "disk is full" in text:
        return StoreFullError(
            f"the task store's disk is full: free space where {path} lies (nothing committed "
            "is lost; resume the task once there is room)"
        )
    if code in (_SQLITE_READONLY, _SQLITE_CANTOPEN) or "readonly" in text:
        return StoreReadOnlyError(
            f"the task store {path} cannot be written (a read-only file, directory or file "
            "system); give a writable one with --db, or make it writable"
        )
    return error


class SQLiteStore(Store):
    """The SQLite store of tasks and their per-query results.

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
        self.location = str(self.path)
        self.synchronous = synchronous.upper()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._read_only = False
        if self.path.exists() and not self.path.is_file():
            raise InputError("the task store is not a regular file", source=str(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._open()
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None
        except PermissionError as error:
            raise StoreReadOnlyError(
                f"the task store {self.path} cannot be created: {error.strerror}"
            ) from None

    def _open(self) -> None:
        try:
            connection = self._connection()
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError as error:
            if not self._readable_as_is(error):
                raise
            return
        except sqlite3.DatabaseError as error:
            raise InputError(
                f"not a rankscope task database: {error}", source=str(self.path)
            ) from None
        if str(mode).lower() != "wal":
            raise InputError(f"cannot use WAL mode (got {mode!r})", source=str(self.path))
        if not self._schema_current():
            self._create_schema()

    def _readable_as_is(self, error: sqlite3.OperationalError) -> bool:
        """Whether a store that cannot be written can still be read (an existing file, in
        WAL mode, of this schema); it is then opened read-only."""
        if not isinstance(_store_error(error, self.path), StoreReadOnlyError):
            return False
        if not self.path.is_file():
            return False
        self.close()
        self._read_only = True
        return self._schema_current()

    # --- connections and transactions -----------------------------------------------------

    def _connection(self) -> Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            if self._read_only:
                # A store nobody may write: read it as it is, without the WAL's shared memory.
                target = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
                connection = sqlite3.connect(
                    target, uri=True, isolation_level=None, check_same_thread=False
                )
            else:
                connection = sqlite3.connect(
                    self.path, timeout=30.0, isolation_level=None, check_same_thread=False
                )
                try:
                    connection.execute("PRAGMA busy_timeout = 30000")
                    connection.execute(f"PRAGMA synchronous = {self.synchronous}")
                    connection.execute("PRAGMA foreign_keys = ON")
                except sqlite3.Error:
                    connection.close()
                    raise
            connection.row_factory = sqlite3.Row
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A write transaction (``BEGIN IMMEDIATE``), committed on success."""
        connection: Any = self._connection()
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise _store_error(error, self.path) from None
        try:
            yield connection
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise _store_error(error, self.path) from None
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def _columns(self, db: Connection, table: str) -> set[str]:
        return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}

    def journal_mode(self) -> str:
        """SQLite's journal mode of the file (``wal``)."""
        return str(self._connection().execute("PRAGMA journal_mode").fetchone()[0])
