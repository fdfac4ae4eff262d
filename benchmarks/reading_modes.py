"""rankscope's two ways of reading a run file, side by side, and the bare read as a process.

Alternates, ``--runs`` times, three whole processes on one dataset: ``rankscope evaluate``
as it is (a large run grouped by query is evaluated by the core in chunks of whole queries),
``rankscope evaluate --no-stream`` (the run read whole), and a
bare polars read of the run's three needed columns (interpreter and polars start-up included).
Prints the median wall time and peak RSS of each (both through ``launcher.py``).

Usage::

    benchmarks/.venv/bin/python benchmarks/reading_modes.py [--dataset large] [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from launcher import run_measured

HERE = Path(__file__).resolve().parent
MEASURES = "nDCG@10,nDCG@3,AP,RR,P@10,R@10"
BARE_READ = """
import sys
import polars as pl
S = pl.String
schema = {"q": S, "q0": S, "d": S, "r": pl.Int64, "s": pl.Float64, "t": S}
pl.scan_csv(sys.argv[1], separator=" ", has_header=False, schema=schema).select(
    "q", "d", "s"
).collect()
"""


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one process."""
    measured = run_measured(command)
    if measured.code != 0:
        raise SystemExit(f"failed: {command}")
    return measured.seconds, measured.peak_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="large")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    qrels, run = HERE / "data" / f"{args.dataset}.qrels", HERE / "data" / f"{args.dataset}.run"
    if not run.exists():
        raise SystemExit(f"run `python benchmarks/generate.py --sizes {args.dataset}` first")
    evaluate = [sys.executable, "-m", "rankscope", "evaluate", str(qrels), str(run)]
    commands = {
        "rankscope evaluate (chunks read ahead)": [*evaluate, "-m", MEASURES, "-f", "json"],
        "rankscope evaluate --no-stream (whole)": [
            *evaluate,
            "-m",
            MEASURES,
            "-f",
            "json",
            "--no-stream",
        ],
        "bare polars read of 3 columns, as a process": [
            sys.executable,
            "-c",
            BARE_READ,
            str(run),
        ],
    }
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            results[name].append(timed(command))
    print(f"{args.dataset}, {args.runs} interleaved runs each: median wall s, median peak MiB")
    for name, measured in results.items():
        wall = statistics.median(t for t, _ in measured)
        peak = statistics.median(m for _, m in measured)
        print(f"  {name:45s} {wall:6.3f} s {peak:7.0f} MiB")


if __name__ == "__main__":
    main()
