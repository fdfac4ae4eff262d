"""Reading qrels and runs with Spark: TREC files or Parquet; files, directories or globs.

TREC files are read by rankscope's native core on the executors, the reader of `rankscope.io`
with its rules and its messages. Each file is cut into byte ranges of about `RANGE_BYTES`; each
range is one task, which reads the lines that start in it (a line crossing the range's end is
its range's, as Hadoop's line reader splits files) and hands Spark the rows as Arrow batches.
A compressed file (gzip, bzip2, xz, zstd) cannot be cut: it is one task, decompressed there.
A malformed line fails the job with the core's message, naming the file, the line and its text
(a range counts the lines before it only when it has to name one). Rows keep the files' order.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import IO, TYPE_CHECKING, Any

from rankscope.errors import InputError, ParseError
from rankscope.io._files import compression_of, existing_file, open_input, open_stream
from rankscope.io._formats import Kind, resolve_columns
from rankscope.io._native import trec_qrels_rows, trec_run_rows, trec_run_tag
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE
from rankscope.spark._session import quiet_pyspark

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "RANGE_BYTES",
    "SPARK_FORMATS",
    "TrecFiles",
    "read_qrels",
    "read_range",
    "read_run",
    "run_name_of",
    "trec_files_of",
    "trec_source",
]

SPARK_FORMATS = ("trec", "parquet")

RANGE_BYTES = 64 * 1024 * 1024
"""How much of a TREC file one Spark task reads (a file smaller than this is one task)."""

_SCAN_BYTES = 1 << 22


def _is_parquet(path: str) -> bool:
    """Parquet by extension, or a directory (or glob) whose files are Parquet."""
    if path.endswith((".parquet", ".pq")):
        return True
    matches = glob.glob(path) if glob.has_magic(path) else [path]
    for match in matches:
        if os.path.isdir(match):
            return any(
                name.endswith((".parquet", ".pq"))
                for _, _, names in os.walk(match)
                for name in names
            )
        if match.endswith((".parquet", ".pq")):
            return True
    return False


def _format(path: str, format: str | None) -> str:
    if format is None:
        return "parquet" if _is_parquet(path) else "trec"
    fmt = {"pq": "parquet"}.get(format.lower(), format.lower())
    if fmt not in SPARK_FORMATS:
        raise InputError(
            f"Spark reads {' and '.join(SPARK_FORMATS)} files; got format {format!r} (read "
            "other formats into a DataFrame with Spark's own readers)",
            source=path,
        )
    return fmt


def _parquet(spark: SparkSession, path: str, kind: Kind) -> DataFrame:
    frame = spark.read.parquet(path)
    columns = resolve_columns(kind, frame.columns, {}, what="column", source=path)
    return frame.select(*(frame[theirs].alias(ours) for ours, theirs in columns.items()))


def _hidden(name: str) -> bool:
    """Files Spark's readers pass over in a directory (``_SUCCESS``, ``.crc`` files...)."""
    return name.startswith(("_", "."))


def _trec_files(path: str) -> list[str]:
    """The files ``path`` names: itself, the files under a directory, or a glob's matches
    (directories among them walked), in sorted order."""
    if glob.has_magic(path):
        matches = sorted(glob.glob(path))
        if not matches:
            raise InputError("no file matches the pattern", source=path)
    else:
        if not os.path.isdir(path):
            existing_file(path)  # an InputError naming it if it is missing
        matches = [path]
    files = []
    for match in matches:
        if not os.path.isdir(match):
            files.append(match)
            continue
        for folder, folders, names in os.walk(match):
            folders[:] = sorted(name for name in folders if not _hidden(name))
            files.extend(os.path.join(folder, n) for n in sorted(names) if not _hidden(n))
    if not files:
        raise InputError("the directory holds no files", source=path)
    return files


_WHOLE = -1
"""The end of the range of a compressed file: the whole file, decompressed."""


