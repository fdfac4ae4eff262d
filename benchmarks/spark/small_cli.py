"""A small run from the command line on Spark against starting and stopping a bare session.

The target: ``rankscope evaluate --engine spark --master local[2]`` of the small case within
the time of a bare ``local[2]`` SparkSession (JVM start) + 5 s. Each command is timed as a
whole process (start-up included), the commands interleaved run by run so that a change in the
machine's load falls on all of them; the medians are printed, each command's difference from
the bare session's median, and the median of its differences from the bare session of the same
round.

Usage (the data from ``benchmarks/generate.py --sizes small``)::

    .venv/bin/python benchmarks/spark/small_cli.py --runs 3

``--also 'NAME=COMMAND'`` adds a command (split as a shell splits words), for instance the
DataFrame API's route: ``--also "dataframes=.venv/bin/python benchmarks/spark/stages.py
benchmarks/data/small.qrels benchmarks/data/small.run --dataframes"``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BARE = (
    "from pyspark.sql import SparkSession\n"
    'SparkSession.builder.master("local[2]").getOrCreate().stop()\n'
)


def _seconds(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", default="benchmarks/data/small")
    parser.add_argument("--also", action="append", default=[], metavar="NAME=COMMAND")
    args = parser.parse_args(argv)
    bin_dir = Path(sys.executable).parent
    commands = {
        "bare session": [sys.executable, "-c", BARE],
        "rankscope evaluate": [
            str(bin_dir / "rankscope"),
            "evaluate",
            "--engine",
            "spark",
            "--master",
            "local[2]",
            f"{args.data}.qrels",
            f"{args.data}.run",
        ],
    }
    for extra in args.also:
        name, _, command = extra.partition("=")
        commands[name] = shlex.split(command)
    load = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            times[name].append(_seconds(command))
    bare = statistics.median(times["bare session"])
    print(f"load average {load[0]:.1f}/{load[1]:.1f} -> {os.getloadavg()[0]:.1f}")
    print("| command | median s | minus bare session | run by run | runs s |")
    print("|---|---:|---:|---:|---|")
    for name, runs in times.items():
        median = statistics.median(runs)
        # Each run against the bare session of its own round: the drift of the load cancels.
        paired = statistics.median(t - b for t, b in zip(runs, times["bare session"], strict=True))
        shown = ", ".join(f"{t:.1f}" for t in runs)
        print(f"| {name} | {median:.1f} | {median - bare:+.1f} | {paired:+.1f} | {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
