"""Tests of every pair of many systems at once: Tukey's HSD on topic-blocked scores, the
randomized Tukey HSD test, and the paired tests of every pair with a correction."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._anova import ANOVA_DESIGNS, AnovaTable, anova_of_matrix, score_matrix
from ._corrections import CORRECTION_NAMES, correct_pvalues
from ._intervals import paired_bootstrap_ci
from ._multiple import MultipleComparison, PairDifference, compact_letter_display
from ._paired_tests import PAIRED_TEST_NAMES, TestResult, run_paired_test
from ._resampling import tie_tolerance
from ._validation import (
    FloatArray,
    check_choice,
    check_count,
    check_fraction,
    import_scipy_stats,
    make_rng,
)


def tukey_hsd(
    scores: Mapping[str, ArrayLike], *, design: str = "two-way", alpha: float = 0.05
) -> MultipleComparison:
    """Tukey's honestly significant difference test of every pair of systems.

    With ``m`` systems, ``n`` topics and the residual variance ``V_E`` (with ``phi_E`` degrees
    of freedom) of :func:`anova` in ``design``, the pair ``(i, j)`` has the studentized
    difference ``q = (mean_j - mean_i) / sqrt(V_E / n)``, and

    - ``p = P(Q >= |q|)`` for ``Q`` of the studentized range distribution with ``m`` groups and
      ``phi_E`` degrees of freedom (:data:`scipy.stats.studentized_range`): the p-values hold
      for every pair at once (the family-wise error rate is at most ``alpha``);
    - the simultaneous interval is ``mean_j - mean_i ± q(1 - alpha; m, phi_E) sqrt(V_E / n)``;
    - the effect size is ``(mean_j - mean_i) / sqrt(V_E)``.

    The default two-way design blocks on topics (systems x topics without replication): the
    error is what remains after both the systems' and the topics' effects, as for a paired
    test. The one-way design treats each system's scores as an independent sample (as
    ``statsmodels``' ``pairwise_tukeyhsd`` and ranx do); since topics vary far more than
    systems, it leaves that variation in the error and finds fewer differences. When
    ``V_E = 0``, a pair that differs has ``p = 0`` and one that does not has ``p = 1``.

    Parameters
    ----------
    scores
        System name -> per-topic scores, aligned by topic; at least 2 systems and 2 topics.
    design
        ``"two-way"`` or ``"one-way"``.
    alpha
        Significance level, strictly between 0 and 1.

    Returns
    -------
    MultipleComparison
        With ``method="tukey"`` and ``correction="tukey"``.

    Raises
    ------
    InputError
        If the scores are not one aligned, finite array per system (at least 2 of them, at
        least 2 topics).
    ValueError
        If ``design`` or ``alpha`` is not valid.
    MissingDependencyError
        If scipy is not installed.

    References
    ----------
    Tukey (1953), The Problem of Multiple Comparisons. Sakai (2018), Laboratory Experiments in
    Information Retrieval, §4.4 and §5.2. Carterette (2012), "Multiple testing in statistical
    analysis of systems-based information retrieval experiments", ACM TOIS 30(1).

    Examples
    --------
    Sakai's Table 5.1 (three systems, twenty topics):

    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> result = tukey_hsd(TABLE_5_1)
    >>> [(p.first, p.second, round(p.mean_difference, 3), round(p.p_value, 4))
    ...  for p in result.pairs]
    [('A', 'B', -0.075, 0.2567), ('A', 'C', -0.1, 0.0957), ('B', 'C', -0.025, 0.855)]
    >>> round(result.pair("B", "A").effect_size, 4), round(result.pair("A", "C").effect_size, 4)
    (0.507, -0.676)
    >>> round(result.residual_std, 4), round(result.margin_of_error, 4), result.letters
    (0.1479, 0.067, {'A': 'a', 'B': 'a', 'C': 'a'})
    """
    function = "tukey_hsd"
    check_choice(design, "design", function, ANOVA_DESIGNS)
    alpha = check_fraction(alpha, "alpha", function)
    systems, matrix = score_matrix(scores)
    return tukey_of_matrix(systems, matrix, design, alpha)


def tukey_of_matrix(
    systems: tuple[str, ...], matrix: FloatArray, design: str, alpha: float
) -> MultipleComparison:
    """:func:`tukey_hsd` of a checked topics x systems matrix."""
    stats = import_scipy_stats("Tukey's HSD test")
    table = anova_of_matrix(systems, matrix, design)
    n, m = matrix.shape
    df = table.residual_df
    standard_error = math.sqrt(table.residual_variance / n)
    critical = float(stats.studentized_range.ppf(1.0 - alpha, m, df))
    means = matrix.mean(axis=0)
    pairs = []
    for i, j in _all_pairs(m):
        difference = float(means[j] - means[i])
        if standard_error > 0.0:
            q = difference / standard_error
            p_value = float(stats.studentized_range.sf(abs(q), m, df))
        else:
            q = math.copysign(math.inf, difference) if difference else 0.0
            p_value = 0.0 if difference else 1.0
        p_value = min(max(p_value, 0.0), 1.0)
        half_width = critical * standard_error
        interval = (difference - half_width, difference + half_width)
        pairs.append(_pair(systems, i, j, difference, q, p_value, p_value, alpha, interval, table))
    return _result("tukey", design, "tukey", systems, matrix, pairs, table, alpha, None, None)


def randomized_tukey_hsd(
    scores: Mapping[str, ArrayLike],
    *,
    n_permutations: int = 10_000,
    seed: int | None = 0,
    alpha: float = 0.05,
) -> MultipleComparison:
    """The randomized Tukey HSD test: every pair against the permutation distribution of the
    largest difference among all the systems.

    Under the null hypothesis that the systems are the same, their scores are exchangeable
    within each topic. Each of ``B = n_permutations`` rounds shuffles every topic's scores
    across the systems and records the range ``R_b = max_i mean_i - min_i mean_i`` of the
    shuffled means. The pair ``(i, j)`` with observed difference ``d = mean_j - mean_i`` has

    ``p = (#{b : R_b >= |d| - tol} + 1) / (B + 1)``

    with ``tol = 1e-9 * mean(|x_j - x_i|)`` (equal statistics in exact arithmetic count as
    ties), the form of :func:`randomization_test`. Comparing ``|d|`` with the largest of all
    differences in each round makes the p-values hold for every pair at once. The interval is
    ``d ± r``, ``r`` the ``1 - alpha`` quantile of the ``R_b`` (the permutation analogue of
    Tukey's HSD); the effect size is ``d / sqrt(V_E)`` with the two-way ANOVA's ``V_E``.

    The rounds run in the native core, in parallel, on NumPy's generator seeded by ``seed``:
    each topic is shuffled by Fisher-Yates with one ``Generator.random()`` double per
    position, and every round takes its own stretch of the stream, so the result depends only
    on the scores, ``n_permutations`` and ``seed`` (not on the number of threads). With two
    systems a round draws one double per topic and swaps the pair when it is below 1/2: the
    sign flips of :func:`randomization_test`, whose p-value this then equals.

    Parameters
    ----------
    scores
        System name -> per-topic scores, aligned by topic; at least 2 systems and 2 topics.
    n_permutations
        Number of rounds ``B``.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).
    alpha
        Significance level, strictly between 0 and 1.

    Returns
    -------
    MultipleComparison
        With ``method="randomized-tukey"`` and ``correction="tukey"``.

    Raises
    ------
    InputError
        If the scores are not one aligned, finite array per system (at least 2 of them, at
        least 2 topics).
    ValueError
        If ``n_permutations``, ``seed`` or ``alpha`` is not valid.
    MissingDependencyError
        If scipy is not installed (for the ANOVA's margin of error).

    References
    ----------
    Carterette (2012), "Multiple testing in statistical analysis of systems-based information
    retrieval experiments", ACM TOIS 30(1). Sakai (2018), Laboratory Experiments in
    Information Retrieval, §4.5.

    Examples
    --------
    >>> from rankscope.compare import randomization_test
    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> result = randomized_tukey_hsd(TABLE_5_1, n_permutations=5000, seed=1)
    >>> [(p.first, p.second, round(p.p_value, 2)) for p in result.pairs]
    [('A', 'B', 0.29), ('A', 'C', 0.11), ('B', 'C', 0.88)]

    Two systems: Fisher's randomization test, to the last digit.

    >>> two = {"A": TABLE_5_1["A"], "B": TABLE_5_1["B"]}
    >>> pair = randomized_tukey_hsd(two, n_permutations=5000, seed=1).pair("A", "B")
    >>> fisher = randomization_test(TABLE_5_1["A"], TABLE_5_1["B"], n_permutations=5000, seed=1)
    >>> pair.p_value == fisher.p_value, round(pair.p_value, 4)
    (True, 0.0682)
    """
    function = "randomized_tukey_hsd"
    n_permutations = check_count(n_permutations, "n_permutations", function)
    alpha = check_fraction(alpha, "alpha", function)
    rng = make_rng(seed, function)
    systems, matrix = score_matrix(scores)
    return randomized_tukey_of_matrix(systems, matrix, n_permutations, rng, seed, alpha)


def randomized_tukey_of_matrix(
    systems: tuple[str, ...],
    matrix: FloatArray,
    n_permutations: int,
    rng: np.random.Generator,
    seed: int | None,
    alpha: float,
) -> MultipleComparison:
    """:func:`randomized_tukey_hsd` of a checked topics x systems matrix."""
    from rankscope.engine.permutations import permuted_ranges

    table = anova_of_matrix(systems, matrix, "two-way")
    ranges = np.sort(permuted_ranges(matrix, n_permutations, rng))
    half_width = float(np.quantile(ranges, 1.0 - alpha))
    pairs = []
    for i, j in _all_pairs(matrix.shape[1]):
        differences = matrix[:, j] - matrix[:, i]
        observed = float(differences.mean())
        threshold = abs(observed) - tie_tolerance(differences)
        count = ranges.size - int(np.searchsorted(ranges, threshold, side="left"))
        p_value = (count + 1) / (n_permutations + 1)
        interval = (observed - half_width, observed + half_width)
        pairs.append(
            _pair(systems, i, j, observed, observed, p_value, p_value, alpha, interval, table)
        )
    return _result(
        "randomized-tukey",
        "two-way",
        "tukey",
        systems,
        matrix,
        pairs,
        table,
        alpha,
        n_permutations,
        seed,
    )


def all_pairs_test(
    scores: Mapping[str, ArrayLike],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
) -> MultipleComparison:
    """A paired test of every pair of systems, the p-values corrected for the number of pairs.

    Each pair ``(i, j)`` (``i`` before ``j`` in input order) is tested with ``test`` on the
    differences ``x_j - x_i``; the ``m (m - 1) / 2`` p-values form one family that
    ``correction`` adjusts. Each pair also gets a BCa bootstrap interval of its mean difference
    at level ``1 - alpha`` (for that pair alone) and the effect size ``d / sqrt(V_E)`` with the
    two-way ANOVA's residual variance, so that all pairs share one unit. Every resampling
    starts afresh from ``seed``.

    Parameters
    ----------
    scores
        System name -> per-topic scores, aligned by topic; at least 2 systems and 2 topics.
    test
        ``"t"``, ``"wilcoxon"``, ``"randomization"`` or ``"bootstrap"``, as in
        :func:`compare`.
    correction
        ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``, see :func:`correct_pvalues`.
    alpha
        Significance level, strictly between 0 and 1.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).
    n_resamples
        Number of permutations or bootstrap resamples, for the test and for the interval.

    Returns
    -------
    MultipleComparison
        With ``method=test``.

    Raises
    ------
    InputError
        If the scores are not one aligned, finite array per system (at least 2 of them, at
        least 2 topics).
    ValueError
        If ``test``, ``correction``, ``alpha``, ``seed`` or ``n_resamples`` is not valid.
    MissingDependencyError
        If scipy is not installed.

    Examples
    --------
    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> result = all_pairs_test(TABLE_5_1, test="t", correction="holm")
    >>> [(p.first, p.second, round(p.p_value, 3), round(p.adjusted_p_value, 3))
    ...  for p in result.pairs]
    [('A', 'B', 0.048, 0.143), ('A', 'C', 0.123, 0.246), ('B', 'C', 0.522, 0.522)]
    """
    function = "all_pairs_test"
    check_choice(test, "test", function, PAIRED_TEST_NAMES)
    check_choice(correction, "correction", function, CORRECTION_NAMES)
    alpha = check_fraction(alpha, "alpha", function)
    n_resamples = check_count(n_resamples, "n_resamples", function)
    make_rng(seed, function)  # validates the seed before any work
    systems, matrix = score_matrix(scores)
    indices = list(_all_pairs(matrix.shape[1]))
    results = [
        run_paired_test(test, matrix[:, i], matrix[:, j], n_resamples, seed) for i, j in indices
    ]
    intervals = [
        paired_bootstrap_ci(
            matrix[:, i], matrix[:, j], level=1.0 - alpha, n_resamples=n_resamples, seed=seed
        )
        for i, j in indices
    ]
    corrected = correct_pvalues([result.p_value for result in results], correction)
    return paired_result(
        test,
        correction,
        systems,
        matrix,
        [
            (i, j, result, float(p_value), interval.low, interval.high)
            for (i, j), result, p_value, interval in zip(
                indices, results, corrected, intervals, strict=True
            )
        ],
        alpha,
        n_resamples,
        seed,
    )


def paired_result(
    test: str,
    correction: str,
    systems: tuple[str, ...],
    matrix: FloatArray,
    tested: Sequence[tuple[int, int, TestResult, float, float, float]],
    alpha: float,
    n_resamples: int,
    seed: int | None,
) -> MultipleComparison:
    """A :class:`MultipleComparison` of paired tests already run: ``(i, j, result,
    adjusted p-value, interval low, interval high)`` per pair."""
    table = anova_of_matrix(systems, matrix, "two-way")
    pairs = [
        _pair(
            systems,
            i,
            j,
            result.mean_difference,
            result.statistic,
            result.p_value,
            adjusted,
            alpha,
            (low, high),
            table,
        )
        for i, j, result, adjusted, low, high in tested
    ]
    return _result(
        test, "two-way", correction, systems, matrix, pairs, table, alpha, n_resamples, seed
    )


def _all_pairs(m: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(m) for j in range(i + 1, m)]


def _pair(
    systems: tuple[str, ...],
    i: int,
    j: int,
    difference: float,
    statistic: float,
    p_value: float,
    adjusted: float,
    alpha: float,
    interval: tuple[float, float],
    table: AnovaTable,
) -> PairDifference:
    residual_std = math.sqrt(table.residual_variance)
    if residual_std > 0.0:
        effect = difference / residual_std
    else:
        effect = math.copysign(math.inf, difference) if difference else 0.0
    return PairDifference(
        first=systems[i],
        second=systems[j],
        mean_difference=difference,
        statistic=statistic,
        p_value=p_value,
        adjusted_p_value=adjusted,
        significant=bool(adjusted <= alpha),
        ci_low=interval[0],
        ci_high=interval[1],
        effect_size=effect,
    )


def _result(
    method: str,
    design: str,
    correction: str,
    systems: tuple[str, ...],
    matrix: FloatArray,
    pairs: Sequence[PairDifference],
    table: AnovaTable,
    alpha: float,
    n_resamples: int | None,
    seed: int | None,
) -> MultipleComparison:
    means = tuple(float(mean) for mean in matrix.mean(axis=0))
    compared = {frozenset((pair.first, pair.second)) for pair in pairs}
    every_pair = len(compared) == len(systems) * (len(systems) - 1) // 2
    letters = (
        compact_letter_display(
            systems, means, [(p.first, p.second) for p in pairs if p.significant]
        )
        if every_pair
        else None
    )
    return MultipleComparison(
        method=method,
        design=design,
        correction=correction,
        systems=systems,
        means=means,
        n_topics=matrix.shape[0],
        pairs=tuple(pairs),
        anova=table,
        alpha=alpha,
        margin_of_error=table.margin_of_error(1.0 - alpha),
        n_resamples=n_resamples,
        seed=seed,
        letters=letters,
    )
