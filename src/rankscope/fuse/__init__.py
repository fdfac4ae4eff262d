"""Rank fusion: several runs into one, with ranx's methods, normalisations and training.

>>> import rankscope
>>> runs = [{"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d2": 5.0}}]
>>> rankscope.fuse(runs, "sum", norm=None).frame.rows()
[('q1', 'd2', 6.0), ('q1', 'd1', 2.0)]

`fuse` combines runs (`METHODS`, after a normalisation of `NORMS`); `optimize_fusion` searches
a method's parameters and trains the probabilistic methods on judged queries. The module
itself is callable: ``rankscope.fuse(runs, ...)`` is `fuse`.
"""

from __future__ import annotations

from rankscope._lazy import callable_package
from rankscope.fuse._fuse import fuse
from rankscope.fuse._methods import METHODS, NORMS, FusionMethod
from rankscope.fuse._optimize import FusionSearch, Trial, optimize_fusion, weight_grid

__all__ = [
    "METHODS",
    "NORMS",
    "FusionMethod",
    "FusionSearch",
    "Trial",
    "fuse",
    "optimize_fusion",
    "weight_grid",
]


callable_package(__name__, fuse)
