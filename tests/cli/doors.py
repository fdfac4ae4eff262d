"""The command line's two doors: the Python command (`rankscope.cli.main`, in-process) and the
native `rankscope` executable (a process), which serves `trec-eval` itself and hands the rest
to the Python command. Tests of a command run through both with `run` under the `door`
fixture (tests/cli/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from contextvars import ContextVar
from pathlib import Path

import pytest

from rankscope.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOORS = ("python", "native")


def native_executable() -> Path | None:
    """The native executable: ``RANKSCOPE_NATIVE``, else the ``rankscope`` installed beside this
    interpreter when it is the native one (a wheel's, or the one scripts/bootstrap installs),
    else the workspace's release build — not when the installed wheel is under test
    (``RANKSCOPE_TEST_WHEEL``, scripts/test --wheel): then only the wheel's own."""
    given = os.environ.get("RANKSCOPE_NATIVE")
    if given:
        return Path(given)
    name = "rankscope.exe" if sys.platform == "win32" else "rankscope"
    candidates = [Path(sysconfig.get_path("scripts")) / name]
    if not os.environ.get("RANKSCOPE_TEST_WHEEL"):
        candidates.append(ROOT / "target" / "release" / name)
    for candidate in candidates:
        if candidate.is_file() and candidate.read_bytes()[:2] != b"#!":
            return candidate
    return None


NATIVE = native_executable()
CURRENT: ContextVar[str] = ContextVar("door", default="python")


def run(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``rankscope ARGUMENTS`` through the
    current door."""
    if CURRENT.get() == "python":
        code = main(arguments)
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    assert NATIVE is not None
    # The interpreter for what the native door hands on: this one, when none is beside it.
    environment = {**os.environ, "RANKSCOPE_PYTHON": sys.executable}
    done = subprocess.run(
        [str(NATIVE), *arguments], capture_output=True, env=environment, timeout=300
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()
