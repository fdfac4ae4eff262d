"""`Qrels` and `Run`: the two inputs of every evaluation, as validated columnar tables.

Both wrap a polars DataFrame with fixed column names and types:

* ``Qrels.frame``: ``query_id`` (str), ``doc_id`` (str), ``relevance`` (Int64), and for
  diversity qrels ``subtopic`` (str): the subtopic (intent) judged, TREC's second field
* ``Run.frame``: ``query_id`` (str), ``doc_id`` (str), ``score`` (Float64); beside it,
  ``Run.empty_queries``: the queries given with nothing retrieved (``{"q3": []}``, or a query
  of a fusion every run left empty), which no row can hold

Ids are always strings (integer ids are converted with ``str``), because trec_eval breaks score
ties by comparing document ids as byte strings. Row order is kept exactly as given: the ``trec``
profile re-sorts by score, the ``weknora`` profile uses the order as given. Constructors copy,
never mutate, what they are given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from rankscope.errors import EmptyInputError, InputError
from rankscope.io._columns import DOC_ID, QUERY_ID, RELEVANCE, SCORE, SUBTOPIC

__all__ = ["DOC_ID", "QUERY_ID", "RELEVANCE", "SCORE", "SUBTOPIC", "Qrels", "Run"]

QRELS_SCHEMA = {QUERY_ID: pl.String, DOC_ID: pl.String, RELEVANCE: pl.Int64}
RUN_SCHEMA = {QUERY_ID: pl.String, DOC_ID: pl.String, SCORE: pl.Float64}


def _id_column(values: pl.Series, name: str, source: str) -> pl.Series:
    """Cast an id column to strings, refusing nulls and empty ids."""
    if values.dtype != pl.String:
        if values.dtype.is_float():
            raise InputError(
                f"column {name!r} must hold strings or integers; found floats ({values.dtype})",
                source=source,
            )
        values = values.cast(pl.String)
    bad = values.is_null() | (values.str.len_bytes() == 0)
    if bad.any():
        row = int(bad.arg_max() or 0)
        raise InputError(f"column {name!r} is empty or null at row {row + 1}", source=source)
    return values.alias(name)


def drop_constant_subtopic(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` without its subtopic column when that holds a single value (TREC's usual
    ``0``), which says nothing: one subtopic per query is what qrels without one mean."""
    if SUBTOPIC in frame.columns and frame[SUBTOPIC].n_unique() <= 1:
        return frame.drop(SUBTOPIC)
    return frame


def _check_scores(scores: pl.Series, ids: pl.DataFrame, source: str) -> pl.Series:
    """Scores must be finite numbers: NaN, infinite and null scores are errors."""
    try:
        scores = scores.cast(pl.Float64)
    except pl.exceptions.InvalidOperationError as error:
        raise InputError(f"scores must be numbers; found {scores.dtype}", source=source) from error
    bad = scores.is_null() | ~scores.is_finite()
    if bad.any():
        row = int(bad.arg_max() or 0)
        found = scores[row]
        raise InputError(
            f"score must be a finite number; found {found!r} for query "
            f"{ids[QUERY_ID][row]!r}, document {ids[DOC_ID][row]!r} (row {row + 1})",
            source=source,
        )
    return scores.alias(SCORE)


def _check_grades(grades: pl.Series, ids: pl.DataFrame, source: str) -> pl.Series:
    """Grades must be integers; a float column is accepted only when every value is whole."""
    if grades.dtype.is_integer():
        if grades.is_null().any():
            row = int(grades.is_null().arg_max() or 0)
            raise InputError(f"relevance is missing at row {row + 1}", source=source)
        return grades.cast(pl.Int64).alias(RELEVANCE)
    if grades.dtype == pl.String:
        as_int = grades.str.strip_chars().cast(pl.Int64, strict=False)
        bad = as_int.is_null()
        if bad.any():
            row = int(bad.arg_max() or 0)
            raise InputError(
                f"relevance must be an integer grade; found {grades[row]!r} for query "
                f"{ids[QUERY_ID][row]!r}, document {ids[DOC_ID][row]!r} (row {row + 1})",
                source=source,
            )
        return as_int.alias(RELEVANCE)
    if grades.dtype.is_float() or grades.dtype == pl.Boolean:
        as_float = grades.cast(pl.Float64)
        bad = as_float.is_null() | ~as_float.is_finite() | (as_float != as_float.round(0))
        if bad.any():
            row = int(bad.arg_max() or 0)
            raise InputError(
                f"relevance must be an integer grade; found {grades[row]!r} for query "
                f"{ids[QUERY_ID][row]!r}, document {ids[DOC_ID][row]!r} (row {row + 1})",
                source=source,
            )
        return as_float.cast(pl.Int64).alias(RELEVANCE)
    raise InputError(f"relevance must be integer grades; found {grades.dtype}", source=source)


