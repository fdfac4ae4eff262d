"""Compare chosen pairs of systems (all pairs, several baselines, or a list) on several
measures, in one call: :func:`compare_pairs` -> :class:`Comparison` with one row per pair and
measure, and per measure the test of every pair behind them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from numpy.typing import ArrayLike

from rankscope.errors import InputError, OptionError

from ._anova import score_matrix
from ._compare import Comparison, ComparisonRow
from ._corrections import CORRECTION_NAMES, correct_pvalues
from ._effect import paired_cohens_d
from ._intervals import ConfidenceInterval, paired_bootstrap_ci
from ._multiple import MultipleComparison
from ._paired_tests import PAIRED_TEST_NAMES, TestResult, run_paired_test
from ._per_query import win_tie_loss
from ._tukey import paired_result, randomized_tukey_of_matrix, tukey_of_matrix
from ._validation import FloatArray, check_choice, check_count, check_fraction, make_rng

TUKEY_TEST_NAMES = ("tukey", "randomized-tukey")
"""The tests over all the systems at once, which adjust for every pair themselves."""

PAIR_TEST_NAMES = (*PAIRED_TEST_NAMES, *TUKEY_TEST_NAMES)
"""Names accepted by the ``test`` parameter of :func:`compare_pairs`."""


def default_correction(test: str, correction: str | None, function: str) -> str:
    """The correction a comparison with ``test`` runs with: ``"holm"`` for a paired test when
    none is given, ``"tukey"`` (the test's own) for the Tukey tests.

    Raises
    ------
    OptionError
        If a Tukey test is given another correction, or the correction is not a known name.
    """
    if test in TUKEY_TEST_NAMES:
        if correction not in (None, "tukey"):
            raise OptionError(
                f"The 'correction' parameter of {function} must be left unset with "
                f"test={test!r}: the test adjusts its p-values for every pair itself. Got "
                f"{correction!r} instead."
            )
        return "tukey"
    if correction is None:
        return "holm"
    return check_choice(correction, "correction", function, CORRECTION_NAMES)


def compare_pairs(
    scores: Mapping[str, Mapping[str, ArrayLike]],
    pairs: Sequence[tuple[str, str]],
    *,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    baselines: Sequence[str] = (),
) -> Comparison:
    """Compare each pair ``(first, second)`` on each measure: ``second`` against ``first``.

    - With a paired test (``"t"``, ``"wilcoxon"``, ``"randomization"``, ``"bootstrap"``)
      every pair is tested as :func:`compare` tests a system against the baseline, and the
      p-values of all ``pairs x measures`` tests form one family that ``correction`` (default
      ``"holm"``) adjusts; each row has the BCa interval, Cohen's d and the wins.
    - With ``"tukey"`` (:func:`tukey_hsd`, topics as blocks) or ``"randomized-tukey"``
      (:func:`randomized_tukey_hsd`), each measure is tested over *all* the systems of
      ``scores`` at once, and each pair's row takes that test's p-value (already adjusted for
      every pair of the measure), its simultaneous interval and its effect size in units of the
      ANOVA's residual standard deviation. ``correction`` must then be left unset.

    Per measure, :attr:`Comparison.analyses` holds the test of the pairs as a
    :class:`MultipleComparison`: the ANOVA, the pairwise matrix and, when every pair was
    compared, the compact letter display. Every resampling starts afresh from ``seed``.

    Parameters
    ----------
    scores
        System -> measure -> per-query scores, aligned by query; every system must have the
        same measures, at least 2 systems.
    pairs
        ``(first, second)`` pairs of systems of ``scores``, each pair once.
    test
        One of :data:`PAIR_TEST_NAMES`.
    correction
        For the paired tests: ``"holm"`` (default), ``"bonferroni"``, ``"bh"``, ``"none"``.
    alpha
        Significance level, strictly between 0 and 1; the intervals are at ``1 - alpha``.
    seed
        Seed of :func:`numpy.random.default_rng`; None draws fresh entropy (not reproducible).
    n_resamples
        Permutations or bootstrap resamples, for the test and for the paired tests' intervals.
    baselines
        The systems the pairs were chosen against, if any (recorded in the result).

    Returns
    -------
    Comparison
        One row per pair and measure (pairs in the given order, measures within each pair).

    Raises
    ------
    InputError
        If there are fewer than 2 systems, the systems' measures differ, a pair names a system
        that is not there, names one system twice or repeats, or the scores are not aligned
        finite arrays of at least 2 queries.
    OptionError
        If an option is not valid.
    MissingDependencyError
        If scipy is not installed (Tukey tests and the Wilcoxon test).

    Examples
    --------
    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> scores = {name: {"AP": values} for name, values in TABLE_5_1.items()}
    >>> result = compare_pairs(scores, [("A", "B"), ("A", "C"), ("B", "C")], test="tukey")
    >>> [(r.baseline, r.system, round(r.corrected_p_value, 3)) for r in result.rows]
    [('A', 'B', 0.257), ('A', 'C', 0.096), ('B', 'C', 0.855)]
    >>> result.correction, result.analyses["AP"].letters
    ('tukey', {'A': 'a', 'B': 'a', 'C': 'a'})
    """
    function = "compare_pairs"
    check_choice(test, "test", function, PAIR_TEST_NAMES)
    correction = default_correction(test, correction, function)
    alpha = check_fraction(alpha, "alpha", function)
    n_resamples = check_count(n_resamples, "n_resamples", function)
    make_rng(seed, function)  # validates the seed before any work
    systems, measures = _systems_and_measures(scores)
    _check_pairs(pairs, systems)
    matrices = {
        measure: score_matrix(
            {system: scores[system][measure] for system in systems}, minimum_topics=2
        )[1]
        for measure in measures
    }
    index = {system: i for i, system in enumerate(systems)}
    if test in TUKEY_TEST_NAMES:
        analyses = {}
        for measure in measures:
            matrix = matrices[measure]
            if test == "tukey":
                analyses[measure] = tukey_of_matrix(systems, matrix, "two-way", alpha)
            else:
                rng = make_rng(seed, function)
                analyses[measure] = randomized_tukey_of_matrix(
                    systems, matrix, n_resamples, rng, seed, alpha
                )
        rows = [
            _tukey_row(analyses[measure], matrices[measure], first, second, index, measure)
            for first, second in pairs
            for measure in measures
        ]
    else:
        tested = [
            (first, second, measure, *_paired(matrices[measure], index, first, second))
            for first, second in pairs
            for measure in measures
        ]
        results = [
            run_paired_test(test, base, other, n_resamples, seed) for _, _, _, base, other in tested
        ]
        corrected = correct_pvalues([result.p_value for result in results], correction)
        rows = [
            _paired_row(first, second, measure, base, other, result, float(p), alpha, seed,
                        n_resamples)
            for (first, second, measure, base, other), result, p in zip(
                tested, results, corrected, strict=True
            )
        ]  # fmt: skip
        analyses = {
            measure: _paired_analysis(
                test, correction, systems, matrices[measure], rows, measure, index, alpha,
                n_resamples, seed,
            )
            for measure in measures
        }  # fmt: skip
    return Comparison(
        rows=tuple(rows),
        systems=systems,
        measures=measures,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
        analyses=analyses,
        baselines=tuple(baselines),
    )


def _systems_and_measures(
    scores: Mapping[str, Mapping[str, ArrayLike]],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    systems = tuple(scores)
    if len(systems) < 2:
        raise InputError(f"scores: expected at least 2 systems to compare, got {len(systems)}")
    measures: tuple[str, ...] = ()
    for position, system in enumerate(systems):
        held = scores[system]
        if not isinstance(held, Mapping):
            raise InputError(
                f"scores[{system!r}]: expected a mapping of measure name -> scores, got "
                f"{type(held).__name__}"
            )
        if position == 0:
            measures = tuple(held)
            if not measures:
                raise InputError(f"system {system!r} has no measure; expected at least one")
        elif tuple(held) != measures and set(held) != set(measures):
            raise InputError(
                f"system {system!r} has measures {list(held)}; expected those of "
                f"{systems[0]!r}, {list(measures)}"
            )
    return systems, measures


def _check_pairs(pairs: Sequence[tuple[str, str]], systems: tuple[str, ...]) -> None:
    if not pairs:
        raise InputError("pairs: expected at least one pair of systems to compare, got none")
    seen: set[frozenset[str]] = set()
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InputError(f"pairs: expected (first, second) pairs of names, got {pair!r}")
        first, second = pair
        for name in (first, second):
            if name not in systems:
                raise InputError(f"pair {pair!r} names {name!r}, not a system; systems: "
                                 f"{list(systems)}")  # fmt: skip
        if first == second:
            raise InputError(f"pair {pair!r} compares {first!r} with itself")
        key = frozenset((first, second))
        if key in seen:
            raise InputError(f"pair {pair!r} is given twice (in either order)")
        seen.add(key)


def _paired(
    matrix: FloatArray, index: Mapping[str, int], first: str, second: str
) -> tuple[FloatArray, FloatArray]:
    return matrix[:, index[first]].copy(), matrix[:, index[second]].copy()


def _paired_row(
    first: str,
    second: str,
    measure: str,
    base: FloatArray,
    other: FloatArray,
    result: TestResult,
    corrected: float,
    alpha: float,
    seed: int | None,
    n_resamples: int,
) -> ComparisonRow:
    return ComparisonRow(
        system=second,
        measure=measure,
        n=base.size,
        baseline_mean=float(base.mean()),
        system_mean=float(other.mean()),
        test=result,
        corrected_p_value=corrected,
        significant=bool(corrected <= alpha),
        interval=partial(
            paired_bootstrap_ci, base, other, level=1.0 - alpha, n_resamples=n_resamples, seed=seed
        ),
        effect_size=paired_cohens_d(base, other),
        win_tie_loss=win_tie_loss(base, other),
        baseline=first,
    )


def _tukey_row(
    analysis: MultipleComparison,
    matrix: FloatArray,
    first: str,
    second: str,
    index: Mapping[str, int],
    measure: str,
) -> ComparisonRow:
    pair = analysis.pair(first, second)
    base, other = _paired(matrix, index, first, second)
    level = 1.0 - analysis.alpha
    return ComparisonRow(
        system=second,
        measure=measure,
        n=base.size,
        baseline_mean=float(base.mean()),
        system_mean=float(other.mean()),
        test=TestResult(
            statistic=pair.statistic,
            p_value=pair.p_value,
            n=base.size,
            method=analysis.method,
            mean_difference=pair.mean_difference,
            n_resamples=analysis.n_resamples,
        ),
        corrected_p_value=pair.adjusted_p_value,
        significant=pair.significant,
        interval=partial(
            ConfidenceInterval,
            pair.ci_low,
            pair.ci_high,
            level,
            analysis.method,
            pair.mean_difference,
        ),
        effect_size=pair.effect_size,
        win_tie_loss=win_tie_loss(base, other),
        baseline=first,
    )


def _paired_analysis(
    test: str,
    correction: str,
    systems: tuple[str, ...],
    matrix: FloatArray,
    rows: Sequence[ComparisonRow],
    measure: str,
    index: Mapping[str, int],
    alpha: float,
    n_resamples: int,
    seed: int | None,
) -> MultipleComparison:
    tested = []
    for row in rows:
        if row.measure != measure:
            continue
        i, j = index[row.baseline], index[row.system]
        result, adjusted = row.test, row.corrected_p_value
        low, high = row.difference_ci.low, row.difference_ci.high
        if i > j:  # the analysis keeps input order: the pair seen from the other side
            i, j = j, i
            low, high = -high, -low
            result = TestResult(
                -result.statistic if test != "wilcoxon" else result.statistic,
                result.p_value,
                result.n,
                result.method,
                -result.mean_difference,
                result.n_resamples,
            )
        tested.append((i, j, result, adjusted, low, high))
    return paired_result(test, correction, systems, matrix, tested, alpha, n_resamples, seed)


PAIR_DESIGNS = ("baseline", "all")
"""The named choices of pairs: each run against the baseline(s), or every pair."""


def choose_pairs(
    names: Sequence[str],
    pairs: str | Sequence[tuple[str, str]],
    baselines: Sequence[str] | None,
) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """The pairs to compare among the runs ``names`` (the first is the default baseline), and
    the baselines they were chosen against.

    ``pairs="baseline"``: every other run against each of ``baselines`` (default: the first
    run), a pair of two baselines once; ``pairs="all"``: every pair, in the runs' order; or the
    given ``(first, second)`` pairs.

    Raises
    ------
    InputError
        If a baseline or a pair names no run, or a baseline is repeated.
    OptionError
        If ``pairs`` is another string, or ``baselines`` is given with ``pairs`` other than
        ``"baseline"``.

    Examples
    --------
    >>> choose_pairs(["a", "b", "c"], "baseline", ["a", "b"])
    ([('a', 'b'), ('a', 'c'), ('b', 'c')], ('a', 'b'))
    >>> choose_pairs(["a", "b", "c"], "all", None)
    ([('a', 'b'), ('a', 'c'), ('b', 'c')], ())
    """
    if isinstance(pairs, str):
        if pairs not in PAIR_DESIGNS:
            raise OptionError(
                f"pairs must be 'baseline', 'all' or a list of (first, second) pairs of run "
                f"names; got {pairs!r}"
            )
        if pairs == "all":
            if baselines:
                raise OptionError("baselines apply to pairs='baseline'; pairs='all' has none")
            return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]], ()
        chosen = list(baselines) if baselines else [names[0]]
        for baseline in chosen:
            if baseline not in names:
                raise InputError(f"no run named {baseline!r} to be a baseline; runs: {list(names)}")
        if len(set(chosen)) != len(chosen):
            raise InputError(f"baselines: each run once, got {chosen}")
        result: list[tuple[str, str]] = []
        seen: set[frozenset[str]] = set()
        for baseline in chosen:
            for name in names:
                key = frozenset((baseline, name))
                if name != baseline and key not in seen:
                    seen.add(key)
                    result.append((baseline, name))
        return result, tuple(chosen)
    if baselines:
        raise OptionError("baselines apply to pairs='baseline', not to a list of pairs")
    listed = list(pairs)
    _check_pairs(listed, tuple(names))
    return [(first, second) for first, second in listed], ()
