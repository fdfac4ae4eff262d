"""Pools: equal to trectools' top-k pooling on generated runs, the trec_eval tie rule, the
judged pairs left out, and the to-judge files in every format."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankscope.errors import DuplicateDocumentError, InputError, OptionError
from rankscope.io import Run, read_qrels, write_run
from rankscope.judge import PLACEHOLDER_GRADE, pool, write_pool

trectools = pytest.importorskip("trectools")


def generated_runs(seed: int, count: int, queries: int, depth: int) -> list[Run]:
    """Runs over overlapping documents with distinct scores (trectools breaks ties otherwise)."""
    rng = random.Random(seed)
    runs = []
    for number in range(count):
        rankings: dict[str, dict[str, float]] = {}
        for query in range(queries):
            size = rng.randint(1, depth)
            docs = rng.sample([f"d{query}x{doc}" for doc in range(3 * depth)], size)
            scores = rng.sample(range(10_000), size)
            rankings[f"q{query}"] = {
                doc: score / 100 for doc, score in zip(docs, scores, strict=True)
            }
        runs.append(Run.from_dict(rankings, name=f"sys{number}"))
    return runs


def trectools_pool(runs: list[Run], depth: int, folder: Path) -> dict[str, set[str]]:
    paths = []
    for index, run in enumerate(runs):
        path = folder / f"run{index}.trec"
        write_run(run, path)
        paths.append(str(path))
    made = trectools.TrecPoolMaker().make_pool_from_files(paths, strategy="topX", topX=depth)
    return {str(query): {str(doc) for doc in docs} for query, docs in made.pool.items()}


def as_sets(pooled: dict[str, list[str]]) -> dict[str, set[str]]:
    return {query: set(docs) for query, docs in pooled.items()}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(1, 4),
    depth=st.integers(1, 12),
)
def test_pools_equal_trectools_top_k_pooling(
    tmp_path_factory: pytest.TempPathFactory, seed: int, count: int, depth: int
) -> None:
    runs = generated_runs(seed, count, queries=5, depth=15)
    expected = trectools_pool(runs, depth, tmp_path_factory.mktemp("runs"))
    assert as_sets(pool(runs, depth).to_dict()) == expected


def test_judged_pairs_are_left_out_as_trectools_pool_minus_the_qrels(tmp_path: Path) -> None:
    runs = generated_runs(7, 3, queries=6, depth=20)
    expected = trectools_pool(runs, 10, tmp_path)
    judged = {query: sorted(docs)[::2] for query, docs in expected.items()}
    qrels = {query: {doc: 1 for doc in docs} for query, docs in judged.items()}
    pooled = pool(runs, 10, qrels)
    remaining = {q: docs - set(judged[q]) for q, docs in expected.items()}
    assert as_sets(pooled.to_dict()) == {q: docs for q, docs in remaining.items() if docs}
    assert pooled.judged == sum(len(docs) for docs in judged.values())
    assert len(pooled) == sum(len(docs) for docs in remaining.values())


def test_ties_follow_trec_eval_document_id_descending_where_trectools_ascends(
    tmp_path: Path,
) -> None:
    run = Run.from_dict({"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "z": 0.5}}, name="tied")
    assert pool([run], 2).to_dict() == {"q1": ["b", "c"]}
    # trectools sorts equal scores by document id ascending: its pool of depth 2 is a, b.
    assert trectools_pool([run], 2, tmp_path) == {"q1": {"a", "b"}}


def test_the_pool_counts_runs_and_keeps_the_best_rank() -> None:
    first = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d9": 1.0}}
    second = {"q1": {"d3": 9.0, "d1": 8.0, "d7": 0.1}}
    pooled = pool([first, second], depth=2)
    assert pooled.frame.rows() == [
        ("q1", "d1", 2, 1),
        ("q1", "d2", 1, 2),
        ("q1", "d3", 1, 1),
        ("q2", "d9", 1, 1),
    ]
    assert pooled.query_ids == ["q1", "q2"]
    assert pooled.run_names == ("run", "run")


def test_a_pool_with_nothing_left_to_judge_writes_an_empty_file(tmp_path: Path) -> None:
    pooled = pool([{"q1": {"d1": 1.0}}], 5, {"q1": {"d1": 0}})
    assert (len(pooled), pooled.judged) == (0, 1)
    path = tmp_path / "to-judge.txt"
    write_pool(pooled, path)
    assert path.read_text() == ""


def test_trec_to_judge_file_has_the_placeholder_grade(tmp_path: Path) -> None:
    pooled = pool([{"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d5": 1.0}}], 1)
    path = tmp_path / "to-judge.qrels"
    write_pool(pooled, path)
    assert path.read_text() == "q1 0 d1 -1\nq2 0 d5 -1\n"
    assert read_qrels(path).to_dict() == {"q1": {"d1": PLACEHOLDER_GRADE}, "q2": {"d5": -1}}
    write_pool(pooled, path, placeholder=0)
    assert path.read_text() == "q1 0 d1 0\nq2 0 d5 0\n"


def test_jsonl_with_texts_from_files_reads_back_as_qrels_once_graded(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        '{"_id": "d1", "title": "BM25", "text": "a ranking function"}\n'
        '{"_id": "d2", "text": "unpooled"}\n'
        '{"_id": "d3", "text": "dense retrieval"}\n'
    )
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\twhat ranks documents\nq9\tunused\n")
    pooled = pool([{"q1": {"d1": 2.0, "d3": 1.0, "d2": 0.5}}], 2)
    path = tmp_path / "to-judge.jsonl"
    write_pool(pooled, path, "jsonl", corpus=corpus, queries=queries)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records == [
        {
            "query_id": "q1",
            "query": "what ranks documents",
            "doc_id": "d1",
            "document": "BM25 a ranking function",
            "relevance": -1,
            "runs": 1,
            "best_rank": 1,
        },
        {
            "query_id": "q1",
            "query": "what ranks documents",
            "doc_id": "d3",
            "document": "dense retrieval",
            "relevance": -1,
            "runs": 1,
            "best_rank": 2,
        },
    ]
    graded = path.read_text().replace('"relevance":-1', '"relevance":2')
    path.write_text(graded)
    assert read_qrels(path).to_dict() == {"q1": {"d1": 2, "d3": 2}}


def test_a_pooled_document_missing_from_the_corpus_is_an_error(tmp_path: Path) -> None:
    pooled = pool([{"q1": {"d1": 2.0, "d2": 1.0, "d3": 0.5}}], 3)
    with pytest.raises(InputError, match=r"2 pooled documents have no text in it: 'd2', 'd3'"):
        write_pool(pooled, tmp_path / "x.csv", "csv", corpus={"d1": "only this one"})


def test_texts_cannot_go_into_trec_qrels(tmp_path: Path) -> None:
    pooled = pool([{"q1": {"d1": 2.0}}], 1)
    with pytest.raises(OptionError, match="a TREC qrels file holds no text"):
        write_pool(pooled, tmp_path / "x.txt", corpus={"d1": "text"})


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (([{"q": {"d": 1.0}}], 0), OptionError, "depth must be an integer >= 1; got 0"),
        (([{"q": {"d": 1.0}}], True), OptionError, "depth must be an integer >= 1; got True"),
        (([], 3), OptionError, "no run given"),
        (({"q": {"d": 1.0}}, 3), OptionError, "runs must be a list of runs; got dict"),
    ],
)
def test_bad_arguments(arguments: tuple[object, object], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        pool(*arguments)  # type: ignore[arg-type]


def test_a_document_ranked_twice_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")
    with pytest.raises(DuplicateDocumentError, match="document 'd1' appears twice in query 'q1'"):
        pool([str(path)], 5)
