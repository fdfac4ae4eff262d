"""`Results`: per-query values of each measure, their aggregates, and conversions.

The values stay in the compiled core until asked for: :meth:`Results.to_dict` builds the dicts
there in one pass, :meth:`Results.scores` is a numpy view of the core's buffer (no copy), and
the frames are made from an Arrow stream of it. numpy, polars and pandas are imported only by
the methods that hand data to them.

`Results` reads as a mapping from query id to that query's values, the shape pytrec_eval
returns: ``results["q1"]``, ``len(results)`` (the queries), ``for query_id in results``,
``"q1" in results``, ``keys()``, ``items()``, ``get()`` and ``dict(results)`` (``values`` is
the core's table of values, as before; ``items()`` pairs each query with its values). A key
that is not an evaluated query but names a computed measure (``results["AP"]``, or
``results["map"]`` by trec_eval's name) gives that measure's value per query. Query ids come
first: when an id is also a measure's name, ``results[name]`` is the query's values, and
:meth:`Results.score_dict` the measure's.

Values are keyed by the names the caller gave (``"map@5"``, ``"ndcg_cut.10"``, ir_measures'
``str()`` of a measure), as ranx, pytrec_eval and ir_measures key theirs; the aggregates of
:meth:`Results.mean` and a query's values ``results["q1"]`` also answer to the canonical name
and to every other alias of a measure (``mean()["AP@5"]`` when ``"map@5"`` was asked). The
frames (:attr:`Results.per_query`, :meth:`Results.to_polars`, :meth:`Results.to_pandas`) and
the command line name their columns canonically.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from rankscope._core import PerQuery
from rankscope.engine.measures import FAMILIES, Measure, measure
from rankscope.errors import MeasureError, require
from rankscope.io._columns import QUERY_ID

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import polars as pl

    FloatArray = npt.NDArray[np.float64]

__all__ = ["MeasureValues", "Results", "ResultsByRun"]


class MeasureValues(dict[str, float]):
    """``{measure name: value}`` keyed by the names the caller gave, in the order computed,
    that also answers to each measure's canonical name and aliases: a plain dict otherwise
    (it compares equal to one with the same keys and values).

    Examples
    --------
    >>> import rankscope
    >>> means = rankscope.evaluate({"q": {"a": 1}}, {"q": ["b", "a"]}, ["map@5", "mrr"]).mean()
    >>> means
    {'map@5': 0.5, 'mrr': 0.5}
    >>> means["AP@5"], means["recip_rank"], "RR" in means, means.get("nDCG", 0.0)
    (0.5, 0.5, True, 0.0)
    """

    __slots__ = ("_measures",)

    def __init__(self, pairs: Iterable[tuple[str, float]], measures: Sequence[Measure]) -> None:
        super().__init__(pairs)
        self._measures = tuple(measures)

    def _given(self, key: object) -> str | None:
        """The key this mapping holds for the measure ``key`` names, if it holds it."""
        if not isinstance(key, str | Measure):
            return None
        try:
            index = self._measures.index(measure(key))
        except (MeasureError, ValueError):
            return None
        return list(self)[index]

    def __missing__(self, key: str) -> float:
        given = self._given(key)
        if given is None:
            raise KeyError(key)
        return dict.__getitem__(self, given)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._given(key) is not None

    def get(self, key: str, default: Any = None) -> Any:
        """The value of the measure ``key`` names (given name, canonical or alias), else
        ``default``."""
        try:
            return self[key]
        except KeyError:
            return default

    def __reduce__(self) -> tuple[Any, ...]:
        return (MeasureValues, (list(self.items()), self._measures))


class Results:
    """What `rankscope.evaluate` returns: per-query values, aggregates, conversions, and a
    mapping from query id to the query's values (see the module's docstring).

    Attributes
    ----------
    measures
        The measures computed, in the order asked.
    per_query
        The per-query table as a polars DataFrame: ``query_id`` and one Float64 column per
        measure (canonical name), one row per evaluated query, query ids in byte-wise order.
        Given to the constructor when the values arrive as a table (Spark's per-query rows,
        computed by the core on the executors, collected on the driver); made from `values`
        on first use otherwise.
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
    names
        The name each measure is keyed by in `mean`, `to_dict` and a query's values: as the
        caller gave it (``"map@5"``), or canonical (the default; keyword only).
    values
        The per-query values held by the core (what `evaluate` gives; keyword only).
    """

    def __init__(
        self,
        measures: tuple[Measure, ...],
        per_query: pl.DataFrame | None = None,
        profile: str = "trec",
        run_name: str = "run",
        unjudged_queries: tuple[str, ...] = (),
        missing_queries: tuple[str, ...] = (),
        complete: bool = False,
        *,
        names: Sequence[str] | None = None,
        values: PerQuery | None = None,
    ) -> None:
        self.measures = tuple(measures)
        self.names = tuple(m.name for m in self.measures) if names is None else tuple(names)
        if len(self.names) != len(self.measures):
            raise TypeError(f"Results takes one name per measure; got {len(self.names)} names")
        if (per_query is None) == (values is None):
            raise TypeError("Results takes either per_query (a DataFrame) or values, not both")
        if per_query is not None:
            values = PerQuery(
                per_query[QUERY_ID].to_list(),
                [m.name for m in self.measures],
                [FAMILIES[m.family].aggregate for m in self.measures],
                [per_query[m.name].to_list() for m in self.measures],
            )
            self.__dict__["per_query"] = per_query
        self.values: PerQuery = values  # type: ignore[assignment]
        self.profile = profile
        self.run_name = run_name
        self.unjudged_queries = tuple(unjudged_queries)
        self.missing_queries = tuple(missing_queries)
        self.complete = complete

    def renamed(self, run_name: str) -> Results:
        """The same results under another run name (the per-query values are shared)."""
        return Results(
            self.measures,
            None,
            self.profile,
            run_name,
            self.unjudged_queries,
            self.missing_queries,
            self.complete,
            names=self.names,
            values=self.values,
        )

    @property
    def query_ids(self) -> list[str]:
        """The evaluated query ids, in row order."""
        return self.values.query_ids()

    @property
    def num_queries(self) -> int:
        """How many queries were evaluated."""
        return len(self.values)

    def __len__(self) -> int:
        """The number of evaluated queries."""
        return self.num_queries

    def __iter__(self) -> Iterator[str]:
        """The evaluated query ids, in row order (byte-wise)."""
        return iter(self.query_ids)

    def __contains__(self, query_id: object) -> bool:
        """Whether a query was evaluated (measure names are not keys: see `score_dict`)."""
        return isinstance(query_id, str | int) and str(query_id) in self._rows

    def __getitem__(self, key: str | int | Measure) -> dict[str, float]:
        """A query's values ``{measure: value}``; else, for a computed measure's name, its
        value per query ``{query_id: value}``."""
        if isinstance(key, str | int) and not isinstance(key, bool):
            row = self._rows.get(str(key))
            if row is not None:
                pairs = zip(self.names, self._columns, strict=True)
                return MeasureValues(((name, column[row]) for name, column in pairs), self.measures)
        if not isinstance(key, int):
            try:
                return self.score_dict(key)
            except (MeasureError, TypeError):
                pass
        shown = ", ".join(self.query_ids[:5]) + (", ..." if self.num_queries > 5 else "")
        measures = ", ".join(m.name for m in self.measures)
        raise KeyError(
            f"{key!r} is neither an evaluated query nor a computed measure (queries: "
            f"{shown or 'none'}; measures: {measures})"
        )

    def get(self, key: str | int | Measure, default: Any = None) -> Any:
        """``self[key]``, or ``default`` when it is neither a query nor a computed measure."""
        try:
            return self[key]
        except KeyError:
            return default

    def keys(self) -> list[str]:
        """The evaluated query ids, in row order."""
        return self.query_ids

    def items(self) -> list[tuple[str, dict[str, float]]]:
        """``(query_id, {measure: value})`` pairs, in row order."""
        return [(query_id, self[query_id]) for query_id in self.query_ids]

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {query_id: row for row, query_id in enumerate(self.query_ids)}

    @cached_property
    def _columns(self) -> list[list[float]]:
        return [self.score_list(m) for m in self.measures]

    def score_dict(self, name: str | Measure) -> dict[str, float]:
        """Per-query values of one measure, ``{query_id: value}``.

        Examples
        --------
        >>> import rankscope
        >>> results = rankscope.evaluate({"q1": {"a": 1}, "q2": {"b": 1}},
        ...                              {"q1": ["a"], "q2": ["c", "b"]}, ["RR", "P@1"])
        >>> results.score_dict("RR")
        {'q1': 1.0, 'q2': 0.5}
        >>> results["q2"], results["recip_rank"], len(results), list(results)
        ({'RR': 0.5, 'P@1': 0.0}, {'q1': 1.0, 'q2': 0.5}, 2, ['q1', 'q2'])
        """
        column = self._columns[self._column(name)]
        return dict(zip(self.query_ids, column, strict=True))

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
        import numpy as np  # a dependency, imported only when asked for

        values: FloatArray = np.frombuffer(memoryview(column), dtype=np.float64)
        return values

    def score_list(self, name: str | Measure) -> list[float]:
        """Per-query values of one measure as a list of floats (no numpy needed)."""
        return cast(list[float], memoryview(self.values.column(self._column(name))).tolist())

    def only_queries(self, query_ids: list[str]) -> Results:
        """These results restricted to some queries (aggregates over them alone); a query id
        that was not evaluated is an error."""
        known = self.query_ids
        missing = [q for q in query_ids if q not in known]
        if missing:
            raise MeasureError(f"queries {missing} were not evaluated")
        rows = [row for row, q in enumerate(known) if q in set(query_ids)]
        columns = [self.score_list(m) for m in self.measures]
        return self._with_values(
            [known[row] for row in rows], [[column[row] for row in rows] for column in columns]
        )

    def _with_values(self, query_ids: list[str], columns: list[list[float]]) -> Results:
        """These results with other per-query values: one column per measure, in the order of
        ``query_ids``."""
        values = PerQuery(
            query_ids,
            [m.name for m in self.measures],
            [FAMILIES[m.family].aggregate for m in self.measures],
            columns,
        )
        return Results(
            self.measures,
            profile=self.profile,
            run_name=self.run_name,
            unjudged_queries=self.unjudged_queries,
            missing_queries=self.missing_queries,
            complete=self.complete,
            names=self.names,
            values=values,
        )

    def mean(self) -> MeasureValues:
        """The aggregate of every measure over the evaluated queries.

        The arithmetic mean, except where trec_eval aggregates otherwise: ``GM_AP`` is a
        geometric mean (values floored at 1e-5), ``NumRet``, ``NumRel`` and ``NumRelRet`` are
        totals, ``NumQ`` the number of queries. Keyed by the names given (see
        `MeasureValues`: canonical names and aliases find the same values).
        """
        pairs = zip(self.names, self.values.aggregates(), strict=True)
        return MeasureValues(pairs, self.measures)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {measure name: value}}``, the shape pytrec_eval returns, each measure
        keyed by the name given.

        One difference: a query's ``GM_AP`` here is its AP (the geometric mean is in
        :meth:`mean`), where pytrec_eval gives the logarithm of it.
        """
        if all(name == m.name for name, m in zip(self.names, self.measures, strict=True)):
            return self.values.to_dict()
        return self.values.to_dict([(name, index) for index, name in enumerate(self.names)])

    @cached_property
    def per_query(self) -> pl.DataFrame:
        """The per-query table as a polars DataFrame: ``query_id`` and one Float64 column per
        measure (canonical name). Built on first use, from the core's Arrow stream."""
        import polars as pl  # a dependency, imported only when asked for

        return pl.DataFrame(self.values)

    def to_polars(self) -> pl.DataFrame:
        """The per-query table as a polars DataFrame (a copy)."""
        return self.per_query.clone()

    def to_pandas(self) -> Any:
        """The per-query table as a pandas DataFrame (needs pandas and pyarrow: the ``pandas``
        extra)."""
        require(("pandas", "pyarrow"), "Results.to_pandas", "pandas")  # via Arrow
        import pyarrow

        return pyarrow.table(self.values).to_pandas()

    def _repr_html_(self) -> str:
        """Jupyter's view: the aggregates as a table, rounded as the command line rounds
        them, the per-query values folded under it (`rankscope.report.results.results_html`)."""
        from rankscope.report.results import results_html

        return results_html(self)

    def __repr__(self) -> str:
        means = ", ".join(
            f"{name}={value:.4f}" if not math.isnan(value) else f"{name}=nan"
            for name, value in self.mean().items()
        )
        return f"Results({self.run_name!r}, {self.num_queries} queries, {means})"


