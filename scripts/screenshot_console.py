"""Screenshot the web console of ``rankscope serve`` for the docs.

Run from anywhere: ``.venv/bin/python scripts/screenshot_console.py``. It serves the console on
loopback over the bundled demo dataset (``examples/demo/``, written by
``scripts/make_demo_data.py``), runs a few evaluations (BM25 with two settings under the trec
profile, one under weknora, and a slow one still running),
opens the pages in headless Chromium (Debian's ``chromium``, driven by Playwright, launched as
``scripts/screenshot_report.py`` does; ``--chromium`` or ``RANKSCOPE_CHROMIUM`` for another
binary) and writes ``docs/console-tasks.png``, ``docs/console-task.png`` (the demo task's page:
its metrics, the distribution of its nDCG@10 over the questions, and the questions sorted by
it), ``docs/console-new.png``, ``docs/console-compare.png`` and ``docs/console-judging.png``
(the holes of the demo task's top 5 judged by a stand-in for an LLM judge: the tests' local
chat-completions server, grading a passage by the query's words it holds).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1240
MODULE = "console_screenshot_retrievers"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


DEMO = ROOT / "examples" / "demo"
# The report's screenshot script keeps Chromium's flags and the --chromium option.
_REPORT = _load("screenshot_report", ROOT / "scripts" / "screenshot_report.py")


def _tasks(service: Any) -> dict[str, str]:
    """The evaluations shown: three finished, one running slowly in the background."""
    trec = {"profile": "trec", "measures": ["nDCG@10", "AP", "RR", "P@10"]}
    ids = {
        "default": service.submit(DEMO, "bm25", name="bm25-default", **trec).id,
        "flat": service.submit(
            DEMO, {"type": "bm25", "k1": 0.4, "b": 0.1}, name="bm25-flat", **trec
        ).id,
        "weknora": service.submit(DEMO, "bm25", name="bm25-weknora").id,
    }
    for task_id in ids.values():
        service.run(task_id)
    ids["running"] = service.submit(
        DEMO, f"{MODULE}:search", name="slow-service", concurrency=1, **trec
    ).id
    service.start(ids["running"])
    return ids


def _overlap_grade(query: str, passage: str) -> int:
    """The stand-in judge's grade: the share of the query's longer words the passage holds,
    in quarters (3 from three quarters up)."""
    words = {word.strip("?.,") for word in query.lower().split() if len(word) > 3}
    held = sum(word in passage.lower() for word in words) / max(1, len(words))
    return min(3, int(held * 4))


def screenshots(output: Path, chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    from rankscope.service import EvaluationService, create_app

    launch_args = _REPORT.LAUNCH_ARGS
    helpers = _load("service_helpers", ROOT / "tests" / "service" / "service_helpers.py")
    sys.path.insert(0, str(ROOT / "tests"))  # the chat server imports its loopback helper
    loopback = _load("loopback", ROOT / "tests" / "loopback.py")
    chat = _load("chat_server", ROOT / "tests" / "chat_server.py")
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / f"{MODULE}.py").write_text(helpers.RETRIEVER_MODULE)
        os.environ["TOY_CORPUS"] = str(DEMO / "corpus.jsonl")
        os.environ["TOY_DELAY"] = "0.4"
        sys.path.insert(0, str(folder))
        service = EvaluationService(folder / "tasks.db", allowed_callables=[f"{MODULE}:*"])
        app = create_app(service, data_roots=[ROOT / "examples"], allowed_callables=[f"{MODULE}:*"])
        try:
            ids = _tasks(service)
            while service.get(ids["running"]).finished < 18:
                time.sleep(0.05)
            with (
                loopback.serving(app) as base,
                chat.serve_chat(chat.ChatServer(grades=_overlap_grade)) as judge,
                sync_playwright() as playwright,
            ):
                browser = playwright.chromium.launch(executable_path=chromium, args=launch_args)
                page = browser.new_page(viewport={"width": WIDTH, "height": 640})
                page.on("pageerror", lambda error: problems.append(str(error)))
                page.on(
                    "console",
                    lambda m: problems.append(m.text) if m.type == "error" else None,
                )
                page.goto(base + "/")
                page.wait_for_timeout(1200)  # a poll or two: the running task's bar moves
                page.screenshot(path=str(output / "console-tasks.png"))

                page.set_viewport_size({"width": WIDTH, "height": 1350})
                page.goto(f"{base}/tasks/{ids['default']}")
                page.wait_for_selector("#queries tbody tr")
                page.click('#queries th button[data-sort="nDCG@10"]')
                page.click('#queries th button[data-sort="nDCG@10"]')
                page.wait_for_timeout(400)
                page.screenshot(path=str(output / "console-task.png"))

                page.goto(base + "/tasks/new")
                page.check('input[name="retriever"][value="http"]')
                page.fill('input[name="url"]', "http://127.0.0.1:9000/search")
                page.fill('input[name="results_path"]', "data.hits")
                page.fill('input[name="name"]', "my-retriever")
                page.screenshot(path=str(output / "console-new.png"), full_page=True)

                page.set_viewport_size({"width": WIDTH, "height": 1000})
                page.goto(f"{base}/compare?task={ids['default']}&task={ids['flat']}")
                page.frame_locator("#report").locator("table.summary").wait_for()
                page.screenshot(path=str(output / "console-compare.png"))

                judging = service.submit_judging(
                    {"type": "http", "url": judge.url, "model": "qwen2.5-7b-instruct"},
                    holes_of=ids["default"],
                    depth=5,
                    calibrate=True,
                    calibration_sample=60,
                    concurrency=8,
                    name="bm25-default-holes",
                )
                service.run_judging(judging.id)
                page.set_viewport_size({"width": WIDTH, "height": 1100})
                page.goto(f"{base}/judgings/{judging.id}")
                page.wait_for_selector("#reevaluation")
                page.screenshot(path=str(output / "console-judging.png"))
                browser.close()
        finally:
            service.close()
    if problems:
        raise SystemExit("the console logged errors in the browser:\n" + "\n".join(problems))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs", help="a directory")
    _REPORT.add_chromium_option(parser)
    args = parser.parse_args()
    _REPORT.require_chromium(args)
    args.output.mkdir(parents=True, exist_ok=True)
    screenshots(args.output, args.chromium)
    print(f"wrote {args.output}/console-{{tasks,task,new,compare,judging}}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
