"""Reading answers and reference answers: dicts, JSONL, CSV/TSV, Parquet, WeKnora's layout.

Every source becomes ``{question_id: [text, ...]}``; ids are strings (integers are written
plainly, so WeKnora's integer ids meet string ids elsewhere).

=================  ===========================================================================
source             what it holds
=================  ===========================================================================
dict               ``{question_id: text}``; reference answers may be a list of texts
JSONL              one object per line with an id key (``query_id``, ``qid``, ``id``, ``_id``)
                   and a text key (``answer``, ``text``, ``reference``; ``answers`` or
                   ``references`` for a list of reference texts; ``contexts`` or
                   ``passages`` for the passages an answer was written from)
CSV, TSV           a header naming an id column and a text column (the same names); fields
                   may be quoted and span lines
Parquet            the same columns
WeKnora directory  ``answers.parquet`` (id, text) and ``qas.parquet`` (qid, aid): the
                   reference answers of WeKnora's evaluation datasets
=================  ===========================================================================

A question repeated in a references file gains one more reference; in an answers file it is an
error.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from rankscope.errors import EmptyInputError, InputError, ParseError
from rankscope.io._files import open_input

__all__ = ["ID_KEYS", "TEXT_KEYS", "Texts", "read_texts"]

Texts = dict[str, list[str]]

ID_KEYS = ("query_id", "qid", "id", "_id", "question_id")
TEXT_KEYS = ("answer", "text", "reference", "answers", "references", "contexts", "passages")

PathLike = str | os.PathLike[str]
Row = tuple[int | None, Any, Any]  # (line or row number, id, text or texts)


def _key(names: Iterable[str], wanted: tuple[str, ...], what: str, source: str) -> str:
    present = list(names)
    for name in wanted:
        if name in present:
            return name
    lowered = {name.lower(): name for name in present}
    for name in wanted:
        if name in lowered:
            return lowered[name]
    raise InputError(
        f"no {what} column: expected one of {', '.join(wanted)}; found {', '.join(present)}",
        source=source,
    )


def _id_text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _wrong_argument(value: Any, several: bool) -> str:
    """What a value that is no text suggests about the arguments: several texts where one
    answer was expected are references (given in the wrong order); a mapping of documents is
    qrels or a run."""
    if isinstance(value, list) and value and all(isinstance(text, str) for text in value):
        return (
            "; several texts are what references hold: were the references and the answers "
            "given in the wrong order? The references come first: "
            "evaluate_answers(references, answers)"
        )
    if isinstance(value, Mapping):
        return "; documents with grades or scores are qrels or a run: use rankscope.evaluate"
    return ""


def _collect(rows: Iterable[Row], source: str, several: bool, what: str) -> Texts:
    """Check each row and gather texts by id; ``several``: repeated ids add references."""
    texts: Texts = {}
    first_line: dict[str, int | None] = {}
    for line, raw_id, value in rows:
        question = _id_text(raw_id)
        if question is None:
            raise ParseError(
                f"expected a question id (a string or an integer); got {raw_id!r}",
                source=source,
                line=line,
            )
        values = value if several and isinstance(value, list) else [value]
        if not all(isinstance(text, str) for text in values) or not values:
            expected = "a text or a list of texts" if several else "a text"
            raise ParseError(
                f"expected {expected} for question {question!r}; got {value!r}"
                + _wrong_argument(value, several),
                source=source,
                line=line,
            )
        if question in texts and not several:
            seen = first_line[question]
            also = f" (first at line {seen})" if seen is not None else ""
            raise InputError(
                f"question {question!r} has a second answer{also}", source=source, line=line
            )
        texts.setdefault(question, []).extend(values)
        first_line.setdefault(question, line)
    if not texts:
        raise EmptyInputError(f"no {what} found", source=source)
    return texts


def _jsonl_rows(data: str, source: str) -> Iterator[Row]:
    keys: tuple[str, str] | None = None
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ParseError(
                f"not valid JSON: {error.msg}", source=source, line=number, text=line
            ) from None
        if not isinstance(record, dict):
            raise ParseError("expected a JSON object", source=source, line=number, text=line)
        if keys is None:
            keys = (
                _key(record, ID_KEYS, "question id", f"{source}:{number}"),
                _key(record, TEXT_KEYS, "answer text", f"{source}:{number}"),
            )
        missing = [key for key in keys if key not in record]
        if missing:
            raise ParseError(
                f"key {missing[0]!r} is missing", source=source, line=number, text=line
            )
        yield number, record[keys[0]], record[keys[1]]


def _delimited_rows(data: str, source: str, separator: str) -> Iterator[Row]:
    reader = csv.reader(io.StringIO(data, newline=""), delimiter=separator)
    header = next(reader, None)
    if header is None:
        return
    id_column = header.index(_key(header, ID_KEYS, "question id", f"{source}:1"))
    text_column = header.index(_key(header, TEXT_KEYS, "answer text", f"{source}:1"))
    for fields in reader:
        if not any(field.strip() for field in fields):
            continue
        if len(fields) != len(header):
            raise ParseError(
                f"expected {len(header)} fields as in the header; found {len(fields)}",
                source=source,
                line=reader.line_num,
                text=separator.join(fields),
            )
        yield reader.line_num, fields[id_column], fields[text_column]


def _frame_rows(frame: pl.DataFrame, source: str) -> Iterator[Row]:
    id_column = _key(frame.columns, ID_KEYS, "question id", source)
    text_column = _key(frame.columns, TEXT_KEYS, "answer text", source)
    for number, (raw_id, text) in enumerate(
        frame.select(id_column, text_column).iter_rows(), start=1
    ):
        yield number, raw_id, text


def _weknora(folder: Path) -> Texts:
    """WeKnora's reference answers: ``qas.parquet`` maps questions to ``answers.parquet`` ids."""
    answers_file, qas_file = folder / "answers.parquet", folder / "qas.parquet"
    for file in (answers_file, qas_file):
        if not file.is_file():
            raise InputError(
                "expected a WeKnora dataset directory with answers.parquet and qas.parquet; "
                f"{file.name} is missing",
                source=str(folder),
            )
    answers = _collect(
        _frame_rows(pl.read_parquet(answers_file), str(answers_file)),
        str(answers_file),
        False,
        "answers",
    )
    qas = pl.read_parquet(qas_file)
    question_column = _key(qas.columns, ("qid", "query_id"), "question id", str(qas_file))
    answer_column = _key(qas.columns, ("aid", "answer_id"), "answer id", str(qas_file))
    rows: list[Row] = []
    for number, (question, answer_id) in enumerate(
        qas.select(question_column, answer_column).iter_rows(), start=1
    ):
        key = _id_text(answer_id)
        if key not in answers:
            raise InputError(
                f"row {number}: answer id {answer_id!r} of question {question!r} is not in "
                "answers.parquet",
                source=str(qas_file),
            )
        rows.append((None, question, answers[key]))
    return _collect(rows, str(qas_file), True, "questions")


