"""rankscope: exact, fast evaluation of ranked retrieval.

>>> import rankscope
>>> rankscope.evaluate({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "RR").mean()
{'RR': 0.5}
"""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from rankscope.fuse import FusionSearch, optimize_fusion
    from rankscope.fuse import fuse as fuse

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "Conventions",
    "DuplicateDocumentError",
    "EmptyInputError",
    "FusionSearch",
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
    "fuse",
    "measure",
    "optimize_fusion",
]

# Fusion loads on first use, so that `import rankscope` stays light.
_LAZY = {"fuse": "fuse", "optimize_fusion": "optimize_fusion", "FusionSearch": "FusionSearch"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import rankscope.fuse as fusion

        return fusion if name == "fuse" else getattr(fusion, _LAZY[name])
    raise AttributeError(f"module 'rankscope' has no attribute {name!r}")
