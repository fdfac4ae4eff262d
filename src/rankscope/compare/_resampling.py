"""Vectorized resampling in fixed blocks: sign flips and bootstrap means.

Samples are drawn block by block from one generator, each block a 2-D array of at most
``BLOCK_ROWS`` resamples (fewer when there are many queries, to bound memory). Every draw
(one ``random`` double per sign, one ``integers`` index per query) takes the same values from the
generator's stream whatever the block shape, so the result depends only on the data, the number
of resamples and the seed: not on the block size, the memory available or the number of threads.
No BLAS is involved (a matrix product could sum in a thread-dependent order).
"""

from __future__ import annotations

import numpy as np

from ._validation import FloatArray

BLOCK_ROWS = 10_000
"""Most resamples drawn at once."""

BLOCK_ELEMENTS = 1 << 22
"""Most random numbers held at once (32 MiB of float64): bounds memory for many queries."""

TIE_RTOL = 1e-9
"""Relative tolerance under which a resampled statistic counts as tied with the observed one."""


def block_rows(n: int) -> int:
    """Number of resamples per block for ``n`` queries."""
    return max(1, min(BLOCK_ROWS, BLOCK_ELEMENTS // max(n, 1)))


def sign_flip_means(
    differences: FloatArray,
    n_permutations: int,
    rng: np.random.Generator,
    rows_per_block: int | None = None,
) -> FloatArray:
    """Mean of ``differences`` under ``n_permutations`` random sign flips (each sign fair)."""
    n = differences.size
    rows = block_rows(n) if rows_per_block is None else rows_per_block
    means = np.empty(n_permutations, dtype=np.float64)
    for start in range(0, n_permutations, rows):
        stop = min(start + rows, n_permutations)
        flip = rng.random((stop - start, n)) < 0.5
        means[start:stop] = np.where(flip, -differences, differences).mean(axis=1)
    return means


def bootstrap_means(
    values: FloatArray,
    n_resamples: int,
    rng: np.random.Generator,
    rows_per_block: int | None = None,
) -> FloatArray:
    """Mean of ``n_resamples`` resamples of ``values`` drawn with replacement."""
    n = values.size
    rows = block_rows(n) if rows_per_block is None else rows_per_block
    means = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        indices = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[indices].mean(axis=1)
    return means


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
