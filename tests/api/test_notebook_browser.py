"""`Results` and a comparison report as Jupyter shows them: a notebook executed in a kernel
(nbclient), exported by nbconvert, read in a real headless browser (Debian's Chromium through
Playwright), with `scripts/screenshot_notebook.py`'s own notebook and functions.

Skipped with the reason where Chromium, playwright or the notebook packages are missing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import struct
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rankscope

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "screenshot_notebook", ROOT / "scripts" / "screenshot_notebook.py"
)
assert _spec is not None and _spec.loader is not None  # the file is part of the repository
notebook = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(notebook)

DATA = ROOT / "examples" / "data"


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for package in ("nbformat", "nbclient", "nbconvert", "ipykernel"):
        pytest.importorskip(package, reason=f"{package} is not installed (test extra)")
    path = tmp_path_factory.mktemp("notebook") / "notebook.html"
    path.write_text(notebook.executed_notebook_html(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed (test extra)"
    )
    executable = os.environ.get("RANKSCOPE_CHROMIUM") or shutil.which("chromium")
    if executable is None:
        pytest.skip("no Chromium found (install Debian's chromium, or set RANKSCOPE_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=notebook.LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, page_file: Path) -> Iterator[Any]:
    shown, problems = notebook.open_page(browser, page_file)
    yield shown
    shown.close()
    assert problems == []  # nothing failed in the page


def rows(table: Any) -> list[list[str]]:
    return [
        [cell.strip() for cell in row.locator("th, td").all_inner_texts()]
        for row in table.locator("tr").all()
    ]


def expected_results() -> rankscope.Results:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankscope.evaluate(
            str(DATA / "qrels.txt"), str(DATA / "bm25.run"), ["nDCG@10", "AP", "RR", "P@10"]
        )


def test_results_show_as_a_table_rounded_as_the_command_line_rounds(page: Any) -> None:
    results = expected_results()
    shown = page.locator(".rankscope-results").first
    assert shown.locator("p").inner_text() == f"bm25: {results.num_queries} queries, profile trec"
    means = rows(shown.locator("table").first)
    assert means == [
        ["run", "nDCG@10", "AP", "RR", "P@10"],
        ["bm25", *(f"{value:.4f}" for value in results.mean().values())],
    ]


def test_per_query_values_are_folded_and_open_on_a_click(page: Any) -> None:
    results = expected_results()
    shown = page.locator(".rankscope-results").first
    per_query = shown.locator("details table")
    assert not per_query.is_visible()
    shown.locator("summary").click()
    assert per_query.is_visible()
    table = rows(per_query)
    assert table[0] == ["query", "nDCG@10", "AP", "RR", "P@10"]
    assert len(table) == 1 + results.num_queries
    first = results.query_ids[0]
    assert table[1] == [first, *(f"{value:.4f}" for value in results[first].values())]


def test_the_comparison_shows_its_table_with_run_names_unquoted(page: Any) -> None:
    summary = page.locator(".rankscope-summary").first
    table = rows(summary.locator("table").first)
    assert table[0] == ["run", "nDCG@10", "AP"]
    assert table[1][0] == "bm25 (baseline)" and table[2][0].startswith("dense")
    assert not any('"' in cell or "'" in cell for row in table for cell in row)
    folded = summary.locator("details")
    assert folded.locator("summary").inner_text() == "per query (30 queries)"
    assert not folded.locator("table").is_visible()


def test_the_page_screenshots(page: Any) -> None:
    page.locator(".rankscope-results summary").first.click()
    data = page.screenshot(full_page=True)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == notebook.WIDTH and height > 900  # the notebook is longer than the window
