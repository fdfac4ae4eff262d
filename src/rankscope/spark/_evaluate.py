"""`evaluate` on Spark DataFrames, and what it returns: `SparkResults`."""

from __future__ import annotations

import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import polars as pl

import rankscope
from rankscope import errors
from rankscope.errors import InputError, OptionError, RankscopeError, RankscopeWarning
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE
from rankscope.spark._grouped import (
    NOT_GROUPED,
    grouped_outcome,
    missing_rows,
    query_read_twice,
    scored_ranges,
)
from rankscope.spark._partition import (
    COUNT_COLUMNS,
    HEAD_COLUMNS,
    MISSING,
    QRELS_SIDE,
    ROW,
    RUN_SIDE,
    SCORED_MISSING,
    SIDE,
    STATUS,
    UNJUDGED,
    Counts,
    Task,
    aggregate_partition,
    as_polars,
    evaluate_partition,
    results_of,
)
from rankscope.spark._read import TrecFiles, _ranges, trec_files_of
from rankscope.spark._session import quiet_pyspark

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["DEFAULT_ROWS_PER_CHUNK", "SparkResults", "evaluate", "evaluate_files"]

DEFAULT_ROWS_PER_CHUNK = 500_000
"""Rows (qrels and run together) an executor evaluates in one call, at least: enough for the
per-call cost to vanish, few enough for a Python worker's memory (about 100 MB)."""


def quoted(name: str) -> str:
    """A column name for Spark's parser: measure names hold dots, parentheses and @."""
    return "`" + name.replace("`", "``") + "`"


_ID_TYPES = ("string", "tinyint", "smallint", "int", "bigint")


def _input_columns(frame: DataFrame, columns: dict[str, str], what: str, side: int) -> DataFrame:
    """``frame``'s columns under our names: ids as strings (integers converted, as in memory),
    the value column as given (the executors check it), the side, and the row order."""
    from pyspark.sql import functions as F

    found = frame.columns
    missing = [theirs for theirs in columns.values() if theirs not in found]
    if missing:
        raise InputError(
            f"{what} needs the columns {sorted(columns.values())}; missing {missing}, found {found}"
        )
    types = dict(frame.dtypes)
    selected = []
    for ours, theirs in columns.items():
        column = F.col(quoted(theirs))
        if ours in (QUERY_ID, DOC_ID):
            if types[theirs] not in _ID_TYPES:
                raise InputError(
                    f"column {theirs!r} of the {what} must hold strings or integers; "
                    f"found {types[theirs]}"
                )
            column = column.cast("string")
        selected.append(column.alias(ours))
    return frame.select(
        *selected,
        F.lit(side).cast("tinyint").alias(SIDE),
        F.monotonically_increasing_id().alias(ROW),
    )


def _schema(columns: Iterable[tuple[str, Any]]) -> Any:
    """A Spark schema from (name, Spark type) pairs: measure names are no DDL identifiers."""
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(name, kind) for name, kind in columns])


def _outcome_schema(columns: Iterable[str]) -> Any:
    from pyspark.sql.types import ByteType, DoubleType, StringType

    return _schema(
        [(QUERY_ID, StringType()), (STATUS, ByteType()), *((c, DoubleType()) for c in columns)]
    )


_RAISED = re.compile(r"^rankscope(?:\.\w+)*\.(\w+): (.*?)\s*(?:SQLSTATE: \w+\s*)?\Z", re.M | re.S)


