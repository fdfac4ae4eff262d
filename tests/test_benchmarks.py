"""The speed table's harness (benchmarks/all.py): how it reads each tool's output, leaves out an
absent tool with its reason, takes ratios and decides whether each target is met; the
launcher every benchmark times its processes through (benchmarks/launcher.py); and the A/B
comparison of two commands (benchmarks/ab.py)."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
harness = importlib.import_module("all")  # benchmarks/all.py
run = importlib.import_module("run")  # benchmarks/run.py
door = importlib.import_module("door")  # benchmarks/door.py
launcher = importlib.import_module("launcher")  # benchmarks/launcher.py
ab = importlib.import_module("ab")  # benchmarks/ab.py

SIX = {"nDCG@10": 0.5526, "nDCG@3": 0.5893, "AP": 0.4371, "RR": 0.8741, "P@10": 0.404}
SIX["R@10"] = 0.4128

# trec_eval 10 prints its measures in its own table's order; the Rust port in the order asked.
TREC_EVAL_OUTPUT = """\
map                   \tall\t0.4371
recip_rank            \tall\t0.8741
P_10                  \tall\t0.4040
recall_10             \tall\t0.4128
ndcg_cut_3            \tall\t0.5893
ndcg_cut_10           \tall\t0.5526
"""
PORT_OUTPUT = """\
ndcg_cut_3            \tall\t0.5893
ndcg_cut_10           \tall\t0.5526
map                   \tall\t0.4371
recip_rank            \tall\t0.8741
P_10                  \tall\t0.4040
recall_10             \tall\t0.4128
"""


def test_trec_eval_and_the_rust_port_read_alike_whatever_the_order() -> None:
    assert run._parse_trec_eval(TREC_EVAL_OUTPUT) == SIX
    assert run._parse_trec_eval(PORT_OUTPUT) == SIX


def test_the_evaluate_table_is_read_from_its_header_and_row() -> None:
    table = """\
 run    │ nDCG@3 │ nDCG@10 │     AP │     RR │   P@10 │   R@10
━━━━━━━━┿━━━━━━━━┿━━━━━━━━━┿━━━━━━━━┿━━━━━━━━┿━━━━━━━━┿━━━━━━━
 bench  │ 0.5893 │  0.5526 │ 0.4371 │ 0.8741 │ 0.4040 │ 0.4128
"""
    assert harness.parse_evaluate_table(table) == SIX
    # What it prints into a pipe (no terminal, or no rich): columns apart by spaces.
    plain = """\
run    nDCG@3  nDCG@10      AP      RR    P@10    R@10
bench  0.5893   0.5526  0.4371  0.8741  0.4040  0.4128
"""
    assert harness.parse_evaluate_table(plain) == SIX
    with pytest.raises(ValueError, match="no row of the six measures"):
        harness.parse_evaluate_table("run\tnDCG@3\tAP\nbench\t0.1\t0.2\n")


def test_the_spark_table_gives_each_tools_median() -> None:
    text = """\
