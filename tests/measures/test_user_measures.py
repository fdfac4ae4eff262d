"""Measures defined by users (`rankscope.measures.define`): written as a user would write P@k
and nDCG@k, they equal the core's kernels through every entry point; their parameters and
errors are the registry's; they list in ``rankscope measures``."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.cli import main
from rankscope.errors import InputError, MeasureError, UnknownMeasureError, UserMeasureError
from rankscope.measures import define, defined, load, undefine

HERE = Path(__file__).parent
MODULE = HERE / "user_measures.py"

PAIRS = [
    ("UserP@5", "P@5"),
    ("UserPVec@5", "P@5"),
    ("UserP(rel=2)@3", "P(rel=2)@3"),
    ("UserPVec(rel=2)@10", "P(rel=2)@10"),
    ("UserNDCG@10", "nDCG@10"),
    ("UserNDCG", "nDCG"),
    ("UserNDCG(gain=exp)@5", "nDCG(gain=exp)@5"),
]


@pytest.fixture(autouse=True, scope="module")
def user_measures() -> Iterator[list[str]]:
    """UserP, UserPVec and UserNDCG, defined for this module's tests alone (the others list
    every family)."""
    names = load(MODULE)
    yield names
    for name in names:
        undefine(name)


@pytest.fixture
def scratch() -> Iterator[list[str]]:
    """Names defined by a test, removed after it."""
    names: list[str] = []
    yield names
    for name in names:
        undefine(name)


@st.composite
def collections(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run over a few queries: grades -1..3, ties in scores, unjudged documents,
    queries of the run without judgements and judged queries the run misses."""
    documents = [f"d{i}" for i in range(12)]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(draw(st.integers(1, 6))):
        judged = draw(st.lists(st.sampled_from(documents), max_size=8, unique=True))
        grades = draw(st.lists(st.integers(-1, 3), min_size=len(judged), max_size=len(judged)))
        ranked = draw(st.lists(st.sampled_from(documents), max_size=12, unique=True))
        scores = draw(st.lists(st.integers(0, 4), min_size=len(ranked), max_size=len(ranked)))
        if judged:
            qrels[f"q{q}"] = dict(zip(judged, grades, strict=True))
        if ranked:
            run[f"q{q}"] = {d: float(s) for d, s in zip(ranked, scores, strict=True)}
    if not set(qrels) & set(run):
        qrels["q0"], run["q0"] = {"d0": 1}, {"d0": 1.0}
    return qrels, run


def _equal(ours: float, theirs: float) -> bool:
    return math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")
@settings(max_examples=60, deadline=None)
@given(collections(), st.booleans())
def test_evaluate_equals_the_kernels(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]], complete: bool
) -> None:
    qrels, run = data
    names = [name for pair in PAIRS for name in pair]
    results = rankscope.evaluate(qrels, run, names, complete=complete)
    for user, kernel in PAIRS:
        ours, theirs = results.scores(user), results.scores(kernel)
        assert all(_equal(a, b) for a, b in zip(ours, theirs, strict=True)), (user, kernel)
        assert _equal(results.mean()[user], results.mean()[kernel])


def test_precision_is_exactly_the_kernels() -> None:
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
    run = {"q1": {"d1": 3.0, "d9": 2.0, "d2": 1.0, "d3": 0.5}, "q2": {"d5": 1.0, "d4": 0.5}}
    results = rankscope.evaluate(qrels, run, ["UserP@3", "UserPVec@3", "P@3"])
    assert results.score_dict("UserP@3") == results.score_dict("P@3") == {"q1": 2 / 3, "q2": 1 / 3}
    assert results.score_dict("UserPVec@3") == results.score_dict("P@3")


def test_compare_runs_equals_the_kernels() -> None:
    qrels = {f"q{i}": {f"d{j}": (i + j) % 3 for j in range(6)} for i in range(12)}
    runs = {
        name: {f"q{i}": {f"d{j}": float((j * seed + i) % 7) for j in range(6)} for i in range(12)}
        for name, seed in (("bm25", 1), ("dense", 3), ("hybrid", 5))
    }
    ours = rankscope.compare_runs(qrels, runs, ["UserP@3"], seed=1, n_resamples=200)
    theirs = rankscope.compare_runs(qrels, runs, ["P@3"], seed=1, n_resamples=200)
    for name in runs:
        assert ours.means(name) == {"UserP@3": theirs.means(name)["P@3"]}
    assert ours.to_json().replace("UserP@3", "P@3") == theirs.to_json().replace(
        "UserP@3", "P@3"
    ).replace('"measures": ["P@3"]', '"measures": ["P@3"]')


