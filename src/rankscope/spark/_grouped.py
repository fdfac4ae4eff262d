"""Runs grouped by query, evaluated where they are read: no shuffle.

A TREC run file holds each query's lines together, as trec_eval writes them. Then each byte
range of the file can be cut at query boundaries instead of line boundaries: its task reads the
queries that start in it, whole (past the range's end if the last one goes on), and evaluates
them at once with the judgements, which every task reads from the qrels file itself. Only one
row per query leaves the Python workers; nothing is shuffled, and the run's rows never cross
into the JVM. A last pass over the per-query rows (one partition) adds the judged queries the
run lacks, scored under ``complete`` exactly as in memory.

`rankscope.spark.evaluate_files` (the command line) runs the same per-range evaluation as one
plain Spark job without Spark SQL (`scored_ranges`), collects the per-query rows and makes the
last pass on the driver (`query_read_twice`, `missing_rows`).

A run whose queries are not grouped shows as a query evaluated by two tasks; that pass then
fails with `NOT_GROUPED`, and `rankscope.spark.evaluate` computes the result again the general
way (a shuffle by query), as the streaming reader reads an ungrouped run again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import partial
from typing import IO, TYPE_CHECKING, Any

import polars as pl

from rankscope.errors import InputError, RankscopeError
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE
from rankscope.spark._partition import (
    QRELS_SIDE,
    RUN_SIDE,
    SIDE,
    Task,
    _batches,
    _evaluate_chunk,
    as_polars,
    outcome_types,
)
from rankscope.spark._read import TrecFiles, _ranges, read_range
from rankscope.spark._session import quiet_pyspark

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "NOT_GROUPED",
    "grouped_outcome",
    "missing_rows",
    "query_bounds",
    "query_read_twice",
    "scored_ranges",
]

NOT_GROUPED = "rankscope-spark: the run is not grouped by query"
"""How the last pass says that a query was read by two tasks (the driver then shuffles)."""

_BLOCK = 1 << 16


def _first_field(line: bytes) -> bytes | None:
    """A line's query id; None for a blank or comment line."""
    fields = line.split(None, 1)
    if not fields or fields[0].startswith(b"#"):
        return None
    return fields[0]


def _query_before(file: IO[bytes], position: int) -> bytes | None:
    """The query id of the last non-blank, non-comment line before ``position`` (a line
    start); None if there is none."""
    end = position
    tail = b""  # the start of a line that began before the block read last
    while end > 0:
        start = max(0, end - _BLOCK)
        file.seek(start)
        lines = (file.read(end - start) + tail).split(b"\n")
        # Unless the block starts the file, its first piece may be the end of a longer line.
        for line in reversed(lines if start == 0 else lines[1:]):
            query = _first_field(line)
            if query is not None:
                return query
        tail, end = lines[0], start
    return None


def _end_of_query(file: IO[bytes], position: int, query: bytes) -> int:
    """Where the lines of ``query`` from ``position`` (a line start) end, blank and comment
    lines among them: the start of the first line of another query, or the end of the file."""
    file.seek(position)
    offset, data = position, b""  # data: the bytes from offset on, read and not yet passed
    while True:
        block = file.read(_BLOCK)
        data += block
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            found = _first_field(data[start:newline])
            if found is not None and found != query:
                return offset + start
            start = newline + 1
        if not block:  # the end of the file, after a last line without a newline
            found = _first_field(data[start:])
            return offset + start if found is not None and found != query else offset + len(data)
        offset, data = offset + start, data[start:]


def query_bounds(file: IO[bytes], start: int, end: int, size: int) -> tuple[int, int]:
    """The bytes of the queries that start in ``start..end`` of a file: from the first line
    of a query that starts at or after ``start`` to the end of the query in progress at
    ``end`` (lines start after a newline; a file's first range starts at 0)."""

    def aligned(position: int) -> int:
        if position <= 0:
            return 0
        if position >= size:
            return size
        line = _line_start_at_or_after(file, position, size)
        query = _query_before(file, line)
        return line if query is None else _end_of_query(file, line, query)

    first = aligned(start)
    last = aligned(end) if end < size else size
    return first, max(first, last)


def _line_start_at_or_after(file: IO[bytes], position: int, size: int) -> int:
    file.seek(position - 1)
    at = position - 1
    while at < size:
        block = file.read(_BLOCK)
        if not block:
            break
        newline = block.find(b"\n")
        if newline >= 0:
            return at + newline + 1
        at += len(block)
    return size


# The judgements, read once per Python worker (workers are reused from task to task).
_QRELS: dict[tuple[tuple[str, ...], tuple[float, ...]], pl.DataFrame] = {}


