"""rankscope on Apache Spark: the numbers of `rankscope.evaluate`, computed on a cluster.

Needs the ``spark`` extra (``pip install 'rankscope[spark]'``: pyspark >= 3.5, pyarrow) on the
driver, and the same rankscope installed on every executor (see docs/spark.md).

- :func:`evaluate`: qrels and run as Spark DataFrames -> :class:`SparkResults` (per-query values
  as a Spark DataFrame, ``mean()`` computed in Spark, ``to_results()`` for `rankscope.compare`).
- :func:`read_qrels`, :func:`read_run`: TREC files or Parquet (files, directories, globs) as
  Spark DataFrames with our column names, malformed lines reported when evaluated.
- :func:`evaluate_files`: the same from file paths, as the command line does.
- :func:`local_session`: a SparkSession for the command line and scripts.
"""

from __future__ import annotations

from rankscope.errors import MissingDependencyError

try:
    import pyarrow  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as error:
    package = "pyarrow" if "pyarrow" in str(error) else "pyspark"
    raise MissingDependencyError(package, "rankscope.spark", "spark") from None

from rankscope.spark._evaluate import DEFAULT_ROWS_PER_CHUNK, SparkResults, evaluate, evaluate_files
from rankscope.spark._read import SPARK_FORMATS, read_qrels, read_run
from rankscope.spark._session import local_session

__all__ = [
    "DEFAULT_ROWS_PER_CHUNK",
    "SPARK_FORMATS",
    "SparkResults",
    "evaluate",
    "evaluate_files",
    "local_session",
    "read_qrels",
    "read_run",
]
