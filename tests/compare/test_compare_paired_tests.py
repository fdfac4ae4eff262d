"""Paired tests: agreement with scipy, exact enumeration, Monte Carlo error, determinism."""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy.special import gammaln

from rankscope.compare import (
    TestResult,
    bootstrap_test,
    exact_randomization_pvalue,
    paired_t_test,
    randomization_test,
    wilcoxon_test,
)
from rankscope.compare._resampling import bootstrap_means, sign_flip_means
from rankscope.engine.statistics import t_two_sided
from rankscope.errors import MissingDependencyError

BASELINE_12 = np.array([0.31, 0.52, 0.10, 0.77, 0.45, 0.60, 0.05, 0.90, 0.38, 0.41, 0.66, 0.20])
SYSTEM_12 = np.array([0.40, 0.50, 0.25, 0.80, 0.41, 0.72, 0.05, 0.95, 0.30, 0.55, 0.71, 0.26])

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_subnormal=False)
# Scores on a coarse grid, so that ties and zero differences are common.
grid_scores = st.integers(min_value=0, max_value=10).map(lambda k: k / 10)


@st.composite
def paired_arrays(
    draw: st.DrawFn, elements: st.SearchStrategy[float], min_size: int = 2, max_size: int = 40
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n = draw(st.integers(min_value=min_size, max_value=max_size))
    baseline = draw(st.lists(elements, min_size=n, max_size=n))
    system = draw(st.lists(elements, min_size=n, max_size=n))
    return np.array(baseline), np.array(system)


def monte_carlo_bounds(exact: float, n_draws: int, n_se: float = 3.0) -> tuple[float, float]:
    """Range of (count + 1) / (n_draws + 1) within ``n_se`` standard errors of its mean."""
    expected = (n_draws * exact + 1) / (n_draws + 1)
    standard_error = math.sqrt(n_draws * exact * (1 - exact)) / (n_draws + 1)
    return expected - n_se * standard_error, expected + n_se * standard_error


def fraction_exact_pvalue(differences: list[Fraction]) -> Fraction:
    """Exact sign-flip p-value in rational arithmetic: no rounding, no tolerance needed."""
    observed = abs(sum(differences, Fraction(0)))
    extreme = 0
    for signs in itertools.product((1, -1), repeat=len(differences)):
        flipped = sum((s * d for s, d in zip(signs, differences, strict=True)), Fraction(0))
        extreme += abs(flipped) >= observed
    return Fraction(extreme, 2 ** len(differences))


def exact_bootstrap_pvalue(baseline: NDArray[np.float64], system: NDArray[np.float64]) -> float:
    """Exact p-value of the shift bootstrap test, over every multiset of n queries.

    A resample is determined by how often each query is drawn (a composition of n), with
    multinomial probability n! / prod(c_i!) / n^n; C(2n-1, n) compositions (92 378 for n = 10).
    """
    differences = system - baseline
    n = differences.size
    observed = differences.mean()
    centred = differences - observed
    draws = np.array(list(itertools.combinations_with_replacement(range(n), n)))
    counts = (draws[:, :, np.newaxis] == np.arange(n)).sum(axis=1)
    log_probability = gammaln(n + 1) - gammaln(counts + 1).sum(axis=1) - n * math.log(n)
    means = counts @ centred / n
    tolerance = 1e-9 * np.abs(differences).mean()
    extreme = np.abs(means) >= abs(observed) - tolerance
    return float(np.exp(log_probability[extreme]).sum())


# --- t-test ----------------------------------------------------------------------------------


def test_t_test_hand_computed() -> None:
    # d = [0.1, 0.2, 0, 0.2]: mean 0.125, sd sqrt(0.0275 / 3), t = 0.125 / (sd / 2).
    result = paired_t_test([0.2, 0.4, 0.6, 0.5], [0.3, 0.6, 0.6, 0.7])
    expected_t = 0.125 / (math.sqrt(0.0275 / 3) / 2)
    assert result.statistic == pytest.approx(expected_t, rel=1e-12)
    assert result.p_value == pytest.approx(2 * scipy.stats.t.sf(expected_t, df=3), rel=1e-9)
    assert (result.n, result.method, result.n_resamples) == (4, "t", None)
    assert result.mean_difference == pytest.approx(0.125, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(paired_arrays(scores))
def test_t_test_equals_scipy(arrays: tuple[NDArray[np.float64], NDArray[np.float64]]) -> None:
    baseline, system = arrays
    differences = system - baseline
    if np.all(differences == differences[0]):
        return  # defined here, undefined in scipy: see test_t_test_constant_differences
    reference = scipy.stats.ttest_rel(system, baseline)
    result = paired_t_test(baseline, system)
    assert result.p_value == pytest.approx(float(reference.pvalue), rel=1e-12, abs=1e-12)
    assert result.statistic == pytest.approx(float(reference.statistic), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("baseline", "system", "statistic", "p_value"),
    [
        ([0.3, 0.5, 0.7], [0.3, 0.5, 0.7], 0.0, 1.0),
        ([0.0, 0.25, 0.5], [0.5, 0.75, 1.0], math.inf, 0.0),
        ([0.5, 0.75, 1.0], [0.0, 0.25, 0.5], -math.inf, 0.0),
    ],
)
def test_t_test_constant_differences(
    baseline: list[float], system: list[float], statistic: float, p_value: float
) -> None:
    result = paired_t_test(baseline, system)
    assert (result.statistic, result.p_value) == (statistic, p_value)


# --- Wilcoxon --------------------------------------------------------------------------------


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
# Few examples: with ties and at most 13 queries scipy enumerates 2^n sign patterns (~0.1 s).
@settings(max_examples=10, deadline=None)
@given(arrays=paired_arrays(grid_scores, max_size=30))
def test_wilcoxon_equals_scipy_with_ties_and_zeros(
    zero_method: str, arrays: tuple[NDArray[np.float64], NDArray[np.float64]]
) -> None:
    baseline, system = arrays
    differences = system - baseline
    if not differences.any() or np.count_nonzero(differences) < 2:
        return  # all-zero handled separately; scipy warns on a single non-zero difference
    reference = scipy.stats.wilcoxon(system, baseline, zero_method=zero_method)
    result = wilcoxon_test(baseline, system, zero_method=zero_method)
    assert result.p_value == pytest.approx(float(reference.pvalue), rel=1e-12, abs=1e-12)
    assert result.statistic == pytest.approx(float(reference.statistic), rel=1e-12)
    assert result.n == baseline.size


@settings(max_examples=40, deadline=None)
@given(paired_arrays(scores, min_size=5, max_size=80))
def test_wilcoxon_equals_scipy_continuous(
    arrays: tuple[NDArray[np.float64], NDArray[np.float64]],
) -> None:
    baseline, system = arrays
    if np.count_nonzero(system - baseline) < 2:
        return
    reference = scipy.stats.wilcoxon(system, baseline)
    result = wilcoxon_test(baseline, system)
    assert result.p_value == pytest.approx(float(reference.pvalue), rel=1e-12, abs=1e-12)


def test_wilcoxon_hand_computed_exact() -> None:
    # d = [0.2, 0.3, -0.1, 0.4, 0.5]: ranks 2, 3, 1, 4, 5; R- = 1, R+ = 14. Exact null: of the
    # 32 sign patterns, R- <= 1 in 2 (R- = 0 or 1), so two-sided p = 2 * 2/32 = 0.125.
    result = wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.5, 0.2, 0.8, 1.0])
    assert result.statistic == 1.0
    assert result.p_value == pytest.approx(0.125, rel=1e-12)