def _missing_on_executors(session: SparkSession | None) -> str:
    """What to do when the executors cannot import rankscope: on a local master, run them with
    this interpreter; on a cluster, install the wheel there."""
    context = None if session is None else session.sparkContext
    master = "" if context is None else str(context.master)
    if master.startswith("local"):
        executors = getattr(context, "pythonExec", None) or "python3"
        # Not resolved through links: a virtual environment's python is a link to its base.
        if os.path.abspath(shutil.which(executors) or executors) != os.path.abspath(sys.executable):
            return (
                f"the Spark executors run {executors!r} (PySpark starts them with PYSPARK_PYTHON, "
                "else python3 from PATH), which cannot import rankscope; this interpreter is "
                f"{sys.executable!r}. Set os.environ['PYSPARK_PYTHON'] = sys.executable (or "
                f"PYSPARK_PYTHON={sys.executable} in the shell) before the session starts, or "
                "start it with rankscope.spark.local_session(), which does so"
            )
    return (
        "the Spark executors cannot import rankscope: install the same rankscope "
        "wheel on every executor (see docs/spark.md, 'Running on a cluster')"
    )


@contextmanager
def _errors_of_executors(session: SparkSession | None = None) -> Iterator[None]:
    """Raise a rankscope error that failed a Spark task as itself (its message as worded by the
    executor), and say clearly what to do when the executors lack rankscope."""
    try:
        yield
    except Exception as error:
        # A failed task of a DataFrame job is a PythonException; of a plain job, a Java one.
        if type(error).__name__ not in ("PythonException", "Py4JJavaError"):
            raise
        text = str(error)
        if "No module named 'rankscope'" in text:
            raise RankscopeError(_missing_on_executors(session)) from error
        raised = _RAISED.search(text) if type(error).__name__ == "PythonException" else None
        if raised is None:
            raise
        raise _raised_as(*raised.groups()) from None


def _raised_as(name: str, message: str) -> RankscopeError:
    """The rankscope error an executor raised, from its class name and message."""
    kind = getattr(errors, name, None)
    if not isinstance(kind, type) or not issubclass(kind, RankscopeError):
        kind = InputError  # one of the engine's own subclasses of it
    if issubclass(kind, errors.MissingDependencyError):
        kind = RankscopeError  # its message is complete; its constructor words another
    return kind(message)


