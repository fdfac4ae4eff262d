"""How long reading a task of the evaluation service takes as its results grow, and what
recording one result costs.

Run: ``.venv/bin/python benchmarks/service/bench_task_read.py 5000 30000``. For each size it records
that many results in a fresh store (one committed transaction each, as a running task does) and
times `EvaluationService.get` (the ``GET /api/v1/evaluations/{id}`` of the API), median of 50.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rankscope.service import Dataset, EvaluationService, QueryRecord


def measure(n: int) -> tuple[float, float]:
    """Median milliseconds of a read, and microseconds per recorded result."""
    with tempfile.TemporaryDirectory() as folder:
        service = EvaluationService(Path(folder) / "tasks.db")
        queries = {f"q{i}": f"text {i}" for i in range(n)}
        data = Dataset.from_records(queries, {query: {"d": 1} for query in queries})
        task = service.submit(data, lambda text, k: ["d"])
        writer = service.store.writer(task.id, "benchmark")
        rng = random.Random(0)
        started = time.perf_counter()
        for position, query in enumerate(queries):
            metrics = dict.fromkeys(task.measures, rng.random())
            writer.record(
                QueryRecord(
                    query, position, "succeeded", ("d",), None, rng.random() / 10, 1, metrics
                )
            )
        per_record = (time.perf_counter() - started) / n * 1e6
        reads = []
        for _ in range(50):
            began = time.perf_counter()
            service.get(task.id)
            reads.append(time.perf_counter() - began)
        service.close()
    return statistics.median(reads) * 1000, per_record


def main() -> int:
    for size in [int(arg) for arg in sys.argv[1:]] or [5000, 30000]:
        read, record = measure(size)
        print(f"{size} results: read {read:.2f} ms (median of 50); record {record:.0f} us each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
