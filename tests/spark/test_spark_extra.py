"""Without pyspark, `rankscope.spark` and `--engine spark` say which extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

from rankscope.cli import EXIT_DEPENDENCY, main
from rankscope.errors import MissingDependencyError


def test_without_pyspark_the_message_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark raises ImportError
    monkeypatch.delitem(sys.modules, "rankscope.spark", raising=False)
    with pytest.raises(MissingDependencyError, match=r"pip install 'rankscope\[spark\]'"):
        importlib.import_module("rankscope.spark")
    code = main(["evaluate", "qrels.txt", "run.trec", "--engine", "spark"])
    assert code == EXIT_DEPENDENCY
    assert "needs the optional package 'pyspark'" in capsys.readouterr().err
