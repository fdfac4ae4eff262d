"""compare() end to end, the public surface, the layer boundary, and every error message."""

from __future__ import annotations

import ast
import dataclasses
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import rankscope.compare
from rankscope.compare import (
    CORRECTION_NAMES,
    TEST_NAMES,
    Comparison,
    TestResult,
    bootstrap_ci,
    bootstrap_test,
    compare,
    correct_pvalues,
    exact_randomization_pvalue,
    largest_differences,
    paired_bootstrap_ci,
    paired_cohens_d,
    paired_t_test,
    randomization_test,
    wilcoxon_test,
    win_tie_loss,
)
from rankscope.errors import InputError

PACKAGE_DIR = Path(rankscope.compare.__file__).parent

RNG = np.random.default_rng(2024)
N_QUERIES = 30
BASELINE = {
    "nDCG@10": RNG.uniform(0.0, 1.0, N_QUERIES),
    "AP": RNG.uniform(0.0, 0.8, N_QUERIES),
}
SYSTEMS = {
    "better": {
        "nDCG@10": np.clip(BASELINE["nDCG@10"] + RNG.normal(0.15, 0.1, N_QUERIES), 0, 1),
        "AP": np.clip(BASELINE["AP"] + RNG.normal(0.1, 0.1, N_QUERIES), 0, 1),
    },
    "noise": {
        "nDCG@10": np.clip(BASELINE["nDCG@10"] + RNG.normal(0.0, 0.1, N_QUERIES), 0, 1),
        "AP": BASELINE["AP"].copy(),
    },
}


# --- compare() -------------------------------------------------------------------------------


@pytest.mark.parametrize("test", TEST_NAMES)
def test_compare_rows_match_the_individual_functions(test: str) -> None:
    result = compare(BASELINE, SYSTEMS, test=test, correction="bh", n_resamples=1000, seed=5)
    assert isinstance(result, Comparison)
    assert [(row.system, row.measure) for row in result.rows] == [
        ("better", "nDCG@10"),
        ("better", "AP"),
        ("noise", "nDCG@10"),
        ("noise", "AP"),
    ]
    assert (result.systems, result.measures) == (("better", "noise"), ("nDCG@10", "AP"))
    assert (result.test, result.correction, result.alpha, result.n_resamples, result.seed) == (
        test,
        "bh",
        0.05,
        1000,
        5,
    )
    direct: dict[str, Callable[[NDArray[np.float64], NDArray[np.float64]], TestResult]] = {
        "t": paired_t_test,
        "wilcoxon": wilcoxon_test,
        "randomization": lambda b, s: randomization_test(b, s, n_permutations=1000, seed=5),
        "bootstrap": lambda b, s: bootstrap_test(b, s, n_resamples=1000, seed=5),
    }
    raw = []
    for row in result.rows:
        baseline, system = BASELINE[row.measure], SYSTEMS[row.system][row.measure]
        assert row.test == direct[test](baseline, system)
        assert row.test.method == test
        assert row.n == N_QUERIES
        assert row.baseline_mean == pytest.approx(baseline.mean(), rel=1e-15)
        assert row.system_mean == pytest.approx(system.mean(), rel=1e-15)
        assert row.difference_ci == paired_bootstrap_ci(
            baseline, system, level=0.95, n_resamples=1000, seed=5
        )
        assert row.effect_size == paired_cohens_d(baseline, system)
        assert row.win_tie_loss == win_tie_loss(baseline, system)
        raw.append(row.test.p_value)
    corrected = correct_pvalues(raw, "bh")
    assert [row.corrected_p_value for row in result.rows] == corrected.tolist()
    assert [row.significant for row in result.rows] == (corrected <= 0.05).tolist()


def test_compare_finds_the_better_system_and_not_the_copy() -> None:
    result = compare(BASELINE, SYSTEMS, test="randomization", n_resamples=2000)
    assert result.row("better", "nDCG@10").significant
    assert result.row("better", "AP").significant
    copy = result.row("noise", "AP")
    assert (copy.test.p_value, copy.corrected_p_value, copy.significant) == (1.0, 1.0, False)
    assert copy.effect_size == 0.0
    assert copy.win_tie_loss.ties == N_QUERIES
    assert copy.difference_ci.low == copy.difference_ci.high == 0.0


