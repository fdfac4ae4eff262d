"""Analysis of variance of per-topic scores of many systems: one-way, and two-way without
replication (systems x topics, one score per cell), as in Sakai (2018), chapter 5.

Scores come as a mapping ``system name -> per-topic scores``, every array aligned by topic;
:func:`score_matrix` checks them once for every test over many systems.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rankscope.errors import InputError

from ._validation import FloatArray, as_scores, check_choice, check_fraction, import_scipy_stats

RESIDUAL_RTOL = 1e-12
"""Residuals whose root sum of squares is below this share of the total's count as none."""

ANOVA_DESIGNS = ("two-way", "one-way")
"""``"two-way"``: systems and topics (without replication); ``"one-way"``: systems only."""


def score_matrix(
    scores: Mapping[str, ArrayLike], *, minimum_topics: int = 2
) -> tuple[tuple[str, ...], FloatArray]:
    """The systems' names and their scores as a topics x systems matrix (one column a system).

    Raises
    ------
    InputError
        If there are fewer than 2 systems, an array is not 1-D, finite and numeric, the arrays
        differ in length (the message names both systems and lengths), or there are fewer than
        ``minimum_topics`` topics.
    """
    if not isinstance(scores, Mapping):
        raise InputError(
            f"scores: expected a mapping of system name -> per-topic scores, got "
            f"{type(scores).__name__}"
        )
    systems = tuple(scores)
    if len(systems) < 2:
        raise InputError(f"scores: expected at least 2 systems to compare, got {len(systems)}")
    columns = [as_scores(scores[system], f"system {system!r}") for system in systems]
    first = columns[0].size
    for system, column in zip(systems, columns, strict=True):
        if column.size != first:
            raise InputError(
                f"system {system!r} has {column.size} scores but {systems[0]!r} has {first}; "
                "expected one score per topic in every system, aligned by topic"
            )
    if first < minimum_topics:
        raise InputError(f"expected at least {minimum_topics} topics, got {first}")
    return systems, np.column_stack(columns)


@dataclass(frozen=True)
class AnovaRow:
    """One source of variation of an ANOVA table.

    Attributes
    ----------
    source
        ``"system"``, ``"topic"`` (two-way only), ``"residual"`` or ``"total"``.
    sum_of_squares, df
        The variation and its degrees of freedom.
    mean_square
        ``sum_of_squares / df`` (None for the total).
    f, p_value
        The F statistic ``mean_square / residual mean square`` and its p-value (None for the
        residual and the total).
    """

    source: str
    sum_of_squares: float
    df: int
    mean_square: float | None
    f: float | None
    p_value: float | None


@dataclass(frozen=True)
class AnovaTable:
    """An analysis of variance of per-topic scores.

    Attributes
    ----------
    design
        ``"two-way"`` (systems x topics without replication) or ``"one-way"`` (systems).
    rows
        The sources: system, topic (two-way), residual, total.
    systems
        The systems, in input order.
    means
        Each system's mean score, in that order.
    n_topics
        Topics per system.
    """

    design: str
    rows: tuple[AnovaRow, ...]
    systems: tuple[str, ...]
    means: tuple[float, ...]
    n_topics: int

    def row(self, source: str) -> AnovaRow:
        """The row of ``source`` (``"system"``, ``"topic"``, ``"residual"``, ``"total"``).

        Raises
        ------
        KeyError
            If the table has no such row.
        """
        for row in self.rows:
            if row.source == source:
                return row
        raise KeyError(f"no row {source!r}; rows: {[row.source for row in self.rows]}")

    @property
    def residual_variance(self) -> float:
        """The residual mean square ``V_E``: the error variance the tests over many systems use."""
        return float(self.row("residual").mean_square or 0.0)

    @property
    def residual_df(self) -> int:
        """The residual degrees of freedom ``phi_E``."""
        return self.row("residual").df

    def margin_of_error(self, level: float = 0.95) -> float:
        """Half the width of each system mean's confidence interval at ``level``:
        ``t(phi_E; 1 - level) sqrt(V_E / n)`` (Sakai 2018, §5.2), ``t`` the two-sided quantile.

        Raises
        ------
        ValueError
            If ``level`` is not strictly between 0 and 1.
        MissingDependencyError
            If scipy is not installed.
        """
        level = check_fraction(level, "level", "AnovaTable.margin_of_error")
        stats = import_scipy_stats("the margin of error")
        quantile = float(stats.t.ppf(1.0 - (1.0 - level) / 2.0, self.residual_df))
        return quantile * math.sqrt(self.residual_variance / self.n_topics)


