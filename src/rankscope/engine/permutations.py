"""The permutation loop of the randomized Tukey HSD test, run in the native core.

`rankscope.compare.randomized_tukey_hsd` hands its topics x systems score matrix and its
generator here; the core permutes every topic's scores across the systems in each round, with
NumPy's own PCG64 stream taken up where ``rng`` stands, and returns the range of the systems'
means per round. Rounds run in parallel, each from its own stretch of the stream, so the result
does not depend on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rankscope import _core

__all__ = ["permuted_ranges"]


def permuted_ranges(
    scores: NDArray[np.float64], rounds: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The range ``max_i mean_i - min_i mean_i`` of the systems' means in each of ``rounds``
    rounds that shuffle every topic's row of ``scores`` (topics x systems).

    Each row is shuffled by Fisher-Yates, the last position first, with one
    ``rng.random()`` double per position; ``rng`` itself is left where it was.

    Raises
    ------
    ValueError
        If ``rng`` is not driven by NumPy's PCG64 (what ``numpy.random.default_rng`` makes), or
        ``scores`` has fewer than 2 columns or no row.

    Examples
    --------
    >>> scores = np.array([[0.2, 0.4], [0.6, 0.6], [0.1, 0.5]])
    >>> ranges = permuted_ranges(scores, 4, np.random.default_rng(0))
    >>> ranges.shape, bool(((ranges >= 0) & (ranges <= 0.6 / 3 + 1e-12)).all())
    ((4,), True)
    """
    generator = rng.bit_generator
    if not isinstance(generator, np.random.PCG64):
        raise ValueError(
            f"expected a generator driven by numpy.random.PCG64, got {type(generator).__name__}"
        )
    matrix = np.ascontiguousarray(scores, dtype=np.float64)
    topics, systems = matrix.shape
    state = generator.state["state"]
    raw = _core.permuted_ranges(
        matrix.tobytes(), topics, systems, rounds, int(state["state"]), int(state["inc"])
    )
    return np.frombuffer(raw, dtype=np.float64).copy()
