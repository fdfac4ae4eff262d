"""`compute`: every measure's per-query values on a prepared `RankedBatch`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rankscope.engine.batch import RankedBatch
from rankscope.engine.measures import FAMILIES, Measure
from rankscope.engine.profiles import Conventions

__all__ = ["compute"]


def compute(
    batch: RankedBatch,
    measures: Iterable[Measure],
    conventions: Conventions,
    relevance_level: int = 1,
) -> dict[Measure, Any]:
    """Every measure's per-query values on a prepared batch, in one pass over shared arrays."""
    level_default = 1 if conventions.binary_relevance else relevance_level
    return {
        m: FAMILIES[m.family].kernel(batch, m, conventions, m.relevance_level or level_default)
        for m in measures
    }
