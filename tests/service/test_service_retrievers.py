"""Retrievers: normalising answers, specifications, the allow-list, BM25, and the HTTP retriever
(against a server on loopback: templates, response paths, retries, timeouts, concurrency)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from service_helpers import HTTP_OPTIONS, serve_search

from rankscope.errors import InputError
from rankscope.service import Dataset, EvaluationService, RetrieverError, load_dataset
from rankscope.service.sources.allow import check_allowed
from rankscope.service.sources.bm25 import BM25Retriever, tokenize
from rankscope.service.sources.http import HTTPRetriever, http_spec
from rankscope.service.sources.retrievers import normalise_ranking, parse_retriever_spec


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("d1 d2", "expected a list of document ids"),
        ({"d1": 1.0}, "expected a list of document ids"),
        (None, "expected a list of document ids"),
        ([1.5], r"document 1 of the ranking: expected an id \(string or integer\); found float"),
        ([True], "found bool"),
        (["ok", ""], "document 2 of the ranking has an empty id"),
        ([("d", "high")], "the score must be a number"),
        ([("d", float("inf"))], "finite number; found inf"),
        ([("d", 10**400)], r"finite number; found 1000000000000000000000000000000000000000$"),
        ([("d", 1.0, 2)], r"expected \(id, score\)"),
        ([("a", 1.0), "b"], "scores for 1 of 2 documents"),
    ],
)
def test_unusable_answers_are_refused(answer: Any, message: str) -> None:
    with pytest.raises(RetrieverError, match=message):
        normalise_ranking(answer, 10)


def test_answers_are_cut_at_k_and_ids_made_strings() -> None:
    assert normalise_ranking([(7, 3), ("b", 2.5), ("c", 1)], 2) == (["7", "b"], [3.0, 2.5])


def test_allow_list() -> None:
    spec = parse_retriever_spec("team.search:bm25_plus")
    check_allowed(spec, None)
    check_allowed(spec, ["team.search:*"])
    with pytest.raises(InputError, match="not allowed: importing a module runs its code"):
        check_allowed(spec, [])
    with pytest.raises(InputError, match="not allowed"):
        check_allowed(spec, ["other:*"])
    check_allowed(parse_retriever_spec("bm25"), [])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"url": "ftp://x"}, "needs an http:// or https:// url"),
        ({"url": "http://x", "method": "PUT"}, "method must be GET or POST"),
        ({"url": "http://x", "timeout": 0}, r"timeout must be a number in \[0.001"),
        ({"url": "http://x", "body": "{not json"}, "the request template is not JSON"),
        ({"url": "http://x", "colour": "red"}, r"unknown HTTP retriever options \['colour'\]"),
    ],
)
def test_http_specifications_are_checked(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        http_spec(options)


def test_tokenize_cuts_cjk_into_characters_and_bigrams() -> None:
    assert tokenize("Linux 内核!") == ["linux", "内", "核", "内核"]


def test_bm25_ranks_matching_documents_deterministically() -> None:
    corpus = {"a": "cats and dogs", "b": "cats", "c": "birds", "d": "cats"}
    data = Dataset.from_records({"q": "cats"}, {"q": {"b": 1}}, corpus=corpus)
    retriever = BM25Retriever(data, parse_retriever_spec("bm25"))
    doc_ids, scores = retriever.search("cats", 10)
    assert doc_ids == ["b", "d", "a"]  # equal scores keep corpus order; birds never match
    assert scores[0] == scores[1] > scores[2] > 0
    assert retriever.search("zebra", 10) == ([], [])


def _run(retriever: HTTPRetriever, text: str, k: int = 5, concurrency: int = 1) -> Any:
    async def call() -> Any:
        await retriever.open(concurrency)
        try:
            return await retriever.retrieve("q1", text, k)
        finally:
            await retriever.aclose()

    return asyncio.run(call())


@pytest.fixture
def corpus(beir_dir: Path) -> dict[str, str]:
    return dict(load_dataset(beir_dir).corpus())


def test_http_retriever_fills_the_template_and_reads_the_path(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        spec = parse_retriever_spec(
            server.url,
            {**HTTP_OPTIONS, "body": {"query": "{query}", "k": "{k}", "tag": "id-{query_id}"}},
        )
        ranking = _run(HTTPRetriever(spec), "ranking score", k=3)
        assert server.requests == [{"query": "ranking score", "k": 3, "tag": "id-q1"}]
    assert len(ranking.doc_ids) == 3 and ranking.attempts == 1
    assert ranking.scores == sorted(ranking.scores, reverse=True)


def test_http_get_sends_the_template_as_parameters(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        spec = parse_retriever_spec(server.url, {**HTTP_OPTIONS, "method": "GET"})
        ranking = _run(HTTPRetriever(spec), "dense vector", k=2)
        assert server.requests == [{"query": "dense vector", "k": "2"}]
    assert len(ranking.doc_ids) == 2


def test_transient_failures_are_retried_with_back_off(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        server.failures_before_success = 2
        ranking = _run(
            HTTPRetriever(parse_retriever_spec(server.url, HTTP_OPTIONS)), "search graph"
        )
    assert ranking.attempts == 3 and ranking.doc_ids


def test_giving_up_after_the_retries(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        server.failures_before_success = 100
        server.fail_status = 502
        with pytest.raises(
            RetrieverError, match=r"HTTP 502 Bad Gateway \(gave up after 3 attempts\)"
        ):
            _run(
                HTTPRetriever(parse_retriever_spec(server.url, {**HTTP_OPTIONS, "retries": 2})), "x"
            )
        assert len(server.requests) == 3


def test_client_errors_are_not_retried(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        server.failures_before_success = 100
        server.fail_status = 400
        with pytest.raises(RetrieverError, match="HTTP 400 Bad Request"):
            _run(HTTPRetriever(parse_retriever_spec(server.url, HTTP_OPTIONS)), "x")
        assert len(server.requests) == 1


def test_timeouts_are_transient(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        server.delay = 0.5
        spec = parse_retriever_spec(server.url, {**HTTP_OPTIONS, "timeout": 0.1, "retries": 1})
        with pytest.raises(
            RetrieverError, match=r"timed out after 0.1 s \(gave up after 2 attempts\)"
        ):
            _run(HTTPRetriever(spec), "x")


def test_a_response_without_the_path_fails_with_what_it_found(corpus: dict[str, str]) -> None:
    with serve_search(corpus) as server:
        server.respond = lambda payload: (200, {"results": []})
        with pytest.raises(
            RetrieverError,
            match=r"the response has no 'data' \(path 'data.hits'\); found \['results'\]",
        ):
            _run(HTTPRetriever(parse_retriever_spec(server.url, HTTP_OPTIONS)), "x")


def test_a_task_keeps_to_its_concurrency_and_records_failures(
    tmp_path: Path, beir_dir: Path, corpus: dict[str, str]
) -> None:
    data = load_dataset(beir_dir)
    with serve_search(corpus) as server:
        server.delay = 0.03

        def respond(payload: dict[str, Any]) -> tuple[int, Any]:
            if payload["query"].endswith(("q3", "q7")):
                return 404, {"error": "unknown"}
            hits = [{"doc": {"id": d}, "relevance": 1.0} for d in list(corpus)[:3]]
            return 200, {"data": {"hits": hits}}

        server.respond = respond
        service = EvaluationService(tmp_path / "t.db")
        try:
            task = service.submit(data, server.url, concurrency=3, http_options=HTTP_OPTIONS)
            info = service.run(task.id)
        finally:
            service.close()
        assert 2 <= server.max_in_flight <= 3
    assert (info.status, info.succeeded, info.failed) == ("succeeded", 28, 2)
    assert info.retriever["url"] == server.url
    assert json.dumps(info.to_dict())  # JSON-able
