"""A SparkSession for the command line and scripts: quiet, on this machine unless told."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["local_session", "quiet_pyspark"]

_LOG_CONFIG = Path(__file__).with_name("log4j2.properties")


@contextmanager
def quiet_pyspark() -> Iterator[None]:
    """Without pyspark's warning about pandas versions: rankscope hands Spark Arrow, not pandas."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="PySpark does not yet fully support", category=FutureWarning
        )
        yield


def local_session(master: str = "local[*]", **config: str) -> SparkSession:
    """The running SparkSession, or a new one on ``master`` with ``config`` (Spark settings).

    A local master runs the executors' Python with this interpreter (where rankscope is
    installed) unless ``PYSPARK_PYTHON`` says otherwise; logging shows errors only; the
    progress bar and the web UI are off.
    """
    from pyspark.sql import SparkSession

    if master.startswith("local"):
        # Read by pyspark when it starts the JVM; the workers must import rankscope.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName("rankscope")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG_CONFIG}")
    )
    for key, value in config.items():
        builder = builder.config(key, value)
    with quiet_pyspark():
        return builder.getOrCreate()
