"""Paired significance tests over per-query scores of a baseline and a system.

Every test takes two arrays aligned by query (``baseline[i]`` and ``system[i]`` are the scores of
the same query), works on the differences ``d = system - baseline``, is two-sided and returns a
:class:`TestResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from rankscope.errors import InputError

from ._resampling import (
    bootstrap_means,
    count_at_least_as_extreme,
    sign_flip_means,
    tie_tolerance,
)
from ._validation import (
    FloatArray,
    as_paired,
    check_choice,
    check_count,
    import_scipy_stats,
    make_rng,
)

WILCOXON_ZERO_METHODS = ("wilcox", "pratt", "zsplit")

EXACT_MAX_QUERIES = 20
"""Largest number of queries :func:`exact_randomization_pvalue` enumerates (2^20 sign flips)."""

_EXACT_BLOCK = 1 << 16

PAIRED_TEST_NAMES = ("t", "wilcoxon", "randomization", "bootstrap")
"""The paired tests, by the names :func:`run_paired_test` takes."""


@dataclass(frozen=True)
class TestResult:
    """The outcome of a paired significance test.

    Attributes
    ----------
    statistic
        The test statistic: t for ``"t"``, the Wilcoxon statistic for ``"wilcoxon"``, the mean
        difference ``mean(system - baseline)`` for ``"randomization"`` and ``"bootstrap"``.
    p_value
        The two-sided p-value, in [0, 1].
    n
        Number of queries (pairs of scores) tested, zero differences included.
    method
        The test: ``"t"``, ``"wilcoxon"``, ``"randomization"`` or ``"bootstrap"``.
    mean_difference
        ``mean(system - baseline)``: positive when the system scores higher on average.
    n_resamples
        Number of random sign flips or bootstrap resamples drawn; None for the analytic tests.
    """

    __test__: ClassVar[bool] = False  # not a pytest test class, despite its name

    statistic: float
    p_value: float
    n: int
    method: str
    mean_difference: float
    n_resamples: int | None = None


def paired_t_test(baseline: ArrayLike, system: ArrayLike) -> TestResult:
    """Student's paired t-test of ``mean(system - baseline) = 0``.

    ``t = mean(d) / (std(d, ddof=1) / sqrt(n))`` with ``n - 1`` degrees of freedom, as
    :func:`scipy.stats.ttest_rel` computes it, and the two-sided p-value ``P(|T| >= |t|)`` from
    the core's Student t distribution (equal to scipy's ``2 * stdtr(n - 1, -|t|)`` within
    1e-12, and exact where scipy's loses digits: one degree of freedom and ``|t|`` below
    1e-4), so the test needs no scipy. When every difference is the same, scipy's answer is
    undefined (NaN for all-zero differences); here all-zero differences give ``t = 0, p = 1``
    (no evidence of a difference) and a constant non-zero difference gives ``t = ±inf, p = 0``.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query; at least 2 queries.

    Returns
    -------
    TestResult
        With ``method="t"`` and the t statistic (positive when the system scores higher).

    Raises
    ------
    InputError
        If the arrays differ in length, hold fewer than 2 scores, or hold NaN or infinity.

    References
    ----------
    Smucker, Allan and Carterette (2007), "A comparison of statistical significance tests for
    information retrieval evaluation", CIKM.

    Examples
    --------
    >>> result = paired_t_test([0.2, 0.4, 0.6, 0.5], [0.3, 0.6, 0.6, 0.7])
    >>> round(result.statistic, 6), round(result.p_value, 6)
    (2.611165, 0.079605)
    >>> paired_t_test([0.5, 0.5], [0.5, 0.5]).p_value
    1.0
    """
    baseline_scores, system_scores = as_paired(baseline, system, minimum=2)
    differences = system_scores - baseline_scores
    mean_difference = float(differences.mean())
    n = differences.size
    if np.all(differences == differences[0]):
        if differences[0] == 0.0:
            statistic, p_value = 0.0, 1.0
        else:
            statistic, p_value = math.copysign(math.inf, differences[0]), 0.0
        return TestResult(statistic, p_value, n, "t", mean_difference)
    from rankscope.engine.statistics import t_two_sided

    # scipy.stats.ttest_rel's own steps: the mean over the standard error, var with ddof=1.
    standard_error = np.sqrt(differences.var(ddof=1) / n)
    with np.errstate(divide="ignore", invalid="ignore"):  # a variance that underflows: t = inf
        statistic = float(np.divide(differences.mean(), standard_error))
    p_value = t_two_sided(statistic, n - 1)
    return TestResult(statistic, p_value, n, "t", mean_difference)


def wilcoxon_test(
    baseline: ArrayLike, system: ArrayLike, *, zero_method: str = "wilcox"
) -> TestResult:
    """Wilcoxon signed-rank test of the paired differences, by :func:`scipy.stats.wilcoxon`.

    The differences ``d = system - baseline`` are ranked by ``|d|`` (ties get their mean rank);
    the statistic is ``min(R+, R-)``, the smaller of the rank sums of positive and negative
    differences. The null distribution is scipy's choice (``method="auto"``; scipy 1.17): exact
    for up to 50 queries without ties or zero differences; with ties or zeros, the exact
    permutation distribution of the statistic (all ``2^n`` sign patterns) for up to 13 queries
    and the normal approximation (no continuity correction) above; the normal approximation for
    more than 50 queries.

    Zero differences (queries on which both score the same) follow ``zero_method``, as in scipy,
    whose default this is: ``"wilcox"`` drops them before ranking (a query where the systems tie
    carries no evidence either way); ``"pratt"`` ranks them and then drops their ranks;
    ``"zsplit"`` splits their ranks evenly between ``R+`` and ``R-``. Differences are compared
    with 0 exactly: scores that differ only by floating-point noise are not zeros. When every
    difference is zero the test returns ``p = 1`` (with statistic 0, or ``n(n+1)/4`` for
    ``"zsplit"``) instead of scipy's warnings.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query.
    zero_method
        ``"wilcox"``, ``"pratt"`` or ``"zsplit"``.

    Returns
    -------
    TestResult
        With ``method="wilcoxon"``; ``n`` counts every query, zero differences included.

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, or hold NaN or infinity.
    ValueError
        If ``zero_method`` is not one of the three names.
    MissingDependencyError
        If scipy is not installed.

    References
    ----------
    Wilcoxon (1945), "Individual comparisons by ranking methods", Biometrics Bulletin 1(6).

    Examples
    --------
    >>> result = wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.5, 0.2, 0.8, 1.0])
    >>> float(result.statistic), round(result.p_value, 4)
    (1.0, 0.125)

    The tie on the second query is dropped under the default ``"wilcox"``:

    >>> wilcoxon_test([0.1, 0.2, 0.3], [0.4, 0.2, 0.6]).p_value
    0.5
    """
    function = "wilcoxon_test"
    check_choice(zero_method, "zero_method", function, WILCOXON_ZERO_METHODS)
    baseline_scores, system_scores = as_paired(baseline, system)
    differences = system_scores - baseline_scores
    mean_difference = float(differences.mean())
    n = differences.size
    if not differences.any():
        statistic = n * (n + 1) / 4 if zero_method == "zsplit" else 0.0
        return TestResult(statistic, 1.0, n, "wilcoxon", mean_difference)
    stats = import_scipy_stats("the Wilcoxon signed-rank test")
    result = stats.wilcoxon(system_scores, baseline_scores, zero_method=zero_method)
    return TestResult(float(result.statistic), float(result.pvalue), n, "wilcoxon", mean_difference)


def randomization_test(
    baseline: ArrayLike,
    system: ArrayLike,
    *,
    n_permutations: int = 10_000,
    seed: int | None = 0,
) -> TestResult:
    """Fisher's randomization (permutation) test by random sign flips of the differences.

    Under the null hypothesis the labels "baseline" and "system" are exchangeable within each
    query, so each difference ``d_i`` is as likely to be ``-d_i``. The statistic is the mean
    difference ``T = mean(d)``; each of ``n_permutations`` resamples flips every sign with
    probability 1/2 and the two-sided p-value is

    ``p = (#{b : |T_b| >= |T| - tol} + 1) / (n_permutations + 1)``

    which counts the observed assignment as one of the permutations, so it is never 0 and is a
    valid p-value for any number of permutations (Phipson and Smyth, 2010). ``tol`` is
    ``1e-9 * mean(|d|)``, so that statistics equal in exact arithmetic count as ties.

    Permutations are drawn in blocks (vectorized, at most 10 000 at a time); the result depends
    only on the data, ``n_permutations`` and ``seed``.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query.
    n_permutations
        Number of random sign-flip assignments.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).

    Returns
    -------
    TestResult
        With ``method="randomization"`` and ``statistic = mean(system - baseline)``.

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, or hold NaN or infinity.
    ValueError
        If ``n_permutations`` is not a positive int or ``seed`` is negative.

    See Also
    --------
    exact_randomization_pvalue : the same p-value with all ``2^n`` sign flips, for small n.

    References
    ----------
    Fisher (1935), The Design of Experiments. Smucker, Allan and Carterette (2007), CIKM.
    Phipson and Smyth (2010), "Permutation p-values should never be zero", SAGMB 9(1).

    Examples
    --------
    >>> baseline = [0.2, 0.4, 0.6, 0.5, 0.1, 0.3]
    >>> system = [0.3, 0.6, 0.6, 0.7, 0.4, 0.2]
    >>> result = randomization_test(baseline, system, n_permutations=5000, seed=1)
    >>> round(result.statistic, 4), round(result.p_value, 2)
    (0.1167, 0.19)
    >>> exact_randomization_pvalue(baseline, system)  # 12 of the 64 sign flips
    0.1875

    With every difference zero, no permutation is less extreme: ``p = 1``.

    >>> randomization_test([0.5, 0.5], [0.5, 0.5], n_permutations=99).p_value
    1.0
    """
    function = "randomization_test"
    n_permutations = check_count(n_permutations, "n_permutations", function)
    rng = make_rng(seed, function)
    baseline_scores, system_scores = as_paired(baseline, system)
    differences = system_scores - baseline_scores
    observed = float(differences.mean())
    null_means = sign_flip_means(differences, n_permutations, rng)
    count = count_at_least_as_extreme(null_means, observed, tie_tolerance(differences))
    p_value = (count + 1) / (n_permutations + 1)
    return TestResult(
        observed, p_value, differences.size, "randomization", observed, n_permutations
    )


def exact_randomization_pvalue(baseline: ArrayLike, system: ArrayLike) -> float:
    """Exact two-sided p-value of the sign-flip randomization test, over all ``2^n`` flips.

    ``p = #{s in {-1, 1}^n : |mean(s * d)| >= |mean(d)| - tol} / 2^n``, with the same statistic
    and tie tolerance as :func:`randomization_test`, whose p-value estimates this one. Feasible
    for at most 20 queries.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query; at most 20 queries.

    Returns
    -------
    float
        The exact p-value, in ``[2 / 2^n, 1]`` (a flip and its mirror image are equally extreme).

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, hold NaN or infinity, or hold more than 20
        scores.

    Examples
    --------
    Three queries, all improved: only "all +" and "all -" are as extreme, so p = 2/8.

    >>> exact_randomization_pvalue([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])
    0.25
    """
    baseline_scores, system_scores = as_paired(baseline, system)
    differences = system_scores - baseline_scores
    n = differences.size
    if n > EXACT_MAX_QUERIES:
        raise InputError(
            f"exact enumeration of sign flips supports at most {EXACT_MAX_QUERIES} queries "
            f"(2^{EXACT_MAX_QUERIES} flips), got {n}; use randomization_test instead"
        )
    observed = float(differences.mean())
    tolerance = tie_tolerance(differences)
    bits = np.arange(n, dtype=np.int64)
    total = 1 << n
    count = 0
    for start in range(0, total, _EXACT_BLOCK):
        codes = np.arange(start, min(start + _EXACT_BLOCK, total), dtype=np.int64)
        flip = ((codes[:, np.newaxis] >> bits) & 1).astype(bool)
        means = np.where(flip, -differences, differences).mean(axis=1)
        count += count_at_least_as_extreme(means, observed, tolerance)
    return count / total


def bootstrap_test(
    baseline: ArrayLike,
    system: ArrayLike,
    *,
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> TestResult:
    """Paired bootstrap test of ``mean(system - baseline) = 0``, by the shift method.

    The differences are centred, ``z_i = d_i - mean(d)``, so that their empirical distribution
    satisfies the null hypothesis while keeping the shape of the data. Each of ``n_resamples``
    resamples draws ``n`` queries with replacement; the two-sided p-value is

    ``p = (#{b : |mean(z*_b)| >= |mean(d)| - tol} + 1) / (n_resamples + 1)``

    with ``tol = 1e-9 * mean(|d|)``, the same form as :func:`randomization_test`. Resamples are
    drawn in blocks; the result depends only on the data, ``n_resamples`` and ``seed``.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query.
    n_resamples
        Number of bootstrap resamples.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).

    Returns
    -------
    TestResult
        With ``method="bootstrap"`` and ``statistic = mean(system - baseline)``.

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, or hold NaN or infinity.
    ValueError
        If ``n_resamples`` is not a positive int or ``seed`` is negative.

    References
    ----------
    Efron and Tibshirani (1993), An Introduction to the Bootstrap, §16.4. Sakai (2006),
    "Evaluating evaluation metrics based on the bootstrap", SIGIR.

    Examples
    --------
    >>> baseline = [0.2, 0.4, 0.6, 0.5, 0.1, 0.3]
    >>> system = [0.3, 0.6, 0.6, 0.7, 0.4, 0.2]
    >>> result = bootstrap_test(baseline, system, n_resamples=5000, seed=1)
    >>> round(result.mean_difference, 4), round(result.p_value, 2)
    (0.1167, 0.04)
    """
    function = "bootstrap_test"
    n_resamples = check_count(n_resamples, "n_resamples", function)
    rng = make_rng(seed, function)
    baseline_scores, system_scores = as_paired(baseline, system)
    differences = system_scores - baseline_scores
    observed = float(differences.mean())
    null_means = bootstrap_means(differences - observed, n_resamples, rng)
    count = count_at_least_as_extreme(null_means, observed, tie_tolerance(differences))
    p_value = (count + 1) / (n_resamples + 1)
    return TestResult(observed, p_value, differences.size, "bootstrap", observed, n_resamples)


def run_paired_test(
    test: str, baseline: FloatArray, system: FloatArray, n_resamples: int, seed: int | None
) -> TestResult:
    """The paired test named ``test`` (one of :data:`PAIRED_TEST_NAMES`, already checked) of
    ``system`` against ``baseline``, resampling ``n_resamples`` times from ``seed``."""
    if test == "t":
        return paired_t_test(baseline, system)
    if test == "wilcoxon":
        return wilcoxon_test(baseline, system)
    if test == "randomization":
        return randomization_test(baseline, system, n_permutations=n_resamples, seed=seed)
    return bootstrap_test(baseline, system, n_resamples=n_resamples, seed=seed)
