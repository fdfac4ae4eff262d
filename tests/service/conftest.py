"""Fixtures of the service tests: a BEIR dataset on disk and an importable retriever module
(the store's two back-ends are shared fixtures, in ``tests/conftest.py``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_helpers import RETRIEVER_MODULE, make_beir


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "beir")


@pytest.fixture
def toy_module(tmp_path: Path, beir_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An importable module ``toy_retrievers_<n>`` with ``search`` and ``ids_only``."""
    name = f"toy_retrievers_{abs(hash(str(tmp_path))) % 10**8}"
    directory = tmp_path / "modules"
    directory.mkdir()
    (directory / f"{name}.py").write_text(RETRIEVER_MODULE)
    monkeypatch.setenv("TOY_CORPUS", str(beir_dir / "corpus.jsonl"))
    monkeypatch.syspath_prepend(str(directory))
    yield name
    sys.modules.pop(name, None)
