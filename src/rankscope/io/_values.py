"""`read_values`: the measure values another tool printed, per query and overall.

=============  ===============================================================================
format         what it holds
=============  ===============================================================================
trec_eval      trec_eval's text: lines ``measure query value`` (``all`` for the summary), with
               or without ``-q``; ``runid`` and ``relstring`` lines are skipped
json           ``{query_id: {measure: value}}`` (pytrec_eval's ``evaluate``, ranx's per-query
               scores as written by ``json.dump``), ``{measure: value}`` (means only, as ranx's
               ``evaluate`` returns them), or what ``rankscope evaluate -f json -q`` writes
csv            a header row: a query column (``query_id``, ``qid``, ``query``, ``topic``) and
               one column per measure, or the long form ``query_id,measure,value``; the row of
               query ``all`` holds the means (rankscope's ``-f csv`` output, with its ``run``
               column, reads as such)
=============  ===============================================================================

Every value keeps the text it was printed as: another tool's number is matched to the precision
it was printed to (trec_eval's four decimals), see `MeasureValues.decimals`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rankscope.errors import EmptyInputError, InputError, ParseError
from rankscope.io._files import open_input

__all__ = ["VALUE_FORMATS", "MeasureValues", "Printed", "read_values", "same_printed", "tolerance"]

VALUE_FORMATS = ("trec_eval", "json", "csv")
"""The formats `read_values` reads (see the module's docstring)."""

SUMMARY = "all"
"""The query id of the line or row holding the means (trec_eval's)."""

FULL_PRECISION_TOLERANCE = 1e-9
"""The tolerance of a value printed to (nearly) full precision: a sum taken in another order
moves the last digits, never this much on measures in [0, 1]."""

_QUERY_COLUMNS = ("query_id", "qid", "query", "topic", "query-id")
_SKIPPED_LINES = ("runid", "relstring")


@dataclass(frozen=True)
class Printed:
    """One value as another tool printed it.

    Attributes
    ----------
    value
        The number (NaN for ``nan`` and ``-nan``).
    text
        The text it was read from (``"0.6309"``; for JSON, Python's shortest repr).
    line
        Its line in the file, if it has one.
    """

    value: float
    text: str
    line: int | None = None

    @property
    def decimals(self) -> int:
        """How many decimals the text has (``0.6309``: 4; ``1e-05``: 5; ``nan``: 0).

        Examples
        --------
        >>> Printed(0.6309, "0.6309").decimals, Printed(1e-05, "1e-05").decimals
        (4, 5)
        """
        text = self.text.strip().lower()
        mantissa, _, exponent = text.partition("e")
        decimals = len(mantissa.partition(".")[2])
        if exponent:
            try:
                decimals -= int(exponent)
            except ValueError:
                decimals = 17
        return max(decimals, 0)


def tolerance(decimals: int) -> float:
    """Half a unit in the last of ``decimals`` printed (4: 0.00005), or
    `FULL_PRECISION_TOLERANCE` when that is smaller.

    Examples
    --------
    >>> tolerance(4), tolerance(16)
    (5e-05, 1e-09)
    """
    return max(0.5 * 10.0**-decimals, FULL_PRECISION_TOLERANCE)


def same_printed(printed: float, value: float, decimals: int) -> bool:
    """Whether ``value`` printed to ``decimals`` reads as ``printed`` (NaN matches NaN)."""
    if math.isnan(printed) or math.isnan(value):
        return math.isnan(printed) and math.isnan(value)
    return abs(printed - value) <= tolerance(decimals) * (1 + 1e-9)


@dataclass(frozen=True)
class MeasureValues:
    """The values one file holds: per measure (named as the file names it), per query, and
    the means its summary gives.

    Attributes
    ----------
    source
        The file read.
    format
        The format it was read as (`VALUE_FORMATS`).
    per_query
        Measure name as written -> query id -> value.
    means
        Measure name as written -> the value of the summary (``all``), where the file has one.
    """

    source: str
    format: str
    per_query: Mapping[str, Mapping[str, Printed]] = field(default_factory=dict)
    means: Mapping[str, Printed] = field(default_factory=dict)

    @property
    def measure_names(self) -> list[str]:
        """Every measure the file holds, in the order first met."""
        names = dict.fromkeys([*self.per_query, *self.means])
        return list(names)

    def decimals(self, measure: str) -> int:
        """The precision the file prints ``measure`` to: the most decimals of any of its
        values (trec_eval's text: 4; JSON's shortest repr of a double: about 16)."""
        values = [*self.per_query.get(measure, {}).values()]
        if measure in self.means:
            values.append(self.means[measure])
        return max((printed.decimals for printed in values), default=0)


def _number(text: str, source: str, line: int | None, whole: str) -> float:
    cleaned = text.strip()
    if cleaned.lower() in ("nan", "-nan", "null", "none"):
        return math.nan
    try:
        return float(cleaned)
    except ValueError:
        raise ParseError(
            f"expected a number as the value; found {text!r}", source=source, line=line, text=whole
        ) from None


class _Collector:
    """Values as they are read, refusing a value given twice for one measure and query."""

    def __init__(self, source: str, format: str) -> None:
        self.source = source
        self.format = format
        self.per_query: dict[str, dict[str, Printed]] = {}
        self.means: dict[str, Printed] = {}

    def add(self, measure: str, query: str, printed: Printed, whole: str | None) -> None:
        target = self.means if query == SUMMARY else self.per_query.setdefault(measure, {})
        key = measure if query == SUMMARY else query
        if key in target:
            raise ParseError(
                f"a second value of {measure} for query {query!r}",
                source=self.source,
                line=printed.line,
                text=whole,
            )
        target[key] = printed

    def done(self) -> MeasureValues:
        if not self.per_query and not self.means:
            raise EmptyInputError(
                f"no measure values found (read as {self.format})", source=self.source
            )
        return MeasureValues(self.source, self.format, self.per_query, self.means)


def _trec_eval(text: str, source: str) -> MeasureValues:
    collected = _Collector(source, "trec_eval")
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if fields[0] in _SKIPPED_LINES or fields[0].startswith(_SKIPPED_LINES):
            continue
        if len(fields) != 3:
            raise ParseError(
                f"expected trec_eval's 3 fields (measure, query, value); found {len(fields)}",
                source=source,
                line=number,
                text=line,
            )
        measure, query, value = fields
        printed = Printed(_number(value, source, number, line), value, number)
        collected.add(measure, query, printed, line)
    return collected.done()


def _json_number(value: Any, where: str, source: str) -> Printed:
    if value is None:
        return Printed(math.nan, "null")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParseError(f"expected a number at {where}; found {value!r}", source=source)
    return Printed(float(value), repr(value))


def _json(text: str, source: str) -> MeasureValues:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(
            f"not valid JSON: {error.msg}",
            source=source,
            line=error.lineno,
            text=text.splitlines()[error.lineno - 1] if text.splitlines() else "",
        ) from None
    collected = _Collector(source, "json")
    if isinstance(document, dict) and isinstance(document.get("runs"), list):
        runs = document["runs"]
        if len(runs) != 1:
            raise InputError(
                f"expected the values of one run; this file holds {len(runs)} "
                "(write one run per file)",
                source=source,
            )
        document = {**runs[0].get("per_query", {}), SUMMARY: runs[0].get("mean", {})}
    if not isinstance(document, dict):
        raise ParseError(
            "expected an object {query_id: {measure: value}} or {measure: value}; found "
            f"{type(document).__name__}",
            source=source,
        )
    for key, inner in document.items():
        if isinstance(inner, dict):
            for measure, value in inner.items():
                where = f"[{key!r}][{measure!r}]"
                collected.add(str(measure), str(key), _json_number(value, where, source), None)
        else:  # {measure: value}: means only
            collected.add(str(key), SUMMARY, _json_number(inner, f"[{key!r}]", source), None)
    return collected.done()


def _csv_rows(text: str) -> Iterator[tuple[int, list[str], str]]:
    lines = text.splitlines()
    dialect = csv.excel_tab if lines and "\t" in lines[0] and "," not in lines[0] else csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    for fields in reader:
        number = reader.line_num
        if fields and any(cell.strip() for cell in fields):
            yield number, fields, lines[number - 1] if number <= len(lines) else ""


def _csv(text: str, source: str) -> MeasureValues:
    rows = _csv_rows(text)
    header_row = next(rows, None)
    if header_row is None:
        raise EmptyInputError("no measure values found (read as csv)", source=source)
    _, header, _ = header_row
    names = [cell.strip() for cell in header]
    lowered = [name.lower() for name in names]
    query_column = next((lowered.index(name) for name in _QUERY_COLUMNS if name in lowered), None)
    if query_column is None:
        raise ParseError(
            f"expected a query column ({', '.join(_QUERY_COLUMNS)}) in the header; found "
            f"{', '.join(names)}",
            source=source,
            line=1,
            text=",".join(header),
        )
    long_form = "measure" in lowered and "value" in lowered
    run_column = lowered.index("run") if "run" in lowered else None
    collected = _Collector(source, "csv")
    runs: set[str] = set()
    for number, fields, whole in rows:
        if len(fields) != len(names):
            raise ParseError(
                f"expected {len(names)} fields, as the header has; found {len(fields)}",
                source=source,
                line=number,
                text=whole,
            )
        if run_column is not None:
            runs.add(fields[run_column])
            if len(runs) > 1:
                raise InputError(
                    "expected the values of one run; this file holds several "
                    f"({', '.join(sorted(runs))})",
                    source=source,
                    line=number,
                    text=whole,
                )
        query = fields[query_column].strip()
        if long_form:
            measure = fields[lowered.index("measure")].strip()
            value = fields[lowered.index("value")]
            printed = Printed(_number(value, source, number, whole), value.strip(), number)
            collected.add(measure, query, printed, whole)
            continue
        for column, (name, value) in enumerate(zip(names, fields, strict=True)):
            if column in (query_column, run_column) or not value.strip():
                continue
            printed = Printed(_number(value, source, number, whole), value.strip(), number)
            collected.add(name, query, printed, whole)
    return collected.done()


_READERS = {"trec_eval": _trec_eval, "json": _json, "csv": _csv}


def _detect(text: str, extension: str) -> str:
    if extension == ".json":
        return "json"
    if extension in (".csv", ".tsv"):
        return "csv"
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "json"
    first = stripped.splitlines()[0] if stripped else ""
    if "," in first or len(first.split()) != 3:
        return "csv"
    return "trec_eval"


def read_values(path: str | os.PathLike[str], format: str | None = None) -> MeasureValues:
    """The per-query values and means in a file another tool wrote (see the module's
    docstring); ``format`` one of `VALUE_FORMATS`, detected from the extension and the content
    when None.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "eval.txt"
    >>> _ = path.write_text("ndcg_cut_10   \\tq1\\t0.6309\\nndcg_cut_10   \\tall\\t0.6309\\n")
    >>> values = read_values(path)
    >>> values.format, values.per_query["ndcg_cut_10"]["q1"].value, values.means["ndcg_cut_10"].text
    ('trec_eval', 0.6309, '0.6309')
    """
    if format is not None and format not in VALUE_FORMATS:
        raise InputError(
            f"unknown format {format!r} of measure values; expected one of "
            f"{', '.join(VALUE_FORMATS)}"
        )
    opened = open_input(path)
    try:
        text = opened.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ParseError(f"not UTF-8 text ({error.reason})", source=opened.source) from None
    chosen = format or _detect(text, opened.extension)
    return _READERS[chosen](text, opened.source)
