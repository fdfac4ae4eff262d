"""The evaluation engine: `evaluate` over the compiled core, measures, profiles, `Results`.

The Python batch (`RankedBatch`, `prepare`, `compute`) uses numpy and polars; it is imported
on first use only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope._lazy import lazy_attributes

from rankscope.engine.evaluate import evaluate
from rankscope.engine.measures import FAMILIES, Measure, measure, parse_measures
from rankscope.engine.profiles import PROFILES, Conventions, resolve_profile
from rankscope.engine.results import Results

if TYPE_CHECKING:
    from rankscope.engine.batch import RankedBatch
    from rankscope.engine.compute import compute
    from rankscope.engine.prepare import Prepared, prepare

__all__ = [
    "FAMILIES",
    "PROFILES",
    "Conventions",
    "Measure",
    "Prepared",
    "RankedBatch",
    "Results",
    "compute",
    "evaluate",
    "measure",
    "parse_measures",
    "prepare",
    "resolve_profile",
]

__getattr__ = lazy_attributes(
    __name__,
    {
        "RankedBatch": "rankscope.engine.batch",
        "compute": "rankscope.engine.compute",
        "Prepared": "rankscope.engine.prepare",
        "prepare": "rankscope.engine.prepare",
    },
)
