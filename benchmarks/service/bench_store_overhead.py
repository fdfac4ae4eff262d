"""How much of a service run the SQLite store costs: 1,000 queries, a local retriever, 8 in flight.

The retriever is an in-process Python function that answers after ``--latency-ms`` (default 2 ms,
a fast local index) with 10 scored documents. Each repetition runs the same 1,000 generated
queries three ways:

* ``sqlite``: the real service (`EvaluationService.run`) with the store's default
  ``synchronous=NORMAL`` (a committed query survives a kill -9 of the process);
* ``sqlite-full``: the same with ``synchronous=FULL`` (also survives a power cut);
* ``no store``: the same runner with a writer that records nothing (the floor).

It reports, per mode, the median over repetitions of the run's wall time, the time spent inside
the store's calls (commit per query, heartbeats), and two ratios: *store share* = store time /
run time, and *overhead* = (run time - run time without a store) / run time.

Usage::

    .venv/bin/python benchmarks/service/bench_store_overhead.py [--queries 1000]
        [--concurrency 8] [--latency-ms 2] [--repeat 3] [--write-results]
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import shlex
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rankscope.service import Dataset, EvaluationService
from rankscope.service.sources.retrievers import CallableRetriever
from rankscope.service.store import Counters, QueryRecord
from rankscope.service.tasks.runner import Control, run_queries
from rankscope.service.tasks.scoring import MeasureSet, QueryScorer

HERE = Path(__file__).resolve().parent


def make_dataset(n_queries: int, seed: int = 0) -> tuple[Dataset, dict[str, list[str]]]:
    """Queries with 5 graded judgements each, and each query's ranking (100 candidates)."""
    rng = random.Random(seed)
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    rankings: dict[str, list[str]] = {}
    for i in range(n_queries):
        query_id = f"q{i}"
        candidates = [f"doc-{rng.randrange(1_000_000):07d}" for _ in range(100)]
        candidates = list(dict.fromkeys(candidates))
        queries[query_id] = f"generated question {i}"
        qrels[query_id] = {doc: rng.randint(0, 3) for doc in rng.sample(candidates[:30], 5)}
        rankings[queries[query_id]] = candidates
    return Dataset.from_records(queries, qrels), rankings


def make_retriever(rankings: dict[str, list[str]], latency: float) -> Any:
    def search(text: str, k: int) -> list[tuple[str, float]]:
        time.sleep(latency)
        return [(doc, 1.0 / (rank + 1)) for rank, doc in enumerate(rankings[text][:k])]

    return search


class NullWriter:
    """A writer that keeps counts in memory and writes nothing: the run without a store."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.counters = Counters()

    def record(self, record: QueryRecord) -> None:
        self.counters.count(record.status, record.metrics, record.latency, 1)

    def heartbeat(self) -> None:
        pass


def run_with_store(
    dataset: Dataset, search: Any, concurrency: int, synchronous: str
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        service = EvaluationService(Path(directory) / "bench.db", synchronous=synchronous)
        try:
            task = service.submit(dataset, search, concurrency=concurrency)
            started = time.perf_counter()
            info = service.run(task.id)
            total = time.perf_counter() - started
            stats = service.last_stats[task.id]
            if info.status != "succeeded" or info.succeeded != len(dataset.queries):
                raise SystemExit(f"the benchmark run did not succeed: {info}")
        finally:
            service.close()
    return {
        "total": total,
        "wall": stats.wall_seconds,
        "store": stats.store_seconds,
        "scoring": stats.scoring_seconds,
    }


def run_without_store(dataset: Dataset, search: Any, concurrency: int) -> dict[str, float]:
    scorer = QueryScorer(MeasureSet.resolve(None, "weknora"), dataset.judgements_by_query())
    retriever = CallableRetriever(search, None)
    pending = [
        (position, query_id, text) for position, (query_id, text) in enumerate(dataset.queries)
    ]

    async def main() -> Any:
        await retriever.open(concurrency)
        try:
            return await run_queries(
                writer=NullWriter(),  # type: ignore[arg-type]
                retriever=retriever,
                scorer=scorer,
                pending=pending,
                total=len(pending),
                k=10,
                concurrency=concurrency,
                max_failures=None,
                control=Control(),
                status_of=lambda: "running",
            )
        finally:
            await retriever.aclose()

    started = time.perf_counter()
    stats = asyncio.run(main())
    total = time.perf_counter() - started
    return {
        "total": total,
        "wall": stats.wall_seconds,
        "store": 0.0,
        "scoring": stats.scoring_seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--write-results", action="store_true", help="write RESULTS.md beside this file"
    )
    args = parser.parse_args(argv)

    dataset, rankings = make_dataset(args.queries)
    search = make_retriever(rankings, args.latency_ms / 1000)
    modes = {
        "sqlite": lambda: run_with_store(dataset, search, args.concurrency, "NORMAL"),
        "sqlite-full": lambda: run_with_store(dataset, search, args.concurrency, "FULL"),
        "no store": lambda: run_without_store(dataset, search, args.concurrency),
    }
    run_without_store(dataset, search, args.concurrency)  # warm up imports and caches
    samples: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    order = list(modes)
    for repetition in range(args.repeat):
        # Rotate the order, so that a mode is not always run first (or last) on a busy machine.
        for mode in order[repetition % len(order) :] + order[: repetition % len(order)]:
            samples[mode].append(modes[mode]())

    def median(mode: str, key: str) -> float:
        return statistics.median(sample[key] for sample in samples[mode])

    floor = median("no store", "wall")
    lines = [
        f"{args.queries} queries, concurrency {args.concurrency}, retriever latency "
        f"{args.latency_ms:g} ms, median of {args.repeat} runs",
        "",
        "| mode | run time (s) | range (s) | queries/s | store time (s) | store share "
        "| overhead vs no store |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for mode in modes:
        wall = median(mode, "wall")
        store = median(mode, "store")
        walls = [sample["wall"] for sample in samples[mode]]
        overhead = (wall - floor) / wall
        lines.append(
            f"| {mode} | {wall:.3f} | {min(walls):.2f}-{max(walls):.2f} | "
            f"{args.queries / wall:.0f} | {store:.3f} | {store / wall:.1%} | {overhead:+.1%} |"
        )
    report = "\n".join(lines)
    print(report)

    if args.write_results:
        # Run from the checkout, as benchmarks/README.md's commands are.
        command = ".venv/bin/python benchmarks/service/bench_store_overhead.py"
        extra = " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
        machine = (
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
            f"{platform.machine()}, {platform.system()}"
        )
        (HERE / "RESULTS.md").write_text(
            "# Store overhead of the evaluation service\n\n"
            f"Command: `{command} {extra}`\n\nMachine: {machine}.\n\n{report}\n\n"
            "*Run time* is from the first question to the last record (`RunStats.wall_seconds`); "
            "*store time* is the time spent inside the store's calls (an upsert and a commit per "
            "query, a heartbeat every 2 s); *overhead* compares the run time with the same run "
            "whose writer records nothing. The rest of a run is the retriever and computing the "
            "six WeKnora measures of each query.\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
