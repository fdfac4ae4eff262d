"""Benchmark: ``rankscope.compare_runs`` on 1,000 queries x 3 runs x 2 measures, each paired test,
from the call to the rendered Markdown report: what a user waits for.

Usage (with the project's environment, which has scipy in its test extra)::

    .venv/bin/python benchmarks/compare.py                       # 7 runs, RESULTS-compare.md
    .venv/bin/python benchmarks/compare.py --runs 3 --output /tmp/compare.md

Every timing runs in a fresh process, the tests interleaved run by run. The judgements and the
runs are built in the process before the clock starts (as `rankscope.Qrels` and `rankscope.Run`,
so no dict walking is timed), and so is ``import rankscope``; the clock covers `compare_runs`
(evaluating the three runs, aligning, the tests, the corrections) and ``to_markdown()``, with
whatever the first call imports (numpy, scipy) counted, since a user pays for it too. One more
line times the same call a second time in the same process: the work without the imports.
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

# One process: build the inputs, time compare_runs + to_markdown, print JSON.
CHILD = r"""
import json, random, sys, time

test, queries, rounds, twice = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
import rankscope
from rankscope.io import as_qrels, as_run

rng = random.Random(2026)
qrels, runs = {}, {"bm25": {}, "dense": {}, "hybrid": {}}
for q in range(queries):
    grades = {f"d{d}": rng.choice((0, 0, 1, 1, 2, 3)) for d in range(0, 60, 3)}
    qrels[f"q{q}"] = grades
    for weight, name in zip((0.5, 0.7, 0.9), runs):
        runs[name][f"q{q}"] = {
            f"d{d}": rng.gauss(0.0, 1.0) + weight * grades.get(f"d{d}", 0) for d in range(100)
        }
judgements = as_qrels(qrels)
ranked = {name: as_run(run, name=name) for name, run in runs.items()}


def once():
    start = time.perf_counter()
    report = rankscope.compare_runs(
        judgements, ranked, ["nDCG@10", "AP"], test=test, n_resamples=rounds
    )
    text = report.to_markdown()
    return time.perf_counter() - start, report, text


seconds, report, text = once()
if twice:
    seconds, report, text = once()
rows = report.comparison.rows
print(json.dumps({
    "seconds": seconds,
    "significant": sum(row.significant for row in rows),
    "p_values": [row.test.p_value for row in rows],
}))
"""

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")


def run_once(test: str, queries: int, rounds: int, twice: bool) -> dict[str, object]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, test, str(queries), str(rounds), "1" if twice else "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-compare.md")
    args = parser.parse_args()

    load_before = os.getloadavg()
    cases = [(test, False) for test in TESTS] + [(test, True) for test in TESTS]
    for test, twice in cases:  # warm-up: bytecode written, caches filled
        run_once(test, args.queries, args.rounds, twice)
    timings: dict[tuple[str, bool], list[float]] = {case: [] for case in cases}
    found: dict[tuple[str, bool], int] = {}
    for _ in range(args.runs):
        for case in cases:
            result = run_once(case[0], args.queries, args.rounds, case[1])
            timings[case].append(float(result["seconds"]))  # type: ignore[arg-type]
            found[case] = int(result["significant"])  # type: ignore[call-overload]
            print(f"{case}: {result['seconds']:.3f} s", file=sys.stderr)
    load_after = os.getloadavg()

    lines = [
        "# compare_runs benchmark",
        "",
        f"`rankscope.compare_runs` of 3 runs on {args.queries:,} queries x 2 measures (nDCG@10, "
        f"AP; 100 documents a query), {args.rounds:,} rounds for the resampling tests, then "
        "`to_markdown()`. Command:",
        "",
        "```sh",
        f".venv/bin/python benchmarks/compare.py --queries {args.queries} --rounds "
        f"{args.rounds} --runs {args.runs}",
        "```",
        "",
        f"Each number is the median of {args.runs} fresh processes, the tests interleaved; the "
        "inputs are built and `rankscope` imported before the clock starts, so the first call "
        "pays for whatever it imports (numpy, scipy). 'Second call' repeats the call in the "
        "same process. "
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {load_before[0]:.1f} before and {load_after[0]:.1f} after "
        "(other work shares the machine).",
        "",
        "| test | first call | second call | runs (first call) | significant of 4 |",
        "|---|---:|---:|---|---:|",
    ]
    for test in TESTS:
        first = statistics.median(timings[(test, False)])
        second = statistics.median(timings[(test, True)])
        runs = ", ".join(f"{t:.3f}" for t in timings[(test, False)])
        lines.append(
            f"| {test} | {first:.3f} s | {second:.3f} s | {runs} | {found[(test, False)]} |"
        )
    lines += ["", f"Written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}."]
    args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
