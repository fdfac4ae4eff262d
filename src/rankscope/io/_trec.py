"""TREC qrels (``query_id iteration doc_id relevance``) and runs (``query_id Q0 doc_id rank score
run_tag``): reading and writing.

Fields are separated by any run of whitespace (spaces, tabs, ``\\r``, ``\\v``, ``\\f``, as C's
``isspace`` used by trec_eval); lines that are blank or whose first non-blank character is ``#``
are skipped; a run line may carry more fields after the tag (trec_eval ignores them), a qrels line
may not. The iteration, ``Q0`` and rank fields are read past and ignored, as trec_eval does.

Two parsers produce the same table:

* the *fast path*: polars' multi-threaded CSV reader with a single separator (tab or space). It
  applies when the file holds no other whitespace byte than that separator and the newline (checked
  with ``memchr`` over the mapped file) and every row has all its fields; an empty field (two
  separators in a row) shows up as a null and sends the file to the general path. It never reports
  errors itself: anything unexpected sends the file to
* the *general path*: every physical line as one string (polars), fields cut out by one anchored
  regular expression, values cast and checked with vectorized expressions, each row getting a
  problem code. Only the first problem row is looked at in Python, to word the message.

Both work on an `Input` (a path or bytes), so a chunked reader that hands over byte ranges of whole
queries (``read_run_batches``) can reuse them, passing the line number its chunk starts at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any

import polars as pl

from rankscope.errors import InputError
from rankscope.io._files import Input
from rankscope.io._lines import (
    LINE,
    LINE_INDEX,
    PROBLEM,
    WHITESPACE,
    Problem,
    Skipped,
    empty_error,
    grade_values,
    python_lines,
    scan_lines,
    score_values,
    settle,
)
from rankscope.io.tables import (
    DOC_ID,
    QUERY_ID,
    RELEVANCE,
    SCORE,
    SUBTOPIC,
    Qrels,
    Run,
    drop_constant_subtopic,
)

__all__ = [
    "QRELS_FIELDS",
    "RUN_FIELDS",
    "Parsed",
    "last_run_tag",
    "parse_qrels",
    "parse_run",
    "qrels_lines",
    "run_lines",
    "write_lines",
]

RUN_FIELDS = "query_id Q0 doc_id rank score run_tag"
QRELS_FIELDS = "query_id iteration doc_id relevance"

_SPACE = "[ \\t\\r\\x0b\\x0c]"
_FIELD = "[^ \\t\\r\\x0b\\x0c]+"
_SPLIT = re.compile(f"{_SPACE}+")
_BLANK_OR_COMMENT = f"^{_SPACE}*(?:#|$)"
_RUN_PATTERN = (
    f"^{_SPACE}*(?P<{QUERY_ID}>{_FIELD}){_SPACE}+{_FIELD}{_SPACE}+(?P<{DOC_ID}>{_FIELD})"
    f"{_SPACE}+{_FIELD}{_SPACE}+(?P<score_text>{_FIELD}){_SPACE}+{_FIELD}"
)
_QRELS_PATTERN = (
    f"^{_SPACE}*(?P<{QUERY_ID}>{_FIELD}){_SPACE}+(?P<{SUBTOPIC}>{_FIELD}){_SPACE}+"
    f"(?P<{DOC_ID}>{_FIELD})"
    f"{_SPACE}+(?P<grade_text>{_FIELD}){_SPACE}*$"
)

_FIELD_COUNT, _BAD_SCORE, _BAD_GRADE = 1, 2, 3
_BLANK = "__blank__"
_SCAN_BESIDE_BYTES = 16 * 1024**2  # files at least this large are scanned beside polars' read

# Bytes that make a file unfit for the single-separator fast path (besides the other separator).
_NOT_FAST = (b"\r", b"\x0b", b"\x0c", b"\x00")


@dataclass(frozen=True)
class Parsed:
    """A parsed TREC file: the table (our column names), the run tag, the lines skipped."""

    frame: pl.DataFrame
    tag: str | None
    skipped: Skipped
    fast: bool


def _fields(line: str) -> list[str]:
    return _SPLIT.split(line.strip(WHITESPACE))


def _first_line(head: bytes) -> str:
    for raw in head.split(b"\n"):
        line = raw.decode("utf-8", errors="replace").strip(WHITESPACE)
        if line and not line.startswith("#"):
            return line
    return ""


def _checked_scan(
    opened: Input,
    separator: str,
    schema: dict[str, Any],
    keep: list[str],
    *,
    comment: str | None,
    ragged: bool,
) -> pl.LazyFrame:
    """The ``keep`` columns of the file through polars' CSV reader, with two flags per row:
    `PROBLEM` (a field is missing or a float field is not finite) and blank (a blank line).

    Every field is checked as it is parsed, but only the kept columns are materialized (the
    others would cost memory and time for nothing).
    """
    missing = [pl.col(name).is_null() for name in schema]
    not_finite = [
        pl.col(name).is_finite().not_().fill_null(False)
        for name, dtype in schema.items()
        if dtype == pl.Float64
    ]
    blank = pl.all_horizontal(missing)
    problem = (pl.any_horizontal(missing) & ~blank) | pl.any_horizontal(not_finite or [False])
    scan = pl.scan_csv(
        opened.polars_source,
        separator=separator,
        has_header=False,
        quote_char=None,
        schema=schema,
        comment_prefix=comment,
        truncate_ragged_lines=ragged,
        glob=False,
    )
    return scan.select(*keep, problem.alias(PROBLEM), blank.alias(_BLANK))


def _settled(frame: pl.DataFrame) -> pl.DataFrame | None:
    """A table from `_checked_scan` without its flags and blank lines; None if a row has a
    problem."""
    if bool(frame[PROBLEM].any()):
        return None
    if bool(frame[_BLANK].any()):
        frame = frame.filter(~pl.col(_BLANK))
    return frame.drop(PROBLEM, _BLANK)


def _polars_read(scan: pl.LazyFrame) -> pl.DataFrame | None:
    """The table of a `_checked_scan`; None if polars refuses the file (ragged lines, a value
    that does not parse, invalid UTF-8), a row has a problem, or it holds no rows."""
    try:
        frame = _settled(scan.collect())
    except pl.exceptions.PolarsError:
        return None
    return frame if frame is not None and frame.height else None


def _has_comment_rows(frame: pl.DataFrame) -> bool:
    """Whether some row came from a comment line (its first field starts with '#'); a '#'
    elsewhere, as in a document id, is no comment."""
    return bool(frame.select(pl.first().str.starts_with("#").any()).item())


def _separator(line: str) -> str:
    """The fast path's separator: a tab if the first line has one, else a space."""
    return "\t" if "\t" in line else " "


