"""Execute a notebook that evaluates and compares the bundled example runs, and screenshot it
for the docs.

Run from anywhere: ``.venv/bin/python scripts/screenshot_notebook.py``. It builds a notebook
(``rankscope.evaluate`` of ``examples/data/bm25.run``, then ``rankscope.compare_runs`` of it and
``dense.run``, each shown as a cell's value), executes it in a Jupyter kernel (nbclient),
exports it to HTML (nbconvert's ``lab`` template), opens that in headless Chromium (Debian's
``chromium`` through Playwright; ``--chromium`` or ``RANKSCOPE_CHROMIUM`` for another binary),
opens the first folded per-query table and writes the page to ``docs/notebook.png``. Pass
``--html PATH`` to keep the HTML file.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1100

CELLS = [
    "import rankscope",
    'qrels, bm25, dense = (f"examples/data/{name}" for name in ("qrels.txt", "bm25.run", '
    '"dense.run"))\n'
    'results = rankscope.evaluate(qrels, bm25, ["nDCG@10", "AP", "RR", "P@10"])\n'
    "results",
    'results["101"]',
    'rankscope.compare_runs(qrels, [bm25, dense], ["nDCG@10", "AP"], test="randomization")',
]
"""The notebook's code cells: an evaluation, a query's values, a comparison."""


def _report_script() -> ModuleType:
    """The report's screenshot script, which keeps Chromium's flags and the --chromium option."""
    spec = importlib.util.spec_from_file_location(
        "screenshot_report", Path(__file__).resolve().parent / "screenshot_report.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_REPORT = _report_script()
LAUNCH_ARGS: list[str] = list(_REPORT.LAUNCH_ARGS)


def executed_notebook_html(cells: list[str] = CELLS, cwd: Path = ROOT) -> str:
    """The notebook of ``cells`` executed in a kernel (in ``cwd``), exported to one HTML page
    that loads nothing from the network."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                raise RuntimeError(f"cell failed: {output['ename']}: {output['evalue']}")
    exporter = HTMLExporter(template_name="lab")
    exporter.exclude_input_prompt = False
    body, _ = exporter.from_notebook_node(notebook)
    return _offline(body)


def _offline(page: str) -> str:
    """The page without its scripts from the network (MathJax, require.js): nothing in it
    needs them, and a test's browser has no network."""
    import re

    return re.sub(r'<script[^>]*src="https?://[^"]*"[^>]*>\s*</script>', "", page)


def open_page(browser: Any, html: Path) -> tuple[Any, list[str]]:
    """A page showing ``html``, and the errors it logs."""
    problems: list[str] = []
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(html.as_uri(), wait_until="load")
    return page, problems


def screenshot(html: Path, output: Path, chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
        try:
            page, problems = open_page(browser, html)
            page.locator(".rankscope-results summary").first.click()
            page.screenshot(path=str(output), full_page=True)
        finally:
            browser.close()
    if problems:
        raise SystemExit("the notebook logged errors in the browser:\n" + "\n".join(problems))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "notebook.png")
    parser.add_argument("--html", type=Path, help="also keep the HTML notebook here")
    _REPORT.add_chromium_option(parser)
    args = parser.parse_args()
    _REPORT.require_chromium(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        html = args.html or Path(folder) / "notebook.html"
        html.write_text(executed_notebook_html(), encoding="utf-8")
        screenshot(html, args.output, args.chromium)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