def anova(scores: Mapping[str, ArrayLike], *, design: str = "two-way") -> AnovaTable:
    """Analysis of variance of the systems' per-topic scores.

    With ``m`` systems, ``n`` topics, scores ``x_ij`` (system ``i``, topic ``j``), system means
    ``x_i.``, topic means ``x_.j`` and grand mean ``x..``:

    - system: ``S_A = n sum_i (x_i. - x..)^2`` with ``m - 1`` degrees of freedom;
    - topic (two-way only): ``S_B = m sum_j (x_.j - x..)^2`` with ``n - 1``;
    - residual: two-way, ``S_E = sum_ij (x_ij - x_i. - x_.j + x..)^2`` with ``(m - 1)(n - 1)``;
      one-way, ``S_E = sum_ij (x_ij - x_i.)^2`` with ``m (n - 1)``;
    - total: ``sum_ij (x_ij - x..)^2`` with ``mn - 1``.

    Each mean square is ``S / df``; ``F = V / V_E`` is tested against the F distribution with
    the row's and the residual's degrees of freedom. The residuals are summed directly (not
    as the total less the effects), so ``S_E`` is never negative; it counts as 0 below
    ``1e-24`` of the total (the rounding noise of additive scores). When ``V_E = 0`` an effect
    with variation has ``F = inf, p = 0``; one without has ``F = NaN, p = 1``.

    The two-way design blocks on topics: topics differ far more than systems do, and removing
    that variation from the error is what makes the design sensitive. It is the same model as
    ``statsmodels``' ``anova_lm`` of ``score ~ C(system) + C(topic)``.

    Parameters
    ----------
    scores
        System name -> per-topic scores, aligned by topic; at least 2 systems and 2 topics.
    design
        ``"two-way"`` or ``"one-way"``.

    Returns
    -------
    AnovaTable

    Raises
    ------
    InputError
        If the scores are not as :func:`score_matrix` expects.
    ValueError
        If ``design`` is not one of the two names.
    MissingDependencyError
        If scipy is not installed.

    References
    ----------
    Sakai (2018), Laboratory Experiments in Information Retrieval, §5.2 and §5.3.

    Examples
    --------
    Sakai's Table 5.1: three systems on twenty topics.

    >>> from rankscope.compare._sakai import TABLE_5_1
    >>> table = anova(TABLE_5_1)
    >>> [(row.source, round(row.sum_of_squares, 4), row.df) for row in table.rows]
    [('system', 0.1083, 2), ('topic', 1.0293, 19), ('residual', 0.8317, 38), ('total', 1.9693, 59)]
    >>> system = table.row("system")
    >>> round(system.f, 3), round(system.p_value, 3), round(table.row("topic").p_value, 3)
    (2.475, 0.098, 0.009)
    >>> round(table.residual_variance, 4), round(table.margin_of_error(), 4)
    (0.0219, 0.067)
    """
    check_choice(design, "design", "anova", ANOVA_DESIGNS)
    systems, matrix = score_matrix(scores)
    return anova_of_matrix(systems, matrix, design)


def anova_of_matrix(systems: tuple[str, ...], matrix: FloatArray, design: str) -> AnovaTable:
    """:func:`anova` of a checked topics x systems matrix."""
    stats = import_scipy_stats("the analysis of variance")
    n, m = matrix.shape
    grand = float(matrix.mean())
    system_means = matrix.mean(axis=0)
    topic_means = matrix.mean(axis=1)
    total = float(((matrix - grand) ** 2).sum())
    between_systems = float(n * ((system_means - grand) ** 2).sum())
    effects = [("system", between_systems, m - 1)]
    if design == "two-way":
        between_topics = float(m * ((topic_means - grand) ** 2).sum())
        effects.append(("topic", between_topics, n - 1))
        residuals = matrix - system_means[np.newaxis, :] - topic_means[:, np.newaxis] + grand
        residual_df = (m - 1) * (n - 1)
    else:
        residuals = matrix - system_means[np.newaxis, :]
        residual_df = m * (n - 1)
    residual = float((residuals**2).sum())
    if residual <= RESIDUAL_RTOL**2 * total:
        residual = 0.0  # rounding noise of residuals that are zero in exact arithmetic
    residual_square = residual / residual_df
    rows = []
    for source, variation, df in effects:
        mean_square = variation / df
        f, p_value = _f_test(mean_square, residual_square, df, residual_df, stats)
        rows.append(AnovaRow(source, variation, df, mean_square, f, p_value))
    rows.append(AnovaRow("residual", residual, residual_df, residual_square, None, None))
    rows.append(AnovaRow("total", total, n * m - 1, None, None, None))
    return AnovaTable(
        design=design,
        rows=tuple(rows),
        systems=systems,
        means=tuple(float(mean) for mean in system_means),
        n_topics=n,
    )


def _f_test(
    mean_square: float, residual_square: float, df: int, residual_df: int, stats: object
) -> tuple[float, float]:
    if residual_square > 0.0:
        f = mean_square / residual_square
        return f, float(stats.f.sf(f, df, residual_df))  # type: ignore[attr-defined]
    if mean_square > 0.0:
        return math.inf, 0.0
    return math.nan, 1.0
