"""What runs on the executors: evaluating chunks of whole queries, and aggregating.

Both functions here are handed to ``mapInArrow``. They use rankscope's public API only
(`rankscope.evaluate`, `Qrels`, `Run`, `Results`), so the executors compute exactly what the
in-memory API computes, with whatever engine it has.
"""

from __future__ import annotations

import hashlib
import pickle
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

import rankscope
from rankscope.errors import EmptyInputError, InputError, RankscopeWarning
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE

__all__ = [
    "COUNT_COLUMNS",
    "EVALUATED",
    "HEAD_COLUMNS",
    "MISSING",
    "QRELS_SIDE",
    "RUN_SIDE",
    "SCORED_MISSING",
    "SIDE",
    "STATUS",
    "UNJUDGED",
    "Counts",
    "Task",
    "aggregate_partition",
    "as_polars",
    "evaluate_partition",
    "results_of",
]

SIDE = "_side"
"""Which input a row of the combined table comes from: `QRELS_SIDE` or `RUN_SIDE`."""
QRELS_SIDE, RUN_SIDE = 0, 1
ROW = "_row"
"""A row's position in its input, so that each query's rows keep the order given."""

STATUS = "_status"
"""What became of a query: one of the four values below."""
EVALUATED = 0  # in the run and judged: scored
SCORED_MISSING = 1  # judged, not in the run, scored (complete=True)
MISSING = 2  # judged, not in the run, left out
UNJUDGED = 3  # in the run, not judged: ignored


@dataclass(frozen=True)
class Task:
    """What every executor needs to evaluate: the measures and the options of `evaluate`."""

    measures: tuple[str, ...]
    options: dict[str, Any]
    complete: bool
    profile: str
    run_name: str
    qrels_source: str
    run_source: str
    rows_per_chunk: int
    definitions: bytes = b""
    """The user-defined measures among ``measures``, pickled by value
    (`rankscope.measures.Definition`): the executors define them before evaluating."""

    def define_measures(self) -> None:
        """Define the task's user-defined measures in this process, once."""
        if not self.definitions:
            return
        digest = hashlib.sha256(self.definitions).hexdigest()
        if digest in _DEFINED_HERE:
            return
        # Pickled by this task's own driver.
        for definition in pickle.loads(self.definitions):
            definition.register()
        _DEFINED_HERE.add(digest)

    @property
    def columns(self) -> tuple[str, ...]:
        """The measures' columns between Spark stages: measure names hold dots, which
        pyspark's ``mapInArrow`` cannot take in its input, so they get plain names."""
        return tuple(f"_m{i}" for i in range(len(self.measures)))


_DEFINED_HERE: set[str] = set()
"""The digests of the definitions this process has made (an executor's worker evaluates many
chunks of a task)."""


def _statuses(query_ids: pl.Series, status: int, columns: tuple[str, ...]) -> pl.DataFrame:
    """Rows for queries that were not scored: their status, null values."""
    return pl.DataFrame(
        {
            QUERY_ID: query_ids.cast(pl.String),
            STATUS: pl.Series([status] * query_ids.len(), dtype=pl.Int8),
            **{name: pl.Series([None] * query_ids.len(), dtype=pl.Float64) for name in columns},
        }
    )


def _placeholder_query(judged: pl.Series) -> str:
    """A query id that no judged query of the chunk has."""
    taken = set(judged.to_list())
    name = "\0rankscope-placeholder"
    while name in taken:
        name += "\0"
    return name


