"""The documentation pages whose Python starts Spark run here, as tests/test_readme.py runs
every other page's (in order, doctests where they show output), in the Spark tests' worker and
after their session started: a page's ``rankscope.spark.local_session(...)`` returns the running
session, where from tests/test_readme.py a second JVM would start beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_readme import SPARK, run_python_blocks, workdir  # noqa: F401 (a fixture)


def test_a_page_starts_spark() -> None:
    assert "docs/spark.md" in SPARK


@pytest.mark.slow  # a local Spark cluster: left out by `scripts/test --quick`
@pytest.mark.parametrize("page", sorted(SPARK))
def test_python_blocks_in_order(page: str, spark: Any, workdir: Path) -> None:  # noqa: F811
    run_python_blocks(page)
