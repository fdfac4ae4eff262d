"""Two commands side by side as whole processes: A and B in turn, ratios pair by pair.

Each command runs once as a warm-up (or ``--warmup`` times), then ``-n`` rounds of A then B,
each run a process of its own through ``launcher.py`` (its wall time from its start to its end,
its CPU time, user + system, and its own peak RSS). Printed: min / median / max of wall, CPU and
peak for each, and the median over the rounds of the ratio A/B of each round's pair, which a
loaded machine disturbs less than the ratio of two medians. A command that fails (a nonzero
exit, a signal, the timeout) ends the comparison with what it printed on stderr.

    python3 benchmarks/ab.py -n 7 --timeout 200 --vs "cat benchmarks/data/large.run" -- \\
        .venv/bin/rankscope evaluate benchmarks/data/large.qrels benchmarks/data/large.run

A is the command after ``--``; B is ``--vs``'s, split as a POSIX shell splits words (neither
runs in a shell: a variable or a pipe is the calling shell's to expand). Both keep this
process's environment and working directory; their standard output is discarded.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

from launcher import Measured, run_measured
from run import _load

STDERR_LINES = 20  # of a failed command's standard error, shown with the failure


@dataclass(frozen=True)
class Options:
    a: list[str]
    b: list[str]
    rounds: int
    warmup: int
    timeout: float | None


class Failed(Exception):
    """A command did not end with code 0; the message says which, when and what it printed."""


def parse_args(argv: Sequence[str]) -> Options:
    """The options of ``argv`` (without the program's name); a usage error exits with code 2."""
    parser = argparse.ArgumentParser(
        prog="benchmarks/ab.py",
        description=__doc__.split("\n\n")[0],
        usage="%(prog)s [-n ROUNDS] [--warmup N] [--timeout S] --vs 'COMMAND B' -- COMMAND A...",
    )
    parser.add_argument("-n", "--rounds", type=int, default=7, help="timed rounds (7)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs of each first (1)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds a process may take")
    parser.add_argument("--vs", required=True, help="command B, one string")
    parser.add_argument("a", nargs=argparse.REMAINDER, help="command A, after --")
    args = parser.parse_args(list(argv))
    a = args.a[1:] if args.a[:1] == ["--"] else args.a
    if not a:
        parser.error("command A is missing: give it after --")
    try:
        b = shlex.split(args.vs)
    except ValueError as error:
        parser.error(f"--vs {args.vs!r}: {error}")
    if not b:
        parser.error("--vs is empty: give command B")
    if args.rounds < 1:
        parser.error(f"-n {args.rounds}: at least 1 round")
    if args.warmup < 0:
        parser.error(f"--warmup {args.warmup}: 0 or more")
    if args.timeout is not None and args.timeout <= 0:
        parser.error(f"--timeout {args.timeout:g}: a positive number of seconds")
    return Options(a, b, args.rounds, args.warmup, args.timeout)


def _run(label: str, argv: list[str], when: str, timeout: float | None) -> Measured:
    with tempfile.TemporaryFile() as stderr:
        measured = run_measured(argv, timeout=timeout, stderr=stderr)
        if measured.code == 0 and not measured.timed_out:
            return measured
        stderr.seek(0)
        said = stderr.read().decode(errors="replace").splitlines()[-STDERR_LINES:]
    if measured.timed_out:
        what = f"did not end within {timeout:g} s"
    elif measured.code < 0:
        what = f"was ended by signal {-measured.code}"
    else:
        what = f"exited with code {measured.code}"
    message = f"command {label} ({shlex.join(argv)}) {what} in {when}"
    if said:
        message += ", its stderr ending with:\n" + "\n".join(f"  {line}" for line in said)
    raise Failed(message)


def compare(options: Options) -> tuple[list[Measured], list[Measured]]:
    """The warm-up, then ``options.rounds`` rounds of A then B: each round's two runs."""
    for number in range(1, options.warmup + 1):
        _run("A", options.a, f"warm-up {number}", options.timeout)
        _run("B", options.b, f"warm-up {number}", options.timeout)
    a_runs, b_runs = [], []
    for number in range(1, options.rounds + 1):
        a_runs.append(_run("A", options.a, f"round {number}", options.timeout))
        b_runs.append(_run("B", options.b, f"round {number}", options.timeout))
    return a_runs, b_runs


def _spread(values: list[float], unit: str, digits: int) -> str:
    low, middle, high = min(values), statistics.median(values), max(values)
    return f"{middle:.{digits}f} {unit} ({low:.{digits}f}-{high:.{digits}f})"


def _ratio(a: list[float], b: list[float]) -> str:
    pairs = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    return f"{statistics.median(pairs):.3f}" if pairs else "n/a (B took 0)"


def report(options: Options, a_runs: list[Measured], b_runs: list[Measured]) -> list[str]:
    """The printed comparison: each command's median (min-max) and the pairs' median ratios."""
    lines = [
        f"{options.rounds} rounds of A then B after {options.warmup} warm-up run(s) of each; "
        "median (min-max)"
    ]
    for label, argv, runs in (("A", options.a, a_runs), ("B", options.b, b_runs)):
        lines += [
            f"{label}: {shlex.join(argv)}",
            f"  wall {_spread([run.seconds for run in runs], 's', 3)}",
            f"  cpu  {_spread([run.cpu_seconds for run in runs], 's', 3)} (user + system)",
            f"  peak {_spread([run.peak_kib / 1024 for run in runs], 'MiB', 1)}",
        ]
    lines.append(
        "A/B, median of the rounds' ratios: "
        f"wall {_ratio([r.seconds for r in a_runs], [r.seconds for r in b_runs])}, "
        f"cpu {_ratio([r.cpu_seconds for r in a_runs], [r.cpu_seconds for r in b_runs])}, "
        f"peak {_ratio([r.peak_kib for r in a_runs], [float(r.peak_kib) for r in b_runs])}"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    before = _load()
    try:
        a_runs, b_runs = compare(options)
    except Failed as failure:
        print(f"benchmarks/ab.py: {failure}", file=sys.stderr)
        return 1
    print("\n".join(report(options, a_runs, b_runs)))
    print(f"load average {before} before, {_load()} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
