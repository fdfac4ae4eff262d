"""Errors of the evaluation service, as branches of rankscope's one exception tree.

::

    RankscopeError
     ├── TaskNotFoundError (LookupError)   no task has that id (the API answers 404)
     ├── TaskStateError                    the task's status does not allow the operation (409)
     └── CallError                         a call out of the service failed
          ├── RetrieverError               a retriever call failed or returned unusable output
          └── GeneratorError               a generator call failed or returned no answer text

Invalid datasets, retriever and generator specifications and measure names raise the core's
`rankscope.errors.InputError`, `MeasureError` and `ProfileError` (the API answers 422).
"""

from __future__ import annotations

from rankscope.errors import RankscopeError

__all__ = [
    "CallError",
    "GeneratorError",
    "RetrieverError",
    "TaskNotFoundError",
    "TaskStateError",
]


class TaskNotFoundError(RankscopeError, LookupError):
    """No task has the given id (or the prefix matches none or several)."""

    def __init__(self, message: str, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(message)


class TaskStateError(RankscopeError):
    """The task's status does not allow the operation (e.g. resuming a task that is running)."""


class CallError(RankscopeError):
    """A call to a retriever or a generator failed after its retries, or returned something
    unusable; the question is recorded as failed and the task goes on.

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


class RetrieverError(CallError):
    """A retriever call failed after its retries, or returned something that is not a ranking."""


class GeneratorError(CallError):
    """A generator call failed after its retries, or returned something that is not an answer."""
