"""`read_corpus` and `read_queries`: the texts of documents and queries, by id.

=========  ========================================================================================
format     what it holds
=========  ========================================================================================
JSONL      one object per line with an id key and a text key (BEIR's ``corpus.jsonl``: ``_id``,
           ``title``, ``text``, the title put before the text; ``queries.jsonl``: ``_id``,
           ``text``)
TSV, CSV   ``id<TAB>text`` without a header (MS MARCO's ``collection.tsv`` and ``queries.tsv``),
           or a header naming an id column and a text column
Parquet    an id column and a text column (WeKnora's ``corpus.parquet`` and ``queries.parquet``)
=========  ========================================================================================

Any file may be compressed (.gz, .bz2, .xz, .zst). Ids are strings (integer ids are written
plainly); an id given twice is an error naming both lines.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
from collections.abc import Collection, Iterator
from typing import Any, Literal

from rankscope.errors import EmptyInputError, InputError, ParseError
from rankscope.io._files import Input, open_input
from rankscope.io._formats import first_content_line

__all__ = ["json_records", "read_corpus", "read_queries"]

TextKind = Literal["corpus", "queries"]

_ID_KEYS: dict[TextKind, tuple[str, ...]] = {
    "corpus": ("_id", "doc_id", "docid", "docno", "pid", "corpus-id", "id"),
    "queries": ("_id", "query_id", "qid", "query-id", "id"),
}
_TEXT_KEYS: dict[TextKind, tuple[str, ...]] = {
    "corpus": ("text", "contents", "passage", "body"),
    "queries": ("text", "query", "question"),
}
_WHAT = {"corpus": "document", "queries": "query"}

Row = tuple[int, Any, Any, Any, str | None]  # (line or row, id, text, title, the line's text)


def _key(found: Collection[str], wanted: tuple[str, ...], what: str, source: str) -> str:
    """The first of ``wanted`` among ``found`` (exactly, then ignoring case)."""
    lowered = {name.lower(): name for name in found}
    for name in wanted:
        if name in found:
            return name
    for name in wanted:
        if name in lowered:
            return lowered[name]
    raise InputError(
        f"no {what} column: expected one of {', '.join(wanted)}; found {', '.join(found)}",
        source=source,
    )


def json_records(text: str, source: str) -> Iterator[tuple[int, dict[str, Any], str]]:
    """``(line number, object, line)`` of every line of JSON Lines text that is not blank; a
    line that is not a JSON object is a `ParseError` naming it.

    >>> list(json_records('{"_id": "d1"}\\n\\n{"_id": "d2"}\\n', "f.jsonl"))
    [(1, {'_id': 'd1'}, '{"_id": "d1"}'), (3, {'_id': 'd2'}, '{"_id": "d2"}')]
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ParseError(
                f"expected a JSON object; {error.msg} at column {error.colno}",
                source=source,
                line=number,
                text=line,
            ) from None
        if not isinstance(record, dict):
            raise ParseError(
                f"expected a JSON object; found {type(record).__name__}",
                source=source,
                line=number,
                text=line,
            )
        yield number, record, line


def _jsonl_rows(text: str, kind: TextKind, source: str) -> Iterator[Row]:
    keys: tuple[str, str] | None = None
    for number, record, line in json_records(text, source):
        if keys is None:
            where = f"{source}:{number}"
            keys = (
                _key(record, _ID_KEYS[kind], f"{_WHAT[kind]} id", where),
                _key(record, _TEXT_KEYS[kind], "text", where),
            )
        for key in keys:
            if key not in record:
                raise ParseError(f"key {key!r} is missing", source=source, line=number, text=line)
        title = record.get("title") if kind == "corpus" else None
        yield number, record[keys[0]], record[keys[1]], title, line


def _split_lines(text: str, separator: str) -> Iterator[tuple[int, list[str], str]]:
    """``(line number, fields, line)`` of every line that is not blank. A TSV file is split at
    its tabs (MS MARCO's files are not quoted: a quote in a passage is a character of it); a
    CSV file is read as CSV, quoted fields spanning lines."""
    if separator == "\t":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield number, line.split("\t"), line
        return
    reader = csv.reader(io.StringIO(text, newline=""))
    for fields in reader:
        if any(field.strip() for field in fields):
            yield reader.line_num, fields, ",".join(fields)


def _delimited_rows(text: str, kind: TextKind, source: str, separator: str) -> Iterator[Row]:
    lines = _split_lines(text, separator)
    first = next(lines, None)
    if first is None:
        return
    number, fields, line = first
    names = [field.strip().strip('"') for field in fields]
    header = any(name.lower() in _ID_KEYS[kind] for name in names)
    id_column, text_column, title_column, width = 0, 1, None, 2
    if header:
        where = f"{source}:{number}"
        id_column = names.index(_key(names, _ID_KEYS[kind], f"{_WHAT[kind]} id", where))
        text_column = names.index(_key(names, _TEXT_KEYS[kind], "text", where))
        if kind == "corpus" and "title" in names:
            title_column = names.index("title")
        width = len(names)
    rows = lines if header else itertools.chain([first], lines)
    for number, fields, line in rows:
        if len(fields) != width:
            expected = f"{width} fields as in the header" if header else "'id<TAB>text'"
            raise ParseError(
                f"expected {expected}; found {len(fields)} fields",
                source=source,
                line=number,
                text=line,
            )
        title = None if title_column is None else fields[title_column]
        yield number, fields[id_column], fields[text_column], title, line


