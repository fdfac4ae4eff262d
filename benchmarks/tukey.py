"""Benchmark: the randomized Tukey HSD test at 10 systems x 5,000 topics x 10,000 rounds, beside
Tukey's HSD (rankscope's, topics as blocks) and ranx's Tukey (scipy's one-way ``tukey_hsd``,
what ``ranx.compare(stat_test="tukey")`` runs per measure) on the same scores.

Usage (with the project's environment, which has ranx in its test extra)::

    .venv/bin/python benchmarks/tukey.py                 # 5 runs per tool, RESULTS-tukey.md
    .venv/bin/python benchmarks/tukey.py --runs 3 --topics 2000 --output /tmp/tukey.md

Every timing runs in a fresh process (so the thread count can be set per run), the tools
interleaved run by run; the table gives the median wall time of the call alone (the scores are
made in the process before the clock starts). The plain NumPy version of the randomized test
(shuffles by ``Generator.permuted``, one round at a time vectorized over topics) runs fewer
rounds and is scaled to 10,000, to show why the loop is in the core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# One process of the benchmark: make the scores, time one tool, print JSON.
CHILD = r"""
import json, sys, time
import numpy as np

tool, systems, topics, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(2026)
difficulty = rng.uniform(0.05, 0.9, topics)
scores = {
    f"s{i}": np.clip(difficulty + 0.004 * i + rng.normal(0, 0.12, topics), 0, 1)
    for i in range(systems)
}
# Imports before the clock: the call alone is timed.
import scipy.stats
from rankscope.compare import randomized_tukey_hsd, tukey_hsd
import rankscope.engine.permutations
if tool == "ranx":
    from ranx.statistical_tests import tukey_hsd_test
start = time.perf_counter()
if tool == "randomized-tukey":
    result = randomized_tukey_hsd(scores, n_permutations=rounds, seed=0)
    significant = sum(p.significant for p in result.pairs)
elif tool == "tukey":
    result = tukey_hsd(scores)
    significant = sum(p.significant for p in result.pairs)
elif tool == "tukey-one-way":
    result = tukey_hsd(scores, design="one-way")
    significant = sum(p.significant for p in result.pairs)
elif tool == "ranx":
    names = list(scores)
    result = tukey_hsd_test(names, [scores[n] for n in names], max_p=0.05)
    significant = sum(bool(r["significant"]) for r in result if r["control"] < r["treatment"])
elif tool == "numpy-randomized-tukey":
    matrix = np.column_stack(list(scores.values()))
    shuffle = np.random.default_rng(0)
    observed = matrix.mean(axis=0)
    ranges = np.empty(rounds)
    for b in range(rounds):
        means = shuffle.permuted(matrix, axis=1).mean(axis=0)
        ranges[b] = means.max() - means.min()
    differences = np.abs(observed[:, None] - observed[None, :])[np.triu_indices(systems, 1)]
    p = [(np.count_nonzero(ranges >= d) + 1) / (rounds + 1) for d in differences]
    significant = sum(value <= 0.05 for value in p)
else:
    sys.exit(f"unknown tool {tool}")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "significant": int(significant)}))
"""

TOOLS = {
    # name: (label, rounds scale: rounds run = rounds // scale, threads)
    "randomized-tukey": ("rankscope randomized_tukey_hsd (core, 2 threads)", 1, None),
    "randomized-tukey-1": ("rankscope randomized_tukey_hsd (core, 1 thread)", 1, "1"),
    "numpy-randomized-tukey": ("plain NumPy randomized Tukey HSD (scaled)", 20, "1"),
    "tukey": ("rankscope tukey_hsd (two-way, topics as blocks)", 1, None),
    "tukey-one-way": ("rankscope tukey_hsd(design='one-way')", 1, None),
    "ranx": ("ranx's Tukey (scipy.stats.tukey_hsd, one-way)", 1, None),
}


def run_once(name: str, systems: int, topics: int, rounds: int) -> dict[str, float]:
    _, scale, threads = TOOLS[name]
    tool = name.removesuffix("-1")
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = threads
        env["OMP_NUM_THREADS"] = threads
    done = subprocess.run(
        [sys.executable, "-c", CHILD, tool, str(systems), str(topics), str(rounds // scale)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["seconds"] *= scale
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-tukey.md")
    args = parser.parse_args()

    load_before = os.getloadavg()
    # One warm-up of each (imports compiled, caches filled), then the runs interleaved.
    for name in TOOLS:
        run_once(name, args.systems, args.topics, args.rounds // 10)
    timings: dict[str, list[float]] = {name: [] for name in TOOLS}
    found: dict[str, int] = {}
    for _ in range(args.runs):
        for name in TOOLS:
            result = run_once(name, args.systems, args.topics, args.rounds)
            timings[name].append(result["seconds"])
            found[name] = int(result["significant"])
            print(f"{name}: {result['seconds']:.3f} s", file=sys.stderr)
    load_after = os.getloadavg()

    pairs = args.systems * (args.systems - 1) // 2
    base = statistics.median(timings["randomized-tukey"])
    lines = [
        "# Randomized Tukey HSD benchmark",
        "",
        f"{args.systems} systems x {args.topics:,} topics, {args.rounds:,} rounds of the "
        "randomized Tukey HSD test, beside Tukey's HSD and ranx's Tukey on the same scores "
        "(a topic effect much larger than the systems', as in real runs). Command:",
        "",
        "```sh",
        f".venv/bin/python benchmarks/tukey.py --systems {args.systems} --topics {args.topics} "
        f"--rounds {args.rounds} --runs {args.runs}",
        "```",
        "",
        f"Each number is the median of {args.runs} fresh processes, the tools interleaved, "
        "timing the call alone (imports done before the clock starts; the Tukey tests' times "
        "are mostly scipy's studentized range distribution). The plain NumPy version ran 1/20 "
        "of the rounds and is scaled. "
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {load_before[0]:.1f} before and {load_after[0]:.1f} after "
        "(other work shares the machine).",
        "",
        f"| test | median | runs | / randomized (2 threads) | significant pairs of {pairs} |",
        "|---|---:|---|---:|---:|",
    ]
    for name, (label, _, _) in TOOLS.items():
        median = statistics.median(timings[name])
        runs = ", ".join(f"{t:.2f}" for t in timings[name])
        lines.append(
            f"| {label} | {median:.3f} s | {runs} | {median / base:.2f}x | {found[name]} |"
        )
    lines += [
        "",
        "ranx's Tukey and rankscope's one-way design are the same test (the same p-values, "
        "see `tests/compare/test_compare_ranx_tukey.py`); they treat each system's scores as "
        "an independent sample, so the topics' variation stays in the error and the small "
        "differences between the systems go unseen. Blocking on topics (the default) and the "
        "randomized test, which permutes within topics, find them.",
        "",
        f"Written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
    ]
    args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
