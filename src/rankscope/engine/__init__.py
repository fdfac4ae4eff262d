"""The evaluation engine: `evaluate` over the compiled core, measures, profiles, `Results`.

The engine (with `rankscope.io._native`) is the one package that talks to the private core,
``rankscope._core``: `plan` hands it what the user asked, `evaluate` what to evaluate it on.
"""

from rankscope.engine._evaluate import (
    evaluate,
    evaluate_query,
    judgements,
    plan,
    ranked_documents,
    relevance_strings,
)
from rankscope.engine.measures import FAMILIES, Measure, measure, parse_measures
from rankscope.engine.profiles import PROFILES, Conventions, resolve_profile
from rankscope.engine.results import MeasureValues, Results, ResultsByRun

__all__ = [
    "FAMILIES",
    "PROFILES",
    "Conventions",
    "Measure",
    "MeasureValues",
    "Results",
    "ResultsByRun",
    "evaluate",
    "evaluate_query",
    "judgements",
    "measure",
    "parse_measures",
    "plan",
    "ranked_documents",
    "relevance_strings",
    "resolve_profile",
]
