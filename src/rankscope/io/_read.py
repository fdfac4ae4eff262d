"""`read_qrels` and `read_run`: any supported file (or standard input) to `Qrels` / `Run`.

TREC files are read by the native core (the one TREC reader there is), whose columns polars
takes as an Arrow table without a copy; the other formats by the readers of this package.
"""

from __future__ import annotations

import os

import polars as pl

from rankscope.errors import InputError
from rankscope.io._delimited import parse_delimited
from rankscope.io._files import Input, open_input
from rankscope.io._formats import Kind, check_mapping, detect_format, normalize_format
from rankscope.io._jsonl import parse_jsonl
from rankscope.io._lines import Skipped
from rankscope.io._native import trec_qrels_table, trec_run_table, warn_skipped
from rankscope.io._nested_json import read_nested_json
from rankscope.io._parquet import parse_parquet
from rankscope.io.tables import Qrels, Run

__all__ = ["read_qrels", "read_run"]


def _format(opened: Input, format: str | None, column_mapping: dict[str, str]) -> str:
    if format is not None:
        return normalize_format(format)
    return detect_format(opened.extension, opened.head(), column_mapping)


def _read_table(
    opened: Input,
    fmt: str,
    kind: Kind,
    column_mapping: dict[str, str],
    lenient: bool,
    list_key: str | None = None,
) -> tuple[pl.DataFrame, Skipped]:
    if fmt == "jsonl":
        return parse_jsonl(opened, kind, column_mapping, lenient=lenient, list_key=list_key)
    if fmt in ("csv", "tsv"):
        separator = "," if fmt == "csv" else "\t"
        return parse_delimited(opened, kind, column_mapping, separator=separator, lenient=lenient)
    return parse_parquet(opened, kind, column_mapping, lenient=lenient)


def _refuse_mapping(column_mapping: dict[str, str], source: str, what: str = "TREC") -> None:
    if column_mapping:
        given = ", ".join(f"{key}={value!r}" for key, value in column_mapping.items())
        raise InputError(
            f"a column mapping ({given}) applies to CSV, TSV, JSONL and Parquet files; "
            f"{what} files have fixed fields (pass format= if the format was detected wrongly)",
            source=source,
        )


def read_qrels(
    path_or_stdin: str | os.PathLike[str],
    format: str | None = None,
    lenient: bool = False,
    **column_mapping: str,
) -> Qrels:
    """Read relevance judgements from a file, or from standard input with ``"-"``.

    Parameters
    ----------
    path_or_stdin
        The file; ``.gz``, ``.bz2``, ``.xz`` and ``.zst`` files are decompressed.
    format
        ``"trec"`` (``query_id iteration doc_id relevance``), ``"jsonl"`` (also reads a JSON
        object ``{query_id: {doc_id: grade}}``, as ranx and pytrec_eval save qrels), ``"csv"``,
        ``"tsv"`` (BEIR's ``query-id corpus-id score`` files, with or without the header; alias
        ``"beir"``) or ``"parquet"``. By default the format is detected from the extension and
        the first line.
    lenient
        Skip malformed lines, and report how many in one `RankscopeWarning`, instead of
        raising `ParseError` at the first.
    **column_mapping
        ``query_id=``, ``doc_id=``, ``relevance=``: the names of those columns (or JSON keys) in
        the file, when they are not among the accepted ones (query_id, qid, query-id; doc_id,
        docid, docno, corpus-id, pid; relevance, rel, grade, label, score).

    Raises
    ------
    ParseError
        For a malformed line, naming the file, the line number and the line: a wrong field
        count, a grade that is not an integer, invalid JSON, a missing key or column value...
    EmptyInputError
        When the file holds no judgements (empty, or only comments and blank lines).
    InputError
        For an unknown format, a missing column, or a file that cannot be opened.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("# judged by hand\\nq1 0 d1 2\\nq1 0 d2 0\\nq2 0 d3 1\\n")
    >>> qrels = read_qrels(path)
    >>> qrels.frame.rows()
    [('q1', 'd1', 2), ('q1', 'd2', 0), ('q2', 'd3', 1)]
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0.5\\n")
    >>> read_qrels(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.ParseError: ...qrels.txt:2: relevance must be an integer grade; found '0.5'
        q1 0 d2 0.5
    """
    check_mapping("qrels", column_mapping, "read_qrels")
    opened = open_input(path_or_stdin)
    fmt = _format(opened, format, column_mapping)
    if fmt == "trec":
        _refuse_mapping(column_mapping, opened.source)
        table, warning = trec_qrels_table(opened, lenient)
        warn_skipped(warning, stacklevel=3)
        # Already validated by the core: ids are non-empty strings, grades Int64.
        return Qrels(pl.DataFrame(table), opened.source)
    nested = read_nested_json(opened, "qrels") if fmt == "jsonl" else None
    if nested is not None:
        _refuse_mapping(column_mapping, opened.source, "a JSON object of objects")
        return Qrels.from_dict(nested.mapping, source=opened.source)
    frame, skipped = _read_table(opened, fmt, "qrels", column_mapping, lenient)
    skipped.warn(opened.source, unit="row" if fmt == "parquet" else "line")
    return Qrels.from_frame(frame, opened.source)