def _from_file(path: PathLike, several: bool, what: str) -> tuple[Texts, str]:
    folder = Path(path)
    if folder.is_dir():
        return _weknora(folder), folder.name
    opened = open_input(path)
    data = opened.read_bytes()
    if data[:4] == b"PAR1" or opened.extension in (".parquet", ".pq"):
        rows: Iterable[Row] = _frame_rows(pl.read_parquet(io.BytesIO(data)), opened.source)
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ParseError(
                f"not UTF-8 text: {error.reason} at byte {error.start}", source=opened.source
            ) from None
        if not text.strip():
            raise EmptyInputError(f"no {what} found: the file is empty", source=opened.source)
        if opened.extension in (".csv", ".tsv") or not text.lstrip().startswith("{"):
            separator = (
                "\t" if opened.extension == ".tsv" or "\t" in text.partition("\n")[0] else ","
            )
            rows = _delimited_rows(text, opened.source, separator)
        else:
            rows = _jsonl_rows(text, opened.source)
    return _collect(rows, opened.source, several, what), opened.stem


def read_texts(
    source: Mapping[Any, Any] | PathLike, *, several: bool, what: str
) -> tuple[Texts, str]:
    """The texts of ``source`` by question id, and a name for it (the file's stem).

    Parameters
    ----------
    several
        Whether a question may have several texts (reference answers).
    what
        ``"references"`` or ``"answers"``, for messages.

    Examples
    --------
    >>> read_texts({1: "Paris", "q2": ["Rome", "Roma"]}, several=True, what="references")
    ({'1': ['Paris'], 'q2': ['Rome', 'Roma']}, 'references')
    """
    if isinstance(source, Mapping):
        rows = ((None, key, value) for key, value in source.items())
        return _collect(rows, f"the {what} dict", several, what), what
    if isinstance(source, str | os.PathLike):
        return _from_file(source, several, what)
    raise InputError(
        f"{what} must be a dict {{question_id: text}} or a file path; got {type(source).__name__}"
    )
