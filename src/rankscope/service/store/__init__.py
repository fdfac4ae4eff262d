"""Where tasks and their per-query results are kept: one interface (`Store`, with the schema,
its migrations and the single writer of a running task), two back-ends: SQLite (a file, the
default) and PostgreSQL (a server several machines share).

>>> import pathlib, tempfile
>>> store = open_store(pathlib.Path(tempfile.mkdtemp()) / "tasks.db")
>>> type(store).__name__, store.list_tasks()
('SQLiteStore', ([], 0))
>>> store.close()
"""

from __future__ import annotations

from pathlib import Path

from rankscope.service.store.base import Store, TaskWriter
from rankscope.service.store.records import Counters, QueryRecord, json_safe

__all__ = [
    "POSTGRES_SCHEMES",
    "Counters",
    "QueryRecord",
    "Store",
    "TaskWriter",
    "is_server_url",
    "json_safe",
    "open_store",
]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_server_url(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL server rather than a SQLite file.

    >>> is_server_url("postgresql://rankscope@db.internal/rankscope"), is_server_url("tasks.db")
    (True, False)
    """
    return isinstance(location, str) and location.lower().startswith(POSTGRES_SCHEMES)


def open_store(location: str | Path, *, synchronous: str = "NORMAL") -> Store:
    """The store at ``location``: a ``postgresql://`` URL (needs psycopg, the ``postgres``
    extra), else a SQLite file (``synchronous`` is SQLite's pragma)."""
    if is_server_url(location):
        from rankscope.service.store.postgres import PostgresStore

        return PostgresStore(str(location))
    from rankscope.service.store.sqlite import SQLiteStore

    return SQLiteStore(location, synchronous=synchronous)
