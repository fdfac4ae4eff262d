"""The README's code runs as written: its Python blocks (doctests where they show output) and its
shell commands, from a copy of the example data, with this environment's ``rankscope``."""

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
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
BLOCKS = [
    (match.group(1), match.group(2), README.count("\n", 0, match.start()) + 1)
    for match in BLOCK.finditer(README)
]
PYTHON = [(text, line) for language, text, line in BLOCKS if language == "python"]
SHELL = [(text, line) for language, text, line in BLOCKS if language == "sh"]

# Commands the README shows that this test does not run, and why.
NOT_RUN = {
    "scripts/test": "runs this suite (CI runs it)",
    "scripts/example": "creates a second environment; the command it runs is run below",
    "rankscope serve": "serves until interrupted; the API is tested in tests/service",
}


def test_the_readme_has_python_and_shell_blocks() -> None:
    assert len(PYTHON) >= 3 and len(SHELL) >= 4
    commands = {line.split("#")[0].strip() for text, _ in SHELL for line in text.splitlines()}
    assert set(NOT_RUN) <= commands, "NOT_RUN names commands the README no longer shows"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory holding a copy of examples/, where the blocks run."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path


def test_python_blocks_in_order(workdir: Path) -> None:
    """The Python blocks run as one session, as a reader would type them: doctests where they
    show output (the output must match), plain code otherwise."""
    namespace: dict[str, object] = {}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for text, line in PYTHON:
        if ">>>" not in text:
            exec(compile(text, f"README.md:{line}", "exec"), namespace)
            continue
        test = parser.get_doctest(text, namespace, f"README.md:{line}", "README.md", line)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        assert test.examples, f"README.md:{line}: a doctest block without examples"
        assert runner.failures == 0, "".join(report)
        namespace = test.globs


@pytest.mark.parametrize(("text", "line"), SHELL, ids=[f"line{line}" for _, line in SHELL])
def test_shell_block(text: str, line: int, workdir: Path) -> None:
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
        assert done.returncode == 0, f"README.md:{number}: {command}\n{done.stderr}"
        assert "error" not in done.stderr.lower(), f"README.md:{number}: {done.stderr}"
        ran += 1
    assert ran or all(c.split(" #")[0].strip() in NOT_RUN for c in text.splitlines() if c.strip())
