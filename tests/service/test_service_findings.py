"""A regression test for each finding of the second audit of ``rankscope serve`` and ``run``: the
reproduction the audit gave, and what the service does now."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from service_helpers import client_for, make_beir

from loopback import free_port, serving
from rankscope.cli import main
from rankscope.errors import (
    InputError,
    QueueFullError,
    StoreFullError,
    TaskTakenOverError,
)
from rankscope.service import Dataset, EvaluationService, QueryRecord, create_app

API = "/api/v1/evaluations"
TOKEN = "a-token-of-some-length-0123456789"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[EvaluationService]:
    service = EvaluationService(tmp_path / "findings.db")
    yield service
    service.close()


def nested(depth: int) -> Any:
    value: Any = "{query}"
    for _ in range(depth):
        value = {"q": value}
    return value


# --- high: one request breaks the task list for everyone -----------------------------------


def test_a_deeply_nested_template_is_refused_before_it_is_stored(
    service: EvaluationService, tmp_path: Path, beir_dir: Path
) -> None:
    with client_for(service, tmp_path) as client:
        body = {
            "dataset": "beir",
            "retriever": {"type": "http", "url": "http://127.0.0.1:9/x", "body": nested(300)},
        }
        answer = client.post(API, json=body)
        assert answer.status_code == 422
        assert "nested" in answer.text
        listing = client.get(API)
        assert listing.status_code == 200 and listing.json()["total"] == 0


def test_a_stored_row_that_cannot_be_rendered_never_breaks_a_listing(
    service: EvaluationService, tmp_path: Path
) -> None:
    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    task = service.submit(data, lambda text, k: ["d"])
    row = service.store.task(task.id)
    spec = dict(row["spec"])
    spec["retriever"] = {"type": "http", "url": "http://127.0.0.1:9/x", "body": nested(500)}
    service.store.update_task(task.id, spec=spec)
    with client_for(service, tmp_path) as client:
        listing = client.get(API)
        assert listing.status_code == 200, listing.text
        assert [item["id"] for item in listing.json()["items"]] == [task.id]
        shown = client.get(f"{API}/{task.id}")
        assert shown.status_code == 200
        assert "…" in json.dumps(shown.json()["retriever"], ensure_ascii=False)
        assert client.get("/").status_code == 200


# --- high: the callable allow-list admits what a module imported ----------------------------

IMPORTER = """
from os import chmod
import os

def search(text, k):
    return ["d1"]

class Searcher:
    def __call__(self, text, k):
        return ["d1"]