class SparkResults:
    """What `rankscope.spark.evaluate` returns: per-query values as a Spark DataFrame, and
    aggregates computed in Spark.

    Nothing is computed until asked for. The per-query table (one row per query) is cached by
    Spark on first use, so :meth:`mean`, :attr:`per_query` and :meth:`to_results` evaluate the
    run once; :meth:`unpersist` frees it.

    A run read from TREC files by `rankscope.spark.read_run` is evaluated where it is read,
    range by range, when its queries are grouped (each query's lines together, as trec_eval
    writes runs); one that turns out not to be is evaluated again with a shuffle by query, with
    a warning (``fallback`` computes that table).
    """

    def __init__(
        self, outcome: DataFrame, task: Task, fallback: Callable[[], DataFrame] | None = None
    ) -> None:
        self._outcome = outcome
        self._task = task
        self._means: dict[str, float] | None = None
        self._fallback = fallback

    def _checked(self) -> DataFrame:
        """The per-query table, known to be whole: a table read range by range is computed
        (and cached) first, and replaced by the shuffled one if the run was not grouped."""
        if self._fallback is not None:
            self._retrying(lambda: self._outcome.count())
        return self._outcome

    def _retrying(self, action: Callable[[], Any]) -> Any:
        """``action()``, run again on the shuffled table if the run was not grouped."""
        try:
            with quiet_pyspark(), _errors_of_executors(self._outcome.sparkSession):
                result = action()
        except InputError as error:
            if self._fallback is None or NOT_GROUPED not in str(error):
                raise
            query = str(error).split(NOT_GROUPED, 1)[1].lstrip(": ")
            _warn_not_grouped(self._task, query, stacklevel=5)
            self._outcome.unpersist()
            self._outcome = self._fallback().persist()
            self._fallback = None
            with quiet_pyspark(), _errors_of_executors(self._outcome.sparkSession):
                result = action()
        self._fallback = None
        return result

    @property
    def measures(self) -> tuple[str, ...]:
        """Canonical names of the measures, in the order asked (the per-query columns)."""
        return self._task.measures

    @property
    def run_name(self) -> str:
        return self._task.run_name

    @property
    def per_query(self) -> DataFrame:
        """``query_id`` and one double column per measure (canonical names), one row per
        evaluated query: the rows of ``Results.per_query``, in no particular order."""
        from pyspark.sql import functions as F

        return (
            self._checked()
            .filter(F.col(STATUS) <= SCORED_MISSING)
            .select(
                QUERY_ID,
                *(
                    F.col(c).alias(m)
                    for m, c in zip(self.measures, self._task.columns, strict=True)
                ),
            )
        )

    @property
    def unjudged_queries(self) -> DataFrame:
        """``query_id`` of every query of the run without judgements (ignored)."""
        from pyspark.sql import functions as F

        return self._checked().filter(F.col(STATUS) == UNJUDGED).select(QUERY_ID)

    @property
    def missing_queries(self) -> DataFrame:
        """``query_id`` of every judged query absent from the run (scored 0 if ``complete``,
        else left out)."""
        from pyspark.sql import functions as F

        return self._checked().filter(F.col(STATUS).isin(SCORED_MISSING, MISSING)).select(QUERY_ID)

    def mean(self) -> dict[str, float]:
        """The aggregate of every measure, equal to ``Results.mean()`` of the in-memory
        evaluation to the last bit.

        The per-query table (one row per query, not the run) is gathered into one Spark
        partition and aggregated there by rankscope in the in-memory order (query ids
        byte-wise), since a floating-point sum depends on its order and Spark's own ``avg``
        adds in whatever order the partitions arrive.
        """
        if self._means is None:
            task = self._task
            from pyspark.sql.types import ArrayType, DoubleType, LongType, StringType

            schema = _schema(
                [
                    *((c, DoubleType()) for c in task.columns),
                    *((name, LongType()) for name in COUNT_COLUMNS),
                    *((name, ArrayType(StringType())) for name in HEAD_COLUMNS),
                ]
            )

            def aggregate() -> Any:
                aggregated = self._outcome.repartition(1).mapInArrow(
                    partial(aggregate_partition, task=task), schema
                )
                (row,) = aggregated.collect()
                return row

            row = self._retrying(aggregate)
            values = row.asDict()
            counts = Counts(values["evaluated"], values["unjudged"], values["missing"])
            counts.check(task)
            _warn_unjudged(counts.unjudged, values["unjudged_head"], task.run_name)
            self._means = {m: values[c] for m, c in zip(task.measures, task.columns, strict=True)}
        return dict(self._means)

    def to_results(self) -> rankscope.Results:
        """The per-query table brought to the driver as a `rankscope.Results`, identical to the
        in-memory evaluation's: for `rankscope.compare`, reports and the command line. Only
        per-query values travel (one row per query), never the run."""
        return _checked_results(self._retrying(lambda: _to_polars(self._outcome)), self._task)

    def unpersist(self) -> None:
        """Drop the cached per-query table."""
        self._outcome.unpersist()

    def __repr__(self) -> str:
        return f"SparkResults({self.run_name!r}, measures={list(self.measures)})"


def _to_polars(frame: DataFrame) -> pl.DataFrame:
    """A small DataFrame on the driver: through Arrow (Spark 4), or pandas (Spark 3.5)."""
    if hasattr(frame, "toArrow"):
        table = as_polars(frame.toArrow())
    else:
        table = pl.from_pandas(frame.toPandas())
    return table.with_columns(pl.col(STATUS).cast(pl.Int8))


def _checked_results(frame: pl.DataFrame, task: Task) -> rankscope.Results:
    """The `Results` of a whole per-query table on the driver, refused and warned about as in
    memory."""
    Counts.of(frame[STATUS]).check(task)
    results = results_of(frame, task)
    unjudged = results.unjudged_queries
    _warn_unjudged(len(unjudged), list(unjudged[:5]), task.run_name)
    return results


def _warn_not_grouped(task: Task, query: str, stacklevel: int) -> None:
    warnings.warn(
        f"{task.run_source}: the run is not grouped by query: {query} appears in two parts of "
        "the file; evaluating it again with a shuffle by query",
        RankscopeWarning,
        stacklevel=stacklevel,
    )


