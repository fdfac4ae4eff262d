"""Measures defined by users on Spark: the executors, other processes than the driver, get the
definitions with the task and compute what the in-memory API computes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rankscope
import rankscope.spark
from rankscope.measures import load, undefine

# A slow group (a local Spark cluster): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

MODULE = Path(__file__).parent.parent / "measures" / "user_measures.py"


@pytest.fixture(scope="module")
def user_measures() -> Iterator[list[str]]:
    names = load(MODULE)
    yield names
    for name in names:
        undefine(name)


def test_user_measures_equal_the_kernels_on_the_executors(
    spark: Any, user_measures: list[str]
) -> None:
    qrels = {f"q{i}": {f"d{j}": (i * j) % 3 for j in range(8)} for i in range(30)}
    run = {f"q{i}": {f"d{j}": float((i + 3 * j) % 5) for j in range(8)} for i in range(30)}
    judged = spark.createDataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        ["query_id", "doc_id", "relevance"],
    )
    ranked = spark.createDataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        ["query_id", "doc_id", "score"],
    )
    names = ["UserP@5", "UserPVec(rel=2)@3", "UserNDCG(gain=exp)@10", "P@5", "P(rel=2)@3"]
    ours = rankscope.spark.evaluate(judged, ranked, names, partitions=3).to_results()
    memory = rankscope.evaluate(qrels, run, names)
    assert ours.to_dict() == memory.to_dict()
    assert ours.score_dict("UserP@5") == memory.score_dict("P@5")
    assert ours.score_dict("UserPVec(rel=2)@3") == memory.score_dict("P(rel=2)@3")
