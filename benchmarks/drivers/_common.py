"""What every driver shares: the six measures, the arguments and the output line.

A driver is run as ``python DRIVER QRELS RUN``; it reads both files the way a user of its tool
would, evaluates the six measures and prints one JSON line ``{"means": {measure: value}}``
with the canonical (ir_measures-style) names below.
"""

from __future__ import annotations

import json
import sys

MEASURES = ("nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10")


def paths() -> tuple[str, str]:
    """The qrels and run paths from the command line."""
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} QRELS RUN")
    return sys.argv[1], sys.argv[2]


def emit(means: dict[str, float], queries: int | None = None) -> None:
    """Print the result line; ``means`` must hold every measure of MEASURES."""
    missing = [m for m in MEASURES if m not in means]
    if missing:
        sys.exit(f"driver bug: no value for {missing}")
    jit = sorted(name for name in ("numba", "llvmlite") if name in sys.modules)
    line = {"means": {m: float(means[m]) for m in MEASURES}, "queries": queries, "jit": jit}
    print(json.dumps(line))