searcher = Searcher()
"""


@pytest.fixture
def importer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"importer_{abs(hash(str(tmp_path))) % 10**8}"
    directory = tmp_path / "installed"
    directory.mkdir()
    (directory / f"{name}.py").write_text(IMPORTER)
    monkeypatch.syspath_prepend(str(directory))
    yield name
    sys.modules.pop(name, None)


def test_a_wildcard_admits_only_what_the_module_defines(
    tmp_path: Path, beir_dir: Path, importer: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("x")
    victim.chmod(0o600)
    service = EvaluationService(tmp_path / "allow.db", allowed_callables=[f"{importer}:*"])
    try:
        with pytest.raises(InputError, match="not defined in"):
            service.submit(beir_dir, f"{importer}:chmod")
        assert victim.stat().st_mode & 0o777 == 0o600
        assert service.submit(beir_dir, f"{importer}:search").status == "pending"
    finally:
        service.close()
    # A name given in full is the operator's explicit choice, defined there or not.
    explicit = EvaluationService(
        tmp_path / "explicit.db", allowed_callables=[f"{importer}:searcher"]
    )
    try:
        assert explicit.submit(beir_dir, f"{importer}:searcher").status == "pending"
    finally:
        explicit.close()


def test_the_working_directory_does_not_shadow_an_allowed_module(
    tmp_path: Path, beir_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shadow = tmp_path / "cwd"
    shadow.mkdir()
    name = f"shadowed_{abs(hash(str(tmp_path))) % 10**8}"
    (shadow / f"{name}.py").write_text("def search(text, k):\n    return ['d1']\n")
    monkeypatch.chdir(shadow)
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    service = EvaluationService(tmp_path / "shadow.db", allowed_callables=[f"{name}:*"])
    try:
        with pytest.raises(InputError, match="cannot import"):
            service.submit(beir_dir, f"{name}:search")
    finally:
        service.close()
        sys.modules.pop(name, None)


# --- medium: URL patterns matched per component, names resolved at call time -------------


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("http://127.0.0.1:80/x.internal:80/", ["http://*.internal:80/*"], False),
        ("http://search.internal:80/api", ["http://*.internal:80/*"], True),
        ("http://10.0.0.evil.example:80/", ["http://10.0.0.*:*"], False),
        ("http://10.0.0.7:8080/search", ["http://10.0.0.*:*"], True),
        ("http://127.0.0.1:9000/search", ["http://127.0.0.1:*"], True),
        ("http://127.0.0.1:9000/search", ["https://127.0.0.1:*"], False),
        ("http://localhost:9000/a", ["http://localhost:9000/a*"], True),
        ("http://localhost:9001/a", ["http://localhost:9000/*"], False),
    ],
)
def test_url_patterns_are_matched_per_component(
    tmp_path: Path, beir_dir: Path, url: str, patterns: list[str], allowed: bool
) -> None:
    service = EvaluationService(tmp_path / "urls.db", allowed_urls=patterns)
    try:
        if allowed:
            assert service.submit(beir_dir, url).status == "pending"
        else:
            with pytest.raises(InputError, match="not allowed"):
                service.submit(beir_dir, url)
    finally:
        service.close()


def test_a_name_that_resolves_to_loopback_is_refused_at_call_time(
    tmp_path: Path, beir_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "search.example":
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    service = EvaluationService(tmp_path / "dns.db", allowed_urls=["http://search.example:*"])
    try:
        task = service.submit(beir_dir, "http://search.example:9/search", concurrency=1)
        done = service.run(task.id)
        assert done.failed == done.total and done.succeeded == 0
        record = service.query_results(task.id, limit=1)[0]
        assert record.error is not None and "loopback" in record.error
        assert record.attempts == 1
    finally:
        service.close()


# --- medium: pending tasks hold no dataset, a queue limit ----------------------------------


def test_pending_tasks_keep_no_dataset_or_index_and_the_queue_is_bounded(
    tmp_path: Path, beir_dir: Path
) -> None:
    service = EvaluationService(tmp_path / "queue.db", max_pending=3)
    try:
        ids = [service.submit(beir_dir, "bm25").id for _ in range(3)]
        assert service.held() == {}
        with pytest.raises(QueueFullError, match="3 tasks wait"):
            service.submit(beir_dir, "bm25")
        service.cancel(ids[0])
        fourth = service.submit(beir_dir, "bm25")
        done = service.run(fourth.id)
        assert done.status == "succeeded"
        assert service.held() == {}
    finally:
        service.close()


def test_a_full_queue_is_429(tmp_path: Path, beir_dir: Path) -> None:
    service = EvaluationService(tmp_path / "queue.db", max_pending=1, max_running=1)
    try:
        with client_for(service, tmp_path, recover="leave") as client:
            service.submit(beir_dir, "bm25")  # waits: nothing starts it
            answer = client.post(API, json={"dataset": "beir", "retriever": "bm25"})
            assert answer.status_code == 429
            assert "wait" in answer.json()["detail"]
            assert answer.headers["retry-after"].isdigit()
    finally:
        service.close()


# --- medium: slow clients -------------------------------------------------------------------


def _connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def test_slow_headers_and_bodies_are_cut_off_and_connections_are_bounded(
    service: EvaluationService, tmp_path: Path
) -> None:
    from rankscope.service.web.server import server_config

    app = create_app(service, data_roots=[tmp_path], body_timeout=0.5)
    config = server_config(
        app, "127.0.0.1", free_port(), header_timeout=0.5, max_connections=8, log_level="warning"
    )
    with serving(app, config=config) as base:
        slow = _connect(base)
        slow.sendall(b"GET /api/v1/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        assert slow.recv(1024) == b""  # closed without an answer
        assert time.monotonic() - started < 5

        body = _connect(base)
        body.sendall(
            b"POST /api/v1/evaluations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        answer = body.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408"), answer

        held = [_connect(base) for _ in range(20)]
        closed = 0
        for connection in held:
            connection.settimeout(5)
            try:
                closed += connection.recv(1) == b""
            except (TimeoutError, ConnectionResetError):
                closed += 1
        assert closed == 20  # every idle connection is let go, the extra ones at once
        import httpx

        assert httpx.get(base + API, timeout=10).status_code == 200
        for connection in (slow, body, *held):
            connection.close()


# --- medium: a full disk, a read-only store --------------------------------------------------


def test_a_full_disk_is_a_clear_error_and_nothing_is_lost(
    tmp_path: Path, beir_dir: Path, toy_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "full.db"
    service = EvaluationService(db)
    task = service.submit(make_beir(tmp_path / "big", n_queries=60), f"{toy_module}:search")
    connection = service.store._connection()
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(StoreFullError, match="disk is full"):
        service.run(task.id)
    recorded = service.store.finished_query_ids(task.id)
    service.close()
    resumed = EvaluationService(db)
    try:
        done = resumed.resume(task.id, force=True)
        assert done.status == "succeeded" and done.succeeded == done.total
        assert resumed.store.result_rows(task.id) == (done.total, done.total)
        assert recorded <= resumed.store.finished_query_ids(task.id)
    finally:
        resumed.close()


def test_a_full_disk_is_507_over_http(
    tmp_path: Path, beir_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rankscope.service.store.sqlite import SQLiteStore

    service = EvaluationService(tmp_path / "full-http.db")
    opened = SQLiteStore._connection

    def full(self: SQLiteStore) -> Any:  # every thread's connection: the disk is full
        connection = opened(self)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages}")
        return connection

    service.close()
    monkeypatch.setattr(SQLiteStore, "_connection", full)
    try:
        make_beir(tmp_path / "large", n_queries=400)
        with client_for(service, tmp_path, recover="leave") as client:
            answer = client.post(API, json={"dataset": "large", "retriever": "bm25"})
        assert answer.status_code == 507
        assert "free space" in answer.json()["detail"]
        assert str(service.store.location) not in answer.text
    finally:
        service.close()


def test_a_full_disk_exits_1_from_the_command_line(
    tmp_path: Path, beir_dir: Path, toy_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli-full.db"
    code = subprocess.run(
        [sys.executable, "-c", FULL_CHILD, str(db), str(beir_dir), f"{toy_module}:search"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "modules"), *sys.path])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert code.returncode == 1, code.stderr
    assert "disk is full" in code.stderr and "internal error" not in code.stderr


FULL_CHILD = """
import sys
import rankscope.service.store.sqlite as backend
from rankscope.cli import main

