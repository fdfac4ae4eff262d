"""Benchmark: what a measure defined by its user costs per query, P@10 written in Python, against
the core's P@10 kernel and against ir_measures' ``define_byquery`` of the same measure, on the
same generated data in one process.

Usage (with the project's environment, which has ir_measures in its test extra)::

    .venv/bin/python benchmarks/user_measures.py                   # RESULTS-user-measures.md
    .venv/bin/python benchmarks/user_measures.py --queries 500 --runs 3 --output /tmp/u.md

The contenders, interleaved run by run (the median of each is reported, with the load average
before and after); rankscope's evaluate the same tables (`Qrels.from_dict`, `Run.from_dict`,
built once: the batch is prepared in each call), ir_measures the Python dicts:

- ``kernel``: ``rankscope.evaluate(qrels, run, "P@10")``, the core's kernel;
- ``per-query``: the same call with ``UserP@10``, a Python function of each query's numpy
  views (``fn(ranked, judged, k=, rel=)``; ``tests/measures/user_measures.py``);
- ``vectorized``: ``UserPVec@10``, one Python call over the whole batch's arrays (the same
  file);
- ``ir_measures``: ``ir_measures.define_byquery`` of P@10 (a function of each query's qrels
  and run DataFrames), ``iter_calc`` over the same dicts.

Every contender's per-query values are checked equal to the kernel's before a time is kept.
The cost of the measure itself, per query, is a contender's time less the kernel's (ordering
and joining are the same in all three of rankscope's).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import rankscope
from rankscope.measures import load

HERE = Path(__file__).resolve().parent
MEASURES = HERE.parent / "tests" / "measures" / "user_measures.py"
"""P@k written by hand, per query (``UserP``) and vectorized (``UserPVec``): the measures the
tests check equal to the kernels."""


def data(queries: int, depth: int, judged: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Qrels and a run: ``depth`` documents per query, ``judged`` of them graded 0-3, distinct
    scores (so that every tool orders the ranking alike)."""
    rng = np.random.default_rng(2026)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        documents = [f"d{q}_{i}" for i in range(depth)]
        scores = rng.permutation(depth).astype(float)
        run[f"q{q}"] = dict(zip(documents, scores.tolist(), strict=True))
        picked = rng.choice(depth, judged, replace=False)
        qrels[f"q{q}"] = {documents[i]: int(rng.integers(0, 4)) for i in picked}
    return qrels, run


def contenders(qrels: Any, run: Any) -> dict[str, Callable[[], dict[str, float]]]:
    import ir_measures

    def p10(query_qrels: Any, query_run: Any) -> float:
        top = query_run.sort_values("score", ascending=False).head(10)
        relevant = set(query_qrels.loc[query_qrels["relevance"] >= 1, "doc_id"])
        return sum(doc in relevant for doc in top["doc_id"]) / 10

    theirs = ir_measures.define_byquery(p10, name="UserP10", support_cutoff=False)

    # Tables built once: rankscope's contenders time preparing the batch and the measure.
    tables = rankscope.Qrels.from_dict(qrels), rankscope.Run.from_dict(run)

    def ours(name: str) -> Callable[[], dict[str, float]]:
        return lambda: rankscope.evaluate(*tables, name).score_dict(name)

    def ir() -> dict[str, float]:
        return {m.query_id: m.value for m in theirs.iter_calc(qrels, run)}

    return {
        "kernel": ours("P@10"),
        "per-query": ours("UserP@10"),
        "vectorized": ours("UserPVec@10"),
        "ir_measures": ir,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--judged", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-user-measures.md")
    args = parser.parse_args()
    load(MEASURES)
    qrels, run = data(args.queries, args.depth, args.judged)
    tools = contenders(qrels, run)
    expected = tools["kernel"]()
    for name, call in tools.items():
        got = call()
        if got != expected:
            raise SystemExit(f"{name} disagrees with the kernel on P@10")
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in tools}
    for _ in range(args.runs):
        for name, call in tools.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    load_after = os.getloadavg()
    medians = {name: statistics.median(values) for name, values in times.items()}
    kernel = medians["kernel"]
    rows = []
    for name, median in medians.items():
        per_query = median / args.queries * 1e6
        measure = (median - kernel) / args.queries * 1e6 if name != "ir_measures" else per_query
        rows.append(
            f"| {name} | {median * 1e3:.1f} | {per_query:.2f} | "
            f"{'-' if name == 'kernel' else f'{measure:.2f}'} | {median / kernel:.1f}x |"
        )
    command = (
        f".venv/bin/python benchmarks/user_measures.py --queries {args.queries} --depth "
        f"{args.depth} --judged {args.judged} --runs {args.runs}"
    )
    text = "\n".join(
        [
            "# Measures defined by users: the cost per query",
            "",
            f"P@10 on {args.queries:,} queries x {args.depth} documents ({args.judged} judged "
            "per query), to per-query values, in one process, the contenders interleaved run "
            f"by run; median of {args.runs} runs. rankscope's from tables built once (each "
            "call prepares the batch and scores it), ir_measures' from the Python dicts. "
            "Every contender's values equal the kernel's (checked first).",
            "",
            "```sh",
            command,
            "```",
            "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}, load average "
            f"{load_before[0]:.2f} before, {load_after[0]:.2f} after.",
            "",
            "| contender | median ms | µs per query | µs per query for the measure | vs kernel |",
            "|---|---:|---:|---:|---:|",
            *rows,
            "",
            "*µs per query for the measure*: the contender's time less the kernel's (the same "
            "ordering and joining), over the queries; for ir_measures, its whole time per "
            "query (its define_byquery groups pandas frames by query).",
            "",
        ]
    )
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
