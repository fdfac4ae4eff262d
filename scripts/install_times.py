"""How long ``pip install`` takes: rankscope's wheel beside pytrec-eval-terrier, ir-measures and
ranx, each into a fresh environment, from pip's cache (one untimed install first fills it),
interleaved, the median of a few runs. Prints a Markdown table.

Usage (after ``scripts/wheel``)::

    .venv/bin/python scripts/install_times.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ("pytrec-eval-terrier", "ir-measures", "ranx")


def install(requirement: str, folder: Path) -> tuple[float, int]:
    """Seconds that ``pip install requirement`` takes in a fresh venv, and the packages it has."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", requirement],
        check=True,
        env={**os.environ, "PIP_NO_INPUT": "1"},
    )
    seconds = time.perf_counter() - started
    listed = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "list",
            "--format=freeze",
            "--exclude",
            "pip",
            "--exclude",
            "setuptools",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return seconds, len(listed.stdout.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    wheels = sorted((ROOT / "dist").glob(f"rankscope-*-{tag}-*.whl"))
    if not wheels:
        sys.exit(f"no rankscope wheel for {tag} in dist/: run scripts/wheel first")
    targets = {"rankscope (wheel)": str(wheels[0]), **{peer: peer for peer in PEERS}}
    times: dict[str, list[float]] = {name: [] for name in targets}
    packages: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for requirement in targets.values():  # fills pip's cache; not timed
            install(requirement, Path(scratch))
        for _ in range(arguments.runs):
            for name, requirement in targets.items():
                seconds, packages[name] = install(requirement, Path(scratch))
                times[name].append(seconds)
    load = os.getloadavg()
    print(f"pip install into a fresh venv, from pip's cache, Python {sys.version.split()[0]}, ")
    print(f"median of {arguments.runs} interleaved runs; load average {load[0]:.1f} at the end\n")
    print("| package | median s | min-max s | packages installed |")
    print("|---|---:|---:|---:|")
    for name, measured in times.items():
        print(
            f"| {name} | {statistics.median(measured):.1f} | "
            f"{min(measured):.1f}-{max(measured):.1f} | {packages[name]} |"
        )


if __name__ == "__main__":
    main()
