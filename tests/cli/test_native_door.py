"""What the native `rankscope` executable serves itself: with ``RANKSCOPE_NO_HANDOFF`` set it
hands nothing to the Python command, so these command lines print the Python command's bytes
(errors and trec_eval's stops included) only if the core served them; what it does not serve
ends with a message instead."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from doors import NATIVE
from trec_eval_cases import cases

from rankscope.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
QRELS, BM25, DENSE = (str(EXAMPLE / name) for name in ("qrels.txt", "bm25.run", "dense.run"))
CONFORMANCE = ROOT / "tests" / "data" / "trec_eval"

pytestmark = pytest.mark.skipif(
    NATIVE is None,
    reason="no native rankscope executable: scripts/bootstrap builds it, or set RANKSCOPE_NATIVE",
)


def native(arguments: list[str]) -> tuple[int, str, str]:
    """``rankscope ARGUMENTS`` through the native executable, which may hand nothing on."""
    assert NATIVE is not None
    environment = {**os.environ, "RANKSCOPE_NO_HANDOFF": "1"}
    done = subprocess.run(
        [str(NATIVE), *arguments], capture_output=True, env=environment, timeout=300
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def python(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(arguments)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _unjudged_run(tmp_path: Path) -> str:
    """bm25's run with a query the qrels do not judge: a warning, the same from both doors."""
    path = tmp_path / "extra.run"
    path.write_text(Path(BM25).read_text() + "999 Q0 D999-1 1 1.0 bm25\n")
    return str(path)


SERVED = [
    ["evaluate", QRELS, BM25],
    ["evaluate", QRELS, BM25, DENSE, "-q"],
    ["evaluate", QRELS, BM25, DENSE, "-m", "AP,nDCG@10", "-m", "NumRet", "-f", "csv", "-q"],
    ["evaluate", QRELS, BM25, "-m", "P@5,P(rel=2)@5,NumQ,NumRel,GM_AP", "-f", "trec", "-q"],
    ["evaluate", QRELS, BM25, "--profile", "weknora", "-c", "-M", "50", "-l", "2"],
    ["evaluate", "--profile=trec9", "-qmRR", QRELS, BM25, "--no-stream", "--run-format", "trec"],
    ["trec-eval", "-q", "-m", "official", str(CONFORMANCE / "qrels.test"), "RESULTS"],
]


