"""The command line's two doors side by side on the sizes most evaluations have: the native
``rankscope`` executable (``trec-eval`` and ``evaluate``), the Python command (``python -m
rankscope``) and trec_eval, whole processes, interleaved (one run of each in turn, so that
the machine's drift touches all alike), medians and the ratios against each target.

Cases: ``one`` (1 query x 100 documents: start-up), ``dl`` (TREC DL-like, 43 x 1,000),
``beir`` (BEIR-like, 300 x 100), and generate.py's ``small`` (1,000 x 100) and ``medium``
(10,000 x 100). Every command computes the same six measures (nDCG@3, nDCG@10, AP, RR, P@10,
R@10); their outputs are compared before anything is timed (the doors' byte for byte), the
native executable's with ``RANKSCOPE_NO_HANDOFF`` set: it served them itself.

Targets: 1 query <= 2x trec_eval -O2; DL-like and BEIR-like faster than trec_eval -O2 (for
the native ``trec-eval`` and ``evaluate`` alike); ``rankscope trec-eval`` never slower than
``rankscope evaluate``.

Usage::

    python benchmarks/door.py --native .venv/bin/rankscope --trec-eval /path/to/trec_eval
    python benchmarks/door.py --cases one,dl --runs 21
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from generate import DATA, DATASETS, Dataset, _write, generate
from run import run_process

ROOT = Path(__file__).resolve().parents[1]
EXTRA = {
    d.name: d
    for d in [
        Dataset("one", 1, 100, seed=11),
        Dataset("dl", 43, 1_000, seed=12),
        Dataset("beir", 300, 100, seed=13),
    ]
}
CASES = ("one", "dl", "beir", "small", "medium")
TREC_EVAL_MEASURES = ["-m", "ndcg_cut.3,10", "-m", "map", "-m", "recip_rank", "-m", "P.10"]
TREC_EVAL_MEASURES += ["-m", "recall.10"]
EVALUATE_MEASURES = ["-m", "nDCG@3,nDCG@10,AP,RR,P@10,R@10", "--format", "trec"]


def dataset(name: str) -> Dataset:
    """The case's dataset, written into benchmarks/data/ if it is not there yet."""
    found = EXTRA.get(name) or DATASETS[name]
    if not (found.qrels_path.exists() and found.run_path.exists()):
        DATA.mkdir(exist_ok=True)
        qrels, ranking = generate(found)
        if qrels is not None:
            _write(qrels, found.qrels_path)
        _write(ranking, found.run_path)
    return found


def commands(
    case: Dataset, native: Path, python: Path, trec_eval: Path | None
) -> dict[str, list[str]]:
    files = [str(case.qrels_path), str(case.run_path)]
    found = {
        "native trec-eval": [str(native), "trec-eval", *TREC_EVAL_MEASURES, *files],
        "native evaluate": [str(native), "evaluate", *files, *EVALUATE_MEASURES],
        "python trec-eval": [
            str(python),
            "-m",
            "rankscope",
            "trec-eval",
            *TREC_EVAL_MEASURES,
            *files,
        ],
        "python evaluate": [str(python), "-m", "rankscope", "evaluate", *files, *EVALUATE_MEASURES],
    }
    if trec_eval is not None:
        found["trec_eval"] = [str(trec_eval), *TREC_EVAL_MEASURES, *files]
    return found


def check(named: dict[str, list[str]]) -> None:
    """The doors print the same bytes (and trec_eval's values, where it ran), the native
    executable serving its commands itself, or nothing is timed."""
    served = ["env", "RANKSCOPE_NO_HANDOFF=1"]
    outputs = {
        name: run_process([*served, *argv] if name.startswith("native") else argv, 600)
        for name, argv in named.items()
    }
    for name, outcome in outputs.items():
        if outcome.code != 0:
            sys.exit(f"door: {name} failed ({outcome.code}): {outcome.stderr[:300]}")
    if outputs["native trec-eval"].stdout != outputs["python trec-eval"].stdout:
        sys.exit("door: the native and the Python trec-eval print different output")
    if outputs["native evaluate"].stdout != outputs["python evaluate"].stdout:
        sys.exit("door: the native and the Python evaluate print different output")
    if "trec_eval" in outputs and outputs["trec_eval"].stdout != outputs["python trec-eval"].stdout:
        sys.exit("door: rankscope trec-eval and trec_eval print different output")


def measure(named: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Wall seconds of each command, one run of each in turn, after one warm-up run each."""
    seconds: dict[str, list[float]] = {name: [] for name in named}
    for round_ in range(runs + 1):
        for name, argv in named.items():
            outcome = run_process(argv, 600)
            if round_:
                seconds[name].append(outcome.seconds)
    return seconds


def ratio(seconds: dict[str, list[float]], top: str, bottom: str) -> float | None:
    """The median of the pairs' ratios (pairs are runs of the same round)."""
    if top not in seconds or bottom not in seconds:
        return None
    return statistics.median(a / b for a, b in zip(seconds[top], seconds[bottom], strict=True))


def report(name: str, seconds: dict[str, list[float]]) -> list[str]:
    lines = [f"{name}:"]
    for command, values in seconds.items():
        lines.append(
            f"  {command:<17} median {statistics.median(values):.4f} s "
            f"(min {min(values):.4f}, max {max(values):.4f})"
        )
    targets = [
        (
            "native / trec_eval",
            ratio(seconds, "native trec-eval", "trec_eval"),
            2.0 if name == "one" else 1.0 if name in ("dl", "beir") else None,
        ),
        ("native / python evaluate", ratio(seconds, "native trec-eval", "python evaluate"), 1.0),
        (
            "native evaluate / trec_eval",
            ratio(seconds, "native evaluate", "trec_eval"),
            2.0 if name == "one" else 1.0 if name in ("dl", "beir") else None,
        ),
        (
            "native evaluate / python evaluate",
            ratio(seconds, "native evaluate", "python evaluate"),
            None,
        ),
        (
            "native trec-eval / native evaluate",
            ratio(seconds, "native trec-eval", "native evaluate"),
            1.0,
        ),
        (
            "python trec-eval / python evaluate",
            ratio(seconds, "python trec-eval", "python evaluate"),
            None,
        ),
    ]
    for label, value, target in targets:
        if value is None:
            continue
        verdict = (
            ""
            if target is None
            else f"  (target <= {target:g}: {'met' if value <= target else 'not met'})"
        )
        lines.append(f"  {label:<35} {value:.2f}x{verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--native", type=Path, default=ROOT / ".venv" / "bin" / "rankscope")
    parser.add_argument("--python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    parser.add_argument(
        "--trec-eval", type=Path, default=os.environ.get("RANKSCOPE_TREC_EVAL") or None
    )
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    print(f"load average {'/'.join(f'{v:.1f}' for v in os.getloadavg())}")
    for name in args.cases.split(","):
        named = commands(dataset(name), args.native, args.python, args.trec_eval)
        check(named)
        print("\n".join(report(name, measure(named, args.runs))), flush=True)
    print(f"load average {'/'.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
