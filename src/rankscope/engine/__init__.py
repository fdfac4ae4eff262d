"""The evaluation engine: `evaluate` over the compiled core, measures, profiles, `Results`."""

from rankscope.engine.evaluate import evaluate
from rankscope.engine.measures import FAMILIES, Measure, measure, parse_measures
from rankscope.engine.profiles import PROFILES, Conventions, resolve_profile
from rankscope.engine.results import Results

__all__ = [
    "FAMILIES",
    "PROFILES",
    "Conventions",
    "Measure",
    "Results",
    "evaluate",
    "measure",
    "parse_measures",
    "resolve_profile",
]
