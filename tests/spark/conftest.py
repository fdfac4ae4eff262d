"""One local Spark session for every Spark test: local[2], few shuffle partitions, no UI.

Spark needs Java. Where it is missing the tests fail (they do not skip): rankscope supports
Spark, and a machine without Java would otherwise pass without testing it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    java = (
        os.path.join(os.environ["JAVA_HOME"], "bin", "java") if "JAVA_HOME" in os.environ else None
    )
    if shutil.which(java or "java") is None:
        pytest.fail(
            "the Spark tests need Java 17 or later; on Debian: "
            "apt-get install openjdk-17-jre-headless"
        )
    from rankscope.spark import local_session

    session = local_session(
        "local[2]",
        **{
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.host": "127.0.0.1",
            "spark.sql.session.timeZone": "UTC",
        },
    )
    yield session
    session.stop()
