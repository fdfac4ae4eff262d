"""What a client of the HTTP API and the console is told of an error."""

from __future__ import annotations

from rankscope.errors import InputError, RankscopeError

__all__ = ["public_message"]


def public_message(error: RankscopeError) -> str:
    """The error's message for a client: an input error without the offending line, so that
    no file content is ever sent.

    >>> public_message(InputError("bad grade", source="qrels.txt", line=3, text="q1 0 d1 x"))
    'qrels.txt:3: bad grade'
    """
    if isinstance(error, InputError):
        return str(InputError(error.message, source=error.source, line=error.line))
    return str(error)
