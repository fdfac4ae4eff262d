"""Time rankscope against trec_eval's Python ports, side by side, on the generated TREC files.

For each dataset (see ``generate.py``) and each tool, a driver evaluates nDCG@10, nDCG@3, AP,
RR, P@10 and R@10 from the files, as a whole process: one warm-up run, then ``--runs`` timed
runs, interleaved across tools so that the machine's drift falls on all of them alike. The
table reports the median wall time, the peak resident memory, and each tool's time over
rankscope's. Before a time is reported, the tool's means are checked against rankscope's.

A second table times compute alone, in one process, on structures built beforehand:
rankscope's core evaluating tables it read, ranx's ``evaluate`` after a first call
compiled it, pytrec_eval's ``RelevanceEvaluator.evaluate``. The floor, polars reading the run
file's three useful columns in-process, is timed once per round of the end-to-end runs (after a
first read), so that it sees the same load as the tools it is compared with.

Usage (after ``benchmarks/setup.sh``)::

    python3 benchmarks/run.py                     # every dataset, 5 runs: RESULTS-tools.md
    python3 benchmarks/run.py --quick             # small and medium, 3 runs (smoke test)
    python3 benchmarks/run.py --sizes large --runs 7 --tools rankscope-cli,ranx

The runner needs only the standard library; every tool runs in ``benchmarks/.venv``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from launcher import run_measured

HERE = Path(__file__).resolve().parent
DRIVERS = HERE / "drivers"
VENV = HERE / ".venv"
PYTHON = VENV / "bin" / "python"
DATA = HERE / "data"
MEASURES = ("nDCG@10", "nDCG@3", "AP", "RR", "P@10", "R@10")
DATASETS = ("small", "medium", "large", "wide", "ties", "many")
QRELS_OF = {"ties": "medium"}
SHAPES = {
    "small": "1,000 queries x 100 documents",
    "medium": "10,000 x 100",
    "large": "10,000 x 1,000 (10M run lines)",
    "wide": "100,000 x 100 (10M run lines)",
    "ties": "10,000 x 100, scores in steps of 0.5, ties written in ascending doc id order",
    "many": "many small runs: 50 run files of 50 queries x 100 (benchmarks/many_runs.py)",
}
TOLERANCE = 1e-6
# trec_eval prints means with 4 decimals: they agree when rounding explains the difference.
PRINTED_TOLERANCE = 5e-5 + TOLERANCE
# These two slow a current numpy; they may be unset, both together, for benchmark processes.
OPENBLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

TREC_NAMES = {
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut.10": "nDCG@10",
    "ndcg_cut_3": "nDCG@3",
    "ndcg_cut.3": "nDCG@3",
    "map": "AP",
    "recip_rank": "RR",
    "P_10": "P@10",
    "P.10": "P@10",
    "recall_10": "R@10",
    "recall.10": "R@10",
}


# --- tools ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One way of evaluating the files, run as a whole process."""

    key: str
    label: str
    argv: Callable[[Path, Path], list[str]]
    parse: Callable[[str], dict[str, float]]
    profiles: tuple[str, ...]  # rankscope profiles whose means this tool should reproduce
    is_rankscope: bool = False
    note: str = ""


def _driver(name: str) -> Callable[[Path, Path], list[str]]:
    return lambda qrels, run: [str(PYTHON), str(DRIVERS / name), str(qrels), str(run)]


def _parse_driver(stdout: str) -> dict[str, float]:
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise ValueError("the driver printed nothing")
    return {str(k): float(v) for k, v in json.loads(lines[-1])["means"].items()}


def _canonical(name: str) -> str | None:
    if name in MEASURES:
        return name
    return TREC_NAMES.get(name)


