"""rankscope: exact, fast evaluation of ranked retrieval.

The names below, and the subpackages (``rankscope.io``, ``rankscope.compare``,
``rankscope.fuse``, ``rankscope.judge``, ``rankscope.measures``, ``rankscope.metric``,
``rankscope.compat``, ``rankscope.spark``, ...), are loaded on first use, so that
``import rankscope`` (and the command line's ``--help``) does not pay for numpy and polars
until something is evaluated.

Examples
--------
>>> import rankscope
>>> rankscope.evaluate({"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "RR").mean()
{'RR': 0.5}

A subpackage is an attribute, imported when first used; ``dir()`` lists the public API:

>>> rankscope.io.read_run  # doctest: +ELLIPSIS
<function read_run at ...>
>>> "compare" in dir(rankscope) and "evaluate" in dir(rankscope)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope._lazy import lazy_attributes, lazy_dir
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
    from rankscope.answers import evaluate_answers
    from rankscope.compare import ComparisonReport, compare_runs
    from rankscope.engine import (
        PROFILES,
        Conventions,
        Measure,
        Results,
        ResultsByRun,
        evaluate,
        measure,
    )
    from rankscope.explain import explain as explain
    from rankscope.fuse import FusionSearch, optimize_fusion
    from rankscope.fuse import fuse as fuse
    from rankscope.io import Qrels, Run

__version__ = "0.1.0"

__all__ = [
    "PROFILES",
    "ComparisonReport",
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
    "RankscopeError",
    "RankscopeWarning",
    "Results",
    "ResultsByRun",
    "Run",
    "UnknownMeasureError",
    "__version__",
    "compare_runs",
    "evaluate",
    "evaluate_answers",
    "explain",
    "fuse",
    "measure",
    "optimize_fusion",
]

SUBPACKAGES = (
    "answers",
    "cli",
    "compare",
    "compat",
    "engine",
    "errors",
    "explain",
    "fuse",
    "io",
    "judge",
    "measures",
    "metric",
    "report",
    "service",
    "spark",
)
"""The subpackages reachable as attributes (``rankscope.io.read_run``), imported on first use.
``rankscope.fuse`` is both the package and, called, its function `rankscope.fuse.fuse`;
``rankscope.explain`` likewise `rankscope.explain.explain`."""

# Public name -> the module that defines it, imported on first access: `import rankscope` (and
# the command line's --help) loads neither numpy nor polars.
__getattr__ = lazy_attributes(
    __name__,
    {
        "PROFILES": "rankscope.engine",
        "Conventions": "rankscope.engine",
        "Measure": "rankscope.engine",
        "Results": "rankscope.engine",
        "ResultsByRun": "rankscope.engine",
        "evaluate": "rankscope.engine",
        "evaluate_answers": "rankscope.answers",
        "measure": "rankscope.engine",
        "Qrels": "rankscope.io",
        "Run": "rankscope.io",
        "ComparisonReport": "rankscope.compare",
        "compare_runs": "rankscope.compare",
        "FusionSearch": "rankscope.fuse",
        "optimize_fusion": "rankscope.fuse",
    },
    SUBPACKAGES,
)
__dir__ = lazy_dir(__all__, SUBPACKAGES)
