"""Every row of the speed table in one run, side by side, with the ratio against each target.

Rows: 1 query (start-up), TREC DL-like (43 x 1,000) and BEIR-like (300 x 100), which are
``door.py``'s cases, and ``generate.py``'s small (1,000 x 100), medium (10,000 x 100) and large
(10,000 x 1,000: 10M run lines). Columns, each a whole process from the two files to the six
measures (nDCG@3, nDCG@10, AP, RR, P@10, R@10):

- ``rankscope evaluate`` and ``rankscope trec-eval`` through the native door (the ``rankscope``
  executable of the project's ``.venv``), ``evaluate`` with its default table output;
- trec_eval (``--trec-eval PATH`` or ``RANKSCOPE_TREC_EVAL``; built with its Makefile's -O2);
- the Rust port of trec_eval (``--trec-eval-rust PATH`` or ``RANKSCOPE_BENCH_TREC_EVAL_RUST``;
  see README.md for how it is built);
- pytrec_eval and ranx, through ``run.py``'s drivers; ranx with its numba cache warm (the
  warm-up run writes it).

A column whose tool is absent is left out with the reason printed and written. In each row
every command runs once first (the warm-up), its means checked against rankscope's reference
(``drivers/reference.py``: rankscope on polars frames, profiles ``trec`` and ``trec9``); then
``--runs`` rounds of one run of each command in turn (``--large-runs`` for large), so that the
machine's drift touches all alike. The table gives the median wall time (and peak RSS for
large), both measured by ``launcher.py`` (a small launcher process of its own, so that a peak
is the command's and not this harness's size); ratios are medians of the rounds' ratios. In
the large row ``cat`` of the run file is timed alongside, for the reader's target. Then
``rankscope trec-eval`` and ``rankscope evaluate`` alone, ``--pair-runs`` pairs of each case,
the order within a pair alternating: for the target that ``trec-eval`` is never slower, the
median of the pairs' ratios with its distribution-free 95 % interval (the order statistics the
binomial distribution gives). Where the two cost the same, the ratio of a few rounds of 5-15 ms
processes lands on either side of 1 by the machine's noise; the target is missed only where the
interval lies wholly above 1, that is where the pairs show ``trec-eval`` slower.

Behind ``--with``: ``spark`` (``spark/bench_mllib.py`` on the medium run: rankscope on Spark
against MLlib's ``RankingEvaluator``; and ``rankscope evaluate --engine spark`` of the small run
against starting and stopping a bare ``local[2]`` session), ``answers`` (``answers.py``'s pairs:
``rankscope.evaluate_answers`` against sacrebleu + rouge-score called in a loop), ``compare``
(``compare.py``: ``compare_runs`` on 1,000 queries x 3 runs x 2 measures).

Usage::

    .venv/bin/python benchmarks/all.py --trec-eval /path/to/trec_eval \\
        --trec-eval-rust /path/to/te-rust                  # the table: a few minutes
    .venv/bin/python benchmarks/all.py --with spark,answers,compare   # and the other rows

Writes ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from door import EXTRA, TREC_EVAL_MEASURES, ratio, rounds
from generate import DATASETS, Dataset
from launcher import floor as launcher_floor
from run import (
    DRIVERS,
    MEASURES,
    PRINTED_TOLERANCE,
    TOLERANCE,
    Tool,
    _failure_text,
    _load,
    _machine,
    _parse_driver,
    _parse_trec_eval,
    _source_state,
    agreement,
    run_process,
    tool_version,
    written_command,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = {
    "one": "1 query (start-up)",
    "dl": "TREC DL-like, 43 × 1,000",
    "beir": "BEIR-like, 300 × 100",
    "small": "small, 1,000 × 100",
    "medium": "medium, 10,000 × 100",
    "large": "large, 10M lines",
}
EXTRAS = ("spark", "answers", "compare")
EVALUATE_MEASURES = ["-m", ",".join(("nDCG@3", "nDCG@10", "AP", "RR", "P@10", "R@10"))]
COLUMNS = ("evaluate", "trec-eval", "trec_eval", "trec-eval-rust", "pytrec_eval", "ranx")
LABELS = {
    "evaluate": "rankscope evaluate",
    "trec-eval": "rankscope trec-eval",
    "trec_eval": "trec_eval -O2",
    "trec-eval-rust": "Rust trec_eval port",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx (warm cache)",
}
SLOW = ("pytrec_eval", "ranx")  # seconds a process at every size: --slow-runs rounds
FLOOR = "cat"  # timed beside the large row: `cat` of the run file into /dev/null
BARE_SESSION = (
    "from pyspark.sql import SparkSession\n"
    "SparkSession.builder.master('local[2]').getOrCreate().stop()\n"
)
SPARK_CASE, SPARK_CLI_CASE = "medium", "small"
PAIR_CONFIDENCE = 0.95  # of the interval of trec-eval / evaluate, pair by pair


# --- reading each tool's output ---------------------------------------------------------------

# evaluate's column headers (lower-cased) and the six measures' names here
_TABLE_NAMES = {name.lower(): name for name in MEASURES}


def parse_evaluate_table(stdout: str) -> dict[str, float]:
    """The six means in ``rankscope evaluate``'s default table (one run: a header row of
    measure names, then the run's row), whatever characters draw the table."""
    rows = [
        [cell for cell in re.split(r"\s*[│┃|]\s*", line.strip()) if cell]
        if re.search("[│┃|]", line)
        else line.split()
        for line in stdout.splitlines()
        if line.strip() and not set(line.strip()) <= set("─━┿┼╋+-=| ")
    ]
    for i, header in enumerate(rows[:-1]):
        names = [_TABLE_NAMES.get(cell.lower()) for cell in header]
        if sum(name is not None for name in names) < len(MEASURES):
            continue
        values = rows[i + 1][-len(header) :]
        means = {
            name: float(value)
            for name, value in zip(names, values, strict=True)
            if name is not None
        }
        if len(means) == len(MEASURES):
            return means
    raise ValueError(f"no row of the six measures in the table: {stdout[:200]!r}")