| data | run lines | tool | median s | ratio | agreement | runs s |
|---|---:|---|---:|---:|---|---|
| medium | 1,000,000 | rankscope-spark | 1.40 | 1.00 | identical (==) | 1.36, 1.53, 1.40 |
| medium | 1,000,000 | mllib-evaluator | 3.27 | 2.34 | max diff 1.1e-14 | 3.27, 4.05, 2.91 |
"""
    assert harness.parse_spark_results(text) == {
        ("medium", "rankscope-spark"): 1.40,
        ("medium", "mllib-evaluator"): 3.27,
    }


def test_an_absent_tool_is_left_out_with_its_reason(tmp_path: Path) -> None:
    reason = harness.absent(None, "the Rust trec_eval port", "--trec-eval-rust", "VARIABLE")
    assert reason == "the Rust trec_eval port: not given (--trec-eval-rust PATH or VARIABLE=PATH)"
    missing = tmp_path / "te-rust"
    assert harness.absent(missing, "port", "-o", "V") == f"port: {missing} does not exist"
    missing.write_text("#!/bin/sh\n")
    assert harness.absent(missing, "port", "-o", "V") == f"port: {missing} is not executable"
    missing.chmod(0o755)
    assert harness.absent(missing, "port", "-o", "V") is None


def test_the_columns_keep_the_tables_order_and_say_why_one_is_missing(tmp_path: Path) -> None:
    rankscope = tmp_path / "rankscope"
    rankscope.write_text("#!/bin/sh\n")
    rankscope.chmod(0o755)

    def has_module(python: Path, module: str) -> str | None:
        return f"{module} is not installed for {python}" if module == "ranx" else None

    tools, skipped = harness.columns(rankscope, Path("/py"), None, rankscope, has_module=has_module)
    assert [tool.key for tool in tools] == [
        "evaluate",
        "trec-eval",
        "trec-eval-rust",
        "pytrec_eval",
    ]
    assert skipped == {
        "trec_eval": "trec_eval: not given (--trec-eval PATH or RANKSCOPE_TREC_EVAL=PATH)",
        "ranx": "ranx is not installed for /py",
    }
    by_key = {tool.key: tool for tool in tools}
    qrels, ranking = Path("q.qrels"), Path("r.run")
    assert by_key["trec-eval-rust"].argv(qrels, ranking)[-2:] == ["q.qrels", "r.run"]
    assert by_key["trec-eval"].argv(qrels, ranking)[:2] == [str(rankscope), "trec-eval"]
    assert harness.tolerance_of(by_key["trec-eval-rust"]) == run.PRINTED_TOLERANCE
    assert harness.tolerance_of(by_key["evaluate"]) == run.PRINTED_TOLERANCE
    assert harness.tolerance_of(by_key["pytrec_eval"]) == run.TOLERANCE


def test_ratios_pair_the_rounds_when_every_round_ran() -> None:
    cells = {
        "evaluate": harness.Cell(seconds=[1.0, 2.0, 4.0]),
        "trec_eval": harness.Cell(seconds=[2.0, 2.0, 2.0]),
    }
    assert harness.pair_ratio(cells, "evaluate", "trec_eval") == pytest.approx(1.0)
    cells["evaluate"].seconds = [1.0, 9.0]  # a failed round: the medians' ratio
    assert harness.pair_ratio(cells, "evaluate", "trec_eval") == pytest.approx(2.5)
    assert harness.pair_ratio(cells, "evaluate", "ranx") is None


@pytest.mark.parametrize(
    ("kind", "value", "met"),
    [
        ("<=", 2.0, True),
        ("<=", 2.01, False),
        ("<", 1.0, False),
        ("<", 0.99, True),
        (">=", 10.0, True),
        (">=", 9.9, False),
    ],
)
def test_a_target_is_met_by_its_own_comparison(kind: str, value: float, met: bool) -> None:
    limit = {"<=": 2.0, "<": 1.0, ">=": 10.0}[kind]
    target = harness.Target("t", value, limit, kind)
    assert target.met is met
    assert target.line().endswith("| met |" if met else "| **not met** |")


def test_an_unmeasured_target_says_so() -> None:
    target = harness.Target("Spark", None, 0.5)
    assert target.met is None
    assert target.line() == "| Spark | <= 0.5x | not measured | |"


def test_the_targets_of_a_table() -> None:
    one = {
        "evaluate": harness.Cell(seconds=[0.020, 0.030], agrees=True),
        "trec-eval": harness.Cell(seconds=[0.005, 0.006], agrees=True),
        "trec_eval": harness.Cell(seconds=[0.010, 0.010], agrees=True),
    }
    large = {
        "evaluate": harness.Cell(seconds=[0.5, 0.7, 0.6], rss_kib=400 * 1024, agrees=True),
        "trec-eval": harness.Cell(seconds=[0.6, 0.8, 0.7], agrees=True),
        "trec_eval": harness.Cell(seconds=[10.0, 10.0, 10.0], rss_kib=800 * 1024, agrees=True),
        harness.FLOOR: harness.Cell(seconds=[0.1, 0.1, 0.1], agrees=True),
    }
    extras = {"answers": {"speedup": 12.0}, "spark": {"ratio": 0.6, "over_session": 4.0}}
    found = {t.text: t for t in harness.targets({"one": one, "large": large}, extras)}
    evaluate_one = found["1 query (start-up): rankscope evaluate / trec_eval -O2"]
    assert (evaluate_one.value, evaluate_one.met) == (pytest.approx(2.5), False)
    native_one = found["1 query (start-up): rankscope trec-eval / trec_eval -O2"]
    assert (native_one.value, native_one.met) == (pytest.approx(0.55), True)
    never_slower = found[
        "large, 10M lines: rankscope trec-eval / rankscope evaluate (never slower)"
    ]
    assert never_slower.met is False
    assert found["large: rankscope evaluate end to end (this machine, loaded or not)"].value == 0.6
    assert found["large: rankscope evaluate / cat of the file"].value == pytest.approx(6.0)
    memory = found["large: peak memory, rankscope evaluate / trec_eval"]
    assert (memory.value, memory.met) == (0.5, True)
    assert found["answers: sacrebleu + rouge-score / rankscope.evaluate_answers"].met is True
    assert found["Spark, medium: rankscope on Spark / MLlib RankingEvaluator"].met is False
    assert not any(text.startswith("TREC DL-like") for text in found)  # a row not run


@pytest.mark.parametrize("n", [1, 2, 5, 6, 9, 17, 41, 100])
def test_the_median_s_interval_covers_it_as_the_binomial_distribution_says(n: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    values = [float(value) for value in range(n, 0, -1)]  # n, ..., 1: rank r is the value r
    low, high = harness.median_interval(values)
    k = int(low)
    assert high == n + 1 - k  # the interval is symmetric in the ranks
    if k == 1 and stats.binom.cdf(0, n, 0.5) > 0.025:
        return  # too few values for 95 %: their whole range
    # k is the largest rank whose lower tail stays within 2.5 %
    assert stats.binom.cdf(k - 1, n, 0.5) <= 0.025 < stats.binom.cdf(k, n, 0.5)
    coverage = stats.binom.cdf(n - k, n, 0.5) - stats.binom.cdf(k - 1, n, 0.5)
    assert coverage >= 0.95


def test_never_slower_is_missed_only_where_the_pairs_show_it_slower() -> None:
    equal = harness.Paired([1.02, 0.97, 1.01, 0.99, 1.03, 0.98, 1.006, 1.0, 1.04])
    slower = harness.Paired([1.05, 1.06, 1.04, 1.07, 1.05, 1.08, 1.06, 1.05, 1.04])
    assert equal.median == pytest.approx(1.006)
    found = {
        case: t
        for case, paired in (("equal", equal), ("slower", slower))
        for t in harness.targets({"small": {}}, {}, {"small": paired})
    }
    assert found["equal"].met is True  # above 1, inside the noise: not shown slower
    assert found["slower"].met is False
    assert found["equal"].line() == (
        "| small, 1,000 × 100: rankscope trec-eval / rankscope evaluate (never slower) "
        "| <= 1x, within the interval | 1.006x (0.980-1.030) | met |"
    )
    # without pairs, the table's rounds decide it strictly
    cells = {"evaluate": harness.Cell(seconds=[1.0]), "trec-eval": harness.Cell(seconds=[1.01])}
    assert harness.targets({"small": cells}, {})[0].met is False


def test_pairs_alternate_their_order_and_take_the_first_command_over_the_second(
    tmp_path: Path,
) -> None:
    log = tmp_path / "order"
    slow = ["sh", "-c", f"echo slow >> {log}; sleep 0.05"]
    fast = ["sh", "-c", f"echo fast >> {log}"]
    paired = harness.measure_pairs(slow, fast, 4, timeout=30)
    assert paired is not None
    assert log.read_text().split() == ["slow", "fast", "fast", "slow"] * 2
    assert all(ratio > 1 for ratio in paired.ratios)
    assert harness.measure_pairs(slow, ["false"], 2, timeout=30) is None


def test_the_rust_port_is_held_to_trec_eval_s_printed_values() -> None:
    cells = {
        "trec_eval": harness.Cell(means=dict(SIX)),
        "trec-eval-rust": harness.Cell(means=dict(SIX)),
    }
    assert harness.port_against_trec_eval(cells) == "same values"
    cells["trec-eval-rust"].means["AP"] = 0.4372
    assert harness.port_against_trec_eval(cells) == "differs: AP 0.4372 vs 0.4371"
    assert harness.port_against_trec_eval({"trec_eval": cells["trec_eval"]}) is None


def test_the_report_names_what_it_left_out_and_marks_disagreement() -> None:
    cells = {
        "evaluate": harness.Cell(seconds=[0.05], agrees=True),
        "trec-eval": harness.Cell(seconds=[0.04], agrees=False, verdict="NO: AP differs by 1e-03"),
    }
    skipped = {key: f"{key} is absent" for key in harness.COLUMNS if key not in cells}
    lines = harness.report(
        "cmd", "now", ("1", "2"), "commit x", (3, 1, 1), {"dl": cells}, skipped, {}
    )
    row = next(line for line in lines if line.startswith("| TREC DL-like"))
    assert (
        row == "| TREC DL-like, 43 × 1,000 | 0.050 s | 0.040 s (means: NO: AP differs by 1e-03) |"
    )
    assert "- Rust trec_eval port: trec-eval-rust is absent" in lines
    with_floor = harness.report(
        "cmd", "now", ("1", "2"), "commit x", (3, 1, 1), {"dl": cells}, skipped, {}, (0.0015, 1024)
    )
    (line,) = [line for line in with_floor if line not in lines]
    assert "`true` through it takes 1.5 ms (median of 21) and peaks at 1.0 MiB" in line
    versions = ('trec_eval (TREC_EVAL): `-v` prints "trec_eval version 10.0-rc3"',)
    with_versions = harness.report(
        "cmd", "now", ("1", "2"), "commit x", (3, 1, 1), {"dl": cells}, skipped, {}, None, versions
    )
    assert [line for line in with_versions if line not in lines] == [f"- {versions[0]}"]
    assert (
        "| TREC DL-like, 43 × 1,000: rankscope trec-eval / trec_eval -O2 | < 1x | not measured | |"
        in lines
    )


def test_rounds_interleave_and_a_limited_command_sits_out_the_later_rounds(tmp_path: Path) -> None:
    log = tmp_path / "order"
    named = {name: ["sh", "-c", f"echo {name} >> {log}"] for name in ("fast", "slow")}
    outcomes = door.rounds(named, 3, warm_up=True, limits={"slow": 1})
    assert [len(outcomes["fast"]), len(outcomes["slow"])] == [3, 1]
    # the warm-up round, then the timed rounds, one run of each command in turn
    assert log.read_text().split() == ["fast", "slow", "fast", "slow", "fast", "fast"]
    assert all(outcome.code == 0 for outcome in outcomes["fast"])


# --- the launcher: a command's own peak, whatever the size of the process that starts it -----

MIB = 1024  # KiB
ALLOCATE = [
    sys.executable,
    "-c",
    "import sys; b = bytearray(int(sys.argv[1]) << 20); b[::4096] = b'x' * len(b[::4096])",
]


@pytest.fixture(scope="module")
def ballast() -> Iterator[bytearray]:
    """300 MiB held resident by this process while the launcher's tests run."""
    held = bytearray(300 << 20)
    held[::4096] = b"x" * len(held[::4096])
    yield held
    del held


