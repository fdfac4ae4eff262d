"""The web console in a real headless browser: Debian's Chromium, driven by Playwright.

A server runs on loopback (uvicorn in a thread) over a BEIR dataset made for the tests. The
tests start an evaluation from the form and watch it reach 100 %, sort the per-question table,
run a generator and read its answers beside the references, compare two tasks, sign in with a
token, and open /docs, with no request leaving the server and no error in the browser's
console. Skipped, with the reason, without the ``playwright`` package or a Chromium binary
(``scripts/test`` installs Debian's; ``RANKSCOPE_CHROMIUM`` names another).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import RETRIEVER_MODULE, make_beir

from loopback import serving
from rankscope.service import EvaluationService, create_app

# A slow group (Chromium): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

# The launch flags live in the screenshot script, the one place that starts Chromium.
_script = importlib.util.spec_from_file_location(
    "screenshot_report", Path(__file__).resolve().parents[2] / "scripts" / "screenshot_report.py"
)
assert _script is not None and _script.loader is not None  # the file is part of the repository
_screenshot_report = importlib.util.module_from_spec(_script)
_script.loader.exec_module(_screenshot_report)
LAUNCH_ARGS: list[str] = _screenshot_report.LAUNCH_ARGS
TIMEOUT_MS = 20_000
MODULE = "console_browser_retrievers"


def chromium_path() -> str | None:
    return os.environ.get("RANKSCOPE_CHROMIUM") or shutil.which("chromium")


try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the tests are skipped (see the browser fixture)
    PlaywrightError = Exception  # type: ignore[assignment,misc]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed (test extra)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium found (install Debian's chromium, or set RANKSCOPE_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data root with a BEIR dataset, and a slow retriever module the server may import."""
    folder = tmp_path_factory.mktemp("console")
    make_beir(folder / "beir", answers=True)
    modules = folder / "modules"
    modules.mkdir()
    (modules / f"{MODULE}.py").write_text(RETRIEVER_MODULE)
    saved = {name: os.environ.get(name) for name in ("TOY_CORPUS", "TOY_DELAY")}
    os.environ["TOY_CORPUS"] = str(folder / "beir" / "corpus.jsonl")
    os.environ["TOY_DELAY"] = "0.15"  # slow enough to see the progress move (about 2 s)
    sys.path.insert(0, str(modules))
    yield folder
    sys.path.remove(str(modules))
    sys.modules.pop(MODULE, None)
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[tuple[str, EvaluationService]]:
    service = EvaluationService(root / "tasks.db")
    app = create_app(service, data_roots=[root], allowed_callables=[f"{MODULE}:*"])
    try:
        with serving(app) as base:
            yield base, service
    finally:
        service.close()


class Watched:
    """A page, and what it asked for and complained about."""

    def __init__(self, page: Any, base: str) -> None:
        self.page = page
        self.base = base
        self.problems: list[str] = []
        self.requests: list[str] = []
        page.set_default_timeout(TIMEOUT_MS)
        page.on(
            "console",
            lambda message: (
                self.problems.append(message.text) if message.type in ("error", "warning") else None
            ),
        )
        page.on("pageerror", lambda error: self.problems.append(str(error)))
        page.on("request", lambda request: self.requests.append(request.url))

    def check(self) -> None:
        assert self.problems == []
        foreign = [url for url in self.requests if not url.startswith(self.base + "/")]
        assert foreign == [], "requests left the server"


@pytest.fixture
def watched(browser: Any, server: tuple[str, EvaluationService]) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1240, "height": 900})
    watched = Watched(context.new_page(), server[0])
    yield watched
    context.close()


def start_from_the_form(watched: Watched, name: str, choose: Callable[[Any], None]) -> str:
    page = watched.page
    page.goto(watched.base + "/")
    page.get_by_role("link", name="New evaluation").first.click()
    page.wait_for_url("**/tasks/new")
    page.select_option("#dataset", "beir")
    choose(page)
    page.fill('input[name="name"]', name)
    page.click("#start")
    page.wait_for_url("**/tasks/*")
    task_id = page.url.rsplit("/", 1)[-1]
    assert len(task_id) == 12
    return task_id


