"""Bootstrap confidence intervals and the paired effect size."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from rankscope.compare import (
    ConfidenceInterval,
    bootstrap_ci,
    paired_bootstrap_ci,
    paired_cohens_d,
    paired_t_test,
)
from rankscope.compare._intervals import _acceleration
from rankscope.compare._resampling import bootstrap_means

# Skewed scores (many low, a few high), as per-query retrieval scores often are.
SKEWED = np.array(
    [
        *(0.0, 0.0, 0.05, 0.1, 0.1, 0.12, 0.15, 0.2, 0.2, 0.22, 0.25, 0.3, 0.31, 0.35, 0.4),
        *(0.42, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0, 1.0),
    ]
)
BASELINE = np.linspace(0.1, 0.7, 25) ** 1.5
SYSTEM = np.clip(BASELINE + np.sin(np.arange(25)) * 0.15 + 0.04, 0.0, 1.0)

score_lists = st.lists(
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_subnormal=False),
    min_size=1,
    max_size=30,
)


def scipy_interval(
    data: tuple[NDArray[np.float64], ...], method: str, level: float, seed: int
) -> tuple[float, float]:
    if len(data) == 1:
        result = scipy.stats.bootstrap(
            data, np.mean, confidence_level=level, method=method, n_resamples=40_000, rng=seed
        )
    else:

        def mean_difference(
            system: NDArray[np.float64], baseline: NDArray[np.float64], axis: int
        ) -> NDArray[np.float64]:
            return np.mean(system - baseline, axis=axis)  # type: ignore[no-any-return]

        result = scipy.stats.bootstrap(
            data,
            mean_difference,
            paired=True,
            confidence_level=level,
            method=method,
            n_resamples=40_000,
            rng=seed,
        )
    low, high = result.confidence_interval
    return float(low), float(high)


# --- agreement with scipy.stats.bootstrap ----------------------------------------------------


@pytest.mark.parametrize(("method", "scipy_method"), [("bca", "BCa"), ("percentile", "percentile")])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_one_sample_interval_agrees_with_scipy(
    method: str, scipy_method: str, level: float
) -> None:
    # Different seeds: agreement must hold within Monte Carlo error, not by sharing a stream.
    # The SE of a bootstrap quantile with 40 000 resamples is about 0.013 standard errors of
    # the mean; the tolerance is about 4 SE of the difference of two such quantiles.
    ours = bootstrap_ci(SKEWED, level=level, method=method, n_resamples=40_000, seed=11)
    low, high = scipy_interval((SKEWED,), scipy_method, level, seed=12)
    tolerance = 0.08 * SKEWED.std(ddof=1) / math.sqrt(SKEWED.size)
    assert ours.low == pytest.approx(low, abs=tolerance)
    assert ours.high == pytest.approx(high, abs=tolerance)
    assert (ours.level, ours.method) == (level, method)
    assert ours.estimate == pytest.approx(SKEWED.mean(), rel=1e-15)


@pytest.mark.parametrize(("method", "scipy_method"), [("bca", "BCa"), ("percentile", "percentile")])
def test_paired_interval_agrees_with_scipy(method: str, scipy_method: str) -> None:
    ours = paired_bootstrap_ci(BASELINE, SYSTEM, method=method, n_resamples=40_000, seed=3)
    low, high = scipy_interval((SYSTEM, BASELINE), scipy_method, 0.95, seed=4)
    differences = SYSTEM - BASELINE
    tolerance = 0.08 * differences.std(ddof=1) / math.sqrt(differences.size)
    assert ours.low == pytest.approx(low, abs=tolerance)
    assert ours.high == pytest.approx(high, abs=tolerance)
    assert ours.estimate == pytest.approx(differences.mean(), rel=1e-12)


def test_bca_differs_from_percentile_on_skewed_data() -> None:
    # The check above would be vacuous if BCa and percentile gave the same numbers here.
    bca = bootstrap_ci(SKEWED, method="bca", n_resamples=40_000, seed=11)
    percentile = bootstrap_ci(SKEWED, method="percentile", n_resamples=40_000, seed=11)
    standard_error = SKEWED.std(ddof=1) / math.sqrt(SKEWED.size)
    assert abs(bca.high - percentile.high) > 0.1 * standard_error


# --- definitions -----------------------------------------------------------------------------


def test_percentile_interval_is_quantiles_of_the_bootstrap_means() -> None:
    means = bootstrap_means(SKEWED, 5000, np.random.default_rng(21))
    interval = bootstrap_ci(SKEWED, method="percentile", level=0.8, n_resamples=5000, seed=21)
    assert interval.low == np.quantile(means, 0.1)
    assert interval.high == np.quantile(means, 0.9)


def test_paired_interval_is_the_interval_of_the_differences() -> None:
    paired = paired_bootstrap_ci(BASELINE, SYSTEM, n_resamples=3000, seed=5)
    direct = bootstrap_ci(SYSTEM - BASELINE, n_resamples=3000, seed=5)
    assert paired == direct


def test_acceleration_equals_jackknife_formula() -> None:
    n = SKEWED.size
    leave_one_out = (SKEWED.sum() - SKEWED) / (n - 1)
    spread = leave_one_out.mean() - leave_one_out
    jackknife = (spread**3).sum() / (6 * ((spread**2).sum()) ** 1.5)
    assert _acceleration(SKEWED) == pytest.approx(jackknife, rel=1e-10)
    assert _acceleration(SKEWED) > 0  # right-skewed data
    assert _acceleration(np.array([1.0, 2.0, 3.0])) == 0.0  # symmetric data


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_constant_values_give_a_point_interval(method: str) -> None:
    interval = bootstrap_ci([0.25, 0.25, 0.25, 0.25], method=method, level=0.99)
    assert interval == ConfidenceInterval(0.25, 0.25, 0.99, method, 0.25)


def test_single_value_gives_a_point_interval() -> None:
    assert bootstrap_ci([0.7]) == ConfidenceInterval(0.7, 0.7, 0.95, "bca", 0.7)


def test_interval_reproducible_for_a_seed() -> None:
    first = bootstrap_ci(SKEWED, n_resamples=2000, seed=99)
    second = bootstrap_ci(SKEWED, n_resamples=2000, seed=99)
    other = bootstrap_ci(SKEWED, n_resamples=2000, seed=100)
    assert first == second
    assert (first.low, first.high) != (other.low, other.high)


def test_interval_works_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    interval = bootstrap_ci(SKEWED, n_resamples=500)
    assert interval.low < interval.estimate < interval.high


def test_interval_does_not_modify_inputs() -> None:
    values = SKEWED.copy()
    bootstrap_ci(values, n_resamples=100)
    paired_bootstrap_ci(values, values[::-1].copy(), n_resamples=100)
    np.testing.assert_array_equal(values, SKEWED)


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(score_lists, st.sampled_from(["bca", "percentile"]), st.floats(0.5, 0.99))
def test_interval_ordered_and_within_data_range(
    values: list[float], method: str, level: float
) -> None:
    interval = bootstrap_ci(values, method=method, level=level, n_resamples=300, seed=1)
    assert min(values) - 1e-12 <= interval.low <= interval.high <= max(values) + 1e-12
    assert interval.estimate == pytest.approx(float(np.mean(values)), abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.0, 1.0, allow_subnormal=False), min_size=2, max_size=30))
def test_higher_level_gives_a_wider_percentile_interval(values: list[float]) -> None:
    narrow = bootstrap_ci(values, method="percentile", level=0.8, n_resamples=300, seed=2)
    wide = bootstrap_ci(values, method="percentile", level=0.99, n_resamples=300, seed=2)
    assert wide.low <= narrow.low <= narrow.high <= wide.high


# --- effect size -----------------------------------------------------------------------------


def test_cohens_d_hand_computed() -> None:
    # d = [0.1, 0.2, 0, 0.2]: mean 0.125, sample sd sqrt(0.0275 / 3).
    d = paired_cohens_d([0.2, 0.4, 0.6, 0.5], [0.3, 0.6, 0.6, 0.7])
    assert d == pytest.approx(0.125 / math.sqrt(0.0275 / 3), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=30))
def test_cohens_d_is_t_over_sqrt_n(pairs: list[tuple[float, float]]) -> None:
    baseline = np.array([b for b, _ in pairs])
    system = np.array([s for _, s in pairs])
    differences = system - baseline
    # scipy's t overflows to inf when the squared differences underflow (below ~1e-154).
    assume(not np.all(differences == differences[0]) and differences.std() > 1e-100)
    t = paired_t_test(baseline, system).statistic
    assert paired_cohens_d(baseline, system) == pytest.approx(
        t / math.sqrt(len(pairs)), rel=1e-9, abs=1e-12
    )
    assert paired_cohens_d(system, baseline) == -paired_cohens_d(baseline, system)


def test_cohens_d_with_tiny_differences() -> None:
    # Squares of 1e-200 underflow to 0; the effect size must not depend on the scale.
    assert paired_cohens_d([0.0, 0.0], [0.0, 2e-200]) == pytest.approx(1 / np.sqrt(2), rel=1e-12)
    assert paired_cohens_d([0.0, 0.0], [0.0, 2.0]) == pytest.approx(1 / np.sqrt(2), rel=1e-12)


def test_bca_with_tiny_spread() -> None:
    interval = bootstrap_ci([0.0, 1e-200, 3e-200], n_resamples=500)
    assert 0.0 <= interval.low <= interval.high <= 3e-200
    assert _acceleration(np.array([0.0, 1e-200, 3e-200])) == pytest.approx(
        _acceleration(np.array([0.0, 1.0, 3.0])), rel=1e-12
    )


@pytest.mark.parametrize(
    ("baseline", "system", "expected"),
    [
        ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], 0.0),
        ([0.0, 0.5], [0.5, 1.0], math.inf),
        ([0.5, 1.0], [0.0, 0.5], -math.inf),
    ],
)
def test_cohens_d_without_spread(
    baseline: list[float], system: list[float], expected: float
) -> None:
    assert paired_cohens_d(baseline, system) == expected
