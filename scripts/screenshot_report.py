"""Render the comparison report of the bundled example data and screenshot it for the docs.

Run from anywhere: ``.venv/bin/python scripts/screenshot_report.py``. It runs
``rankscope compare examples/data/qrels.txt examples/data/bm25.run examples/data/dense.run
--format html``, opens the report in headless Chromium (Debian's ``chromium``, driven by
Playwright; ``--chromium`` or ``RANKSCOPE_CHROMIUM`` to use another binary) and writes the top of
the page (the summary and the first measure's section) to ``docs/compare-report.png``. Pass
``--full-page`` for the whole report, ``--html PATH`` to keep the HTML file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH = 1240


def add_chromium_option(parser: argparse.ArgumentParser) -> None:
    """``--chromium``, the binary the screenshot scripts drive: ``$RANKSCOPE_CHROMIUM``, else
    ``chromium`` on PATH."""
    parser.add_argument(
        "--chromium",
        default=os.environ.get("RANKSCOPE_CHROMIUM") or shutil.which("chromium"),
        help="the Chromium binary (default: chromium on PATH)",
    )


def require_chromium(args: argparse.Namespace) -> None:
    """Exit with status 1, saying how to get one, when no Chromium was found."""
    if not args.chromium:
        raise SystemExit("no Chromium found: apt-get install chromium, or pass --chromium")


def write_report(path: Path) -> None:
    from rankscope.cli import main

    arguments = [
        "compare",
        str(DATA / "qrels.txt"),
        str(DATA / "bm25.run"),
        str(DATA / "dense.run"),
        "--format",
        "html",
        "--output",
        str(path),
    ]
    code = main(arguments)
    if code != 0:
        raise SystemExit(f"rankscope compare failed with exit code {code}")


def screenshot(html: Path, output: Path, chromium: str, full_page: bool) -> None:
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.on(
                "console",
                lambda message: problems.append(message.text) if message.type == "error" else None,
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(html.as_uri(), wait_until="load")
            if full_page:
                page.screenshot(path=str(output), full_page=True)
            else:
                box = page.locator("#measure-1").bounding_box()
                if box is None:
                    raise SystemExit("the report has no first measure section")
                # Below the section, above the next one (18 px further down).
                bottom = box["y"] + box["height"] + 12
                clip = {"x": 0, "y": 0, "width": WIDTH, "height": bottom}
                page.screenshot(path=str(output), full_page=True, clip=clip)
        finally:
            browser.close()
    if problems:
        raise SystemExit("the report logged errors in the browser:\n" + "\n".join(problems))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "compare-report.png")
    parser.add_argument("--html", type=Path, help="also keep the HTML report here")
    parser.add_argument("--full-page", action="store_true", help="the whole page, not its top")
    add_chromium_option(parser)
    args = parser.parse_args()
    require_chromium(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        html = args.html or Path(folder) / "compare-report.html"
        write_report(html)
        screenshot(html, args.output, args.chromium, args.full_page)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