def _parquet_rows(opened: Input, kind: TextKind) -> Iterator[Row]:
    import polars as pl

    try:
        frame = pl.read_parquet(opened.polars_source)
    except Exception as error:  # polars raises several kinds for a corrupt file
        raise ParseError(f"cannot read as Parquet: {error}", source=opened.source) from error
    id_name = _key(frame.columns, _ID_KEYS[kind], f"{_WHAT[kind]} id", opened.source)
    text_name = _key(frame.columns, _TEXT_KEYS[kind], "text", opened.source)
    titles = frame["title"] if kind == "corpus" and "title" in frame.columns else None
    for number, (doc_id, text) in enumerate(frame.select(id_name, text_name).iter_rows()):
        title = None if titles is None else titles[number]
        yield number + 1, doc_id, text, title, None


def _rows(opened: Input, kind: TextKind) -> Iterator[Row]:
    if opened.head().startswith(b"PAR1") or opened.extension in (".parquet", ".pq"):
        return _parquet_rows(opened, kind)
    data = opened.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(
            f"not UTF-8 text: {error.reason} at byte {error.start}", source=opened.source
        ) from None
    first = first_content_line(data[:4096])
    if opened.extension in (".jsonl", ".json", ".ndjson") or first.startswith("{"):
        return _jsonl_rows(text, kind, opened.source)
    separator = "\t" if opened.extension == ".tsv" or "\t" in first else ","
    return _delimited_rows(text, kind, opened.source, separator)


def _read(
    path: str | os.PathLike[str], kind: TextKind, ids: Collection[str] | None
) -> dict[str, str]:
    opened = open_input(path)
    what = _WHAT[kind]
    texts: dict[str, str] = {}
    lines: dict[str, int] = {}
    unit = "row" if opened.head().startswith(b"PAR1") else "line"
    for number, raw_id, text, title, line in _rows(opened, kind):
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
            raise ParseError(
                f"expected a {what} id (a non-empty string or an integer); found {raw_id!r}",
                source=opened.source,
                line=number,
                text=line,
            )
        if not isinstance(text, str) or not (title is None or isinstance(title, str)):
            raise ParseError(
                f"expected the text of {what} {raw_id!r} to be a string; found {text!r:.80}",
                source=opened.source,
                line=number,
                text=line,
            )
        key = str(raw_id).strip()
        if key in lines:
            raise InputError(
                f"{what} id {key!r} appears twice (first at {unit} {lines[key]}); ids must be "
                "unique",
                source=opened.source,
                line=number,
            )
        lines[key] = number
        if ids is None or key in ids:
            texts[key] = f"{title} {text}".strip() if title else text
    if not lines:
        raise EmptyInputError(f"no {what} found: the file holds none", source=opened.source)
    return texts


def read_corpus(path: str | os.PathLike[str], ids: Collection[str] | None = None) -> dict[str, str]:
    """The documents of a corpus file: ``{doc_id: text}``.

    Parameters
    ----------
    path
        JSONL (``_id``/``doc_id``/``docno``/``id`` and ``text``/``contents``/``passage``, an
        optional ``title`` put before the text, as BEIR's ``corpus.jsonl``), TSV ``id<TAB>text``
        without a header (MS MARCO's ``collection.tsv``) or with one, CSV with a header, or
        Parquet (WeKnora's ``corpus.parquet``); compressed or not.
    ids
        Keep only these documents (the whole file is still checked); None keeps every one.

    Raises
    ------
    ParseError
        For a malformed line, naming the file and the line: invalid JSON, a missing key, a
        wrong number of fields, an id that is not a string or an integer.
    InputError
        For an id given twice, or no id or text column.
    EmptyInputError
        When the file holds no document.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "corpus.jsonl"
    >>> _ = path.write_text('{"_id": "d1", "title": "BM25", "text": "a ranking function"}\\n'
    ...                     '{"_id": 2, "text": "dense retrieval"}\\n')
    >>> read_corpus(path)
    {'d1': 'BM25 a ranking function', '2': 'dense retrieval'}
    >>> _ = path.with_suffix(".tsv").write_text("d1\\tfirst passage\\nd2\\tsecond\\nd1\\tagain\\n")
    >>> read_corpus(path.with_suffix(".tsv"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: ...tsv:3: document id 'd1' appears twice (first at line 1); ...
    """
    return _read(path, "corpus", ids)


def read_queries(
    path: str | os.PathLike[str], ids: Collection[str] | None = None
) -> dict[str, str]:
    """The queries of a topics file: ``{query_id: text}``.

    Parameters
    ----------
    path
        JSONL (``_id``/``query_id``/``qid``/``id`` and ``text``/``query``/``question``, as
        BEIR's ``queries.jsonl``), TSV ``id<TAB>text`` without a header (MS MARCO's
        ``queries.tsv``) or with one, CSV with a header, or Parquet (WeKnora's
        ``queries.parquet``); compressed or not.
    ids
        Keep only these queries; None keeps every one.

    Raises
    ------
    ParseError, InputError, EmptyInputError
        As `read_corpus` does.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "queries.tsv"
    >>> _ = path.write_text("q1\\twhat is bm25\\nq2\\twho wrote trec_eval\\n")
    >>> read_queries(path, ids={"q2"})
    {'q2': 'who wrote trec_eval'}
    """
    return _read(path, "queries", ids)
