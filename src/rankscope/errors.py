"""Every error rankscope raises, in one tree.

::

    RankscopeError                     root: catch this to catch everything rankscope raises
     ├── InputError (ValueError)       the data given is not valid
     │    ├── ParseError               a file or a row cannot be read (names file, line, text)
     │    ├── DuplicateDocumentError   a document appears twice in one query's ranking or qrels
     │    ├── EmptyInputError          a file or table holds no data
     │    ├── NoCommonQueriesError     no query of the run is judged in the qrels
     │    └── NotGroupedError          a query's lines are not together (streaming needs it)
     ├── MeasureError (ValueError)     a measure name or parameter is not valid
     │    └── UnknownMeasureError      no measure of that name; suggests close names
     ├── ProfileError (ValueError)     an unknown profile or convention
     ├── OptionError (ValueError)      an option value outside what a function accepts
     ├── ServiceError                  (rankscope.service) the evaluation service
     │    ├── TaskNotFoundError        no task has that id (LookupError; HTTP 404)
     │    ├── TaskStateError           the task's status forbids that (HTTP 409)
     │    │    └── TaskTakenOverError  another process took the running task over
     │    ├── QueueFullError           too many tasks wait to run (HTTP 429)
     │    ├── StoreError               the task store cannot be written (exit 1)
     │    │    ├── StoreFullError      the disk is full (HTTP 507)
     │    │    └── StoreReadOnlyError  the store is read-only (HTTP 503)
     │    └── CallError                a call out of the service failed
     │         ├── RetrieverError      a retriever call failed or returned no ranking
     │         └── GeneratorError      a generator call failed or returned no answer
     └── MissingDependencyError        an optional extra is not installed (ImportError)

    RankscopeWarning (UserWarning)     something was left out or skipped, and counted

Every message says what was expected and what was found; input errors name the file, the line
number and the offending line when the input came from a file. Invalid datasets, retriever and
generator specifications and measure names given to the service raise `InputError`,
`MeasureError` and `ProfileError` (the service's API answers them 422).
"""

from __future__ import annotations

__all__ = [
    "CallError",
    "DuplicateDocumentError",
    "EmptyInputError",
    "GeneratorError",
    "InputError",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "ProfileError",
    "QueueFullError",
    "RankscopeError",
    "RankscopeWarning",
    "RetrieverError",
    "ServiceError",
    "StoreError",
    "StoreFullError",
    "StoreReadOnlyError",
    "TaskNotFoundError",
    "TaskStateError",
    "TaskTakenOverError",
    "UnknownMeasureError",
    "require",
]


class RankscopeError(Exception):
    """Root of every error rankscope raises."""


class InputError(RankscopeError, ValueError):
    """The qrels, run or other data given is not valid.

    Parameters
    ----------
    message
        What was expected and what was found.
    source
        The file (or a description of the table) the data came from, if known.
    line
        The 1-based line number in ``source``, if known.
    text
        The offending line as it was read, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        text: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.text = text
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.source is not None:
            where = self.source if self.line is None else f"{self.source}:{self.line}"
            where += ": "
        tail = ""
        if self.text is not None:
            shown = self.text if len(self.text) <= 200 else self.text[:200] + "..."
            tail = f"\n    {shown}"
        return f"{where}{self.message}{tail}"


class ParseError(InputError):
    """A file or row cannot be read as the expected format."""


class DuplicateDocumentError(InputError):
    """A document appears more than once in one query's ranking (or in one query's qrels)."""


class EmptyInputError(InputError):
    """A file or table holds no data."""


class NoCommonQueriesError(InputError):
    """No query of the run has judgements (so there is nothing to evaluate)."""


class NotGroupedError(InputError):
    """A query's lines are not contiguous in the run, so it cannot be streamed as it is."""


class MeasureError(RankscopeError, ValueError):
    """A measure name or one of its parameters is not valid."""


class UnknownMeasureError(MeasureError):
    """No measure has the given name."""


class ProfileError(RankscopeError, ValueError):
    """An unknown profile name or an invalid convention value."""


class OptionError(RankscopeError, ValueError):
    """An option (a test name, a level, a count) is outside what the function accepts."""


class ServiceError(RankscopeError):
    """Root of the evaluation service's own errors (`rankscope.service`)."""


class TaskNotFoundError(ServiceError, LookupError):
    """No task has the given id (or the prefix matches none or several)."""

    def __init__(self, message: str, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(message)


class TaskStateError(ServiceError):
    """The task's status does not allow the operation (e.g. resuming a task that is running)."""


class TaskTakenOverError(TaskStateError):
    """Another process took the running task over (a forced resume): this one stops writing."""


class QueueFullError(ServiceError):
    """As many tasks as the server allows wait to run; submit again once some have finished."""


class StoreError(ServiceError):
    """The task store cannot be written; nothing committed is lost, and a resume continues
    once the cause is removed."""


class StoreFullError(StoreError):
    """The disk (or the database server's) holding the task store is full."""


class StoreReadOnlyError(StoreError):
    """The task store is read-only (its file, directory or file system, or the server)."""


class CallError(ServiceError):
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


class MissingDependencyError(RankscopeError, ImportError):
    """An optional dependency is needed for this feature and is not installed."""

    def __init__(self, package: str, feature: str, extra: str) -> None:
        self.package = package
        super().__init__(
            f"{feature} needs the optional package {package!r}; "
            f"install it with: pip install 'rankscope[{extra}]'"
        )


def require(packages: tuple[str, ...], feature: str, extra: str) -> None:
    """Raise `MissingDependencyError` for the first of ``packages`` that cannot be imported."""
    import importlib.util

    for package in packages:
        if importlib.util.find_spec(package) is None:
            raise MissingDependencyError(package, feature, extra)


class RankscopeWarning(UserWarning):
    """Something was left out or skipped (unjudged queries, bad lines); the message counts it."""