def test_start_an_evaluation_from_the_form_and_watch_it_reach_100(
    watched: Watched, server: tuple[str, EvaluationService]
) -> None:
    def slow_callable(page: Any) -> None:
        page.check('input[name="retriever"][value="callable"]')
        assert page.is_visible('input[name="target"]') and not page.is_visible('input[name="k1"]')
        page.fill('input[name="target"]', f"{MODULE}:search")
        page.fill('input[name="concurrency"]', "2")

    task_id = start_from_the_form(watched, "watched", slow_callable)
    page = watched.page
    seen: list[int] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            value, status = page.evaluate(
                "[document.querySelector('#progress').value,"
                " document.querySelector('#task').dataset.status]"
            )
        except PlaywrightError:  # the page reloading as the task ends
            continue
        seen.append(int(value))
        if status == "succeeded":
            break
        time.sleep(0.1)
    # The page reloads once the task is done: exact means, every failure.
    page.wait_for_selector('#task[data-status="succeeded"]')
    page.wait_for_load_state("load")
    assert page.inner_text("#progress-text").startswith("30 of 30 questions (100 %)")
    assert int(page.eval_on_selector("#progress", "bar => bar.value")) == 30
    assert any(0 < value < 30 for value in seen), f"no progress seen between 0 and 30: {seen}"
    assert seen == sorted(seen)
    info = server[1].get(task_id)
    assert info.status == "succeeded"
    cards = page.locator("[data-metric]")
    assert cards.count() == len(info.measures)
    assert page.inner_text('[data-metric="ndcg10"]') == f"{info.metrics['ndcg10']:.4f}"
    assert page.locator("#queries tbody tr").count() == 30
    watched.check()


def test_sort_and_filter_the_question_table(
    watched: Watched, server: tuple[str, EvaluationService]
) -> None:
    task_id = start_from_the_form(watched, "sorted", lambda page: None)
    assert server[1].wait(task_id, timeout=20).status == "succeeded"
    page = watched.page
    page.goto(f"{watched.base}/tasks/{task_id}")
    page.wait_for_selector("#queries tbody tr")

    def column(name: str) -> list[str]:
        index = page.locator("#queries thead th").all_inner_texts().index(name)
        return page.locator(f"#queries tbody tr td:nth-child({index + 1})").all_inner_texts()

    def sort_by(measure: str) -> None:
        before = page.get_attribute("#queries", "data-loaded")
        page.click(f'#queries th button[data-sort="{measure}"]')
        page.wait_for_function(
            "before => document.querySelector('#queries').dataset.loaded !== before", arg=before
        )

    sort_by("ndcg10")
    ascending = [float(value) for value in column("ndcg10")]
    assert ascending == sorted(ascending) and len(ascending) == 30
    assert page.get_attribute('th button[data-sort="ndcg10"]', "aria-sort") == "ascending"
    sort_by("ndcg10")
    descending = [float(value) for value in column("ndcg10")]
    assert descending == sorted(ascending, reverse=True) and descending[0] > descending[-1]
    best = max((r.metrics or {})["ndcg10"] for r in server[1].query_results(task_id))
    assert float(column("ndcg10")[0]) == round(best, 4)

    before = page.get_attribute("#queries", "data-loaded")
    page.fill("#search", "q2")
    page.wait_for_function(
        "before => document.querySelector('#queries').dataset.loaded !== before", arg=before
    )
    assert sorted(column("Query")) == sorted(["q2", *(f"q2{i}" for i in range(10))])
    assert page.inner_text("#page-text") == "1–11 of 11"
    watched.check()


