"""What the layers above the engine use of the compiled core directly: fusion's runs held in
the core, the per-query values an evaluation returns, and aggregation as the core does it.

The engine (with `rankscope.io._native`) is the only package that imports the private
``rankscope._core``; `rankscope.fuse`, `rankscope.compat`, `rankscope.report` and the command
line reach the core through here.

Examples
--------
>>> aggregate([1.0, 4.0], "geometric_mean"), aggregate([1.0, 4.0], "sum")
(2.0, 5.0)
"""

from rankscope import _core

__all__ = ["FusionRuns", "PerQuery", "aggregate"]

FusionRuns = _core.FusionRuns
"""Several runs' rankings held by the core over shared query and document codes, for fusion."""

PerQuery = _core.PerQuery
"""Per-query values of an evaluation: rows by query id (byte-wise), one column per measure."""


def aggregate(values: list[float], how: str) -> float:
    """Per-query values combined as the core combines them: ``"mean"``, ``"geometric_mean"``
    (trec_eval's, with its floor), ``"sum"`` or ``"count"``."""
    return _core.aggregate(values, how)
