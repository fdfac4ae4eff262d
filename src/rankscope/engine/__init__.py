"""The evaluation engine: prepare a `RankedBatch`, run the measure kernels, aggregate."""

from rankscope.engine.batch import RankedBatch
from rankscope.engine.compute import compute
from rankscope.engine.evaluate import evaluate
from rankscope.engine.measures import FAMILIES, Measure, measure, parse_measures
from rankscope.engine.prepare import Prepared, prepare
from rankscope.engine.profiles import PROFILES, Conventions, resolve_profile
from rankscope.engine.results import Results

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