def _evaluate_chunk(frame: pl.DataFrame, task: Task) -> pl.DataFrame:
    """Per-query values and statuses of a chunk that holds every row of its queries."""
    task.define_measures()
    judged_rows = frame.filter(pl.col(SIDE) == QRELS_SIDE)
    ranked_rows = frame.filter(pl.col(SIDE) == RUN_SIDE)
    # Built (and so validated) before anything else is looked at, as in memory.
    qrels = None
    if judged_rows.height:
        qrels = rankscope.Qrels.from_df(
            judged_rows.select(QUERY_ID, DOC_ID, RELEVANCE), source=task.qrels_source
        )
    run = None
    if ranked_rows.height:
        run = rankscope.Run.from_df(
            ranked_rows.select(QUERY_ID, DOC_ID, SCORE),
            name=task.run_name,
            source=task.run_source,
        )
    judged_ids = judged_rows[QUERY_ID].unique()
    ranked_ids = ranked_rows[QUERY_ID].unique()
    if qrels is None:
        return _statuses(ranked_ids, UNJUDGED, task.columns)
    if run is None and not task.complete:
        return _statuses(judged_ids, MISSING, task.columns)
    if run is None:
        # Judged queries that the run lacks, to be scored with empty rankings: evaluate wants a
        # run, so it gets one result of a query that is not judged (and so is ignored).
        run = rankscope.Run.from_lists(
            {_placeholder_query(judged_ids): ["placeholder"]}, name=task.run_name
        )
        ranked_ids = pl.Series(QUERY_ID, [], dtype=pl.String)
    elif not task.complete and not bool(ranked_ids.is_in(judged_ids.implode()).any()):
        # Nothing to score here (evaluate would say the run and qrels have nothing in common,
        # which only the whole run can say).
        return pl.concat(
            [
                _statuses(ranked_ids, UNJUDGED, task.columns),
                _statuses(judged_ids, MISSING, task.columns),
            ]
        )
    with warnings.catch_warnings():
        # The driver counts unjudged queries over all partitions and warns once.
        warnings.simplefilter("ignore", RankscopeWarning)
        results = rankscope.evaluate(qrels, run, list(task.measures), **task.options)
    missing = pl.Series(QUERY_ID, results.missing_queries, dtype=pl.String)
    scored = results.to_polars().select(
        QUERY_ID,
        pl.when(pl.col(QUERY_ID).is_in(missing.implode()))
        .then(pl.lit(SCORED_MISSING, pl.Int8))
        .otherwise(pl.lit(EVALUATED, pl.Int8))
        .alias(STATUS),
        *(pl.col(m).alias(c) for m, c in zip(task.measures, task.columns, strict=True)),
    )
    unjudged = pl.Series(QUERY_ID, results.unjudged_queries, dtype=pl.String)
    unjudged = unjudged.filter(unjudged.is_in(ranked_ids.implode()))  # not the placeholder
    parts: list[pl.DataFrame] = [scored, _statuses(unjudged, UNJUDGED, task.columns)]
    if not task.complete:
        parts.append(_statuses(missing, MISSING, task.columns))
    return pl.concat(parts)


def _chunks(batches: Iterator[Any], rows_per_chunk: int) -> Iterator[pl.DataFrame]:
    """The partition's rows (sorted by query id) in chunks of whole queries, each of at least
    ``rows_per_chunk`` rows where the partition has them."""
    pending: list[pl.DataFrame] = []
    held = 0
    for batch in batches:
        frame = as_polars(batch)
        if frame.height == 0:
            continue
        pending.append(frame)
        held += frame.height
        if held < rows_per_chunk:
            continue
        rows = pl.concat(pending, rechunk=False)
        ids = rows[QUERY_ID]
        last = ids[-1]
        # The last query may go on in the next batch: it waits for the next chunk.
        cut = int((ids == last).arg_max() or 0) if last is not None else rows.height
        if cut == 0:  # one query fills the whole chunk so far
            pending = [rows]
            continue
        yield rows.slice(0, cut)
        pending = [rows.slice(cut)]
        held = rows.height - cut
    if held:
        yield pl.concat(pending, rechunk=False)


def _batches(frame: pl.DataFrame, types: dict[str, Any]) -> Iterator[Any]:
    """``frame`` as Arrow record batches of the plain types Spark reads (polars exports large
    and view types)."""
    schema = pa.schema([(name, types[name]) for name in frame.columns])
    yield from frame.to_arrow().cast(schema).to_batches()


def outcome_types(task: Task) -> dict[str, Any]:
    return {QUERY_ID: pa.string(), STATUS: pa.int8(), **{c: pa.float64() for c in task.columns}}


def evaluate_partition(batches: Iterator[Any], task: Task) -> Iterator[Any]:
    """``mapInArrow`` function: qrels and run rows of a partition, sorted by query id, to
    one row per query (`STATUS` and one double per measure)."""
    types = outcome_types(task)
    for chunk in _chunks(batches, task.rows_per_chunk):
        yield from _batches(_evaluate_chunk(chunk, task), types)


