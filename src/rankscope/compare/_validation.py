"""Checks shared by the statistics layer: score arrays, counts, levels, seeds and scipy.

Data problems raise :class:`rankscope.errors.InputError`; a bad option value (a count, a level,
a method name) raises :class:`ValueError` saying what was expected and what came.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankscope.errors import InputError, MissingDependencyError, OptionError

FloatArray = NDArray[np.float64]

_NUMERIC_KINDS = "biuf"


def as_scores(values: ArrayLike, what: str) -> FloatArray:
    """Return ``values`` as a 1-D float64 array of finite per-query scores.

    The input is never modified; it is returned as is when it already is a float64 array.
    """
    raw = np.asarray(values)
    if raw.dtype.kind not in _NUMERIC_KINDS:
        raise InputError(
            f"{what}: expected numeric per-query scores, got an array of dtype {raw.dtype}"
        )
    scores = np.asarray(raw, dtype=np.float64)
    if scores.ndim != 1:
        raise InputError(
            f"{what}: expected a 1-D array of per-query scores, got shape {scores.shape}"
        )
    if scores.size == 0:
        raise InputError(f"{what}: expected at least one score, got an empty array")
    finite = np.isfinite(scores)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise InputError(
            f"{what}: expected finite scores, got {bad.size} NaN or infinite value(s), "
            f"the first at position {bad[0]} ({scores[bad[0]]})"
        )
    return scores


def as_paired(
    baseline: ArrayLike, system: ArrayLike, *, minimum: int = 1, context: str = ""
) -> tuple[FloatArray, FloatArray]:
    """Return both score arrays, checked to be aligned by query and at least ``minimum`` long."""
    prefix = f"{context}: " if context else ""
    baseline_scores = as_scores(baseline, f"{prefix}baseline")
    system_scores = as_scores(system, f"{prefix}system")
    if baseline_scores.size != system_scores.size:
        raise InputError(
            f"{prefix}baseline has {baseline_scores.size} scores but system has "
            f"{system_scores.size}; paired tests need one score per query in both, "
            "aligned by query"
        )
    if baseline_scores.size < minimum:
        raise InputError(
            f"{prefix}expected at least {minimum} paired scores, got {baseline_scores.size}"
        )
    return baseline_scores, system_scores


def check_count(value: int, name: str, function: str, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum``, else raise OptionError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise OptionError(
            f"The {name!r} parameter of {function} must be an int in the range "
            f"[{minimum}, inf). Got {value!r} instead."
        )
    return int(value)


def check_fraction(value: float, name: str, function: str) -> float:
    """Return ``value`` as a float if it lies strictly between 0 and 1, else raise OptionError."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not 0.0 < value < 1.0
    ):
        raise OptionError(
            f"The {name!r} parameter of {function} must be a float in the open range (0, 1). "
            f"Got {value!r} instead."
        )
    return float(value)


def check_tolerance(value: float, function: str) -> float:
    """Return ``value`` as a float if it is finite and >= 0, else raise OptionError."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not 0.0 <= value < np.inf
    ):
        raise OptionError(
            f"The 'tolerance' parameter of {function} must be a finite float >= 0. "
            f"Got {value!r} instead."
        )
    return float(value)


def check_choice(value: str, name: str, function: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise OptionError listing them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise OptionError(
            f"The {name!r} parameter of {function} must be one of {listed}. Got {value!r} instead."
        )
    return value


def make_rng(seed: int | None, function: str) -> np.random.Generator:
    """Return a fresh generator for ``seed`` (None draws fresh entropy from the OS)."""
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise OptionError(
            f"The 'seed' parameter of {function} must be None or an int >= 0. Got {seed!r} instead."
        )
    return np.random.default_rng(seed)


def import_scipy_stats(feature: str) -> ModuleType:
    """Import ``scipy.stats`` on first use; scipy is the optional ``stats`` extra."""
    try:
        from scipy import stats
    except ImportError as error:
        raise MissingDependencyError("scipy", feature, "stats") from error
    return cast(ModuleType, stats)
