"""The service modules' docstring examples run as tests (tests/test_doctests.py leaves them out,
since they need the service extra)."""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

import rankscope.service

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(rankscope.service.__path__, prefix="rankscope.service.")
)


def test_every_module_is_found() -> None:
    assert {
        "rankscope.service._service",
        "rankscope.service._store",
        "rankscope.service._api",
    } <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()
    if name in (
        "rankscope.service._service",
        "rankscope.service._scoring",
        "rankscope.service._http",
    ):
        assert runner.tries > 0
