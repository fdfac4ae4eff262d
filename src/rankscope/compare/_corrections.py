"""Adjusted p-values for testing many hypotheses at once."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rankscope.errors import InputError

from ._validation import FloatArray, check_choice

CORRECTION_NAMES = ("holm", "bonferroni", "bh", "none")


def correct_pvalues(pvalues: ArrayLike, method: str = "holm") -> FloatArray:
    """Adjust p-values for multiple comparisons.

    With ``m`` p-values, sorted ascending as ``p(1) <= ... <= p(m)``:

    - ``"bonferroni"``: ``min(1, m p_i)``. Controls the family-wise error rate (FWER).
    - ``"holm"``: Holm's step-down procedure, ``p~(i) = max_{j <= i} min(1, (m - j + 1) p(j))``.
      Controls the FWER, never less powerful than Bonferroni.
    - ``"bh"``: Benjamini-Hochberg step-up procedure,
      ``p~(i) = min_{j >= i} min(1, m p(j) / j)``. Controls the false discovery rate.
    - ``"none"``: the p-values unchanged.

    A hypothesis is rejected at level ``alpha`` when its adjusted p-value is ``<= alpha``. Each
    adjusted p-value is at least the raw one, at most 1, and the adjusted values keep the order
    of the raw ones. Equal p-values get equal adjusted values.

    Parameters
    ----------
    pvalues
        1-D array of p-values in [0, 1]; may be empty.
    method
        ``"holm"``, ``"bonferroni"``, ``"bh"`` or ``"none"``.

    Returns
    -------
    numpy.ndarray
        A new float64 array of adjusted p-values, in the order of ``pvalues``.

    Raises
    ------
    InputError
        If ``pvalues`` is not 1-D or holds values outside [0, 1] or NaN.
    ValueError
        If ``method`` is not one of the names above.

    References
    ----------
    Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J. Statist.
    6(2). Benjamini and Hochberg (1995), "Controlling the false discovery rate", JRSS B 57(1).

    Examples
    --------
    >>> p = [0.01, 0.04, 0.03, 0.005]
    >>> correct_pvalues(p, "holm").round(6).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> correct_pvalues(p, "bonferroni").round(6).tolist()
    [0.04, 0.16, 0.12, 0.02]
    >>> correct_pvalues(p, "bh").round(6).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    check_choice(method, "method", "correct_pvalues", CORRECTION_NAMES)
    raw = np.asarray(pvalues)
    if raw.dtype.kind not in "biuf":
        raise InputError(f"pvalues: expected numeric p-values, got an array of dtype {raw.dtype}")
    values = np.array(raw, dtype=np.float64)  # a copy: the result never aliases the input
    if values.ndim != 1:
        raise InputError(f"pvalues: expected a 1-D array of p-values, got shape {values.shape}")
    outside = ~((values >= 0.0) & (values <= 1.0))  # NaN is outside too
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise InputError(
            f"pvalues: expected p-values in [0, 1], got {int(outside.sum())} outside, "
            f"the first at position {first} ({values[first]})"
        )
    m = values.size
    if method == "none" or m == 0:
        return values
    if method == "bonferroni":
        return np.minimum(values * m, 1.0)
    order = np.argsort(values, kind="stable")
    ascending = values[order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if method == "holm":
        adjusted = np.maximum.accumulate((m - rank + 1.0) * ascending)
    else:
        # m / rank >= 1 exactly, so that rounding can never push a value below the raw one.
        adjusted = np.minimum.accumulate((ascending * (m / rank))[::-1])[::-1]
    result = np.empty(m, dtype=np.float64)
    result[order] = np.minimum(adjusted, 1.0)
    return result
