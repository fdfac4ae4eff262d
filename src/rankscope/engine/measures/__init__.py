"""Measures: canonical names and the registry, both read from the core, where each family is
declared beside its kernel."""

from rankscope.engine.measures._names import Measure
from rankscope.engine.measures._registry import (
    FAMILIES,
    Family,
    default_measures,
    given_measures,
    measure,
    parse_measures,
    split_measures,
)

__all__ = [
    "FAMILIES",
    "Family",
    "Measure",
    "default_measures",
    "given_measures",
    "measure",
    "parse_measures",
    "split_measures",
]