def _means_in(value: Any) -> dict[str, float] | None:
    """The first mapping, breadth-first, that holds a number for each of the six measures."""
    queue = [value]
    while queue:
        item = queue.pop(0)
        if isinstance(item, dict):
            found = {}
            for key, number in item.items():
                name = _canonical(str(key))
                if name and isinstance(number, int | float) and not isinstance(number, bool):
                    found[name] = float(number)
            if len(found) == len(MEASURES):
                return found
            preferred = [k for k in item if str(k).lower() in {"mean", "means", "all", "summary"}]
            queue.extend(item[k] for k in preferred)
            queue.extend(v for k, v in item.items() if k not in preferred)
        elif isinstance(item, list):
            # rows such as {"query_id": "all", "measure": ..., "value": ...}
            rows = [r for r in item if isinstance(r, dict)]
            summary = _summary_rows(rows)
            if summary:
                return summary
            queue.extend(item)
    return None


def _summary_rows(rows: list[dict[str, Any]]) -> dict[str, float] | None:
    found = {}
    for row in rows:
        query = row.get("query_id", row.get("query", row.get("qid")))
        name = _canonical(str(row.get("measure", "")))
        if query == "all" and name and isinstance(row.get("value"), int | float):
            found[name] = float(row["value"])
    return found if len(found) == len(MEASURES) else None


def _parse_cli_json(stdout: str) -> dict[str, float]:
    """The means in rankscope's ``--format json`` output, whatever its exact shape."""
    try:
        documents = [json.loads(stdout)]
    except json.JSONDecodeError:
        documents = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    means = _means_in(documents if len(documents) > 1 else documents[0])
    if means is None:
        raise ValueError(f"no mean of the six measures in the output: {stdout[:200]!r}")
    return means


def _parse_trec_eval(stdout: str) -> dict[str, float]:
    means = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and _canonical(parts[0]):
            means[_canonical(parts[0]) or ""] = float(parts[2])
    return means


def _rankscope_cli(qrels: Path, run: Path) -> list[str]:
    measures = [arg for m in MEASURES for arg in ("-m", m)]
    binary = VENV / "bin" / "rankscope"
    return [str(binary), "evaluate", str(qrels), str(run), *measures, "--format", "json"]


def _trec_eval(qrels: Path, run: Path) -> list[str]:
    measures = ["-m", "ndcg_cut.3,10", "-m", "map", "-m", "recip_rank", "-m", "P.10"]
    return [
        shutil.which("trec_eval") or "trec_eval",
        *measures,
        "-m",
        "recall.10",
        str(qrels),
        str(run),
    ]


TOOLS: dict[str, Tool] = {
    t.key: t
    for t in [
        Tool(
            "rankscope-cli",
            "rankscope (CLI)",
            _rankscope_cli,
            _parse_cli_json,
            ("trec",),
            is_rankscope=True,
        ),
        Tool(
            "rankscope-python",
            "rankscope (Python)",
            _driver("rankscope_python.py"),
            _parse_driver,
            ("trec",),
            is_rankscope=True,
        ),
        Tool(
            "rankscope-polars",
            "rankscope (Python, polars frames)",
            _driver("rankscope_polars.py"),
            _parse_driver,
            ("trec",),
            is_rankscope=True,
        ),
        Tool(
            "trec_eval",
            "trec_eval (C binary)",
            _trec_eval,
            _parse_trec_eval,
            ("trec", "trec9"),
        ),
        Tool(
            "pytrec_eval",
            "pytrec_eval",
            _driver("pytrec_eval_driver.py"),
            _parse_driver,
            ("trec", "trec9"),
        ),
        Tool(
            "ir_measures",
            "ir_measures",
            _driver("ir_measures_driver.py"),
            _parse_driver,
            ("trec", "trec9"),
        ),
        Tool("ranx", "ranx", _driver("ranx_driver.py"), _parse_driver, ("trec",)),
    ]
}
BASELINES = ("rankscope-cli", "rankscope-python", "rankscope-polars")
# Not a tool: the bare read timed as a process, added to each table by `end_to_end`.
FLOOR_PROCESS = Tool(
    "floor-process",
    "bare read of the run file (polars, 3 columns, as a process)",
    lambda qrels, run: [],
    _parse_driver,
    (),
)