opened = backend.SQLiteStore._connection

def small(self):
    connection = opened(self)
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    if pages > 4:
        connection.execute(f"PRAGMA max_page_count = {pages}")
    return connection

backend.SQLiteStore._connection = small
sys.exit(main(["run", "--db", sys.argv[1], "--dataset", sys.argv[2], "--retriever", sys.argv[3]]))
"""


def _as_nobody() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("a read-only store needs setpriv to drop root's rights")
    command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    probe = subprocess.run(
        [*command, sys.executable, "-c", "import rankscope"], env=env, capture_output=True
    )
    if probe.returncode != 0:
        # An interpreter whose own files only root may read (a shared libpython under a
        # private home) cannot run as nobody: the other interpreters' runs check this.
        pytest.skip(f"{sys.executable} cannot run as nobody: {probe.stderr.decode()[:200]}")
    return command


def test_a_read_only_store_can_still_be_listed_and_a_write_is_a_clear_error() -> None:
    folder = Path(tempfile.mkdtemp(prefix="rankscope-read-only-"))
    db = folder / "tasks.db"
    service = EvaluationService(db)
    data = Dataset.from_records({"q": "t"}, {"q": {"d": 1}})
    task = service.submit(data, lambda text, k: ["d"])
    service.close()
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    try:
        command = [*_as_nobody(), sys.executable, "-m", "rankscope"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        listed = subprocess.run(
            [*command, "tasks", "list", "--db", str(db)], env=env, capture_output=True, text=True
        )
        assert listed.returncode == 0, listed.stderr
        assert task.id in listed.stdout
        cancelled = subprocess.run(
            [*command, "tasks", "cancel", task.id, "--db", str(db)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert cancelled.returncode == 1, cancelled.stderr
        assert "cannot be written" in cancelled.stderr
        assert "internal error" not in cancelled.stderr
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


# --- low -------------------------------------------------------------------------------------


def test_a_non_ascii_csrf_token_is_refused_not_a_server_error(
    service: EvaluationService, tmp_path: Path
) -> None:
    with client_for(service, tmp_path, token=TOKEN) as client:
        client.post("/signin", data={"token": TOKEN, "next": "/"})
        answer = client.post(API, json={}, headers={"X-CSRF-Token": "é".encode()})
        assert answer.status_code == 401
        form = client.post("/tasks/new", data={"csrf": "é", "dataset": "x"})
        assert form.status_code == 403


def test_a_qrels_score_of_ten_to_the_400_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.jsonl").write_text('{"_id": "q1", "text": "a b"}\n')
    (tmp_path / "qrels.jsonl").write_text(
        '{"query_id": "q1", "doc_id": "d1", "score": 1' + "0" * 400 + "}\n"
    )
    code = main(
        ["run", "--queries", str(tmp_path / "q.jsonl"), "--qrels", str(tmp_path / "qrels.jsonl"),
         "--retriever", "x:y", "--db", str(tmp_path / "t.db")]
    )  # fmt: skip
    assert code == 1
    assert "qrels.jsonl" in capsys.readouterr().err


def test_a_device_as_the_store_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "list", "--db", "/dev/zero"]) == 1
    assert "not a regular file" in capsys.readouterr().err


class _Endless(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        try:
            self.wfile.write(b'{"results": ["')
            chunk = b"0" * 65536
            for _ in range(2000):  # 128 MiB at most, like /dev/zero to a reader
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass


def test_an_endless_response_is_cut_off_not_read_into_memory(
    tmp_path: Path, beir_dir: Path
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        service = EvaluationService(tmp_path / "endless.db")
        url = f"http://127.0.0.1:{server.server_address[1]}/search"
        task = service.submit(beir_dir, url, http_options={"retries": 0}, concurrency=1)
        done = service.run(task.id)
        assert done.failed == done.total
        error = service.query_results(task.id, limit=1)[0].error or ""
        assert "bytes" in error and "exceeds" in error
        service.close()
    finally:
        server.shutdown()
        server.server_close()


def test_a_taken_over_task_stops_its_old_writer(service: EvaluationService) -> None:
    data = Dataset.from_records({"q1": "a", "q2": "b"}, {"q1": {"d": 1}, "q2": {"d": 1}})
    task = service.submit(data, lambda text, k: ["d"])
    service.store.claim(task.id, "old-host:1:a", lambda row: None)
    old = service.store.writer(task.id, "old-host:1:a")
    old.record(QueryRecord("q1", 0, "failed", error="first"))
    service.store.claim(task.id, "new-host:2:b", lambda row: None)  # a forced resume elsewhere
    with pytest.raises(TaskTakenOverError, match="taken over"):
        old.record(QueryRecord("q2", 1, "failed", error="late"))
    with pytest.raises(TaskTakenOverError):
        old.heartbeat()
    assert service.store.finished_query_ids(task.id) == {"q1"}
    assert service.get(task.id).failed == 1


def test_a_short_token_is_refused(service: EvaluationService, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="at least 16"):
        create_app(service, token="x")
    assert main(["serve", "--token", "short", "--db", str(tmp_path / "t.db")]) == 1


def test_failed_token_guesses_are_slowed_down(service: EvaluationService, tmp_path: Path) -> None:
    with client_for(service, tmp_path, token=TOKEN) as client:
        statuses = [
            client.get(API, headers={"Authorization": f"Bearer guess-{i}"}).status_code
            for i in range(8)
        ]
        assert statuses[:5] == [401] * 5
        assert 429 in statuses[5:]
        refused = client.get(API, headers={"Authorization": f"Bearer {TOKEN}"})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/a\r\nX: y", "http://127.0.0.1:9/a\nb"])
def test_a_line_break_in_a_retriever_url_is_refused(
    service: EvaluationService, tmp_path: Path, beir_dir: Path, url: str
) -> None:
    with pytest.raises(InputError, match="control character"):
        service.submit(beir_dir, {"type": "http", "url": url})
    with client_for(service, tmp_path) as client:
        answer = client.post(
            API, json={"dataset": "beir", "retriever": {"type": "http", "url": url}}
        )
        assert answer.status_code == 422


def test_a_task_s_json_keeps_its_fields_in_their_order(
    service: EvaluationService, tmp_path: Path
) -> None:
    task = service.submit(Dataset.from_records({"q": "t"}, {"q": {"d": 1}}), lambda t, k: ["d"])
    with client_for(service, tmp_path, recover="leave") as client:
        shown = client.get(f"{API}/{task.id}").json()
    assert list(shown) == list(service.get(task.id).to_dict())


def test_an_api_404_does_not_reveal_the_store(service: EvaluationService, tmp_path: Path) -> None:
    with client_for(service, tmp_path) as client:
        answer = client.get(f"{API}/nope")
    assert answer.status_code == 404
    assert str(service.store.location) not in answer.text
    assert "findings.db" not in answer.text


def test_the_console_refuses_to_compare_tasks_on_different_datasets(
    service: EvaluationService, tmp_path: Path, beir_dir: Path
) -> None:
    other = make_beir(tmp_path / "other", n_queries=10, seed=3)
    first = service.run(service.submit(beir_dir, "bm25").id)
    second = service.run(service.submit(other, "bm25").id)
    with client_for(service, tmp_path) as client:
        page = client.get(f"/compare?task={first.id}&task={second.id}")
    assert page.status_code == 422
    assert "different datasets" in page.text
    assert "/compare/report" not in page.text  # the error is on the page, not in a frame


def test_a_form_with_two_mistakes_reports_both(
    service: EvaluationService, tmp_path: Path, beir_dir: Path
) -> None:
    with client_for(service, tmp_path) as client:
        page = client.get("/tasks/new").text
        csrf = page.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        answer = client.post(
            "/tasks/new",
            data={
                "csrf": csrf,
                "dataset": "no-such-dataset",
                "retriever": "bm25",
                "profile": "trec",
                "trec_measures": "nDCG@10 NoSuchMeasure",
            },
        )
    assert answer.status_code == 422
    assert "no-such-dataset" in answer.text and "NoSuchMeasure" in answer.text