def as_polars(arrow: Any) -> pl.DataFrame:
    """An Arrow record batch or table as a polars DataFrame."""
    frame = pl.from_arrow(arrow)
    if not isinstance(frame, pl.DataFrame):  # an array; never from a batch or a table
        raise TypeError(f"expected an Arrow table; got {type(arrow).__name__}")
    return frame


@dataclass(frozen=True)
class Counts:
    """How many queries of each status an evaluation has."""

    evaluated: int
    unjudged: int
    missing: int

    @classmethod
    def of(cls, status: pl.Series) -> Counts:
        return cls(
            evaluated=int((status == EVALUATED).sum()),
            unjudged=int((status == UNJUDGED).sum()),
            missing=int(((status == SCORED_MISSING) | (status == MISSING)).sum()),
        )

    def check(self, task: Task) -> None:
        """Refuse what the in-memory `evaluate` refuses: empty qrels, an empty run, or
        (unless ``complete``) a run with no judged query."""
        if self.evaluated == 0 and self.missing == 0:
            raise EmptyInputError("qrels hold no judgements", source=task.qrels_source)
        if self.evaluated == 0 and self.unjudged == 0:
            raise EmptyInputError("run holds no results", source=task.run_source)
        if self.evaluated == 0 and not task.complete:
            raise InputError(
                f"no query of the run ({task.run_source}) is judged in the qrels "
                f"({task.qrels_source}): the run has {self.unjudged} queries, the qrels "
                f"{self.missing}, none in common; check that the query ids match"
            )


def results_of(frame: pl.DataFrame, task: Task) -> rankscope.Results:
    """The `Results` of a whole per-query table (every query of the evaluation), exactly as the
    in-memory `evaluate` makes it: scored queries in byte-wise order of their ids."""
    status = frame[STATUS]
    missing = frame.filter((status == SCORED_MISSING) | (status == MISSING))[QUERY_ID]
    return rankscope.Results(
        measures=tuple(rankscope.measure(name) for name in task.measures),
        per_query=frame.filter(status <= SCORED_MISSING)
        .select(
            QUERY_ID,
            *(pl.col(c).alias(m) for m, c in zip(task.measures, task.columns, strict=True)),
        )
        .sort(QUERY_ID),
        profile=task.profile,
        run_name=task.run_name,
        unjudged_queries=tuple(frame.filter(status == UNJUDGED)[QUERY_ID].sort().to_list()),
        missing_queries=tuple(missing.sort().to_list()),
        complete=task.complete,
    )


HEAD = 5
"""How many unjudged or missing query ids the aggregate keeps, for warnings."""

COUNT_COLUMNS = ("evaluated", "unjudged", "missing")
HEAD_COLUMNS = ("unjudged_head", "missing_head")
"""The aggregate row's columns after the measures' aggregates: counts, then first query ids."""


def aggregate_partition(batches: Iterator[Any], task: Task) -> Iterator[Any]:
    """``mapInArrow`` function over the whole per-query table in one partition: one row with
    the aggregate of every measure, the counts of each status, and the first unjudged and
    missing query ids.

    The aggregates are those of `Results.mean` over the same table, so they equal the
    in-memory ones bit for bit (the order of summation included).
    """
    schema = {QUERY_ID: pl.String, STATUS: pl.Int8, **{c: pl.Float64 for c in task.columns}}
    frames = [as_polars(batch) for batch in batches]
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=schema)
    results = results_of(frame, task)
    counts = Counts.of(frame[STATUS])
    row = {
        **{c: [value] for c, value in zip(task.columns, results.mean().values(), strict=True)},
        "evaluated": [counts.evaluated],
        "unjudged": [counts.unjudged],
        "missing": [counts.missing],
        "unjudged_head": [list(results.unjudged_queries[:HEAD])],
        "missing_head": [list(results.missing_queries[:HEAD])],
    }
    types = {
        **{c: pa.float64() for c in task.columns},
        **{name: pa.int64() for name in COUNT_COLUMNS},
        **{name: pa.list_(pa.string()) for name in HEAD_COLUMNS},
    }
    yield from _batches(pl.DataFrame(row), types)
