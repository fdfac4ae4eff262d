"""Qrels and runs as users hold them in memory, turned into `Qrels` and `Run`.

Accepted, besides `Qrels` / `Run` themselves and file paths:

* nested dicts: ``{query_id: {doc_id: grade}}``; runs also ``{query_id: [doc_id, ...]}``;
* frames: polars (``DataFrame``, ``LazyFrame``), pandas, pyarrow (``Table``, ``RecordBatch``),
  Hugging Face ``datasets.Dataset``, and any object that exports an Arrow stream
  (``__arrow_c_stream__``, the Arrow PyCapsule interface). Columns are found by name, as in
  CSV files (query_id, qid, query-id; doc_id, docid, docno, corpus-id, pid; relevance, rel,
  grade, label, score), or named with ``query_id=``, ``doc_id=``, ``relevance=`` / ``score=``;
  diversity qrels add the subtopic of each judgement in a column ``subtopic`` (also found as
  ``subtopic_id`` or ``iteration``, TREC's second field, or named with ``subtopic=``);
* iterables of records: named tuples such as ir_datasets' ``qrels_iter()`` /
  ``scoreddocs_iter()`` and ir_measures' ``Qrel`` / ``ScoredDoc``, dicts with those keys, or
  plain ``(query_id, doc_id, value)`` triples; a qrels record's ``iteration`` (or
  ``subtopic``) field or key is its subtopic, as ir_measures hands it to ndeval.

No frame library is imported unless the object is one of its frames.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from rankscope.errors import EmptyInputError, InputError
from rankscope.io._formats import Kind, check_mapping, find_subtopic, resolve_columns
from rankscope.io._read import read_qrels, read_run
from rankscope.io.tables import (
    DOC_ID,
    QUERY_ID,
    RELEVANCE,
    SCORE,
    SUBTOPIC,
    Qrels,
    Run,
    id_value,
    number_value,
)

__all__ = ["as_qrels", "as_run", "frame_of", "select_columns"]

_POSITIONAL_FIELDS = 3


def frame_of(data: Any) -> pl.DataFrame | None:
    """``data`` as a polars DataFrame if it is a frame or an Arrow stream; None otherwise."""
    if isinstance(data, pl.DataFrame):
        return data
    if isinstance(data, pl.LazyFrame):
        return data.collect()
    package = type(data).__module__.split(".")[0]
    frame: Any = None
    if package == "pandas" and hasattr(data, "columns"):
        frame = pl.from_pandas(data, include_index=False)
    elif package == "datasets" and hasattr(data, "with_format"):
        # The Arrow view honours the dataset's selection and order (its indices mapping).
        frame = pl.from_arrow(data.with_format("arrow")[:])
    elif package == "pyarrow" and hasattr(data, "schema"):
        frame = pl.from_arrow(data)
    elif hasattr(data, "__arrow_c_stream__"):
        frame = pl.DataFrame(data)
    return frame if isinstance(frame, pl.DataFrame) else None


def select_columns(
    frame: pl.DataFrame, kind: Kind, column_mapping: Mapping[str, str], source: str
) -> pl.DataFrame:
    """Our three columns of ``frame``, found by name or named in ``column_mapping`` (and the
    subtopic of diversity qrels, when there is one)."""
    columns = resolve_columns(kind, frame.columns, column_mapping, what="column", source=source)
    if kind == "qrels":
        subtopic = find_subtopic(frame.columns, column_mapping, what="column", source=source)
        if subtopic is not None:
            columns[SUBTOPIC] = subtopic
    return frame.select([pl.col(theirs).alias(ours) for ours, theirs in columns.items()])


def _records_frame(
    records: Iterable[Any], kind: Kind, column_mapping: Mapping[str, str], source: str
) -> pl.DataFrame:
    """Our three columns from named tuples, dicts or ``(query_id, doc_id, value)`` triples."""
    value = RELEVANCE if kind == "qrels" else SCORE
    rule = "relevance must be an integer grade" if kind == "qrels" else "score must be a number"
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        raise EmptyInputError(f"the {kind} iterable holds no records", source=source)
    subtopic: str | None = None
    if hasattr(first, "_fields"):  # a named tuple
        names = resolve_columns(kind, first._fields, column_mapping, what="field", source=source)
        positions = [first._fields.index(names[column]) for column in (QUERY_ID, DOC_ID, value)]
        if kind == "qrels":
            subtopic = find_subtopic(first._fields, column_mapping, what="field", source=source)
            if subtopic is not None:
                positions.append(first._fields.index(subtopic))
    elif isinstance(first, Mapping):
        names = resolve_columns(kind, list(first), column_mapping, what="key", source=source)
        positions = []
        if kind == "qrels":
            subtopic = find_subtopic(list(first), column_mapping, what="key", source=source)
    elif isinstance(first, tuple | list) and len(first) == _POSITIONAL_FIELDS:
        positions = [0, 1, 2]
    else:
        raise InputError(
            f"{kind} records must be named tuples (ir_datasets, ir_measures), dicts or "
            f"(query_id, doc_id, {value}) triples; found {type(first).__name__} {first!r}",
            source=source,
        )
    query_ids: list[str] = []
    doc_ids: list[str] = []
    values: list[int | float] = []
    subtopics: list[Any] = []
    for number, record in enumerate(itertools.chain([first], iterator), 1):
        try:
            if positions:
                query, doc, raw = (record[i] for i in positions[:3])
                if subtopic is not None:
                    subtopics.append(record[positions[3]])
            else:
                query, doc, raw = (record[names[c]] for c in (QUERY_ID, DOC_ID, value))
                if subtopic is not None:
                    subtopics.append(record[subtopic])
        except (KeyError, IndexError, TypeError):
            raise InputError(
                f"record {number} is not shaped like the first ({first!r}); found {record!r}",
                source=source,
            ) from None
        query_ids.append(id_value(query, "query", source))
        doc_ids.append(id_value(doc, "document", source, query))
        values.append(number_value(raw, rule, query, doc, source))
    floats = any(isinstance(v, float) for v in values) or kind == "run"
    frame = pl.DataFrame(
        {QUERY_ID: query_ids, DOC_ID: doc_ids, value: values},
        schema={QUERY_ID: pl.String, DOC_ID: pl.String, value: pl.Float64 if floats else pl.Int64},
    )
    if subtopic is not None:
        ids = [
            id_value(s, "subtopic", source, q) for s, q in zip(subtopics, query_ids, strict=True)
        ]
        frame = frame.with_columns(pl.Series(SUBTOPIC, ids, pl.String))
    return frame


def _is_path(data: Any) -> bool:
    return isinstance(data, str | os.PathLike)


def as_qrels(data: Any, *, lenient: bool = False, **column_mapping: str) -> Qrels:
    """Judgements from anything the module docstring lists.

    Examples
    --------
    >>> from collections import namedtuple
    >>> Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
    >>> as_qrels([Qrel("q1", "d1", 2, "0"), Qrel("q1", "d2", 0, "0")]).frame.rows()
    [('q1', 'd1', 2), ('q1', 'd2', 0)]
    >>> as_qrels(pl.DataFrame({"query-id": ["q1"], "corpus-id": [7], "score": [1]})).frame.rows()
    [('q1', '7', 1)]
    """
    check_mapping("qrels", column_mapping, "as_qrels")
    if isinstance(data, Qrels):
        return data
    if _is_path(data):
        return read_qrels(data, lenient=lenient, **column_mapping)
    if isinstance(data, Mapping):
        return Qrels.from_dict(data)
    frame = frame_of(data)
    if frame is not None:
        source = f"<{type(data).__name__}>"
        return Qrels.from_frame(select_columns(frame, "qrels", column_mapping, source), source)
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        source = f"<{type(data).__name__} of records>"
        return Qrels.from_frame(_records_frame(data, "qrels", column_mapping, source), source)
    raise InputError(
        "qrels must be a Qrels, a dict {query_id: {doc_id: grade}}, a file path, a DataFrame "
        "(polars, pandas, pyarrow, datasets) or an iterable of records such as ir_datasets' "
        f"qrels_iter(); got {type(data).__name__}"
    )


def as_run(
    data: Any, *, name: str | None = None, lenient: bool = False, **column_mapping: str
) -> Run:
    """A run from anything the module docstring lists; ``name`` names it (by default the TREC
    tag or the file name; ``"run"`` in memory).

    Examples
    --------
    >>> as_run({"q1": ["d2", "d1"]}).frame.rows()
    [('q1', 'd2', 2.0), ('q1', 'd1', 1.0)]
    >>> as_run([("q1", "d1", 0.5)], name="bm25")
    Run('bm25', 1 results, 1 queries, source='<list of records>')
    """
    check_mapping("run", column_mapping, "as_run")
    if isinstance(data, Run):
        if name is None or name == data.name:
            return data
        return Run(data.frame, name, data.source, empty_queries=data.empty_queries)
    if _is_path(data):
        return read_run(data, lenient=lenient, name=name, **column_mapping)
    run_name = name or "run"
    if isinstance(data, Mapping):
        lists = all(not isinstance(v, Mapping) for v in data.values())
        if lists and data:
            return Run.from_lists(data, name=run_name)
        return Run.from_dict(data, name=run_name)
    frame = frame_of(data)
    if frame is not None:
        source = f"<{type(data).__name__}>"
        return Run.from_frame(
            select_columns(frame, "run", column_mapping, source), run_name, source
        )
    if isinstance(data, Iterable) and not isinstance(data, bytes):
        source = f"<{type(data).__name__} of records>"
        records = _records_frame(data, "run", column_mapping, source)
        return Run.from_frame(records, run_name, source)
    raise InputError(
        "run must be a Run, a dict {query_id: {doc_id: score}} or {query_id: [doc_id]}, a file "
        "path, a DataFrame (polars, pandas, pyarrow, datasets) or an iterable of records such as "
        f"ir_datasets' scoreddocs_iter(); got {type(data).__name__}"
    )
