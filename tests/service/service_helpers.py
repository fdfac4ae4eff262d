"""Helpers of the service tests: datasets made on disk, a toy retriever, a fake search server."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

WORDS = [
    "ranking", "retrieval", "judgement", "query", "passage", "corpus", "index", "score", "metric",
    "neural", "sparse", "dense", "vector", "token", "model", "cluster", "graph", "search",
]  # fmt: skip


def make_corpus(n_docs: int, seed: int = 0) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"d{i}": " ".join(rng.choices(WORDS, k=8)) for i in range(n_docs)}


def make_beir(
    root: Path,
    n_queries: int = 30,
    n_docs: int = 60,
    seed: int = 0,
    extra_queries: int = 2,
    answers: bool = False,
) -> Path:
    """A BEIR dataset: queries made of corpus words, 1-3 graded judgements each; with
    ``answers``, each judged query's reference answer (the text of its first judged document)
    under ``answer``, but for every fifth, which has none."""
    rng = random.Random(seed)
    corpus = make_corpus(n_docs, seed)
    root.mkdir(parents=True, exist_ok=True)
    with (root / "corpus.jsonl").open("w") as out:
        for doc_id, text in corpus.items():
            out.write(json.dumps({"_id": doc_id, "title": "", "text": text}) + "\n")
    qrels = []
    with (root / "queries.jsonl").open("w") as out:
        for i in range(n_queries + extra_queries):
            # The id ends each question (it matches no document), so every text is unique.
            text = " ".join([*rng.choices(WORDS, k=3), f"q{i}"])
            record = {"_id": f"q{i}", "text": text}
            if i < n_queries:
                judged = rng.sample(sorted(corpus), rng.randint(1, 3))
                for doc in judged:
                    qrels.append((f"q{i}", doc, rng.randint(0, 2)))
                if answers and i % 5 != 4:
                    record["answer"] = corpus[judged[0]]
            out.write(json.dumps(record) + "\n")
    (root / "qrels").mkdir(exist_ok=True)
    with (root / "qrels" / "test.tsv").open("w") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        for query_id, doc_id, grade in qrels:
            out.write(f"{query_id}\t{doc_id}\t{grade}\n")
    return root


def overlap_search(corpus: dict[str, str], text: str, k: int) -> list[tuple[str, float]]:
    """A deterministic toy retriever: documents by words shared with the question."""
    words = set(text.split())
    scored = [(doc, float(len(words & set(body.split())))) for doc, body in corpus.items()]
    scored = [pair for pair in scored if pair[1] > 0]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:k]


RETRIEVER_MODULE = '''
"""Retrievers for the tests, imported by name ('module:function')."""
import json, os, time
from pathlib import Path

CORPUS = {doc["_id"]: doc["text"] for doc in map(json.loads, open(os.environ["TOY_CORPUS"]))}


def search(text, k):
    calls = os.environ.get("TOY_CALLS")
    if calls:
        with open(calls, "a") as log:
            log.write(text.split()[-1] + "\\n")
    delay = float(os.environ.get("TOY_DELAY", "0"))
    if delay:
        time.sleep(delay)
    words = set(text.split())
    scored = [(doc, float(len(words & set(body.split())))) for doc, body in CORPUS.items()]
    scored = [pair for pair in scored if pair[1] > 0]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:k]


def ids_only(text, k):
    return [doc for doc, _ in search(text, k)]


def answer(question, passages):
    """A generator: the first passage, as the answer."""
    calls = os.environ.get("TOY_ANSWER_CALLS")
    if calls:
        with open(calls, "a") as log:
            log.write(question.split()[-1] + "\\n")
    return passages[0] if passages else "no passage"
'''


@dataclass
class FakeSearchServer:
    """An HTTP retriever on loopback whose behaviour a test sets."""

    corpus: dict[str, str]
    url: str = ""
    failures_before_success: int = 0
    fail_status: int = 503
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    attempts: dict[str, int] = field(default_factory=dict)
    respond: Callable[[dict[str, Any]], tuple[int, Any]] | None = None


@contextmanager
def serve_search(corpus: dict[str, str]) -> Iterator[FakeSearchServer]:
    state = FakeSearchServer(corpus)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, payload: dict[str, Any]) -> None:
            import time

            with state.lock:
                state.requests.append(payload)
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                key = str(payload.get("query"))
                state.attempts[key] = state.attempts.get(key, 0) + 1
                attempt = state.attempts[key]
            try:
                if state.delay:
                    time.sleep(state.delay)
                if state.respond is not None:
                    status, body = state.respond(payload)
                elif attempt <= state.failures_before_success:
                    status, body = state.fail_status, {"error": "try again"}
                else:
                    hits = overlap_search(state.corpus, str(payload["query"]), int(payload["k"]))
                    status = 200
                    body = {"data": {"hits": [{"doc": {"id": d}, "relevance": s} for d, s in hits]}}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up on this call (a timeout, a cancelled task)
            finally:
                with state.lock:
                    state.in_flight -= 1

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self._answer(json.loads(self.rfile.read(length) or b"{}"))

        def do_GET(self) -> None:
            from urllib.parse import parse_qsl, urlparse

            self._answer(dict(parse_qsl(urlparse(self.path).query)))

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/search"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


GENERATOR_OPTIONS = {
    "body": {"query": "{query}", "query_id": "{query_id}", "passages": "{passages}"},
    "answer_path": "choices.0.text",
    "backoff": 0.01,
}
"""The HTTP generator's options for `serve_generator`."""


@contextmanager
def serve_generator() -> Iterator[FakeSearchServer]:
    """An HTTP generator on loopback answering each question with its first passage (as the
    toy module's ``answer``), counting the calls per question (``attempts``)."""

    def respond(payload: dict[str, Any]) -> tuple[int, Any]:
        passages = payload["passages"]
        return 200, {"choices": [{"text": passages[0] if passages else "no passage"}]}

    with serve_search({}) as server:
        server.respond = respond
        yield server


HTTP_OPTIONS = {
    "body": {"query": "{query}", "k": "{k}"},
    "results_path": "data.hits",
    "id_field": "doc.id",
    "score_field": "relevance",
    "backoff": 0.01,
}


def client_for(service: Any, root: Path, **options: Any) -> Any:
    """A test client of the service's app (datasets under ``root``), as from 127.0.0.1:8000;
    a server error is answered 500, not raised."""
    from fastapi.testclient import TestClient

    from rankscope.service import create_app

    options.setdefault("data_roots", [root])
    return TestClient(
        create_app(service, **options),
        base_url="http://127.0.0.1:8000",
        raise_server_exceptions=False,
    )