def _warn_unjudged(count: int, head: list[str], run_name: str) -> None:
    """The warning of the in-memory `evaluate`, word for word."""
    if count:
        shown = ", ".join(head[:5])
        more = "..." if count > 5 else ""
        warnings.warn(
            f"{count} queries of run {run_name!r} have no judgements and were ignored: "
            f"{shown}{more}",
            RankscopeWarning,
            stacklevel=3,
        )


def evaluate(
    qrels: DataFrame,
    run: DataFrame,
    measures: str | Iterable[str] | None = None,
    profile: str | rankscope.Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    query_id: str = QUERY_ID,
    doc_id: str = DOC_ID,
    relevance: str = RELEVANCE,
    score: str = SCORE,
    run_name: str = "run",
    partitions: int | None = None,
    rows_per_chunk: int = DEFAULT_ROWS_PER_CHUNK,
    qrels_source: str = "<qrels DataFrame>",
    run_source: str = "<run DataFrame>",
) -> SparkResults:
    """Evaluate a run against qrels on Spark, with the numbers of `rankscope.evaluate`.

    The rows of both DataFrames are partitioned by query id; each partition's queries are
    evaluated by `rankscope.evaluate` on an executor, in chunks of whole queries built from
    Arrow batches (``mapInArrow``). Per-query values are exactly those of the in-memory
    evaluation, and so are the aggregates of :meth:`SparkResults.mean`.

    Parameters
    ----------
    qrels
        Judgements: a Spark DataFrame with columns ``query_id``, ``doc_id``, ``relevance``.
    run
        Rankings: a Spark DataFrame with columns ``query_id``, ``doc_id``, ``score``.
    measures, profile, complete, relevance_level, max_documents, duplicate_documents
        As for `rankscope.evaluate` (``measures=None``: the profile's defaults). The
        ``weknora`` profile ranks each query's documents in the order of the DataFrame, which
        Spark keeps for rows read from a file.
    query_id, doc_id, relevance, score
        The names of those columns in the DataFrames, when they differ from ours.
    run_name
        The run's name, for messages and `SparkResults.to_results`.
    partitions
        How many partitions to spread the queries over; by default Spark decides
        (``spark.sql.shuffle.partitions``, coalesced by adaptive execution).
    rows_per_chunk
        Rows an executor hands to one evaluation, at least (whole queries are never split).
    qrels_source, run_source
        How messages name the inputs (the command line gives the file names).

    Returns
    -------
    SparkResults
        Lazy: errors in the data (a document ranked twice under ``trec``, a score that is not
        a finite number...) are raised when a result is asked for, with the in-memory message.

    Examples
    --------
    >>> import rankscope.spark  # doctest: +SKIP
    >>> results = rankscope.spark.evaluate(qrels_df, run_df, ["nDCG@10", "AP"])  # doctest: +SKIP
    >>> results.mean()  # doctest: +SKIP
    {'nDCG@10': 0.4837..., 'AP': 0.3561...}
    >>> results.per_query.write.parquet("per_query.parquet")  # doctest: +SKIP
    """
    task = _task(
        measures,
        profile=profile,
        complete=complete,
        relevance_level=relevance_level,
        max_documents=max_documents,
        duplicate_documents=duplicate_documents,
        partitions=partitions,
        rows_per_chunk=rows_per_chunk,
        run_name=run_name,
        qrels_source=qrels_source,
        run_source=run_source,
    )
    schema = _outcome_schema(task.columns)

    def shuffled() -> DataFrame:
        return _shuffled_outcome(
            qrels, run, task, schema, partitions, (query_id, doc_id, relevance, score)
        )

    run_files, qrels_files = trec_files_of(run), trec_files_of(qrels)
    named_ours = (query_id, doc_id, relevance, score) == (QUERY_ID, DOC_ID, RELEVANCE, SCORE)
    if run_files is not None and qrels_files is not None and named_ours and partitions is None:
        # Straight from TREC files: each range of the run evaluated where it is read.
        grouped = grouped_outcome(run.sparkSession, run_files, qrels_files, task, schema)
        return SparkResults(grouped.persist(), task, fallback=shuffled)
    return SparkResults(shuffled().persist(), task)


