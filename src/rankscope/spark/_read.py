"""Reading qrels and runs with Spark: TREC files or Parquet; files, directories or globs.

The TREC rules are those of `rankscope.io` (fields separated by any run of spaces, tabs, ``\\r``,
``\\v`` or ``\\f``; blank lines and ``#`` comments skipped; a run line may carry more fields after
the tag, a qrels line may not; grades are integers, ``2.0`` accepted; scores finite numbers).
Lines are split by Spark, in the JVM. A malformed line is not an error at once: it is marked in
the `PROBLEM` column, and the executor that evaluates its query raises the error, naming the
file and the line (Spark does not number lines, so the message cannot give its number).
"""

from __future__ import annotations

import glob
import os
from typing import TYPE_CHECKING

from rankscope.errors import InputError
from rankscope.io._formats import Kind, resolve_columns
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE
from rankscope.spark._partition import PROBLEM

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["SPARK_FORMATS", "read_qrels", "read_run"]

SPARK_FORMATS = ("trec", "parquet")

_SPACE = "[ \\t\\r\\x0b\\x0c]"
_FIELD = "[^ \\t\\r\\x0b\\x0c]+"
_BLANK_OR_COMMENT = f"^{_SPACE}*(#|$)"
# Numbered groups: 1 query id, 2 doc id, 3 score or grade, 4 (runs) the tag.
_RUN_PATTERN = (
    f"^{_SPACE}*({_FIELD}){_SPACE}+{_FIELD}{_SPACE}+({_FIELD}){_SPACE}+{_FIELD}"
    f"{_SPACE}+({_FIELD}){_SPACE}+({_FIELD})"
)
_QRELS_PATTERN = (
    f"^{_SPACE}*({_FIELD}){_SPACE}+{_FIELD}{_SPACE}+({_FIELD}){_SPACE}+({_FIELD}){_SPACE}*$"
)
_RUN_FIELDS = "query_id Q0 doc_id rank score run_tag"
_QRELS_FIELDS = "query_id iteration doc_id relevance"


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


def _field_count(line: Column) -> Column:
    from pyspark.sql import functions as F

    return F.size(F.split(F.regexp_replace(line, f"^{_SPACE}+|{_SPACE}+$", ""), f"{_SPACE}+"))


def _fields(spark: SparkSession, path: str, pattern: str, groups: int) -> DataFrame:
    """The lines that are neither blank nor comments: their text and file, whether they match
    ``pattern``, and its groups as ``_1``, ``_2``...; ``_3`` is the score or grade."""
    from pyspark.sql import functions as F

    line = F.col("value")
    lines = (
        spark.read.text(path)
        .filter(~line.rlike(_BLANK_OR_COMMENT))
        .withColumn("_file", F.regexp_replace(F.input_file_name(), "^file:(//)?", ""))
    )
    return lines.select(
        line,
        "_file",
        line.rlike(pattern).alias("_matched"),
        *(F.regexp_extract(line, pattern, i).alias(f"_{i}") for i in range(1, groups + 1)),
    )


def _problem(fields_expected: str, value_is_valid: Column, value_rule: str) -> Column:
    """Null for a good line; for a malformed one, its file, what is wrong and its text
    (NUL-separated), as the `PROBLEM` column carries them."""
    from pyspark.sql import functions as F

    line = F.col("value")

    def described(message: Column) -> Column:
        return F.concat_ws("\0", F.col("_file"), message, line)

    found = F.concat(F.lit(f"{value_rule}; found '"), F.col("_3"), F.lit("'"))
    return F.when(
        ~F.col("_matched"),
        described(F.format_string(f"expected {fields_expected}; found %d", _field_count(line))),
    ).when(~value_is_valid, described(found))


def _parquet(spark: SparkSession, path: str, kind: Kind) -> DataFrame:
    frame = spark.read.parquet(path)
    columns = resolve_columns(kind, frame.columns, {}, what="column", source=path)
    return frame.select(*(frame[theirs].alias(ours) for ours, theirs in columns.items()))


def read_run(spark: SparkSession, path: str, format: str | None = None) -> tuple[DataFrame, str]:
    """A run as a DataFrame (``query_id``, ``doc_id``, ``score``, and `PROBLEM` for TREC
    files) and its name: the tag of its first line (TREC) or the file name without extension.
    """
    from pyspark.sql import functions as F

    stem = os.path.basename(path.rstrip("/")).split(".")[0] or "run"
    if _format(path, format) == "parquet":
        return _parquet(spark, path, "run"), stem
    fields = _fields(spark, path, _RUN_PATTERN, 4)
    score = F.expr("try_cast(_3 AS DOUBLE)")
    finite = score.isNotNull() & ~F.isnan(score) & (F.abs(score) < float("inf"))
    problem = _problem(
        f"at least 6 whitespace-separated fields ({_RUN_FIELDS})",
        finite,
        "score must be a finite number",
    )
    run = fields.select(
        F.col("_1").alias(QUERY_ID),
        F.col("_2").alias(DOC_ID),
        F.when(finite, score).alias(SCORE),
        problem.alias(PROBLEM),
    )
    first = fields.filter(F.col("_matched")).select("_4").first()
    return run, first[0] if first is not None else stem


def read_qrels(spark: SparkSession, path: str, format: str | None = None) -> DataFrame:
    """Qrels as a DataFrame: ``query_id``, ``doc_id``, ``relevance`` (and `PROBLEM` for TREC
    files)."""
    from pyspark.sql import functions as F

    if _format(path, format) == "parquet":
        return _parquet(spark, path, "qrels")
    fields = _fields(spark, path, _QRELS_PATTERN, 3)
    as_float = F.expr("try_cast(_3 AS DOUBLE)")
    whole = (
        as_float.isNotNull()
        & ~F.isnan(as_float)
        & (F.abs(as_float) < 2.0**62)
        & (as_float == F.round(as_float, 0))
    )
    grade = F.when(F.col("_3").rlike("^[+-]?[0-9]+$"), F.expr("try_cast(_3 AS BIGINT)")).otherwise(
        F.when(whole, as_float.cast("bigint"))
    )
    problem = _problem(
        f"4 whitespace-separated fields ({_QRELS_FIELDS})",
        grade.isNotNull(),
        "relevance must be an integer grade",
    )
    return fields.select(
        F.col("_1").alias(QUERY_ID),
        F.col("_2").alias(DOC_ID),
        grade.alias(RELEVANCE),
        problem.alias(PROBLEM),
    )
