"""Every error rankscope raises, in one tree.

::

    RankscopeError                     root: catch this to catch everything rankscope raises
     ├── InputError (ValueError)       the data given is not valid
     │    ├── ParseError               a file or a row cannot be read (names file, line, text)
     │    ├── DuplicateDocumentError   a document appears twice in one query's ranking or qrels
     │    └── EmptyInputError          a file or table holds no data
     ├── MeasureError (ValueError)     a measure name or parameter is not valid
     │    └── UnknownMeasureError      no measure of that name; suggests close names
     ├── ProfileError (ValueError)     an unknown profile or convention
     ├── OptionError (ValueError)      an option value outside what a function accepts
     ├── TaskNotFoundError             (rankscope.service) no task has that id
     ├── TaskStateError                (rankscope.service) the task's status forbids that
     ├── RetrieverError                (rankscope.service) a retriever call failed
     └── MissingDependencyError        an optional extra is not installed (ImportError)

    RankscopeWarning (UserWarning)     something was left out or skipped, and counted

Every message says what was expected and what was found; input errors name the file, the line
number and the offending line when the input came from a file.
"""

from __future__ import annotations

__all__ = [
    "DuplicateDocumentError",
    "EmptyInputError",
    "InputError",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "ProfileError",
    "RankscopeError",
    "RankscopeWarning",
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


class MeasureError(RankscopeError, ValueError):
    """A measure name or one of its parameters is not valid."""


class UnknownMeasureError(MeasureError):
    """No measure has the given name."""


class ProfileError(RankscopeError, ValueError):
    """An unknown profile name or an invalid convention value."""


class OptionError(RankscopeError, ValueError):
    """An option (a test name, a level, a count) is outside what the function accepts."""


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
