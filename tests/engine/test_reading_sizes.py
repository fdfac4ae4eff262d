"""The sizes at which `evaluate` reads a TREC run file in chunks or streams it are the core's
(`rankscope_core::stream`), which the native executable reads too: one owner of each."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from rankscope import _core

EVALUATE = importlib.import_module("rankscope.engine._evaluate")  # the module, not the function


def test_the_python_names_hold_the_core_s_sizes() -> None:
    from rankscope.engine._evaluate import CHUNKED_MIN_BYTES, STREAM_THRESHOLD_BYTES

    assert CHUNKED_MIN_BYTES == _core.CHUNKED_MIN_BYTES == 64 * 1024**2
    assert STREAM_THRESHOLD_BYTES == _core.STREAM_THRESHOLD_BYTES == 2 * 1024**3


def _sparse_run(path: Path, size: int) -> str:
    """A TREC run file of ``size`` bytes that takes no room on disk past its first line."""
    with path.open("wb") as file:
        file.write(b"q1 Q0 d1 1 1.0 r\n")
        file.truncate(size)
    return str(path)


@pytest.mark.parametrize(
    ("size", "how"),
    [
        (_core.CHUNKED_MIN_BYTES - 1, "whole"),
        (_core.CHUNKED_MIN_BYTES, "chunks"),
        (_core.STREAM_THRESHOLD_BYTES - 1, "chunks"),
        (_core.STREAM_THRESHOLD_BYTES, "stream"),
    ],
)
def test_a_run_file_is_read_as_its_size_says_at_the_core_s_sizes(
    size: int, how: str, tmp_path: Path
) -> None:
    assert EVALUATE._reading(_sparse_run(tmp_path / "run.txt", size), None) == how
