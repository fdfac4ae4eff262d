"""Resampling: sign flips and bootstrap means, drawn by the native core.

Each round's draws are those NumPy makes from the same generator (one ``random`` double per
sign, one ``integers`` index per query, round after round), and each round's mean is NumPy's
``mean(axis=1)`` to the last bit, so the result depends only on the data, the number of
resamples and the seed: not on memory, blocks or the number of threads. The core's loop (see
`rankscope.engine.statistics`) makes no temporary arrays; NumPy's own version of the same
computation allocated and walked 16 bytes per query and round.
"""

from __future__ import annotations

import numpy as np

from ._validation import FloatArray

TIE_RTOL = 1e-9
"""Relative tolerance under which a resampled statistic counts as tied with the observed one."""


def sign_flip_means(
    differences: FloatArray, n_permutations: int, rng: np.random.Generator
) -> FloatArray:
    """Mean of ``differences`` under ``n_permutations`` random sign flips (each sign fair)."""
    from rankscope.engine.statistics import sign_flip_means as native

    return native(differences, n_permutations, rng)


def bootstrap_means(values: FloatArray, n_resamples: int, rng: np.random.Generator) -> FloatArray:
    """Mean of ``n_resamples`` resamples of ``values`` drawn with replacement."""
    from rankscope.engine.statistics import bootstrap_means as native

    return native(values, n_resamples, rng)


def tie_tolerance(differences: FloatArray) -> float:
    """Absolute tolerance for comparing mean differences, relative to their typical size.

    Resampled means equal to the observed one in exact arithmetic can differ from it in the
    last bits (the sums run in another order); they must still count as "at least as extreme".
    """
    return TIE_RTOL * float(np.abs(differences).mean())


def count_at_least_as_extreme(
    null_statistics: FloatArray, observed: float, tolerance: float
) -> int:
    """How many of ``null_statistics`` are at least as far from 0 as ``observed`` (two-sided)."""
    return int(np.count_nonzero(np.abs(null_statistics) >= abs(observed) - tolerance))