def _trec_files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 1\nq2 0 d6 2\n")
    run = tmp_path / "run.txt"
    run.write_text(
        "q1 Q0 d1 1 3.0 sys\nq1 Q0 d9 2 2.0 sys\nq1 Q0 d2 3 1.0 sys\n"
        "q2 Q0 d5 1 2.0 sys\nq2 Q0 d4 2 1.0 sys\nq2 Q0 d6 3 0.5 sys\n"
    )
    return qrels, run


def test_the_command_line_reads_measures_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _trec_files(tmp_path)
    common = [str(qrels), str(run), "--measures-from", str(MODULE), "--format", "json"]
    assert main(["evaluate", *common, "-m", "UserP@2,UserNDCG@3", "--per-query"]) == 0
    ours = capsys.readouterr().out
    assert main(["evaluate", *common, "-m", "P@2,nDCG@3", "--per-query"]) == 0
    theirs = capsys.readouterr().out
    assert ours.replace("UserP@2", "P@2").replace("UserNDCG@3", "nDCG@3") == theirs


def test_the_compare_command_reads_measures_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _trec_files(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text(run.read_text().replace("d9", "d2x").replace(" sys", " other"))
    args = [str(qrels), str(run), str(other), "--measures-from", str(MODULE)]
    assert main(["compare", *args, "-m", "UserP@2"]) == 0
    ours = capsys.readouterr().out
    assert main(["compare", *args, "-m", "P@2"]) == 0
    theirs = capsys.readouterr().out

    def table(text: str) -> list[list[str]]:
        # Columns as widths allow, provenance's time left out.
        dated = re.compile(r"\d{4}-\d\d-\d\dT")
        return [line.split() for line in text.splitlines() if not dated.search(line)]

    assert table(ours.replace("UserP@2", "P@2")) == table(theirs)
    assert "0.5000" in ours


def test_the_command_line_names_a_missing_or_failing_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _trec_files(tmp_path)
    missing = tmp_path / "nowhere.py"
    assert main(["evaluate", str(qrels), str(run), "--measures-from", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"rankscope: error: {missing}: no such file (--measures-from takes a Python file or a "
        "module's dotted name)\n"
    )
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no numpy here')\n")
    assert main(["evaluate", str(qrels), str(run), "--measures-from", str(broken)]) == 2
    assert capsys.readouterr().err == (
        f"rankscope: error: {broken}: defining its measures raised RuntimeError: no numpy here\n"
    )


def test_an_error_in_the_measure_names_measure_query_and_exception(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text(
        "from rankscope.measures import define\n"
        "def fragile(ranked, judged, *, k, rel):\n"
        "    if len(ranked) == 3:\n"
        "        raise ZeroDivisionError('three is too many')\n"
        "    return 1.0\n"
        "define('Fragile', fragile)\n"
    )
    qrels, run = _trec_files(tmp_path)
    try:
        arguments = [str(qrels), str(run), "--measures-from", str(failing), "-m", "Fragile"]
        code = main(["evaluate", *arguments])
        assert code == 2
        assert capsys.readouterr().err == (
            "rankscope: error: Fragile raised on query 'q1': ZeroDivisionError: three is too many\n"
        )
    finally:
        undefine("Fragile")


@pytest.mark.parametrize(
    ("fn", "vectorized", "message", "query"),
    [
        (
            lambda ranked, judged, *, k, rel: 1 / 0,
            False,
            "Broken raised on query 'a': ZeroDivisionError: division by zero",
            "a",
        ),
        (
            lambda ranked, judged, *, k, rel: "high",
            False,
            "Broken must give a finite number for query 'a'; got 'high'",
            "a",
        ),
        (
            lambda ranked, judged, *, k, rel: float("nan") if len(judged) == 1 else 0.0,
            False,
            "Broken must give a finite number for query 'b'; got nan",
            "b",
        ),
        (
            lambda ranked, judged, *, k: 1.0,
            False,
            "Broken raised on query 'a': TypeError: <lambda>() got an unexpected keyword "
            "argument 'rel'",
            "a",
        ),
        (
            lambda *arrays, k, rel: np.zeros(3),
            True,
            "Broken: expected one value per query (2); got an array of shape (3,)",
            None,
        ),
        (
            lambda *arrays, k, rel: np.array([0.0, np.inf]),
            True,
            "Broken must give a finite number for query 'b'; got np.float64(inf)",
            "b",
        ),
        (
            lambda *arrays, k, rel: [][1],
            True,
            "Broken raised: IndexError: list index out of range",
            None,
        ),
    ],
)
def test_errors_name_the_measure_the_query_and_the_exception(
    scratch: list[str], fn: Any, vectorized: bool, message: str, query: str | None
) -> None:
    scratch.append(define("Broken", fn, vectorized=vectorized))
    qrels = {"a": {"d1": 1, "d2": 0}, "b": {"d3": 1}}
    run = {"a": {"d1": 1.0}, "b": {"d3": 1.0}}
    with pytest.raises(UserMeasureError) as raised:
        rankscope.evaluate(qrels, run, "Broken")
    assert str(raised.value) == message
    assert (raised.value.measure, raised.value.query) == ("Broken", query)
    assert isinstance(raised.value, MeasureError)


def test_the_exception_raised_is_the_cause(scratch: list[str]) -> None:
    def fails(ranked: Any, judged: Any, *, k: Any, rel: Any) -> float:
        raise KeyError("d7")

    scratch.append(define("Fails", fails))
    with pytest.raises(UserMeasureError) as raised:
        rankscope.evaluate({"a": {"d1": 1}}, {"a": {"d1": 1.0}}, "Fails")
    assert isinstance(raised.value.__cause__, KeyError)


def test_parameters_parse_and_are_checked_as_built_ins_are(scratch: list[str]) -> None:
    seen: list[dict[str, Any]] = []

    def spy(ranked: Any, judged: Any, **given: Any) -> float:
        seen.append(given)
        return 0.0

    params = {"alpha": 0.5, "depth": 3, "strict": False, "mode": ["plain", "log"]}
    scratch.append(define("Spy", spy, params=params))
    assert rankscope.measure("spy(alpha=0.25,mode=log)@10").name == "Spy(alpha=0.25,mode=log)@10"
    assert rankscope.measure("Spy(alpha=0.5,depth=3)").name == "Spy"
    rankscope.evaluate({"a": {"d1": 1}}, {"a": {"d1": 1.0}}, "Spy(depth=7,strict=True,rel=2)@4")
    assert seen == [{"k": 4, "rel": 2, "alpha": 0.5, "depth": 7, "strict": True, "mode": "plain"}]
    with pytest.raises(MeasureError) as raised:
        rankscope.measure("Spy(alpha=high)")
    assert str(raised.value) == (
        "parameter alpha of Spy must be a number; got 'high' in 'Spy(alpha=high)'"
    )
    with pytest.raises(MeasureError) as raised:
        rankscope.measure("Spy(mode=loud)")
    assert "mode" in str(raised.value) and "plain" in str(raised.value)
    with pytest.raises(MeasureError) as raised:
        rankscope.measure("Spy(beta=1)")
    assert "beta" in str(raised.value)


def test_a_cutoff_is_required_or_refused_as_declared(scratch: list[str]) -> None:
    scratch.append(define("NeedsK", lambda r, j, *, k, rel: 0.0, cutoff="required"))
    scratch.append(define("NoK", lambda r, j, *, k, rel: 0.0, cutoff="none"))
    assert rankscope.measure("NeedsK@3").name == "NeedsK@3"
    with pytest.raises(MeasureError):
        rankscope.measure("NeedsK")
    with pytest.raises(MeasureError):
        rankscope.measure("NoK@3")


def test_definitions_are_checked(scratch: list[str]) -> None:
    with pytest.raises(MeasureError) as raised:
        define("nDCG", lambda r, j, *, k, rel: 0.0)
    assert str(raised.value) == "'nDCG' is a built-in measure; give yours another name"
    with pytest.raises(MeasureError) as raised:
        define("recip_rank", lambda r, j, *, k, rel: 0.0)
    assert str(raised.value) == (
        "'recip_rank' names the built-in measure RR; give yours another name"
    )
    with pytest.raises(MeasureError) as raised:
        define("My Gain", lambda r, j, *, k, rel: 0.0)
    assert "letter, then letters, digits" in str(raised.value)
    with pytest.raises(MeasureError) as raised:
        define("Mine", lambda r, j, *, k, rel: 0.0, params={"alpha": "high"})
    assert str(raised.value) == (
        'Mine: the default of parameter "alpha" is a bool, an int, a float or a list of '
        "words; got 'high'"
    )
    with pytest.raises(MeasureError) as raised:
        define("Mine", "not a function")  # type: ignore[arg-type]
    assert str(raised.value) == "Mine: fn must be callable; got 'not a function'"
    with pytest.raises(UnknownMeasureError):
        rankscope.measure("Mine")


def test_a_definition_replaces_the_one_of_its_name(scratch: list[str]) -> None:
    qrels, run = {"a": {"d1": 1}}, {"a": {"d1": 1.0}}
    scratch.append(define("Again", lambda r, j, *, k, rel: 1.0))
    assert rankscope.evaluate(qrels, run, "Again").mean() == {"Again": 1.0}
    define("Again", lambda r, j, *, k, rel: 2.0)
    assert rankscope.evaluate(qrels, run, "Again").mean() == {"Again": 2.0}
    assert "Again" in defined()
    assert undefine("Again") and not undefine("Again")
    with pytest.raises(UnknownMeasureError):
        rankscope.evaluate(qrels, run, "Again")


def test_aggregates_are_the_declared_ones(scratch: list[str]) -> None:
    scratch.append(define("Summed", lambda r, j, *, k, rel: float(len(r)), aggregate="sum"))
    qrels = {"a": {"d1": 1}, "b": {"d2": 1}}
    run = {"a": {"d1": 1.0, "d3": 0.5}, "b": {"d2": 1.0}}
    assert rankscope.evaluate(qrels, run, "Summed").mean() == {"Summed": 3.0}


def test_the_function_sees_read_only_views_of_the_batch(scratch: list[str]) -> None:
    seen: list[Any] = []

    def keep(ranked: Any, judged: Any, *, k: Any, rel: Any) -> float:
        seen.append((ranked, judged))
        return 0.0

    scratch.append(define("Keep", keep))
    rankscope.evaluate({"a": {"d1": 2, "d2": 1}}, {"a": {"d2": 2.0, "d3": 1.0}}, "Keep")
    ((ranked, judged),) = seen
    assert ranked.tolist() == [1, -1] and judged.tolist() == [2, 1]
    assert ranked.dtype == np.int64 and not ranked.flags.writeable
    assert ranked.base is not None  # a slice of the batch's array, not a copy


def test_listed_by_the_measures_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "user", "--measures-from", str(MODULE)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:5] == [
        "UserP(rel=integer)@k",
        "    aliases: -",
        "    Relevant documents among the first k, over k. [user-defined]",
        "    formula: Documents graded rel or more are relevant; k counts even when fewer were "
        "retrieved.",
        f"    source:  defined by {_module_name()}.precision",
    ]
    assert "UserNDCG(gain=linear|exp [linear],rel=integer)[@k]" in out


def _module_name() -> str:
    return defined()["UserP"].fn.__module__


def test_load_refuses_what_is_no_module(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        load("no_such_module_of_measures")
    assert str(raised.value).startswith("no_such_module_of_measures: no such module")


def test_a_streamed_run_scores_them_chunk_by_chunk(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(
        "".join(f"q{q:03d} 0 d{d} {(q + d) % 3}\n" for q in range(60) for d in range(6))
    )
    run.write_text(
        "".join(f"q{q:03d} Q0 d{d} {d + 1} {10 - d}.0 sys\n" for q in range(60) for d in range(8))
    )
    names = ["UserP@5", "UserPVec@5", "UserNDCG@5", "P@5", "nDCG@5"]
    streamed = rankscope.evaluate(qrels, run, names, stream=True, chunk_bytes=256)
    whole = rankscope.evaluate(qrels, run, names, stream=False)
    assert streamed.to_dict() == whole.to_dict()
    assert streamed.score_dict("UserP@5") == streamed.score_dict("P@5")
    assert streamed.score_dict("UserPVec@5") == streamed.score_dict("P@5")