def _task(
    measures: str | Iterable[str] | None,
    *,
    profile: str | rankscope.Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    partitions: int | None = None,
    rows_per_chunk: int = DEFAULT_ROWS_PER_CHUNK,
    run_name: str = "run",
    qrels_source: str = "<qrels DataFrame>",
    run_source: str = "<run DataFrame>",
) -> Task:
    """What the executors need, checked on the driver before any job (see `evaluate`)."""
    options: dict[str, Any] = {
        "profile": profile,
        "complete": complete,
        "relevance_level": relevance_level,
        "max_documents": max_documents,
        "duplicate_documents": duplicate_documents,
    }
    for option, value in (("partitions", partitions), ("rows_per_chunk", rows_per_chunk)):
        if value is None and option == "partitions":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise OptionError(f"{option} must be an integer >= 1; got {value!r}")
    # The options and measures checked on the driver, before any job, by the in-memory API on
    # one tiny query: the same errors with the same messages, and the canonical names.
    probe = rankscope.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, measures, **options)
    names = tuple(m.name for m in probe.measures)
    return Task(
        measures=names,
        options=options,
        complete=complete,
        profile=probe.profile,
        run_name=run_name,
        qrels_source=qrels_source,
        run_source=run_source,
        rows_per_chunk=rows_per_chunk,
        definitions=_shipped(names),
    )


def _shipped(names: Iterable[str]) -> bytes:
    """The definitions of the user-defined measures among ``names``, pickled for the
    executors: by value, with the modules `rankscope.measures.load` ran from files (no
    executor could import those by name); empty when there are none."""
    from pyspark import cloudpickle as untyped

    from rankscope.measures import definitions_of
    from rankscope.measures._load import FILE_MODULES

    definitions = definitions_of(names)
    if not definitions:
        return b""
    cloudpickle: Any = untyped
    modules = {
        module
        for d in definitions
        if (module := sys.modules.get(getattr(d.fn, "__module__", "") or "")) is not None
        and module.__name__.startswith(FILE_MODULES)
    }
    for module in modules:
        cloudpickle.register_pickle_by_value(module)
    try:
        return bytes(cloudpickle.dumps(definitions))
    finally:
        for module in modules:
            cloudpickle.unregister_pickle_by_value(module)


def _shuffled_outcome(
    qrels: DataFrame,
    run: DataFrame,
    task: Task,
    schema: Any,
    partitions: int | None,
    names: tuple[str, str, str, str],
) -> DataFrame:
    """The per-query table the general way: both inputs' rows shuffled by query id, each
    partition sorted and evaluated in chunks of whole queries."""
    query_id, doc_id, relevance, score = names
    judged = _input_columns(
        qrels, {QUERY_ID: query_id, DOC_ID: doc_id, RELEVANCE: relevance}, "qrels", QRELS_SIDE
    )
    ranked = _input_columns(
        run, {QUERY_ID: query_id, DOC_ID: doc_id, SCORE: score}, "run", RUN_SIDE
    )
    rows = judged.unionByName(ranked, allowMissingColumns=True)
    spread = rows.repartition(partitions, QUERY_ID) if partitions else rows.repartition(QUERY_ID)
    with quiet_pyspark():
        return spread.sortWithinPartitions(QUERY_ID, SIDE, ROW).mapInArrow(
            partial(evaluate_partition, task=task), schema
        )


_DATAFRAME_OPTIONS = ("partitions", QUERY_ID, DOC_ID, RELEVANCE, SCORE)
"""Options of `evaluate` that only DataFrames have a use for (a shuffle into so many
partitions, other column names)."""


