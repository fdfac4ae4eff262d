"""The HTTP API, served by uvicorn on loopback: the end-to-end run, errors, token, allow-list,
paging, cancel, start-up recovery."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import polars as pl
import pytest
from service_helpers import HTTP_OPTIONS, serve_search

import rankscope
from loopback import serving
from rankscope.io.tables import Run
from rankscope.service import EvaluationService, create_app, load_dataset
from rankscope.service.web.app import is_loopback

API = "/api/v1/evaluations"


@contextmanager
def serve_api(service: EvaluationService, **options: Any) -> Iterator[str]:
    """The app on loopback; datasets may lie beside the service's store (a test's tmp_path)."""
    options.setdefault("data_roots", [service.store.path.parent])
    with serving(create_app(service, **options)) as base:
        yield base


def wait_done(client: httpx.Client, task_id: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        task = client.get(f"{API}/{task_id}").raise_for_status().json()
        if task["status"] not in ("pending", "running"):
            return task
        assert time.monotonic() < deadline, f"task still {task['status']}"
        time.sleep(0.05)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[EvaluationService]:
    service = EvaluationService(tmp_path / "api.db")
    yield service
    service.close()


@pytest.mark.parametrize(
    ("profile", "measures", "engine_names"),
    [
        ("trec", ["nDCG@10", "AP", "RR", "P@10"], ["nDCG@10", "AP", "RR", "P@10"]),
        ("weknora", None, ["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]),
    ],
)
def test_end_to_end_http_retriever_beir_dataset_through_the_api(
    service: EvaluationService,
    beir_dir: Path,
    profile: str,
    measures: list[str] | None,
    engine_names: list[str],
) -> None:
    data = load_dataset(beir_dir)
    with (
        serve_search(dict(data.corpus())) as search,
        serve_api(service) as base,
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        body = {
            "dataset": {"path": str(beir_dir), "split": "test"},
            "retriever": {"type": "http", "url": search.url, **HTTP_OPTIONS},
            "profile": profile,
            "measures": measures,
            "k": 10,
            "concurrency": 4,
            "name": "e2e",
        }
        response = client.post(API, json=body)
        assert response.status_code == 202, response.text
        submitted = response.json()
        assert submitted["status"] in ("pending", "running")
        task = wait_done(client, submitted["id"])
        assert task["status"] == "succeeded"
        assert task["progress"] == {
            "total": 30,
            "finished": 30,
            "succeeded": 30,
            "failed": 0,
            "fraction": 1.0,
        }
        assert set(task["latency_ms"]) == {"mean", "p50", "p90", "p95", "p99", "max"}
        trec = client.get(f"{API}/{task['id']}/export", params={"format": "trec"}).text
        first = client.get(f"{API}/{task['id']}/queries", params={"limit": 20}).json()
        second = client.get(
            f"{API}/{task['id']}/queries", params={"limit": 20, "offset": 20}
        ).json()
    assert len(search.requests) == 30

    rows = [line.split() for line in trec.splitlines()]
    run = Run.from_frame(
        pl.DataFrame(
            {
                "query_id": [r[0] for r in rows],
                "doc_id": [r[2] for r in rows],
                "score": [float(r[4]) for r in rows],
            }
        )
    )
    expected = rankscope.evaluate(data.qrels, run, engine_names, profile=profile)
    assert list(task["metrics"].values()) == list(expected.mean().values())
    assert first["total"] == 30 and len(first["items"]) == 20 and len(second["items"]) == 10
    per_query = {
        q["query_id"]: list(q["metrics"].values()) for q in first["items"] + second["items"]
    }
    assert per_query == {q: list(v.values()) for q, v in expected.to_dict().items()}


def test_errors_have_their_status_and_reason(
    service: EvaluationService, beir_dir: Path, tmp_path: Path
) -> None:
    with serve_api(service) as base, httpx.Client(base_url=base, timeout=10) as client:
        assert client.get(f"{API}/nope").status_code == 404
        # The store's location is the operator's to know, not a client's.
        assert client.get(f"{API}/nope").json() == {"detail": "no task with id 'nope'"}
        assert client.get(f"{API}/nope/queries").status_code == 404
        assert client.post(f"{API}/nope/cancel").status_code == 404

        missing = client.post(API, json={"dataset": str(beir_dir)})
        assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == [
            "body",
            "retriever",
        ]
        assert (
            client.post(
                API, json={"dataset": str(beir_dir), "retriever": "bm25", "k": 0}
            ).status_code
            == 422
        )
        assert (
            client.post(
                API, json={"dataset": str(beir_dir), "retriever": "bm25", "colour": 1}
            ).status_code
            == 422
        )

        nowhere = client.post(API, json={"dataset": str(tmp_path / "nowhere"), "retriever": "bm25"})
        assert nowhere.status_code == 422 and "it does not exist" in nowhere.json()["detail"]
        measure = client.post(
            API, json={"dataset": str(beir_dir), "retriever": "bm25", "measures": ["nDCG@10"]}
        )
        assert measure.status_code == 422 and "use profile 'trec'" in measure.json()["detail"]
        callable_ = client.post(API, json={"dataset": str(beir_dir), "retriever": "os:getcwd"})
        assert callable_.status_code == 422 and "--allow-callable" in callable_.json()["detail"]

        assert client.get(API).json()["total"] == 0  # nothing was stored by refused requests
        schema = client.get("/openapi.json").json()
        assert {
            API,
            API + "/{task_id}",
            API + "/{task_id}/queries",
            API + "/{task_id}/cancel",
        } <= set(schema["paths"])


def test_a_token_is_checked_on_every_request(service: EvaluationService) -> None:
    with serve_api(service, token="s3cret-token-of-20ch") as base:
        assert httpx.get(base + API).status_code == 401
        assert httpx.get(base + "/openapi.json").status_code == 401
        wrong = httpx.get(base + API, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        assert (
            httpx.get(
                base + API, headers={"Authorization": "Bearer s3cret-token-of-20ch"}
            ).status_code
            == 200
        )


def test_allowed_callables_run(tmp_path: Path, beir_dir: Path, toy_module: str) -> None:
    service = EvaluationService(tmp_path / "allowed.db")
    try:
        with (
            serve_api(service, allowed_callables=[f"{toy_module}:*"]) as base,
            httpx.Client(base_url=base, timeout=10) as client,
        ):
            response = client.post(
                API, json={"dataset": str(beir_dir), "retriever": f"{toy_module}:ids_only"}
            )
            assert response.status_code == 202, response.text
        # The client went away; the task goes on in the server.
        assert service.wait(response.json()["id"], timeout=20).status == "succeeded"
    finally:
        service.close()


def test_cancel_and_resume_through_the_api(service: EvaluationService, beir_dir: Path) -> None:
    data = load_dataset(beir_dir)
    with serve_search(dict(data.corpus())) as search, serve_api(service) as base:
        search.delay = 0.05
        with httpx.Client(base_url=base, timeout=10) as client:
            body = {
                "dataset": str(beir_dir),
                "retriever": {"type": "http", "url": search.url, **HTTP_OPTIONS},
                "concurrency": 1,
            }
            task_id = client.post(API, json=body).json()["id"]
            while client.get(f"{API}/{task_id}").json()["progress"]["finished"] < 2:
                time.sleep(0.02)
            cancelled = client.post(f"{API}/{task_id}/cancel")
            assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
            assert client.post(f"{API}/{task_id}/cancel").status_code == 409
            time.sleep(0.2)
            assert client.get(f"{API}/{task_id}").json()["progress"]["finished"] < 30
            search.delay = 0.0
            assert client.post(f"{API}/{task_id}/resume").status_code == 202
            assert wait_done(client, task_id)["progress"]["succeeded"] == 30
            listed = client.get(API, params={"status": "succeeded"}).json()
            assert [t["id"] for t in listed["items"]] == [task_id]


@pytest.mark.parametrize(
    ("mode", "status"), [("resume", "succeeded"), ("fail", "failed"), ("leave", "running")]
)
def test_interrupted_tasks_are_recovered_at_start_up(
    tmp_path: Path, beir_dir: Path, mode: str, status: str
) -> None:
    service = EvaluationService(tmp_path / "recover.db")
    try:
        task = service.submit(beir_dir, "bm25")
        # As a process that died while running it would leave it:
        service.store.update_task(
            task.id,
            status="running",
            owner=f"{socket.gethostname()}:999999999:x",
            heartbeat=time.time(),
        )
        with serve_api(service, recover=mode):
            info = service.wait(task.id, timeout=20) if mode == "resume" else service.get(task.id)
        assert info.status == status
    finally:
        service.close()


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.2") and is_loopback("[::1]") and not is_loopback("192.168.1.10")
