"""rankscope: exact, fast evaluation of ranked retrieval.

>>> import rankscope
>>> rankscope.evaluate({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "RR").mean()
{'RR': 0.5}
"""

from rankscope.answers import evaluate_answers
from rankscope.engine import (
    PROFILES,
    Conventions,
    Measure,
    RankedBatch,
    Results,
    evaluate,
    measure,
)
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
from rankscope.io import Qrels, Run

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
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
    "evaluate",
    "evaluate_answers",
    "measure",
]