def _judgements(paths: tuple[str, ...]) -> pl.DataFrame:
    """Every judgement of the qrels files (query, document, grade, side), read by the core."""
    key = (paths, tuple(os.path.getmtime(path) for path in paths))
    frame = _QRELS.get(key)
    if frame is None:
        # Each file as one range (a compressed one decompressed).
        whole = _ranges(list(paths), range_bytes=1 << 62)
        tables = [as_polars(read_range(*part, "qrels")) for part in whole]
        frame = pl.concat(tables).select(
            pl.col(QUERY_ID).cast(pl.String),
            pl.col(DOC_ID).cast(pl.String),
            pl.col(RELEVANCE).cast(pl.Int64),
            pl.lit(QRELS_SIDE, pl.Int8).alias(SIDE),
        )
        _QRELS.clear()
        _QRELS[key] = frame
    return frame


def _scored_range(
    path: str, start: int, end: int, task: Task, judged: pl.DataFrame
) -> pl.DataFrame | None:
    """The queries that start in ``path``'s bytes ``start..end``, read whole and evaluated
    with their judgements: one row per query (None if the range holds none)."""
    rows = as_polars(read_range(path, start, end, "run", bounds=query_bounds))
    if rows.height == 0:
        return None
    ranked = rows.select(
        pl.col(QUERY_ID).cast(pl.String),
        pl.col(DOC_ID).cast(pl.String),
        pl.col(SCORE).cast(pl.Float64),
        pl.lit(RUN_SIDE, pl.Int8).alias(SIDE),
    )
    ids = ranked[QUERY_ID].unique().implode()
    chunk = pl.concat([judged.filter(pl.col(QUERY_ID).is_in(ids)), ranked], how="diagonal_relaxed")
    return _evaluate_chunk(chunk, task)


def _evaluate_ranges(batches: Iterator[Any], task: Task, qrels: tuple[str, ...]) -> Iterator[Any]:
    """What runs on the executors: each range of the run (columns path, start, end), its
    queries read whole and evaluated with their judgements: one row per query."""
    judged = _judgements(qrels)
    types = outcome_types(task)
    for batch in batches:
        ranges = batch.to_pydict()
        for path, start, end in zip(ranges["path"], ranges["start"], ranges["end"], strict=True):
            scored = _scored_range(path, start, end, task, judged)
            if scored is not None:
                yield from _batches(scored, types)


def scored_ranges(
    ranges: Iterable[tuple[str, int, int]], task: Task, qrels: tuple[str, ...]
) -> Iterator[bytes | tuple[str, str]]:
    """What runs on the executors for `rankscope.spark.evaluate_files` (a plain Spark job, no
    Spark SQL): each range's per-query rows as an Arrow IPC stream; a rankscope error as its
    class name and message, for the driver to raise (Spark would bury it in a Java trace)."""
    try:
        judged = _judgements(qrels)
        for path, start, end in ranges:
            scored = _scored_range(path, start, end, task, judged)
            if scored is not None:
                yield scored.write_ipc_stream(None).getvalue()
    except RankscopeError as error:
        yield (type(error).__name__, str(error))


def query_read_twice(seen: pl.Series) -> str | None:
    """A query id evaluated by two tasks (the run is not grouped by query), or None."""
    twice = seen.filter(seen.is_duplicated())
    return str(twice[0]) if twice.len() else None


def missing_rows(seen: pl.Series, task: Task, qrels: tuple[str, ...]) -> pl.DataFrame | None:
    """The rows of the judged queries absent from ``seen`` (the run's queries), scored under
    ``complete`` as in memory; None when every judged query is in the run."""
    judged = _judgements(qrels)
    missing = judged.filter(~pl.col(QUERY_ID).is_in(seen.implode()))
    return _evaluate_chunk(missing, task) if missing.height else None


def _finish(batches: Iterator[Any], task: Task, qrels: tuple[str, ...]) -> Iterator[Any]:
    """The last pass, over every per-query row in one partition: refuse a query read by two
    tasks, and add the judged queries the run lacks (scored, under ``complete``)."""
    types = outcome_types(task)
    frames = [as_polars(batch) for batch in batches]
    rows = pl.concat(frames) if frames else None
    seen = rows[QUERY_ID] if rows is not None else pl.Series(QUERY_ID, [], dtype=pl.String)
    twice = query_read_twice(seen)
    if twice is not None:
        raise InputError(f"{NOT_GROUPED}: query {twice!r}")
    if rows is not None:
        yield from _batches(rows, types)
    missing = missing_rows(seen, task, qrels)
    if missing is not None:
        yield from _batches(missing, types)


def grouped_outcome(
    spark: SparkSession,
    run: TrecFiles,
    qrels: TrecFiles,
    task: Task,
    schema: Any,
    range_bytes: int | None = None,
) -> DataFrame:
    """The per-query table (query, status, one column per measure) of a run evaluated range
    by range where it is read (ranges of about ``range_bytes``); see the module's docstring."""
    ranges = _ranges(list(run.paths), range_bytes)
    seeds = spark.sparkContext.parallelize(ranges, len(ranges))
    with quiet_pyspark():
        table = spark.createDataFrame(seeds, "path string, start bigint, end bigint")
        evaluated = table.mapInArrow(
            partial(_evaluate_ranges, task=task, qrels=qrels.paths), schema
        )
        return evaluated.repartition(1).mapInArrow(
            partial(_finish, task=task, qrels=qrels.paths), schema
        )
