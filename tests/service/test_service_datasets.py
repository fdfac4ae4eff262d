"""Datasets: WeKnora's Parquet layout, BEIR, files; every bad dataset refused with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from service_helpers import make_beir

from rankscope.errors import DuplicateDocumentError, InputError, ParseError
from rankscope.service import Dataset, load_dataset


def test_weknora_sample_reads_with_ids_normalised(weknora_samples_dir: Path) -> None:
    data = load_dataset(weknora_samples_dir)
    assert data.layout == "weknora"
    assert data.queries == (("1", "计算机的操作系统有哪些"),)
    assert sorted(data.qrels.frame.rows()) == [("1", d, 1) for d in ("1", "2", "3", "4")]
    assert [doc_id for doc_id, _ in data.corpus()] == ["1", "2", "3", "4"]
    assert data.unjudged_queries == 0


def _weknora(
    tmp_path: Path, query_ids: list, qrels_qids: list, corpus_ids: list, pids: list
) -> Path:
    directory = tmp_path / "weknora"
    directory.mkdir()
    pl.DataFrame(
        {"id": query_ids, "text": [f"question {i}" for i in range(len(query_ids))]}
    ).write_parquet(directory / "queries.parquet")
    pl.DataFrame(
        {"id": corpus_ids, "text": [f"passage {i}" for i in range(len(corpus_ids))]}
    ).write_parquet(directory / "corpus.parquet")
    pl.DataFrame({"qid": qrels_qids, "pid": pids, "score": [1] * len(pids)}).write_parquet(
        directory / "qrels.parquet"
    )
    return directory


def test_weknora_ids_compare_as_integers_across_files(tmp_path: Path) -> None:
    # Integers in one file, zero-padded strings in another: WeKnora reads both as int64.
    directory = _weknora(tmp_path, [7, 8], ["007", "08"], ["01", "2"], [1, 2])
    data = load_dataset(directory)
    assert [q for q, _ in data.queries] == ["7", "8"]
    assert sorted(data.qrels.frame.rows()) == [("7", "1", 1), ("8", "2", 1)]
    assert [d for d, _ in data.corpus()] == ["1", "2"]


def test_beir_reads_the_test_split_and_counts_unjudged_queries(tmp_path: Path) -> None:
    directory = make_beir(tmp_path / "b", n_queries=5, extra_queries=3)
    data = load_dataset(directory)
    assert data.layout == "beir" and data.location["split"] == "test"
    assert [q for q, _ in data.queries] == [f"q{i}" for i in range(5)]
    assert data.unjudged_queries == 3
    assert len(data.corpus()) == 60


def test_files_layout_with_trec_qrels(tmp_path: Path) -> None:
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"id": 1, "text": "one"}\n{"id": "2", "text": "two"}\n')
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 2\n2 0 d3 0\n")
    data = load_dataset(queries=queries, qrels=qrels)
    assert data.queries == (("1", "one"), ("2", "two"))
    assert sorted(data.qrels.frame.rows()) == [("1", "d1", 1), ("2", "d2", 2), ("2", "d3", 0)]
    assert not data.has_corpus


def test_fingerprint_follows_the_content(tmp_path: Path) -> None:
    one = Dataset.from_records({"q": "a"}, {"q": {"d": 1}})
    same = Dataset.from_records({"q": "a"}, {"q": {"d": 1}})
    other = Dataset.from_records({"q": "a"}, {"q": {"d": 2}})
    assert one.fingerprint() == same.fingerprint() != other.fingerprint()


def _beir_with(tmp_path: Path, change: str) -> Path:
    directory = make_beir(tmp_path / "bad", n_queries=4, extra_queries=0)
    queries = directory / "queries.jsonl"
    lines = queries.read_text().splitlines()
    if change == "duplicate query":
        lines.append(lines[1])
    elif change == "empty text":
        lines[2] = json.dumps({"_id": "q2", "text": "  "})
    elif change == "bad json":
        lines[1] = '{"_id": "q1", "text": '
    elif change == "judged query without text":
        lines = lines[1:]
    elif change == "missing corpus":
        (directory / "corpus.jsonl").unlink()
    elif change == "duplicate judgement":
        with (directory / "qrels" / "test.tsv").open("a") as out:
            first = (directory / "qrels" / "test.tsv").read_text().splitlines()[1]
            out.write(first + "\n")
    elif change == "bad grade":
        with (directory / "qrels" / "test.tsv").open("a") as out:
            out.write("q0\td5\thigh\n")
    queries.write_text("\n".join(lines) + "\n")
    return directory


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (
            "duplicate query",
            InputError,
            r"queries.jsonl:5: query id 'q1' appears twice \(first at line 2\)",
        ),
        ("empty text", InputError, r"queries.jsonl:3: query 'q2' has no text"),
        ("bad json", ParseError, r"queries.jsonl:2: expected a JSON object"),
        ("judged query without text", InputError, r"1 judged queries have no text .*'q0'"),
        ("missing corpus", InputError, r"missing file corpus.jsonl"),
        ("duplicate judgement", DuplicateDocumentError, r"is judged twice for query 'q0'"),
        (
            "bad grade",
            ParseError,
            r"test.tsv:\d+: relevance must be an integer grade; found 'high'",
        ),
    ],
)
def test_bad_beir_datasets_are_refused(
    tmp_path: Path, change: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        load_dataset(_beir_with(tmp_path, change))


def test_unknown_split_names_the_splits(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no qrels for split 'dev'; found splits \['test'\]"):
        load_dataset(make_beir(tmp_path / "b"), split="dev")


def test_judged_document_missing_from_corpus(tmp_path: Path) -> None:
    directory = _weknora(tmp_path, [1], [1, 1], [1, 2], [1, 3])
    data = load_dataset(directory)
    with pytest.raises(InputError, match=r"1 judged documents are not in the corpus.*'3'"):
        data.corpus()


def test_not_a_dataset_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match=r"expected a WeKnora dataset .* in this directory") as e:
        load_dataset(tmp_path)
    assert "notes.txt" not in str(e.value)  # no directory listing in an error
    with pytest.raises(InputError, match="it does not exist"):
        load_dataset(tmp_path / "nowhere")
