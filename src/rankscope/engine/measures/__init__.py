"""Measures: canonical names, the registry, and one vectorized kernel per family."""

from rankscope.engine.measures._names import Measure
from rankscope.engine.measures._registry import (
    FAMILIES,
    Family,
    measure,
    parse_measures,
)

__all__ = [
    "FAMILIES",
    "Family",
    "Measure",
    "measure",
    "parse_measures",
]