def _fast_read(
    opened: Input, head: bytes, schemas: list[dict[str, Any]], keep: list[str], *, ragged: bool
) -> pl.DataFrame | None:
    """The file through polars' CSV reader with the first of ``schemas`` that reads it, or None
    when the general path must read it.

    The one pass over the bytes that decides whether the fast path applies runs in a thread
    beside the first read when the file is large; a file with comment lines (rare) is read again
    with them skipped.
    """
    separator = _separator(_first_line(head))
    other = b" " if separator == "\t" else b"\t"
    needles = (other, *_NOT_FAST, b"#")

    def read(schema: dict[str, Any], comment: str | None) -> pl.DataFrame | None:
        scan = _checked_scan(opened, separator, schema, keep, comment=comment, ragged=ragged)
        return _polars_read(scan)

    if opened.path is not None and os.stat(opened.path).st_size >= _SCAN_BESIDE_BYTES:
        with ThreadPoolExecutor(1) as scanning:
            scan = scanning.submit(opened.present, needles)
            frame = read(schemas[0], None)
            present = scan.result()
    else:  # small, or in memory already: a thread would cost more than it saves
        present = opened.present(needles)
        frame = read(schemas[0], None)
    if present - {b"#"}:
        return None
    if frame is not None and not (b"#" in present and _has_comment_rows(frame)):
        return frame
    if b"#" in present:  # maybe comment lines: read again, skipping them
        tries, comment = schemas, "#"
    else:
        tries, comment = schemas[1:], None
    for schema in tries:
        frame = read(schema, comment)
        if frame is not None:
            return frame
    return None


def _general(
    opened: Input, pattern: str, checks: list[pl.Expr], *, lenient: bool, first_line: int
) -> tuple[pl.DataFrame, Skipped]:
    """Lines -> regex fields -> checked values, with a problem code per row; see the module doc."""

    def pipeline(lines: pl.LazyFrame) -> pl.LazyFrame:
        return (
            lines.filter(pl.col(LINE).is_not_null() & ~pl.col(LINE).str.contains(_BLANK_OR_COMMENT))
            .with_columns(pl.col(LINE).str.extract_groups(pattern).alias("__fields__"))
            .unnest("__fields__")
            .with_columns(checks)
        )

    skipped = Skipped()
    if opened.contains_any((b"\x00",)):
        lines, skipped = python_lines(
            opened.read_bytes(), source=opened.source, lenient=lenient, first_line=first_line
        )
        frame = pipeline(lines.lazy()).collect()
    else:
        try:
            frame = pipeline(scan_lines(opened)).collect(engine="streaming")
        except pl.exceptions.ComputeError:  # not valid UTF-8
            data = opened.read_bytes()
            lines, skipped = python_lines(
                data, source=opened.source, lenient=lenient, first_line=first_line
            )
            frame = pipeline(lines.lazy()).collect()
    return frame, skipped