UNEXPLAINED = "not explained: investigate before trusting either number"
KNOWN_DISAGREEMENTS = {
    ("ties", "ranx"): (
        "expected. ranx orders tied scores with an unstable sort (ranx/utils.py, "
        "`x[np.argsort(x[:, 1])[::-1]]` under numba), which follows neither trec_eval's rule "
        "(document id descending) nor the file's order (ascending here); checked: its means "
        "match neither rankscope's `trec` ordering nor rankscope with `ordering='as_given'`. "
        "Only this run has tied scores."
    ),
}


# --- running a process ------------------------------------------------------------------------


@dataclass
class Outcome:
    """One run of a process."""

    seconds: float
    max_rss_kib: int
    code: int
    stdout: str
    stderr: str
    timed_out: bool = False


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # Every Python tool runs as installed: its modules' bytecode cached (the warm-up run writes
    # what an install would have written), not compiled again in each timed process.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if any(name in env for name in OPENBLAS_VARIABLES):
        for name in OPENBLAS_VARIABLES:
            env.pop(name, None)
    return env


def run_process(argv: list[str], timeout: float) -> Outcome:
    """Run ``argv`` to its end: wall time, its own peak RSS, exit code and output, measured by
    ``launcher.py`` (so this process's size is not the floor of the peak)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        measured = run_measured(argv, timeout=timeout, stdout=out, stderr=err, env=_environment())
        out.seek(0)
        err.seek(0)
        return Outcome(
            measured.seconds,
            measured.peak_kib,
            measured.code,
            out.read(),
            err.read(),
            measured.timed_out,
        )


# --- checking agreement -----------------------------------------------------------------------


def _largest_difference(means: dict[str, float], reference: dict[str, float]) -> tuple[str, float]:
    worst, name = -1.0, ""
    for measure in MEASURES:
        if measure not in means:
            return measure, float("inf")
        difference = abs(means[measure] - reference[measure])
        if difference > worst:
            worst, name = difference, measure
    return name, worst


def agreement(
    means: dict[str, float],
    references: dict[str, dict[str, float]],
    profiles: tuple[str, ...],
    tolerance: float = TOLERANCE,
) -> tuple[bool, str]:
    """Whether ``means`` match rankscope's under one of ``profiles``, and a short verdict."""
    for profile in profiles:
        if _largest_difference(means, references[profile])[1] <= tolerance:
            return True, "yes" if profile == "trec" else f"yes ({profile})"
    name, worst = _largest_difference(means, references[profiles[0]])
    return False, f"NO: {name} differs by {worst:.2e}"


# --- the end-to-end table ---------------------------------------------------------------------