def _ranges(files: list[str], range_bytes: int | None = None) -> list[tuple[str, int, int]]:
    """``(file, start, end)`` byte ranges of about ``range_bytes`` (`RANGE_BYTES`) covering
    every file (an empty file is one empty range, a compressed one the range ``(0, _WHOLE)``)."""
    range_bytes = range_bytes or RANGE_BYTES
    ranges: list[tuple[str, int, int]] = []
    for file in files:
        if compression_of(file) is not None:
            ranges.append((file, 0, _WHOLE))
            continue
        size = os.path.getsize(file)
        starts = range(0, size, range_bytes) if size else range(1)
        ranges.extend((file, start, min(start + range_bytes, size)) for start in starts)
    return ranges


def _next_line_start(file: IO[bytes], position: int) -> int:
    """Where the first line starting at or after ``position`` starts (the file's size if
    none does): ``position`` itself when a line ends just before it."""
    if position == 0:
        return 0
    file.seek(position - 1)
    while block := file.read(_SCAN_BYTES):
        newline = block.find(b"\n")
        if newline >= 0:
            return file.tell() - len(block) + newline + 1
    return file.tell()


def _newlines_before(file: IO[bytes], position: int) -> int:
    file.seek(0)
    count = 0
    while position > 0 and (block := file.read(min(_SCAN_BYTES, position))):
        count += block.count(b"\n")
        position -= len(block)
    return count


def _line_bounds(file: IO[bytes], start: int, end: int, size: int) -> tuple[int, int]:
    """The bytes of the lines that start in ``start..end``."""
    first = _next_line_start(file, start)
    return first, (_next_line_start(file, end) if end > first else first)


def _arrow(table: Any) -> Any:
    """The core's Arrow table as a pyarrow one, through the Arrow stream interface
    (``pyarrow.table`` would first import pandas, if installed, to check for a DataFrame:
    a third of a second of every Python worker's start)."""
    import pyarrow as pa

    return pa.RecordBatchReader.from_stream(table).read_all()


def read_range(
    path: str,
    start: int,
    end: int,
    kind: Kind,
    bounds: Callable[[IO[bytes], int, int, int], tuple[int, int]] = _line_bounds,
) -> Any:
    """The rows of the lines that start in ``path``'s bytes ``start..end`` (of a compressed file
    with ``end`` `_WHOLE`: every line), read by the core, as an Arrow table (``query_id``,
    ``doc_id``, and ``score`` or ``relevance``); its errors name the line of the whole file.
    ``bounds(file, start, end, size)`` says which bytes that is (by default, whole lines; for
    a run grouped by query, whole queries)."""
    if end == _WHOLE:
        data = open_input(path).data or b""
        if kind == "run":
            return _arrow(trec_run_rows(data, path)[0])
        return _arrow(trec_qrels_rows(data, path))
    with open(path, "rb") as file:
        first, last = bounds(file, start, end, os.fstat(file.fileno()).st_size)
        file.seek(first)
        data = file.read(last - first)
        # Line 1 is the file's start (a byte order mark there is skipped); a later range's
        # lines are numbered once a message needs them.
        first_line = 1 if first == 0 else 2
        try:
            if kind == "run":
                return _arrow(trec_run_rows(data, path, first_line)[0])
            return _arrow(trec_qrels_rows(data, path, first_line))
        except ParseError as error:
            if first == 0 or error.line is None:
                raise
            line = error.line - first_line + 1 + _newlines_before(file, first)
            raise ParseError(error.message, source=path, line=line, text=error.text) from None


def _read_ranges(batches: Iterator[Any], kind: Kind) -> Iterator[Any]:
    """What runs on the executors: each range of ``batches`` (columns path, start, end) read
    into Arrow record batches of Spark's types."""

    schema = _arrow_schema(kind)
    for batch in batches:
        ranges = batch.to_pydict()
        for path, start, end in zip(ranges["path"], ranges["start"], ranges["end"], strict=True):
            table = read_range(path, start, end, kind)
            yield from table.select(schema.names).cast(schema).to_batches()


