"""Runs in rank order, as the core ranks them: score descending, ties by document id descending
(byte-wise), trec_eval's order and the ``trec`` profile's.

The engine's `ranked_documents` orders each run as an evaluation does; the ranked rows come
back with their rank, so that a pool or a list of holes cuts a ranking exactly where an
evaluation does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rankscope._progress import ProgressOption, steps
from rankscope.engine import ranked_documents
from rankscope.errors import DuplicateDocumentError, OptionError
from rankscope.io import Qrels, Run, as_run
from rankscope.io.tables import DOC_ID, QUERY_ID, SCORE

__all__ = ["RANK", "QrelsLike", "RunLike", "as_run_list", "check_depth", "ranked"]

RANK = "rank"
"""The column of a ranked frame holding each document's 1-based rank in its query."""

RunLike = Run | Mapping[Any, Any] | str | os.PathLike[str]
QrelsLike = Qrels | Mapping[Any, Any] | str | os.PathLike[str]


def as_run_list(
    runs: Sequence[RunLike] | RunLike, lenient: bool = False, progress: ProgressOption = None
) -> list[Run]:
    """The runs as `Run` objects (files read, dicts converted); at least one. ``progress``
    shows the runs read (see `rankscope._progress`)."""
    if isinstance(runs, Run | Mapping | str | os.PathLike) or not isinstance(runs, Sequence):
        raise OptionError(f"runs must be a list of runs; got {type(runs).__name__}")
    if not runs:
        raise OptionError("no run given; expected one or more")
    read = []
    with steps(len(runs), "reading runs", progress) as advance:
        for done, run in enumerate(runs, 1):
            read.append(as_run(run, lenient=lenient))
            advance(done)
    return read


def check_depth(value: Any, name: str) -> int:
    """A cut-off: an integer >= 1 (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise OptionError(f"{name} must be an integer >= 1; got {value!r}")
    return value


def ranked(runs: Sequence[Run], depth: int | None = None) -> list[pl.DataFrame]:
    """Each run's rows in rank order, with a ``rank`` column (1 for each query's best); cut at
    ``depth`` when given. Queries come in byte-wise order of their ids.

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "c": 0.9}})
    >>> ranked([run])[0].rows()
    [('q1', 'c', 0.9, 1), ('q1', 'b', 0.5, 2), ('q1', 'a', 0.5, 3)]
    """
    frames = []
    for run in runs:
        try:
            frame = ranked_documents(run, max_documents=depth)
        except DuplicateDocumentError as error:
            raise DuplicateDocumentError(
                f"document {error.document!r} appears twice in query {error.query!r}",
                source=error.source,
                query=error.query,
                document=error.document,
            ) from None
        frames.append(frame.select(QUERY_ID, DOC_ID, SCORE, RANK))
    return frames