def parse_spark_results(text: str) -> dict[tuple[str, str], float]:
    """The median seconds of each (data, tool) in ``spark/bench_mllib.py``'s table."""
    found = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0] and not cells[0].startswith(("data", "---")):
            try:
                found[cells[0], cells[2]] = float(cells[3])
            except ValueError:
                continue
    return found


# --- the columns ------------------------------------------------------------------------------


def absent(path: Path | None, what: str, option: str, variable: str) -> str | None:
    """Why ``path`` cannot be run as ``what``, or None when it can."""
    if path is None:
        return f"{what}: not given ({option} PATH or {variable}=PATH)"
    if not path.is_file():
        return f"{what}: {path} does not exist"
    if not os.access(path, os.X_OK):
        return f"{what}: {path} is not executable"
    return None


def missing_module(python: Path, module: str) -> str | None:
    """Why ``module`` cannot be imported by ``python``, or None when it can."""
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    outcome = run_process([str(python), "-c", code], 120)
    return None if outcome.code == 0 else f"{module} is not installed for {python}"


def _trec_eval_like(
    binary: Path, command: tuple[str, ...] = ()
) -> Callable[[Path, Path], list[str]]:
    return lambda qrels, run: [str(binary), *command, *TREC_EVAL_MEASURES, str(qrels), str(run)]


def _driver(python: Path, name: str) -> Callable[[Path, Path], list[str]]:
    return lambda qrels, run: [str(python), str(DRIVERS / name), str(qrels), str(run)]


def columns(
    rankscope: Path,
    python: Path,
    trec_eval: Path | None,
    trec_eval_rust: Path | None,
    wanted: tuple[str, ...] = COLUMNS,
    has_module: Callable[[Path, str], str | None] = missing_module,
) -> tuple[list[Tool], dict[str, str]]:
    """The tools that can run, in the table's order, and why each other column is left out."""
    tools: list[Tool] = []
    skipped: dict[str, str] = {}
    executables = {
        "evaluate": absent(rankscope, "rankscope", "--rankscope", "(the project's .venv)"),
        "trec_eval": absent(trec_eval, "trec_eval", "--trec-eval", "RANKSCOPE_TREC_EVAL"),
        "trec-eval-rust": absent(
            trec_eval_rust,
            "the Rust trec_eval port",
            "--trec-eval-rust",
            "RANKSCOPE_BENCH_TREC_EVAL_RUST",
        ),
    }
    executables["trec-eval"] = executables["evaluate"]
    for key in wanted:
        label = LABELS[key]
        reason = executables.get(key)
        if key in ("pytrec_eval", "ranx"):
            reason = has_module(python, key)
        if reason:
            skipped[key] = reason
            continue
        if key == "evaluate":
            tools.append(
                Tool(
                    key,
                    label,
                    lambda q, r: [str(rankscope), "evaluate", str(q), str(r), *EVALUATE_MEASURES],
                    parse_evaluate_table,
                    ("trec",),
                    is_rankscope=True,
                )
            )
        elif key == "trec-eval":
            argv = _trec_eval_like(rankscope, ("trec-eval",))
            tools.append(Tool(key, label, argv, _parse_trec_eval, ("trec",), is_rankscope=True))
        elif key == "trec_eval" and trec_eval is not None:
            tools.append(Tool(key, label, _trec_eval_like(trec_eval), _parse_trec_eval, ("trec",)))
        elif key == "trec-eval-rust" and trec_eval_rust is not None:
            argv = _trec_eval_like(trec_eval_rust)
            tools.append(Tool(key, label, argv, _parse_trec_eval, ("trec",)))
        elif key == "pytrec_eval":
            argv = _driver(python, "pytrec_eval_driver.py")
            tools.append(Tool(key, label, argv, _parse_driver, ("trec", "trec9")))
        elif key == "ranx":
            tools.append(
                Tool(key, label, _driver(python, "ranx_driver.py"), _parse_driver, ("trec",))
            )
    return tools, skipped


