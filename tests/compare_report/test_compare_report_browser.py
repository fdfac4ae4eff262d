"""The HTML report in a real headless browser: Debian's Chromium, driven by Playwright.

`scripts/test` installs Chromium where apt-get is available; elsewhere (or without the
``playwright`` package) these tests are skipped with the reason. Set ``RANKSCOPE_CHROMIUM`` to
use another Chromium binary.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from compare_report_data import write_trec_files

from rankscope.cli import main

# A slow group (Chromium): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

# The launch flags live in the screenshot script, the one other place that starts Chromium.
_script = importlib.util.spec_from_file_location(
    "screenshot_report", Path(__file__).resolve().parents[2] / "scripts" / "screenshot_report.py"
)
assert _script is not None and _script.loader is not None  # the file is part of the repository
_screenshot_report = importlib.util.module_from_spec(_script)
_script.loader.exec_module(_screenshot_report)
LAUNCH_ARGS: list[str] = _screenshot_report.LAUNCH_ARGS
MEASURES = ["nDCG@10", "AP", "P@10"]
SYSTEMS = ("bm25", "dense", "hybrid")
QUERIES = 20


def chromium_path() -> str | None:
    configured = os.environ.get("RANKSCOPE_CHROMIUM")
    if configured:
        return configured
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed (test extra)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip(
            "no Chromium found (install Debian's chromium, as scripts/test does, or set "
            "RANKSCOPE_CHROMIUM)"
        )
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def report_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """An HTML report from generated runs, written by the command line."""
    qrels, runs = write_trec_files(tmp_path, n_queries=QUERIES, systems=SYSTEMS)
    path = tmp_path / "report.html"
    options = ["-m", ",".join(MEASURES), "-f", "html", "-o", str(path), "--resamples", "500"]
    code = main(["compare", qrels, *runs, *options])
    assert code == 0, capsys.readouterr().err
    return path


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_report_loads_without_errors_and_shows_every_part(
    browser: Any, report_path: Path, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1240, "height": 900})
    console: list[tuple[str, str]] = []
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report_path.as_uri(), wait_until="load")

    assert errors == []
    assert [text for kind, text in console if kind in ("error", "warning")] == []
    # The page itself is the only thing loaded: no network, no other file.
    assert requests == [report_path.as_uri()]

    assert page.title() == "rankscope: dense, hybrid vs bm25"
    summary = page.locator("table.summary")
    assert summary.count() == 1
    assert summary.locator("thead th").all_inner_texts() == ["run", *MEASURES]
    rows = summary.locator("tbody tr")
    assert rows.count() == len(SYSTEMS)
    assert rows.nth(0).inner_text().startswith("bm25 (baseline)")
    assert summary.locator("strong").count() >= len(MEASURES)  # the best value of each measure

    sections = page.locator("section.measure")
    assert sections.count() == len(MEASURES)
    for index, measure in enumerate(MEASURES):
        section = sections.nth(index)
        assert section.locator("h2").inner_text() == measure
        charts = section.locator("svg.diff-chart")
        assert charts.count() == len(SYSTEMS) - 1
        # One bar per query, drawn with a visible size.
        assert charts.first.locator("rect").count() == QUERIES
        box = charts.first.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
        assert section.locator("svg.dist-chart").count() == 1
        assert section.locator("svg.ci-chart").count() == 1
        assert section.locator("svg.dist-chart circle").count() == QUERIES * len(SYSTEMS)
        moves = section.locator(".moves code")
        assert moves.count() > 0  # the query ids of the largest wins and losses

    screenshot = tmp_path / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    data = screenshot.read_bytes()
    width, height = png_size(data)
    assert width == 1240
    assert height > 2000  # the full page: summary and three measure sections
    assert len(data) > 50_000
    page.close()


def test_links_to_measures_scroll_to_their_section(browser: Any, report_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1240, "height": 700})
    page.goto(report_path.as_uri())
    page.locator("nav a", has_text="P@10").click()
    page.wait_for_function("window.location.hash === '#measure-3'")
    top = page.locator("#measure-3").evaluate("node => node.getBoundingClientRect().top")
    assert abs(top) < 5
    page.close()
