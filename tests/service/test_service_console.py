"""The web console in-process: pages, their security headers and assets, CSRF, sign-in, the
form, the per-question table's sorting and filtering, and the comparison report."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rankscope.cli import main
from rankscope.service import EvaluationService, create_app
from rankscope.service.web.routers.console import evaluation_payload, find_datasets

API = "/api/v1/evaluations"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[EvaluationService]:
    service = EvaluationService(tmp_path / "console.db")
    yield service
    service.close()


def console(service: EvaluationService, root: Path, **options: Any) -> TestClient:
    app = create_app(service, data_roots=[root], **options)
    return TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False)


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match is not None, "the page has no CSRF field"
    return match.group(1)


def start(client: TestClient, **fields: Any) -> str:
    """Start a task through the console's form; its id."""
    form = {"dataset": "beir", "retriever": "bm25", "profile": "weknora", **fields}
    form["csrf"] = csrf_of(client.get("/tasks/new").text)
    response = client.post("/tasks/new", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/tasks/")
    return location.removeprefix("/tasks/")


def test_pages_render_with_a_strict_policy_and_local_assets(
    service: EvaluationService, beir_dir: Path
) -> None:
    with console(service, beir_dir.parent) as client:
        task_id = start(client, name="first")
        service.wait(task_id, timeout=20)
        for path in ("/", "/tasks/new", f"/tasks/{task_id}", "/compare", f"/tasks/{task_id}x"):
            response = client.get(path)
            assert response.status_code == (404 if path.endswith("x") else 200), path
            policy = response.headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy
            assert "'unsafe-inline'" not in policy
            assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', response.text)
            assert "/static/console/console.js" in assets and "<script>" not in response.text
            for asset in assets:
                assert client.get(asset).status_code == 200, asset
            assert not re.search(r'(?:src|href)="(?:https?:)?//', response.text), path
        page = client.get(f"/tasks/{task_id}").text
    assert "first" in page and "succeeded" in page and 'data-metric="ndcg10"' in page
    for export in ("json", "csv", "trec"):
        assert f"{API}/{task_id}/export?format={export}" in page


def test_the_session_cookie_is_http_only_and_same_site_strict(
    service: EvaluationService, beir_dir: Path
) -> None:
    with console(service, beir_dir.parent) as client:
        cookie = client.get("/").headers["set-cookie"]
    assert cookie.startswith("rankscope_session=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie


def test_forms_need_the_session_csrf_token(service: EvaluationService, beir_dir: Path) -> None:
    with console(service, beir_dir.parent) as client, console(service, beir_dir.parent) as other:
        task_id = start(client, name="kept")
        foreign = csrf_of(other.get("/tasks/new").text)  # another session's token
        for token in (None, "", "0" * 64, foreign):
            form = {"dataset": "beir", "retriever": "bm25"}
            if token is not None:
                form["csrf"] = token
            assert client.post("/tasks/new", data=form).status_code == 403
            assert client.post(f"/tasks/{task_id}/cancel", data=form).status_code == 403
        assert client.get(API).json()["total"] == 1


def test_sign_in_with_the_token(service: EvaluationService, beir_dir: Path) -> None:
    with console(service, beir_dir.parent, token="s3cret-token-of-20ch") as client:
        first = client.get("/tasks/new", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/signin?next=/tasks/new"
        assert "set-cookie" not in first.headers  # no session before signing in
        assert client.get(API).status_code == 401
        page = client.get("/signin?next=/tasks/new")
        assert page.status_code == 200 and 'type="password"' in page.text
        wrong = client.post("/signin", data={"token": "nope", "next": "/tasks/new"})
        assert wrong.status_code == 401 and "not the token" in wrong.text
        right = client.post(
            "/signin",
            data={"token": "s3cret-token-of-20ch", "next": "/tasks/new"},
            follow_redirects=False,
        )
        assert right.status_code == 303 and right.headers["location"] == "/tasks/new"
        assert "HttpOnly" in right.headers["set-cookie"]
        # Signed in: the pages, and the API with the cookie (an unsafe request with the CSRF
        # header only).
        assert client.get("/tasks/new").status_code == 200
        assert client.get(API).status_code == 200
        body = {"dataset": "beir", "retriever": "bm25"}
        assert client.post(API, json=body).status_code == 401
        csrf = csrf_of(client.get("/tasks/new").text)
        posted = client.post(API, json=body, headers={"X-CSRF-Token": csrf})
        assert posted.status_code == 202
        task_id = start(client)
        service.wait(task_id, timeout=20)
        signout = client.post("/signout", data={"csrf": csrf}, follow_redirects=False)
        assert (
            signout.status_code == 303 and 'rankscope_session=""' in signout.headers["set-cookie"]
        )


@pytest.mark.parametrize(
    ("given", "expected"),
    [("/tasks/x", "/tasks/x"), ("//evil.example/", "/"), ("https://evil.example/", "/"),
     ("/\\evil.example", "/")],
)  # fmt: skip
def test_sign_in_goes_back_to_a_page_of_this_server_only(
    service: EvaluationService, beir_dir: Path, given: str, expected: str
) -> None:
    with console(service, beir_dir.parent, token="t-is-a-token-of-16+") as client:
        response = client.post(
            "/signin", data={"token": "t-is-a-token-of-16+", "next": given}, follow_redirects=False
        )
    assert response.headers["location"] == expected


def test_the_form_shows_what_is_wrong(service: EvaluationService, beir_dir: Path) -> None:
    with console(service, beir_dir.parent) as client:
        csrf = csrf_of(client.get("/tasks/new").text)
        cases = [
            ({"k": "many"}, "k: Input should be a valid integer"),
            ({"retriever": "bm25", "b": "3"}, "retriever.RetrieverIn.b"),
            ({"dataset": "missing"}, "it does not exist"),
            ({"retriever": "http", "url": "http://10.1.2.3/"}, "--allow-url"),
            ({"retriever": "http", "url": "http://127.0.0.1:9/", "body": "{nope"}, "not JSON"),
            ({"profile": "trec", "trec_measures": "nDCG@10 Bogus"}, "Bogus"),
        ]
        for fields, message in cases:
            form = {"csrf": csrf, "dataset": "beir", "retriever": "bm25", **fields}
            response = client.post("/tasks/new", data=form)
            assert response.status_code == 422, fields
            assert message in response.text, (fields, response.text[-2000:])
            # What was typed is kept.
            assert 'value="beir"' in response.text or fields.get("dataset") == "missing"
        assert client.get(API).json()["total"] == 0


def test_the_form_fields_make_the_api_body() -> None:
    form = {
        "dataset": ["data/beir"], "split": [""], "retriever": ["http"],
        "url": ["http://127.0.0.1:9000/s"], "method": ["GET"], "body": ['{"q": "{query}"}'],
        "results_path": ["hits"], "id_field": [""], "score_field": [""], "profile": ["trec"],
        "trec_measures": ["nDCG@10, AP"], "k": ["20"], "concurrency": ["2"],
        "max_failures": [""], "name": ["x"], "measure": ["ndcg10"],
    }  # fmt: skip
    assert evaluation_payload(form) == {
        "dataset": {"path": "data/beir", "split": None},
        "retriever": {
            "type": "http",
            "url": "http://127.0.0.1:9000/s",
            "method": "GET",
            "body": {"q": "{query}"},
            "results_path": "hits",
        },
        "profile": "trec",
        "measures": ["nDCG@10", "AP"],
        "k": 20,
        "concurrency": 2,
        "max_failures": None,
        "name": "x",
        "generator": None,
        "answer_measures": None,
    }
    generator = {
        "generator": ["http"], "generator_url": ["http://127.0.0.1:9001/a"],
        "answer_path": ["choices.0.text"], "max_passages": ["3"], "generator_target": [""],
        "generator_body": ['{"q": "{query}", "p": "{passages}"}'],
        "answer_measures": ["rougel, TokenF1"],
    }  # fmt: skip
    payload = evaluation_payload({**form, **generator})
    assert payload["generator"] == {
        "type": "http",
        "url": "http://127.0.0.1:9001/a",
        "body": {"q": "{query}", "p": "{passages}"},
        "answer_path": "choices.0.text",
        "max_passages": 3,
    }
    assert payload["answer_measures"] == ["rougel", "TokenF1"]
    callable_form = {"generator": ["callable"], "generator_target": ["rag:answer"]}
    chosen = evaluation_payload({**form, **generator, **callable_form, "max_passages": [""]})
    assert chosen["generator"] == {"type": "callable", "target": "rag:answer"}
    none = evaluation_payload({**form, **generator, "generator": ["none"]})
    assert none["generator"] is None and none["answer_measures"] is None


def test_datasets_are_found_under_the_roots(tmp_path: Path, beir_dir: Path) -> None:
    (tmp_path / "deep" / "a" / "b" / "c" / "d").mkdir(parents=True)
    (tmp_path / "deep" / "a" / "b" / "c" / "d" / "queries.jsonl").write_text("")
    (tmp_path / "deep" / "a" / "queries.parquet").write_bytes(b"")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "queries.jsonl").write_text("")
    assert find_datasets([tmp_path]) == ["beir", "deep/a"]


def test_the_question_table_sorts_filters_and_pages(
    service: EvaluationService, beir_dir: Path
) -> None:
    with console(service, beir_dir.parent) as client:
        task_id = start(client)
        service.wait(task_id, timeout=20)
        url = f"{API}/{task_id}/queries"
        every = client.get(url, params={"limit": 100}).json()["items"]
        ranked = client.get(url, params={"sort": "-ndcg10", "limit": 100}).json()["items"]
        values = [item["metrics"]["ndcg10"] for item in ranked]
        assert values == sorted(values, reverse=True) and len(values) == 30
        # ties keep dataset order
        for first, second in itertools.pairwise(ranked):
            if first["metrics"]["ndcg10"] == second["metrics"]["ndcg10"]:
                assert first["position"] < second["position"]
        by_id = client.get(url, params={"sort": "query_id", "limit": 5, "offset": 5}).json()
        assert [item["query_id"] for item in by_id["items"]] == sorted(
            item["query_id"] for item in every
        )[5:10]
        found = client.get(url, params={"search": "Q1"}).json()
        assert found["total"] == 11 and {item["query_id"] for item in found["items"]} == {
            "q1",
            *(f"q1{i}" for i in range(10)),
        }
        wrong = client.get(url, params={"sort": "colour"})
        assert wrong.status_code == 422 and "cannot sort by 'colour'" in wrong.json()["detail"]


def test_the_comparison_is_the_report_of_rankscope_compare(
    service: EvaluationService, beir_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with console(service, beir_dir.parent) as client:
        fields = {"profile": "trec", "trec_measures": "nDCG@10 AP"}
        first = start(client, name="bm25-default", **fields)
        second = start(client, name="bm25-tuned", k1="0.6", b="0.3", **fields)
        for task_id in (first, second):
            assert service.wait(task_id, timeout=30).status == "succeeded"
        page = client.get("/compare", params=[("task", first), ("task", second)])
        report = client.get("/compare/report", params=[("task", first), ("task", second)])
        different = client.get("/compare/report", params=[("task", first)])
        # The same tests as `rankscope compare`: every pair with Tukey's HSD, say.
        chosen = [("task", first), ("task", second), ("test", "tukey"), ("pairs", "all")]
        tukey_page = client.get("/compare", params=chosen)
        tukey = client.get("/compare/report", params=chosen)
        unknown = client.get("/compare", params=[*chosen[:2], ("test", "z-test")])
        unknown_report = client.get("/compare/report", params=[*chosen[:2], ("test", "z-test")])
    assert page.status_code == 200 and f"/compare/report?task={first}&amp;task={second}" in (
        page.text
    )
    assert '<option value="randomized-tukey"' in page.text and 'name="pairs"' in page.text
    assert tukey_page.status_code == 200 and "Every pair of" in tukey_page.text
    assert "Tukey&#39;s HSD (topics as blocks)" in tukey_page.text
    assert "&amp;test=tukey&amp;pairs=all" in tukey_page.text
    assert tukey.status_code == 200 and tukey.text.count('<table class="matrix">') == 2
    assert unknown.status_code == 422 and "unknown test &#39;z-test&#39;" in unknown.text
    assert "/compare/report" not in unknown.text
    assert unknown_report.status_code == 422 and "unknown test" in unknown_report.text
    assert report.status_code == 200 and "sandbox" in report.headers["content-security-policy"]
    assert different.status_code == 422 and "at least two tasks" in different.text

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, d, g in service.qrels(first).frame.iter_rows())
    )
    runs = []
    for task_id in (first, second):
        path = tmp_path / f"{task_id}.run"
        service.export(task_id, "trec", path)
        runs.append(str(path))
    capsys.readouterr()
    output = tmp_path / "cli.html"
    code = main(["compare", str(qrels), *runs, "-m", "nDCG@10,AP", "-f", "html", "-o", str(output)])
    assert code == 0
    # The same report, but for where it came from (the files, the command, the time).
    cli = output.read_text()
    for part in ("table.summary", "section.measure"):
        tag, css = part.split(".")
        pattern = rf'<{tag} class="{css}".*?</{tag}>'
        ours, theirs = re.findall(pattern, report.text, re.S), re.findall(pattern, cli, re.S)
        assert ours and ours == theirs, part


def test_cancel_and_resume_from_the_task_page(
    service: EvaluationService, beir_dir: Path, toy_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOY_DELAY", "0.05")
    with console(service, beir_dir.parent, allowed_callables=[f"{toy_module}:*"]) as client:
        task_id = start(
            client, retriever="callable", target=f"{toy_module}:search", concurrency="1"
        )
        csrf = csrf_of(client.get(f"/tasks/{task_id}").text)
        while service.get(task_id).finished < 2:
            time.sleep(0.02)
        cancelled = client.post(f"/tasks/{task_id}/cancel", data={"csrf": csrf})
        assert cancelled.status_code == 200 and "cancelled" in cancelled.text
        again = client.post(f"/tasks/{task_id}/cancel", data={"csrf": csrf})
        assert "only pending or running tasks can be cancelled" in again.text
        monkeypatch.setenv("TOY_DELAY", "0")
        resumed = client.post(f"/tasks/{task_id}/resume", data={"csrf": csrf})
        assert resumed.status_code == 200
        assert service.wait(task_id, timeout=30).succeeded == 30


def test_the_task_page_draws_the_distribution_of_its_main_measure(
    service: EvaluationService,
) -> None:
    """The demo dataset's task page: an SVG histogram (no script) of the per-question values
    of the first measure, in numpy's ten bins of [0, 1], whose counts spread over the bins."""
    import numpy as np

    examples = Path(__file__).resolve().parents[2] / "examples"
    task = service.submit(
        examples / "demo", "bm25", profile="trec", measures=["nDCG@10", "AP"], name="demo"
    )
    service.run(task.id)
    values = [record.metrics["nDCG@10"] for record in service.query_results(task.id)]
    expected, edges = np.histogram(values, bins=10, range=(0.0, 1.0))
    with console(service, examples) as client:
        page = client.get(f"/tasks/{task.id}").text
    svg = page[page.index('<svg class="histogram"') : page.index("</svg>")]
    assert "nDCG@10 over 300 questions" in page and "<script" not in svg
    drawn = [int(count) for count in re.findall(r'data-count="(\d+)"', svg)]
    lows = [float(low) for low in re.findall(r'data-low="([0-9.]+)"', svg)]
    assert drawn == expected.tolist() and sum(drawn) == 300
    assert lows == [round(edge, 2) for edge in edges[:-1].tolist()]
    assert sum(count > 0 for count in drawn) >= 5, "the demo's scores should spread"
    heights = [float(h) for h in re.findall(r'class="bin"[^>]*height="([0-9.]+)"', svg)]
    assert max(heights) == 120 and heights[drawn.index(max(drawn))] == 120


def test_every_profile_of_the_core_is_offered_and_runs_with_its_defaults(
    service: EvaluationService, beir_dir: Path
) -> None:
    from rankscope.engine import PROFILES
    from rankscope.engine.measures import default_measures, parse_measures

    with console(service, beir_dir.parent) as client:
        form = client.get("/tasks/new").text
        offered = re.findall(r'<option value="([a-z_0-9]+)"', form.split('id="profile"')[1])
        assert offered[: len(PROFILES)] == list(PROFILES)
        task_id = start(client, profile="ranx")
        info = service.wait(task_id, timeout=20)
    assert info.status == "succeeded"
    assert info.measures == tuple(m.name for m in parse_measures(list(default_measures("ranx"))))
    # An unknown profile is refused before anything runs, with the core's list of profiles.
    with console(service, beir_dir.parent) as client:
        refused = client.post(API, json={"dataset": "beir", "retriever": "bm25", "profile": "trac"})
    assert refused.status_code == 422
    assert "unknown profile 'trac'" in refused.text and "'torchmetrics'" in refused.text