@dataclass
class Row:
    tool: Tool
    warmup: float | None = None
    times: list[float] = field(default_factory=list)
    rss_kib: int = 0
    verdict: str = ""
    agrees: bool = False
    failure: str | None = None
    jit: list[str] | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def _failure_text(outcome: Outcome) -> str:
    if outcome.timed_out:
        return "timed out"
    lines = [line for line in outcome.stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else f"exit code {outcome.code}"
    return f"exit {outcome.code}: {last[:160]}"


def end_to_end(
    qrels: Path,
    run: Path,
    tools: list[Tool],
    runs: int,
    references: dict[str, dict[str, float]],
    timeout: float,
    log: Callable[[str], None],
) -> tuple[list[Row], list[float]]:
    """The rows of the table, and the bare read's time measured once per round (in-process,
    after a first read), so that the floor sees the same load as the tools."""
    rows = [Row(tool) for tool in tools]
    floors: list[float] = []
    floor_process = Row(FLOOR_PROCESS)
    floor_argv = [str(PYTHON), str(DRIVERS / "compute_only.py"), "floor", str(qrels), str(run)]
    for row in rows:
        outcome = run_process(row.tool.argv(qrels, run), timeout)
        row.warmup = outcome.seconds
        if outcome.code != 0 or outcome.timed_out:
            row.failure = _failure_text(outcome)
            log(f"  {row.tool.label}: FAILED ({row.failure})")
            continue
        try:
            means = row.tool.parse(outcome.stdout)
        except (ValueError, KeyError, TypeError) as error:
            row.failure = f"unreadable output: {error}"
            log(f"  {row.tool.label}: FAILED ({row.failure})")
            continue
        tolerance = PRINTED_TOLERANCE if row.tool.key == "trec_eval" else TOLERANCE
        row.agrees, row.verdict = agreement(means, references, row.tool.profiles, tolerance)
        try:
            row.jit = json.loads(outcome.stdout.strip().splitlines()[-1]).get("jit")
        except (ValueError, AttributeError, IndexError):
            row.jit = None
        log(f"  {row.tool.label}: warm-up {outcome.seconds:.2f} s, agrees: {row.verdict}")
    for round_ in range(runs):
        for row in rows:
            if row.failure:
                continue
            outcome = run_process(row.tool.argv(qrels, run), timeout)
            if outcome.code != 0 or outcome.timed_out:
                row.failure = f"run {round_ + 1}: {_failure_text(outcome)}"
                continue
            row.times.append(outcome.seconds)
            row.rss_kib = max(row.rss_kib, outcome.max_rss_kib)
        outcome = run_process([*floor_argv, "1"], timeout)
        if outcome.code == 0:
            floors.extend(json.loads(outcome.stdout.strip().splitlines()[-1])["times"])
        # The same read as a process of its own (start-up and import included), as the
        # command-line tools are timed.
        outcome = run_process([*floor_argv, "0"], timeout)
        if outcome.code == 0:
            floor_process.times.append(outcome.seconds)
            floor_process.rss_kib = max(floor_process.rss_kib, outcome.max_rss_kib)
        log(f"  round {round_ + 1}/{runs} done")
    if floor_process.times:
        floor_process.verdict, floor_process.agrees = "(reads only)", True
        rows.append(floor_process)
    return rows, floors


def _baseline(rows: list[Row]) -> Row | None:
    for key in BASELINES:
        for row in rows:
            if row.tool.key == key and row.median is not None and row.agrees:
                return row
    return None


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.2f}"