_INT64 = range(-(2**63), 2**63)


def id_value(value: Any, what: str, source: str, query_id: Any = None) -> str:
    """An id as a string: strings and integers only (a float or a tuple is a mistake)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return str(value)
    where = "" if query_id is None else f" in query {query_id!r}"
    raise InputError(
        f"{what} ids must be strings or integers; found {type(value).__name__} {value!r}{where}",
        source=source,
    )


def number_value(value: Any, rule: str, query_id: Any, doc_id: Any, source: str) -> int | float:
    """A grade or score as a Python number: floats stay floats (validated later), integers
    must fit 64 bits; anything else is an error."""
    if isinstance(value, float | np.floating):
        return float(value)
    is_integer = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if is_integer and int(value) in _INT64:
        return int(value)
    raise InputError(
        f"{rule}; found {value!r} for query {query_id!r}, document {doc_id!r}", source=source
    )


def _flatten(
    nested: Mapping[Any, Any],
    what: str,
    expected: str,
    value_rule: str,
    source: str,
    empty: list[str] | None = None,
) -> tuple[list[str], list[str], list[int | float]]:
    """Columns from ``{query_id: {doc_id: number}}``, refusing anything but real numbers; the
    queries given an empty mapping are added to ``empty`` (when given)."""
    query_ids: list[str] = []
    doc_ids: list[str] = []
    values: list[int | float] = []
    for query_id, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"{what} of query {query_id!r} must be {expected}; found {type(docs).__name__}",
                source=source,
            )
        query = id_value(query_id, "query", source)
        if not docs and empty is not None:
            empty.append(query)
        for doc_id, value in docs.items():
            doc_ids.append(id_value(doc_id, "document", source, query_id))
            values.append(number_value(value, value_rule, query_id, doc_id, source))
            query_ids.append(query)
    return query_ids, doc_ids, values


def _frame_from(
    data: Any, columns: Mapping[str, str | None], kind: Literal["qrels", "run"], source: str
) -> pl.DataFrame:
    """Our columns of a frame (polars, pandas, pyarrow, datasets, an Arrow stream), found by
    name or named in ``columns`` (ours -> theirs; None: look for the usual names)."""
    from rankscope.io._inputs import frame_of, select_columns

    frame = frame_of(data)
    if frame is None:
        raise InputError(
            f"{kind} must be a DataFrame (polars, pandas, pyarrow, datasets) or an object "
            f"exporting an Arrow stream; found {type(data).__name__}",
            source=source,
        )
    mapping = {ours: theirs for ours, theirs in columns.items() if theirs is not None}
    return select_columns(frame, kind, mapping, source)


def _without_rows(queries: Iterable[str], frame: pl.DataFrame) -> tuple[str, ...]:
    """The distinct ``queries`` that no row of ``frame`` holds, in order (a query given both
    empty and with rows has rows)."""
    queries = tuple(dict.fromkeys(queries))
    if not queries:
        return ()
    present = set(frame[QUERY_ID].filter(frame[QUERY_ID].is_in(queries)).to_list())
    return tuple(q for q in queries if q not in present)


def _has_schema(data: Any, schema: Mapping[str, Any]) -> bool:
    """Whether ``data`` is a polars frame that already has a table's columns and types (taken
    as it is: the readers and the constructors below made it)."""
    if not isinstance(data, pl.DataFrame):
        return False
    columns = data.schema
    return all(columns.get(name) == dtype for name, dtype in schema.items())


@dataclass(frozen=True, eq=False, init=False)
class Qrels:
    """Relevance judgements: for each query, documents and their integer grades.

    ``Qrels(data)`` takes what `rankscope.io.as_qrels` takes, as ranx's ``Qrels`` does: a dict
    ``{query_id: {doc_id: grade}}``, a file path, a frame with the usual column names, or
    records such as ir_datasets' ``qrels_iter()``. :meth:`from_dict`, :meth:`from_df` and the
    readers of :mod:`rankscope.io` build one too; a polars frame that already has the columns
    ``query_id``, ``doc_id`` (strings) and ``relevance`` (Int64) is taken as it is.

    Examples
    --------
    >>> qrels = Qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    >>> len(qrels), qrels.query_ids
    (3, ['q1', 'q2'])
    >>> Qrels({"q1": {"d1": 0.5}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: <dict>: relevance must be an integer grade; found 0.5 ...
    """

    frame: pl.DataFrame
    source: str = "<qrels>"

    def __init__(self, data: Any = None, source: str | None = None, *, frame: Any = None) -> None:
        # ``frame=`` is the field's name, for dataclasses.replace.
        data = frame if data is None else data
        if data is None:
            raise TypeError("Qrels() needs the judgements: a dict, a file path or a frame")
        if not _has_schema(data, QRELS_SCHEMA):
            from rankscope.io._inputs import as_qrels

            table = as_qrels(data)
            data, source = table.frame, source or table.source
        object.__setattr__(self, "frame", data)
        object.__setattr__(self, "source", source or "<qrels>")

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, source: str = "<qrels>") -> Qrels:
        """Validate a frame that already has the columns query_id, doc_id, relevance (and
        subtopic, for diversity qrels).

        Examples
        --------
        >>> frame = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["d1"] * 2,
        ...                       "relevance": [1, 0], "subtopic": [1, 2]})
        >>> Qrels.from_frame(frame).frame.rows()
        [('q1', 'd1', 1, '1'), ('q1', 'd1', 0, '2')]
        """
        if frame.height == 0:
            raise EmptyInputError("qrels hold no judgements", source=source)
        ids = pl.DataFrame(
            [
                _id_column(frame[QUERY_ID], QUERY_ID, source),
                _id_column(frame[DOC_ID], DOC_ID, source),
            ]
        )
        grades = _check_grades(frame[RELEVANCE], ids, source)
        checked = ids.with_columns(grades)
        if SUBTOPIC in drop_constant_subtopic(frame).columns:
            checked = checked.with_columns(_id_column(frame[SUBTOPIC], SUBTOPIC, source))
        return cls(checked, source)

    @property
    def has_subtopics(self) -> bool:
        """Whether the judgements name subtopics (diversity qrels)."""
        return SUBTOPIC in self.frame.columns

    @classmethod
    def from_dict(cls, qrels: Mapping[Any, Mapping[Any, Any]], source: str = "<dict>") -> Qrels:
        """From ``{query_id: {doc_id: grade}}``; ids may be strings or integers.

        Examples
        --------
        >>> Qrels.from_dict({1: {10: 1}}).frame.row(0)
        ('1', '10', 1)
        """
        query_ids, doc_ids, grades = _flatten(
            qrels,
            "qrels",
            "a mapping doc_id -> grade",
            "relevance must be an integer grade",
            source,
        )
        frame = pl.DataFrame(
            {QUERY_ID: query_ids, DOC_ID: doc_ids, RELEVANCE: grades},
            schema={
                QUERY_ID: pl.String,
                DOC_ID: pl.String,
                RELEVANCE: pl.Float64 if any(isinstance(g, float) for g in grades) else pl.Int64,
            },
        )
        return cls.from_frame(frame, source)

    @classmethod
    def from_df(
        cls,
        data: Any,
        *,
        query_id: str | None = None,
        doc_id: str | None = None,
        relevance: str | None = None,
        source: str = "<DataFrame>",
    ) -> Qrels:
        """From a polars, pandas or pyarrow frame or a ``datasets.Dataset``; columns are found
        by their usual names (query_id, qid, query-id; doc_id, docno, corpus-id, ...;
        relevance, grade, label, score), or named here.

        Examples
        --------
        >>> frame = pl.DataFrame({"qid": ["q1"], "docno": ["d1"], "rel": [1]})
        >>> Qrels.from_df(frame, query_id="qid", doc_id="docno", relevance="rel").frame.row(0)
        ('q1', 'd1', 1)
        """
        columns = {QUERY_ID: query_id, DOC_ID: doc_id, RELEVANCE: relevance}
        return cls.from_frame(_frame_from(data, columns, "qrels", source), source)

    @property
    def query_ids(self) -> list[str]:
        """The judged query ids, sorted."""
        return sorted(self.frame[QUERY_ID].unique().to_list())

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: grade}}`` (of duplicate judgements the first, as evaluated)."""
        result: dict[str, dict[str, int]] = {}
        for query_id, doc_id, grade in self.frame.select(QUERY_ID, DOC_ID, RELEVANCE).iter_rows():
            result.setdefault(query_id, {}).setdefault(doc_id, grade)
        return result

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        queries = self.frame[QUERY_ID].n_unique()
        return f"Qrels({self.frame.height} judgements, {queries} queries, source={self.source!r})"


