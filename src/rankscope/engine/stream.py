"""Streaming evaluation: runs larger than memory, evaluated a chunk of whole queries at a time.

Each chunk is prepared and scored like an in-memory run; only the per-query values are kept, so
peak memory follows the chunk size, not the run. The values are identical to evaluating the
whole run at once, because every measure of a query depends only on that query's rows.

A run whose lines are not grouped by query (a query id reappearing after other queries) cannot
be cut into whole queries as it is read. Then the chunks are first spread over partition files
on disk by a hash of the query id (every query lands whole in one partition), and each partition
is evaluated in memory in turn: an external, one-pass bucket sort.
"""

from __future__ import annotations

import queue
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

import polars as pl

from rankscope.engine.compute import compute
from rankscope.engine.measures import Measure
from rankscope.engine.prepare import NoCommonQueriesError, check_qrels, prepare
from rankscope.engine.profiles import Conventions
from rankscope.errors import NotGroupedError, RankscopeWarning
from rankscope.io.tables import QUERY_ID, RUN_SCHEMA, Qrels, Run

__all__ = ["NotGroupedError", "closing_iterator", "evaluate_chunks", "read_ahead"]

_PARTITION = "_partition"
_ROW = "_row"
T = TypeVar("T")


class _JudgementsByQuery:
    """The qrels, indexed once by query so that each chunk takes its queries' judgements
    without a pass over all of them (the qrels of a large run hold millions)."""

    def __init__(self, qrels: Qrels) -> None:
        self.qrels = qrels
        self.rows = qrels.frame.with_row_index(_ROW).group_by(QUERY_ID).agg(pl.col(_ROW))

    def of(self, queries: pl.Series) -> Qrels:
        """The judgements of ``queries``, in the order of the file."""
        rows = self.rows.join(queries.to_frame(QUERY_ID), on=QUERY_ID, how="semi")[_ROW]
        return Qrels(self.qrels.frame[rows.explode().sort()], self.qrels.source)


def _score(
    qrels: _JudgementsByQuery,
    run: Run,
    measures: list[Measure],
    conventions: Conventions,
    relevance_level: int,
    max_documents: int | None,
) -> tuple[pl.DataFrame, list[str]]:
    """Per-query values of one chunk, and its queries without judgements."""
    # Only this chunk's judgements: the qrels were checked once, before the first chunk.
    judged = qrels.of(run.frame[QUERY_ID].unique())
    try:
        prepared = prepare(
            judged,
            run,
            conventions,
            relevance_level=relevance_level,
            max_documents=max_documents,
            qrels_checked=True,
        )
    except NoCommonQueriesError:
        # A chunk whose queries are all unjudged contributes nothing.
        return pl.DataFrame(), run.frame[QUERY_ID].unique().to_list()
    values = compute(prepared.batch, measures, conventions, relevance_level)
    frame = pl.DataFrame(
        {QUERY_ID: prepared.batch.query_ids, **{m.name: values[m] for m in measures}},
        schema={QUERY_ID: pl.String, **{m.name: pl.Float64 for m in measures}},
    )
    return frame, prepared.unjudged_queries


@contextmanager
def closing_iterator(items: Iterable[T]) -> Iterator[Iterator[T]]:
    """An iterator over ``items`` that is closed on leaving the block, error or not: a reader
    (and the thread reading ahead for it) stops at once instead of living as long as a
    traceback that refers to it."""
    iterator = iter(items)
    try:
        yield iterator
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


@dataclass(frozen=True)
class _Raised:
    error: BaseException


