"""Compute alone, in one process, on structures built beforehand; and the bare read floor.

Usage: ``python compute_only.py TOOL QRELS RUN REPEATS`` with TOOL one of

* ``rankscope``: its import (start-up), its readers and `prepare` timed once, then
  ``compute(batch, measures, conventions)`` timed on a fresh `RankedBatch` each time (the
  batch caches shared arrays; a fresh one starts cold);
* ``ranx``: ``Qrels``/``Run`` built, ``evaluate`` called once to compile, then timed;
* ``pytrec_eval``: a ``RelevanceEvaluator`` built, then ``evaluate(run)`` timed;
* ``floor``: polars reading the run file's query, document and score columns, timed.

Prints one JSON line: ``{"times": [...], "first": s, "setup": s, "means": {...}}`` where
``first`` is the untimed first call (ranx's includes compilation) and ``setup`` builds the inputs.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from _common import MEASURES


def _timed(call: Callable[[], Any], repeats: int) -> tuple[float, list[float], Any]:
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return first, times, result


def rankscope_compute(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    start = time.perf_counter()
    import rankscope.cli._evaluate  # noqa: F401  (what the command line imports, timed)

    startup = time.perf_counter() - start
    from _frames import read_with_rankscope

    from rankscope.engine import RankedBatch, compute, parse_measures, prepare, resolve_profile

    start = time.perf_counter()
    qrels, run = read_with_rankscope(qrels_path, run_path)
    read = time.perf_counter() - start
    conventions = resolve_profile("trec")
    measures = parse_measures(list(MEASURES))
    _, prepare_times, prepared = _timed(
        lambda: prepare(qrels, run, conventions), max(1, repeats // 2)
    )
    batch = prepared.batch

    def cold_compute() -> dict[Any, Any]:
        fresh = RankedBatch(
            query_ids=batch.query_ids,
            offsets=batch.offsets,
            grades=batch.grades,
            judged_offsets=batch.judged_offsets,
            judged=batch.judged,
            num_distinct_relevant=batch.num_distinct_relevant,
        )
        return compute(fresh, measures, conventions)

    first, times, values = _timed(cold_compute, repeats)
    return {
        "times": times,
        "first": first,
        "setup": read + statistics.median(prepare_times),
        "startup": startup,
        "read": read,
        "prepare": statistics.median(prepare_times),
        "means": {m.name: float(values[m].mean()) for m in measures},
    }


def ranx_compute(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    from ranx import Qrels, Run, evaluate

    names = ["ndcg@10", "ndcg@3", "map", "mrr", "precision@10", "recall@10"]
    start = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    setup = time.perf_counter() - start
    first, times, means = _timed(lambda: evaluate(qrels, run, names), repeats)
    return {
        "times": times,
        "first": first,
        "setup": setup,
        "means": dict(zip(MEASURES, (float(means[n]) for n in names), strict=True)),
    }


def pytrec_eval_compute(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    from _pytrec_eval import NAMES, evaluator_and_run

    start = time.perf_counter()
    evaluator, run = evaluator_and_run(qrels_path, run_path)
    setup = time.perf_counter() - start
    first, times, per_query = _timed(lambda: evaluator.evaluate(run), repeats)
    means = {
        ours: statistics.fmean(v[theirs] for v in per_query.values())
        for theirs, ours in NAMES.items()
    }
    return {"times": times, "first": first, "setup": setup, "means": means}


def floor(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    from _frames import read_run_frame

    first, times, frame = _timed(lambda: read_run_frame(run_path), repeats)
    return {"times": times, "first": first, "setup": 0.0, "rows": frame.height}


TOOLS = {
    "rankscope": rankscope_compute,
    "ranx": ranx_compute,
    "pytrec_eval": pytrec_eval_compute,
    "floor": floor,
}

if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in TOOLS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TOOLS)}}} QRELS RUN REPEATS")
    tool, qrels_path, run_path, repeats = sys.argv[1:]
    print(json.dumps(TOOLS[tool](qrels_path, run_path, int(repeats))))