def evaluate_files(
    spark: SparkSession,
    qrels_path: str,
    run_paths: Iterable[str],
    measures: str | Iterable[str] | None = None,
    *,
    qrels_format: str | None = None,
    run_format: str | None = None,
    **options: Any,
) -> list[rankscope.Results]:
    """Evaluate run files against a qrels file on Spark: what ``rankscope evaluate --engine
    spark`` prints, as one `rankscope.Results` per run (per-query values brought to the
    driver). Paths may be files, directories or globs of TREC or Parquet files; ``options``
    are those of :func:`evaluate`.

    TREC files are evaluated by one plain Spark job per run, without Spark SQL: each byte
    range of the run, cut at query boundaries, read and scored by the task that reads it
    (as `evaluate` does), the per-query rows collected, and the judged queries the run lacks
    added on the driver, which reads the qrels with the core. A run that turns out not to be
    grouped by query is evaluated again with a shuffle, with a warning."""
    from rankscope.spark._read import read_qrels, read_run, run_name_of, trec_source

    for path in (qrels_path, *run_paths):
        if path == "-":
            raise InputError("Spark cannot read standard input; give a file path")
    qrels_files = trec_source(qrels_path, qrels_format, "qrels")
    dataframe_options = {k: options[k] for k in _DATAFRAME_OPTIONS if options.get(k) is not None}
    qrels: DataFrame | None = None
    results = []
    for path in run_paths:
        run_files = trec_source(path, run_format, "run")
        ungrouped: Task | None = None
        if qrels_files is not None and run_files is not None and not dataframe_options:
            task = _task(
                measures,
                run_name=run_name_of(path, run_files),
                qrels_source=qrels_path,
                run_source=path,
                **{k: v for k, v in options.items() if k not in _DATAFRAME_OPTIONS},
            )
            direct = _grouped_results(spark, run_files, qrels_files, task)
            if direct is not None:
                results.append(direct)
                continue
            ungrouped = task
        if qrels is None:
            qrels = read_qrels(spark, qrels_path, qrels_format)
        run, name = read_run(spark, path, run_format)
        if ungrouped is not None:  # straight to the shuffle by query
            schema = _outcome_schema(ungrouped.columns)
            ours = (QUERY_ID, DOC_ID, RELEVANCE, SCORE)
            shuffled = _shuffled_outcome(qrels, run, ungrouped, schema, None, ours)
            evaluated = SparkResults(shuffled.persist(), ungrouped)
        else:
            evaluated = evaluate(
                qrels,
                run,
                measures,
                run_name=name,
                qrels_source=qrels_path,
                run_source=path,
                **options,
            )
        results.append(evaluated.to_results())
        evaluated.unpersist()
    return results


def _grouped_results(
    spark: SparkSession, run: TrecFiles, qrels: TrecFiles, task: Task
) -> rankscope.Results | None:
    """The results of a run read from TREC files, evaluated range by range where it is read
    (`scored_ranges`) in one plain Spark job; None, with a warning, when the run is not grouped
    by query (a query read by two tasks)."""
    ranges = _ranges(list(run.paths))
    job = spark.sparkContext.parallelize(ranges, len(ranges)).mapPartitions(
        partial(scored_ranges, task=task, qrels=qrels.paths)
    )
    with quiet_pyspark(), _errors_of_executors(spark):
        parts = job.collect()
    frames = []
    for part in parts:
        if isinstance(part, tuple):
            raise _raised_as(*part)
        frames.append(pl.read_ipc_stream(part))
    types = {QUERY_ID: pl.String, STATUS: pl.Int8, **{c: pl.Float64 for c in task.columns}}
    rows = pl.concat(frames) if frames else pl.DataFrame(schema=types)
    twice = query_read_twice(rows[QUERY_ID])
    if twice is not None:
        _warn_not_grouped(task, repr(twice), stacklevel=4)
        return None
    missing = missing_rows(rows[QUERY_ID], task, qrels.paths)
    return _checked_results(pl.concat([rows, missing]) if missing is not None else rows, task)
