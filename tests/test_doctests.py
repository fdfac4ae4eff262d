"""Every module's docstring examples run as tests (they are documentation that must stay true)."""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

import rankscope

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(rankscope.__path__, prefix="rankscope.")
    # __main__ runs the command line when imported.
    if info.name != "rankscope.__main__"
)


def test_the_package_has_modules_with_examples() -> None:
    assert {
        "rankscope.engine._evaluate",
        "rankscope.service.tasks.service",
        "rankscope.io._read",
    } <= set(MODULES)
    assert len(MODULES) > 40


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()
