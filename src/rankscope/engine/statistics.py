"""The statistics' native parts: the resampling of the paired tests and the bootstrap
intervals, and Student's t distribution.

`rankscope.compare` hands its differences (or scores) and its generator here; the core draws
from NumPy's own PCG64 stream where ``rng`` stands, exactly as ``rng.random((rounds, n)) < 0.5``
(sign flips) and ``rng.integers(0, n, (rounds, n))`` (bootstrap resamples) draw, takes each
round's mean as ``mean(axis=1)`` does (NumPy's pairwise sum), and leaves ``rng`` where those
draws leave it. The numbers are NumPy's to the last bit; only its temporary arrays are gone.

The t-test's p-value comes from the core's Student t distribution (whole degrees of freedom,
double-double arithmetic), so that a t-test needs neither ``scipy.stats`` nor ``scipy.special``,
whose imports take longer than the comparison itself.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rankscope import _core

__all__ = ["bootstrap_means", "sign_flip_means", "t_two_sided"]


def _pcg64(rng: np.random.Generator) -> np.random.PCG64:
    generator = rng.bit_generator
    if not isinstance(generator, np.random.PCG64):
        raise ValueError(
            f"expected a generator driven by numpy.random.PCG64, got {type(generator).__name__}"
        )
    return generator


def sign_flip_means(
    differences: NDArray[np.float64], rounds: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The mean of ``differences`` under each of ``rounds`` random sign flips: NumPy's
    ``np.where(rng.random((rounds, n)) < 0.5, -differences, differences).mean(axis=1)``.

    Raises
    ------
    ValueError
        If ``rng`` is not driven by NumPy's PCG64 (what ``numpy.random.default_rng`` makes).

    Examples
    --------
    >>> differences = np.array([0.1, -0.2, 0.3])
    >>> rng = np.random.default_rng(0)
    >>> flip = rng.random((4, 3)) < 0.5
    >>> expected = np.where(flip, -differences, differences).mean(axis=1)
    >>> bool((sign_flip_means(differences, 4, np.random.default_rng(0)) == expected).all())
    True
    """
    generator = _pcg64(rng)
    values = np.ascontiguousarray(differences, dtype=np.float64)
    state = generator.state
    raw, after = _core.sign_flip_means(
        values.tobytes(), rounds, int(state["state"]["state"]), int(state["state"]["inc"])
    )
    state["state"]["state"] = after
    generator.state = state
    return np.frombuffer(raw, dtype=np.float64).copy()


def bootstrap_means(
    values: NDArray[np.float64], rounds: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The mean of each of ``rounds`` resamples of ``values`` drawn with replacement: NumPy's
    ``values[rng.integers(0, n, (rounds, n))].mean(axis=1)``.

    Raises
    ------
    ValueError
        If ``rng`` is not driven by NumPy's PCG64, or there are 2^32 values or more.

    Examples
    --------
    >>> values = np.array([0.1, 0.4, 0.2, 0.9])
    >>> expected = values[np.random.default_rng(3).integers(0, 4, (5, 4))].mean(axis=1)
    >>> bool((bootstrap_means(values, 5, np.random.default_rng(3)) == expected).all())
    True
    """
    generator = _pcg64(rng)
    scores = np.ascontiguousarray(values, dtype=np.float64)
    state = generator.state
    raw, after, has_uint32, uinteger = _core.bootstrap_means(
        scores.tobytes(),
        rounds,
        int(state["state"]["state"]),
        int(state["state"]["inc"]),
        bool(state["has_uint32"]),
        int(state["uinteger"]),
    )
    state["state"]["state"] = after
    state["has_uint32"] = int(has_uint32)
    state["uinteger"] = uinteger
    generator.state = state
    return np.frombuffer(raw, dtype=np.float64).copy()


def t_two_sided(statistic: float, degrees: int) -> float:
    """``P(|T| >= |statistic|)`` for Student's t with ``degrees`` (at least 1) degrees of
    freedom: ``2 * scipy.special.stdtr(degrees, -abs(statistic))``, to about the last bit.

    Computed from the finite series of Abramowitz and Stegun (26.7.3-4) for ``1 - p`` when the
    p-value is large and from the same series' tail when it is small, in double-double
    arithmetic, so no digits cancel.

    Raises
    ------
    ValueError
        If ``degrees`` is below 1.

    Examples
    --------
    >>> round(t_two_sided(2.0, 2), 12)  # 1 - t / sqrt(2 + t^2)
    0.183503419072
    >>> t_two_sided(0.0, 5), t_two_sided(float("inf"), 5)
    (1.0, 0.0)
    """
    return _core.t_two_sided(float(statistic), int(degrees))