def read_ahead(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """The items, produced by a thread up to ``depth`` ahead of the consumer: reading the next
    chunk of a run (polars, which lets go of the GIL) overlaps scoring this one.

    An error of the producer is raised to the consumer; a consumer that stops early stops the
    producer (after the item it is making).
    """
    buffer: queue.Queue[object] = queue.Queue(depth)
    stop = threading.Event()
    done = object()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                buffer.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        iterator = iter(items)
        try:
            for item in iterator:
                if not put(item):
                    return
        except BaseException as error:  # handed over to the consumer, who raises it
            put(_Raised(error))
            return
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()
        put(done)

    producer = threading.Thread(target=produce, name="rankscope-read-ahead", daemon=True)
    producer.start()
    try:
        while (item := buffer.get()) is not done:
            if isinstance(item, _Raised):
                raise item.error
            yield cast(T, item)
    finally:
        stop.set()
        if threading.current_thread() is not producer:  # (a collector may finalize us there)
            producer.join()


def _grouped(chunks: Iterable[Run]) -> Iterator[Run]:
    """The chunks, checking that no query reappears in a later chunk."""
    seen: set[str] = set()
    for chunk in chunks:
        queries = chunk.frame[QUERY_ID].unique().to_list()
        again = seen.intersection(queries)
        if again:
            raise NotGroupedError(
                f"the run is not grouped by query: query {sorted(again)[0]!r} appears again "
                "after other queries",
                source=chunk.source,
            )
        seen.update(queries)
        yield chunk


def _partitioned(chunks: Iterable[Run], folder: Path, partitions: int) -> Iterator[Run]:
    """Spread the chunks over ``partitions`` files by query-id hash, then read them back one by
    one: each holds whole queries, in the order their lines came."""
    name, source = "run", "<run>"
    for index, chunk in enumerate(chunks):
        name, source = chunk.name, chunk.source
        tagged = chunk.frame.with_columns(
            (pl.col(QUERY_ID).hash(0xB0C) % partitions).alias(_PARTITION)
        )
        for (part,), rows in tagged.partition_by(_PARTITION, as_dict=True).items():
            rows.drop(_PARTITION).write_ipc(folder / f"p{part:04d}-{index:08d}.arrow")
    for part in range(partitions):
        files = sorted(folder.glob(f"p{part:04d}-*.arrow"))
        if files:
            yield Run(pl.concat([pl.read_ipc(f) for f in files]), name, source)
            for f in files:
                f.unlink()


def evaluate_chunks(
    qrels: Qrels,
    chunks: Callable[[], Iterable[Run]],
    measures: list[Measure],
    conventions: Conventions,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_documents: int | None = None,
    grouped: bool | None = None,
    partitions: int = 64,
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """Per-query values of a run given as chunks of rows, and its unjudged and missing queries.

    Parameters
    ----------
    chunks
        Called to start reading the run; yields `Run` chunks. Called a second time when the
        run turns out not to be grouped by query and ``grouped`` is None.
    grouped
        True: the run must be grouped by query (else `NotGroupedError`). False: partition it
        on disk first. None: try grouped, fall back to partitioning with a warning.
    partitions
        How many partition files the fallback uses (memory holds about 1/partitions of the run).
    """
    if grouped is None:
        try:
            return evaluate_chunks(
                qrels,
                chunks,
                measures,
                conventions,
                relevance_level=relevance_level,
                complete=complete,
                max_documents=max_documents,
                grouped=True,
            )
        except NotGroupedError as error:
            warnings.warn(
                f"{error}; reading it again through {partitions} partition files on disk",
                RankscopeWarning,
                stacklevel=2,
            )
            grouped = False

    check_qrels(qrels, conventions)
    by_query = _JudgementsByQuery(qrels)
    frames: list[pl.DataFrame] = []
    unjudged: set[str] = set()
    run_source = "<run>"
    with tempfile.TemporaryDirectory(prefix="rankscope-") as folder:
        pieces = _grouped(chunks()) if grouped else _partitioned(chunks(), Path(folder), partitions)
        with closing_iterator(pieces) as each:
            for piece in each:
                run_source = piece.source
                frame, skipped = _score(
                    by_query, piece, measures, conventions, relevance_level, max_documents
                )
                if frame.height:
                    frames.append(frame)
                unjudged.update(skipped)

    schema = {QUERY_ID: pl.String, **{m.name: pl.Float64 for m in measures}}
    per_query = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
    judged = qrels.frame.select(pl.col(QUERY_ID).unique())
    missing = judged.join(per_query.select(QUERY_ID), on=QUERY_ID, how="anti")[QUERY_ID]
    if complete and missing.len():
        # Judged queries that no chunk held: score them with an empty ranking.
        only_missing = Qrels(qrels.frame.filter(pl.col(QUERY_ID).is_in(missing.implode())))
        empty = Run(pl.DataFrame(schema=RUN_SCHEMA))
        prepared = prepare(
            only_missing, empty, conventions, relevance_level=relevance_level, complete=True
        )
        values = compute(prepared.batch, measures, conventions, relevance_level)
        per_query = pl.concat(
            [
                per_query,
                pl.DataFrame(
                    {QUERY_ID: prepared.batch.query_ids, **{m.name: values[m] for m in measures}},
                    schema=schema,
                ),
            ]
        )
    if per_query.height == 0:
        raise NoCommonQueriesError(
            f"no query of the run ({run_source}) is judged in the qrels ({qrels.source}): "
            f"the run has {len(unjudged)} queries, the qrels {judged.height}, none in common; "
            "check that the query ids match"
        )
    return per_query.sort(QUERY_ID), sorted(unjudged), sorted(missing.to_list())