def test_wilcoxon_default_drops_zero_differences() -> None:
    with_zero = wilcoxon_test([0.1, 0.2, 0.3, 0.4], [0.4, 0.2, 0.6, 0.9])
    without = wilcoxon_test([0.1, 0.3, 0.4], [0.4, 0.6, 0.9])
    assert with_zero.p_value == without.p_value == 0.25
    assert (with_zero.n, without.n) == (4, 3)


@pytest.mark.parametrize(
    ("zero_method", "statistic"), [("wilcox", 0.0), ("pratt", 0.0), ("zsplit", 5.0)]
)
def test_wilcoxon_all_zero_differences(zero_method: str, statistic: float) -> None:
    result = wilcoxon_test([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], zero_method=zero_method)
    assert (result.statistic, result.p_value, result.n) == (statistic, 1.0, 4)


# --- exact randomization ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("baseline", "system", "expected"),
    [
        ([0.1, 0.2, 0.3], [0.2, 0.3, 0.4], 2 / 8),  # only all-plus and all-minus
        ([0.0, 0.0], [1.0, 2.0], 2 / 4),  # sums 3, 1, -1, -3
        ([0.5, 0.5], [0.6, 0.4], 1.0),  # observed mean 0: everything is as extreme
        ([0.3], [0.3], 1.0),
        # d = [0.3, -0.1, -0.2, 0.5]: the first three sum to ±0.6, ±0.4, ±0.2 or 0 (twice), so
        # with ±0.5 added |sum| >= 0.5 in 5 of 8 patterns per sign of the last: 10/16. The two
        # patterns where the first three cancel tie with the observed 0.5 in exact arithmetic
        # only (0.3 - 0.1 - 0.2 is not 0.0 in floating point).
        ([0.1, 0.3, 0.4, 0.2], [0.4, 0.2, 0.2, 0.7], 10 / 16),
    ],
)
def test_exact_randomization_hand_computed(
    baseline: list[float], system: list[float], expected: float
) -> None:
    assert exact_randomization_pvalue(baseline, system) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=1, max_size=9))
