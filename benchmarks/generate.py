"""Write the benchmark's TREC files into ``benchmarks/data/``, deterministically.

Every dataset is a qrels file (``qid 0 doc grade``) and a run (``qid Q0 doc rank score tag``):

========  ========  =====================  ====================
name      queries   documents per query    run lines
========  ========  =====================  ====================
small     1,000     100                    100,000
medium    10,000    100                    1,000,000
large     10,000    1,000                  10,000,000
wide      100,000   100                    10,000,000
ties      10,000    100 (medium's qrels)   1,000,000
========  ========  =====================  ====================

Judgements: about 20 per query (each of 60 candidate documents is judged with probability 1/3),
grades 0-3 with probabilities 0.5, 0.25, 0.15, 0.10. A few judged documents (those of the first
5 candidates) are never retrieved, so recall stays below 1. Retrieved documents are scored
``N(0, 1) + 0.8 * grade`` (unjudged count as grade 0), printed with 6 decimals, and written in
trec_eval's order (score descending, ties by document id descending).

The ``ties`` run rounds scores down to halves, so most documents share their score with others,
and writes tied documents in *ascending* id order with ranks to match: tools that re-sort as
trec_eval does (score descending, document id descending) and tools that keep the file order
rank them differently.

Ids are strings: queries ``q1``, ``q2``, ... (so byte-wise and numeric order differ) and
documents ``doc-0123456``, drawn without repetition within a query from a collection of
1,000,003 documents. Everything is vectorized (numpy for the numbers, polars to format and
write), so the 10-million-line files take a few seconds.

Usage::

    python benchmarks/generate.py                  # every dataset
    python benchmarks/generate.py --sizes small,ties --force
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

DATA = Path(__file__).resolve().parent / "data"

COLLECTION = 1_000_003  # a prime: (offset + j * step) % COLLECTION is distinct for j < COLLECTION
CANDIDATES_JUDGED = 60  # candidates 0..59 may be judged
JUDGED_PROBABILITY = 1 / 3  # about 20 judged per query
UNRETRIEVED = 5  # candidates 0..4 are never retrieved
GRADE_PROBABILITIES = (0.50, 0.25, 0.15, 0.10)
GRADE_WEIGHT = 0.8
TAG = "bench"


@dataclass(frozen=True)
class Dataset:
    name: str
    queries: int
    depth: int
    seed: int
    qrels_of: str | None = None  # another dataset whose queries and qrels this one shares
    ties: bool = False

    @property
    def qrels_path(self) -> Path:
        return DATA / f"{self.qrels_of or self.name}.qrels"

    @property
    def run_path(self) -> Path:
        return DATA / f"{self.name}.run"


DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in [
        Dataset("small", 1_000, 100, seed=1),
        Dataset("medium", 10_000, 100, seed=2),
        Dataset("large", 10_000, 1_000, seed=3),
        Dataset("wide", 100_000, 100, seed=4),
        Dataset("ties", 10_000, 100, seed=2, qrels_of="medium", ties=True),
    ]
}


def _query_ids(num_queries: int) -> pl.Series:
    return pl.Series("qid", np.arange(1, num_queries + 1)).cast(pl.String).str.replace("^", "q")


def _doc_ids(numbers: np.ndarray) -> pl.Expr:
    return pl.format("doc-{}", pl.lit(pl.Series(numbers.ravel())).cast(pl.String).str.zfill(7))


def _write(frame: pl.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    frame.write_csv(
        tmp, separator=" ", include_header=False, quote_style="never", float_precision=6
    )
    tmp.replace(path)


def generate(dataset: Dataset) -> tuple[pl.DataFrame | None, pl.DataFrame]:
    """The qrels (None when shared with another dataset) and the run of ``dataset``."""
    rng = np.random.default_rng(dataset.seed)
    q, depth = dataset.queries, dataset.depth
    width = max(CANDIDATES_JUDGED, UNRETRIEVED + depth)
    offsets = rng.integers(0, COLLECTION, size=(q, 1), dtype=np.int64)
    steps = rng.integers(1, COLLECTION, size=(q, 1), dtype=np.int64)
    doc_numbers = (offsets + np.arange(width, dtype=np.int64) * steps) % COLLECTION

    judged = np.zeros((q, width), dtype=bool)
    judged[:, :CANDIDATES_JUDGED] = rng.random((q, CANDIDATES_JUDGED)) < JUDGED_PROBABILITY
    grades = np.zeros((q, width), dtype=np.int64)
    drawn = rng.choice(len(GRADE_PROBABILITIES), size=(q, width), p=GRADE_PROBABILITIES)
    grades[judged] = drawn[judged]
    query_ids = _query_ids(q)

    qrels = None
    if dataset.qrels_of is None:
        rows, cols = np.nonzero(judged)
        qrels = pl.DataFrame(
            {
                "qid": query_ids.gather(rows),
                "iter": pl.Series([0], dtype=pl.Int64).extend_constant(0, rows.size - 1),
            }
        ).with_columns(doc=_doc_ids(doc_numbers[rows, cols]), grade=pl.Series(grades[rows, cols]))

    retrieved = slice(UNRETRIEVED, UNRETRIEVED + depth)
    numbers = doc_numbers[:, retrieved]
    noise = rng.standard_normal((q, depth))
    scores = np.round(noise + GRADE_WEIGHT * grades[:, retrieved], 6)
    if dataset.ties:
        scores = np.floor(scores * 2.0) / 2.0
        # tied documents in ascending id order, the opposite of trec_eval's tie-break
        order = np.lexsort((numbers, -scores), axis=-1)
    else:
        order = np.lexsort((-numbers, -scores), axis=-1)
    numbers = np.take_along_axis(numbers, order, axis=-1)
    scores = np.take_along_axis(scores, order, axis=-1)
    run = pl.DataFrame(
        {
            "qid": query_ids.gather(np.repeat(np.arange(q), depth)),
            "q0": pl.Series(["Q0"]).extend_constant("Q0", q * depth - 1),
            "doc": pl.select(_doc_ids(numbers)).to_series(),
            "rank": np.tile(np.arange(1, depth + 1, dtype=np.int64), q),
            "score": scores.ravel(),
            "tag": pl.Series([TAG]).extend_constant(TAG, q * depth - 1),
        }
    )
    return qrels, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default=",".join(DATASETS),
        help=f"comma-separated datasets (default: all of {', '.join(DATASETS)})",
    )
    parser.add_argument("--force", action="store_true", help="rewrite files that exist")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.sizes.split(",") if name.strip()]
    unknown = [name for name in names if name not in DATASETS]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; expected some of {list(DATASETS)}")
    # a dataset sharing another's qrels needs that one's qrels file too
    for name in list(names):
        shared = DATASETS[name].qrels_of
        if shared and shared not in names and not DATASETS[shared].qrels_path.exists():
            names.insert(names.index(name), shared)
    DATA.mkdir(parents=True, exist_ok=True)
    for name in names:
        dataset = DATASETS[name]
        paths = [dataset.run_path] + ([] if dataset.qrels_of else [dataset.qrels_path])
        if not args.force and all(p.exists() for p in paths):
            print(f"{name}: exists ({', '.join(p.name for p in paths)})")
            continue
        start = time.perf_counter()
        qrels, run = generate(dataset)
        if qrels is not None:
            _write(qrels, dataset.qrels_path)
        _write(run, dataset.run_path)
        judged = f", {qrels.height:,} judgements" if qrels is not None else ""
        print(
            f"{name}: {run.height:,} run lines{judged} in {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