def format_end_to_end(dataset: str, rows: list[Row], floor: float | None) -> list[str]:
    baseline = _baseline(rows)
    base = baseline.tool.label if baseline else "rankscope"
    lines = [
        f"| tool | median s | min-max s | warm-up s | peak RSS MiB | x {base} | agrees |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        if row.failure and not row.times:
            lines.append(f"| {row.tool.label} | failed | | | | | {row.failure} |")
            continue
        ratio = "-"
        if baseline and row.median is not None and baseline.median:
            ratio = f"{row.median / baseline.median:.2f}"
        spread = f"{min(row.times):.3f}-{max(row.times):.3f}" if row.times else "-"
        verdict = row.verdict + (f"; {row.failure}" if row.failure else "")
        lines.append(
            f"| {row.tool.label} | {_seconds(row.median)} | {spread} | {_seconds(row.warmup)} "
            f"| {row.rss_kib / 1024:.0f} | {ratio} | {verdict} |"
        )
    if floor is not None:
        lines.append(
            f"| bare read of the run file (polars, in-process, one per round) | {_seconds(floor)} "
            "| | | | | |"
        )
        over = [
            f"{row.tool.label} {row.median / floor:.1f}x"
            for row in rows
            if row.tool.is_rankscope and row.median is not None
        ]
        if over:
            lines += ["", "End to end over the bare read: " + ", ".join(over) + "."]
    notes = [
        f"- {row.tool.label}: {KNOWN_DISAGREEMENTS.get((dataset, row.tool.key), UNEXPLAINED)}"
        for row in rows
        if row.verdict.startswith("NO")
    ]
    if notes:
        lines += ["", "Disagreements:", "", *notes]
    return lines


# --- compute alone ----------------------------------------------------------------------------

COMPUTE_TOOLS = (
    ("floor", "bare read of the run file (polars, 3 columns)"),
    ("rankscope", "rankscope's core: prepare and six measures on tables it read"),
    ("ranx", "ranx evaluate(), compiled (warm)"),
    ("pytrec_eval", "pytrec_eval RelevanceEvaluator.evaluate()"),
    ("rankscope-dicts", "rankscope.evaluate() on pytrec_eval's parsed dicts (trec9)"),
    ("pytrec_eval-dicts", "pytrec_eval RelevanceEvaluator(...).evaluate() on its parsed dicts"),
)
# In-process timings that need pytrec_eval's parsers: run when pytrec_eval is a tool.
NEEDS_PYTREC_EVAL = {"rankscope-dicts", "pytrec_eval-dicts"}


def compute_alone(
    qrels: Path,
    run: Path,
    runs: int,
    references: dict[str, dict[str, float]],
    timeout: float,
    wanted: set[str],
    log: Callable[[str], None],
) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for key, label in COMPUTE_TOOLS:
        needed = "pytrec_eval" if key in NEEDS_PYTREC_EVAL else key
        if key != "floor" and needed not in wanted:
            continue
        argv = [str(PYTHON), str(DRIVERS / "compute_only.py"), key, str(qrels), str(run)]
        outcome = run_process([*argv, str(runs)], timeout)
        if outcome.code != 0:
            results[key] = {"label": label, "failure": _failure_text(outcome)}
            log(f"  compute {key}: FAILED ({results[key]['failure']})")
            continue
        result = json.loads(outcome.stdout.strip().splitlines()[-1])
        result["label"] = label
        result["median"] = statistics.median(result["times"])
        if "means" in result:
            profiles = ("trec", "trec9") if key.startswith(("pytrec", "rankscope-")) else ("trec",)
            result["agrees"], result["verdict"] = agreement(result["means"], references, profiles)
        log(f"  compute {key}: median {result['median']:.4f} s")
        results[key] = result
    return results


def format_compute(results: dict[str, dict[str, Any]]) -> list[str]:
    base = results.get("rankscope", {}).get("median")
    lines = [
        "| what | median s | first call s | built in s | x rankscope compute | agrees |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for result in results.values():
        if "failure" in result:
            lines.append(f"| {result['label']} | failed | | | | {result['failure']} |")
            continue
        ratio = f"{result['median'] / base:.1f}" if base else "-"
        setup = result.get("setup") or 0.0
        lines.append(
            f"| {result['label']} | {result['median']:.4f} | {result['first']:.4f} | "
            f"{setup:.2f} | {ratio} | {result.get('verdict', '')} |"
        )
    return lines


def where_time_goes(rows: list[Row], results: dict[str, dict[str, Any]]) -> list[str]:
    """A sentence on where rankscope's time goes, from this run's own measurements."""
    ours, floor = results.get("rankscope", {}), results.get("floor", {})
    cli = _median_of(rows, "rankscope-cli")
    if "interpreter" not in ours or cli is None or cli.median is None:
        return []
    bare = f" (the bare polars read of its three needed columns: {floor['median']:.2f} s)"
    return [
        f"Where rankscope's time goes: starting Python {ours['interpreter']:.3f} s and "
        f"importing what the command line imports {ours['startup']:.3f} s (as processes, "
        f"medians of 7); in one process, the core reading the qrels and the run, every field "
        f"checked, {ours['read']:.2f} s{bare if 'median' in floor else ''}; preparing and the "
        f"six measures {ours['median']:.3f} s. End to end the command line takes "
        f"{cli.median:.2f} s (a run file of 64 MiB or more, grouped by query, is evaluated in "
        "chunks of whole queries; a smaller one is read whole)."
    ]


# --- targets ----------------------------------------------------------------------------------


def _median_of(rows: list[Row], key: str) -> Row | None:
    for row in rows:
        if row.tool.key == key and row.median is not None:
            return row
    return None


def targets(report: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's targets, each with the measured ratio and whether it is met."""
    lines = []

    def check(text: str, value: float | None, ok: Callable[[float], bool], unit: str) -> None:
        if value is None:
            lines.append(f"- {text}: not measured")
        else:
            lines.append(f"- {text}: {value:.2f}{unit} -> {'met' if ok(value) else 'NOT met'}")

    def ratio(rows: list[Row], top: str, bottom: str, memory: bool = False) -> float | None:
        upper, lower = _median_of(rows, top), _median_of(rows, bottom)
        if upper is None or lower is None:
            return None
        if memory:
            return upper.rss_kib / lower.rss_kib if lower.rss_kib else None
        return upper.median / lower.median if upper.median and lower.median else None

    cli = "rankscope-cli"
    small = report.get("small")
    if small:
        rows = small["rows"]
        check(
            "small, rankscope (CLI) / pytrec_eval (<= 0.5)",
            ratio(rows, cli, "pytrec_eval"),
            lambda r: r <= 0.5,
            "x",
        )
        if _median_of(rows, "trec_eval"):
            check(
                "small, rankscope (CLI) / trec_eval -O2 (<= 1)",
                ratio(rows, cli, "trec_eval"),
                lambda r: r <= 1,
                "x",
            )
    medium = report.get("medium")
    if medium:
        rows = medium["rows"]
        check(
            "medium, pytrec_eval / rankscope (CLI) (>= 6)",
            ratio(rows, "pytrec_eval", cli),
            lambda r: r >= 6,
            "x",
        )
        compute = medium.get("compute", {})
        ours = compute.get("rankscope-dicts", {}).get("median")
        theirs = compute.get("pytrec_eval-dicts", {}).get("median")
        check(
            "medium, Python dicts in process: rankscope / pytrec_eval (<= 0.4)",
            ours / theirs if ours and theirs else None,
            lambda r: r <= 0.4,
            "x",
        )
    many = report.get("many", {}).get("many", {})
    if many.get("trec_eval"):
        ours, theirs = statistics.median(many["rankscope"]), statistics.median(many["trec_eval"])
        check(
            "many small runs, 50 trec_eval processes / one rankscope command (>= 1)",
            theirs / ours,
            lambda r: r >= 1,
            "x",
        )
    large = report.get("large")
    if large:
        rows = large["rows"]
        check(
            "large, pytrec_eval / rankscope (CLI) (>= 8)",
            ratio(rows, "pytrec_eval", cli),
            lambda r: r >= 8,
            "x",
        )
        check(
            "large, rankscope (CLI) / bare read as a process (<= 1.3)",
            ratio(rows, cli, FLOOR_PROCESS.key),
            lambda r: r <= 1.3,
            "x",
        )
        if _median_of(rows, "trec_eval"):
            check(
                "large, peak RSS rankscope (CLI) / trec_eval (<= 0.5)",
                ratio(rows, cli, "trec_eval", memory=True),
                lambda r: r <= 0.5,
                "x",
            )
    return lines


# --- the report -------------------------------------------------------------------------------


def _versions() -> str:
    code = (
        "from importlib.metadata import version, PackageNotFoundError\n"
        "for n in ('rankscope','polars','numpy','pytrec-eval-terrier','ranx','numba',"
        "'ir-measures'):\n"
        "    try: print(n, version(n))\n"
        "    except PackageNotFoundError: print(n, 'not installed')\n"
    )
    out = subprocess.run([str(PYTHON), "-c", code], capture_output=True, text=True, check=False)
    versions = ", ".join(line.strip() for line in out.stdout.splitlines())
    binary = shutil.which("trec_eval")
    if binary is None:
        return versions + ", no trec_eval binary on PATH"
    return versions + f", trec_eval on PATH: {tool_version(Path(binary), '-v')}"


def written_command(program: str, argv: list[str], placeholders: dict[str, str]) -> str:
    """``PROGRAM ARGV...`` as a results file shows it, to be run from the checkout: the
    value of each option in ``placeholders`` (``--opt VALUE`` or ``--opt=VALUE``) as the name
    it maps to, a path inside the checkout relative to it; no path of the machine that ran it."""
    root = HERE.parent
    shown: list[str] = []
    placeholder: str | None = None
    for argument in argv:
        option, equals, _ = argument.partition("=")
        if placeholder is not None:
            shown.append(placeholder)
        elif equals and option in placeholders:
            shown.append(f"{option}={placeholders[option]}")
        elif Path(argument).is_absolute() and Path(argument).is_relative_to(root):
            shown.append(str(Path(argument).relative_to(root)))
        else:
            shown.append(argument)
        placeholder = placeholders.get(argument) if placeholder is None else None
    return " ".join([program, *(shlex.quote(a) for a in shown)])


def tool_version(binary: Path, flag: str) -> str:
    """What ``binary flag`` prints first (trec_eval's ``-v`` says "trec_eval version 10.0-rc3"
    on stderr), for a report to name the build it timed without its path on this machine."""
    try:
        out = subprocess.run(
            [str(binary), flag], capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"version unknown ({binary.name} {flag}: {error})"
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        if line.strip():
            return line.strip()
    return f"version unknown ({binary.name} {flag} printed nothing)"


def _machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    return f"{model}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}"


def _source_state() -> str:
    """The commit of the repository, and whether rankscope's sources differ from it."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(HERE.parent), *args], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return ""
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "not a git checkout"
    changed = git("status", "--porcelain", "--", "src")
    count = len(changed.splitlines())
    state = f"{count} uncommitted change(s) under src/" if count else "no uncommitted change"
    return f"commit {commit}, {state}"


def _load() -> str:
    try:
        return "/".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def write_report(
    path: Path,
    command: str,
    report: dict[str, dict[str, Any]],
    runs: int,
    started: str,
    loads: tuple[str, str],
    source: tuple[str, str],
) -> None:
    openblas = [name for name in OPENBLAS_VARIABLES if name in os.environ]
    lines = [
        "# Benchmark results",
        "",
        "Written by `benchmarks/run.py`; do not edit by hand. The command:",
        "",
        "```",
        command,
        "```",
        "",
        f"- Date: {started}",
        f"- Machine: {_machine()}; load average {loads[0]} at the start, {loads[1]} at the end "
        "(other processes share the machine: compare ratios, not seconds)",
        f"- Versions: {_versions()}",
        f"- Source at the start: {source[0]}; at the end: {source[1]}",
        f"- Each end-to-end time is the median of {runs} whole-process runs after one warm-up "
        "run, interleaved across tools; peak RSS is the largest over those runs (wait4 in "
        "`launcher.py`'s launcher). Ratios are medians over the baseline's median.",
        "- Measures: " + ", ".join(MEASURES) + ". Every tool's means are compared with "
        f"rankscope's (tolerance {TOLERANCE:g}; {PRINTED_TOLERANCE:g} for trec_eval, which "
        "prints 4 decimals) on the warm-up run; 'yes (trec9)' means they "
        "match rankscope's `trec9` profile (scores rounded to float32, as pytrec_eval does) "
        "and not its `trec` profile.",
    ]
    if openblas:
        lines.append(f"- {' and '.join(OPENBLAS_VARIABLES)} were unset for the benchmark runs.")
    for name, entry in report.items():
        lines += ["", f"## {name}: {SHAPES.get(name, '')}", ""]
        if "many" in entry:
            from many_runs import format_many

            lines += format_many(entry["many"])
            continue
        lines += format_end_to_end(name, entry["rows"], entry.get("floor"))
        if entry.get("compute"):
            lines += ["", f"Compute alone ({name}), median of {runs} calls in one process:", ""]
            lines += format_compute(entry["compute"])
            sentence = where_time_goes(entry["rows"], entry["compute"])
            if sentence:
                lines += ["", *sentence]
    target_lines = targets(report)
    if target_lines:
        lines += ["", "## Targets", "", *target_lines]
    path.write_text("\n".join(lines) + "\n")


# --- main -------------------------------------------------------------------------------------


def _paths(name: str) -> tuple[Path, Path]:
    return DATA / f"{QRELS_OF.get(name, name)}.qrels", DATA / f"{name}.run"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time rankscope against the other evaluators on generated TREC files."
    )
    parser.add_argument("--sizes", help=f"comma-separated, of {', '.join(DATASETS)} (default all)")
    parser.add_argument("--runs", type=int, help="timed runs per tool after a warm-up (default 5)")
    parser.add_argument("--quick", action="store_true", help="small and medium, 3 runs")
    parser.add_argument(
        "--tools", help=f"comma-separated, of {', '.join(TOOLS)} (default all available)"
    )
    parser.add_argument("--no-compute", action="store_true", help="skip compute-alone timings")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    parser.add_argument(
        "--output",
        type=Path,
        help="report file (default benchmarks/RESULTS-tools.md; --quick: data/RESULTS-quick.md)",
    )
    args = parser.parse_args(argv)

    sizes = (
        args.sizes.split(",")
        if args.sizes
        else (["small", "medium"] if args.quick else list(DATASETS))
    )
    unknown = [s for s in sizes if s not in DATASETS]
    if unknown:
        parser.error(f"unknown size(s) {unknown}; expected some of {list(DATASETS)}")
    runs = args.runs or (3 if args.quick else 5)
    if runs < 1:
        parser.error("--runs must be at least 1")
    output = args.output or (DATA / "RESULTS-quick.md" if args.quick else HERE / "RESULTS-tools.md")
    keys = args.tools.split(",") if args.tools else list(TOOLS)
    unknown = [k for k in keys if k not in TOOLS]
    if unknown:
        parser.error(f"unknown tool(s) {unknown}; expected some of {list(TOOLS)}")
    if not PYTHON.exists():
        print(f"{PYTHON} is missing: run benchmarks/setup.sh first", file=sys.stderr)
        return 1
    if "trec_eval" in keys and not shutil.which("trec_eval"):
        keys.remove("trec_eval")
    tools = [TOOLS[k] for k in keys]

    missing = [s for s in sizes if s != "many" and not all(p.exists() for p in _paths(s))]
    if missing:
        generator = [str(PYTHON), str(HERE / "generate.py"), "--sizes", ",".join(missing)]
        subprocess.run(generator, check=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    command = written_command(
        "python3 benchmarks/run.py", sys.argv[1:] if argv is None else argv, {}
    )
    report: dict[str, dict[str, Any]] = {}
    start_load, start_source = _load(), _source_state()
    for name in sizes:
        if name == "many":
            subprocess.run([str(PYTHON), str(HERE / "many_runs.py"), "--write"], check=True)
            from many_runs import format_many, measure

            log("many small runs: one rankscope command against 50 trec_eval processes")
            report[name] = {"many": measure(runs, args.timeout, log)}
            print("\n## many small runs\n", *format_many(report[name]["many"]), sep="\n")
            continue
        qrels, run = _paths(name)
        log(f"{name}: reference means (rankscope on polars frames, trec and trec9)")
        outcome = run_process(
            [str(PYTHON), str(DRIVERS / "reference.py"), str(qrels), str(run)], args.timeout
        )
        if outcome.code != 0:
            log(f"{name}: no reference, skipped ({_failure_text(outcome)})")
            continue
        references = json.loads(outcome.stdout.strip().splitlines()[-1])
        entry: dict[str, Any] = {"references": references}
        entry["rows"], floors = end_to_end(qrels, run, tools, runs, references, args.timeout, log)
        wanted = {"rankscope", *(t.key for t in tools)}
        if args.no_compute:
            wanted = set()
        compute = compute_alone(qrels, run, runs, references, args.timeout, wanted, log)
        entry["floor"] = statistics.median(floors) if floors else None
        if not args.no_compute:
            entry["compute"] = compute
        report[name] = entry
        print(f"\n## {name}\n", *format_end_to_end(name, entry["rows"], entry["floor"]), sep="\n")
        if entry.get("compute"):
            print("", *format_compute(entry["compute"]), sep="\n")
        write_report(
            output,
            command,
            report,
            runs,
            started,
            (start_load, _load()),
            (start_source, _source_state()),
        )
    target_lines = targets(report)
    if target_lines:
        print("\n## Targets\n", *target_lines, sep="\n")
    print(f"\nwritten to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