# --- one row ----------------------------------------------------------------------------------


@dataclass
class Cell:
    """One tool on one case: its timed runs, peak memory and whether its means agree."""

    seconds: list[float] = field(default_factory=list)
    rss_kib: int = 0
    means: dict[str, float] = field(default_factory=dict)
    verdict: str = ""
    agrees: bool = False
    failure: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


def written(name: str, python: Path, timeout: float) -> Dataset:
    """The case's dataset, its files written by a process of its own where they are missing:
    a child's peak RSS starts from its parent's size, so this process stays small."""
    case = EXTRA.get(name) or DATASETS[name]
    if not (case.qrels_path.exists() and case.run_path.exists()):
        code = f"import sys; sys.path.insert(0, {str(HERE)!r}); import door; door.dataset({name!r})"
        outcome = run_process([str(python), "-c", code], timeout)
        if outcome.code != 0:
            raise SystemExit(f"all: {name} could not be written: {_failure_text(outcome)}")
    return case


def pair_ratio(cells: dict[str, Cell], top: str, bottom: str) -> float | None:
    """``top``'s time over ``bottom``'s: the median of the rounds' ratios when both ran every
    round, else the ratio of their medians."""
    upper, lower = cells.get(top), cells.get(bottom)
    if upper is None or lower is None or not upper.seconds or not lower.seconds:
        return None
    if len(upper.seconds) == len(lower.seconds):
        return ratio({top: upper.seconds, bottom: lower.seconds}, top, bottom)
    return (upper.median or 0.0) / (lower.median or 1.0)


