"""Compute alone, in one process, on structures built beforehand; and the bare read floor.

Usage: ``python compute_only.py TOOL QRELS RUN REPEATS`` with TOOL one of

* ``rankscope``: start-up as processes (the interpreter alone, and the interpreter importing
  what ``rankscope evaluate`` imports), the core's reading of both files timed once, then the
  core's evaluation (prepare and the six measures) timed on the tables read;
* ``rankscope-dicts`` / ``pytrec_eval-dicts``: pytrec_eval's ``parse_qrel``/``parse_run``
  output (dicts of dicts) built once, then ``rankscope.evaluate(qrels, run, measures)`` /
  ``RelevanceEvaluator(qrels, measures).evaluate(run)`` timed, means included;
* ``ranx``: ``Qrels``/``Run`` built, ``evaluate`` called once to compile, then timed;
* ``pytrec_eval``: a ``RelevanceEvaluator`` built, then ``evaluate(run)`` timed;
* ``floor``: polars reading the run file's query, document and score columns, timed.

Prints one JSON line: ``{"times": [...], "first": s, "setup": s, "means": {...}}`` where
``first`` is the untimed first call (ranx's includes compilation) and ``setup`` builds the inputs.
"""

from __future__ import annotations

import json
import statistics
import subprocess
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


# What `rankscope evaluate QRELS RUN --format json` imports (its subcommand's modules are
# imported when it runs).
COMMAND_MODULES = (
    "rankscope.cli",
    "rankscope.cli._evaluate",
    "rankscope.engine",
    "rankscope.engine.provenance",
    "rankscope.report.results",
    "json",
)


def _process_seconds(code: str, repeats: int = 7) -> float:
    """The median wall time of a Python process running ``code``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rankscope_compute(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    interpreter = _process_seconds("pass")
    startup = _process_seconds("import " + ", ".join(COMMAND_MODULES)) - interpreter
    from rankscope import _core

    start = time.perf_counter()
    qrels, _ = _core.read_trec_qrels(qrels_path, path=qrels_path)
    run, _ = _core.read_trec_run(run_path, path=run_path)
    read = time.perf_counter() - start
    names = list(MEASURES)
    settled = _core.plan(names, "trec")

    def evaluate() -> Any:
        return _core.evaluate(qrels, run, settled)[0]

    first, times, values = _timed(evaluate, repeats)
    return {
        "times": times,
        "first": first,
        "setup": read,
        "interpreter": interpreter,
        "startup": startup,
        "read": read,
        "means": dict(zip(names, values.aggregates(), strict=True)),
    }


def _pytrec_eval_dicts(qrels_path: str, run_path: str) -> tuple[Any, Any, float]:
    """pytrec_eval's own parsers' output (dicts of dicts), and the time they took."""
    import pytrec_eval

    start = time.perf_counter()
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    return qrels, run, time.perf_counter() - start


def rankscope_dicts(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    """`rankscope.evaluate` on pytrec_eval's parsed dicts (the trec9 profile, as pytrec_eval
    rounds scores to float32), then `.mean()`."""
    import rankscope

    qrels, run, setup = _pytrec_eval_dicts(qrels_path, run_path)

    def evaluate() -> dict[str, float]:
        return rankscope.evaluate(qrels, run, MEASURES, profile="trec9").mean()

    first, times, means = _timed(evaluate, repeats)
    return {"times": times, "first": first, "setup": setup, "means": means}


def pytrec_eval_dicts(qrels_path: str, run_path: str, repeats: int) -> dict[str, Any]:
    """pytrec_eval on the same dicts: ``RelevanceEvaluator(qrels, measures).evaluate(run)``
    (building the evaluator included, as a user calls it), then the means."""
    import pytrec_eval
    from _pytrec_eval import MEASURE_SPEC, NAMES

    qrels, run, setup = _pytrec_eval_dicts(qrels_path, run_path)

    def evaluate() -> dict[str, float]:
        per_query = pytrec_eval.RelevanceEvaluator(qrels, MEASURE_SPEC).evaluate(run)
        return {
            ours: statistics.fmean(v[theirs] for v in per_query.values())
            for theirs, ours in NAMES.items()
        }

    first, times, means = _timed(evaluate, repeats)
    return {"times": times, "first": first, "setup": setup, "means": means}


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
    "rankscope-dicts": rankscope_dicts,
    "pytrec_eval-dicts": pytrec_eval_dicts,
    "ranx": ranx_compute,
    "pytrec_eval": pytrec_eval_compute,
    "floor": floor,
}

if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in TOOLS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TOOLS)}}} QRELS RUN REPEATS")
    tool, qrels_path, run_path, repeats = sys.argv[1:]
    print(json.dumps(TOOLS[tool](qrels_path, run_path, int(repeats))))
