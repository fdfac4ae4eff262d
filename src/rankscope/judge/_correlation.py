"""Rank correlations written here: AP correlation (τ_AP) and rank-biased overlap (RBO).

Kendall's τ and Spearman's ρ come from scipy; these two have no well-kept implementation to
reuse, and are small enough to be exact and checked by hand.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from rankscope.errors import OptionError

__all__ = ["agreements", "rbo", "tau_ap"]


def _has_ties(values: Sequence[float]) -> bool:
    return len(set(values)) < len(values)


def tau_ap(reference: Sequence[float], estimate: Sequence[float]) -> float:
    """AP correlation of the ranking by ``estimate`` with the ranking by ``reference``.

    Both give one score per item (higher ranks first); the items are ranked by ``estimate``,
    and each is scored by how many of the items above it ``reference`` also puts above it:

    .. math::

        \\tau_{AP} = \\frac{2}{N-1} \\sum_{i=2}^{N} \\frac{C(i)}{i-1} - 1

    where C(i) counts the items above rank i that ``reference`` ranks above the item at rank i.
    Like Kendall's τ it lies in [-1, 1], but a swap near the top costs more than one near the
    bottom; unlike it, it is not symmetric: ``reference`` plays the truth.

    Yilmaz, Aslam and Robertson, "A new rank correlation coefficient for information
    retrieval", SIGIR 2008. The coefficient is defined for rankings without ties: with a tie
    in either score list the result is NaN.

    Examples
    --------
    >>> truth = [5, 4, 3, 2, 1]  # items a to e, a the best
    >>> tau_ap(truth, [4, 5, 3, 2, 1])  # the two best swapped
    0.5
    >>> tau_ap(truth, [5, 4, 3, 1, 2])  # the two worst swapped: Kendall's tau is 0.8 for both
    0.875
    """
    if len(reference) != len(estimate):
        raise OptionError(
            f"tau_ap needs one score per item in each list; got {len(reference)} and "
            f"{len(estimate)}"
        )
    count = len(estimate)
    if count < 2:
        raise OptionError(f"tau_ap needs at least two items; got {count}")
    if _has_ties(reference) or _has_ties(estimate):
        return math.nan
    order = sorted(range(count), key=lambda item: -estimate[item])
    total = 0.0
    for position in range(1, count):
        item = order[position]
        above = sum(1 for other in order[:position] if reference[other] > reference[item])
        total += above / position
    return 2.0 * total / (count - 1) - 1.0


def agreements(first: Sequence[Hashable], second: Sequence[Hashable]) -> list[float]:
    """The agreement of two rankings at each depth d: the share of their first d items they
    have in common, A_d = |S[:d] ∩ T[:d]| / d (Webber et al. 2010, section 4).

    Examples
    --------
    The example of Webber et al.'s figure 5 (its average, 0.312, is their average overlap):

    >>> [round(a, 3) for a in agreements("abcdefg", "zcavwxy")]
    [0.0, 0.0, 0.667, 0.5, 0.4, 0.333, 0.286]
    """
    seen_first: set[Hashable] = set()
    seen_second: set[Hashable] = set()
    overlap = 0
    shares = []
    for depth, (left, right) in enumerate(zip(first, second, strict=False), start=1):
        if left == right:
            overlap += 1
        else:
            overlap += (left in seen_second) + (right in seen_first)
        seen_first.add(left)
        seen_second.add(right)
        shares.append(overlap / depth)
    return shares


def rbo(first: Sequence[Hashable], second: Sequence[Hashable], p: float = 0.9) -> float:
    """Rank-biased overlap of two rankings of the same length, extrapolated from their full
    length k (RBO_ext, equation 32 of Webber et al.):

    .. math::

        RBO_{ext} = \\frac{X_k}{k} p^k + \\frac{1-p}{p} \\sum_{d=1}^{k} \\frac{X_d}{d} p^d

    where X_d is the number of items the first d of each ranking have in common. 1 for
    identical rankings, 0 for disjoint ones; ``p`` (the persistence) sets how top-weighted it
    is: at p = 0.9 the first 10 ranks carry 86 % of the weight.

    Webber, Moffat and Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4),
    2010.

    Examples
    --------
    >>> rbo(["a", "b", "c"], ["a", "b", "c"])
    1.0
    >>> rbo(["a", "b", "c"], ["b", "a", "c"], p=0.5)  # (0 + 1/4 + 1/8) + 1/8
    0.5
    """
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 < p < 1.0:
        raise OptionError(f"p must lie strictly between 0 and 1; got {p!r}")
    if len(first) != len(second):
        raise OptionError(
            f"rbo compares rankings of the same length; got {len(first)} and {len(second)}"
        )
    for ranking in (first, second):
        if len(set(ranking)) != len(ranking):
            raise OptionError("rbo needs rankings without repeated items")
    if not first:
        raise OptionError("rbo needs at least one item in each ranking")
    shares = agreements(first, second)
    depth = len(shares)
    weighted = sum(share * p**d for d, share in enumerate(shares, start=1))
    return shares[-1] * p**depth + (1.0 - p) / p * weighted