def median_interval(
    values: list[float], confidence: float = PAIR_CONFIDENCE
) -> tuple[float, float]:
    """The distribution-free interval of the median of ``values``: the order statistics
    ``k`` and ``n + 1 - k`` (1-based), ``k`` the largest with P(B < k) <= (1 - confidence) / 2
    for B ~ Binomial(n, 1/2), so that it covers the median with at least ``confidence``; with
    too few values for that, their whole range."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        raise ValueError("no values")
    tail = (1.0 - confidence) / 2.0
    below, k = 0.0, 0  # below: P(B < k + 1) after each step
    while k < n // 2:
        below += math.comb(n, k) / 2.0**n
        if below > tail:
            break
        k += 1
    if k == 0:
        return ordered[0], ordered[-1]
    return ordered[k - 1], ordered[n - k]


@dataclass(frozen=True)
class Paired:
    """``rankscope trec-eval`` against ``rankscope evaluate`` alone: each pair's ratio of wall
    times (trec-eval over evaluate)."""

    ratios: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)

    @property
    def interval(self) -> tuple[float, float]:
        return median_interval(self.ratios)


def measure_pairs(top: list[str], bottom: list[str], pairs: int, timeout: float) -> Paired | None:
    """``pairs`` runs of each command (both already warm), one of each in turn, the order
    within a pair alternating so that neither always runs second; None where a run failed."""
    ratios = []
    for index in range(pairs):
        order = (top, bottom) if index % 2 == 0 else (bottom, top)
        first, second = (run_process(argv, timeout) for argv in order)
        if any(o.code != 0 or o.timed_out for o in (first, second)):
            return None
        upper, lower = (first, second) if index % 2 == 0 else (second, first)
        ratios.append(upper.seconds / lower.seconds)
    return Paired(ratios)


def tolerance_of(tool: Tool) -> float:
    """The tolerance of a tool's means: trec_eval's format and evaluate's table print 4
    decimals."""
    printed = tool.parse in (_parse_trec_eval, parse_evaluate_table)
    return PRINTED_TOLERANCE if printed else TOLERANCE


def measure_case(
    name: str,
    tools: list[Tool],
    runs: int,
    python: Path,
    timeout: float,
    log: Callable[[str], None],
    slow_runs: int | None = None,
) -> dict[str, Cell]:
    """Every tool on one case: the warm-up with its means checked, then interleaved rounds
    (the slow columns, pytrec_eval and ranx, in the first ``slow_runs`` of them only; with
    ``slow_runs`` 0 their warm-up run is their one time)."""
    case = written(name, python, timeout)
    qrels, run = case.qrels_path, case.run_path
    outcome = run_process(
        [str(python), str(DRIVERS / "reference.py"), str(qrels), str(run)], timeout
    )
    if outcome.code != 0:
        raise SystemExit(f"all: no reference means for {name}: {_failure_text(outcome)}")
    references = json.loads(outcome.stdout.strip().splitlines()[-1])
    cells = {tool.key: Cell() for tool in tools}
    named = {tool.key: tool.argv(qrels, run) for tool in tools}
    for tool in tools:
        cell = cells[tool.key]
        outcome = run_process(named[tool.key], timeout)
        if outcome.code != 0 or outcome.timed_out:
            cell.failure = _failure_text(outcome)
        else:
            try:
                cell.means = tool.parse(outcome.stdout)
            except (ValueError, KeyError, TypeError) as error:
                cell.failure = f"unreadable output: {error}"
            else:
                cell.agrees, cell.verdict = agreement(
                    cell.means, references, tool.profiles, tolerance_of(tool)
                )
        if slow_runs == 0 and tool.key in SLOW and cell.failure is None:
            cell.seconds, cell.rss_kib = [outcome.seconds], outcome.max_rss_kib
        state = f"FAILED ({cell.failure})" if cell.failure else f"agrees: {cell.verdict}"
        log(f"  {tool.label}: warm-up {outcome.seconds:.3f} s, {state}")
    timed = {
        key: argv
        for key, argv in named.items()
        if cells[key].failure is None and not (slow_runs == 0 and key in SLOW)
    }
    if name == "large":
        cells[FLOOR] = Cell(agrees=True, verdict="(reads only)")
        timed[FLOOR] = ["sh", "-c", 'exec cat "$1" > /dev/null', "sh", str(run)]
    limits = {key: slow_runs for key in SLOW if slow_runs is not None and slow_runs < runs}
    timed_rounds = rounds(timed, runs, warm_up=False, timeout=timeout, limits=limits)
    for key, outcomes in timed_rounds.items():
        cell = cells[key]
        for round_, outcome in enumerate(outcomes, 1):
            if outcome.code != 0 or outcome.timed_out:
                cell.failure = f"run {round_}: {_failure_text(outcome)}"
                continue
            cell.seconds.append(outcome.seconds)
            cell.rss_kib = max(cell.rss_kib, outcome.max_rss_kib)
    return cells


def port_against_trec_eval(cells: dict[str, Cell]) -> str | None:
    """Whether the Rust port printed trec_eval's values on this case, and where not."""
    port, reference = cells.get("trec-eval-rust"), cells.get("trec_eval")
    if port is None or reference is None or not port.means or not reference.means:
        return None
    differing = [
        f"{m} {port.means.get(m)} vs {reference.means[m]}"
        for m in MEASURES
        if port.means.get(m) != reference.means[m]
    ]
    return "same values" if not differing else "differs: " + ", ".join(differing)


# --- targets ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One of the issue's targets and what this run measured against it."""

    text: str
    value: float | None
    limit: float
    kind: str = "<="  # "<=", "<" or ">="
    unit: str = "x"
    # where given (a median's interval): met unless the interval lies wholly beyond the limit
    interval: tuple[float, float] | None = None

    @property
    def met(self) -> bool | None:
        if self.value is None:
            return None
        if self.interval is not None and self.kind == "<=":
            return self.interval[0] <= self.limit
        if self.kind == "<=":
            return self.value <= self.limit
        if self.kind == "<":
            return self.value < self.limit
        return self.value >= self.limit

    def line(self) -> str:
        goal = f"{self.kind} {self.limit:g}{self.unit}"
        if self.value is None:
            return f"| {self.text} | {goal} | not measured | |"
        verdict = "met" if self.met else "**not met**"
        measured = f"{self.value:.3f}{self.unit}"
        if self.interval is not None:
            goal += ", within the interval"
            low, high = self.interval
            measured += f" ({low:.3f}-{high:.3f})"
        return f"| {self.text} | {goal} | {measured} | {verdict} |"