def _direct_peak_kib(argv: list[str]) -> int:
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_maxrss


def test_a_small_command_reads_small_through_the_launcher(ballast: bytearray) -> None:
    true = shutil.which("true") or "/bin/true"
    # What the launcher is for: wait4 of a child of this process reads at least this process.
    assert _direct_peak_kib([true]) >= 300 * MIB
    measured = launcher.run_measured([true])
    assert measured.code == 0
    assert measured.peak_kib < 16 * MIB
    assert 0 < measured.seconds < 5


def test_the_launcher_reads_what_a_command_allocates(ballast: bytearray) -> None:
    none, hundred = (launcher.run_measured([*ALLOCATE, size]) for size in ("0", "100"))
    assert none.code == hundred.code == 0
    assert none.peak_kib < 64 * MIB  # an interpreter, not this process's 300 MiB
    assert 95 * MIB <= hundred.peak_kib - none.peak_kib <= 110 * MIB


def test_run_process_measures_through_the_launcher(ballast: bytearray) -> None:
    outcome = run.run_process([sys.executable, "-c", "print('six means')"], 60)
    assert (outcome.code, outcome.stdout, outcome.timed_out) == (0, "six means\n", False)
    assert outcome.max_rss_kib < 64 * MIB


def test_the_launcher_passes_on_streams_exit_codes_and_signals(tmp_path: Path) -> None:
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as stdout, err.open("w") as stderr:
        measured = launcher.run_measured(
            ["sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"],
            stdout=stdout,
            stderr=stderr,
        )
    assert measured.code == 3
    assert (out.read_text(), err.read_text()) == ("to-stdout\n", "to-stderr\n")
    assert launcher.run_measured(["sh", "-c", "kill -TERM $$"]).code == -15
    with err.open("w") as stderr:
        missing = launcher.run_measured([str(tmp_path / "no-such-tool")], stderr=stderr)
    assert missing.code == 127
    assert "cannot run" in err.read_text() and "no-such-tool" in err.read_text()


