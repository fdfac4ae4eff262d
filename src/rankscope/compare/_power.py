"""Discriminative power of evaluation measures (Sakai 2006): how many system pairs a measure
tells apart at a significance level, by a test over all the systems at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from numpy.typing import ArrayLike

from rankscope.errors import InputError

from ._multiple import MultipleComparison
from ._paired_tests import PAIRED_TEST_NAMES
from ._pairs import default_correction
from ._tukey import all_pairs_test, randomized_tukey_hsd, tukey_hsd
from ._validation import check_choice, check_count, check_fraction, make_rng

MANY_SYSTEM_TEST_NAMES = ("randomized-tukey", "tukey", *PAIRED_TEST_NAMES)
"""The tests over many systems: the two Tukey tests, and each paired test on every pair."""


@dataclass(frozen=True)
class MeasurePower:
    """How well one measure separates the systems.

    Attributes
    ----------
    measure
        The measure's name.
    pairs
        Number of system pairs, ``m (m - 1) / 2``.
    significant
        Pairs whose adjusted p-value is at most ``alpha``.
    power
        ``significant / pairs``, the discriminative power.
    asl
        The achieved significance levels (adjusted p-values) of every pair, ascending: the
        ASL curve of Sakai (2006), pairs on the x axis and their ASL on the y axis.
    comparison
        The test of every pair behind the numbers.
    """

    measure: str
    pairs: int
    significant: int
    power: float
    asl: tuple[float, ...]
    comparison: MultipleComparison


@dataclass(frozen=True)
class DiscriminativePower:
    """The discriminative power of each measure, with the options used.

    Attributes
    ----------
    measures
        One :class:`MeasurePower` per measure, in input order.
    test, correction, alpha, n_resamples, seed
        The test of every pair, how it adjusts for the pairs (``"tukey"``: the test's own),
        its level, and its resampling.
    """

    measures: tuple[MeasurePower, ...]
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None

    def measure(self, name: str) -> MeasurePower:
        """The power of measure ``name``.

        Raises
        ------
        KeyError
            If there is no such measure.
        """
        for power in self.measures:
            if power.measure == name:
                return power
        raise KeyError(f"no measure {name!r}; measures: {[p.measure for p in self.measures]}")


def discriminative_power(
    per_query_by_measure: Mapping[str, Mapping[str, ArrayLike]],
    *,
    test: str = "randomized-tukey",
    alpha: float = 0.05,
    correction: str | None = None,
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> DiscriminativePower:
    """For each measure, the share of system pairs that differ significantly at ``alpha``.

    Every measure's scores are tested with one test over all the systems (by default the
    randomized Tukey HSD test, as Sakai does, so that the share counts discoveries under a
    family-wise error rate of ``alpha``); a measure that separates more pairs on the same
    systems and topics is more discriminative. The sorted p-values of the pairs are the
    achieved-significance-level (ASL) curve; a curve that stays lower longer is better. Every
    measure's test starts afresh from ``seed``.

    Parameters
    ----------
    per_query_by_measure
        Measure -> system -> per-topic scores (every array aligned by topic); every measure
        must hold the same systems, at least 2.
    test
        ``"randomized-tukey"`` (:func:`randomized_tukey_hsd`), ``"tukey"`` (:func:`tukey_hsd`,
        two-way) or a paired test of every pair (``"t"``, ``"wilcoxon"``, ``"randomization"``,
        ``"bootstrap"``: :func:`all_pairs_test`, with ``correction``).
    alpha
        Significance level, strictly between 0 and 1.
    correction
        For the paired tests: the correction over the pairs of one measure (``"holm"``, the
        default, ``"bonferroni"``, ``"bh"``, ``"none"``); leave it unset for the Tukey tests,
        which adjust for the pairs themselves.
    n_resamples
        Rounds of the randomized tests and resamples of the bootstrap.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).

    Returns
    -------
    DiscriminativePower

    Raises
    ------
    InputError
        If there is no measure, the measures do not hold the same systems, or a measure's
        scores are not as :func:`tukey_hsd` expects.
    ValueError
        If an option is not valid.
    MissingDependencyError
        If scipy is not installed.

    References
    ----------
    Sakai (2006), "Evaluating evaluation metrics based on the bootstrap", SIGIR. Sakai (2012),
    "Evaluation with informational and navigational intents", WWW (the randomized Tukey HSD
    version).

    Examples
    --------
    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> systems = dict(TABLE_5_1, D=[x / 2 for x in TABLE_5_1["C"]])
    >>> binary = {name: [float(x >= 0.3) for x in xs] for name, xs in systems.items()}
    >>> power = discriminative_power({"graded": systems, "binary": binary}, n_resamples=2000)
    >>> [(p.measure, p.pairs, p.significant, round(p.power, 3)) for p in power.measures]
    [('graded', 6, 2, 0.333), ('binary', 6, 3, 0.5)]
    >>> [round(p, 3) for p in power.measure("graded").asl]
    [0.0, 0.015, 0.075, 0.233, 0.503, 0.972]
    """
    function = "discriminative_power"
    check_choice(test, "test", function, MANY_SYSTEM_TEST_NAMES)
    resolved = default_correction(test, correction, function)
    alpha = check_fraction(alpha, "alpha", function)
    n_resamples = check_count(n_resamples, "n_resamples", function)
    make_rng(seed, function)
    if not per_query_by_measure:
        raise InputError("per_query_by_measure: expected at least one measure, got none")
    measures = []
    systems: list[str] | None = None
    for measure, scores in per_query_by_measure.items():
        if not isinstance(scores, Mapping):
            raise InputError(
                f"measure {measure!r}: expected a mapping of system -> per-topic scores, got "
                f"{type(scores).__name__}"
            )
        if systems is None:
            systems = list(scores)
        elif list(scores) != systems:
            raise InputError(
                f"measure {measure!r} holds systems {list(scores)}; expected the same systems "
                f"as the first measure, {systems}"
            )
        comparison = many_system_test(
            scores, test, alpha=alpha, correction=resolved, n_resamples=n_resamples, seed=seed
        )
        asl = tuple(sorted(pair.adjusted_p_value for pair in comparison.pairs))
        significant = sum(pair.significant for pair in comparison.pairs)
        measures.append(
            MeasurePower(
                measure=measure,
                pairs=len(asl),
                significant=significant,
                power=significant / len(asl),
                asl=asl,
                comparison=comparison,
            )
        )
    return DiscriminativePower(tuple(measures), test, resolved, alpha, n_resamples, seed)


def many_system_test(
    scores: Mapping[str, ArrayLike],
    test: str,
    *,
    alpha: float,
    correction: str,
    n_resamples: int,
    seed: int | None,
) -> MultipleComparison:
    """The test named ``test`` (one of :data:`MANY_SYSTEM_TEST_NAMES`) of every pair."""
    if test == "randomized-tukey":
        return randomized_tukey_hsd(scores, n_permutations=n_resamples, seed=seed, alpha=alpha)
    if test == "tukey":
        return tukey_hsd(scores, alpha=alpha)
    return all_pairs_test(
        scores, test=test, correction=correction, alpha=alpha, seed=seed, n_resamples=n_resamples
    )
