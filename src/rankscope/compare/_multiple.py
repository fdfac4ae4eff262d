"""What a test over many systems returns: every pair's difference, p-value, interval and effect
size (:class:`PairDifference`), gathered in a :class:`MultipleComparison` with the ANOVA, the
margin of error and a compact letter display (:func:`compact_letter_display`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._anova import AnovaTable
from ._validation import FloatArray


@dataclass(frozen=True)
class PairDifference:
    """One pair of systems: ``second`` against ``first``.

    Attributes
    ----------
    first, second
        The systems, in input order.
    mean_difference
        ``mean(second) - mean(first)``: positive when ``second`` scores higher.
    statistic
        The test's statistic, with the sign of the difference: the studentized difference
        ``q = difference / sqrt(V_E / n)`` for ``"tukey"`` (tested as ``|q|`` against the
        studentized range), the mean difference for ``"randomized-tukey"``, and the paired
        tests' own (see :class:`TestResult`).
    p_value
        The test's p-value. The Tukey tests' p-values already hold for every pair at once.
    adjusted_p_value
        The p-value adjusted for all the pairs compared: the Tukey tests' own, else the
        p-values corrected by :attr:`MultipleComparison.correction`.
    significant
        ``adjusted_p_value <= alpha``.
    ci_low, ci_high
        The interval of the difference at level ``1 - alpha``: simultaneous over all pairs for
        the Tukey tests, a BCa bootstrap interval of the pair alone for the paired tests.
    effect_size
        ``mean_difference / sqrt(V_E)``, the difference in units of the two-way ANOVA's
        residual standard deviation (Sakai 2018, §5.2).
    """

    first: str
    second: str
    mean_difference: float
    statistic: float
    p_value: float
    adjusted_p_value: float
    significant: bool
    ci_low: float
    ci_high: float
    effect_size: float

    def mirrored(self) -> PairDifference:
        """The same comparison seen from the other side (``first`` and ``second`` swapped)."""
        return PairDifference(
            first=self.second,
            second=self.first,
            mean_difference=-self.mean_difference,
            statistic=-self.statistic,
            p_value=self.p_value,
            adjusted_p_value=self.adjusted_p_value,
            significant=self.significant,
            ci_low=-self.ci_high,
            ci_high=-self.ci_low,
            effect_size=-self.effect_size,
        )


@dataclass(frozen=True)
class MultipleComparison:
    """Every pair of systems compared on one measure, with the ANOVA behind the effect sizes.

    Attributes
    ----------
    method
        ``"tukey"``, ``"randomized-tukey"``, or the paired test of every pair (``"t"``,
        ``"wilcoxon"``, ``"randomization"``, ``"bootstrap"``).
    design
        The ANOVA's design, ``"two-way"`` (topics as blocks) or ``"one-way"``.
    correction
        How the p-values are adjusted for the number of pairs: ``"tukey"`` (the test's own,
        single-step), or ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"none"``.
    systems, means
        The systems in input order and their mean scores.
    n_topics
        Topics per system.
    pairs
        The pairs compared, ``(systems[i], systems[j])`` with ``i < j`` in input order.
    anova
        The analysis of variance of the same scores (in ``design``).
    alpha
        The significance level; the intervals are at ``1 - alpha``.
    margin_of_error
        Half the width of each system mean's interval at ``1 - alpha`` from the ANOVA,
        ``t(phi_E; alpha) sqrt(V_E / n)`` (Sakai 2018, §5.2).
    n_resamples, seed
        Permutations or resamples drawn, and the seed (None, None for the analytic tests).
    letters
        System -> its letters in a compact letter display (systems that share a letter are not
        significantly different), when every pair was compared; else None.
    """

    method: str
    design: str
    correction: str
    systems: tuple[str, ...]
    means: tuple[float, ...]
    n_topics: int
    pairs: tuple[PairDifference, ...]
    anova: AnovaTable
    alpha: float
    margin_of_error: float
    n_resamples: int | None
    seed: int | None
    letters: Mapping[str, str] | None

    @property
    def residual_std(self) -> float:
        """``sqrt(V_E)``, the residual standard deviation the effect sizes are measured in."""
        return math.sqrt(self.anova.residual_variance)

    def pair(self, first: str, second: str) -> PairDifference:
        """``second`` against ``first`` (either order of a compared pair).

        Raises
        ------
        KeyError
            If the two systems were not compared.
        """
        for pair in self.pairs:
            if (pair.first, pair.second) == (first, second):
                return pair
            if (pair.second, pair.first) == (first, second):
                return pair.mirrored()
        raise KeyError(f"no comparison of {first!r} and {second!r}; systems: {list(self.systems)}")

    def p_value_matrix(self, adjusted: bool = True) -> FloatArray:
        """Systems x systems (input order) adjusted (or raw) p-values; 1 on the diagonal, NaN
        for pairs not compared."""
        index = {system: i for i, system in enumerate(self.systems)}
        matrix = np.full((len(self.systems), len(self.systems)), np.nan)
        np.fill_diagonal(matrix, 1.0)
        for pair in self.pairs:
            i, j = index[pair.first], index[pair.second]
            matrix[i, j] = matrix[j, i] = pair.adjusted_p_value if adjusted else pair.p_value
        return matrix


def compact_letter_display(
    systems: Sequence[str], means: Sequence[float], different: Sequence[tuple[str, str]]
) -> dict[str, str]:
    """Letters for each system such that two systems share a letter exactly when they are not
    significantly different, by Piepho's insert-and-absorb algorithm.

    The letters are given in order of the systems' means, highest first: the best system gets
    ``a``. Beyond 26 letters, ``aa``, ``ab``, ... follow (each letter then reads as one token).

    Parameters
    ----------
    systems, means
        The systems and their mean scores.
    different
        The pairs that are significantly different.

    Returns
    -------
    dict
        System -> letters, in the order of ``systems``.

    References
    ----------
    Piepho (2004), "An algorithm for a letter-based representation of all-pairwise
    comparisons", Journal of Computational and Graphical Statistics 13(2).

    Examples
    --------
    >>> compact_letter_display(["x", "y", "z"], [0.5, 0.4, 0.1], [("x", "z")])
    {'x': 'a', 'y': 'ab', 'z': 'b'}
    >>> compact_letter_display(["x", "y"], [0.2, 0.3], [])
    {'x': 'a', 'y': 'a'}
    """
    order = sorted(range(len(systems)), key=lambda i: (-means[i], i))
    rank = {systems[i]: position for position, i in enumerate(order)}
    columns: list[frozenset[str]] = [frozenset(systems)]
    for first, second in different:
        split: list[frozenset[str]] = []
        for column in columns:
            if first in column and second in column:
                split.extend((column - {first}, column - {second}))
            else:
                split.append(column)
        # Absorb: drop a column that another one contains (and repeats of the same column).
        unique = list(dict.fromkeys(split))
        columns = [c for c in unique if not any(c < other for other in unique)]
    columns.sort(key=lambda column: sorted(rank[system] for system in column))
    names = [_letter(i) for i in range(len(columns))]
    return {
        system: "".join(
            name for name, column in zip(names, columns, strict=True) if system in column
        )
        for system in systems
    }


def _letter(index: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    if index < len(letters):
        return letters[index]
    return letters[index // len(letters) - 1] + letters[index % len(letters)]
