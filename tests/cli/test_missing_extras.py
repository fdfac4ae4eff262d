"""Every command exits 3 (`EXIT_DEPENDENCY`) naming the package and the extra that brings it
when an optional dependency is missing, the service's commands included: never 70, the
internal error. Each package is hidden (``sys.modules[name] = None`` makes its import fail) and
the modules that imported it are forgotten for the test, so that they import it again."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankscope.cli import EXIT_DEPENDENCY, main

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
QRELS, BM25, DENSE = (str(DATA / name) for name in ("qrels.txt", "bm25.run", "dense.run"))

CASES = [
    # (hidden package, its name in the message, extra, command line)
    ("pydantic", "pydantic", "service", ["serve", "--port", "1"]),
    ("fastapi", "fastapi", "service", ["serve", "--port", "1"]),
    ("uvicorn", "uvicorn", "service", ["serve", "--port", "1"]),
    ("jinja2", "jinja2", "service", ["serve", "--port", "1"]),
    ("fastapi_offline", "fastapi-offline", "service", ["serve", "--port", "1"]),
    ("pydantic", "pydantic", "service", ["run", "--dataset", "x", "--retriever", "http://h"]),
    ("pydantic", "pydantic", "service", ["tasks", "list"]),
    ("pydantic", "pydantic", "service", ["worker", "--db", "postgresql://h/db"]),
    ("psycopg", "psycopg", "postgres", ["worker", "--db", "postgresql://h/db"]),
    # The t test is the core's; Wilcoxon's is scipy's.
    ("scipy", "scipy", "stats", ["compare", QRELS, BM25, DENSE, "--test", "wilcoxon"]),
    ("sklearn", "scikit-learn", "judge", ["agree", QRELS, QRELS]),
    ("pyspark", "pyspark", "spark", ["evaluate", QRELS, BM25, "--engine", "spark"]),
]


FORGOTTEN = ("rankscope.service", "rankscope.spark", "rankscope.judge")


@pytest.fixture
def fresh_modules() -> Iterator[None]:
    """Put back the modules as they were: those imported again during the test are dropped
    (monkeypatch restores the originals), so later tests see one copy of each class."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(FORGOTTEN):
            del sys.modules[name]


@pytest.mark.usefixtures("fresh_modules")
@pytest.mark.parametrize(
    ("package", "named", "extra", "argv"),
    CASES,
    ids=[f"{case[3][0]}-{case[0]}" for case in CASES],
)
def test_a_missing_optional_package_exits_3_naming_the_extra(
    package: str,
    named: str,
    extra: str,
    argv: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)  # a task store, if one were opened, lands here
    for name in list(sys.modules):
        if name.startswith(FORGOTTEN):
            monkeypatch.delitem(sys.modules, name)
        if name == package or name.startswith(f"{package}."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == EXIT_DEPENDENCY, err
    assert f"needs the optional package {named!r}" in err
    assert f"pip install 'rankscope[{extra}]'" in err
    assert "internal error" not in err