def test_the_launcher_ends_the_whole_command_at_its_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.perf_counter()
    measured = launcher.run_measured(
        ["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=1.0
    )
    assert measured.timed_out and measured.peak_kib == 0
    assert time.perf_counter() - started < 30
    sleeper = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the sleep is killed with its group (or a zombie)
        try:
            state = Path(f"/proc/{sleeper}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the command's child {sleeper} outlived the timeout")


def test_the_launcher_reports_cpu_time_apart_from_waiting() -> None:
    busy = launcher.run_measured([sys.executable, "-c", "sum(range(20_000_000))"])
    asleep = launcher.run_measured(["sleep", "0.3"])
    assert busy.code == asleep.code == 0
    assert busy.cpu_seconds > 0.1  # CPU time: the load of the machine does not shrink it
    assert asleep.cpu_seconds < 0.1 < 0.3 <= asleep.seconds
    assert busy.cpu_seconds > 5 * asleep.cpu_seconds


# --- the speed table's command line: no path of the machine it ran on --------------------------


def test_the_written_command_names_the_tools_by_placeholder(tmp_path: Path) -> None:
    given = [
        "--trec-eval",
        str(tmp_path / "tools" / "trec_eval"),
        f"--trec-eval-rust={tmp_path / 'te-rust'}",
        "--output",
        str(harness.ROOT / "benchmarks" / "RESULTS.md"),
        "--runs",
        "5",
        "--with",
        "spark,answers",
    ]
    assert harness.printed_command(given) == (
        "python benchmarks/all.py --trec-eval TREC_EVAL --trec-eval-rust=TE_RUST "
        "--output benchmarks/RESULTS.md --runs 5 --with spark,answers"
    )
    assert str(tmp_path) not in harness.printed_command(["--trec-eval-rust", str(tmp_path)])


def test_the_report_says_which_tools_it_timed(tmp_path: Path) -> None:
    tool = tmp_path / "trec_eval"
    tool.write_text("#!/bin/sh\necho 'trec_eval version 10.0-rc3' >&2\n")
    tool.chmod(0o755)
    port = tmp_path / "te-rust"
    port.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'te-rust 0.1.0'\n")
    port.chmod(0o755)
    (trec_eval, rust) = harness.tool_versions(tool, port, {})
    assert '`-v` prints "trec_eval version 10.0-rc3"' in trec_eval and "-O2" in trec_eval
    assert '`--version` prints "te-rust 0.1.0"' in rust and "cargo build --release" in rust
    assert str(tmp_path) not in trec_eval + rust
    assert harness.tool_versions(tool, port, {"trec-eval-rust": "absent"}) == (trec_eval,)
    assert harness.tool_versions(None, None, {}) == ()
    assert "version unknown" in run.tool_version(tmp_path / "none", "-v")


# --- ab.py: two commands as whole processes, in turn ------------------------------------------


def test_ab_reads_command_a_after_the_dashes_and_b_as_words() -> None:
    options = ab.parse_args(
        ["-n", "5", "--timeout", "30", "--vs", "cat 'a file.run'", "--", "rankscope", "-m", "AP"]
    )
    assert options == ab.Options(["rankscope", "-m", "AP"], ["cat", "a file.run"], 5, 1, 30.0)
    bare = ab.parse_args(["--warmup", "0", "--vs", "false", "true"])
    assert (bare.a, bare.b, bare.rounds, bare.warmup, bare.timeout) == (
        ["true"],
        ["false"],
        7,
        0,
        None,
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--vs", "true", "--"], "command A is missing"),
        (["--", "true"], "--vs"),
        (["--vs", "", "--", "true"], "--vs is empty"),
        (["--vs", "cat 'open", "--", "true"], "No closing quotation"),
        (["-n", "0", "--vs", "true", "--", "true"], "at least 1 round"),
        (["--timeout", "0", "--vs", "true", "--", "true"], "positive"),
    ],
)
def test_ab_refuses_what_it_cannot_run(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        ab.parse_args(argv)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_ab_times_a_and_b_in_turn_and_takes_the_ratio_pair_by_pair(
    capsys: pytest.CaptureFixture[str],
) -> None:
    true = shutil.which("true") or "/bin/true"
    assert ab.main(["-n", "3", "--vs", "sleep 0.05", "--", true]) == 0
    printed = capsys.readouterr().out
    assert "3 rounds of A then B after 1 warm-up run(s)" in printed
    assert f"A: {true}\n" in printed and "B: sleep 0.05\n" in printed
    assert printed.count("  wall ") == printed.count("  cpu  ") == printed.count("  peak ") == 2
    ratios = next(line for line in printed.splitlines() if line.startswith("A/B"))
    wall = float(ratios.split("wall ")[1].split(",")[0])
    assert 0 < wall < 1  # `true` against a 50 ms sleep, in every pair
    assert "load average" in printed


def test_ab_runs_the_rounds_alternately(tmp_path: Path) -> None:
    log = tmp_path / "order"
    options = ab.Options(
        ["sh", "-c", f"echo A >> {log}"], ["sh", "-c", f"echo B >> {log}"], 2, 1, None
    )
    a_runs, b_runs = ab.compare(options)
    assert (len(a_runs), len(b_runs)) == (2, 2)
    assert log.read_text().split() == ["A", "B"] * 3
    assert all(run.code == 0 and run.peak_kib > 0 for run in a_runs + b_runs)


def test_ab_reports_a_failing_command_with_its_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = "sh -c 'echo the qrels are unreadable >&2; exit 3'"
    assert ab.main(["-n", "2", "--vs", failing, "--", "true"]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert "command B (sh -c 'echo the qrels are unreadable >&2; exit 3') exited with code 3" in (
        said.err
    )
    assert "in warm-up 1" in said.err and "the qrels are unreadable" in said.err
    assert "Traceback" not in said.err
    assert ab.main(["--warmup", "0", "--vs", "true", "--", str(tmp_path / "nothing")]) == 1
    assert "exited with code 127 in round 1" in capsys.readouterr().err
    assert ab.main(["--timeout", "0.5", "--vs", "true", "--", "sleep", "30"]) == 1
    assert "did not end within 0.5 s in warm-up 1" in capsys.readouterr().err
