"""One test (or a table of cases) for each finding of the audit of the HTTP surface: what a
client could make the server read, import, call or echo, what made it fail with a 500, and what
its OpenAPI schema and /docs got wrong."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_helpers import HTTP_OPTIONS, client_for, serve_search

from rankscope.errors import InputError
from rankscope.service import EvaluationService, load_dataset
from rankscope.service.sources.allow import LOOPBACK_URLS, callable_allowed, check_allowed
from rankscope.service.sources.files import MAX_LINE_BYTES
from rankscope.service.sources.http import MAX_TEMPLATE_BYTES
from rankscope.service.sources.retrievers import parse_retriever_spec

API = "/api/v1/evaluations"
SECRET = "SECRET-LINE-4f1c"


@pytest.fixture
def root(tmp_path: Path, beir_dir: Path) -> Path:
    """The data root of the servers below: the BEIR dataset and a few more files."""
    assert beir_dir.parent == tmp_path
    return tmp_path


@pytest.fixture
def service(tmp_path: Path) -> Iterator[EvaluationService]:
    service = EvaluationService(tmp_path / "audit.db")
    yield service
    service.close()


@pytest.fixture
def client(service: EvaluationService, root: Path) -> Iterator[TestClient]:
    with client_for(service, root) as client:
        yield client


def post(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post(API, json=body)


# --- dataset paths --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dataset",
    [
        {"queries": "/etc/passwd", "qrels": "/etc/passwd"},
        {"queries": "/proc/self/environ", "qrels": "/proc/self/environ"},
        "/",
        "/etc",
        "../../../../etc",
    ],
)
def test_dataset_paths_are_confined_to_the_data_roots(
    client: TestClient, dataset: Any, root: Path
) -> None:
    response = post(client, {"dataset": dataset, "retriever": "bm25"})
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert "outside the server's data roots" in detail and str(root) in detail
    assert "root:" not in detail and "PATH=" not in detail and "passwd" not in detail.split(":")[-1]
    assert client.get(API).json()["total"] == 0


def test_symbolic_links_out_of_a_root_are_refused(client: TestClient, root: Path) -> None:
    linked = root / "linked"
    linked.mkdir()
    (linked / "queries.jsonl").symlink_to("/etc/passwd")
    (linked / "qrels.tsv").write_text("q1\t0\td1\t1\n")
    response = post(
        client,
        {
            "dataset": {"queries": str(linked / "queries.jsonl"), "qrels": "linked/qrels.tsv"},
            "retriever": "bm25",
        },
    )
    assert response.status_code == 422
    assert "outside the server's data roots" in response.json()["detail"]


def test_no_file_content_in_any_error(client: TestClient, root: Path) -> None:
    (root / "bad.jsonl").write_text(json.dumps({"_id": "q0", "text": "fine"}) + f"\n{SECRET}\n")
    response = post(
        client,
        {"dataset": {"queries": "bad.jsonl", "qrels": "beir/qrels/test.tsv"}, "retriever": "bm25"},
    )
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith(f"{root / 'bad.jsonl'}:2: expected a JSON object")
    assert SECRET not in detail


# --- allow-lists ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "patterns", "allowed"),
    [
        ("mod:search", ["mod:*"], True),
        ("mod:os.chmod", ["mod:*"], False),
        ("mod:os", ["mod:*"], True),  # a plain name: the module's own attribute
        ("mod:search.__globals__", ["mod:*"], False),
        ("pkg.sub:search", ["pkg.*:search"], True),
        ("other:search", ["mod:*"], False),
        ("mod:search", ["mod"], True),
    ],
)
def test_allow_list_patterns_match_module_and_a_plain_name(
    target: str, patterns: list[str], allowed: bool
) -> None:
    assert callable_allowed(target, patterns) is allowed


def test_a_dotted_callable_is_refused_over_http(
    service: EvaluationService, root: Path, toy_module: str
) -> None:
    with client_for(service, root, allowed_callables=[f"{toy_module}:*"]) as client:
        refused = post(client, {"dataset": "beir", "retriever": f"{toy_module}:os.chmod"})
        accepted = post(client, {"dataset": "beir", "retriever": f"{toy_module}:ids_only"})
    assert refused.status_code == 422 and "never a dotted name" in refused.json()["detail"]
    assert accepted.status_code == 202, accepted.text


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:9000/search", True),
        ("http://localhost/search", True),
        ("http://[::1]:8080/", True),
        ("http://10.0.0.1/search", False),
        ("http://169.254.169.254/latest/meta-data/", False),
        ("http://127.0.0.1.nip.io/", False),
        ("http://127.0.0.1@evil.example/", False),
        ("http://evil.example/#@127.0.0.1:80", False),
    ],
)
def test_retriever_urls_are_loopback_only_by_default(url: str, allowed: bool) -> None:
    spec = parse_retriever_spec({"type": "http", "url": url})
    if allowed:
        check_allowed(spec, (), LOOPBACK_URLS)
    else:
        with pytest.raises(InputError, match=r"not allowed|user name"):
            check_allowed(spec, (), LOOPBACK_URLS)


def test_allow_url_admits_more_and_no_response_body_reaches_an_error(
    service: EvaluationService, root: Path
) -> None:
    data = load_dataset(root / "beir")
    with serve_search(dict(data.corpus())) as search:
        search.respond = lambda payload: (404, {"secret": SECRET})
        pattern = search.url.replace("127.0.0.1", "localhost")
        with client_for(service, root, allowed_urls=[pattern]) as client:
            spec = {"type": "http", "url": search.url, **HTTP_OPTIONS}
            refused = post(client, {"dataset": "beir", "retriever": spec})
            spec["url"] = pattern
            accepted = post(client, {"dataset": "beir", "retriever": spec})
            assert accepted.status_code == 202, accepted.text
            task = service.wait(accepted.json()["id"], timeout=20)
            queries = client.get(f"{API}/{task.id}/queries").json()["items"]
    assert refused.status_code == 422 and "--allow-url" in refused.json()["detail"]
    assert task.failed == 30
    assert all("HTTP 404" in q["error"] and SECRET not in q["error"] for q in queries)


# --- Host header and bearer token -----------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("127.0.0.1:8000", 200),
        ("localhost", 200),
        ("[::1]:8000", 200),
        ("evil.example", 400),
        ("127.0.0.1.evil.example:8000", 400),
        ("search.internal:8000", 200),
    ],
)
def test_the_host_header_is_checked(
    service: EvaluationService, root: Path, host: str, status: int
) -> None:
    with client_for(
        service, root, allowed_hosts=["localhost", "127.0.0.1", "::1", "*.internal"]
    ) as c:
        response = c.get(API, headers={"Host": host})
    assert response.status_code == status
    if status == 400:
        assert "--allowed-host" in response.json()["detail"]


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_is_case_insensitive(
    service: EvaluationService, root: Path, scheme: str
) -> None:
    with client_for(service, root, token="s3cret-token-of-20ch") as client:
        assert (
            client.get(API, headers={"Authorization": f"{scheme} s3cret-token-of-20ch"}).status_code
            == 200
        )
        assert client.get(API, headers={"Authorization": f"{scheme} wrong"}).status_code == 401
        assert (
            client.get(API, headers={"Authorization": "Basic s3cret-token-of-20ch"}).status_code
            == 401
        )


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        (None, 202),
        ("http://127.0.0.1:8000", 202),
        ("http://evil.example", 403),
        ("http://127.0.0.1:9999", 403),
        ("null", 403),
    ],
)
def test_other_origins_cannot_change_anything(
    client: TestClient, origin: str | None, status: int
) -> None:
    headers = {} if origin is None else {"Origin": origin}
    response = client.post(API, json={"dataset": "beir", "retriever": "bm25"}, headers=headers)
    assert response.status_code == status
    if status == 202:
        task_id = response.json()["id"]
        cancel = client.post(f"{API}/{task_id}/cancel", headers={"Origin": "http://evil.example"})
        assert cancel.status_code == 403


def test_a_form_or_text_body_is_not_taken_for_json(client: TestClient) -> None:
    body = json.dumps({"dataset": "beir", "retriever": "bm25"})
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = client.post(API, content=body, headers={"Content-Type": kind})
        assert response.status_code == 422, kind
    assert client.get(API).json()["total"] == 0


# --- no 500s --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"dataset": "beir", "retriever": "bm25", "k": 1e400}',
        '{"dataset": "beir", "retriever": "bm25", "k": Infinity}',
        '{"dataset": "beir", "retriever": "bm25", "concurrency": -Infinity}',
        '{"dataset": "beir", "retriever": "bm25", "max_failures": NaN}',
        '{"dataset": "beir", "retriever": {"type": "bm25", "k1": Infinity}}',
        '{"dataset": "beir", "retriever": {"type": "http", "url": "http://127.0.0.1:1/", '
        '"timeout": 1e400}}',
        '{"dataset": "beir", "retriever": "bm25", "k": 100001}',
        '{"dataset": "beir", "retriever": "bm25", "name": "' + "n" * 201 + '"}',
    ],
)
def test_numbers_out_of_bounds_or_not_finite_are_422(client: TestClient, raw: str) -> None:
    response = client.post(API, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    items = response.json()["detail"]
    assert isinstance(items, list) and items and set(items[0]) == {"loc", "msg", "type"}


@pytest.mark.parametrize(
    "query",
    [
        {"offset": "9223372036854775808"},
        {"offset": "-1"},
        {"limit": "0"},
        {"limit": "1e400"},
        {"status": "nope"},
    ],
)
def test_query_parameters_out_of_bounds_are_422(client: TestClient, query: dict[str, str]) -> None:
    assert client.get(API, params=query).status_code == 422


def test_a_path_component_longer_than_name_max_is_422(client: TestClient, root: Path) -> None:
    long_name = "x" * (os.pathconf(root, "PC_NAME_MAX") + 1)
    for dataset in (long_name, {"queries": f"{long_name}/q.jsonl", "qrels": "beir/qrels/test.tsv"}):
        response = post(client, {"dataset": dataset, "retriever": "bm25"})
        assert response.status_code == 422
        assert "too long" in response.json()["detail"].lower()


def test_a_device_is_never_read_as_a_dataset_file(service: EvaluationService, root: Path) -> None:
    (root / "zero.jsonl").symlink_to("/dev/zero")
    with client_for(service, root, data_roots=[root, "/dev"]) as client:
        for queries in ("/dev/zero", "zero.jsonl"):
            body = {"queries": queries, "qrels": "beir/qrels/test.tsv"}
            response = post(client, {"dataset": body, "retriever": "bm25"})
            assert response.status_code == 422
            assert "not a regular file" in response.json()["detail"]
    with pytest.raises(InputError, match="not a regular file"):
        load_dataset(queries="/dev/zero", qrels=root / "beir" / "qrels" / "test.tsv")


def test_a_line_longer_than_the_bound_is_an_error_not_a_read_without_end(root: Path) -> None:
    long = root / "long.jsonl"
    with long.open("wb") as out:
        out.write(b'{"_id": "q1", "text": "x"}\n')
        out.write(b"y" * (MAX_LINE_BYTES + 10))
    with pytest.raises(InputError, match=r"long\.jsonl:2: the line is longer than"):
        load_dataset(queries=long, qrels=root / "beir" / "qrels" / "test.tsv")


# --- request size ---------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413(service: EvaluationService, root: Path) -> None:
    with client_for(service, root, max_body_bytes=4096) as client:
        big = {"dataset": "beir", "retriever": "bm25", "name": "n", "measures": ["x" * 5000]}
        assert post(client, big).status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"dataset": "beir", "retriever": "bm25", "measures": ["'
            for _ in range(10):
                yield b"x" * 1000
            yield b'"]}'

        response = client.post(API, content=chunks(), headers={"Content-Type": "application/json"})
        assert response.status_code == 413
        assert response.json() == {"detail": "the request body exceeds 4096 bytes"}
        assert post(client, {"dataset": "beir", "retriever": "bm25"}).status_code == 202


def test_a_large_request_template_is_refused(client: TestClient) -> None:
    template = {"query": "{query}", "padding": "p" * MAX_TEMPLATE_BYTES}
    spec = {"type": "http", "url": "http://127.0.0.1:9/search", "body": template}
    response = post(client, {"dataset": "beir", "retriever": spec})
    assert response.status_code == 422 and "at most 65536" in response.json()["detail"]


# --- dataset encodings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        ("queries.jsonl", [b'{"_id": "q0", "text": "one"}', b'{"_id": "q1", "text": "tw\xff"}']),
        ("queries.tsv", [b"q0\tone", b"q1\ttw\xc3"]),
    ],
)
def test_invalid_utf8_is_reported_with_file_and_line(
    root: Path, name: str, lines: list[bytes]
) -> None:
    path = root / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(InputError) as caught:
        load_dataset(queries=path, qrels=root / "beir" / "qrels" / "test.tsv")
    assert str(caught.value).startswith(f"{path}:2: not valid UTF-8: byte 0x")


def test_invalid_utf8_in_beir_qrels_is_reported_with_file_and_line(root: Path) -> None:
    qrels = root / "beir" / "qrels" / "test.tsv"
    qrels.write_bytes(qrels.read_bytes() + b"q1\td\xfe1\t1\n")
    lines = qrels.read_bytes().count(b"\n")
    with pytest.raises(InputError, match=rf"test\.tsv:{lines}: line is not valid UTF-8"):
        load_dataset(root / "beir")


def test_a_byte_order_mark_is_accepted(root: Path) -> None:
    queries = root / "beir" / "queries.jsonl"
    before = load_dataset(root / "beir")
    queries.write_bytes(b"\xef\xbb\xbf" + queries.read_bytes())
    qrels = root / "beir" / "qrels" / "test.tsv"
    qrels.write_bytes(b"\xef\xbb\xbf" + qrels.read_bytes())
    after = load_dataset(root / "beir")
    assert after.queries == before.queries and after.fingerprint() == before.fingerprint()


# --- BM25 parameters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k1", "b"), [(math.inf, 0.75), (math.nan, 0.75), (-1.0, 0.75), (1.2, 1.5), (1.2, -0.1)]
)
def test_bm25_parameters_are_checked(k1: float, b: float) -> None:
    with pytest.raises(InputError, match=r"BM25 (k1|b) must be a number in"):
        parse_retriever_spec({"type": "bm25", "k1": k1, "b": b})


def test_bm25_parameters_over_http(client: TestClient) -> None:
    bad = post(client, {"dataset": "beir", "retriever": {"type": "bm25", "b": 2}})
    good = post(client, {"dataset": "beir", "retriever": {"type": "bm25", "k1": 0.9, "b": 0.4}})
    assert bad.status_code == 422
    assert [item["loc"][-1] for item in bad.json()["detail"]].count("b") == 1
    assert good.status_code == 202 and good.json()["retriever"]["k1"] == 0.9


# --- the schema and /docs -------------------------------------------------------------------


def test_the_schema_documents_every_answer(service: EvaluationService, root: Path) -> None:
    with client_for(service, root, token="t-is-a-token-of-16+") as client:
        schema = client.get(
            "/openapi.json", headers={"Authorization": "Bearer t-is-a-token-of-16+"}
        ).json()
    paths = schema["paths"]
    expected = {
        (API, "post"): {"202", "400", "401", "413", "422", "501"},
        (API, "get"): {"200", "400", "401", "413", "422"},
        (API + "/{task_id}", "get"): {"200", "404", "422"},
        (API + "/{task_id}/queries", "get"): {"200", "404", "422"},
        (API + "/{task_id}/cancel", "post"): {"200", "404", "409", "422"},
        (API + "/{task_id}/resume", "post"): {"202", "404", "409", "422"},
        (API + "/{task_id}/export", "get"): {"200", "404", "422"},
    }
    for (path, method), statuses in expected.items():
        assert statuses <= set(paths[path][method]["responses"]), (path, method)
    components = schema["components"]["schemas"]
    detail = components["ValidationErrorOut"]["properties"]["detail"]
    assert {option.get("type") for option in detail["anyOf"]} == {"string", "array"}
    assert paths[API]["post"]["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ValidationErrorOut"
    }
    assert "/docs" not in paths and not any(path.startswith("/tasks") for path in paths)


def test_docs_are_served_without_the_network(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "default-src 'none'; script-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert assets and all(asset.startswith("/") for asset in assets)
    assert "cdn" not in page.text.lower() and "http" not in page.text.replace("http-equiv", "")
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert len(response.content) > 100
    assert "SwaggerUIBundle" in client.get("/static/swagger/swagger-ui-bundle.js").text
