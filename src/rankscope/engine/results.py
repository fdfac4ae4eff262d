"""`Results`: per-query values of each measure, their aggregates, and conversions."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankscope.engine.batch import FloatArray
from rankscope.engine.measures import FAMILIES, Measure, aggregate, measure
from rankscope.errors import MeasureError, require

__all__ = ["Results"]


@dataclass(frozen=True, eq=False)
class Results:
    """What `rankscope.evaluate` returns.

    Attributes
    ----------
    measures
        The measures computed, in the order asked.
    per_query
        A polars DataFrame: ``query_id`` and one Float64 column per measure (canonical name),
        one row per evaluated query, query ids in byte-wise order.
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
    per_query: pl.DataFrame
    profile: str
    run_name: str
    unjudged_queries: tuple[str, ...]
    missing_queries: tuple[str, ...]
    complete: bool

    @property
    def query_ids(self) -> list[str]:
        """The evaluated query ids, in row order."""
        return self.per_query["query_id"].to_list()

    def scores(self, name: str | Measure) -> FloatArray:
        """Per-query values of one measure, in the order of :attr:`query_ids`."""
        wanted = measure(name)
        if wanted not in self.measures:
            computed = ", ".join(m.name for m in self.measures)
            raise MeasureError(f"{wanted.name} was not computed; computed: {computed}")
        return self.per_query[wanted.name].to_numpy()

    def mean(self) -> dict[str, float]:
        """The aggregate of every measure over the evaluated queries.

        The arithmetic mean, except where trec_eval aggregates otherwise: ``GM_AP`` is a
        geometric mean (values floored at 1e-5), ``NumRet``, ``NumRel`` and ``NumRelRet`` are
        totals, ``NumQ`` the number of queries.
        """
        return {
            m.name: aggregate(self.per_query[m.name].to_numpy(), FAMILIES[m.family].aggregate)
            for m in self.measures
        }

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {measure name: value}}``, the shape pytrec_eval returns.

        One difference: a query's ``GM_AP`` here is its AP (the geometric mean is in
        :meth:`mean`), where pytrec_eval gives the logarithm of it.
        """
        names = [m.name for m in self.measures]
        return {
            row[0]: dict(zip(names, row[1:], strict=True)) for row in self.per_query.iter_rows()
        }

    def to_polars(self) -> pl.DataFrame:
        """The per-query table (a copy)."""
        return self.per_query.clone()

    def to_pandas(self) -> Any:
        """The per-query table as a pandas DataFrame (needs pandas and pyarrow: the ``pandas``
        extra)."""
        require(("pandas", "pyarrow"), "Results.to_pandas", "pandas")  # via Arrow
        return self.per_query.to_pandas()

    def _repr_html_(self) -> str:
        """Jupyter's view: the aggregates as a table, the per-query values folded under it."""
        import html

        means = pl.DataFrame({"run": [self.run_name], **{k: [v] for k, v in self.mean().items()}})
        left_out = (
            f"; {len(self.missing_queries)} judged queries not in the run"
            if self.missing_queries and not self.complete
            else ""
        )
        heading = (
            f"<p><strong>{html.escape(self.run_name)}</strong>: {self.per_query.height} queries"
            f", profile {html.escape(self.profile)}{left_out}</p>"
        )
        return (
            f"<div>{heading}{means._repr_html_()}<details><summary>per query</summary>"
            f"{self.per_query._repr_html_()}</details></div>"
        )

    def __repr__(self) -> str:
        means = ", ".join(
            f"{name}={value:.4f}" if not math.isnan(value) else f"{name}=nan"
            for name, value in self.mean().items()
        )
        return f"Results({self.run_name!r}, {self.per_query.height} queries, {means})"
