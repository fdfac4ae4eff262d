"""`rankscope trec-eval` against a real trec_eval 10 binary, on generated data: the same bytes on
standard output and the same exit status, option set by option set.

The binary is taken from ``RANKSCOPE_TREC_EVAL`` or, failing that, ``trec_eval`` on PATH; it
must say it is version 10 (``trec_eval -v``). Without one the tests are skipped with a message
saying how to run them (build trec_eval from https://github.com/usnistgov/trec_eval with
``make`` and point ``RANKSCOPE_TREC_EVAL`` at it).

Some trec_eval lines are not compared, because trec_eval's own value is not determined by its
inputs: ``rbp`` (it scales gains by a lowest and highest gain it never initialises) and
``prefs_avgjg_Rnonrel(_ret)`` (it can read past the end of an array); the generated cases give
no gains less than 1 apart (trec_eval's comparator truncates their difference to an integer, so
the C library's qsort decides). rankscope prints the corrected values there and warns (tested
in test_trec_eval_command.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doors import NATIVE
from trec_eval_cases import Case, cases

SEEDS = range(int(os.environ.get("RANKSCOPE_TREC_EVAL_SEEDS", "6")))
# Measures whose trec_eval value depends on undefined behaviour: not compared.
NOT_DETERMINED = ("rbp ", "rbp\t", "prefs_avgjg_Rnonrel")


def _binary() -> str | None:
    found = os.environ.get("RANKSCOPE_TREC_EVAL") or shutil.which("trec_eval")
    if not found:
        return None
    version = subprocess.run([found, "-v"], capture_output=True, text=True)
    text = version.stdout + version.stderr
    return found if "version 10" in text else None


TREC_EVAL = _binary()
pytestmark = pytest.mark.skipif(
    TREC_EVAL is None,
    reason="no trec_eval 10 binary: build https://github.com/usnistgov/trec_eval (make) and set "
    "RANKSCOPE_TREC_EVAL=/path/to/trec_eval to compare with it",
)


def _run(command: list[str], folder: Path) -> tuple[int, bytes, bytes]:
    done = subprocess.run(command, capture_output=True, cwd=folder, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _determined(output: bytes) -> list[bytes]:
    return [line for line in output.splitlines() if not line.decode().startswith(NOT_DETERMINED)]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Case]]:
    folder = tmp_path_factory.mktemp("trec_eval_cases")
    return folder, cases(folder, SEEDS)


def test_every_case_prints_what_trec_eval_prints(
    generated: tuple[Path, list[Case]], door: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through both doors: the Python command, and the native executable (which hands what
    it does not serve to this interpreter's)."""
    folder, all_cases = generated
    assert TREC_EVAL is not None
    rankscope = [sys.executable, "-m", "rankscope"] if door == "python" else [str(NATIVE)]
    monkeypatch.setenv("RANKSCOPE_PYTHON", sys.executable)
    differences: list[str] = []
    compared = 0
    for case in all_cases:
        files = [str(case.data.qrels), str(case.data.run)]
        expected = _run([TREC_EVAL, *case.options, *files], folder)
        found = _run([*rankscope, "trec-eval", *case.options, *files], folder)
        compared += 1
        if expected[0] != found[0]:
            differences.append(
                f"{case.id}: exit {found[0]}, trec_eval {expected[0]} "
                f"({found[2].decode(errors='replace').strip()[:200]!r})"
            )
            continue
        ours, theirs = _determined(found[1]), _determined(expected[1])
        if ours != theirs:
            wrong = [
                f"{a.decode()!r} != {b.decode()!r}"
                for a, b in zip(ours, theirs, strict=False)
                if a != b
            ]
            differences.append(
                f"{case.id}: {len(ours)} lines, trec_eval {len(theirs)}; first: "
                + "; ".join(wrong[:3])
            )
    assert compared == len(all_cases) > 0
    assert not differences, f"{len(differences)} of {compared} cases differ:\n" + "\n".join(
        differences
    )
