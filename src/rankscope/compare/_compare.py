"""Compare several systems with a baseline on several measures, in one call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial

from numpy.typing import ArrayLike

from rankscope.errors import InputError

from ._corrections import CORRECTION_NAMES, correct_pvalues
from ._effect import paired_cohens_d
from ._intervals import ConfidenceInterval, paired_bootstrap_ci
from ._multiple import MultipleComparison
from ._paired_tests import PAIRED_TEST_NAMES, TestResult, run_paired_test
from ._per_query import WinTieLoss, win_tie_loss
from ._validation import (
    FloatArray,
    as_paired,
    as_scores,
    check_choice,
    check_count,
    check_fraction,
    make_rng,
)

TEST_NAMES = PAIRED_TEST_NAMES
"""Names accepted by the ``test`` parameter of :func:`compare`."""


@dataclass(frozen=True)
class ComparisonRow:
    """One system against the baseline on one measure.

    Attributes
    ----------
    system, measure
        Which comparison this is.
    n
        Number of queries.
    baseline_mean, system_mean
        Mean score of the baseline and of the system over the queries.
    test
        The significance test of the paired differences ``system - baseline``.
    corrected_p_value
        ``test.p_value`` adjusted for every comparison in the same :class:`Comparison`.
    significant
        ``corrected_p_value <= alpha``.
    difference_ci
        BCa bootstrap interval for ``mean(system - baseline)`` at level ``1 - alpha``, computed
        when first read (its resampling is the dearest part of a row, and most reports do not
        show it); the same interval whenever and however often it is read.
    effect_size
        Cohen's d for paired samples, see :func:`paired_cohens_d`.
    win_tie_loss
        Queries on which the system scores higher, the same, lower (tolerance ``1e-12``).
    baseline
        The name of the run the system is compared with (the first of the pair).
    interval
        What computes :attr:`difference_ci` when it is first read (for an interval already at
        hand, ``lambda: interval``).
    """

    system: str
    measure: str
    n: int
    baseline_mean: float
    system_mean: float
    test: TestResult
    corrected_p_value: float
    significant: bool
    effect_size: float
    win_tie_loss: WinTieLoss
    baseline: str = "baseline"
    interval: Callable[[], ConfidenceInterval] = field(kw_only=True, repr=False, compare=False)

    @cached_property
    def difference_ci(self) -> ConfidenceInterval:
        """The interval for ``mean(system - baseline)``, computed on first use."""
        return self.interval()


@dataclass(frozen=True)
class Comparison:
    """Every system compared with the baseline on every measure, with the options used; or,
    from :func:`compare_pairs`, chosen pairs of systems.

    Attributes
    ----------
    rows
        One row per (system, measure): systems in input order, measures in the order of the
        baseline's mapping within each system. From :func:`compare_pairs`: one row per
        (pair, measure), the pair's first system as the row's ``baseline``.
    systems, measures
        The names, in that order (from :func:`compare_pairs`, every system compared).
    test, correction, alpha, n_resamples, seed
        The options the comparison ran with (``correction="tukey"``: the Tukey tests' own).
    analyses
        Measure -> the test of the pairs over all the systems (ANOVA, pairwise matrix, compact
        letter display), from :func:`compare_pairs`; empty for a comparison with one baseline.
    baselines
        The systems the pairs were chosen against (from :func:`compare_pairs`), if any.
    """

    rows: tuple[ComparisonRow, ...]
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None
    analyses: Mapping[str, MultipleComparison] = field(default_factory=dict)
    baselines: tuple[str, ...] = ()

    @property
    def pairwise(self) -> bool:
        """Whether this compares chosen pairs (:func:`compare_pairs`), not systems against one
        baseline."""
        return bool(self.analyses)

    def pair(self, first: str, second: str, measure: str) -> ComparisonRow:
        """The row of ``second`` against ``first`` on ``measure``.

        Raises
        ------
        KeyError
            If that pair was not compared on that measure.
        """
        for row in self.rows:
            if (row.baseline, row.system, row.measure) == (first, second, measure):
                return row
        raise KeyError(
            f"no comparison of {second!r} against {first!r} on measure {measure!r}; pairs: "
            f"{sorted({(row.baseline, row.system) for row in self.rows})}"
        )

    def row(self, system: str, measure: str) -> ComparisonRow:
        """The row of ``system`` on ``measure`` (the first, when several pairs hold it).

        Raises
        ------
        KeyError
            If there is no such system or measure.
        """
        for row in self.rows:
            if row.system == system and row.measure == measure:
                return row
        raise KeyError(
            f"no comparison for system {system!r} and measure {measure!r}; "
            f"systems: {list(self.systems)}, measures: {list(self.measures)}"
        )


def compare(
    baseline_scores: Mapping[str, ArrayLike],
    systems_scores: Mapping[str, Mapping[str, ArrayLike]],
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    baseline: str = "baseline",
) -> Comparison:
    """Compare each system with the baseline on each measure, correcting for multiplicity.

    For every system and measure the per-query scores are paired with the baseline's and
    tested with ``test``; the p-values of all ``systems × measures`` tests form one family that
    ``correction`` adjusts. Each row also holds the means, a BCa bootstrap interval for the mean
    difference at level ``1 - alpha``, Cohen's d and the win/tie/loss counts.

    Every resampling procedure (the randomization and bootstrap tests, the interval) starts
    afresh from ``seed``, so a row's numbers do not depend on which other systems or measures
    are compared, nor on their order.

    Parameters
    ----------
    baseline_scores
        Measure name -> per-query scores of the baseline.
    systems_scores
        System name -> measure name -> per-query scores, each aligned by query with the
        baseline's array for that measure. Every system must have exactly the baseline's
        measures.
    test
        ``"t"`` (:func:`paired_t_test`), ``"wilcoxon"`` (:func:`wilcoxon_test`),
        ``"randomization"`` (:func:`randomization_test`) or ``"bootstrap"``
        (:func:`bootstrap_test`). ``"wilcoxon"`` needs scipy.
    correction
        ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``, see :func:`correct_pvalues`.
    alpha
        Significance level, strictly between 0 and 1.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).
    n_resamples
        Number of permutations or bootstrap resamples, for the test and for the interval.
    baseline
        The baseline's name, for the rows' :attr:`ComparisonRow.baseline`.

    Returns
    -------
    Comparison

    Raises
    ------
    InputError
        If there is no measure or no system, a system lacks a measure of the baseline or has
        one the baseline lacks, two arrays of a pair differ in length (the message names the
        system, the measure and both lengths), an array holds fewer than 2 scores, NaN or
        infinity.
    ValueError
        If ``test``, ``correction``, ``alpha``, ``seed`` or ``n_resamples`` is not valid; the
        message lists the valid names.
    MissingDependencyError
        If ``test`` is ``"wilcoxon"`` and scipy is not installed.

    Examples
    --------
    >>> baseline = {"nDCG@10": [0.2, 0.4, 0.6, 0.5, 0.1, 0.3, 0.5, 0.2, 0.7, 0.4]}
    >>> systems = {
    ...     "better": {"nDCG@10": [0.3, 0.6, 0.6, 0.7, 0.4, 0.2, 0.6, 0.4, 0.8, 0.6]},
    ...     "same": {"nDCG@10": [0.2, 0.4, 0.6, 0.5, 0.1, 0.3, 0.5, 0.2, 0.7, 0.4]},
    ... }
    >>> result = compare(baseline, systems, test="randomization", n_resamples=2000)
    >>> row = result.row("better", "nDCG@10")
    >>> round(row.system_mean, 4), round(row.test.p_value, 3), round(row.corrected_p_value, 3)
    (0.52, 0.015, 0.03)
    >>> row.significant, round(row.difference_ci.low, 4), round(row.difference_ci.high, 4)
    (True, 0.05, 0.19)
    >>> row.win_tie_loss
    WinTieLoss(wins=8, ties=1, losses=1)
    >>> same = result.row("same", "nDCG@10")
    >>> same.corrected_p_value, same.significant, same.effect_size
    (1.0, False, 0.0)
    """
    function = "compare"
    check_choice(test, "test", function, TEST_NAMES)
    check_choice(correction, "correction", function, CORRECTION_NAMES)
    alpha = check_fraction(alpha, "alpha", function)
    n_resamples = check_count(n_resamples, "n_resamples", function)
    make_rng(seed, function)  # validates the seed before any work

    measures = tuple(baseline_scores)
    systems = tuple(systems_scores)
    if not measures:
        raise InputError("baseline_scores: expected at least one measure, got none")
    if not systems:
        raise InputError("systems_scores: expected at least one system, got none")
    baseline_arrays = {
        measure: as_scores(baseline_scores[measure], f"baseline, measure {measure!r}")
        for measure in measures
    }
    pairs: list[tuple[str, str, FloatArray, FloatArray]] = []
    for system in systems:
        system_measures = systems_scores[system]
        if not isinstance(system_measures, Mapping):
            raise InputError(
                f"systems_scores[{system!r}]: expected a mapping of measure name -> scores, "
                f"got {type(system_measures).__name__}"
            )
        _check_same_measures(system, measures, system_measures)
        for measure in measures:
            context = f"system {system!r}, measure {measure!r}"
            baseline_array, system_array = as_paired(
                baseline_arrays[measure], system_measures[measure], minimum=2, context=context
            )
            pairs.append((system, measure, baseline_array, system_array))

    results = [
        run_paired_test(test, baseline_array, system_array, n_resamples, seed)
        for _, _, baseline_array, system_array in pairs
    ]
    corrected = correct_pvalues([result.p_value for result in results], correction)
    rows = []
    for (system, measure, baseline_array, system_array), result, p_value in zip(
        pairs, results, corrected, strict=True
    ):
        rows.append(
            ComparisonRow(
                system=system,
                measure=measure,
                n=baseline_array.size,
                baseline_mean=float(baseline_array.mean()),
                system_mean=float(system_array.mean()),
                test=result,
                corrected_p_value=float(p_value),
                significant=bool(p_value <= alpha),
                interval=partial(
                    paired_bootstrap_ci,
                    baseline_array,
                    system_array,
                    level=1.0 - alpha,
                    n_resamples=n_resamples,
                    seed=seed,
                ),
                effect_size=paired_cohens_d(baseline_array, system_array),
                win_tie_loss=win_tie_loss(baseline_array, system_array),
                baseline=baseline,
            )
        )
    return Comparison(
        rows=tuple(rows),
        systems=systems,
        measures=measures,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
    )


def _check_same_measures(
    system: str, measures: tuple[str, ...], system_measures: Mapping[str, ArrayLike]
) -> None:
    missing = [measure for measure in measures if measure not in system_measures]
    if missing:
        raise InputError(
            f"system {system!r} has no scores for measure(s) {missing}; "
            f"expected the baseline's measures {list(measures)}"
        )
    extra = [measure for measure in system_measures if measure not in measures]
    if extra:
        raise InputError(
            f"system {system!r} has scores for measure(s) {extra} that the baseline lacks; "
            f"expected the baseline's measures {list(measures)}"
        )