def test_answers_beside_their_references(
    watched: Watched, server: tuple[str, EvaluationService]
) -> None:
    def with_generator(page: Any) -> None:
        page.check('input[name="retriever"][value="callable"]')
        page.fill('input[name="target"]', f"{MODULE}:ids_only")
        assert not page.is_visible('input[name="generator_target"]')
        page.check('input[name="generator"][value="callable"]')
        assert page.is_visible('input[name="generator_target"]')
        assert not page.is_visible('input[name="generator_url"]')
        page.fill('input[name="generator_target"]', f"{MODULE}:answer")
        page.fill('input[name="max_passages"]', "3")
        page.fill('input[name="answer_measures"]', "rougel TokenF1")

    task_id = start_from_the_form(watched, "answered", with_generator)
    service = server[1]
    info = service.wait(task_id, timeout=20)
    assert info.status == "succeeded" and info.answer_measures == ("rougel", "TokenF1")
    assert info.generator is not None and info.generator["max_passages"] == 3
    page = watched.page
    page.goto(f"{watched.base}/tasks/{task_id}")
    page.wait_for_selector("#queries tbody tr")
    shown_mean = page.inner_text('[data-answer-metric="TokenF1"]')
    assert shown_mean == f"{info.answer_metrics['TokenF1']:.4f}"
    assert "6 of 30 questions have no reference answer" in page.inner_text("#answer-note")
    headers = page.locator("#queries thead th").all_inner_texts()
    assert headers[-2:] == ["Answer", "Reference"] and "TokenF1" in headers

    def cells(name: str) -> list[str]:
        index = page.locator("#queries thead th").all_inner_texts().index(name)
        return page.locator(f"#queries tbody tr td:nth-child({index + 1})").all_inner_texts()

    records = {r.query_id: r for r in service.query_results(task_id)}
    rows = list(zip(cells("Query"), cells("Answer"), cells("Reference"), strict=True))
    assert len(rows) == 30
    for query_id, answer, reference in rows:
        record = records[query_id]
        assert answer == record.answer
        assert reference == (" | ".join(record.references) if record.references else "–")

    for _ in range(2):  # a second click sorts descending
        before = page.get_attribute("#queries", "data-loaded")
        page.click('#queries th button[data-sort="TokenF1"]')
        page.wait_for_function(
            "before => document.querySelector('#queries').dataset.loaded !== before", arg=before
        )
    assert page.get_attribute('th button[data-sort="TokenF1"]', "aria-sort") == "descending"
    shown = [float(value) for value in cells("TokenF1") if value != "–"]
    best = max(
        r.answer_metrics["TokenF1"] for r in records.values() if r.answer_metrics is not None
    )
    assert len(shown) == 24 and shown[0] == round(best, 4) and shown[0] > shown[-1]
    assert shown == sorted(shown, reverse=True)
    assert cells("TokenF1")[24:] == ["–"] * 6  # the answers without a reference, last
    watched.check()


def test_compare_two_tasks(watched: Watched, server: tuple[str, EvaluationService]) -> None:
    service = server[1]

    def bm25(k1: str, b: str) -> Callable[[Any], None]:
        def choose(page: Any) -> None:
            page.check('input[name="retriever"][value="bm25"]')
            page.fill('input[name="k1"]', k1)
            page.fill('input[name="b"]', b)
            page.select_option("#profile", "trec")
            page.fill('input[name="trec_measures"]', "nDCG@10 AP RR")

        return choose

    first = start_from_the_form(watched, "bm25-default", bm25("1.5", "0.75"))
    second = start_from_the_form(watched, "bm25-flat", bm25("0.3", "0.1"))
    for task_id in (first, second):
        assert service.wait(task_id, timeout=20).status == "succeeded"
    page = watched.page
    page.goto(watched.base + "/")
    assert page.is_disabled("#compare-selected")
    page.check(f'input[name="task"][value="{first}"]')
    page.check(f'input[name="task"][value="{second}"]')
    page.click("#compare-selected")
    page.wait_for_url("**/compare?*")
    report = page.frame_locator("#report")
    summary = report.locator("table.summary")
    summary.wait_for()
    assert summary.locator("thead th").all_inner_texts() == ["run", "nDCG@10", "AP", "RR"]
    rows = summary.locator("tbody tr").all_inner_texts()
    assert [row.split()[0] for row in rows] == ["bm25-default", "bm25-flat"]
    assert "(baseline)" in rows[0]  # the task that ran first, though it is listed second
    assert report.locator("section.measure").count() == 3
    # The same tasks again, every pair with the randomized Tukey HSD test.
    page.select_option("#test", "randomized-tukey")
    page.check("#all-pairs")
    page.click('#retest button[type="submit"]')
    page.wait_for_url("**pairs=all*")
    assert "randomized Tukey HSD" in page.inner_text("main")
    matrices = page.frame_locator("#report").locator("table.matrix")
    matrices.first.wait_for()
    assert matrices.count() == 3
    watched.check()


def test_fill_the_holes_of_a_task_with_a_judge_from_its_page(
    watched: Watched, server: tuple[str, EvaluationService]
) -> None:
    from chat_server import ChatServer, serve_chat

    service = server[1]
    task_id = start_from_the_form(watched, "to-judge", lambda page: None)
    assert service.wait(task_id, timeout=20).status == "succeeded"
    page = watched.page
    with serve_chat(ChatServer(delay=0.05)) as judge:
        page.goto(f"{watched.base}/tasks/{task_id}")
        page.fill('input[name="judge_url"]', judge.url)
        page.fill('input[name="judge_model"]', "judge-model")
        page.fill('input[name="depth"]', "3")
        page.fill('input[name="calibration_sample"]', "5")
        page.click("#judge-start")
        page.wait_for_url("**/judgings/*")
        judging_id = page.url.rsplit("/", 1)[-1]
        # The page follows the judging and shows the whole of it once it is done.
        page.wait_for_selector('#judging[data-status="succeeded"]')
        page.wait_for_selector("#reevaluation")
    info = service.judging(judging_id)
    assert info.source == {"evaluation": task_id, "depth": 3} and info.failed == 0
    assert page.inner_text("#progress-text").startswith(
        f"{info.total} of {info.total} pairs judged (100 %)"
    )
    assert "5 pairs both judged" in page.inner_text("#agreement")
    again = service.reevaluation(judging_id)
    assert again is not None
    for name in again["measures"]:
        cell = page.inner_text(f'#reevaluation tr[data-measure="{name}"] td[data-when="after"]')
        assert cell == f"{again['after'][name]:.4f}"
    page.goto(f"{watched.base}/tasks/{task_id}")
    page.click(f'#judgings a[href="/judgings/{judging_id}"]')
    page.wait_for_url(f"**/judgings/{judging_id}")
    watched.check()