class ResultsByRun(Mapping[str, "Results"]):
    """What `rankscope.evaluate` returns for a dict of runs ``{name: run}``: each run's
    `Results` by its name, in the order given, and one table of them all, as the command line
    prints several runs (a ``run`` column beside the measures).

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> both = rankscope.evaluate(
    ...     qrels, {"bm25": {"q1": ["x", "a"], "q2": ["b"]}, "dense": {"q1": ["a"], "q2": ["b"]}},
    ...     ["mrr", "P@1"])
    >>> both.mean()
    {'bm25': {'mrr': 0.75, 'P@1': 0.5}, 'dense': {'mrr': 1.0, 'P@1': 1.0}}
    >>> both["bm25"]["q1"], list(both), len(both)
    ({'mrr': 0.5, 'P@1': 0.0}, ['bm25', 'dense'], 2)
    >>> print(both)
    run    RR      P@1
    bm25   0.7500  0.5000
    dense  1.0000  1.0000
    >>> both.per_query.rows()
    [('bm25', 'q1', 0.5, 0.0), ('bm25', 'q2', 1.0, 1.0), ('dense', 'q1', 1.0, 1.0),
     ('dense', 'q2', 1.0, 1.0)]
    """

    def __init__(self, runs: Mapping[str, Results]) -> None:
        if not runs:
            raise TypeError("ResultsByRun needs the results of at least one run")
        self.runs: dict[str, Results] = dict(runs)

    def __getitem__(self, name: str) -> Results:
        try:
            return self.runs[name]
        except KeyError:
            raise KeyError(f"no run named {name!r}; runs: {', '.join(self.runs)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def measures(self) -> tuple[Measure, ...]:
        """The measures computed (the same for every run), in the order asked."""
        return next(iter(self.runs.values())).measures

    def mean(self) -> dict[str, MeasureValues]:
        """Each run's aggregates, ``{run: {measure: value}}`` (see `Results.mean`)."""
        return {name: results.mean() for name, results in self.runs.items()}

    def to_dict(self) -> dict[str, dict[str, dict[str, float]]]:
        """``{run: {query_id: {measure: value}}}`` (see `Results.to_dict`)."""
        return {name: results.to_dict() for name, results in self.runs.items()}

    @cached_property
    def per_query(self) -> pl.DataFrame:
        """One table of every run's per-query values: ``run``, ``query_id`` and one Float64
        column per measure (canonical name), the runs in the order given."""
        import polars as pl  # a dependency, imported only when asked for

        return pl.concat(
            [
                results.per_query.select(pl.lit(name, pl.String).alias("run"), pl.all())
                for name, results in self.runs.items()
            ]
        )

    def to_polars(self) -> pl.DataFrame:
        """The aggregates as a polars DataFrame: ``run`` and one Float64 column per measure
        (canonical name), one row per run (for every query's values: :attr:`per_query`)."""
        from rankscope.report.results import results_frame

        return results_frame(list(self.runs.values()), per_query=False).drop("query_id")

    def to_pandas(self) -> Any:
        """:meth:`to_polars` as a pandas DataFrame (the ``pandas`` extra)."""
        require(("pandas", "pyarrow"), "ResultsByRun.to_pandas", "pandas")
        return self.to_polars().to_pandas()

    def __str__(self) -> str:
        """The command line's table of the runs' aggregates."""
        from rankscope.report.results import render

        return render(list(self.runs.values()), "table").rstrip("\n")

    def _repr_html_(self) -> str:
        """Jupyter's view: the runs' aggregates as one table, rounded as the command line
        rounds them."""
        from rankscope.report.results import html_table, table_rows

        header, rows = table_rows(list(self.runs.values()), per_query=False)
        return f'<div class="rankscope-results">{html_table(header, rows)}</div>'

    def __repr__(self) -> str:
        measures = ", ".join(next(iter(self.runs.values())).names)
        return f"ResultsByRun({', '.join(map(repr, self.runs))}; {measures})"
