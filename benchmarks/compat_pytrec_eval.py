"""pytrec_eval against `rankscope.compat.pytrec_eval` on the same dicts, in one process.

Usage: ``python benchmarks/compat_pytrec_eval.py [QUERIES] [DOCS] [REPEATS]`` (default 10000
queries x 100 documents, 5 repeats). Builds deterministic qrels and a run as dicts of dicts
(scores with ties), then times ``RelevanceEvaluator(qrels, measures)`` (construction) and
``evaluate(run)`` for each module with pytrec_eval's usual measure set ``{"map", "ndcg_cut",
"P", "recall"}`` (28 keys per query), checks that the dicts are identical, and prints medians
and ratios as a Markdown table.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

MEASURES = {"map", "ndcg_cut", "P", "recall"}


def generate(queries: int, docs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = random.Random(42)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        pool = rng.sample(range(docs * 20), docs + 20)
        qrels[f"q{q}"] = {f"d{d}": rng.choice((0, 0, 1, 2)) for d in pool[:40]}
        run[f"q{q}"] = {f"d{d}": round(rng.random() * 20, 2) for d in pool[20:]}
    return qrels, run


def timed(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    result = call()  # warm-up, untimed
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    given = [int(arg) for arg in sys.argv[1:4]]
    queries, docs, repeats = given + [10000, 100, 5][len(given) :]
    import pytrec_eval

    from rankscope.compat import pytrec_eval as compat

    qrels, run = generate(queries, docs)
    rows = []
    outputs = []
    for name, module in (("pytrec_eval", pytrec_eval), ("rankscope.compat.pytrec_eval", compat)):
        build, evaluator = timed(partial(module.RelevanceEvaluator, qrels, MEASURES), repeats)
        evaluate, output = timed(partial(evaluator.evaluate, run), repeats)
        rows.append((name, build, evaluate))
        outputs.append(output)
    assert outputs[0] == outputs[1], "the dicts differ"
    print(
        f"{queries} queries x {docs} documents, measures {sorted(MEASURES)}; medians of {repeats}"
    )
    print()
    print("| module | RelevanceEvaluator(...) s | evaluate(run) s | evaluate: x pytrec_eval |")
    print("| --- | ---: | ---: | ---: |")
    base = rows[0][2]
    for name, build, evaluate in rows:
        print(f"| {name} | {build:.3f} | {evaluate:.3f} | {evaluate / base:.2f} |")
    print()
    print("identical dicts: yes")


if __name__ == "__main__":
    main()
