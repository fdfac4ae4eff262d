"""CSV and TSV with a header row; BEIR's qrels (``query-id corpus-id score``) are TSV.

A file whose first line names no known column and is three fields ending with a number has no
header: its columns are query id, document id and grade (qrels) or score (runs), as in BEIR's
qrels written without one. Columns are found by name (see `rankscope.io._formats.column_names`)
or named with a column mapping; other columns are ignored. Every field is read as text (ids stay
exactly as written: "007" is not 7) and the values are cast and checked with vectorized
expressions. Fields may be quoted with ``"``. Blank lines are skipped.

Polars reads the file. When it cannot (a row with more fields than the header, invalid UTF-8),
Python's ``csv`` module reads it instead, to find the rows at fault; line numbers in messages are
physical lines, also when a quoted field spans several.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from rankscope.errors import ParseError
from rankscope.io._files import Input
from rankscope.io._formats import (
    Kind,
    first_content_line,
    headerless_line,
    names_header,
    resolve_columns,
)
from rankscope.io._lines import (
    PROBLEM,
    Problem,
    Skipped,
    empty_error,
    grade_values,
    python_lines,
    score_values,
    settle,
)
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE

__all__ = ["parse_delimited"]

_RECORD = "__record_index__"
_MISSING, _BAD_VALUE = 1, 2


def _records(lines: list[tuple[int, str]], separator: str) -> Iterator[tuple[int, str, list[str]]]:
    """``(first line number, text, fields)`` of each record (a record may span lines)."""
    reader = csv.reader((text + "\n" for _, text in lines), delimiter=separator, strict=False)
    consumed = 0
    for fields in reader:
        start, consumed = consumed, reader.line_num
        text = "\n".join(line for _, line in lines[start:consumed])
        yield lines[start][0], text, fields


def _physical_lines(
    opened: Input, *, headerless: bool, lenient: bool
) -> tuple[list[tuple[int, str]], Skipped]:
    """``(line number, text)`` of each line; without a header, ``#`` comments are left out (as
    polars leaves them out)."""
    frame, skipped = python_lines(opened.read_bytes(), source=opened.source, lenient=lenient)
    lines = [(index + 1, text or "") for index, text in frame.iter_rows()]
    if headerless:
        lines = [(number, text) for number, text in lines if not text.startswith("#")]
    return lines, skipped


def _read_in_python(
    opened: Input, separator: str, names: list[str] | None, *, lenient: bool
) -> tuple[pl.DataFrame, dict[int, tuple[int, str]], Skipped]:
    """The slow path: records with Python's csv module, rows with a wrong field count found.
    ``names``: the columns of a file without a header (None: the first record names them)."""
    lines, skipped = _physical_lines(opened, headerless=names is not None, lenient=lenient)
    records = _records(lines, separator)
    if names is None:
        header = next(records, None)
        if header is None:
            raise empty_error(opened, "a header row and data rows", skipped)
        names = header[2]
    columns: list[list[str | None]] = [[] for _ in names]
    indices: list[int] = []
    spans: dict[int, tuple[int, str]] = {}
    for number, (line, text, fields) in enumerate(records):
        if fields and len(fields) != len(names):
            message = f"expected {len(names)} fields, as in the header; found {len(fields)}"
            if not lenient:
                raise ParseError(message, source=opened.source, line=line, text=text)
            skipped = skipped + Skipped(1, line, message)
            continue
        for column, field in zip(columns, fields or [""] * len(names), strict=True):
            column.append(field or None)
        indices.append(number)
        spans[number] = (line, text)
    data: dict[str, Any] = dict(zip(names, columns, strict=True))
    data[_RECORD] = indices
    schema = {name: pl.String for name in names} | {_RECORD: pl.UInt32}
    return pl.DataFrame(data, schema=schema), spans, skipped


def parse_delimited(
    opened: Input,
    kind: Kind,
    column_mapping: Mapping[str, str],
    *,
    separator: str,
    lenient: bool = False,
) -> tuple[pl.DataFrame, Skipped]:
    """Read a CSV (``separator=","``) or TSV (``"\\t"``) file into a table of our columns."""
    source = opened.source
    what = "a header row and data rows"
    value = RELEVANCE if kind == "qrels" else SCORE
    first = first_content_line(opened.head())
    headerless = not names_header(first, separator, column_mapping.values()) and headerless_line(
        first, separator
    )
    names = [QUERY_ID, DOC_ID, value] if headerless else None
    spans: dict[int, tuple[int, str]] | None = None
    skipped = Skipped()
    try:
        frame = pl.read_csv(
            opened.polars_source,
            separator=separator,
            has_header=not headerless,
            new_columns=names,
            comment_prefix="#" if headerless else None,
            infer_schema=False,
            row_index_name=_RECORD,
            glob=False,
        )
    except pl.exceptions.NoDataError:
        raise empty_error(opened, what, Skipped()) from None
    except pl.exceptions.ComputeError:
        frame, spans, skipped = _read_in_python(opened, separator, names, lenient=lenient)
    header = [name for name in frame.columns if name != _RECORD]
    columns = resolve_columns(kind, header, column_mapping, what="column", source=source)
    # A blank line (or a row of empty fields) reads as all nulls: skip it.
    frame = frame.filter(~pl.all_horizontal(pl.col(header).is_null()))
    raw = pl.col(columns[value])
    checked = grade_values(raw) if kind == "qrels" else score_values(raw)
    missing = pl.any_horizontal(pl.col(list(columns.values())).is_null())
    frame = frame.select(
        _RECORD,
        pl.col(columns[QUERY_ID]).alias(QUERY_ID),
        pl.col(columns[DOC_ID]).alias(DOC_ID),
        checked.alias(value),
        raw.alias("__raw__"),
        pl.when(missing)
        .then(pl.lit(_MISSING, pl.UInt8))
        .when(checked.is_null())
        .then(pl.lit(_BAD_VALUE, pl.UInt8))
        .alias(PROBLEM),
    )

    def locate(record: int) -> tuple[int, str]:
        nonlocal spans
        if spans is None:
            lines, _ = _physical_lines(opened, headerless=headerless, lenient=True)
            data_records = enumerate(list(_records(lines, separator))[0 if headerless else 1 :])
            spans = {number: (line, text) for number, (line, text, _) in data_records}
        return spans[record]

    def describe(row: dict[str, Any]) -> Problem:
        if row[PROBLEM] == _MISSING:
            empty = next(
                theirs
                for ours, theirs in columns.items()
                if (row[ours] if ours != value else row["__raw__"]) is None
            )
            message = f"column {empty!r} is empty; expected a value"
        elif kind == "qrels":
            message = f"relevance must be an integer grade; found {row['__raw__']!r}"
        else:
            message = f"score must be a finite number; found {row['__raw__']!r}"
        line, text = locate(row[_RECORD])
        return Problem(message, line=line, text=text)

    frame, more = settle(frame, describe, lenient=lenient, source=source)
    skipped = skipped + more
    frame = frame.select(QUERY_ID, DOC_ID, value)
    if frame.height == 0:
        raise empty_error(opened, what, skipped, found="a header and no data rows")
    return frame, skipped