def _is_number(text: str, integer: bool = False) -> bool:
    try:
        int(text) if integer else float(text)
    except ValueError:
        return False
    return True


def _swapped_hint(fields: list[str], *, run_expected: bool) -> str:
    """A hint when a line of the wrong field count is a line of the other kind of file: the
    qrels and the run were most likely given in the wrong order."""
    run_line = len(fields) >= 6 and _is_number(fields[3], integer=True) and _is_number(fields[4])
    qrels_line = len(fields) == 4 and _is_number(fields[3], integer=True)
    if not run_expected and run_line:
        return (
            "; this is a run line (query_id Q0 doc_id rank score tag): were the qrels and the "
            "run given in the wrong order? The qrels come first"
        )
    if run_expected and qrels_line:
        return (
            "; this is a qrels line (query_id iteration doc_id relevance): were the qrels and "
            "the run given in the wrong order? The qrels come first"
        )
    return ""


def _describe(
    fields_expected: str, count: int, *, at_least: bool, first_line: int
) -> Callable[[dict[str, Any]], Problem]:
    """How to word the problem of a row of the general path's table."""

    def describe(row: dict[str, Any]) -> Problem:
        text = row[LINE]
        fields = _fields(text)
        line = row[LINE_INDEX] + first_line
        if row[PROBLEM] == _FIELD_COUNT:
            expected = f"at least {count}" if at_least else f"{count}"
            message = (
                f"expected {expected} whitespace-separated fields ({fields_expected}); "
                f"found {len(fields)}"
            ) + _swapped_hint(fields, run_expected=at_least)
        elif row[PROBLEM] == _BAD_SCORE:
            message = f"score must be a finite number; found {fields[4]!r}"
        else:
            message = f"relevance must be an integer grade; found {fields[3]!r}"
        return Problem(message, line=line, text=text)

    return describe


# A run line's fields; the rank is read past, as an integer when it is one (less memory than
# strings, and faster), else as text.
_RUN_SCHEMA = {
    QUERY_ID: pl.String,
    "__q0__": pl.String,
    DOC_ID: pl.String,
    "__rank__": pl.Int64,
    SCORE: pl.Float64,
    "__tag__": pl.String,
}
_RUN_SCHEMAS = [_RUN_SCHEMA, {**_RUN_SCHEMA, "__rank__": pl.String}]


def _fast_path_applies(head: bytes) -> bool:
    """Whether the first line has a run line's six fields (split on the fast path's
    separator): only then is the fast path tried."""
    first = _first_line(head)
    return len(first.split(_separator(first))) >= 6


def last_run_tag(opened: Input) -> str | None:
    """The tag of the last valid run line (six fields or more, a finite score), which names the
    run as trec_eval and the core name it; None when there is none. The file is read from its
    end, 64 KiB first."""
    size = 1 << 16
    while True:
        tail, whole = opened.tail(size)
        lines = tail.split(b"\n")
        for raw in reversed(lines if whole else lines[1:]):  # a partial first line is not one
            fields = _fields(raw.decode("utf-8", errors="replace"))
            if fields[0].startswith("#"):
                continue  # a comment
            if len(fields) >= 6 and _is_score(fields[4]) and b"\0" not in raw:
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                return fields[5]
        if whole:
            return None
        size *= 4


def _is_score(text: str) -> bool:
    return pl.select(score_values(pl.lit(text))).item() is not None


def parse_run(
    opened: Input, *, lenient: bool = False, first_line: int = 1, fast_path: bool = True
) -> Parsed:
    """Read a TREC run file into a table query_id, doc_id, score (file order kept).

    ``first_line`` is the line number of the first line of ``opened`` in the file it came from;
    ``fast_path=False`` forces the general path (both give the same table).
    """
    head = opened.head()
    fast = (
        _fast_read(opened, head, _RUN_SCHEMAS, [QUERY_ID, DOC_ID, SCORE], ragged=True)
        if fast_path and _fast_path_applies(head)
        else None
    )
    # The fast path read every line as a run line: the last one names the run.
    tag = last_run_tag(opened) if fast is not None else None
    if fast is not None and tag is not None:
        return Parsed(fast, tag, Skipped(), True)
    score = score_values(pl.col("score_text"))
    checks = [
        score.alias(SCORE),
        pl.when(pl.col(QUERY_ID).is_null())
        .then(pl.lit(_FIELD_COUNT, pl.UInt8))
        .when(score.is_null())
        .then(pl.lit(_BAD_SCORE, pl.UInt8))
        .alias(PROBLEM),
    ]
    frame, skipped = _general(opened, _RUN_PATTERN, checks, lenient=lenient, first_line=first_line)
    describe = _describe(RUN_FIELDS, 6, at_least=True, first_line=first_line)
    frame, more = settle(frame, describe, lenient=lenient, source=opened.source)
    skipped = skipped + more
    if frame.height == 0:
        raise empty_error(opened, f"TREC run lines ({RUN_FIELDS})", skipped)
    tag = _fields(frame[LINE][-1])[5]  # the last valid line's, as trec_eval names a run
    return Parsed(frame.select(QUERY_ID, DOC_ID, SCORE), tag, skipped, False)