def test_compare_rows_do_not_depend_on_other_systems() -> None:
    both = compare(BASELINE, SYSTEMS, test="bootstrap", correction="none", n_resamples=500)
    alone = compare(
        BASELINE, {"noise": SYSTEMS["noise"]}, test="bootstrap", correction="none", n_resamples=500
    )
    assert both.row("noise", "nDCG@10") == alone.row("noise", "nDCG@10")


def test_compare_correction_spans_every_system_and_measure() -> None:
    raw = compare(BASELINE, SYSTEMS, correction="none")
    bonferroni = compare(BASELINE, SYSTEMS, correction="bonferroni")
    for plain, corrected in zip(raw.rows, bonferroni.rows, strict=True):
        assert corrected.corrected_p_value == pytest.approx(min(1.0, 4 * plain.test.p_value))


def test_compare_interval_level_follows_alpha() -> None:
    result = compare(BASELINE, {"better": SYSTEMS["better"]}, alpha=0.1, n_resamples=500)
    assert [row.difference_ci.level for row in result.rows] == [pytest.approx(0.9)] * 2


def test_compare_accepts_lists_and_does_not_modify_inputs() -> None:
    baseline = {"P@5": [0.2, 0.4, 0.6, 0.4]}
    system_scores = [0.4, 0.4, 0.8, 0.6]
    result = compare(baseline, {"s": {"P@5": system_scores}}, test="wilcoxon")
    assert result.row("s", "P@5").win_tie_loss == (
        win_tie_loss([0.2, 0.4, 0.6, 0.4], system_scores)
    )
    assert baseline == {"P@5": [0.2, 0.4, 0.6, 0.4]}
    assert system_scores == [0.4, 0.4, 0.8, 0.6]


def test_comparison_is_frozen_and_lookup_fails_clearly() -> None:
    result = compare(BASELINE, SYSTEMS, n_resamples=200)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.alpha = 0.5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rows[0].significant = True  # type: ignore[misc]
    with pytest.raises(KeyError, match="no comparison for system 'missing'"):
        result.row("missing", "AP")


def test_compare_randomization_runs_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    result = compare(BASELINE, SYSTEMS, test="randomization", n_resamples=200)
    assert len(result.rows) == 4


# --- public surface and layer boundary -------------------------------------------------------


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(rankscope.compare).items()
        if not name.startswith("_") and not isinstance(value, ModuleType) and name != "annotations"
    }
    assert set(rankscope.compare.__all__) == public
    assert len(rankscope.compare.__all__) == len(public)


@pytest.mark.parametrize("name", rankscope.compare.__all__)
def test_every_public_function_documents_an_example(name: str) -> None:
    value = getattr(rankscope.compare, name)
    if callable(value) and not isinstance(value, type):
        assert value.__doc__ is not None and "Examples" in value.__doc__


# The modules that take evaluated runs (line them up, evaluate, report); the others are the
# statistics over plain arrays of scores.
FROM_RUNS = {"_align.py", "_report.py", "_runs.py"}
# The statistics whose loop runs in the native core.
NATIVE_LOOPS = {
    "_tukey.py": "rankscope.engine.permutations",
    "_resampling.py": "rankscope.engine.statistics",
    "_paired_tests.py": "rankscope.engine.statistics",
}


@pytest.mark.parametrize("path", sorted(PACKAGE_DIR.glob("*.py")), ids=lambda path: path.name)
def test_the_statistics_import_only_the_errors_module_from_rankscope(path: Path) -> None:
    tree = ast.parse(path.read_text())
    everywhere = _imported_modules(ast.walk(tree))
    at_module_level = _imported_modules(tree.body)
    ours = {module for module in everywhere if module.split(".")[0] == "rankscope"}
    if path.name in FROM_RUNS:
        # Below compare only: the engine, io and errors (and the progress display every long
        # call shares); the renderers (report) when a report is drawn, inside a method, never
        # at import.
        layers = {module.split(".")[1] for module in ours if module.count(".")}
        assert layers <= {"engine", "io", "errors", "_progress", "compare", "report"}
        assert not {m for m in at_module_level if m.startswith("rankscope.report")}
    elif path.name in NATIVE_LOOPS:
        # The resampling rounds run in the core, each loop through its engine module.
        assert ours <= {"rankscope.errors", NATIVE_LOOPS[path.name]}
        assert not {m for m in at_module_level if m.startswith("rankscope.engine")}
    elif path.name != "__init__.py":
        assert ours <= {"rankscope.errors"}
    # scipy is an optional extra: imported inside functions only, never at import time.
    assert not {module for module in at_module_level if module.split(".")[0] == "scipy"}


