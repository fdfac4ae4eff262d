"""Errors of the evaluation service, as branches of rankscope's one exception tree.

::

    RankscopeError
     ├── TaskNotFoundError (LookupError)   no task has that id (the API answers 404)
     ├── TaskStateError                    the task's status does not allow the operation (409)
     └── RetrieverError                    a retriever call failed or returned unusable output

Invalid datasets, retriever specifications and measure names raise the core's
`rankscope.errors.InputError`, `MeasureError` and `ProfileError` (the API answers 422).
"""

from __future__ import annotations

from rankscope.errors import RankscopeError

__all__ = ["RetrieverError", "TaskNotFoundError", "TaskStateError"]


class TaskNotFoundError(RankscopeError, LookupError):
    """No task has the given id (or the prefix matches none or several)."""

    def __init__(self, message: str, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(message)


class TaskStateError(RankscopeError):
    """The task's status does not allow the operation (e.g. resuming a task that is running)."""


class RetrieverError(RankscopeError):
    """A retriever call failed after its retries, or returned something that is not a ranking.

    Attributes
    ----------
    attempts
        How many calls were made before giving up.
    transient
        Whether the last failure was of a kind that is retried (timeouts, 429, 5xx).
    """

    def __init__(self, message: str, *, attempts: int = 1, transient: bool = False) -> None:
        self.attempts = attempts
        self.transient = transient
        super().__init__(message)