def _arrow_schema(kind: Kind) -> Any:
    import pyarrow as pa

    value = (SCORE, pa.float64()) if kind == "run" else (RELEVANCE, pa.int64())
    return pa.schema([(QUERY_ID, pa.string()), (DOC_ID, pa.string()), value])


def _trec(spark: SparkSession, path: str, kind: Kind) -> DataFrame:
    """A TREC file (or files) read by the core on the executors, one task per byte range."""
    ranges = _ranges(_trec_files(path))
    value = f"{SCORE} double" if kind == "run" else f"{RELEVANCE} bigint"
    seeds = spark.sparkContext.parallelize(ranges, len(ranges))  # range i is partition i
    schema = f"{QUERY_ID} string, {DOC_ID} string, {value}"
    with quiet_pyspark():
        table = spark.createDataFrame(seeds, "path string, start bigint, end bigint")
        frame = table.mapInArrow(partial(_read_ranges, kind=kind), schema)
    # Where the rows come from, for `rankscope.spark.evaluate` to read a run grouped by query
    # where it lies (a DataFrame derived from this one is a new object, without it).
    frame._rankscope_files = TrecFiles(kind, tuple(_trec_files(path)))  # type: ignore[attr-defined]
    return frame


@dataclass(frozen=True)
class TrecFiles:
    """The TREC files a DataFrame of `read_run` or `read_qrels` was read from, in order."""

    kind: str
    paths: tuple[str, ...]


def trec_files_of(frame: DataFrame) -> TrecFiles | None:
    """The TREC files ``frame`` was read from by `read_run` or `read_qrels` as it is (not a
    DataFrame derived from one); None for any other."""
    files = getattr(frame, "_rankscope_files", None)
    return files if isinstance(files, TrecFiles) else None


def trec_source(path: str, format: str | None, kind: Kind) -> TrecFiles | None:
    """The TREC files ``path`` names (a file, a directory, a glob), without Spark; None when
    they are Parquet."""
    if _format(path, format) == "parquet":
        return None
    return TrecFiles(kind, tuple(_trec_files(path)))


def run_name_of(path: str, files: TrecFiles | None) -> str:
    """A run's name: the tag of the last valid line of its last TREC file (as trec_eval names
    a run; see `_run_name`), else (Parquet, or no tag) the file name without extension."""
    stem = os.path.basename(path.rstrip("/")).split(".")[0] or "run"
    return (_run_name(files.paths[-1]) if files is not None else None) or stem


def read_run(spark: SparkSession, path: str, format: str | None = None) -> tuple[DataFrame, str]:
    """A run as a DataFrame (``query_id``, ``doc_id``, ``score``) and its name (see
    `run_name_of`)."""
    files = trec_source(path, format, "run")
    if files is None:
        return _parquet(spark, path, "run"), run_name_of(path, None)
    return _trec(spark, path, "run"), run_name_of(path, files)


def _run_name(last: str) -> str | None:
    """The tag of the last valid line of a run's last file; of a compressed one, which cannot
    be read from its end, of the last line of its first 4 MiB (as `rankscope.io.read_run_batches`
    names a compressed run by its first chunk)."""
    if compression_of(last) is None:
        return trec_run_tag(last, last)
    with ExitStack() as stack:
        head = open_stream(last, stack).file.read(_SCAN_BYTES)
    cut = head.rfind(b"\n") + 1
    return trec_run_rows(head[:cut] if cut else head, last)[1] or None


def read_qrels(spark: SparkSession, path: str, format: str | None = None) -> DataFrame:
    """Qrels as a DataFrame: ``query_id``, ``doc_id``, ``relevance``."""
    if _format(path, format) == "parquet":
        return _parquet(spark, path, "qrels")
    return _trec(spark, path, "qrels")
