"""`write_qrels` and `write_run`: `Qrels` / `Run` to TREC, JSONL, CSV, TSV or Parquet files."""

from __future__ import annotations

import os
from typing import IO

import polars as pl

from rankscope.errors import InputError
from rankscope.io._files import open_output
from rankscope.io._formats import normalize_format
from rankscope.io._trec import qrels_lines, run_lines, write_lines
from rankscope.io.tables import Qrels, Run

__all__ = ["write_qrels", "write_run", "write_table"]


def _write_table(frame: pl.DataFrame, file: IO[bytes], fmt: str) -> None:
    if fmt == "jsonl":
        frame.write_ndjson(file)
    elif fmt == "csv":
        frame.write_csv(file)
    elif fmt == "tsv":
        frame.write_csv(file, separator="\t")
    else:
        frame.write_parquet(file)


def write_table(frame: pl.DataFrame, path: str | os.PathLike[str], format: str) -> None:
    """Write a table of any columns (a judging sheet, say) as JSONL, CSV, TSV or Parquet, to a
    file compressed by its extension or to ``"-"``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sheet.csv"
    >>> write_table(pl.DataFrame({"query_id": ["q1"], "note": ["a, b"]}), path, "csv")
    >>> print(path.read_text(), end="")
    query_id,note
    q1,"a, b"
    """
    fmt = normalize_format(format)
    if fmt == "trec":
        raise InputError(
            "TREC files have fixed fields; write a table as jsonl, csv, tsv or parquet"
        )
    with open_output(path) as file:
        _write_table(frame, file, fmt)


def write_run(run: Run, path: str | os.PathLike[str], format: str = "trec") -> None:
    """Write a run to a file (compressed by its extension: .gz, .bz2, .xz, .zst) or ``"-"``.

    Parameters
    ----------
    run
        The run; rows are written in its order.
    path
        The file to create or replace; ``"-"`` writes to standard output.
    format
        ``"trec"``: ``query_id Q0 doc_id rank score run_tag`` lines, the rank being the row's
        position within its query and the tag the run's name; ``"jsonl"``: one
        ``{"query_id", "doc_id", "score"}`` object per line; ``"csv"``, ``"tsv"``: those columns
        with a header; ``"parquet"``. Scores are written so that they read back exactly.
        A query with nothing retrieved (`Run.empty_queries`) has no row, so none of these
        formats holds it: it is not written, and a run read back from the file lacks it
        (an evaluation then counts it as missing from the run, as trec_eval would).

    Raises
    ------
    InputError
        For an unknown format, or ids or a run name with whitespace in TREC format.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.trec"
    >>> write_run(Run.from_dict({"q1": {"d1": 2.5, "d2": 0.1}}, name="bm25"), path)
    >>> print(path.read_text(), end="")
    q1 Q0 d1 1 2.5 bm25
    q1 Q0 d2 2 0.1 bm25
    """
    if not isinstance(run, Run):
        raise TypeError(f"write_run() expects a Run; got {type(run).__name__}")
    fmt = normalize_format(format)
    lines = run_lines(run, str(path)) if fmt == "trec" else None  # validate before creating
    with open_output(path) as file:
        if lines is not None:
            write_lines(lines, file)
        else:
            _write_table(run.frame, file, fmt)


def write_qrels(qrels: Qrels, path: str | os.PathLike[str], format: str = "trec") -> None:
    """Write judgements to a file (compressed by its extension: .gz, .bz2, .xz, .zst) or ``"-"``.

    Parameters
    ----------
    qrels
        The judgements; rows are written in their order.
    path
        The file to create or replace; ``"-"`` writes to standard output.
    format
        ``"trec"``: ``query_id 0 doc_id relevance`` lines; ``"jsonl"``: one
        ``{"query_id", "doc_id", "relevance"}`` object per line; ``"csv"``, ``"tsv"``: those
        columns with a header; ``"parquet"``.

    Raises
    ------
    InputError
        For an unknown format, or ids with whitespace in TREC format.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.csv"
    >>> write_qrels(Qrels.from_dict({"q1": {"d1": 2}}), path, format="csv")
    >>> print(path.read_text(), end="")
    query_id,doc_id,relevance
    q1,d1,2
    """
    if not isinstance(qrels, Qrels):
        raise TypeError(f"write_qrels() expects a Qrels; got {type(qrels).__name__}")
    fmt = normalize_format(format)
    lines = qrels_lines(qrels, str(path)) if fmt == "trec" else None  # validate before creating
    with open_output(path) as file:
        if lines is not None:
            write_lines(lines, file)
        else:
            _write_table(qrels.frame, file, fmt)