def read_run(
    path: str | os.PathLike[str],
    format: str | None = None,
    lenient: bool = False,
    name: str | None = None,
    list_key: str | None = None,
    **column_mapping: str,
) -> Run:
    """Read ranked results from a file, or from standard input with ``"-"``.

    Row order is kept as in the file (the ``trec`` profile ranks by score anyway).

    Parameters
    ----------
    path
        The file; ``.gz``, ``.bz2``, ``.xz`` and ``.zst`` files are decompressed.
    format
        ``"trec"`` (``query_id Q0 doc_id rank score run_tag``, more fields after the tag are
        ignored), ``"jsonl"`` (also reads a JSON object ``{query_id: {doc_id: score}}``, as
        ranx and pytrec_eval save runs), ``"csv"``, ``"tsv"`` or ``"parquet"``. By default the
        format is detected from the extension and the first line.
    lenient
        Skip malformed lines, and report how many in one `RankscopeWarning`, instead of
        raising `ParseError` at the first.
    name
        The run's name. By default the tag of the last line of a TREC file (as trec_eval names
        a run; the name in a ranx hub file's metadata), else the file name without its
        extensions.
    list_key
        JSON Lines with a ranked list per query: the key of the list (``"retrieved"``,
        ``"ctxs"``, ...). By default the first of `rankscope.io._jsonl.RUN_LIST_KEYS` found in
        the first line. The items may be ids, or objects with the id under ``doc_id``, ``id``,
        ``_id``, ``pid``... (the list order is the ranking).
    **column_mapping
        ``query_id=``, ``doc_id=``, ``score=``: the names of those columns (or JSON keys) in the
        file, when they are not among the accepted ones (query_id, qid, query-id; doc_id, docid,
        docno, corpus-id, pid; score).

    Raises
    ------
    ParseError
        For a malformed line, naming the file, the line number and the line: a wrong field
        count, a score that is not a finite number, invalid JSON, a missing key or value...
    EmptyInputError
        When the file holds no results (empty, or only comments and blank lines).
    InputError
        For an unknown format, a missing column, or a file that cannot be opened.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\\nq1\\tQ0\\td2\\t2\\t  1.0\\tbm25 extra\\n")
    >>> run = read_run(path)
    >>> run.name, run.frame.rows()
    ('bm25', [('q1', 'd1', 2.5), ('q1', 'd2', 1.0)])
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 nan bm25\\n")
    >>> read_run(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.ParseError: ...run.txt:2: score must be a finite number; found 'nan'
        q1 Q0 d2 2 nan bm25
    """
    check_mapping("run", column_mapping, "read_run")
    opened = open_input(path)
    fmt = _format(opened, format, column_mapping)
    if list_key is not None and fmt != "jsonl":
        raise InputError(
            f"a list key ({list_key!r}) applies to JSON Lines runs; this file reads as {fmt}",
            source=opened.source,
        )
    if fmt == "trec":
        _refuse_mapping(column_mapping, opened.source)
        table, tag, warning = trec_run_table(opened, lenient)
        warn_skipped(warning, stacklevel=3)
        # Already validated by the core: ids are non-empty strings, scores finite Float64.
        return Run(pl.DataFrame(table), name or tag or opened.stem or "run", opened.source)
    nested = read_nested_json(opened, "run") if fmt == "jsonl" else None
    if nested is not None:
        _refuse_mapping(column_mapping, opened.source, "a JSON object of objects")
        if list_key is not None:
            raise InputError(
                f"a list key ({list_key!r}) applies to JSON Lines runs; this file is one JSON "
                "object {query_id: {doc_id: score}}",
                source=opened.source,
            )
        run_name = name or nested.name or opened.stem or "run"
        return Run.from_dict(nested.mapping, name=run_name, source=opened.source)
    frame, skipped = _read_table(opened, fmt, "run", column_mapping, lenient, list_key)
    skipped.warn(opened.source, unit="row" if fmt == "parquet" else "line")
    return Run.from_frame(frame, name or opened.stem or "run", opened.source)
