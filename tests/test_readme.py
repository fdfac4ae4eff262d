"""The code of the README and of every documentation page (``docs/*.md``) runs as written: each
page's Python blocks (doctests where they show output) as one session, and its shell commands,
from a copy of the example data, with this environment's ``rankscope``. Blocks marked ``text``
or ``console`` are shown, not run."""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
PAGES = ["README.md", *sorted(f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md"))]


def _blocks(page: str) -> list[tuple[str, str, int]]:
    """A page's fenced blocks: (language, text, line of the fence)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return [
        (match.group(1), match.group(2), text.count("\n", 0, match.start()) + 1)
        for match in BLOCK.finditer(text)
    ]


BLOCKS = {page: _blocks(page) for page in PAGES}
PYTHON = {
    page: [(t, line) for lang, t, line in blocks if lang == "python"]
    for page, blocks in BLOCKS.items()
}
SHELL = [
    (page, text, line)
    for page, blocks in BLOCKS.items()
    for language, text, line in blocks
    if language == "sh"
]
# A page whose code starts Spark (a JVM, local executors) runs with the Spark tests
# (tests/spark/test_spark_pages.py), in their session.
SPARK = {page for page, blocks in PYTHON.items() if any("rankscope.spark" in t for t, _ in blocks)}

# Commands the README shows that this test does not run, and why.
NOT_RUN = {
    "scripts/test": "runs this suite (CI runs it)",
    "scripts/example": "creates a second environment; the command it runs is run below",
    "rankscope serve": "serves until interrupted; the API is tested in tests/service",
}


def test_the_readme_has_python_and_shell_blocks() -> None:
    readme_shell = [text for page, text, _ in SHELL if page == "README.md"]
    assert len(PYTHON["README.md"]) >= 3 and len(readme_shell) >= 4
    commands = {line.split("#")[0].strip() for _, text, _ in SHELL for line in text.splitlines()}
    assert set(NOT_RUN) <= commands, "NOT_RUN names commands the pages no longer show"


def test_every_documentation_page_is_collected() -> None:
    assert {"docs/index.md", "docs/service.md", "docs/spark.md"} <= set(PAGES)
    languages = {language for blocks in BLOCKS.values() for language, _, _ in blocks}
    # Only these are fenced: python and sh run, text and console are shown.
    assert languages <= {"python", "sh", "text", "console"}, languages


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory holding a copy of examples/, where the blocks run."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


@pytest.mark.parametrize(
    "page", [page for page, blocks in PYTHON.items() if blocks and page not in SPARK]
)
def test_python_blocks_in_order(page: str, workdir: Path) -> None:
    run_python_blocks(page)


def run_python_blocks(page: str) -> None:
    """A page's Python blocks run as one session, as a reader would type them: doctests where
    they show output (the output must match), plain code otherwise."""
    namespace: dict[str, object] = {}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for text, line in PYTHON[page]:
        if ">>>" not in text:
            exec(compile(text, f"{page}:{line}", "exec"), namespace)
            continue
        test = parser.get_doctest(text, namespace, f"{page}:{line}", page, line)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        assert test.examples, f"{page}:{line}: a doctest block without examples"
        assert runner.failures == 0, "".join(report)
        namespace = test.globs


@pytest.mark.parametrize(
    ("page", "text", "line"), SHELL, ids=[f"{page}:{line}" for page, _, line in SHELL]
)
def test_shell_block(page: str, text: str, line: int, workdir: Path) -> None:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    ran = 0
    for number, command in enumerate(text.splitlines(), line + 1):
        command = command.split(" #")[0].strip()
        if not command or command.startswith("#") or command in NOT_RUN:
            continue
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{page}:{number}: {command}\n{done.stderr}"
        assert "error" not in done.stderr.lower(), f"{page}:{number}: {done.stderr}"
        ran += 1
    assert ran or all(c.split(" #")[0].strip() in NOT_RUN for c in text.splitlines() if c.strip())
