"""A local session whose executors run another Python than the driver: the error says which
interpreter they run and how to give them this one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

# A slow group (a local Spark cluster): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

# The interpreter this environment was made from: a Python without rankscope, as a user's
# system python3 is when they run a virtual environment without activating it.
BASE = getattr(sys, "_base_executable", sys.executable)

SCRIPT = textwrap.dedent(
    """
    import os, sys
    from pyspark.sql import SparkSession
    import rankscope, rankscope.spark

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    qrels = spark.createDataFrame([("q1", "d1", 1)], ["query_id", "doc_id", "relevance"])
    run = spark.createDataFrame([("q1", "d1", 1.0)], ["query_id", "doc_id", "score"])
    try:
        rankscope.spark.evaluate(qrels, run, ["AP"]).mean()
    except rankscope.RankscopeError as error:
        print(error)
    else:
        print("no error")
    spark.stop()
    """
)


def _imports_rankscope(python: str) -> bool:
    found = subprocess.run(
        [python, "-c", "import rankscope"], capture_output=True, env={"PATH": os.defpath}
    )
    return found.returncode == 0


@pytest.mark.skipif(
    os.path.abspath(BASE) == os.path.abspath(sys.executable) or _imports_rankscope(BASE),
    reason="needs a base interpreter without rankscope (tests run in a virtual environment)",
)
def test_executors_on_another_python_are_named_with_the_fix() -> None:
    environment = dict(os.environ, PYSPARK_PYTHON=BASE)
    environment.pop("PYTHONPATH", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    message = done.stdout.strip()
    assert f"the Spark executors run {BASE!r}" in message, done.stderr[-2000:]
    assert "cannot import rankscope" in message
    assert f"this interpreter is {sys.executable!r}" in message
    assert "os.environ['PYSPARK_PYTHON'] = sys.executable" in message
    assert "rankscope.spark.local_session()" in message
