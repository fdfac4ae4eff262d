"""`Results`: per-query values of each measure, their aggregates, and conversions.

The values stay in the compiled core until asked for: :meth:`Results.to_dict` builds the dicts
there in one pass, :meth:`Results.scores` is a numpy view of the core's buffer (no copy), and
the frames are made from an Arrow stream of it. numpy, polars and pandas are imported only by
the methods that hand data to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rankscope._core import PerQuery
from rankscope.engine.measures import Measure, measure
from rankscope.errors import MeasureError, MissingDependencyError

if TYPE_CHECKING:
    import polars as pl

    from rankscope.engine.batch import FloatArray

__all__ = ["Results"]


@dataclass(frozen=True, eq=False)
class Results:
    """What `rankscope.evaluate` returns.

    Attributes
    ----------
    measures
        The measures computed, in the order asked.
    values
        The per-query values, held by the core: one row per evaluated query (query ids in
        byte-wise order), one column per measure.
    profile
        The name of the profile used.
    run_name
        The run's name (its tag, for TREC files).
    unjudged_queries
        Queries of the run without judgements, which were ignored.
    missing_queries
        Judged queries absent from the run: scored 0 if ``complete``, else left out.
    complete
        Whether missing queries were scored 0 and included in the aggregates.
    """

    measures: tuple[Measure, ...]
    values: PerQuery
    profile: str
    run_name: str
    unjudged_queries: tuple[str, ...]
    missing_queries: tuple[str, ...]
    complete: bool

    @property
    def query_ids(self) -> list[str]:
        """The evaluated query ids, in row order."""
        return self.values.query_ids()

    @property
    def num_queries(self) -> int:
        """How many queries were evaluated."""
        return len(self.values)

    def _column(self, name: str | Measure) -> int:
        wanted = measure(name)
        if wanted not in self.measures:
            computed = ", ".join(m.name for m in self.measures)
            raise MeasureError(f"{wanted.name} was not computed; computed: {computed}")
        return self.measures.index(wanted)

    def scores(self, name: str | Measure) -> FloatArray:
        """Per-query values of one measure, in the order of :attr:`query_ids`: a read-only
        numpy array over the core's buffer (needs numpy)."""
        column = self.values.column(self._column(name))
        try:
            import numpy as np
        except ImportError:
            raise MissingDependencyError("numpy", "Results.scores", "numpy") from None
        values: FloatArray = np.frombuffer(column, dtype=np.float64)
        return values

    def score_list(self, name: str | Measure) -> list[float]:
        """Per-query values of one measure as a list of floats (no numpy needed)."""
        values: list[float] = memoryview(self.values.column(self._column(name))).tolist()
        return values

    def mean(self) -> dict[str, float]:
        """The aggregate of every measure over the evaluated queries.

        The arithmetic mean, except where trec_eval aggregates otherwise: ``GM_AP`` is a
        geometric mean (values floored at 1e-5), ``NumRet``, ``NumRel`` and ``NumRelRet`` are
        totals, ``NumQ`` the number of queries.
        """
        return dict(zip((m.name for m in self.measures), self.values.aggregates(), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {measure name: value}}``, the shape pytrec_eval returns.

        One difference: a query's ``GM_AP`` here is its AP (the geometric mean is in
        :meth:`mean`), where pytrec_eval gives the logarithm of it.
        """
        return self.values.to_dict()

    @cached_property
    def per_query(self) -> pl.DataFrame:
        """The per-query table as a polars DataFrame: ``query_id`` and one Float64 column per
        measure (canonical name). Built on first use, from the core's Arrow stream."""
        try:
            import polars as pl
        except ImportError:
            raise MissingDependencyError("polars", "Results.per_query", "polars") from None
        return pl.DataFrame(self.values)

    def to_polars(self) -> pl.DataFrame:
        """The per-query table as a polars DataFrame (a copy)."""
        return self.per_query.clone()

    def to_pandas(self) -> Any:
        """The per-query table as a pandas DataFrame (needs pandas and pyarrow)."""
        try:
            import pandas  # noqa: F401
            import pyarrow
        except ImportError:
            raise MissingDependencyError("pandas", "Results.to_pandas", "pandas") from None
        return pyarrow.table(self.values).to_pandas()

    def __repr__(self) -> str:
        means = ", ".join(
            f"{name}={value:.4f}" if not math.isnan(value) else f"{name}=nan"
            for name, value in self.mean().items()
        )
        return f"Results({self.run_name!r}, {self.num_queries} queries, {means})"