def test_exact_randomization_equals_rational_enumeration(pairs: list[tuple[int, int]]) -> None:
    # Float differences of decimal scores carry rounding noise; the tie tolerance must make
    # the float count agree with the count in exact rational arithmetic.
    baseline = np.array([b / 10 for b, _ in pairs])
    system = np.array([s / 10 for _, s in pairs])
    expected = fraction_exact_pvalue([Fraction(s - b, 10) for b, s in pairs])
    assert exact_randomization_pvalue(baseline, system) == float(expected)


# --- randomization (Monte Carlo) -------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_within_monte_carlo_error_of_exact(seed: int) -> None:
    exact = exact_randomization_pvalue(BASELINE_12, SYSTEM_12)
    assert 0.05 < exact < 0.5  # a case where the Monte Carlo error matters
    n_permutations = 20_000
    result = randomization_test(BASELINE_12, SYSTEM_12, n_permutations=n_permutations, seed=seed)
    low, high = monte_carlo_bounds(exact, n_permutations)
    assert low <= result.p_value <= high


def test_randomization_result_fields() -> None:
    result = randomization_test(BASELINE_12, SYSTEM_12, n_permutations=999, seed=3)
    mean_difference = float((SYSTEM_12 - BASELINE_12).mean())
    assert isinstance(result, TestResult)
    assert result.method == "randomization"
    assert (result.n, result.n_resamples) == (12, 999)
    assert result.statistic == result.mean_difference == pytest.approx(mean_difference)
    # (count + 1) / (999 + 1) is a multiple of 1/1000.
    assert result.p_value * 1000 == pytest.approx(round(result.p_value * 1000), abs=1e-9)


def test_randomization_reproducible_for_a_seed() -> None:
    first = randomization_test(BASELINE_12, SYSTEM_12, n_permutations=3000, seed=42)
    second = randomization_test(BASELINE_12, SYSTEM_12, n_permutations=3000, seed=42)
    assert first == second


def test_randomization_fresh_entropy_without_seed() -> None:
    result = randomization_test(BASELINE_12, SYSTEM_12, n_permutations=500, seed=None)
    assert 1 / 501 <= result.p_value <= 1.0


def test_randomization_p_value_never_zero() -> None:
    baseline = np.zeros(30)
    system = np.full(30, 0.5) + np.linspace(0, 0.1, 30)
    result = randomization_test(baseline, system, n_permutations=999, seed=0)
    assert result.p_value == 1 / 1000


@settings(max_examples=25, deadline=None)
@given(paired_arrays(scores, min_size=1, max_size=25), st.integers(0, 2**32))
def test_randomization_symmetric_in_its_arguments(
    arrays: tuple[NDArray[np.float64], NDArray[np.float64]], seed: int
) -> None:
    baseline, system = arrays
    forward = randomization_test(baseline, system, n_permutations=200, seed=seed)
    backward = randomization_test(system, baseline, n_permutations=200, seed=seed)
    assert forward.p_value == backward.p_value
    assert forward.statistic == pytest.approx(-backward.statistic, abs=1e-15)
    assert 1 / 201 <= forward.p_value <= 1.0