def parse_qrels(
    opened: Input, *, lenient: bool = False, first_line: int = 1, fast_path: bool = True
) -> Parsed:
    """Read a TREC qrels file into a table query_id, doc_id, relevance (file order kept), and
    subtopic (the second field) when it holds more than one value.

    ``first_line`` and ``fast_path`` as for `parse_run`.
    """
    schema = {
        QUERY_ID: pl.String,
        SUBTOPIC: pl.String,
        DOC_ID: pl.String,
        RELEVANCE: pl.Int64,
    }
    keep = [QUERY_ID, DOC_ID, RELEVANCE, SUBTOPIC]
    fast = _fast_read(opened, opened.head(), [schema], keep, ragged=False) if fast_path else None
    if fast is not None:
        return Parsed(drop_constant_subtopic(fast), None, Skipped(), True)
    grade = grade_values(pl.col("grade_text"))
    checks = [
        grade.alias(RELEVANCE),
        pl.when(pl.col(QUERY_ID).is_null())
        .then(pl.lit(_FIELD_COUNT, pl.UInt8))
        .when(grade.is_null())
        .then(pl.lit(_BAD_GRADE, pl.UInt8))
        .alias(PROBLEM),
    ]
    frame, skipped = _general(
        opened, _QRELS_PATTERN, checks, lenient=lenient, first_line=first_line
    )
    describe = _describe(QRELS_FIELDS, 4, at_least=False, first_line=first_line)
    frame, more = settle(frame, describe, lenient=lenient, source=opened.source)
    skipped = skipped + more
    if frame.height == 0:
        raise empty_error(opened, f"TREC qrels lines ({QRELS_FIELDS})", skipped)
    frame = drop_constant_subtopic(frame.select(QUERY_ID, DOC_ID, RELEVANCE, SUBTOPIC))
    return Parsed(frame, None, skipped, False)


def _refuse_unwritable(frame: pl.DataFrame, target: str) -> None:
    """Ids the TREC format cannot hold: with whitespace, or a query id that starts a comment."""
    pattern = "[ \\t\\r\\n\\x0b\\x0c]"
    for column in (QUERY_ID, DOC_ID, SUBTOPIC):
        if column not in frame.columns:
            continue
        bad = frame[column].str.contains(pattern)
        if bool(bad.any()):
            value = frame[column][int(bad.arg_max() or 0)]
            raise InputError(
                f"{column} {value!r} holds whitespace, which the TREC format cannot represent; "
                "write JSONL, CSV or Parquet instead",
                source=target,
            )
    comment = frame[QUERY_ID].str.starts_with("#")
    if bool(comment.any()):
        value = frame[QUERY_ID][int(comment.arg_max() or 0)]
        raise InputError(
            f"query_id {value!r} starts with '#', which would read back as a comment line; "
            "write JSONL, CSV or Parquet instead",
            source=target,
        )


def run_lines(run: Run, target: str) -> pl.DataFrame:
    """The fields of ``query_id Q0 doc_id rank score run_tag`` lines, for `write_lines`; rank is
    the position of the row within its query in the table's order, the tag the run's name."""
    frame = run.frame
    _refuse_unwritable(frame, target)
    tag = run.name
    if not tag or any(char in tag for char in WHITESPACE + "\n"):
        raise InputError(
            f"the run name {tag!r} is not a valid TREC run tag (one word, no whitespace); "
            "give the Run another name, e.g. dataclasses.replace(run, name='bm25')",
            source=target,
        )
    return frame.select(
        QUERY_ID,
        pl.lit("Q0").alias("__q0__"),
        DOC_ID,
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(QUERY_ID).alias("__rank__"),
        SCORE,
        pl.lit(tag).alias("__tag__"),
    )


def qrels_lines(qrels: Qrels, target: str) -> pl.DataFrame:
    """The fields of ``query_id 0 doc_id relevance`` lines (diversity qrels: the subtopic for
    ``0``), for `write_lines`."""
    frame = qrels.frame
    _refuse_unwritable(frame, target)
    iteration = pl.col(SUBTOPIC) if qrels.has_subtopics else pl.lit("0")
    return frame.select(QUERY_ID, iteration.alias("__iteration__"), DOC_ID, RELEVANCE)


def write_lines(fields: pl.DataFrame, file: IO[bytes]) -> None:
    """Write the rows of a table as space-separated lines."""
    fields.write_csv(file, separator=" ", include_header=False, quote_style="never")
