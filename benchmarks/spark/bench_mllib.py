"""rankscope on Spark against MLlib's ranking metrics, on one local cluster and the same files.

Four ways to get P@10, nDCG@10, AP and R@100 from the benchmark's TREC files (``generate.py``),
each from the files to the four means:

- ``rankscope-spark``: `rankscope.spark.read_qrels` / `read_run` and `rankscope.spark.evaluate`,
  then ``mean()`` (the per-query table aggregated in Spark).
- ``mllib-rdd``: ``pyspark.mllib.evaluation.RankingMetrics`` over (ranking, relevant documents)
  pairs built with DataFrame operations from the same readers' DataFrames (the pairs cached, so
  the four metrics share them); ``precisionAt(10)``, ``ndcgAt(10)``, ``meanAveragePrecision``,
  ``recallAt(100)``.
- ``mllib-evaluator``: ``pyspark.ml.evaluation.RankingEvaluator`` (the DataFrame API, all in
  the JVM) over the same pairs with document ids as numbers (it takes arrays of doubles), cached.
- ``rankscope-memory``: `rankscope.evaluate` on the files, in this process, without Spark.

Rankings are ordered as trec_eval orders them (score descending, document id descending) for
MLlib too, and only queries both judged and retrieved are evaluated (rankscope's default), so
the definitions coincide for P@k, AP and R@k. MLlib's ``ndcgAt`` has binary gains: it is checked
against rankscope's nDCG@10 on binarized qrels (grade >= 1 -> 1). Given grades (Spark >= 3.4),
it uses the gain 2^grade - 1: that is checked against ``nDCG(gain=exp)@10``. Agreement is
checked before any time is reported (1e-9: MLlib adds in another order).

Usage (the project's .venv has pyspark through the ``test`` extra)::

    .venv/bin/python benchmarks/spark/bench_mllib.py --sizes small,medium --runs 3

Writes ``benchmarks/RESULTS-spark.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

import rankscope
import rankscope.spark

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parent
sys.path.insert(0, str(BENCHMARKS))

from generate import DATASETS  # noqa: E402

MEASURES = ["P@10", "nDCG@10", "AP", "R@100"]
TOLERANCE = 1e-9
SHUFFLE_PARTITIONS = "8"

Means = dict[str, float]


def rankscope_spark(spark: Any, qrels_path: str, run_path: str) -> Means:
    qrels = rankscope.spark.read_qrels(spark, qrels_path)
    run, _ = rankscope.spark.read_run(spark, run_path)
    results = rankscope.spark.evaluate(qrels, run, MEASURES)
    means = results.mean()
    results.unpersist()
    return means


def _pairs(spark: Any, qrels_path: str, run_path: str, numeric_ids: bool) -> Any:
    """Per query judged and retrieved: the ranking (trec_eval's order) and the relevant
    documents, with their grades; document ids as doubles for the DataFrame evaluator."""
    from pyspark.sql import functions as F

    qrels = rankscope.spark.read_qrels(spark, qrels_path)
    run, _ = rankscope.spark.read_run(spark, run_path)
    doc = F.col("doc_id")
    if numeric_ids:
        doc = F.regexp_extract(doc, "[0-9]+", 0).cast("double")
    ranked = run.groupBy("query_id").agg(
        F.sort_array(F.collect_list(F.struct("score", F.col("doc_id"), doc.alias("id"))), False)
        .getField("id")
        .alias("prediction")
    )
    relevant = F.col("relevance") >= 1
    labels = qrels.groupBy("query_id").agg(
        F.collect_list(F.when(relevant, doc)).alias("labels"),
        F.collect_list(F.when(relevant, F.col("relevance").cast("double"))).alias("grades"),
    )
    return ranked.join(labels, "query_id")


def mllib_rdd(spark: Any, qrels_path: str, run_path: str, graded: bool = False) -> Means:
    from pyspark.mllib.evaluation import RankingMetrics

    pairs = _pairs(spark, qrels_path, run_path, numeric_ids=False)
    columns = ("prediction", "labels", "grades") if graded else ("prediction", "labels")
    rdd = pairs.select(*columns).rdd.map(tuple).cache()
    metrics = RankingMetrics(rdd)
    if graded:
        means = {"nDCG(gain=exp)@10": metrics.ndcgAt(10)}
    else:
        means = {
            "P@10": metrics.precisionAt(10),
            "nDCG@10": metrics.ndcgAt(10),
            "AP": metrics.meanAveragePrecision,
            "R@100": metrics.recallAt(100),
        }
    rdd.unpersist()
    return means


def mllib_evaluator(spark: Any, qrels_path: str, run_path: str) -> Means:
    from pyspark.ml.evaluation import RankingEvaluator

    pairs = _pairs(spark, qrels_path, run_path, numeric_ids=True).cache()
    evaluator = RankingEvaluator(predictionCol="prediction", labelCol="labels")
    means = {
        "P@10": evaluator.evaluate(pairs, {evaluator.metricName: "precisionAtK", evaluator.k: 10}),
        "nDCG@10": evaluator.evaluate(pairs, {evaluator.metricName: "ndcgAtK", evaluator.k: 10}),
        "AP": evaluator.evaluate(pairs, {evaluator.metricName: "meanAveragePrecision"}),
        "R@100": evaluator.evaluate(pairs, {evaluator.metricName: "recallAtK", evaluator.k: 100}),
    }
    pairs.unpersist()
    return means


def rankscope_memory(spark: Any, qrels_path: str, run_path: str) -> Means:
    return rankscope.evaluate(qrels_path, run_path, MEASURES).mean()


TOOLS: dict[str, Callable[[Any, str, str], Means]] = {
    "rankscope-spark": rankscope_spark,
    "mllib-rdd": mllib_rdd,
    "mllib-evaluator": mllib_evaluator,
    "rankscope-memory": rankscope_memory,
}


def references(qrels_path: str, run_path: str) -> tuple[Means, Means]:
    """rankscope's means in memory; and the nDCG@10 MLlib defines: binary gains (binarized
    qrels), and exponential gains of the grades."""
    exact = rankscope.evaluate(qrels_path, run_path, MEASURES).mean()
    qrels = rankscope.io.read_qrels(qrels_path)
    binary = rankscope.Qrels(
        qrels.frame.with_columns((pl.col("relevance") >= 1).cast(pl.Int64)), qrels.source
    )
    run = rankscope.io.read_run(run_path)
    binary_ndcg = rankscope.evaluate(binary, run, "nDCG@10").mean()["nDCG@10"]
    exp_ndcg = rankscope.evaluate(qrels, run, "nDCG(gain=exp)@10").mean()["nDCG(gain=exp)@10"]
    mllib = {**exact, "nDCG@10": binary_ndcg, "nDCG(gain=exp)@10": exp_ndcg}
    return exact, mllib


def _difference(got: Means, expected: Means) -> float:
    return max(abs(got[name] - expected[name]) for name in got)


def _load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="small,medium", help="datasets of generate.py")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per tool (after 1 warm-up)")
    parser.add_argument("--output", default=str(BENCHMARKS / "RESULTS-spark.md"))
    args = parser.parse_args(argv)
    sizes = [size.strip() for size in args.sizes.split(",") if size.strip()]
    subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate.py"), "--sizes", ",".join(sizes)], check=True
    )
    start_load = _load()
    spark = rankscope.spark.local_session(
        "local[2]",
        **{
            "spark.sql.shuffle.partitions": SHUFFLE_PARTITIONS,
            "spark.driver.memory": "4g",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.host": "127.0.0.1",
        },
    )
    warnings.simplefilter("ignore")  # pyspark's notes about pandas versions
    rows = []
    notes = []
    for size in sizes:
        dataset = DATASETS[size]
        qrels_path, run_path = str(dataset.qrels_path), str(dataset.run_path)
        with open(run_path, "rb") as lines_of_run:
            lines = sum(1 for _ in lines_of_run)
        exact, mllib_reference = references(qrels_path, run_path)
        # Agreement first: nothing is timed that does not give the expected numbers.
        agreement = {}
        for name, tool in TOOLS.items():
            means = tool(spark, qrels_path, run_path)
            if name.startswith("rankscope"):
                if means != exact:
                    raise SystemExit(f"{name} on {size}: {means} != in memory {exact}")
                agreement[name] = "identical (==)"
            else:
                difference = _difference(means, mllib_reference)
                if difference > TOLERANCE:
                    raise SystemExit(f"{name} on {size}: {means} vs {mllib_reference}")
                agreement[name] = f"max diff {difference:.1e}"
        graded = mllib_rdd(spark, qrels_path, run_path, graded=True)
        graded_difference = _difference(graded, mllib_reference)
        notes.append(
            f"- {size}: MLlib `ndcgAt(10)` given grades vs rankscope `nDCG(gain=exp)@10`: "
            f"{graded['nDCG(gain=exp)@10']:.12f} vs {mllib_reference['nDCG(gain=exp)@10']:.12f} "
            f"(max diff {graded_difference:.1e}); binary `ndcgAt(10)` vs graded `nDCG@10`: "
            f"{mllib_reference['nDCG@10']:.6f} vs {exact['nDCG@10']:.6f}"
        )
        times: dict[str, list[float]] = {name: [] for name in TOOLS}
        for _ in range(args.runs):
            for name, tool in TOOLS.items():  # interleaved: every tool sees the same load
                spark.catalog.clearCache()
                started = time.perf_counter()
                tool(spark, qrels_path, run_path)
                times[name].append(time.perf_counter() - started)
        base = statistics.median(times["rankscope-spark"])
        for name in TOOLS:
            median = statistics.median(times[name])
            rows.append((size, lines, name, median, median / base, agreement[name], times[name]))
        print(f"{size}: " + ", ".join(f"{r[2]} {r[3]:.2f}s" for r in rows if r[0] == size))
    spark.stop()
    _write(args, rows, notes, start_load)
    return 0


def _write(
    args: argparse.Namespace, rows: list[tuple[Any, ...]], notes: list[str], start_load: str
) -> None:
    import pyspark

    command = "  ".join(["benchmarks/spark/bench_mllib.py", "--sizes", args.sizes, "--runs"])
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = [
        "# rankscope on Spark against MLlib's ranking metrics",
        "",
        "Written by `benchmarks/spark/bench_mllib.py`; the command:",
        "",
        "```",
        f".venv/bin/python {command.replace('  ', ' ')} {args.runs}",
        "```",
        "",
        f"- Date: {now}; {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, pyspark {pyspark.__version__}, Java 17; load average "
        f"{start_load} at the start, {_load()} at the end (other work shares the machine).",
        f"- One local cluster for every tool: `local[2]`, `spark.sql.shuffle.partitions` = "
        f"{SHUFFLE_PARTITIONS} (adaptive execution on), 4 GB driver memory.",
        "- Each time is from the TREC files to the four means (P@10, nDCG@10, AP, R@100): one "
        f"untimed run of each tool (the agreement check), then {args.runs} runs interleaved "
        "across tools; the median, and its ratio "
        "to rankscope on Spark. Spark reads the files with rankscope's Spark readers for every "
        "Spark tool.",
        "- Agreement was checked before timing: rankscope on Spark and in memory are identical "
        "(==); MLlib's means are compared with rankscope's where the definitions coincide "
        "(P@10, AP, R@100; nDCG@10 on binarized qrels, see below).",
        "",
        "| data | run lines | tool | median s | ratio | agreement | runs s |",
        "|---|---:|---|---:|---:|---|---|",
    ]
    for size, lines, name, median, ratio, agreement, times in rows:
        runs = ", ".join(f"{t:.2f}" for t in times)
        text.append(
            f"| {size} | {lines:,} | {name} | {median:.2f} | {ratio:.2f} | {agreement} | {runs} |"
        )
    text += [
        "",
        "## Where the definitions differ",
        "",
        "- MLlib's `ndcgAt(k)` takes the relevant documents as a set: gains are binary, the "
        "ideal ranking is min(k, relevant) ones. rankscope's (trec_eval's) nDCG@k uses the "
        "grades as gains and every judged document for the ideal ranking, so on graded qrels the "
        "two differ; on qrels binarized at grade 1 they agree. Spark >= 3.4 documents graded "
        "gains (2^grade - 1, rankscope's `nDCG(gain=exp)@k`) when (ranking, labels, grades) "
        "triples are given; through pyspark's `RankingMetrics` the grades made no difference "
        "here (the value is the binary one):",
        *notes,
        "- MLlib has no trec_eval conventions: it ranks in the order it is given (here sorted "
        "by score and document id as trec_eval does, by the benchmark), has no relevance level "
        "other than what the caller filters, no `complete` (queries it is not given do not "
        "exist), and no duplicate check. Its means sum in partition order, so they differ from "
        "rankscope's in the last bits.",
        "- `mllib-rdd` goes through Python (pyspark's `RankingMetrics` builds a DataFrame from "
        "a Python RDD); `mllib-evaluator` stays in the JVM but needs document ids as numbers.",
        "",
        "## Reading the numbers",
        "",
        "- MLlib needs every query's rows in one place: its pairs are built by grouping the "
        "rows by query, a shuffle of both inputs (and, for `mllib-rdd`, rows moved between the "
        "JVM and Python). rankscope reads a run grouped by query (as TREC runs are) where it "
        "lies: each byte range of the file is cut at query boundaries and evaluated by the task "
        "that reads it, with the judgements every worker reads from the qrels file, so nothing "
        "is shuffled and only one row per query reaches the JVM. A run that is not grouped is "
        "detected (a query evaluated by two tasks) and evaluated again with a shuffle by query.",
        "- On one machine, rankscope in memory is an order of magnitude faster than any of them: "
        "Spark is for runs that do not fit one machine, or that already live in Spark.",
        "- The machine is shared with other work, so single runs vary by up to 2x; compare "
        "ratios of medians.",
        "",
        "## A small run from the command line",
        "",
        "`rankscope evaluate --engine spark` of TREC files runs one plain Spark job per run (no "
        "Spark SQL, one task for a small file) rather than this benchmark's DataFrame route; its "
        'time against a bare session, staged, is in `RESULTS-targets.md` ("Spark"), measured '
        "by `benchmarks/spark/small_cli.py` and `benchmarks/spark/stages.py`.",
        "",
    ]
    Path(args.output).write_text("\n".join(text))


if __name__ == "__main__":
    sys.exit(main())