def targets(
    table: dict[str, dict[str, Cell]],
    extras: dict[str, dict[str, Any]],
    pairs: dict[str, Paired] | None = None,
) -> list[Target]:
    """The issue's targets, each with this run's ratio (or seconds) and whether it is met;
    trec-eval's against evaluate from ``pairs`` where the case has them (with the median's
    interval), else from the table's rounds."""
    found = []
    door_limits = {"one": ("<=", 2.0), "dl": ("<", 1.0), "beir": ("<", 1.0)}
    for case, (kind, limit) in door_limits.items():
        if case in table:
            for key in ("evaluate", "trec-eval"):
                found.append(
                    Target(
                        f"{CASES[case]}: {LABELS[key]} / trec_eval -O2",
                        pair_ratio(table[case], key, "trec_eval"),
                        limit,
                        kind,
                    )
                )
    for case, cells in table.items():
        text = f"{CASES[case]}: rankscope trec-eval / rankscope evaluate (never slower)"
        paired = (pairs or {}).get(case)
        if paired is None:
            found.append(Target(text, pair_ratio(cells, "trec-eval", "evaluate"), 1.0))
        else:
            found.append(Target(text, paired.median, 1.0, interval=paired.interval))
    large = table.get("large")
    if large:
        evaluate = large.get("evaluate")
        found.append(
            Target(
                "large: rankscope evaluate end to end (this machine, loaded or not)",
                evaluate.median if evaluate else None,
                0.6,
                unit=" s",
            )
        )
        found.append(
            Target(
                "large: rankscope evaluate / cat of the file",
                pair_ratio(large, "evaluate", FLOOR),
                8.0,
            )
        )
        theirs = large.get("trec_eval")
        memory = (
            evaluate.rss_kib / theirs.rss_kib
            if evaluate and theirs and evaluate.rss_kib and theirs.rss_kib
            else None
        )
        found.append(Target("large: peak memory, rankscope evaluate / trec_eval", memory, 0.5))
    spark = extras.get("spark")
    if spark:
        found.append(
            Target(
                f"Spark, {SPARK_CASE}: rankscope on Spark / MLlib RankingEvaluator",
                spark.get("ratio"),
                0.5,
            )
        )
        found.append(
            Target(
                f"Spark, {SPARK_CLI_CASE} from the command line: over a bare session's start",
                spark.get("over_session"),
                5.0,
                unit=" s",
            )
        )
    answers = extras.get("answers")
    if answers:
        found.append(
            Target(
                "answers: sacrebleu + rouge-score / rankscope.evaluate_answers",
                answers.get("speedup"),
                10.0,
                ">=",
            )
        )
    compare = extras.get("compare")
    if compare:
        for test, limit in (("t", 0.1), ("randomization", 0.3), ("bootstrap", 0.3)):
            found.append(
                Target(
                    f"compare_runs, 1,000 queries x 3 runs x 2 measures, {test}",
                    compare.get(test),
                    limit,
                    unit=" s",
                )
            )
    return found


# --- the rows behind --with -------------------------------------------------------------------


def spark_row(rankscope: Path, python: Path, runs: int, timeout: float) -> dict[str, Any]:
    """rankscope on Spark against MLlib (``spark/bench_mllib.py``, its own table kept in
    ``data/``), and the small run from the command line against a bare session's start."""
    output = HERE / "data" / "RESULTS-spark-all.md"
    argv = [str(python), str(HERE / "spark" / "bench_mllib.py"), "--sizes", SPARK_CASE]
    outcome = run_process([*argv, "--runs", str(runs), "--output", str(output)], timeout)
    if outcome.code != 0:
        return {"failure": f"spark/bench_mllib.py: {_failure_text(outcome)}"}
    medians = parse_spark_results(output.read_text())
    ours = medians.get((SPARK_CASE, "rankscope-spark"))
    theirs = medians.get((SPARK_CASE, "mllib-evaluator"))
    result: dict[str, Any] = {
        "medians": medians,
        "ratio": ours / theirs if ours and theirs else None,
    }
    case = written(SPARK_CLI_CASE, python, timeout)
    named = {
        "cli": [
            str(rankscope),
            "evaluate",
            "--engine",
            "spark",
            "--master",
            "local[2]",
            str(case.qrels_path),
            str(case.run_path),
        ],
        "session": [str(python), "-c", BARE_SESSION],
    }
    seconds = {
        name: [o.seconds for o in outs]
        for name, outs in rounds(named, runs, timeout=timeout).items()
    }
    result["cli"] = statistics.median(seconds["cli"])
    result["session"] = statistics.median(seconds["session"])
    result["over_session"] = statistics.median(
        a - b for a, b in zip(seconds["cli"], seconds["session"], strict=True)
    )
    return result