def _imported_modules(nodes: Iterable[ast.AST]) -> set[str]:
    modules: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


# --- errors: (call, exception, message fragment) ---------------------------------------------

TWO = [0.1, 0.2]
THREE = [0.1, 0.2, 0.3]
# Values of the wrong type, as callers without a type checker may pass them.
WITH_NONE: Any = [0.1, None]
NOT_AN_INT: Any = 10.5
MIXED_IDS: Any = ["q1", 2]
NOT_A_MAPPING: Any = TWO

ERROR_CASES: list[tuple[str, Callable[[], object], type[Exception], str]] = [
    (
        "length mismatch",
        lambda: paired_t_test(THREE, TWO),
        InputError,
        "baseline has 3 scores but system has 2",
    ),
    (
        "NaN score",
        lambda: wilcoxon_test([0.1, float("nan")], TWO),
        InputError,
        "baseline: expected finite scores, got 1 NaN or infinite value(s), the first at position 1",
    ),
    (
        "infinite score",
        lambda: randomization_test(TWO, [0.1, float("inf")]),
        InputError,
        "system: expected finite scores",
    ),
    ("empty", lambda: bootstrap_test([], []), InputError, "expected at least one score"),
    ("2-D", lambda: bootstrap_ci([[0.1, 0.2]]), InputError, "expected a 1-D array"),
    ("strings", lambda: bootstrap_ci(["0.1", "0.2"]), InputError, "expected numeric"),
    ("None inside", lambda: paired_t_test(WITH_NONE, TWO), InputError, "expected numeric"),
    (
        "t-test on one query",
        lambda: paired_t_test([0.1], [0.2]),
        InputError,
        "expected at least 2 paired scores, got 1",
    ),
    (
        "d on one query",
        lambda: paired_cohens_d([0.1], [0.2]),
        InputError,
        "expected at least 2 paired scores, got 1",
    ),
    (
        "too many to enumerate",
        lambda: exact_randomization_pvalue([0.0] * 21, [0.1] * 21),
        InputError,
        "at most 20 queries",
    ),
    (
        "zero permutations",
        lambda: randomization_test(TWO, TWO, n_permutations=0),
        ValueError,
        "The 'n_permutations' parameter of randomization_test must be an int in the range [1, inf)."
        " Got 0 instead.",
    ),
    (
        "float resamples",
        lambda: bootstrap_test(TWO, TWO, n_resamples=NOT_AN_INT),
        ValueError,
        "'n_resamples' parameter of bootstrap_test must be an int",
    ),
    (
        "negative seed",
        lambda: randomization_test(TWO, TWO, seed=-1),
        ValueError,
        "'seed' parameter of randomization_test must be None or an int >= 0. Got -1",
    ),
    (
        "zero method",
        lambda: wilcoxon_test(TWO, TWO, zero_method="drop"),
        ValueError,
        "must be one of 'wilcox', 'pratt', 'zsplit'. Got 'drop'",
    ),
    (
        "level 1",
        lambda: bootstrap_ci(TWO, level=1.0),
        ValueError,
        "'level' parameter of bootstrap_ci must be a float in the open range (0, 1)",
    ),
    (
        "interval method",
        lambda: paired_bootstrap_ci(TWO, TWO, method="bc"),
        ValueError,
        "must be one of 'bca', 'percentile'. Got 'bc'",
    ),
    (
        "correction name",
        lambda: correct_pvalues([0.1], "fdr"),
        ValueError,
        "'method' parameter of correct_pvalues must be one of 'holm', 'bonferroni', 'bh', 'none'",
    ),
    (
        "p above 1",
        lambda: correct_pvalues([0.1, 1.5]),
        InputError,
        "expected p-values in [0, 1], got 1 outside, the first at position 1 (1.5)",
    ),
    (
        "NaN p-value",
        lambda: correct_pvalues([float("nan")]),
        InputError,
        "expected p-values in [0, 1]",
    ),
    ("2-D p-values", lambda: correct_pvalues([[0.1]]), InputError, "expected a 1-D array"),
    (
        "negative tolerance",
        lambda: win_tie_loss(TWO, TWO, tolerance=-1.0),
        ValueError,
        "'tolerance' parameter of win_tie_loss must be a finite float >= 0",
    ),
    (
        "ids length",
        lambda: largest_differences(["q1"], TWO, TWO),
        InputError,
        "expected one id per score (2), got 1",
    ),
    (
        "repeated id",
        lambda: largest_differences(["q1", "q1"], TWO, TWO),
        InputError,
        "expected distinct ids, got 'q1' more than once",
    ),
    (
        "integer id",
        lambda: largest_differences(MIXED_IDS, TWO, TWO),
        InputError,
        "expected string ids, got int 2 at position 1",
    ),
    (
        "negative n",
        lambda: largest_differences(["a", "b"], TWO, TWO, n=-1),
        ValueError,
        "'n' parameter of largest_differences must be an int in the range [0, inf)",
    ),
    (
        "compare length",
        lambda: compare({"AP": THREE}, {"bm25": {"AP": TWO}}),
        InputError,
        "system 'bm25', measure 'AP': baseline has 3 scores but system has 2",
    ),
    (
        "compare NaN",
        lambda: compare({"AP": TWO}, {"bm25": {"AP": [0.1, float("nan")]}}),
        InputError,
        "system 'bm25', measure 'AP': system: expected finite scores",
    ),
    (
        "compare NaN baseline",
        lambda: compare({"AP": [float("nan"), 0.1]}, {"s": {"AP": TWO}}),
        InputError,
        "baseline, measure 'AP': expected finite scores",
    ),
    (
        "compare one query",
        lambda: compare({"AP": [0.1]}, {"s": {"AP": [0.2]}}),
        InputError,
        "system 's', measure 'AP': expected at least 2 paired scores, got 1",
    ),
    (
        "missing measure",
        lambda: compare({"AP": TWO, "RR": TWO}, {"s": {"AP": TWO}}),
        InputError,
        "system 's' has no scores for measure(s) ['RR']",
    ),
    (
        "extra measure",
        lambda: compare({"AP": TWO}, {"s": {"AP": TWO, "RR": TWO}}),
        InputError,
        "system 's' has scores for measure(s) ['RR'] that the baseline lacks",
    ),
    ("no measures", lambda: compare({}, {"s": {}}), InputError, "at least one measure"),
    ("no systems", lambda: compare({"AP": TWO}, {}), InputError, "at least one system"),
    (
        "system not a mapping",
        lambda: compare({"AP": TWO}, {"s": NOT_A_MAPPING}),
        InputError,
        "systems_scores['s']: expected a mapping of measure name -> scores, got list",
    ),
    (
        "unknown test",
        lambda: compare({"AP": TWO}, {"s": {"AP": TWO}}, test="student"),
        ValueError,
        "'test' parameter of compare must be one of 't', 'wilcoxon', 'randomization', "
        "'bootstrap'. Got 'student' instead.",
    ),
    (
        "unknown correction",
        lambda: compare({"AP": TWO}, {"s": {"AP": TWO}}, correction="fdr"),
        ValueError,
        "'correction' parameter of compare must be one of 'holm', 'bonferroni', 'bh'",
    ),
    (
        "alpha",
        lambda: compare({"AP": TWO}, {"s": {"AP": TWO}}, alpha=0),
        ValueError,
        "'alpha' parameter of compare must be a float in the open range (0, 1). Got 0 instead.",
    ),
    (
        "compare resamples",
        lambda: compare({"AP": TWO}, {"s": {"AP": TWO}}, n_resamples=0),
        ValueError,
        "'n_resamples' parameter of compare must be an int in the range [1, inf)",
    ),
]


@pytest.mark.parametrize(
    ("call", "exception", "fragment"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
def test_errors_say_what_was_expected_and_found(
    call: Callable[[], object], exception: type[Exception], fragment: str
) -> None:
    with pytest.raises(exception) as raised:
        call()
    assert fragment in str(raised.value)


def test_option_names_match_the_exported_lists() -> None:
    assert TEST_NAMES == ("t", "wilcoxon", "randomization", "bootstrap")
    assert CORRECTION_NAMES == ("holm", "bonferroni", "bh", "none")


def test_bad_option_names_are_rankscope_errors() -> None:
    import rankscope

    with pytest.raises(rankscope.OptionError, match="'test' parameter of compare"):
        compare({"AP": np.array([0.1, 0.2])}, {"b": {"AP": np.array([0.2, 0.3])}}, test="student")
