"""Effect size of a paired comparison."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validation import as_paired


def paired_cohens_d(baseline: ArrayLike, system: ArrayLike) -> float:
    """Cohen's d for paired samples (often written d_z): mean difference over its spread.

    ``d = mean(diff) / std(diff, ddof=1)`` with ``diff = system - baseline``. It is positive when
    the system scores higher, and it is the paired t statistic divided by ``sqrt(n)``.

    When the differences do not vary (``std = 0``) the ratio is undefined; it is defined here as
    ``0.0`` when every difference is zero (the systems agree on every query) and as ``inf`` with
    the sign of the difference otherwise (every query moves by the same non-zero amount).

    Parameters
    ----------
    baseline, system
        Per-query scores, aligned by query; at least 2 queries.

    Returns
    -------
    float

    Raises
    ------
    InputError
        If the arrays differ in length, hold fewer than 2 scores, or hold NaN or infinity.

    References
    ----------
    Cohen (1988), Statistical Power Analysis for the Behavioral Sciences, 2nd ed., §2.3.5.
    Lakens (2013), "Calculating and reporting effect sizes", Frontiers in Psychology 4:863.

    Examples
    --------
    >>> round(paired_cohens_d([0.2, 0.4, 0.6, 0.5], [0.3, 0.6, 0.6, 0.7]), 6)
    1.305582
    >>> paired_cohens_d([0.1, 0.2], [0.1, 0.2])
    0.0
    >>> paired_cohens_d([0.5, 0.5], [0.0, 0.0])
    -inf
    """
    baseline_scores, system_scores = as_paired(baseline, system, minimum=2)
    differences = system_scores - baseline_scores
    if (differences == differences[0]).all():
        if differences[0] == 0.0:
            return 0.0
        return math.copysign(math.inf, differences[0])
    # The ratio does not depend on the scale; scaling to [-1, 1] keeps tiny differences from
    # underflowing to a zero standard deviation when squared.
    scaled = differences / float(np.abs(differences).max())
    return float(scaled.mean()) / float(scaled.std(ddof=1))
