"""rankscope: exact, fast evaluation of ranked retrieval.

>>> import rankscope
>>> rankscope.evaluate({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "RR").mean()
{'RR': 0.5}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope._lazy import lazy_attributes
from rankscope.engine import (
    PROFILES,
    Conventions,
    Measure,
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

if TYPE_CHECKING:
    from rankscope.io.tables import Qrels, Run

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
    "RankscopeError",
    "RankscopeWarning",
    "Results",
    "Run",
    "UnknownMeasureError",
    "__version__",
    "evaluate",
    "measure",
]

# These are polars tables: imported on first use, so that `import rankscope` loads
# neither.
__getattr__ = lazy_attributes(
    __name__,
    {
        "Qrels": "rankscope.io.tables",
        "Run": "rankscope.io.tables",
    },
)