def answers_row(pairs: int, repeats: int) -> dict[str, Any]:
    """``answers.py``'s English pairs: the packages in a loop against rankscope."""
    import answers
    import rankscope

    rng = random.Random(17)
    references, responses = (answers.texts(rng, answers.ENGLISH, pairs, " ") for _ in range(2))
    measures = ["BLEU", "ROUGE-1", "ROUGE-2", "ROUGE-L"]
    ours = rankscope.evaluate_answers(references, responses, measures)
    expected = answers.direct(references, responses)
    worst = max(
        abs(a - b) for m in measures for a, b in zip(ours.scores(m), expected[m], strict=True)
    )
    packages, packages_cpu = answers.timed(lambda: answers.direct(references, responses), repeats)
    core, core_cpu = answers.timed(
        lambda: rankscope.evaluate_answers(references, responses, measures), repeats
    )
    return {
        "pairs": pairs,
        "packages": packages,
        "rankscope": core,
        "speedup": packages / core,
        "speedup_cpu": packages_cpu / core_cpu,
        "difference": worst,
    }


def compare_row(runs: int) -> dict[str, Any]:
    """``compare.py``'s case: the median seconds of each test, a fresh process each time."""
    from compare import run_once

    found: dict[str, Any] = {}
    for test in ("t", "randomization", "bootstrap"):
        run_once(test, 1000, 10_000, False)  # the warm-up: bytecode written, as compare.py does
        found[test] = statistics.median(
            float(run_once(test, 1000, 10_000, False)["seconds"])
            for _ in range(runs)  # type: ignore[arg-type]
        )
    return found


# --- the report -------------------------------------------------------------------------------


def cell_text(cell: Cell | None, memory: bool) -> str:
    if cell is None:
        return ""
    if cell.median is None:
        return f"failed ({cell.failure})" if cell.failure else ""
    seconds = f"{cell.median:.3f} s" if cell.median < 10 else f"{cell.median:.1f} s"
    if memory and cell.rss_kib:
        seconds += f" / {cell.rss_kib / 1024:.0f} MiB"
    return seconds if cell.agrees else f"{seconds} (means: {cell.verdict})"


