"""rankscope: exact, fast evaluation of ranked retrieval.

>>> import rankscope
>>> rankscope.evaluate({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "RR").mean()
{'RR': 0.5}

The names below are loaded on first use, so that ``import rankscope`` (and the command line's
``--help``) does not pay for numpy and polars until something is evaluated.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from rankscope.errors import (
    DuplicateDocumentError,
    EmptyInputError,
    InputError,
    MeasureError,
    MissingDependencyError,
    OptionError,
    ParseError,
    ProfileError,
    RankscopeError,
    RankscopeWarning,
    UnknownMeasureError,
)

if TYPE_CHECKING:
    from rankscope.engine import (
        PROFILES,
        Conventions,
        Measure,
        RankedBatch,
        Results,
        evaluate,
        measure,
    )
    from rankscope.io import Qrels, Run
    from rankscope.report.compare_runs import ComparisonReport, compare_runs

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "ComparisonReport",
    "Conventions",
    "DuplicateDocumentError",
    "EmptyInputError",
    "InputError",
    "Measure",
    "MeasureError",
    "MissingDependencyError",
    "OptionError",
    "ParseError",
    "ProfileError",
    "Qrels",
    "RankedBatch",
    "RankscopeError",
    "RankscopeWarning",
    "Results",
    "Run",
    "UnknownMeasureError",
    "__version__",
    "compare_runs",
    "evaluate",
    "evaluate_answers",
    "measure",
]

# Public name -> the module that defines it, imported on first access.
_LAZY = {
    "PROFILES": "rankscope.engine",
    "Conventions": "rankscope.engine",
    "Measure": "rankscope.engine",
    "RankedBatch": "rankscope.engine",
    "Results": "rankscope.engine",
    "evaluate": "rankscope.engine",
    "evaluate_answers": "rankscope.answers",
    "measure": "rankscope.engine",
    "Qrels": "rankscope.io",
    "Run": "rankscope.io",
    "ComparisonReport": "rankscope.report.compare_runs",
    "compare_runs": "rankscope.report.compare_runs",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rankscope' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