@pytest.mark.parametrize("arguments", SERVED, ids=lambda a: " ".join(Path(x).name for x in a))
def test_served_command_lines_print_the_python_command_s_bytes(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = [str(CONFORMANCE / "results.test") if a == "RESULTS" else a for a in arguments]
    expected = python(arguments, capsys)
    assert expected[0] == 0, expected[2]
    assert native(arguments) == expected


def test_warnings_are_the_core_s_shown_as_the_python_command_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["evaluate", QRELS, _unjudged_run(tmp_path), "-m", "AP"]
    expected = python(arguments, capsys)
    assert "1 queries of run 'bm25' have no judgements and were ignored: 999" in expected[2]
    assert native(arguments) == expected


def test_z_scores_are_served(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zscores = tmp_path / "z"
    zscores.write_text("301 map 0.5 0.25\r\n\n302 map 0.1 0\r301 P_5 0 0\n")
    files = [str(CONFORMANCE / "qrels.test"), str(CONFORMANCE / "results.test")]
    arguments = ["trec-eval", "-q", "-m", "map", "-m", "P.5", "-Z", str(zscores), *files]
    expected = python(arguments, capsys)
    assert expected[0] == 0 and expected[1].startswith("Zmap                   \t301\t-1.87")
    assert native(arguments) == expected


def _bad_line(tmp_path: Path) -> str:
    path = tmp_path / "bad.run"
    path.write_text("101 Q0 D101-4763 1 13.2 bm25\n101 Q0 D101-2286 2 inf bm25\n")
    return str(path)


def _empty(tmp_path: Path) -> str:
    path = tmp_path / "empty.run"
    path.write_text("")
    return str(path)


def _twice(tmp_path: Path) -> str:
    """A run that ranks a document twice for one query: refused under the trec profile."""
    path = tmp_path / "twice.run"
    path.write_text("101 Q0 D101-4763 1 13.2 bm25\n101 Q0 D101-4763 2 12.0 bm25\n")
    return str(path)


ERRORS = {
    "no such qrels": lambda _: ["evaluate", "no-such-qrels", BM25],
    "no such run": lambda _: ["evaluate", QRELS, BM25, "no-such-run", "-m", "AP"],
    "bad line": lambda tmp_path: ["evaluate", QRELS, _bad_line(tmp_path)],
    "empty run": lambda tmp_path: ["evaluate", QRELS, _empty(tmp_path), "-q"],
    "unknown measure": lambda _: ["evaluate", QRELS, BM25, "-m", "nDGC@10"],
    "after a warning": lambda tmp_path: [
        "evaluate",
        QRELS,
        _unjudged_run(tmp_path),
        _bad_line(tmp_path),
        "-m",
        "AP",
    ],
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_worded_by_the_core_are_served_with_the_python_command_s_message(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ERRORS[case](tmp_path)
    expected = python(arguments, capsys)
    assert expected[0] in (1, 2) and "rankscope: error: " in expected[2]
    assert native(arguments) == expected


@pytest.mark.parametrize(
    "arguments",
    [
        ["evaluate", QRELS, str(EXAMPLE)],
        ["evaluate", str(EXAMPLE), "no-such-run"],
        ["evaluate", QRELS, BM25, str(EXAMPLE), "--no-stream"],
        ["trec-eval", QRELS, str(EXAMPLE)],
        ["trec-eval", str(EXAMPLE), BM25],
        ["trec-eval", "-Z", str(EXAMPLE), QRELS, BM25],
    ],
    ids=lambda a: " ".join(Path(x).name for x in a),
)
def test_a_directory_given_as_a_file_is_refused_as_the_python_command_refuses_it(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The core's check of an input file, which the Python command's readers make too."""
    expected = python(arguments, capsys)
    assert expected == (1, "", f"rankscope: error: {EXAMPLE}: expected a file; found a directory\n")
    assert native(arguments) == expected


# Errors whose message names the library's keywords, which the command line words in its own
# terms (the core's table, for both doors), each with a term of the command line's it says;
# and errors met in the order the Python command meets them.
IN_CLI_TERMS = {
    "an option by its flag": (
        lambda _: ["evaluate", QRELS, BM25, "-M", "-1"],
        (2, "rankscope: error: -M/--max-documents must be an integer >= 0; got -1\n"),
    ),
    "a profile by its option": (
        lambda _: ["evaluate", QRELS, BM25, "--profile", "weknora", "-m", "RR@5"],
        (2, "or --profile trec"),
    ),
    "rel= by -l": (
        lambda _: ["evaluate", QRELS, BM25, "--profile", "weknora", "-m", "AP(rel=2)"],
        (2, "use -l instead of rel="),
    ),
    "a duplicate by --duplicates": (
        lambda tmp_path: ["evaluate", QRELS, _twice(tmp_path), "-m", "AP"],
        (1, "(--duplicates keep-first keeps the first"),
    ),
    "the qrels read before the options are settled": (
        lambda _: ["evaluate", "no-such-qrels", BM25, "-M", "-1"],
        (1, "rankscope: error: no-such-qrels: "),
    ),
    "measures read before the qrels": (
        lambda _: ["evaluate", "no-such-qrels", BM25, "-m", "nDGC@10"],
        (2, "rankscope: error: unknown measure 'nDGC'; did you mean nDCG"),
    ),
    "a run after the options": (
        lambda _: ["evaluate", QRELS, "no-such-run", "-M", "-1"],
        (2, "-M/--max-documents"),
    ),
}


@pytest.mark.parametrize("case", IN_CLI_TERMS)
def test_errors_in_the_command_line_s_terms_are_served_as_the_python_command_words_them(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments, (code, said) = IN_CLI_TERMS[case]
    expected = python(arguments(tmp_path), capsys)
    assert expected[:2] == (code, "") and said in expected[2], expected[2]
    assert native(arguments(tmp_path)) == expected


@pytest.mark.parametrize(
    "arguments",
    [
        ["evaluate", QRELS, BM25, "-f", "json"],
        ["evaluate", QRELS, BM25, "--profile", "nosuch"],
        ["evaluate", QRELS, BM25, "-m", "AP,nDGC@10"],
        ["trec-eval", "-R", "prefs", QRELS, BM25],
        ["measures"],
    ],
)
def test_what_is_not_served_is_not_handed_on_either(arguments: list[str]) -> None:
    code, out, err = native(arguments)
    assert (code, out) == (3, "")
    assert "does not serve `rankscope " in err and "RANKSCOPE_NO_HANDOFF is set" in err


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# trec-eval's errors and trec_eval 10's stops (exit status 4), each met in the order the Python
# command meets them: the measures, the -Z file, the judgements a line needs, the run, the
# grades, the qrels, then the evaluation.
TREC_EVAL_ERRORS = {
    "no such run": lambda _: [QRELS, "no-such-run"],
    "no such qrels": lambda _: ["no-such-qrels", BM25],
    "the run before the qrels": lambda _: ["no-such-qrels", "no-such-run"],
    "bad run line": lambda tmp_path: [QRELS, _bad_line(tmp_path)],
    "empty qrels": lambda tmp_path: [_empty(tmp_path), BM25],
    "unknown measure": lambda _: ["-m", "nosuch", QRELS, "no-such-run"],
    "a warning, then the error": lambda _: ["-m", "set_P.5", "-m", "P.5,5", QRELS, BM25],
    "another -R's measure": lambda _: ["-m", "map_avgjg", QRELS, "no-such-run"],
    "a malformed -Z file": lambda tmp_path: [
        "-Z",
        _file(tmp_path, "z", "101 map 0.5 x\n"),
        QRELS,
        "no-such-run",
    ],
    "a grade trec_eval reads otherwise": lambda tmp_path: [
        _file(tmp_path, "qrels", "101 0 D101-4763 1\n101 0 D101-2286 1e1\n101 0 x\n"),
        BM25,
    ],
    "the run before the grades": lambda tmp_path: [
        _file(tmp_path, "qrels", "101 0 D101-4763 1\n101 0 D101-2286 2.5\n"),
        _bad_line(tmp_path),
    ],
    "a document ranked twice": lambda tmp_path: ["-m", "map", QRELS, _twice(tmp_path)],
    "a document judged under two iterations": lambda tmp_path: [
        _file(tmp_path, "qrels", "101 0 D101-4763 1\n101 1 D101-4763 0\n"),
        BM25,
    ],
    "a judged query without results": lambda tmp_path: [
        "-q",
        "-m",
        "map",
        _file(tmp_path, "qrels", "101 0 D101-4763 1\n1011 0 d 1\n999 0 d 1\n"),
        _unjudged_run(tmp_path),
    ],
    "no query judged": lambda tmp_path: [
        "-m",
        "map",
        QRELS,
        _file(tmp_path, "run", "9z Q0 d1 1 1.0 t\n"),
    ],
    "a first query of negative grades": lambda tmp_path: [
        "-c",
        "-m",
        "ndcg_cut.5",
        _file(tmp_path, "qrels", "100 0 d -1\n101 0 D101-4763 1\n"),
        BM25,
    ],
}


@pytest.mark.parametrize("case", TREC_EVAL_ERRORS)
def test_trec_eval_s_errors_and_stops_are_served_with_the_python_command_s_bytes(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["trec-eval", *TREC_EVAL_ERRORS[case](tmp_path)]
    expected = python(arguments, capsys)
    assert expected[0] in (1, 2, 4) and "rankscope: error: " in expected[2], expected
    assert native(arguments) == expected


def test_trec_eval_s_corner_cases_are_served_with_the_python_command_s_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval_cases' corners (its stops before printing) and a run lacking judged queries
    (its stop after printing the queries before), served without Python."""
    found = [case for case in cases(tmp_path, range(1)) if not case.data.complete]
    found = [case for case in found if case.options in (("-q", "-m", "official"),)]
    # -D is handed to the Python command (test_trec_eval_quirks.py runs it through both doors).
    found += [
        case
        for case in cases(tmp_path, range(0))
        if "-Z" not in case.options and "-D" not in case.options
    ]
    assert found
    stops = 0
    for case in found:
        arguments = ["trec-eval", *case.options, str(case.data.qrels), str(case.data.run)]
        expected = python(arguments, capsys)
        stops += expected[0] == 4
        assert native(arguments) == expected, case.id
    assert stops >= 3
