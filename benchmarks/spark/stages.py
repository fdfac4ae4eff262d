"""Where a small run on Spark spends its time: the stages of ``rankscope evaluate --engine
spark``, timed in one process.

Stages of the command line's route (`rankscope.spark.evaluate_files`): starting the session,
the evaluation (one Spark job for TREC files), stopping the session. With ``--dataframes``, the
route of the DataFrame API instead: `read_qrels`, `read_run`, `evaluate`, `to_results`.

Usage (the data from ``benchmarks/generate.py --sizes small``)::

    .venv/bin/python benchmarks/spark/stages.py --master 'local[2]' \\
        benchmarks/data/small.qrels benchmarks/data/small.run [--dataframes]

Prints one line per stage (seconds, wall and this process's CPU) and the load average.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from typing import Any


def _timed(stages: list[tuple[str, float, float]], name: str, step: Callable[[], Any]) -> Any:
    wall, cpu = time.perf_counter(), time.process_time()
    value = step()
    stages.append((name, time.perf_counter() - wall, time.process_time() - cpu))
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--dataframes", action="store_true", help="the DataFrame API's route")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    stages: list[tuple[str, float, float]] = []
    start = time.perf_counter()
    warnings.simplefilter("ignore")
    import rankscope.spark as on_spark

    spark = _timed(stages, "session", lambda: on_spark.local_session(args.master))
    if args.dataframes:
        qrels = _timed(stages, "read_qrels", lambda: on_spark.read_qrels(spark, args.qrels))
        run, name = _timed(stages, "read_run", lambda: on_spark.read_run(spark, args.run))
        evaluated = _timed(stages, "evaluate", lambda: on_spark.evaluate(qrels, run, run_name=name))
        results = _timed(stages, "to_results", evaluated.to_results)
    else:
        (results,) = _timed(
            stages,
            "evaluate_files",
            lambda: on_spark.evaluate_files(spark, args.qrels, [args.run]),
        )
    _timed(stages, "stop", spark.stop)
    for name, wall, cpu in stages:
        print(f"{name:<15} {wall:7.2f} s wall {cpu:6.2f} s cpu")
    print(f"{'total':<15} {time.perf_counter() - start:7.2f} s wall")
    after = os.getloadavg()[0]
    print(f"queries {len(results.query_ids)}; load average {load[0]:.1f} -> {after:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
