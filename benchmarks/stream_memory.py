"""Peak memory of streaming: a run ten times the large case, against the large case in memory.

The huge run is the large run written ten times over, each copy with its query ids prefixed
(``r0-``, ``r1-``, ...), and the qrels likewise: every copy scores exactly as the original, so
the huge run's means must equal the large run's, which this script checks before it reports.

Both evaluations run as whole processes of the rankscope command line (the six measures of
the main benchmark, JSON output); peak resident memory comes from the kernel through
``launcher.py``, so this script's size is not its floor.

Usage (after ``python benchmarks/generate.py --sizes large``)::

    python benchmarks/stream_memory.py [--copies 10] [--chunk-mb 256] [--keep]

It writes benchmarks/RESULTS-streaming.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from launcher import run_measured

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
MEASURES = ["nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10"]
RANKSCOPE = [sys.executable, "-m", "rankscope"]


def replicate(source: Path, target: Path, copies: int, qrels: bool) -> None:
    """Write ``copies`` copies of a TREC file, the query ids of copy i prefixed with ``ri-``."""
    fields = 4 if qrels else 6
    frame = pl.read_csv(
        source,
        separator=" ",
        has_header=False,
        new_columns=[f"c{i}" for i in range(fields)],
        schema_overrides={f"c{i}": pl.String for i in range(fields)},
    )
    with target.open("wb") as out:
        for copy in range(copies):
            frame.with_columns((pl.lit(f"r{copy}-") + pl.col("c0")).alias("c0")).write_csv(
                out, separator=" ", include_header=False, quote_style="never"
            )


def replicate_both(qrels: Path, run: Path, huge_qrels: Path, huge_run: Path, copies: int) -> None:
    replicate(qrels, huge_qrels, copies, qrels=True)
    replicate(run, huge_run, copies, qrels=False)


def measured(arguments: list[str]) -> tuple[float, float, dict[str, float]]:
    """Wall seconds, peak RSS in MiB (through ``launcher.py``), and the means, of one rankscope
    process."""
    command = [*RANKSCOPE, "evaluate", *arguments, "-f", "json"]
    for m in MEASURES:
        command += ["-m", m]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        measured = run_measured(command, stdout=out, stderr=err)
        out.seek(0)
        err.seek(0)
        if measured.code != 0:
            raise SystemExit(f"rankscope failed: {err.read()}")
        means = json.loads(out.read())["runs"][0]["mean"]
    return measured.seconds, measured.peak_kib / 1024, means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--chunk-mb", type=int, default=128)
    parser.add_argument("--keep", action="store_true", help="keep the huge files afterwards")
    args = parser.parse_args()

    large_qrels, large_run = DATA / "large.qrels", DATA / "large.run"
    if not large_run.exists():
        raise SystemExit("run `python benchmarks/generate.py --sizes large` first")
    huge_qrels, huge_run = DATA / "huge.qrels", DATA / "huge.run"
    started = time.perf_counter()
    # In a process of its own, so that this one stays small (the launcher keeps this
    # process's size out of the peaks it reads, but there is no need to hold the copies here).
    writer = multiprocessing.get_context("spawn").Process(
        target=replicate_both,
        args=(large_qrels, large_run, huge_qrels, huge_run, args.copies),
    )
    writer.start()
    writer.join()
    if writer.exitcode != 0:
        raise SystemExit("writing the huge files failed")
    size = huge_run.stat().st_size / 1e9
    print(f"wrote {huge_run} ({size:.1f} GB) in {time.perf_counter() - started:.0f} s")

    in_memory = measured([str(large_qrels), str(large_run), "--no-stream"])
    print(f"large, in memory:  {in_memory[0]:6.1f} s, peak {in_memory[1]:6.0f} MiB", flush=True)
    default = measured([str(large_qrels), str(large_run)])
    print(f"large, default:    {default[0]:6.1f} s, peak {default[1]:6.0f} MiB", flush=True)
    streamed_large = measured(
        [str(large_qrels), str(large_run), "--stream", "--chunk-mb", str(args.chunk_mb)]
    )
    print(f"large, streamed:   {streamed_large[0]:6.1f} s, peak {streamed_large[1]:6.0f} MiB")
    huge = measured([str(huge_qrels), str(huge_run), "--stream", "--chunk-mb", str(args.chunk_mb)])
    print(f"{args.copies}x, streamed:     {huge[0]:6.1f} s, peak {huge[1]:6.0f} MiB")

    for name, value in in_memory[2].items():
        for label, other in (
            ("default large", default[2]),
            ("streamed large", streamed_large[2]),
            ("huge", huge[2]),
        ):
            if abs(other[name] - value) > 1e-12:
                raise SystemExit(f"{label} {name} = {other[name]} differs from {value}")
    ratio = huge[1] / in_memory[1]
    strict = huge[1] / default[1]
    verdict = "met" if ratio <= 1.2 else "NOT met"
    lines = [
        "# Streaming: peak memory of a run ten times the large case",
        "",
        "Written by `benchmarks/stream_memory.py`; the command:",
        "",
        "```",
        f"python benchmarks/stream_memory.py --copies {args.copies} --chunk-mb {args.chunk_mb}",
        "```",
        "",
        f"- Date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "- The huge run: the large run (10,000 queries x 1,000 documents) written "
        f"{args.copies} times with prefixed query ids: {huge_run.stat().st_size / 1e9:.1f} GB, "
        f"{args.copies * 10:,}M lines. Its means equal the large run's (checked).",
        "- Whole `rankscope evaluate` processes, six measures; peak RSS from the kernel "
        "(wait4 in `launcher.py`'s launcher, a small process of its own: a child's peak starts "
        "from the size of the process it was forked from).",
        f"- Streamed (`--stream`), a run is read in blocks of {args.chunk_mb} MB whatever its "
        "size; by default, a file of 64 MiB or more grouped by query is read in chunks of "
        "about 1M rows, the next read on the second core. The qrels are held whole, and the "
        f"huge run's are {args.copies} times the large run's (2M judgements), which is most of "
        "what its peak adds.",
        "",
        "| evaluation | wall s | peak RSS MiB |",
        "|---|---:|---:|",
        f"| large, in memory (`--no-stream`) | {in_memory[0]:.1f} | {in_memory[1]:.0f} |",
        f"| large, default (chunks read ahead) | {default[0]:.1f} | {default[1]:.0f} |",
        f"| large, streamed (`--stream --chunk-mb {args.chunk_mb}`) | {streamed_large[0]:.1f} | "
        f"{streamed_large[1]:.0f} |",
        f"| {args.copies}x large, streamed | {huge[0]:.1f} | {huge[1]:.0f} |",
        "",
        f"Target: peak memory of the {args.copies}x run within 1.2x of the large case's: "
        f"{ratio:.2f}x -> {verdict} (and {strict:.2f}x the large run's peak read by default, "
        "in chunks).",
        "",
    ]
    (HERE / "RESULTS-streaming.md").write_text("\n".join(lines))
    print("\n".join(lines))
    if not args.keep:
        huge_run.unlink()
        huge_qrels.unlink()


if __name__ == "__main__":
    main()
