"""Per-query views of a comparison: wins, ties and losses; the queries that moved most."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankscope.errors import InputError

from ._validation import FloatArray, as_paired, check_count, check_tolerance


@dataclass(frozen=True)
class WinTieLoss:
    """How many queries the system scores higher on, the same on, and lower on than the baseline."""

    wins: int
    ties: int
    losses: int


@dataclass(frozen=True)
class QueryDifference:
    """One query and its difference ``system - baseline``."""

    query_id: str
    difference: float


def win_tie_loss(baseline: ArrayLike, system: ArrayLike, tolerance: float = 1e-12) -> WinTieLoss:
    """Count the queries the system wins, ties and loses against the baseline.

    A query is a win when ``system - baseline > tolerance``, a loss when it is
    ``< -tolerance`` and a tie otherwise; the default tolerance absorbs floating-point noise
    from scores computed along different paths.

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query.
    tolerance
        Largest absolute difference still counted as a tie, >= 0.

    Returns
    -------
    WinTieLoss
        ``wins + ties + losses`` is the number of queries.

    Raises
    ------
    InputError
        If the arrays differ in length, are empty, or hold NaN or infinity.
    ValueError
        If ``tolerance`` is negative or not finite.

    Examples
    --------
    >>> win_tie_loss([0.1, 0.5, 0.3, 0.3], [0.2, 0.4, 0.1 + 0.2, 0.9])
    WinTieLoss(wins=2, ties=1, losses=1)
    """
    tolerance = check_tolerance(tolerance, "win_tie_loss")
    baseline_scores, system_scores = as_paired(baseline, system)
    differences = system_scores - baseline_scores
    wins = int(np.count_nonzero(differences > tolerance))
    losses = int(np.count_nonzero(differences < -tolerance))
    return WinTieLoss(wins, differences.size - wins - losses, losses)


def largest_differences(
    query_ids: Sequence[str] | NDArray[np.str_],
    baseline: ArrayLike,
    system: ArrayLike,
    n: int = 5,
    *,
    tolerance: float = 1e-12,
) -> tuple[tuple[QueryDifference, ...], tuple[QueryDifference, ...]]:
    """The queries with the largest gains and the largest losses of the system.

    Gains are the queries with ``system - baseline > tolerance``, largest first; losses are those
    with ``system - baseline < -tolerance``, most negative first. Differences that round to the
    same multiple of ``tolerance`` (equal but for floating-point noise, like ``0.7 - 0.5`` and
    ``0.4 - 0.2``) are ties, ordered by query id (ascending, by code point), so the order never
    depends on the input order.

    Parameters
    ----------
    query_ids
        One distinct id per query, aligned with the scores.
    baseline, system
        Per-query scores, aligned by query.
    n
        Most queries returned on each side, >= 0.
    tolerance
        Largest absolute difference counted as no change, >= 0 (as in :func:`win_tie_loss`).

    Returns
    -------
    tuple of (gains, losses)
        Two tuples of :class:`QueryDifference`, each of at most ``n`` entries.

    Raises
    ------
    InputError
        If the ids and arrays differ in length, an id is repeated or not a string, or the scores
        are empty or hold NaN or infinity.
    ValueError
        If ``n`` is negative or ``tolerance`` is not valid.

    Examples
    --------
    >>> gains, losses = largest_differences(
    ...     ["q1", "q2", "q3", "q4", "q5"],
    ...     [0.5, 0.2, 0.3, 0.6, 0.4],
    ...     [0.7, 0.4, 0.3, 0.1, 0.5],
    ...     n=2,
    ... )
    >>> [(gain.query_id, round(gain.difference, 6)) for gain in gains]
    [('q1', 0.2), ('q2', 0.2)]
    >>> [(loss.query_id, round(loss.difference, 6)) for loss in losses]
    [('q4', -0.5)]
    """
    function = "largest_differences"
    n = check_count(n, "n", function, minimum=0)
    tolerance = check_tolerance(tolerance, function)
    baseline_scores, system_scores = as_paired(baseline, system)
    ids = _as_query_ids(query_ids, baseline_scores.size)
    differences = system_scores - baseline_scores
    gains = np.flatnonzero(differences > tolerance)
    losses = np.flatnonzero(differences < -tolerance)
    # Rounded to the tolerance so that floating-point noise cannot reorder equal differences.
    sort_key = np.rint(differences / tolerance) if tolerance > 0 else differences
    # np.lexsort sorts by its last key first: the difference, then the query id.
    gain_order = gains[np.lexsort((ids[gains], -sort_key[gains]))][:n]
    loss_order = losses[np.lexsort((ids[losses], sort_key[losses]))][:n]
    return _entries(ids, differences, gain_order), _entries(ids, differences, loss_order)


def _as_query_ids(query_ids: Sequence[str] | NDArray[np.str_], n: int) -> NDArray[np.str_]:
    items = list(query_ids)
    if len(items) != n:
        raise InputError(f"query_ids: expected one id per score ({n}), got {len(items)}")
    for position, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(
                f"query_ids: expected string ids, got {type(item).__name__} {item!r} "
                f"at position {position}"
            )
    ids = np.asarray(items, dtype=np.str_)
    unique, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        repeated = str(unique[np.flatnonzero(counts > 1)[0]])
        raise InputError(f"query_ids: expected distinct ids, got {repeated!r} more than once")
    return ids


def _entries(
    ids: NDArray[np.str_], differences: FloatArray, positions: NDArray[np.intp]
) -> tuple[QueryDifference, ...]:
    return tuple(
        QueryDifference(str(ids[position]), float(differences[position])) for position in positions
    )
