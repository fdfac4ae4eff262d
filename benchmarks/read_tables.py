"""`rankscope.io.read_run` and `read_qrels` on the benchmark's TREC files, in one process.

Times, ``--runs`` times and interleaved, reading each dataset's run and qrels into frames
(`Run` / `Qrels`), the gzip-compressed run of the smaller datasets (made once in a temporary
folder), streaming the run with `read_run_batches` (``--chunk-mib`` a chunk), and a bare polars
read of the run's three needed columns for scale. Prints the median seconds of each.

Usage::

    .venv/bin/python benchmarks/read_tables.py --sizes small,medium,large --runs 7
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

import rankscope.io

HERE = Path(__file__).resolve().parent
COMPRESS_UP_TO = 50 * 1024**2  # bytes of text gzipped for the compressed case


def bare_polars(path: Path) -> int:
    schema = {
        "q": pl.String,
        "q0": pl.String,
        "d": pl.String,
        "r": pl.Int64,
        "s": pl.Float64,
        "t": pl.String,
    }
    scan = pl.scan_csv(path, separator=" ", has_header=False, schema=schema)
    return scan.select("q", "d", "s").collect().height


def streamed(path: Path, chunk_bytes: int) -> int:
    return sum(len(chunk) for chunk in rankscope.io.read_run_batches(path, chunk_bytes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="small,medium,large")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--chunk-mib", type=int, default=32)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rankscope-read-"))
    cases: dict[str, Callable[[], int]] = {}
    try:
        for size in args.sizes.split(","):
            qrels, run = HERE / "data" / f"{size}.qrels", HERE / "data" / f"{size}.run"
            if not run.exists():
                raise SystemExit(f"run `python benchmarks/generate.py --sizes {size}` first")
            cases[f"{size} read_run"] = lambda run=run: len(rankscope.io.read_run(run))
            cases[f"{size} read_qrels"] = lambda qrels=qrels: len(rankscope.io.read_qrels(qrels))
            chunk = args.chunk_mib << 20
            cases[f"{size} read_run_batches"] = lambda run=run, chunk=chunk: streamed(run, chunk)
            if run.stat().st_size <= COMPRESS_UP_TO:
                packed = folder / f"{size}.run.gz"
                with run.open("rb") as plain, gzip.open(packed, "wb", compresslevel=1) as out:
                    shutil.copyfileobj(plain, out)
                cases[f"{size} read_run .gz"] = lambda p=packed: len(rankscope.io.read_run(p))
            cases[f"{size} bare polars read"] = lambda run=run: bare_polars(run)
        times: dict[str, list[float]] = {name: [] for name in cases}
        rows: dict[str, int] = {}
        for _ in range(args.runs):
            for name, case in cases.items():
                start = time.perf_counter()
                rows[name] = case()
                times[name].append(time.perf_counter() - start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"| case | rows | median s (of {args.runs}) |")
    print("|---|---:|---:|")
    for name, seconds in times.items():
        print(f"| {name} | {rows[name]:,} | {statistics.median(seconds):.3f} |")


if __name__ == "__main__":
    main()