# --- bootstrap test --------------------------------------------------------------------------


def test_exact_bootstrap_reference_is_a_probability() -> None:
    # The reference enumeration itself: the probabilities of all resamples sum to 1.
    n = 6
    draws = np.array(list(itertools.combinations_with_replacement(range(n), n)))
    counts = (draws[:, :, np.newaxis] == np.arange(n)).sum(axis=1)
    total = np.exp(gammaln(n + 1) - gammaln(counts + 1).sum(axis=1) - n * math.log(n)).sum()
    assert len(draws) == math.comb(2 * n - 1, n)
    assert total == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_bootstrap_within_monte_carlo_error_of_exact(seed: int) -> None:
    baseline, system = BASELINE_12[:10], SYSTEM_12[:10]
    exact = exact_bootstrap_pvalue(baseline, system)
    assert 0.02 < exact < 0.5
    n_resamples = 20_000
    result = bootstrap_test(baseline, system, n_resamples=n_resamples, seed=seed)
    low, high = monte_carlo_bounds(exact, n_resamples)
    assert low <= result.p_value <= high


def test_bootstrap_reproducible_and_fields() -> None:
    first = bootstrap_test(BASELINE_12, SYSTEM_12, n_resamples=2000, seed=9)
    second = bootstrap_test(BASELINE_12, SYSTEM_12, n_resamples=2000, seed=9)
    assert first == second
    assert (first.method, first.n, first.n_resamples) == ("bootstrap", 12, 2000)
    assert first.statistic == pytest.approx(float((SYSTEM_12 - BASELINE_12).mean()))


def test_bootstrap_all_zero_differences() -> None:
    result = bootstrap_test([0.2, 0.4], [0.2, 0.4], n_resamples=100)
    assert (result.statistic, result.p_value) == (0.0, 1.0)


# --- the core's resampling: NumPy's numbers, in blocks of any size ------------------------


def numpy_sign_flip_means(
    differences: NDArray[np.float64], rounds: int, rng: np.random.Generator, block: int
) -> NDArray[np.float64]:
    """The sign flips as NumPy draws them, ``block`` rounds at a time (the reference)."""
    means = np.empty(rounds)
    for start in range(0, rounds, block):
        stop = min(start + block, rounds)
        flip = rng.random((stop - start, differences.size)) < 0.5
        means[start:stop] = np.where(flip, -differences, differences).mean(axis=1)
    return means


def numpy_bootstrap_means(
    values: NDArray[np.float64], rounds: int, rng: np.random.Generator, block: int
) -> NDArray[np.float64]:
    """The bootstrap resamples as NumPy draws them, ``block`` rounds at a time."""
    means = np.empty(rounds)
    for start in range(0, rounds, block):
        stop = min(start + block, rounds)
        means[start:stop] = values[rng.integers(0, values.size, (stop - start, values.size))].mean(
            axis=1
        )
    return means


@pytest.mark.parametrize("rows_per_block", [1, 7, 333, 10_000])
def test_sign_flips_are_numpys_in_blocks_of_any_size(rows_per_block: int) -> None:
    differences = SYSTEM_12 - BASELINE_12
    reference = numpy_sign_flip_means(differences, 1000, np.random.default_rng(5), rows_per_block)
    np.testing.assert_array_equal(
        sign_flip_means(differences, 1000, np.random.default_rng(5)), reference
    )