@dataclass(frozen=True, eq=False, init=False)
class Run:
    """Ranked results: for each query, retrieved documents with scores, in the order given.

    ``Run(data, name=...)`` takes what `rankscope.io.as_run` takes, as ranx's ``Run`` does: a
    dict ``{query_id: {doc_id: score}}`` or ``{query_id: [doc_id, ...]}`` (best first), a file
    path, a frame with the usual column names, or records such as ``scoreddocs_iter()``.
    :meth:`from_dict`, :meth:`from_lists`, :meth:`from_df` and the readers of
    :mod:`rankscope.io` build one too; a polars frame that already has the columns
    ``query_id``, ``doc_id`` (strings) and ``score`` (Float64) is taken as it is.

    Examples
    --------
    >>> run = Run({"q1": {"d1": 0.9, "d2": 0.3}}, name="bm25")
    >>> run.name, run.frame.rows()
    ('bm25', [('q1', 'd1', 0.9), ('q1', 'd2', 0.3)])
    >>> Run.from_lists({"q1": ["d2", "d1"]}).frame.rows()
    [('q1', 'd2', 2.0), ('q1', 'd1', 1.0)]

    A query given with nothing retrieved has no row; the run keeps it in `empty_queries`,
    and evaluates it as a query that retrieved nothing:

    >>> run = Run({"q1": ["d1"], "q2": []})
    >>> run.empty_queries, run.query_ids
    (('q2',), ['q1', 'q2'])
    """

    frame: pl.DataFrame
    name: str = "run"
    source: str = "<run>"
    empty_queries: tuple[str, ...] = ()
    """The queries given with nothing retrieved (no row holds them), in the order given."""

    def __init__(
        self,
        data: Any = None,
        name: str | None = None,
        source: str | None = None,
        *,
        frame: Any = None,
        empty_queries: Iterable[str] = (),
    ) -> None:
        data = frame if data is None else data
        if data is None:
            raise TypeError("Run() needs the rankings: a dict, a file path or a frame")
        if not _has_schema(data, RUN_SCHEMA):
            from rankscope.io._inputs import as_run

            table = as_run(data, name=name)
            data, name, source = table.frame, table.name, source or table.source
            empty_queries = [*table.empty_queries, *empty_queries]
        object.__setattr__(self, "frame", data)
        object.__setattr__(self, "name", name or "run")
        object.__setattr__(self, "source", source or "<run>")
        object.__setattr__(self, "empty_queries", _without_rows(empty_queries, data))

    @classmethod
    def from_frame(
        cls,
        frame: pl.DataFrame,
        name: str = "run",
        source: str = "<run>",
        empty_queries: Iterable[str] = (),
    ) -> Run:
        """Validate a frame that already has the columns query_id, doc_id, score; the run
        holds ``empty_queries`` too, with nothing retrieved."""
        empty_queries = tuple(empty_queries)
        if frame.height == 0 and not empty_queries:
            raise EmptyInputError("run holds no results", source=source)
        ids = pl.DataFrame(
            [
                _id_column(frame[QUERY_ID], QUERY_ID, source),
                _id_column(frame[DOC_ID], DOC_ID, source),
            ]
        )
        scores = _check_scores(frame[SCORE], ids, source)
        return cls(ids.with_columns(scores), name, source, empty_queries=empty_queries)

    @classmethod
    def from_dict(
        cls,
        run: Mapping[Any, Mapping[Any, Any]],
        name: str = "run",
        source: str = "<dict>",
    ) -> Run:
        """From ``{query_id: {doc_id: score}}``; ids may be strings or integers (a query
        given ``{}`` retrieved nothing: see `empty_queries`)."""
        empty: list[str] = []
        query_ids, doc_ids, scores = _flatten(
            run,
            "results",
            "a mapping doc_id -> score (use Run.from_lists for ranked lists)",
            "score must be a finite number",
            source,
            empty,
        )
        frame = pl.DataFrame(
            {QUERY_ID: query_ids, DOC_ID: doc_ids, SCORE: [float(s) for s in scores]}, RUN_SCHEMA
        )
        return cls.from_frame(frame, name, source, empty)

    @classmethod
    def from_lists(
        cls,
        run: Mapping[Any, Sequence[Any]],
        name: str = "run",
        source: str = "<lists>",
    ) -> Run:
        """From ``{query_id: [doc_id, ...]}`` in rank order, best first.

        Scores are made from the position (``n - i`` for the i-th of n documents), so every
        profile ranks the documents exactly in the order given. A query given ``[]``
        retrieved nothing (see `empty_queries`).
        """
        empty: list[str] = []
        query_ids: list[str] = []
        doc_ids: list[str] = []
        scores: list[float] = []
        for query_id, docs in run.items():
            # A set or a dict has no rank order; a string is not a list of ids.
            if isinstance(docs, str | bytes | Set | Mapping) or not isinstance(docs, Iterable):
                raise InputError(
                    f"results of query {query_id!r} must be a list of document ids in rank "
                    f"order; found {type(docs).__name__}",
                    source=source,
                )
            ranked = [id_value(doc, "document", source, query_id) for doc in docs]
            if not ranked:
                empty.append(id_value(query_id, "query", source))
            query_ids.extend([id_value(query_id, "query", source)] * len(ranked))
            doc_ids.extend(ranked)
            scores.extend(float(len(ranked) - i) for i in range(len(ranked)))
        frame = pl.DataFrame({QUERY_ID: query_ids, DOC_ID: doc_ids, SCORE: scores}, RUN_SCHEMA)
        return cls.from_frame(frame, name, source, empty)

    @classmethod
    def from_df(
        cls,
        data: Any,
        *,
        query_id: str | None = None,
        doc_id: str | None = None,
        score: str | None = None,
        name: str = "run",
        source: str = "<DataFrame>",
    ) -> Run:
        """From a polars, pandas or pyarrow frame or a ``datasets.Dataset``; columns are found
        by their usual names (query_id, qid, query-id; doc_id, docno, corpus-id, ...; score),
        or named here."""
        columns = {QUERY_ID: query_id, DOC_ID: doc_id, SCORE: score}
        return cls.from_frame(_frame_from(data, columns, "run", source), name, source)

    @property
    def query_ids(self) -> list[str]:
        """The query ids of the run (its empty queries too), sorted."""
        return sorted({*self.frame[QUERY_ID].unique().to_list(), *self.empty_queries})

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}`` (of a document ranked twice, the first line; an
        empty query, ``{}``)."""
        result: dict[str, dict[str, float]] = {}
        for query_id, doc_id, score in self.frame.iter_rows():
            result.setdefault(query_id, {}).setdefault(doc_id, score)
        for query_id in self.empty_queries:
            result[query_id] = {}
        return result

    def __len__(self) -> int:
        return self.frame.height

    def __repr__(self) -> str:
        queries = self.frame[QUERY_ID].n_unique() + len(self.empty_queries)
        return (
            f"Run({self.name!r}, {self.frame.height} results, {queries} queries, "
            f"source={self.source!r})"
        )