def test_sign_in_when_a_token_is_set(browser: Any, root: Path) -> None:
    service = EvaluationService(root / "signed.db")
    app = create_app(service, data_roots=[root], token="open sesame, open up")
    try:
        with serving(app) as base:
            context = browser.new_context()
            watched = Watched(context.new_page(), base)
            page = watched.page
            page.goto(base + "/tasks/new")
            page.wait_for_url("**/signin?next=/tasks/new")
            page.fill('input[name="token"]', "wrong")
            page.click('button[type="submit"]')
            assert page.inner_text(".error") == "That is not the token."
            page.fill('input[name="token"]', "open sesame, open up")
            page.click('button[type="submit"]')
            page.wait_for_url("**/tasks/new")
            assert page.is_visible("#start")
            (cookie,) = context.cookies()
            assert cookie["name"] == "rankscope_session"
            assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
            assert page.evaluate("document.cookie") == ""  # out of reach of scripts
            page.click("text=Sign out")
            page.wait_for_url("**/signin")
            watched.problems = [p for p in watched.problems if "401" not in p]
            watched.check()
            context.close()
    finally:
        service.close()


def test_docs_work_offline(watched: Watched) -> None:
    page = watched.page
    page.goto(watched.base + "/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    operations = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/evaluations/{task_id}/queries" in {
        op.replace("\u200b", "") for op in operations
    }
    watched.check()


def test_a_task_with_a_generator_fits_a_1400_pixel_window(
    browser: Any, server: tuple[str, EvaluationService], root: Path
) -> None:
    # An answer of one long word (a URL, a code) and the twelve default measures.
    (root / "modules" / "long_answers.py").write_text(
        "def answer(question, passages):\n    return 'https://example.org/' + 'x' * 300\n"
    )
    base, service = server
    task = service.submit(
        root / "beir",
        f"{MODULE}:ids_only",
        generator="long_answers:answer",
        name="a task with a generator and every answer measure",
    )
    info = service.run(task.id)
    sys.modules.pop("long_answers", None)
    assert info.status == "succeeded"
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        watched = Watched(context.new_page(), base)
        page = watched.page
        page.goto(f"{base}/tasks/{task.id}")
        page.wait_for_selector("#queries tbody tr")
        table, frame = page.evaluate(
            "[document.querySelector('#queries').scrollWidth,"
            " document.querySelector('#queries').parentElement.clientWidth]"
        )
        assert table <= frame, f"the table is {table} px wide in a frame of {frame} px"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
        watched.check()
    finally:
        context.close()


def test_judging_tasks_are_listed_beside_evaluation_tasks(
    watched: Watched, server: tuple[str, EvaluationService], tmp_path: Path
) -> None:
    from chat_server import ChatServer, serve_chat, write_inputs

    service = server[1]
    files = write_inputs(tmp_path / "in", 20)
    page = watched.page
    with serve_chat(ChatServer(delay=0.1)) as judge:
        spec = {"type": "http", "url": judge.url, "model": "judge-model", "backoff": 0.01}
        task = service.submit_judging(spec, **files, name="listed", concurrency=1)
        service.start(task.id)
        page.goto(watched.base + "/")
        row = f'#judging-tasks tr[data-judging="{task.id}"]'
        page.wait_for_selector(row)
        assert page.inner_text(f"{row} td.name a") == "listed"
        assert page.inner_text(f"{row} td:nth-child(4)") == "judge-model"
        # The list follows the task while it runs, and shows it done.
        page.wait_for_selector(f'{row}[data-status="succeeded"]')
    assert page.inner_text(f'{row} [data-field="status"]') == "succeeded"
    assert page.inner_text(f'{row} [data-field="count"]') == "20 / 20 pairs"
    assert page.get_attribute(f'{row} [data-field="bar"]', "value") == "20"
    page.click(f'{row} a[href="/judgings/{task.id}"]')
    page.wait_for_url(f"**/judgings/{task.id}")
    page.wait_for_selector('#judging[data-status="succeeded"]')
    watched.check()


def test_the_judging_task_list_pages_through_more_than_fifty(
    watched: Watched, server: tuple[str, EvaluationService], tmp_path: Path
) -> None:
    from chat_server import ChatServer, serve_chat, write_inputs

    service = server[1]
    files = write_inputs(tmp_path / "in", 3)
    page = watched.page
    _, before = service.list_judgings(limit=1)
    with serve_chat(ChatServer(delay=0.05)) as judge:
        spec = {"type": "http", "url": judge.url, "model": "judge-model", "backoff": 0.01}
        # The oldest of 55 new judging tasks runs; the others wait (pending, so the list polls).
        oldest = service.submit_judging(spec, **files, name="oldest", concurrency=1)
        for i in range(54):  # the same judging submitted again is the same task: other pairs
            others = write_inputs(tmp_path / f"in{i}", 4 + i)
            service.submit_judging(spec, **others, name=f"waiting {i}", concurrency=1)
        total = before + 55
        service.start(oldest.id)
        page.goto(watched.base + "/")
        rows = "#judging-tasks tbody tr"
        page.wait_for_selector(rows)
        assert page.locator(rows).count() == 50
        assert page.inner_text("#judging-pager span") == f"1–50 of {total} judging tasks"
        assert page.locator("#judging-pager a", has_text="Newer").count() == 0
        assert page.locator(f'{rows}[data-judging="{oldest.id}"]').count() == 0
        page.click("#judging-pager a:has-text('Older')")
        page.wait_for_url("**/?offset=0&judging_offset=50*")
        assert page.locator(rows).count() == min(50, total - 50)
        assert page.inner_text("#judging-pager span") == (
            f"51–{min(100, total)} of {total} judging tasks"
        )
        # The second page follows its own tasks: the oldest new one, run to its end.
        row = f'{rows}[data-judging="{oldest.id}"]'
        assert page.inner_text(f"{row} td.name a") == "oldest"
        page.wait_for_selector(f'{row}[data-status="succeeded"]')
        assert page.inner_text(f'{row} [data-field="count"]') == "3 / 3 pairs"
    # It polls the page it shows (its waiting tasks keep it polling).
    polled = "/api/v1/judgings?limit=50&offset=50"
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not any(url.endswith(polled) for url in watched.requests):
        assert time.monotonic() < deadline, "the second page never polled its tasks"
        page.wait_for_timeout(100)
    page.click("#judging-pager a:has-text('Newer')")
    page.wait_for_url("**/?offset=0&judging_offset=0*")
    assert page.locator(rows).count() == 50
    assert page.inner_text("#judging-pager span") == f"1–50 of {total} judging tasks"
    watched.check()


def test_a_task_page_shows_what_the_judge_of_its_answers_did(
    watched: Watched, server: tuple[str, EvaluationService], root: Path
) -> None:
    from chat_server import ChatServer, serve_chat

    def faults(prompt: str, passage: str, attempt: int) -> str | None:
        return "503" if attempt == 1 and " q1\n" in prompt else None

    base, service = server
    page = watched.page
    with serve_chat(ChatServer(faults=faults)) as judge:
        spec = {"type": "http", "url": judge.url, "model": "judge-model", "backoff": 0.01}
        task = service.submit(
            root / "beir",
            f"{MODULE}:ids_only",
            generator=f"{MODULE}:answer",
            answer_measures=["AnswerRelevance", "TokenF1"],
            answer_judge={"judge": spec},
            name="judged answers",
        )
        info = service.run(task.id)
    assert info.status == "succeeded" and info.judge_tallies is not None
    tallies = info.judge_tallies.to_dict()
    assert tallies["askings"] == 30 and tallies["calls"] == {"answered": 30, "server error": 1}
    page.goto(f"{base}/tasks/{task.id}")
    shown = page.inner_text("#judge-tallies")
    assert shown == (
        "Judge: 30 askings, 0 without a grade; 31 calls (answered 30, server error 1); tokens "
        f"{tallies['prompt_tokens']} prompt, 210 completion"
    )
    # The script that follows a running task words them as the page does.
    assert page.evaluate("(tallies) => judgeTallies(tallies)", tallies) == shown
    watched.check()
