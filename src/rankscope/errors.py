"""Every error rankscope raises, in one tree.

::

    RankscopeError                     root: catch this to catch everything rankscope raises
     ├── InputError (ValueError)       the data given is not valid
     │    │                                  .source .line .text .query .document
     │    ├── ParseError               a file or a row cannot be read (names file, line, text)
     │    ├── DuplicateDocumentError   a document appears twice in one query's ranking or qrels
     │    ├── EmptyInputError          a file or table holds no data
     │    ├── NoCommonQueriesError     no query of the run is judged in the qrels
     │    └── NotGroupedError          a query's lines are not together (streaming needs it)
     ├── MeasureError (ValueError)     a measure name or parameter is not valid
     │    │                                                     .measure .part .suggestions
     │    ├── UnknownMeasureError      no measure of that name; suggests close names
     │    └── UserMeasureError         a user-defined measure raised or gave no number
     │                                                          .query
     ├── ProfileError (ValueError)     an unknown profile or convention, or a measure the
     │                                 profile does not define  .profile .convention .value
     │                                                          .allowed
     ├── OptionError (ValueError)      an option value outside what a function accepts
     │                                                          .option .value .allowed
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
     │         ├── GeneratorError      a generator call failed or returned no answer
     │         └── JudgeError          a judge call failed or returned no grade
     └── MissingDependencyError        an optional extra is not installed (ImportError)

    RankscopeWarning (UserWarning)     something was left out or skipped, and counted

Every message says what was expected and what was found; input errors name the file, the line
number and the offending line when the input came from a file. Invalid datasets, retriever and
generator specifications and measure names given to the service raise `InputError`,
`MeasureError` and `ProfileError` (the service's API answers them 422). The attributes after a
class are its structured fields (each documented on the class), set by the core for the errors
it raises, so that a caller can act on them without reading the message: `errors` gives them
all as a dict.

Examples
--------
>>> import rankscope
>>> try:
...     rankscope.measure("nDGC@10")
... except rankscope.UnknownMeasureError as error:
...     print(error.measure, error.part, error.suggestions)
nDGC@10 nDGC ['nDCG', 'RnDCG', 'nDCGRel']
>>> try:
...     rankscope.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, "AP", max_documents=-1)
... except rankscope.OptionError as error:
...     print(error.errors())
{'option': 'max_documents', 'value': '-1', 'allowed': ()}
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "CallError",
    "DuplicateDocumentError",
    "EmptyInputError",
    "GeneratorError",
    "InputError",
    "JudgeError",
    "MeasureError",
    "MissingDependencyError",
    "NoCommonQueriesError",
    "NotGroupedError",
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
    "UserMeasureError",
    "require",
]


class RankscopeError(Exception):
    """Root of every error rankscope raises."""

    _fields: tuple[str, ...] = ()

    def errors(self) -> dict[str, object]:
        """The error's structured fields by name (empty for a class that has none)."""
        return {field: getattr(self, field) for field in self._fields}


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
    query, document
        The query and the document concerned, when the error is about one (a document ranked
        twice names both).
    """

    _fields = ("source", "line", "text", "query", "document")

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        text: str | None = None,
        query: str | None = None,
        document: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.text = text
        self.query = query
        self.document = document
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
    """A measure name or one of its parameters is not valid.

    Parameters
    ----------
    message
        What was expected and what was found.
    measure
        The measure as it was given (empty when none was given).
    part
        The part of the name that is wrong (a family, a cutoff, a parameter), if one is.
    suggestions
        Names close to an unknown one, best first.
    """

    _fields: tuple[str, ...] = ("measure", "part", "suggestions")

    def __init__(
        self,
        message: str,
        *,
        measure: str = "",
        part: str | None = None,
        suggestions: Iterable[str] = (),
    ) -> None:
        self.message = message
        self.measure = measure
        self.part = part
        self.suggestions = list(suggestions)
        super().__init__(message)


class UnknownMeasureError(MeasureError):
    """No measure has the given name."""


class UserMeasureError(MeasureError):
    """A measure defined with `rankscope.measures.define` raised an exception, or gave
    something that is not a finite number, for a query. The exception it raised is the
    ``__cause__``.

    Parameters
    ----------
    message
        The measure, the query and the exception (or the value given).
    measure
        The measure's name.
    query
        The query's id (None when the measure, called once for every query, failed as a
        whole).
    """

    _fields: tuple[str, ...] = ("measure", "part", "suggestions", "query")

    def __init__(self, message: str, *, measure: str = "", query: str | None = None) -> None:
        self.query = query
        super().__init__(message, measure=measure)


class ProfileError(RankscopeError, ValueError):
    """An unknown profile name, an invalid convention value, or a measure the profile does not
    define.

    Parameters
    ----------
    message
        What was expected and what was found.
    profile
        The profile concerned, when known.
    convention
        The convention concerned (``"duplicate_documents"``, ...), or None for the profile.
    value
        The value given, as the message shows it (a profile's or a convention's, or the
        measure's name).
    allowed
        The values allowed.
    """

    _fields = ("profile", "convention", "value", "allowed")

    def __init__(
        self,
        message: str,
        *,
        profile: str | None = None,
        convention: str | None = None,
        value: str = "",
        allowed: Iterable[str] = (),
    ) -> None:
        self.message = message
        self.profile = profile
        self.convention = convention
        self.value = value
        self.allowed = tuple(allowed)
        super().__init__(message)


class OptionError(RankscopeError, ValueError):
    """An option (a test name, a level, a count) is outside what the function accepts.

    Parameters
    ----------
    message
        What was expected and what was found.
    option
        The option's name as the function takes it (``"relevance_level"``), if known.
    value
        The value given, as the message shows it.
    allowed
        The values allowed when they are a list (empty for a range, which the message says).
    """

    _fields = ("option", "value", "allowed")

    def __init__(
        self,
        message: str,
        *,
        option: str | None = None,
        value: str = "",
        allowed: Iterable[str] = (),
    ) -> None:
        self.message = message
        self.option = option
        self.value = value
        self.allowed = tuple(allowed)
        super().__init__(message)


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
    """A call to a retriever, a generator or a judge failed after its retries, or returned
    something unusable; the question (or pair) is recorded as failed and the task goes on.

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


class JudgeError(CallError):
    """A judge call failed after its retries, or returned something from which no grade can be
    read (`rankscope.judge`); the pair is recorded as failed, never given a grade."""


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