@pytest.mark.parametrize("rows_per_block", [1, 7, 333, 10_000])
def test_bootstrap_resamples_are_numpys_in_blocks_of_any_size(rows_per_block: int) -> None:
    values = np.linspace(0.0, 1.0, 13)
    reference = numpy_bootstrap_means(values, 1000, np.random.default_rng(5), rows_per_block)
    np.testing.assert_array_equal(
        bootstrap_means(values, 1000, np.random.default_rng(5)), reference
    )


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 600),
    st.integers(1, 300),
    st.integers(0, 2**32),
    st.sampled_from(["sign flips", "bootstrap"]),
)
def test_the_cores_resampling_equals_numpys_to_the_last_bit(
    n: int, rounds: int, seed: int, kind: str
) -> None:
    # Pairwise sums of every shape (below 8, up to 128, split in halves), Lemire's rejections,
    # and the generator left where NumPy leaves it (its 32-bit half included).
    values = np.random.default_rng(seed).standard_normal(n) * 10.0 ** (n % 7 - 3)
    ours, theirs = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    if kind == "sign flips":
        got = sign_flip_means(values, rounds, ours)
        expected = numpy_sign_flip_means(values, rounds, theirs, 97)
    else:
        got = bootstrap_means(values, rounds, ours)
        expected = numpy_bootstrap_means(values, rounds, theirs, 97)
    np.testing.assert_array_equal(got, expected)
    assert ours.bit_generator.state == theirs.bit_generator.state
    np.testing.assert_array_equal(ours.integers(0, 1000, 9), theirs.integers(0, 1000, 9))


def test_different_seeds_draw_different_permutations() -> None:
    differences = SYSTEM_12 - BASELINE_12
    first = sign_flip_means(differences, 100, np.random.default_rng(1))
    second = sign_flip_means(differences, 100, np.random.default_rng(2))
    assert not np.array_equal(first, second)


def test_many_queries_give_numpys_numbers() -> None:
    # 5000 queries: NumPy needs blocks of 838 rows to bound its memory; the core needs none.
    rng = np.random.default_rng(0)
    differences = rng.normal(0.01, 0.1, size=5000)
    whole = sign_flip_means(differences, 2000, np.random.default_rng(8))
    rowwise = numpy_sign_flip_means(differences, 2000, np.random.default_rng(8), 1)
    np.testing.assert_array_equal(whole, rowwise)


def test_the_resampling_refuses_a_generator_it_cannot_follow() -> None:
    with pytest.raises(ValueError, match=r"expected a generator driven by numpy\.random\.PCG64"):
        sign_flip_means(np.ones(3), 5, np.random.Generator(np.random.MT19937(0)))


# --- inputs untouched, scipy optional --------------------------------------------------------


def test_inputs_not_modified() -> None:
    baseline, system = BASELINE_12.copy(), SYSTEM_12.copy()
    for test in (paired_t_test, wilcoxon_test, exact_randomization_pvalue):
        test(baseline, system)
    randomization_test(baseline, system, n_permutations=50)
    bootstrap_test(baseline, system, n_resamples=50)
    np.testing.assert_array_equal(baseline, BASELINE_12)
    np.testing.assert_array_equal(system, SYSTEM_12)


@pytest.mark.parametrize("test", [wilcoxon_test])
def test_missing_scipy_names_the_extra(
    test: Callable[[NDArray[np.float64], NDArray[np.float64]], TestResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'rankscope\[stats\]'"):
        test(BASELINE_12, SYSTEM_12)


def test_the_t_test_works_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its p-value comes from the core's Student t distribution, the same as scipy's.
    expected = scipy.stats.ttest_rel(SYSTEM_12, BASELINE_12)
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    result = paired_t_test(BASELINE_12, SYSTEM_12)
    assert result.p_value == pytest.approx(float(expected.pvalue), rel=1e-12)
    assert result.statistic == pytest.approx(float(expected.statistic), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 50_000), st.floats(0.0, 50.0))
def test_the_t_distribution_is_scipys(degrees: int, statistic: float) -> None:
    reference = 2 * float(scipy.special.stdtr(degrees, -statistic))
    got = t_two_sided(statistic, degrees)
    if degrees == 1 and statistic < 1e-4:
        # scipy's Cauchy case loses digits near 0; the exact value is 1 - 2 atan(t) / pi.
        assert got == pytest.approx(1 - 2 * math.atan(statistic) / math.pi, rel=1e-15)
    else:
        assert got == pytest.approx(reference, rel=1e-12, abs=1e-300)


def test_resampling_tests_work_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    assert randomization_test(BASELINE_12, SYSTEM_12, n_permutations=99).p_value > 0
    assert bootstrap_test(BASELINE_12, SYSTEM_12, n_resamples=99).p_value > 0