def report(
    command: str,
    started: str,
    loads: tuple[str, str],
    source: str,
    runs: tuple[int, int, int],
    table: dict[str, dict[str, Cell]],
    skipped: dict[str, str],
    extras: dict[str, dict[str, Any]],
    floor: tuple[float, int] | None = None,
    versions: tuple[str, ...] = (),
    pairs: dict[str, Paired] | None = None,
) -> list[str]:
    shown = [key for key in COLUMNS if key not in skipped]
    lines = [
        "# Benchmark results: the speed table",
        "",
        "Written by `benchmarks/all.py`; do not edit by hand. The command:",
        "",
        "```",
        command,
        "```",
        "",
        f"- Date: {started}; {source}",
        f"- Machine: {_machine()}; load average {loads[0]} at the start, {loads[1]} at the "
        "end. Other processes share the 2 cores: under load every wall time is inflated by "
        "waiting for a core, short processes least; read the ratios, and rerun on a quiet "
        "machine for the seconds.",
        f"- Each cell: the median of {runs[0]} whole-process runs ({runs[1]} for large; "
        + (
            f"pytrec_eval and ranx in the first {runs[2]} rounds only"
            if runs[2]
            else "pytrec_eval and ranx: their warm-up run alone"
        )
        + ") after one warm-up run, one run of each command in turn; peak RSS for "
        "large. Ratios are medians of the "
        "rounds' ratios (of the medians where one ran fewer rounds). Every "
        "tool's means were checked against rankscope's on the warm-up run (tolerance "
        f"{TOLERANCE:g}, {PRINTED_TOLERANCE:g} for outputs with 4 decimals; pytrec_eval against "
        "the `trec9` profile, scores as float32).",
        *(
            [
                "- Every process is started and measured by `launcher.py`'s launcher, a small "
                "process of its own, so that a peak is the command's, not this harness's size: "
                f"`true` through it takes {floor[0] * 1e3:.1f} ms (median of 21) and peaks at "
                f"{floor[1] / 1024:.1f} MiB, the floor of every cell."
            ]
            if floor
            else []
        ),
        *(f"- {line}" for line in versions),
        "",
        "| case | " + " | ".join(LABELS[key] for key in shown) + " |",
        "|---|" + "---:|" * len(shown),
    ]
    for case, cells in table.items():
        texts = [cell_text(cells.get(key), case == "large") for key in shown]
        lines.append(f"| {CASES[case]} | " + " | ".join(texts) + " |")
    if skipped:
        lines += ["", "Left out:", ""]
        lines += [f"- {LABELS[key]}: {reason}" for key, reason in skipped.items()]
    lines += ["", "Each column over `rankscope evaluate` (median of the rounds' ratios):", ""]
    lines += [
        "| case | " + " | ".join(LABELS[key] for key in shown) + " |",
        "|---|" + "---:|" * len(shown),
    ]
    for case, cells in table.items():
        values = [pair_ratio(cells, key, "evaluate") for key in shown]
        lines.append(
            f"| {CASES[case]} | "
            + " | ".join("" if v is None else f"{v:.2f}" for v in values)
            + " |"
        )
    if pairs:
        counts = sorted({len(paired.ratios) for paired in pairs.values()})
        lines += [
            "",
            "`rankscope trec-eval` over `rankscope evaluate` alone, "
            f"{' or '.join(map(str, counts))} pairs a case, the order within a pair "
            "alternating: the median of the pairs' ratios and its distribution-free "
            f"{PAIR_CONFIDENCE * 100:.0f} % interval:",
            "",
            "| case | median | interval |",
            "|---|---:|---:|",
        ]
        for case, paired in pairs.items():
            low, high = paired.interval
            lines.append(f"| {CASES[case]} | {paired.median:.3f} | {low:.3f}-{high:.3f} |")
    checks = [(case, port_against_trec_eval(cells)) for case, cells in table.items()]
    checks = [(case, verdict) for case, verdict in checks if verdict]
    if checks:
        lines += ["", "The Rust port's printed means against trec_eval's:", ""]
        lines += [f"- {CASES[case]}: {verdict}" for case, verdict in checks]
    spark = extras.get("spark")
    if spark:
        lines += ["", "## Spark", ""]
        if "failure" in spark:
            lines.append(f"Failed: {spark['failure']}")
        else:
            lines += [
                "| data | tool | median s |",
                "|---|---|---:|",
                *[f"| {d} | {t} | {s:.2f} |" for (d, t), s in spark["medians"].items()],
                "",
                f"From the command line, {SPARK_CLI_CASE}: `rankscope evaluate --engine spark "
                f"--master local[2]` {spark['cli']:.1f} s, a bare `local[2]` session started "
                f"and stopped {spark['session']:.1f} s (medians): "
                f"{spark['over_session']:.1f} s more. Details: `RESULTS-spark.md`.",
            ]
    answers = extras.get("answers")
    if answers:
        lines += [
            "",
            "## Answers",
            "",
            f"{answers['pairs']} English pairs of `answers.py`, BLEU and ROUGE-1/2/L, in one "
            f"process: sacrebleu + rouge-score in a loop {answers['packages']:.3f} s, "
            f"`rankscope.evaluate_answers` {answers['rankscope']:.3f} s (medians; "
            f"{answers['speedup']:.1f}x in wall time, {answers['speedup_cpu']:.1f}x in CPU time); "
            f"values equal "
            f"to {answers['difference']:.1e}. Details: `RESULTS-answers.md`.",
        ]
    compare = extras.get("compare")
    if compare:
        lines += [
            "",
            "## compare_runs",
            "",
            "`compare.py`'s case, a fresh process each call (first call): "
            + ", ".join(f"{test} {seconds:.3f} s" for test, seconds in compare.items())
            + ". Details: `RESULTS-compare.md`.",
        ]
    lines += ["", "## Targets", "", "| target | goal | measured | |", "|---|---|---:|---|"]
    lines += [target.line() for target in targets(table, extras, pairs)]
    lines += [
        "",
        "The detailed records: `RESULTS-tools.md` (`run.py`: every Python tool, compute alone, "
        "the bare read), `RESULTS-door.md`, `RESULTS-spark.md`, `RESULTS-answers.md`, "
        "`RESULTS-compare.md`, `RESULTS-targets.md` and the others beside this file.",
    ]
    return lines


# --- main -------------------------------------------------------------------------------------


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


# The options naming tools built outside the repository: the written command shows these names
# instead of where the tools are on the machine that ran it (their versions are written apart).
TOOL_PLACEHOLDERS = {"--trec-eval": "TREC_EVAL", "--trec-eval-rust": "TE_RUST"}


def printed_command(argv: list[str]) -> str:
    """The command line as ``RESULTS.md`` shows it (``run.written_command``), the tools' paths
    as ``TOOL_PLACEHOLDERS`` names them."""
    return written_command("python benchmarks/all.py", argv, TOOL_PLACEHOLDERS)


