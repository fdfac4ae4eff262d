"""Parquet: columns found by name as for CSV, typed values checked; problems name the row."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import polars as pl

from rankscope.errors import EmptyInputError, ParseError
from rankscope.io._files import Input
from rankscope.io._formats import Kind, resolve_columns
from rankscope.io._lines import PROBLEM, Problem, Skipped, grade_values, score_values, settle
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE

__all__ = ["parse_parquet"]

_ROW = "__row__"
_MISSING, _BAD_VALUE, _BAD_ID = 1, 2, 3


def _id_text(values: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    if dtype.is_float():
        return pl.lit(None, pl.String)  # float ids are refused, as Qrels/Run.from_frame do
    return values.cast(pl.String)


def _values(values: pl.Expr, dtype: pl.DataType, kind: Kind) -> pl.Expr:
    if kind == "run":
        return score_values(values.cast(pl.Float64, strict=False) if dtype.is_numeric() else values)
    if dtype.is_integer():
        return values.cast(pl.Int64)
    if dtype.is_float() or dtype == pl.Boolean:
        return grade_values(values.cast(pl.Float64), from_text=False)
    return grade_values(values.cast(pl.String, strict=False))


def parse_parquet(
    opened: Input,
    kind: Kind,
    column_mapping: Mapping[str, str],
    *,
    lenient: bool = False,
) -> tuple[pl.DataFrame, Skipped]:
    """Read a Parquet file into a table of our columns (row order kept)."""
    source = opened.source
    if not opened.head():
        raise EmptyInputError("file is empty; expected a Parquet file", source=source)
    target: Any = opened.path if opened.path is not None else io.BytesIO(opened.read_bytes())
    try:
        frame = pl.read_parquet(target, glob=False)
    except (pl.exceptions.PolarsError, OSError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ParseError(f"cannot read the file as Parquet: {first}", source=source) from error
    columns = resolve_columns(kind, frame.columns, column_mapping, what="column", source=source)
    value = RELEVANCE if kind == "qrels" else SCORE
    schema = frame.schema
    query = _id_text(pl.col(columns[QUERY_ID]), schema[columns[QUERY_ID]])
    doc = _id_text(pl.col(columns[DOC_ID]), schema[columns[DOC_ID]])
    checked = _values(pl.col(columns[value]), schema[columns[value]], kind)
    missing = pl.any_horizontal(pl.col(list(columns.values())).is_null())
    frame = frame.with_row_index(_ROW).select(
        _ROW,
        query.alias(QUERY_ID),
        doc.alias(DOC_ID),
        checked.alias(value),
        *[pl.col(theirs).alias(f"__raw_{ours}__") for ours, theirs in columns.items()],
        pl.when(missing)
        .then(pl.lit(_MISSING, pl.UInt8))
        .when(query.is_null() | doc.is_null())
        .then(pl.lit(_BAD_ID, pl.UInt8))
        .when(checked.is_null())
        .then(pl.lit(_BAD_VALUE, pl.UInt8))
        .alias(PROBLEM),
    )

    raw_value = f"__raw_{value}__"

    def describe(row: dict[str, Any]) -> Problem:
        if row[PROBLEM] == _MISSING:
            empty = next(t for ours, t in columns.items() if row[f"__raw_{ours}__"] is None)
            message = f"column {empty!r} holds a null; expected a value"
        elif row[PROBLEM] == _BAD_ID:
            name = columns[QUERY_ID] if row[QUERY_ID] is None else columns[DOC_ID]
            message = f"column {name!r} must hold strings or integers; found floats"
        elif kind == "qrels":
            message = f"relevance must be an integer grade; found {row[raw_value]!r}"
        else:
            message = f"score must be a finite number; found {row[raw_value]!r}"
        return Problem(message, row=row[_ROW] + 1)

    frame, skipped = settle(frame, describe, lenient=lenient, source=source)
    frame = frame.select(QUERY_ID, DOC_ID, value)
    if frame.height == 0:
        if skipped.count:
            raise EmptyInputError(
                f"no valid data: all {skipped.count} rows were malformed and skipped; first at "
                f"row {skipped.first_line}: {skipped.first_message}",
                source=source,
            )
        raise EmptyInputError("the Parquet file holds no rows", source=source)
    return frame, skipped
