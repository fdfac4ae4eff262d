"""Fusion benchmark: rankscope against ranx on ten runs of one collection.

Each tool runs in fresh processes (``--processes``, default 3). In each process the ten runs
and the qrels are read, then for each method the fusion is timed once *cold* (the first call
in the process: for ranx, loading its numba cache and compiling what numba cannot cache) and
``--repeats`` times *warm*, each fusion followed by an evaluation of the fused run (nDCG@10
and AP). The table shows medians: cold over the processes, warm over every warm call; the
ratio is ranx's time over rankscope's. The fused runs' nDCG@10 of both tools is printed as a
check that they fused the same way.

Usage::

    python benchmarks/fusion/generate_runs.py --base small
    python benchmarks/fusion/run.py --base small [--processes 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from generate_runs import qrels_path, run_paths

HERE = Path(__file__).resolve().parent
METHODS = "rrf,wsum,mnz"


def measure(tool: str, base: str, repeats: int) -> dict[str, object]:
    command = [
        sys.executable,
        str(HERE / "driver.py"),
        tool,
        str(qrels_path(base)),
        str(repeats),
        METHODS,
        *map(str, run_paths(base, 10)),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def render(reports: dict[str, list[dict]]) -> str:
    """The Markdown table of medians and ratios, and the agreement check."""
    tools = list(reports)

    def times(tool: str, method: str, what: str) -> tuple[float, float]:
        """Median cold (first call of each process) and warm (later calls) seconds."""
        cold, warm = [], []
        for report in reports[tool]:
            timed = report["methods"][method]
            fuse, evaluate = timed["fuse"], timed["evaluate"]
            if what == "fuse":
                total = fuse
            elif what == "fuse + evaluate":
                total = [f + e for f, e in zip(fuse, evaluate, strict=True)]
            else:  # read the files, then fuse and evaluate (each process's first fusion)
                total = [report["load"] + fuse[0] + evaluate[0]]
            cold.append(total[0])
            warm.extend(total[1:])
        return statistics.median(cold), statistics.median(warm) if warm else float("nan")

    lines = [
        "| method | timed | rankscope cold | rankscope warm | ranx cold | ranx warm "
        "| ranx / rankscope cold | warm |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for number, method in enumerate(METHODS.split(",")):
        # Reading is timed once per process, before its first method only.
        whats = ("fuse", "fuse + evaluate") + (("read + fuse + evaluate",) if number == 0 else ())
        for what in whats:
            ours = times("rankscope", method, what)
            theirs = times("ranx", method, what) if "ranx" in reports else (float("nan"),) * 2
            cells = [f"{t:.2f} s" if t == t else "" for t in (*ours, *theirs)]
            ratios = [f"{b / a:.1f}x" if b == b else "" for a, b in zip(ours, theirs, strict=True)]
            lines.append(f"| {method} | {what} | " + " | ".join(cells + ratios) + " |")
    loads = {tool: statistics.median(r["load"] for r in reports[tool]) for tool in tools}
    lines.append("")
    lines.append(
        "Reading the 10 runs and the qrels (median): "
        + ", ".join(f"{tool} {seconds:.2f} s" for tool, seconds in loads.items())
    )
    for method in METHODS.split(","):
        means = {tool: reports[tool][0]["methods"][method]["means"] for tool in tools}
        lines.append(
            f"- {method}: the fused run's nDCG@10 / AP: "
            + ", ".join(f"{t} {m['nDCG@10']:.6f} / {m['AP']:.6f}" for t, m in means.items())
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", choices=("small", "medium"), default="small")
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tools", default="rankscope,ranx")
    parser.add_argument(
        "--log", help="render the table from a log of an earlier run (its standard error)"
    )
    args = parser.parse_args()
    tools = args.tools.split(",")
    reports: dict[str, list[dict]] = {tool: [] for tool in tools}
    if args.log:
        for line in Path(args.log).read_text().splitlines():
            tool, _, report = line.partition(": ")
            reports[tool].append(json.loads(report))
    else:
        for _ in range(args.processes):
            for tool in tools:  # interleaved, so that both see the same machine load
                reports[tool].append(measure(tool, args.base, args.repeats))
                print(f"{tool}: {json.dumps(reports[tool][-1])}", file=sys.stderr)
    print(render(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
