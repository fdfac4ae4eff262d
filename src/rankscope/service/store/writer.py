"""`OwnedWriter`: what every single writer of a running task shares, whatever it records (a
query's result, `rankscope.service.store.base.TaskWriter`; a judge's call or grade,
`rankscope.service.store.judging.JudgeWriter`): the task's row locked and its owner checked in
each transaction, the heartbeat, and the time the task has run and the store has taken."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rankscope.errors import TaskTakenOverError

if TYPE_CHECKING:
    from rankscope.service.store.base import Connection, Store

__all__ = ["OwnedWriter"]


class OwnedWriter:
    """The one writer of a running task, under the owner id its claim gave.

    Attributes
    ----------
    seconds
        Time spent writing (the store's share of a run).
    """

    def __init__(self, store: Store, task_id: str, owner: str) -> None:
        self.store = store
        self.task_id = task_id
        self.owner = owner
        self.seconds = 0.0
        task = store.task(task_id)
        self._active_base = float(task["active_seconds"])
        self._segment_start = time.monotonic()
        self.started(task)

    def started(self, task: dict[str, Any]) -> None:
        """What a writer takes from the task's row when it starts (its counters)."""

    @property
    def active_seconds(self) -> float:
        """Seconds this task has been running, over every run of it."""
        return self._active_base + (time.monotonic() - self._segment_start)

    @contextmanager
    def timed(self) -> Iterator[None]:
        """Count the block's time in `seconds`."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - started

    def locked(self, db: Connection, columns: str = "") -> Any:
        """The task's row (``owner`` and ``columns``), locked until the transaction ends;
        `TaskTakenOverError` if another run owns the task."""
        selected = "owner" + (f", {columns}" if columns else "")
        row = db.execute(
            f"SELECT {selected} FROM tasks WHERE id = ?{self.store.dialect.lock}", (self.task_id,)
        ).fetchone()
        if row is None:
            raise self.store._not_found(self.task_id)
        if row["owner"] is not None and row["owner"] != self.owner:
            raise TaskTakenOverError(
                f"task {self.task_id} was taken over by {row['owner']}; this run "
                f"({self.owner}) stops"
            )
        return row

    def heartbeat(self) -> None:
        """Mark the task as alive, and record its running time (`TaskTakenOverError` once
        another run owns the task)."""
        with self.timed(), self.store.transaction() as db:
            self.locked(db)
            db.execute(
                "UPDATE tasks SET heartbeat = ?, active_seconds = ?, updated_at = ? WHERE id = ?",
                (time.time(), self.active_seconds, time.time(), self.task_id),
            )
