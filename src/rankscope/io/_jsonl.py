"""JSON Lines: one JSON object per line, in one of three shapes (taken from the first object).

=====================  =====================================================  =================
shape                  qrels                                                  run
=====================  =====================================================  =================
row per judgement      ``{"query_id", "doc_id", "relevance"}``                ``{"query_id",
                                                                              "doc_id",
                                                                              "score"}``
list per query         ``{"query_id", "relevant_doc_ids": [...]}`` (grade 1)  ``{"query_id",
                                                                              "doc_ids": [...]}``
                                                                              in rank order
results per query      —                                                      ``{"query_id",
                                                                              "results": [{"doc_id",
                                                                              "score"}]}``
=====================  =====================================================  =================

Row keys may have any of the names accepted for CSV columns (``qid``, ``docno``, ...) or be named
with a column mapping; ids may be strings or numbers. A ranked list gets scores from positions,
``n - i`` for the i-th of n documents, as `Run.from_lists` does. Other keys are ignored, blank lines
skipped.

A run's list may have another key (``list_key=``, or the first of :data:`RUN_LIST_KEYS` the first
object holds: RAG pipelines write ``retrieved``, DPR writes ``ctxs``). Its items are document ids,
or objects whose id is under one of :data:`ITEM_ID_KEYS` (``{"id", "title", "text", ...}``); the
list order is the ranking (scores in such objects are not read; ``results`` objects are the
shape with scores). The query id of a list may also be under ``id``, ``question_id`` or ``_id``.

Lines are decoded by polars (``str.json_decode`` with a fixed schema) and checked with vectorized
expressions; a line polars refuses, and the first line with a problem, are looked at with Python's
``json`` module, to word the message.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from rankscope.errors import InputError, ParseError
from rankscope.io._files import Input
from rankscope.io._formats import Kind, column_names, resolve_columns
from rankscope.io._lines import (
    LINE,
    LINE_INDEX,
    PROBLEM,
    Problem,
    Skipped,
    empty_error,
    grade_values,
    read_lines,
    settle,
)
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE

__all__ = ["ITEM_ID_KEYS", "RUN_LIST_KEYS", "parse_jsonl"]

Shape = Literal["rows", "ids", "objects", "results"]

RUN_LIST_KEYS = (
    "doc_ids",
    "results",
    "retrieved",
    "retrieved_doc_ids",
    "ctxs",
    "contexts",
    "passages",
    "documents",
    "docs",
    "hits",
    "ranking",
)
"""Keys of a run's list per query, looked for in this order when none is named."""

ITEM_ID_KEYS = ("doc_id", "docid", "docno", "id", "_id", "pid", "corpus_id", "passage_id")
"""Keys of a document's id in the objects of a run's list, in order of preference."""

# A query's id in a line holding a list: the usual names, then those of RAG and QA files.
_LIST_QUERY_KEYS = ("id", "question_id", "_id")


@dataclass(frozen=True)
class _Layout:
    """How the lines hold the data: the shape, the key of the list, the key of an item's id."""

    shape: Shape
    list_key: str = ""
    id_key: str = ""


_RECORD = "__record__"
_LIST = "__list__"


def _type_name(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)  # bool is an int, and polars reads true as 1.0


