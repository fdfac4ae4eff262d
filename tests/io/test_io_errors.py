"""Malformed input: every kind gets its exact message (file, line, the line); lenient skips."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rankscope.errors import EmptyInputError, InputError, ParseError, RankscopeWarning
from rankscope.io import read_qrels, read_run

RUN_FIELDS = "(query_id Q0 doc_id rank score run_tag)"
QRELS_FIELDS = "(query_id iteration doc_id relevance)"

# (id, kind, file name, content, read options, exception, message; {path} is the file)
CASES: list[tuple[str, str, str, bytes, dict[str, Any], type[Exception], str]] = [
    (
        "run-too-few-fields",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5\n",
        {},
        ParseError,
        f"{{path}}:2: expected at least 6 whitespace-separated fields {RUN_FIELDS}; found 5"
        "\n    q1 Q0 d2 2 1.5",
    ),
    (
        "qrels-too-many-fields",
        "qrels",
        "qrels.txt",
        b"q1 0 d1 1\nq1 0 d2 1 x\n",
        {},
        ParseError,
        f"{{path}}:2: expected 4 whitespace-separated fields {QRELS_FIELDS}; found 5"
        "\n    q1 0 d2 1 x",
    ),
    (
        "qrels-too-few-fields",
        "qrels",
        "qrels.txt",
        b"q1\t0\td1\n",
        {},
        ParseError,
        f"{{path}}:1: expected 4 whitespace-separated fields {QRELS_FIELDS}; found 3"
        "\n    q1\t0\td1",
    ),
    (
        "non-numeric-score",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 high bm25\n",
        {},
        ParseError,
        "{path}:1: score must be a finite number; found 'high'\n    q1 Q0 d1 1 high bm25",
    ),
    (
        "nan-score",
        "run",
        "run.txt",
        b"q1\tQ0\td1\t1\t2.0\tbm25\nq1\tQ0\td2\t2\tNaN\tbm25\n",
        {},
        ParseError,
        "{path}:2: score must be a finite number; found 'NaN'\n    q1\tQ0\td2\t2\tNaN\tbm25",
    ),
    (
        "inf-score",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 -inf bm25\n",
        {},
        ParseError,
        "{path}:1: score must be a finite number; found '-inf'\n    q1 Q0 d1 1 -inf bm25",
    ),
    (
        "overflowing-score",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 1e400 bm25\n",
        {},
        ParseError,
        "{path}:1: score must be a finite number; found '1e400'\n    q1 Q0 d1 1 1e400 bm25",
    ),
    (
        "fractional-grade",
        "qrels",
        "qrels.txt",
        b"q1 0 d1 1.5\n",
        {},
        ParseError,
        "{path}:1: relevance must be an integer grade; found '1.5'\n    q1 0 d1 1.5",
    ),
    (
        "non-numeric-grade-after-comment",
        "qrels",
        "qrels.txt",
        b"# header\n\nq1 0 d1 relevant\n",
        {},
        ParseError,
        "{path}:3: relevance must be an integer grade; found 'relevant'\n    q1 0 d1 relevant",
    ),
    (
        "empty-file",
        "run",
        "run.txt",
        b"",
        {},
        EmptyInputError,
        f"{{path}}: file is empty; expected TREC run lines {RUN_FIELDS}",
    ),
    (
        "comments-only",
        "qrels",
        "qrels.txt",
        b"# only a comment\n\n   \n",
        {},
        EmptyInputError,
        f"{{path}}: file holds only comments and blank lines; expected TREC qrels lines "
        f"{QRELS_FIELDS}",
    ),
    (
        "unknown-format",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 2.5 bm25\n",
        {"format": "xml"},
        InputError,
        "unknown format 'xml'; known formats: trec, jsonl, csv, tsv, parquet "
        "(aliases: beir = tsv, ndjson = jsonl, json = jsonl, pq = parquet)",
    ),
    (
        "bad-json-line",
        "run",
        "run.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "score": 1}\n{"query_id": "q1", "doc_id": "d2" '
        b'"score": 2}\n',
        {},
        ParseError,
        "{path}:2: not valid JSON: Expecting ',' delimiter (column 35)"
        '\n    {"query_id": "q1", "doc_id": "d2" "score": 2}',
    ),
    (
        "jsonl-missing-key",
        "run",
        "run.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "score": 1}\n{"query_id": "q1", "score": 2}\n',
        {},
        ParseError,
        '{path}:2: key \'doc_id\' is missing or null\n    {"query_id": "q1", "score": 2}',
    ),
    (
        "jsonl-not-an-object",
        "qrels",
        "qrels.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n[1, 2]\n',
        {},
        ParseError,
        "{path}:2: expected a JSON object; found an array\n    [1, 2]",
    ),
    (
        "jsonl-nan-score",
        "run",
        "run.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "score": NaN}\n',
        {},
        ParseError,
        '{path}:1: score must be a finite number; found nan\n    {"query_id": "q1", '
        '"doc_id": "d1", "score": NaN}',
    ),
    (
        "jsonl-integer-score-beyond-a-float",
        "run",
        "run.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "score": 1' + b"0" * 400 + b"}\n",
        {},
        ParseError,
        "{path}:1: score must be a finite number; found 1" + "0" * 36 + "...\n    "
        '{"query_id": "q1", "doc_id": "d1", "score": 1' + "0" * 155 + "...",
    ),
    (
        "jsonl-integer-grade-beyond-a-float",
        "qrels",
        "qrels.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "relevance": 1' + b"0" * 400 + b"}\n",
        {},
        ParseError,
        "{path}:1: relevance must be an integer grade; found 1" + "0" * 36 + "...\n    "
        '{"query_id": "q1", "doc_id": "d1", "relevance": 1' + "0" * 151 + "...",
    ),
    (
        "jsonl-fractional-grade",
        "qrels",
        "qrels.jsonl",
        b'{"query_id": "q1", "doc_id": "d1", "relevance": 0.5}\n',
        {},
        ParseError,
        '{path}:1: relevance must be an integer grade; found 0.5\n    {"query_id": "q1", '
        '"doc_id": "d1", "relevance": 0.5}',
    ),
    (
        "jsonl-null-in-list",
        "qrels",
        "qrels.jsonl",
        b'{"query_id": "q1", "relevant_doc_ids": ["d1", null]}\n',
        {},
        ParseError,
        "{path}:1: 'relevant_doc_ids' must be an array of document ids; found null in it"
        '\n    {"query_id": "q1", "relevant_doc_ids": ["d1", null]}',
    ),
    (
        "jsonl-results-bad-score",
        "run",
        "run.jsonl",
        b'{"query_id": "q1", "results": [{"doc_id": "d1", "score": "high"}]}\n',
        {},
        ParseError,
        "{path}:1: in 'results': score must be a finite number; found 'high'"
        '\n    {"query_id": "q1", "results": [{"doc_id": "d1", "score": "high"}]}',
    ),
    (
        "csv-missing-column",
        "run",
        "run.csv",
        b"qid,docno,sim\nq1,d1,1.0\n",
        {},
        InputError,
        "{path}: no column for score: expected one named 'score' (or name it with score=...); "
        "found 'qid', 'docno', 'sim'",
    ),
    (
        "csv-mapped-column-missing",
        "run",
        "run.csv",
        b"qid,docno,sim\nq1,d1,1.0\n",
        {"score": "similarity"},
        InputError,
        "{path}: no column 'similarity' (given as score='similarity'); found 'qid', 'docno', 'sim'",
    ),
    (
        "csv-empty-value",
        "qrels",
        "qrels.csv",
        b"query_id,doc_id,relevance\nq1,d1,1\nq1,,0\n",
        {},
        ParseError,
        "{path}:3: column 'doc_id' is empty; expected a value\n    q1,,0",
    ),
    (
        "csv-bad-score-after-quoted-newline",
        "run",
        "run.csv",
        b'query_id,doc_id,score\nq1,"d\n1",1\nq1,d2,x\n',
        {},
        ParseError,
        "{path}:4: score must be a finite number; found 'x'\n    q1,d2,x",
    ),
    (
        "tsv-too-many-fields",
        "qrels",
        "qrels.tsv",
        b"query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t1\t7\n",
        {},
        ParseError,
        "{path}:3: expected 3 fields, as in the header; found 4\n    q1\td2\t1\t7",
    ),
    (
        "csv-header-only",
        "run",
        "run.csv",
        b"query_id,doc_id,score\n",
        {},
        EmptyInputError,
        "{path}: file holds a header and no data rows; expected a header row and data rows",
    ),
    (
        "invalid-utf8",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\xe9 2 1.5 bm25\n",
        {},
        ParseError,
        "{path}:2: line is not valid UTF-8 (byte 8 of the line)\n    q1 Q0 d\ufffd 2 1.5 bm25",
    ),
    (
        "nul-byte",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d\x002 2 1.5 bm25\n",
        {},
        ParseError,
        "{path}:2: line holds a NUL byte; expected text (is this a binary file?)"
        "\n    q1 Q0 d\\x002 2 1.5 bm25",
    ),
    (
        "not-gzip",
        "run",
        "run.txt.gz",
        b"q1 Q0 d1 1 2.5 bm25\n",
        {},
        InputError,
        "{path}: cannot decompress the file as gzip: Not a gzipped file (b'q1')",
    ),
    (
        "mapping-on-trec",
        "run",
        "run.txt",
        b"q1 Q0 d1 1 2.5 bm25\n",
        {"score": "s"},
        InputError,
        "{path}: a column mapping (score='s') applies to CSV, TSV, JSONL and Parquet files; "
        "TREC files have fixed fields (pass format= if the format was detected wrongly)",
    ),
]


def _read(kind: str, path: Path, options: dict[str, Any]) -> Any:
    return read_qrels(path, **options) if kind == "qrels" else read_run(path, **options)


@pytest.mark.parametrize(
    ("kind", "name", "content", "options", "error", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_malformed_input_gets_its_exact_message(
    tmp_path: Path,
    kind: str,
    name: str,
    content: bytes,
    options: dict[str, Any],
    error: type[Exception],
    message: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(error) as raised:
        _read(kind, path, options)
    assert type(raised.value) is error
    assert str(raised.value) == message.replace("{path}", str(path))


@pytest.mark.parametrize(
    ("kind", "frame", "message"),
    [
        (
            "run",
            pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, None]}),
            "{path}: column 'score' holds a null; expected a value (row 2)",
        ),
        (
            "run",
            pl.DataFrame(
                {"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1.0, float("inf")]}
            ),
            "{path}: score must be a finite number; found inf (row 2)",
        ),
        (
            "qrels",
            pl.DataFrame({"query_id": [1.0], "doc_id": ["d2"], "relevance": [1]}),
            "{path}: column 'query_id' must hold strings or integers; found floats (row 1)",
        ),
        (
            "qrels",
            pl.DataFrame({"qid": ["q1"], "pid": ["d2"], "score": [0.5]}),
            "{path}: relevance must be an integer grade; found 0.5 (row 1)",
        ),
    ],
)
def test_parquet_problems_name_the_row(
    tmp_path: Path, kind: str, frame: pl.DataFrame, message: str
) -> None:
    path = tmp_path / "table.parquet"
    frame.write_parquet(path)
    with pytest.raises(ParseError) as raised:
        _read(kind, path, {})
    assert str(raised.value) == message.replace("{path}", str(path))


def test_not_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    path.write_bytes(b"q1 Q0 d1 1 2.5 bm25\n")
    with pytest.raises(ParseError, match=r"run\.parquet: cannot read the file as Parquet: "):
        read_run(path)


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        read_run(tmp_path / "nothing.txt")
    assert str(raised.value) == f"{tmp_path / 'nothing.txt'}: no such file"


def test_unknown_mapping_key_is_a_type_error(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("a,b,c\n")
    with pytest.raises(TypeError, match="unexpected keyword argument 'relevance'"):
        read_run(path, relevance="c")


# Lenient mode: every malformed line is skipped and counted in one warning.


def _lenient(kind: str, path: Path) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = _read(kind, path, {"lenient": True})
    return table, [str(w.message) for w in caught if issubclass(w.category, RankscopeWarning)]


def test_lenient_trec_run_skips_and_counts(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(
        b"q1 Q0 d1 1 2.5 bm25\n"
        b"q1 Q0 d2 2 nan bm25\n"
        b"q1 Q0 d3 3\n"
        b"q1 Q0 d\xff 4 1.0 bm25\n"
        b"q2 Q0 d5 1 0.5 bm25\n"
    )
    run, messages = _lenient("run", path)
    assert run.frame.rows() == [("q1", "d1", 2.5), ("q2", "d5", 0.5)]
    assert messages == [
        f"skipped 3 malformed lines in {path}; first at line 2: score must be a finite number; "
        "found 'nan'"
    ]


def test_lenient_qrels_single_skip_is_singular(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 x\n")
    qrels, messages = _lenient("qrels", path)
    assert qrels.frame.rows() == [("q1", "d1", 1)]
    assert messages == [
        f"skipped 1 malformed line in {path}; first at line 2: relevance must be an integer "
        "grade; found 'x'"
    ]


def test_lenient_jsonl_skips_invalid_json_and_missing_keys(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"query_id": "q1", "doc_id": "d1", "score": 1}\n'
        "not json\n"
        '{"query_id": "q1", "score": 2}\n'
        '{"query_id": "q1", "doc_id": "d3", "score": 3}\n'
    )
    run, messages = _lenient("run", path)
    assert run.frame.rows() == [("q1", "d1", 1.0), ("q1", "d3", 3.0)]
    assert messages == [
        f"skipped 2 malformed lines in {path}; first at line 2: not valid JSON: Expecting value "
        "(column 1)"
    ]


def test_lenient_csv_skips_ragged_and_empty_rows(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("qid,docno,score\nq1,d1,1.5\nq1,d2,1,5\nq1,d3,\nq1,d4,0.5\n")
    run, messages = _lenient("run", path)
    assert run.frame.rows() == [("q1", "d1", 1.5), ("q1", "d4", 0.5)]
    assert messages == [
        f"skipped 2 malformed lines in {path}; first at line 3: expected 3 fields, as in the "
        "header; found 4"
    ]


def test_lenient_parquet_counts_rows(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame(
        {"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", "d2", "d3"], "score": [1.0, None, 2.0]}
    ).write_parquet(path)
    run, messages = _lenient("run", path)
    assert run.frame.rows() == [("q1", "d1", 1.0), ("q1", "d3", 2.0)]
    assert messages == [
        f"skipped 1 malformed row in {path}; first at row 2: column 'score' holds a null; "
        "expected a value"
    ]


def test_lenient_with_nothing_left_is_empty_input(tmp_path: Path) -> None:
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1\nq1 Q0 d2 2 inf bm25\n"))
    with pytest.raises(EmptyInputError) as raised:
        _lenient("run", path)
    assert str(raised.value) == (
        f"{path}: no valid data: 2 malformed lines skipped and nothing else found; first at "
        f"line 1: expected at least 6 whitespace-separated fields {RUN_FIELDS}; found 3"
    )


def test_lenient_clean_file_warns_nothing(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 bm25\n")
    run, messages = _lenient("run", path)
    assert len(run) == 1
    assert messages == []


def test_lenient_jsonl_counts_bad_first_lines_once(tmp_path: Path) -> None:
    path = tmp_path / "qrels.jsonl"
    path.write_text('oops\n[1]\n{"query_id": "q1", "doc_id": "d1", "relevance": 1}\n{"x": 1}\n')
    qrels, messages = _lenient("qrels", path)
    assert qrels.frame.rows() == [("q1", "d1", 1)]
    assert messages == [
        f"skipped 3 malformed lines in {path}; first at line 1: not valid JSON: Expecting value "
        "(column 1)"
    ]
