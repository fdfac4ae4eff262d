"""TREC qrels (``query_id iteration doc_id relevance``) and runs (``query_id Q0 doc_id rank score
run_tag``): writing. (Reading them is the native core's: see `rankscope.io._native`.)
"""

from __future__ import annotations

from typing import IO

import polars as pl

from rankscope.errors import InputError
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE, SUBTOPIC, Qrels, Run

__all__ = ["qrels_lines", "run_lines", "write_lines"]

WHITESPACE = " \t\r\x0b\x0c"
"""What separates fields of a TREC line: C's isspace() without the newline, as in trec_eval (and
the core's reader): ids and tags written must hold none of it."""


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