def tool_versions(
    trec_eval: Path | None, trec_eval_rust: Path | None, skipped: dict[str, str]
) -> tuple[str, ...]:
    """What the report says of the tools built outside the repository: each one's version as it
    prints it and how it was built."""
    lines = []
    if trec_eval is not None and "trec_eval" not in skipped:
        lines.append(
            f'trec_eval (TREC_EVAL): `-v` prints "{tool_version(trec_eval, "-v")}"; NIST\'s '
            "trec_eval built with its own Makefile (-O2)."
        )
    if trec_eval_rust is not None and "trec-eval-rust" not in skipped:
        lines.append(
            "The Rust port (TE_RUST): `--version` prints "
            f'"{tool_version(trec_eval_rust, "--version")}"; `cmacdonald/trec-eval-rust` '
            "built with `cargo build --release`, as benchmarks/README.md's \"The Rust port of "
            'trec_eval" says.'
        )
    return tuple(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rankscope", type=Path, default=ROOT / ".venv" / "bin" / "rankscope")
    parser.add_argument("--python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    parser.add_argument(
        "--trec-eval", type=_path, default=_path(os.environ.get("RANKSCOPE_TREC_EVAL"))
    )
    parser.add_argument(
        "--trec-eval-rust",
        type=_path,
        default=_path(os.environ.get("RANKSCOPE_BENCH_TREC_EVAL_RUST")),
    )
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated rows")
    parser.add_argument("--columns", default=",".join(COLUMNS), help="comma-separated columns")
    parser.add_argument("--runs", type=int, default=7, help="timed rounds per row")
    parser.add_argument("--large-runs", type=int, default=3, help="timed rounds of large")
    parser.add_argument(
        "--slow-runs",
        type=int,
        default=3,
        help="timed rounds of pytrec_eval and ranx (0: their warm-up run is their time)",
    )
    parser.add_argument(
        "--pair-runs",
        type=int,
        default=41,
        help="pairs of trec-eval and evaluate alone per row, for never slower (0: none)",
    )
    parser.add_argument("--with", dest="extras", default="", help=f"some of {','.join(EXTRAS)}")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    wanted = tuple(c for c in args.columns.split(",") if c)
    extras_wanted = [e for e in args.extras.split(",") if e]
    for given, known, what in ((cases, CASES, "case"), (wanted, COLUMNS, "column")):
        unknown = [g for g in given if g not in known]
        if unknown:
            parser.error(f"unknown {what}(s) {unknown}; expected some of {list(known)}")
    unknown = [e for e in extras_wanted if e not in EXTRAS]
    if unknown:
        parser.error(f"unknown --with {unknown}; expected some of {list(EXTRAS)}")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    tools, skipped = columns(
        args.rankscope, args.python, args.trec_eval, args.trec_eval_rust, wanted
    )
    for key, reason in skipped.items():
        log(f"left out: {LABELS[key]}: {reason}")
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    start_load, source = _load(), _source_state()
    command = printed_command(sys.argv[1:] if argv is None else argv)
    versions = tool_versions(args.trec_eval, args.trec_eval_rust, skipped)
    table: dict[str, dict[str, Cell]] = {}
    extras: dict[str, dict[str, Any]] = {}
    pairs: dict[str, Paired] = {}
    by_key = {tool.key: tool for tool in tools}
    launched = launcher_floor()
    log(f"launcher: `true` {launched[0] * 1e3:.1f} ms, {launched[1] / 1024:.1f} MiB")

    def write() -> None:
        lines = report(
            command,
            started,
            (start_load, _load()),
            source,
            (args.runs, args.large_runs, args.slow_runs),
            table,
            skipped,
            extras,
            launched,
            versions,
            pairs,
        )
        args.output.write_text("\n".join(lines) + "\n")

    for extra in extras_wanted:
        log(f"{extra} (load {_load()})")
        begun = time.perf_counter()
        if extra == "spark":
            extras[extra] = spark_row(args.rankscope, args.python, 3, args.timeout)
        elif extra == "answers":
            extras[extra] = answers_row(1000, 5)
        else:
            extras[extra] = compare_row(5)
        log(f"  {extra}: {time.perf_counter() - begun:.0f} s")
        write()
    for case in cases:
        log(f"{CASES[case]} (load {_load()})")
        runs = args.large_runs if case == "large" else args.runs
        table[case] = measure_case(
            case, tools, runs, args.python, args.timeout, log, args.slow_runs
        )
        both = [by_key[key] for key in ("trec-eval", "evaluate") if key in by_key]
        runnable = len(both) == 2 and all(table[case][t.key].failure is None for t in both)
        if args.pair_runs > 0 and runnable:
            data = written(case, args.python, args.timeout)
            argvs = [tool.argv(data.qrels_path, data.run_path) for tool in both]
            paired = measure_pairs(*argvs, args.pair_runs, args.timeout)
            if paired is not None:
                pairs[case] = paired
                low, high = paired.interval
                log(f"  trec-eval / evaluate: {paired.median:.3f} ({low:.3f}-{high:.3f})")
        write()
    write()
    print(args.output.read_text())
    print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
