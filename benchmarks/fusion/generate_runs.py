"""Write ten runs of one collection for the fusion benchmark, deterministically.

The runs answer the queries of a dataset of benchmarks/generate.py (``small``: 1,000 queries,
the default; ``medium``: 10,000), judged by its qrels, as ten different systems would: each run
scores the same 140 candidate documents per query (``N(0, 1) + 0.8 * grade``, its own noise)
and keeps its best 100, so the runs overlap a lot but not entirely (documents missing from
some runs) and rank differently. Scores are printed with 3 decimals, so ties are common.

Usage::

    python benchmarks/fusion/generate_runs.py [--base small|medium] [--runs 10] [--force]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generate import (
    CANDIDATES_JUDGED,
    COLLECTION,
    DATA,
    DATASETS,
    GRADE_PROBABILITIES,
    GRADE_WEIGHT,
    JUDGED_PROBABILITY,
    Dataset,
    _doc_ids,
    _query_ids,
    _write,
)
from generate import main as generate_main

POOL = 140  # candidates each run scores
DEPTH = 100  # documents each run keeps


def run_paths(base: str, runs: int) -> list[Path]:
    return [DATA / f"fusion-{base}" / f"run{index:02d}.run" for index in range(1, runs + 1)]


def qrels_path(base: str) -> Path:
    return DATASETS[base].qrels_path


def _candidates(base: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """The dataset's candidate documents and their grades (the same draws as
    benchmarks/generate.py, so that its qrels judge them)."""
    rng = np.random.default_rng(base.seed)
    q = base.queries
    width = max(CANDIDATES_JUDGED, 5 + base.depth)
    offsets = rng.integers(0, COLLECTION, size=(q, 1), dtype=np.int64)
    steps = rng.integers(1, COLLECTION, size=(q, 1), dtype=np.int64)
    numbers = (offsets + np.arange(max(width, POOL), dtype=np.int64) * steps) % COLLECTION
    judged = np.zeros((q, numbers.shape[1]), dtype=bool)
    judged[:, :CANDIDATES_JUDGED] = rng.random((q, CANDIDATES_JUDGED)) < JUDGED_PROBABILITY
    grades = np.zeros(numbers.shape, dtype=np.int64)
    drawn = rng.choice(len(GRADE_PROBABILITIES), size=(q, width), p=GRADE_PROBABILITIES)
    grades[:, :width][judged[:, :width]] = drawn[judged[:, :width]]
    return numbers[:, :POOL], grades[:, :POOL]


def write_run(path: Path, index: int, numbers: np.ndarray, grades: np.ndarray) -> None:
    rng = np.random.default_rng(1000 + index)
    q = numbers.shape[0]
    scores = np.round(rng.standard_normal(numbers.shape) + GRADE_WEIGHT * grades, 3)
    order = np.lexsort((-numbers, -scores), axis=-1)[:, :DEPTH]
    kept = np.take_along_axis(numbers, order, axis=-1)
    kept_scores = np.take_along_axis(scores, order, axis=-1)
    tag = f"sys{index:02d}"
    run = pl.DataFrame(
        {
            "qid": _query_ids(q).gather(np.repeat(np.arange(q), DEPTH)),
            "q0": pl.Series(["Q0"]).extend_constant("Q0", q * DEPTH - 1),
            "doc": pl.select(_doc_ids(kept)).to_series(),
            "rank": np.tile(np.arange(1, DEPTH + 1, dtype=np.int64), q),
            "score": kept_scores.ravel(),
            "tag": pl.Series([tag]).extend_constant(tag, q * DEPTH - 1),
        }
    )
    _write(run, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", choices=("small", "medium"), default="small")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    base = DATASETS[args.base]
    if not base.qrels_path.exists():
        generate_main(["--sizes", base.name])
    paths = run_paths(args.base, args.runs)
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    todo = [(i, p) for i, p in enumerate(paths, 1) if args.force or not p.exists()]
    if not todo:
        print(f"fusion: {args.runs} runs exist in {paths[0].parent}")
        return 0
    start = time.perf_counter()
    numbers, grades = _candidates(base)
    for index, path in todo:
        write_run(path, index, numbers, grades)
    print(f"fusion: wrote {len(todo)} runs in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
