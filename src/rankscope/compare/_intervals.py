"""Bootstrap confidence intervals for a mean score and for a mean paired difference."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from ._resampling import bootstrap_means
from ._validation import (
    FloatArray,
    as_paired,
    as_scores,
    check_choice,
    check_count,
    check_fraction,
    make_rng,
)

INTERVAL_METHODS = ("bca", "percentile")

_STANDARD_NORMAL = NormalDist()


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided confidence interval for a mean.

    Attributes
    ----------
    low, high
        The bounds, ``low <= high``.
    level
        The confidence level, e.g. 0.95.
    method
        ``"bca"`` or ``"percentile"``.
    estimate
        The mean the interval is about, computed on the data as given.
    """

    low: float
    high: float
    level: float
    method: str
    estimate: float


def bootstrap_ci(
    values: ArrayLike,
    *,
    level: float = 0.95,
    method: str = "bca",
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> ConfidenceInterval:
    """Bootstrap confidence interval for the mean of per-query scores.

    ``n_resamples`` means ``m*_b`` of resamples drawn with replacement are computed in blocks.
    With ``alpha = (1 - level) / 2``:

    - ``"percentile"``: the ``alpha`` and ``1 - alpha`` quantiles of the ``m*_b``.
    - ``"bca"`` (bias-corrected and accelerated): the quantiles at
      ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(alpha), Phi^-1(1 - alpha)``, where
      the bias correction is ``z0 = Phi^-1(q)`` with ``q = (#{m*_b < m} + #{m*_b <= m}) / (2B)``
      (mid-rank, as in :func:`scipy.stats.bootstrap`; ``q`` is kept within
      ``[1/(2B), 1 - 1/(2B)]`` so that ``z0`` stays finite) and the acceleration is the jackknife
      value, for the mean ``a = sum((x - m)^3) / (6 sum((x - m)^2)^(3/2))``.

    Quantiles interpolate linearly between order statistics (numpy's and scipy's default). When
    every value is the same, the interval is that value at both ends. The normal quantiles come
    from the standard library, so scipy is not needed.

    Parameters
    ----------
    values
        Per-query scores.
    level
        Confidence level, strictly between 0 and 1.
    method
        ``"bca"`` or ``"percentile"``.
    n_resamples
        Number of bootstrap resamples.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).

    Returns
    -------
    ConfidenceInterval

    Raises
    ------
    InputError
        If ``values`` is empty or holds NaN or infinity.
    ValueError
        If ``level``, ``method``, ``n_resamples`` or ``seed`` is not valid.

    References
    ----------
    Efron (1987), "Better bootstrap confidence intervals", JASA 82(397). Efron and Tibshirani
    (1993), An Introduction to the Bootstrap, §14.3 and Eq. 14.15.

    Examples
    --------
    >>> scores = [0.0, 0.1, 0.2, 0.2, 0.3, 0.5, 0.9, 1.0]
    >>> interval = bootstrap_ci(scores, seed=7)
    >>> interval.method, round(interval.estimate, 4)
    ('bca', 0.4)
    >>> round(interval.low, 2), round(interval.high, 2)
    (0.2, 0.69)
    >>> bootstrap_ci([0.5, 0.5, 0.5], method="percentile")
    ConfidenceInterval(low=0.5, high=0.5, level=0.95, method='percentile', estimate=0.5)
    """
    function = "bootstrap_ci"
    scores = as_scores(values, "values")
    return _interval(scores, level, method, n_resamples, seed, function)


def paired_bootstrap_ci(
    baseline: ArrayLike,
    system: ArrayLike,
    *,
    level: float = 0.95,
    method: str = "bca",
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> ConfidenceInterval:
    """Bootstrap confidence interval for the mean paired difference ``mean(system - baseline)``.

    Queries are resampled as pairs, which is :func:`bootstrap_ci` of the per-query differences;
    see there for the methods.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query.
    level
        Confidence level, strictly between 0 and 1.
    method
        ``"bca"`` or ``"percentile"``.
    n_resamples
        Number of bootstrap resamples.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).

    Returns
    -------
    ConfidenceInterval
        About ``estimate = mean(system - baseline)``.

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, or hold NaN or infinity.
    ValueError
        If ``level``, ``method``, ``n_resamples`` or ``seed`` is not valid.

    Examples
    --------
    >>> baseline = [0.2, 0.4, 0.6, 0.5, 0.1, 0.3, 0.5, 0.2]
    >>> system = [0.3, 0.6, 0.6, 0.7, 0.4, 0.2, 0.6, 0.4]
    >>> interval = paired_bootstrap_ci(baseline, system, level=0.9, seed=3)
    >>> round(interval.estimate, 4), interval.low > 0
    (0.125, True)
    """
    function = "paired_bootstrap_ci"
    baseline_scores, system_scores = as_paired(baseline, system)
    return _interval(system_scores - baseline_scores, level, method, n_resamples, seed, function)


def _interval(
    values: FloatArray,
    level: float,
    method: str,
    n_resamples: int,
    seed: int | None,
    function: str,
) -> ConfidenceInterval:
    level = check_fraction(level, "level", function)
    check_choice(method, "method", function, INTERVAL_METHODS)
    n_resamples = check_count(n_resamples, "n_resamples", function)
    rng = make_rng(seed, function)
    estimate = float(values.mean())
    if np.all(values == values[0]):
        return ConfidenceInterval(estimate, estimate, level, method, estimate)
    means = bootstrap_means(values, n_resamples, rng)
    alpha = (1.0 - level) / 2.0
    if method == "percentile":
        probabilities = (alpha, 1.0 - alpha)
    else:
        probabilities = _bca_probabilities(values, means, estimate, alpha)
    low, high = np.quantile(means, probabilities)
    return ConfidenceInterval(float(low), float(high), level, method, estimate)


def _bca_probabilities(
    values: FloatArray, means: FloatArray, estimate: float, alpha: float
) -> tuple[float, float]:
    n_resamples = means.size
    below = int(np.count_nonzero(means < estimate) + np.count_nonzero(means <= estimate))
    proportion = below / (2 * n_resamples)
    edge = 1.0 / (2 * n_resamples)
    proportion = min(max(proportion, edge), 1.0 - edge) if n_resamples > 1 else 0.5
    bias = _STANDARD_NORMAL.inv_cdf(proportion)
    acceleration = _acceleration(values)
    probabilities = []
    for tail in (alpha, 1.0 - alpha):
        shifted = bias + _STANDARD_NORMAL.inv_cdf(tail)
        denominator = 1.0 - acceleration * shifted
        # Past the pole of the formula, use its limit from the valid side.
        adjusted = shifted / denominator if denominator > 0 else math.copysign(math.inf, shifted)
        probabilities.append(_STANDARD_NORMAL.cdf(bias + adjusted))
    return probabilities[0], probabilities[1]


def _acceleration(values: FloatArray) -> float:
    """Jackknife acceleration of the mean (Efron and Tibshirani 1993, Eq. 14.15).

    With leave-one-out means ``m_(i)`` and their average ``m_(.)``, the general formula is
    ``sum((m_(.) - m_(i))^3) / (6 sum((m_(.) - m_(i))^2)^(3/2))``; for the mean,
    ``m_(.) - m_(i) = (x_i - m) / (n - 1)`` and the ``n - 1`` cancels. Needs non-constant values.
    """
    centred = values - values.mean()
    # The ratio does not depend on the scale; scaling to [-1, 1] avoids under- and overflow.
    centred = centred / float(np.abs(centred).max())
    skew_sum = float((centred**3).sum())
    square_sum = float((centred**2).sum())
    return skew_sum / (6.0 * square_sum * math.sqrt(square_sum))
