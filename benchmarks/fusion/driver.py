"""One benchmark process: load the runs with one tool, then time its fusion, cold and warm.

Usage: ``python driver.py TOOL QRELS REPEATS METHOD[,METHOD...] RUN RUN ...`` with TOOL
``rankscope`` or ``ranx``. Prints one JSON line: the load time, and per method the first
fusion in this process (cold: ranx loads its numba cache and compiles what it cannot cache),
the first evaluation of the fused run, then ``REPEATS`` warm fusions and evaluations, and the
fused run's nDCG@10 and AP (to check that the tools agree).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

# The parameters every tool is given: ranx's defaults (min-max normalisation).
PARAMS: dict[str, dict[str, Any]] = {"rrf": {"k": 60}, "mnz": {}, "wsum": {}}


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def tool_functions(tool: str, qrels_path: str, run_paths: list[str]) -> tuple[Any, ...]:
    if tool == "rankscope":
        import rankscope
        from rankscope.io import read_qrels, read_run

        def load() -> tuple[Any, list[Any]]:
            return read_qrels(qrels_path), [read_run(path) for path in run_paths]

        def fuse(runs: list[Any], method: str, params: dict[str, Any]) -> Any:
            return rankscope.fuse(runs, method, norm="min-max", params=params)

        def evaluate(qrels: Any, fused: Any) -> dict[str, float]:
            means = rankscope.evaluate(qrels, fused, ["nDCG@10", "AP"]).mean()
            return {"nDCG@10": means["nDCG@10"], "AP": means["AP"]}

    elif tool == "ranx":
        import ranx

        def load() -> tuple[Any, list[Any]]:
            qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
            return qrels, [ranx.Run.from_file(path, kind="trec") for path in run_paths]

        def fuse(runs: list[Any], method: str, params: dict[str, Any]) -> Any:
            return ranx.fuse(runs, norm="min-max", method=method, params=params)

        def evaluate(qrels: Any, fused: Any) -> dict[str, float]:
            means = ranx.evaluate(qrels, fused, ["ndcg@10", "map"], save_results_in_run=False)
            return {"nDCG@10": means["ndcg@10"], "AP": means["map"]}

    else:
        sys.exit(f"unknown tool {tool!r}")
    return load, fuse, evaluate


def main() -> None:
    tool, qrels_path, repeats, methods, *run_paths = sys.argv[1:]
    load, fuse, evaluate = tool_functions(tool, qrels_path, run_paths)
    load_seconds, (qrels, runs) = timed(load)
    report: dict[str, Any] = {"tool": tool, "load": load_seconds, "methods": {}}
    for method in methods.split(","):
        params = dict(PARAMS[method])
        if method == "wsum":
            params["weights"] = [1.0 / len(runs)] * len(runs)
        fuse_times, eval_times = [], []
        for _ in range(1 + int(repeats)):
            fuse_seconds, fused = timed(lambda: fuse(runs, method, params))  # noqa: B023
            eval_seconds, means = timed(lambda: evaluate(qrels, fused))  # noqa: B023
            fuse_times.append(fuse_seconds)
            eval_times.append(eval_seconds)
        report["methods"][method] = {"fuse": fuse_times, "evaluate": eval_times, "means": means}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
