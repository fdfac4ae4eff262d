"""`compute`: every measure's per-query values on a prepared `RankedBatch`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rankscope.engine.batch import RankedBatch
from rankscope.engine.measures import FAMILIES, Measure, _kernels
from rankscope.engine.profiles import Conventions
from rankscope.errors import MeasureError

__all__ = ["MAX_EXP_GRADE", "compute"]

MAX_EXP_GRADE = 1023


def compute(
    batch: RankedBatch,
    measures: Iterable[Measure],
    conventions: Conventions,
    relevance_level: int = 1,
) -> dict[Measure, Any]:
    """Every measure's per-query values on a prepared batch, in one pass over shared arrays.

    Raises
    ------
    MeasureError
        If an exponential gain (``2**grade - 1``) meets a grade too large for a float.
    """
    measures = list(measures)
    if any(m.family == "nDCG" and (m.param("gain") or conventions.gain) == "exp" for m in measures):
        top = int(batch.judged.max(initial=0))
        if top > MAX_EXP_GRADE:
            raise MeasureError(
                f"nDCG with gain=exp needs grades up to {MAX_EXP_GRADE} (2**grade must fit a "
                f"float); found a grade of {top}; use the linear gain"
            )
    level_default = 1 if conventions.binary_relevance else relevance_level
    return {
        m: getattr(_kernels, FAMILIES[m.family].kernel)(
            batch, m, conventions, m.relevance_level or level_default
        )
        for m in measures
    }
