"""Many small runs: one ``rankscope evaluate QRELS RUN1 ... RUN50`` against fifty trec_eval
processes, the shell loop people write over a folder of run files.

The runs are fifty systems over the same 50 queries (100 documents each, about 20 judgements
per query, as TREC's deep-learning tracks): ``generate.py``'s generator for one dataset, then
each run's scores perturbed with its own seed and re-sorted into trec_eval's order. Written
once into ``data/many/``.

Used by ``run.py`` (the "many small runs" section of RESULTS-tools.md); on its own::

    python3 benchmarks/many_runs.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "data" / "many"
NUM_RUNS = 50
QUERIES, DEPTH = 50, 100


def write_files() -> tuple[Path, list[Path]]:
    """The shared qrels and the fifty runs (written once)."""
    qrels = FOLDER / "qrels.txt"
    runs = [FOLDER / f"run{k:02d}.txt" for k in range(NUM_RUNS)]
    if qrels.exists() and all(run.exists() for run in runs):
        return qrels, runs
    import numpy as np
    import polars as pl

    from generate import Dataset, _write, generate

    FOLDER.mkdir(parents=True, exist_ok=True)
    judgements, base = generate(Dataset("many", QUERIES, DEPTH, seed=11))
    assert judgements is not None
    _write(judgements, qrels)
    for k, path in enumerate(runs):
        noise = np.random.default_rng(100 + k).normal(0.0, 0.5, base.height)
        run = (
            base.with_columns(score=(pl.col("score") + noise).round(6), tag=pl.lit(f"sys{k:02d}"))
            .sort(["qid", "score", "doc"], descending=[False, True, True])
            .with_columns(rank=pl.int_range(1, pl.len() + 1).over("qid"))
        )
        _write(run, path)
    return qrels, runs


def measure(runs: int, timeout: float, log: Any) -> dict[str, Any]:
    """Median wall time of the one rankscope command and of the fifty trec_eval processes (in
    turn, one after the other), interleaved; and whether their means agree."""
    from run import (
        MEASURES,
        PRINTED_TOLERANCE,
        VENV,
        _parse_trec_eval,
        _trec_eval,
        agreement,
        run_process,
    )

    qrels, files = write_files()
    measures = [arg for m in MEASURES for arg in ("-m", m)]
    command = [str(VENV / "bin" / "rankscope"), "evaluate", str(qrels), *map(str, files)]
    command += [*measures, "--format", "json"]
    trec_eval = shutil.which("trec_eval")
    result: dict[str, Any] = {"rankscope": [], "trec_eval": [], "files": len(files)}
    for round_ in range(runs + 1):  # the first round warms up
        outcome = run_process(command, timeout)
        if outcome.code != 0:
            return {"failure": f"rankscope: {outcome.stderr.strip()[-200:]}"}
        if round_:
            result["rankscope"].append(outcome.seconds)
        ours = json.loads(outcome.stdout)["runs"]
        if trec_eval is None:
            continue
        seconds = 0.0
        verdicts = []
        for path, theirs in zip(files, ours, strict=True):
            done = run_process(_trec_eval(qrels, path), timeout)
            seconds += done.seconds
            if round_ == 0:
                references = {"trec": theirs["mean"]}
                means = _parse_trec_eval(done.stdout)
                verdicts.append(agreement(means, references, ("trec",), PRINTED_TOLERANCE))
        if round_:
            result["trec_eval"].append(seconds)
        else:
            result["agrees"] = all(ok for ok, _ in verdicts)
        log(f"  many small runs: round {round_}/{runs} done")
    return result


def format_many(result: dict[str, Any]) -> list[str]:
    if "failure" in result:
        return [f"failed: {result['failure']}"]
    ours = statistics.median(result["rankscope"])
    lines = [
        "| what | median s | x rankscope |",
        "|---|---:|---:|",
        f"| one `rankscope evaluate` over {result['files']} run files | {ours:.3f} | 1.00 |",
    ]
    if result["trec_eval"]:
        theirs = statistics.median(result["trec_eval"])
        agrees = "yes" if result.get("agrees") else "NO"
        lines.append(
            f"| {result['files']} `trec_eval` processes, one after the other (means agree: "
            f"{agrees}) | {theirs:.3f} | {theirs / ours:.2f} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--write", action="store_true", help="only write the files")
    args = parser.parse_args()
    if args.write:
        write_files()
        return 0
    result = measure(args.runs, args.timeout, lambda text: print(text, file=sys.stderr))
    print("\n".join(format_many(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
