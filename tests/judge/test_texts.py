"""`rankscope.io.read_corpus` and `read_queries`, which a to-judge file takes its texts from:
every layout they document, and a clear error for each kind of bad line."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

from rankscope.errors import EmptyInputError, InputError, ParseError
from rankscope.io import read_corpus, read_queries

WEKNORA = Path(__file__).resolve().parents[2] / "examples" / "weknora_samples"


def test_beir_jsonl_puts_the_title_before_the_text(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        '{"_id": "d1", "title": "BM25", "text": "a ranking function", "metadata": {}}\n'
        "\n"
        '{"_id": 7, "title": "", "text": "untitled"}\n'
    )
    assert read_corpus(path) == {"d1": "BM25 a ranking function", "7": "untitled"}


def test_ms_marco_tsv_without_a_header_keeps_quotes(tmp_path: Path) -> None:
    path = tmp_path / "collection.tsv"
    path.write_text('0\tThe "presence" of communication\n1\tsecond passage\n')
    assert read_corpus(path) == {"0": 'The "presence" of communication', "1": "second passage"}
    queries = tmp_path / "queries.dev.tsv"
    queries.write_text("1048585\twhat is paula deen's brother\n")
    assert read_queries(queries) == {"1048585": "what is paula deen's brother"}


def test_a_header_names_the_columns_in_tsv_and_csv(tmp_path: Path) -> None:
    tsv = tmp_path / "corpus.tsv"
    tsv.write_text("docno\ttitle\ttext\nd1\tA title\tthe body\n")
    assert read_corpus(tsv) == {"d1": "A title the body"}
    quoted = tmp_path / "queries.csv"
    quoted.write_text('query,qid\n"bm25, explained",q1\n"spans\ntwo lines",q2\n')
    assert read_queries(quoted) == {"q1": "bm25, explained", "q2": "spans\ntwo lines"}


def test_weknoras_parquet_files() -> None:
    corpus = read_corpus(WEKNORA / "corpus.parquet")
    frame = pl.read_parquet(WEKNORA / "corpus.parquet")
    assert len(corpus) == frame.height
    first_id, first_text = frame.row(0)[:2]
    assert corpus[str(first_id)] == first_text
    queries = read_queries(WEKNORA / "queries.parquet")
    assert len(queries) == pl.read_parquet(WEKNORA / "queries.parquet").height


def test_compressed_files_and_a_filter_of_ids(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl.gz"
    path.write_bytes(
        gzip.compress(b'{"query_id": "q1", "query": "one"}\n{"query_id": "q2", "query": "two"}\n')
    )
    assert read_queries(path, ids={"q2", "q9"}) == {"q2": "two"}


@pytest.mark.parametrize(
    ("name", "content", "error", "message"),
    [
        (
            "c.jsonl",
            '{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": \n',
            ParseError,
            r"c\.jsonl:2: expected a JSON object",
        ),
        (
            "c.jsonl",
            '{"_id": "d1", "text": "x"}\n{"_id": "d2"}\n',
            ParseError,
            r"c\.jsonl:2: key 'text' is missing",
        ),
        (
            "c.jsonl",
            '{"_id": "d1", "text": 3}\n',
            ParseError,
            r"c\.jsonl:1: expected the text of document 'd1' to be a string",
        ),
        (
            "c.jsonl",
            '{"name": "d1", "text": "x"}\n',
            InputError,
            r"c\.jsonl:1: no document id column: expected one of _id, doc_id",
        ),
        (
            "c.tsv",
            "d1\tfine\nd2\ttoo\tmany\n",
            ParseError,
            r"c\.tsv:2: expected 'id<TAB>text'; found 3 fields",
        ),
        (
            "c.tsv",
            "d1\tfirst\nd2\tsecond\nd1\tagain\n",
            InputError,
            r"c\.tsv:3: document id 'd1' appears twice \(first at line 1\)",
        ),
        ("c.tsv", "\n\n", EmptyInputError, r"c\.tsv: no document found"),
    ],
)
def test_bad_files_are_errors_naming_file_and_line(
    tmp_path: Path, name: str, content: str, error: type, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(error, match=message):
        read_corpus(path)


def test_a_query_id_that_is_not_a_string_or_an_integer(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"_id": 1.5, "text": "x"}\n')
    with pytest.raises(ParseError, match=r"q\.jsonl:1: expected a query id"):
        read_queries(path)
