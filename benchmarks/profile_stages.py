"""Where rankscope's time goes on one dataset, line by line, as the package stands today.

Three parts, each a median of ``--repeats`` runs:

1. start-up: a new interpreter importing ``rankscope`` (and the CLI), less a bare interpreter;
2. ``evaluate(read_qrels(q), read_run(r), six measures)`` under a line tracer confined to
   rankscope's reading and preparing modules: the time of every line of those modules that
   takes at least 0.5 % of the whole, with its source text. A line that calls another traced
   function includes that function's time (the callee's lines are listed too);
3. each measure's kernel alone on a prepared batch with nothing cached, and the six together.

The tracer adds a little overhead per Python call, so the total is a bit above an untraced run;
it follows the package's code as it changes, rather than a copy of it.

Usage::

    benchmarks/.venv/bin/python benchmarks/profile_stages.py large
    benchmarks/.venv/bin/python benchmarks/profile_stages.py --repeats 5 wide
"""

from __future__ import annotations

import argparse
import linecache
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parent
MEASURES = ["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10"]
TRACED = (  # modules of rankscope whose lines are timed, relative to the package
    "io/_read.py",
    "io/_trec.py",
    "io/_files.py",
    "io/tables.py",
    "engine/evaluate.py",
    "engine/prepare.py",
    "engine/results.py",
)

Key = tuple[str, str, int]  # file, function, line


def _reset_peak_rss() -> bool:
    """Reset the kernel's record of this process's peak RSS (Linux); False where impossible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _rss_mib(field: str) -> float:
    """``VmHWM`` (peak since the last reset) or ``VmRSS`` (now) of this process, in MiB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class LineTimer:
    """Time and peak RSS of each line of the traced files (inclusive of what the line calls).

    The peak is the kernel's high-water mark, reset when a line starts and read when it ends
    (Linux only; NaN elsewhere), carried up to the calling line so that it is inclusive too.
    """

    def __init__(self, files: set[str]) -> None:
        self.files = files
        self.times: dict[Key, float] = defaultdict(float)
        self.peaks: dict[Key, float] = defaultdict(float)
        self.before: dict[Key, float] = {}
        self.stack: list[list[Any]] = []  # per traced frame: line, start, peak of callees

    def _end_line(self, state: list[Any], now: float) -> None:
        key = state[0]
        if key is None:
            return
        self.times[key] += now - state[1]
        peak = max(_rss_mib("VmHWM"), state[2])
        self.peaks[key] = max(self.peaks[key], peak)
        for outer in self.stack[:-1]:
            outer[2] = max(outer[2], peak)

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or frame.f_code.co_filename not in self.files:
            return None
        state: list[Any] = [None, 0.0, 0.0]
        self.stack.append(state)

        def local(frame: FrameType, event: str, arg: Any) -> Any:
            now = time.perf_counter()
            self._end_line(state, now)
            if event == "line":
                code = frame.f_code
                state[0] = (code.co_filename, code.co_name, frame.f_lineno)
                self.before.setdefault(state[0], _rss_mib("VmRSS"))
                state[2] = 0.0
                _reset_peak_rss()
                state[1] = time.perf_counter()
            elif event == "return":
                state[0] = None
                if self.stack and self.stack[-1] is state:
                    self.stack.pop()
            else:
                state[0] = None
            return local

        return local

    def run(self, call: Callable[[], Any]) -> Any:
        sys.settrace(self._call)
        try:
            return call()
        finally:
            sys.settrace(None)


def _startup(repeats: int) -> dict[str, float]:
    python = sys.executable

    def seconds(code: str) -> float:
        times = []
        for _ in range(repeats + 1):
            start = time.perf_counter()
            subprocess.run([python, "-c", code], check=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times[1:])

    bare = seconds("pass")
    return {
        "bare interpreter": bare,
        "import rankscope (over bare)": seconds("import rankscope") - bare,
        "import rankscope.cli + evaluate command (over bare)": seconds(
            "import rankscope.cli as c; c.build_parser()"
        )
        - bare,
        "import numpy (over bare)": seconds("import numpy") - bare,
        "import polars (over bare)": seconds("import polars") - bare,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", help="small, medium, large, wide or ties")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--threshold", type=float, default=0.005, help="smallest share of a line to list"
    )
    args = parser.parse_args()

    import rankscope
    from rankscope.engine import RankedBatch, compute, parse_measures, prepare, resolve_profile
    from rankscope.io import read_qrels, read_run

    qrels_path = HERE / "data" / f"{'medium' if args.dataset == 'ties' else args.dataset}.qrels"
    run_path = HERE / "data" / f"{args.dataset}.run"
    package = Path(rankscope.__file__).resolve().parent
    files = {str(package / name) for name in TRACED}

    print(f"{args.dataset}: medians of {args.repeats} repeats, seconds\n")
    print("start-up (new processes):")
    for name, value in _startup(args.repeats).items():
        print(f"  {name:<56}{value:8.3f}")

    def whole() -> Any:
        return rankscope.evaluate(read_qrels(qrels_path), read_run(run_path), MEASURES)

    untimed = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        whole()
        untimed.append(time.perf_counter() - start)
    runs: list[dict[Key, float]] = []
    totals = []
    timers = []
    for _ in range(args.repeats):
        timer = LineTimer(files)
        start = time.perf_counter()
        timer.run(whole)
        totals.append(time.perf_counter() - start)
        runs.append(timer.times)
        timers.append(timer)
    first = timers[0]
    total = statistics.median(totals)
    keys = {key for times in runs for key in times}
    medians = {key: statistics.median(times.get(key, 0.0) for times in runs) for key in keys}
    print(
        f"\nevaluate(read_qrels, read_run, 6 measures): {statistics.median(untimed):.3f} s "
        f"untraced, {total:.3f} s traced; lines taking >= {args.threshold:.1%} "
        "(RSS before the line and its peak, MiB, from the first traced run):"
    )
    for key in sorted(keys):
        if medians[key] < args.threshold * total:
            continue
        file, function, line = key
        text = linecache.getline(file, line).strip()[:72]
        where = f"{Path(file).relative_to(package)}:{line} {function}"
        memory = f"{first.before.get(key, float('nan')):6.0f} {first.peaks.get(key, 0.0):6.0f}"
        print(f"  {medians[key]:7.3f} {medians[key] / total:6.1%} {memory}  {where:<34} {text}")

    conventions = resolve_profile("trec")
    measures = parse_measures(MEASURES)
    batch = prepare(read_qrels(qrels_path), read_run(run_path), conventions).batch

    def cold() -> RankedBatch:
        return RankedBatch(
            batch.query_ids, batch.offsets, batch.grades, batch.judged_offsets, batch.judged
        )

    print(f"\nkernels on a prepared batch ({batch.grades.size:,} rows), nothing cached:")
    for group in [*([m] for m in measures), measures]:
        times = []
        for _ in range(args.repeats):
            fresh = cold()
            start = time.perf_counter()
            compute(fresh, group, conventions)
            times.append(time.perf_counter() - start)
        name = group[0].name if len(group) == 1 else "all six"
        print(f"  {name:<56}{statistics.median(times):8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
