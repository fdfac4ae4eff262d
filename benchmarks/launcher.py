"""One timed process for every benchmark: its wall time, CPU time and own peak RSS, read through a
small launcher so that the harness's size is not the floor of what it reads.

On Linux a child's ``ru_maxrss`` (what ``os.wait4`` returns) is at least the resident size of
the memory it was forked from: the kernel keeps the high-water mark of the forked copy across
exec. ``subprocess`` and ``os.posix_spawn`` alike (vfork shares the parent's memory, whose mark
is the parent's own peak) make a harness of 300 MiB read 300 MiB for ``/usr/bin/true``. So each
command runs as the child of ``launcher.rs``, a std-only Rust program of a few hundred KiB,
which times it (from its spawn to its end, measured inside the launcher, so the launcher's own
start is not counted) and reports the peak and the CPU time (user + system) of what it waited
for.

The launcher is compiled once with ``rustc`` into ``target/bench-launcher/`` (named by the hash
of its source). ``python benchmarks/launcher.py`` shows the floor and the launcher's cost.

Usage from a benchmark::

    from launcher import run_measured

    measured = run_measured(["rankscope", "evaluate", "q.qrels", "r.run"], timeout=600)
    measured.seconds, measured.cpu_seconds, measured.peak_kib, measured.code, measured.timed_out
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "launcher.rs"
BUILT = HERE.parent / "target" / "bench-launcher"
FLAGS = ("--edition", "2021", "-O", "-C", "strip=symbols")

Stream = int | IO[str] | IO[bytes] | None
# The launcher leads a process group of its own, for the timeout to end everything the command
# started; in this session still: a new session is a new scheduler autogroup on Linux, which a
# loaded machine serves later (`true` timed at 6.9 ms in a session of its own, 1.7 ms in this
# one, at load 16 on 2 cores).
_OWN_GROUP: dict[str, Any] = (
    {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
)


@dataclass(frozen=True)
class Measured:
    """One command's run: wall seconds (inside the launcher), its peak RSS in KiB (the largest
    of the processes it waited for), its exit code (negative: the signal that ended it, as
    ``subprocess`` gives it), whether the timeout ended it, and its CPU seconds (user + system,
    of the command and the processes it waited for; 0 when it did not end by itself)."""

    seconds: float
    peak_kib: int
    code: int
    timed_out: bool = False
    cpu_seconds: float = 0.0


def launcher() -> Path:
    """The compiled launcher, built with ``rustc`` (``$RUSTC`` or the one on the path) the first
    time for the hash of its source and flags."""
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(FLAGS).encode()).hexdigest()[:12]
    binary = BUILT / f"launcher-{digest}"
    if binary.exists():
        return binary
    rustc = os.environ.get("RUSTC") or shutil.which("rustc")
    if rustc is None:
        raise RuntimeError(
            "benchmarks/launcher.py needs rustc to build the launcher (benchmarks/launcher.rs)"
        )
    BUILT.mkdir(parents=True, exist_ok=True)
    partial = BUILT / f".launcher-{digest}.{os.getpid()}"
    build = subprocess.run(
        [rustc, *FLAGS, "-o", str(partial), str(SOURCE)],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        raise RuntimeError(f"rustc could not build {SOURCE}:\n{build.stderr}")
    partial.replace(binary)
    return binary


def _read_report(path: Path) -> Measured | None:
    """The command's run as the launcher's report gives it, or None without one."""
    try:
        fields = path.read_text().split()
    except FileNotFoundError:
        return None
    if len(fields) != 5:
        return None
    nanoseconds, peak, microseconds, kind, number = fields
    code = int(number) if kind == "exit" else -int(number)
    return Measured(int(nanoseconds) / 1e9, int(peak), code, cpu_seconds=int(microseconds) / 1e6)


def run_measured(
    argv: list[str],
    *,
    timeout: float | None = None,
    stdin: Stream = subprocess.DEVNULL,
    stdout: Stream = subprocess.DEVNULL,
    stderr: Stream = None,
    env: dict[str, str] | None = None,
) -> Measured:
    """Run ``argv`` to its end through the launcher: its wall time, CPU time and own peak RSS.

    The command gets the given streams and environment. At ``timeout`` seconds its process
    group (the launcher, the command and what the command started) is killed; then ``seconds``
    is the time waited and ``peak_kib`` 0.
    """
    with tempfile.TemporaryDirectory(prefix="rankscope-launch-") as folder:
        report = Path(folder) / "report"
        start = time.perf_counter()
        process = subprocess.Popen(
            [str(launcher()), str(report), *argv],
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=env,
            **_OWN_GROUP,
        )
        # A blocking wait, the timeout on a timer: Popen.wait(timeout) polls, waking this
        # process while the command runs.
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill) if timeout is not None else None
        if timer is not None:
            timer.start()
        try:
            process.wait()
        finally:
            if timer is not None:
                timer.cancel()
        if expired.is_set():
            return Measured(time.perf_counter() - start, 0, -signal.SIGKILL, timed_out=True)
        read = _read_report(report)
        if read is None:  # the launcher could not start the command (it said why on stderr)
            return Measured(time.perf_counter() - start, 0, process.returncode)
        return read


def timed(call: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeats`` calls of ``call`` after a warm-up: the
    in-process counterpart of ``run_measured``, for benchmarks that time a function."""
    call()
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def floor(rounds: int = 21) -> tuple[float, int]:
    """The launcher's own floor: the median seconds and the largest peak (KiB) of ``true`` run
    through it ``rounds`` times, what every measured process pays at least."""
    true = shutil.which("true") or "/bin/true"
    runs = [run_measured([true]) for _ in range(rounds)]
    return statistics.median(run.seconds for run in runs), max(run.peak_kib for run in runs)


def _direct(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and ``ru_maxrss`` (KiB) of ``argv`` run straight from this process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(
        description="The harness's memory floor, with and without "
        "the launcher, and the launcher's cost."
    )
    parser.add_argument("--ballast-mib", type=int, default=300, help="what this process holds")
    parser.add_argument("--runs", type=int, default=101)
    args = parser.parse_args()
    ballast = bytearray(args.ballast_mib << 20)
    for offset in range(0, len(ballast), 4096):  # resident, not only reserved
        ballast[offset] = 1
    true = shutil.which("true") or "/bin/true"
    allocate = [sys.executable, "-c", "import sys; b = bytearray(int(sys.argv[1]) << 20)"]
    print(f"this process holds {args.ballast_mib} MiB")
    for label, argv in (
        ("true", [true]),
        ("python allocating 0 MiB", [*allocate, "0"]),
        ("python allocating 100 MiB", [*allocate, "100"]),
    ):
        _, direct_kib = _direct(argv)
        through = run_measured(argv)
        print(
            f"  {label:28} peak: {direct_kib / 1024:6.1f} MiB from wait4 here, "
            f"{through.peak_kib / 1024:6.1f} MiB through the launcher"
        )
    direct_times, inside, outside = [], [], []
    for _ in range(args.runs):
        direct_times.append(_direct([true])[0])
        start = time.perf_counter()
        inside.append(run_measured([true]).seconds)
        outside.append(time.perf_counter() - start)
    direct, timed, whole = (statistics.median(t) * 1e3 for t in (direct_times, inside, outside))
    print(
        f"`true`, median of {args.runs} interleaved runs: {direct:.2f} ms started from here; "
        f"{timed:.2f} ms as the launcher times it (what a benchmark reports); {whole:.2f} ms "
        "for the launcher's whole process seen from here"
    )
    del ballast


if __name__ == "__main__":
    main()