def _check_id(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is None:
        return f"key {key!r} is missing or null"
    if isinstance(value, dict | list):
        return f"{key!r} must be a string or a number; found {_type_name(value)}"
    return None


def _is_finite(value: Any) -> bool:
    """A number a float holds: not NaN or infinite, and not an integer beyond a float's range
    (JSON's ``1e400`` reads as inf, its 401-digit integer as an int ``math.isfinite`` refuses)."""
    try:
        return _is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


def _shown(value: Any) -> str:
    """A value as a message shows it, a very long one cut."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _check_score(value: Any, key: str) -> str | None:
    if value is None:
        return f"key {key!r} is missing or null"
    if not _is_finite(value):
        return f"score must be a finite number; found {_shown(value)}"
    return None


def _check_grade(value: Any, key: str) -> str | None:
    if value is None:
        return f"key {key!r} is missing or null"
    if not _is_finite(value) or value != round(value):
        return f"relevance must be an integer grade; found {_shown(value)}"
    return None


def _check_list(record: Mapping[str, Any], key: str, what: str) -> str | None:
    values = record.get(key)
    if values is None:
        return f"key {key!r} is missing or null"
    if isinstance(values, dict):
        return f"{key!r} must be an array of {what}; found an object"
    if not isinstance(values, list):
        return None  # polars reads a lone value as a list of one
    for value in values:
        if value is None or isinstance(value, dict | list):
            return f"{key!r} must be an array of {what}; found {_type_name(value)} in it"
    return None


def _check_items(record: Mapping[str, Any], layout: _Layout) -> str | None:
    key = layout.list_key
    items = record.get(key)
    if items is None:
        return f"key {key!r} is missing or null"
    if not isinstance(items, list):
        return f"{key!r} must be an array of objects; found {_type_name(items)}"
    for item in items:
        if not isinstance(item, dict):
            return f"{key!r} must be an array of objects; found {_type_name(item)} in it"
        problem = _check_id(item, layout.id_key)
        if problem is not None:
            return f"in {key!r}: {problem}"
    return None


def _check_record(text: str, layout: _Layout, keys: Mapping[str, str]) -> str | None:
    """What is wrong with one line, in words; None when nothing is."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        return f"not valid JSON: {error.msg} (column {error.colno})"
    if not isinstance(record, dict):
        return f"expected a JSON object; found {_type_name(record)}"
    problem = _check_id(record, keys[QUERY_ID])
    if problem is not None:
        return problem
    shape = layout.shape
    if shape == "rows":
        problem = _check_id(record, keys[DOC_ID])
        if problem is None and RELEVANCE in keys:
            problem = _check_grade(record.get(keys[RELEVANCE]), keys[RELEVANCE])
        if problem is None and SCORE in keys:
            problem = _check_score(record.get(keys[SCORE]), keys[SCORE])
        return problem
    if shape == "ids":
        return _check_list(record, layout.list_key, "document ids")
    if shape == "objects":
        return _check_items(record, layout)
    results = record.get("results")
    if results is None:
        return "key 'results' is missing or null"
    if not isinstance(results, list):
        return f"'results' must be an array of objects; found {_type_name(results)}"
    for result in results:
        if not isinstance(result, dict):
            return f"'results' must be an array of objects; found {_type_name(result)} in it"
        problem = _check_id(result, "doc_id") or _check_score(result.get("score"), "score")
        if problem is not None:
            return f"in 'results': {problem}"
    return None


def _layout(kind: Kind, record: Mapping[str, Any], list_key: str | None, source: str) -> _Layout:
    if kind == "qrels":
        return (
            _Layout("ids", "relevant_doc_ids") if "relevant_doc_ids" in record else _Layout("rows")
        )
    if list_key is not None and list_key not in record:
        found = ", ".join(repr(key) for key in record)
        raise InputError(
            f"no key {list_key!r} (given as the run's list key) in the first object; found {found}",
            source=source,
        )
    key = list_key or next((k for k in RUN_LIST_KEYS if isinstance(record.get(k), list)), None)
    if key is None:
        return _Layout("rows")
    first_item = next(iter(record.get(key) or []), None)
    if key == "results" and (first_item is None or isinstance(first_item, dict)):
        return _Layout("results", "results")
    if not isinstance(first_item, dict):
        return _Layout("ids", key)
    id_key = next((name for name in ITEM_ID_KEYS if name in first_item), None)
    if id_key is None:
        raise InputError(
            f"the objects in {key!r} need a document id under one of "
            f"{', '.join(repr(name) for name in ITEM_ID_KEYS)}; found "
            f"{', '.join(repr(name) for name in first_item)}",
            source=source,
        )
    return _Layout("objects", key, id_key)


def _keys(
    kind: Kind, layout: _Layout, record: Mapping[str, Any], mapping: Mapping[str, str], source: str
) -> dict[str, str]:
    found = list(record)
    if layout.shape == "rows":
        return resolve_columns(kind, found, mapping, what="key", source=source)
    if QUERY_ID in mapping:
        return {QUERY_ID: mapping[QUERY_ID]}
    query_keys = (*column_names(kind)[QUERY_ID], *_LIST_QUERY_KEYS)
    for name in query_keys:
        if name in record:
            return {QUERY_ID: name}
    accepted = " or ".join(repr(name) for name in query_keys)
    raise InputError(
        f"no key for query_id: expected one named {accepted} (or name it with query_id=...); "
        f"found {', '.join(repr(key) for key in found)}",
        source=source,
    )


def _dtype(kind: Kind, layout: _Layout, keys: Mapping[str, str]) -> pl.Struct:
    query = keys[QUERY_ID]
    if layout.shape == "rows":
        value = keys[RELEVANCE] if kind == "qrels" else keys[SCORE]
        return pl.Struct({query: pl.String, keys[DOC_ID]: pl.String, value: pl.Float64})
    if layout.shape == "results":
        result = pl.Struct({"doc_id": pl.String, "score": pl.Float64})
        return pl.Struct({query: pl.String, "results": pl.List(result)})
    if layout.shape == "objects":
        item = pl.Struct({layout.id_key: pl.String})
        return pl.Struct({query: pl.String, layout.list_key: pl.List(item)})
    return pl.Struct({query: pl.String, layout.list_key: pl.List(pl.String)})


def _first_record(
    body: pl.DataFrame, source: str, lenient: bool
) -> tuple[dict[str, Any], int, Skipped]:
    """The first line that is a JSON object, and its index (lenient: after any bad lines, which
    are counted)."""
    skipped = Skipped()
    for index, text in body.select(LINE_INDEX, LINE).iter_rows():
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            message = f"not valid JSON: {error.msg} (column {error.colno})"
        else:
            if isinstance(record, dict):
                return record, index, skipped
            message = f"expected a JSON object; found {_type_name(record)}"
        if not lenient:
            raise ParseError(message, source=source, line=index + 1, text=text)
        skipped = skipped + Skipped(1, index + 1, message)
    return {}, 0, skipped


def _checked(kind: Kind, layout: _Layout, keys: Mapping[str, str], decoded: pl.DataFrame) -> Any:
    """Per line: our columns (lists still unexploded) and a problem flag (1 = look at it)."""
    query = pl.col(_RECORD).struct.field(keys[QUERY_ID]).alias(QUERY_ID)
    shape = layout.shape
    if shape == "rows":
        doc = pl.col(_RECORD).struct.field(keys[DOC_ID]).alias(DOC_ID)
        if kind == "qrels":
            raw = pl.col(_RECORD).struct.field(keys[RELEVANCE])
            value = grade_values(raw, from_text=False).alias(RELEVANCE)
        else:
            raw = pl.col(_RECORD).struct.field(keys[SCORE])
            value = pl.when(raw.is_finite()).then(raw).alias(SCORE)
        frame = decoded.with_columns(query, doc, value)
        bad = pl.any_horizontal(pl.col(QUERY_ID, DOC_ID, value.meta.output_name()).is_null())
    elif shape == "results":
        results = pl.col(_RECORD).struct.field("results").alias(_LIST)
        frame = decoded.with_columns(query, results)
        element = pl.element().struct
        bad_element = element.field("doc_id").is_null() | ~element.field("score").is_finite()
        bad = (
            pl.col(QUERY_ID).is_null()
            | pl.col(_LIST).is_null()
            | pl.col(_LIST).list.eval(bad_element.fill_null(True)).list.any()
        )
    else:
        items = pl.col(_RECORD).struct.field(layout.list_key)
        if shape == "objects":  # keep only the ids: from here on, a list of ids
            items = items.list.eval(pl.element().struct.field(layout.id_key))
        frame = decoded.with_columns(query, items.alias(_LIST))
        bad = (
            pl.col(QUERY_ID).is_null()
            | pl.col(_LIST).is_null()
            | pl.col(_LIST).list.eval(pl.element().is_null()).list.any()
        )
    return frame.with_columns(pl.when(bad).then(pl.lit(1, pl.UInt8)).alias(PROBLEM))


def _flattened(kind: Kind, shape: Shape, frame: pl.DataFrame) -> pl.DataFrame:
    """One row per judgement or result: lists exploded, scores made from positions."""
    if shape == "rows":
        return frame
    frame = frame.filter(pl.col(_LIST).list.len() > 0)
    if shape == "results":
        return frame.explode(_LIST).with_columns(
            pl.col(_LIST).struct.field("doc_id").alias(DOC_ID),
            pl.col(_LIST).struct.field("score").alias(SCORE),
        )
    if kind == "qrels":
        exploded = frame.explode(_LIST).with_columns(pl.lit(1, pl.Int64).alias(RELEVANCE))
        return exploded.rename({_LIST: DOC_ID})
    positions = pl.col(_LIST).list.eval(pl.int_range(pl.len(), 0, -1).cast(pl.Float64))
    exploded = frame.with_columns(positions.alias(SCORE)).explode(_LIST, SCORE)
    return exploded.rename({_LIST: DOC_ID})


def parse_jsonl(
    opened: Input,
    kind: Kind,
    column_mapping: Mapping[str, str],
    *,
    lenient: bool = False,
    list_key: str | None = None,
) -> tuple[pl.DataFrame, Skipped]:
    """Read a JSON Lines file into a table of our columns (file order kept); ``list_key``
    names the key of a run's list per query (by default one of :data:`RUN_LIST_KEYS`)."""
    source = opened.source
    lines, skipped = read_lines(opened, lenient=lenient)
    body = lines.filter(pl.col(LINE).is_not_null() & ~pl.col(LINE).str.contains(r"^\s*$"))
    what = "JSON objects, one per line"
    if body.height == 0:
        raise empty_error(opened, what, skipped, found="only blank lines")
    first, first_index, more = _first_record(body, source, lenient)
    skipped = skipped + more
    if not first:
        raise empty_error(opened, what, skipped)
    body = body.filter(pl.col(LINE_INDEX) >= first_index)
    layout = _layout(kind, first, list_key, source)
    keys = _keys(kind, layout, first, column_mapping, source)
    dtype = _dtype(kind, layout, keys)
    try:
        decoded = body.with_columns(pl.col(LINE).str.json_decode(dtype).alias(_RECORD))
    except pl.exceptions.ComputeError:
        # Some line is not JSON polars can read as the shape: find the lines in Python.
        flags = [_check_record(text, layout, keys) is not None for text in body[LINE]]
        bad = pl.Series(flags, dtype=pl.Boolean)
        first_bad = body.filter(bad).row(0, named=True) if bool(bad.any()) else None
        if first_bad is None:
            raise  # polars refuses something Python accepts: show polars' own message
        message = _check_record(first_bad[LINE], layout, keys) or "cannot be read"
        line = first_bad[LINE_INDEX] + 1
        if not lenient:
            raise ParseError(message, source=source, line=line, text=first_bad[LINE]) from None
        skipped = skipped + Skipped(int(bad.sum()), line, message)
        body = body.filter(~bad)
        decoded = body.with_columns(pl.col(LINE).str.json_decode(dtype).alias(_RECORD))
    frame = _checked(kind, layout, keys, decoded)

    def describe(row: dict[str, Any]) -> Problem:
        text = row[LINE]
        message = _check_record(text, layout, keys) or "cannot be read as the first line's shape"
        return Problem(message, line=row[LINE_INDEX] + 1, text=text)

    frame, more = settle(frame, describe, lenient=lenient, source=source)
    skipped = skipped + more
    frame = _flattened(kind, layout.shape, frame)
    value = RELEVANCE if kind == "qrels" else SCORE
    frame = frame.select(QUERY_ID, DOC_ID, value)
    if frame.height == 0:
        raise empty_error(opened, what, skipped, found="no judgements or results")
    return frame, skipped
