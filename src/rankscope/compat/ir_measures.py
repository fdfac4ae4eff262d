"""ir_measures' API over rankscope's core: replace ``ir_measures.iter_calc`` and friends with
``rankscope.compat.ir_measures``'s and keep the rest of the code.

`iter_calc`, `calc_aggregate` and `evaluator` take ir_measures' measure objects (``nDCG@10``,
``P(rel=2)@5``; read through their names, as `rankscope.measure` reads them, so ir_measures is
not needed) or measure names, and
qrels and runs as ir_measures takes them — dicts, iterables of ``Qrel`` / ``ScoredDoc`` tuples,
pandas DataFrames — and as rankscope reads them besides (file paths, polars and Arrow frames).
They return ir_measures' shapes: `iter_calc` yields ``Metric(query_id, measure, value)`` with
the measure object given, `calc_aggregate` returns ``{measure: value}``.

As ir_measures: every judged query gets a value for every measure, 0 for a query missing from
the run; queries of the run without judgements are ignored. Rankings follow pytrec_eval (the
``trec9`` profile: scores rounded to float32 before sorting, ties by document id descending),
which is where ir_measures computes most measures; ir_measures' own ``RR@k`` (its msmarco
provider) and ``Judged@k`` order tied documents by document id ascending instead, so on tied
scores those two can differ.

Examples
--------
>>> from rankscope.compat import ir_measures
>>> qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8}, "q3": {"d3": 0.5}}
>>> ir_measures.calc_aggregate(["nDCG@10", "P@1"], qrels, run)
{'nDCG@10': 0.5, 'P@1': 0.5}
>>> list(ir_measures.iter_calc(["RR"], qrels, run))
[Metric(query_id='q1', measure='RR', value=1.0), Metric(query_id='q2', measure='RR', value=0.0)]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from rankscope.engine._evaluate import evaluate_native, native_ranking, plan
from rankscope.engine.measures import FAMILIES, Measure, measure
from rankscope.engine.native import aggregate
from rankscope.io._native import native_qrels

__all__ = ["Evaluator", "Metric", "calc_aggregate", "evaluator", "iter_calc"]


class Metric(NamedTuple):
    """One query's value of one measure, as ir_measures' ``Metric``."""

    query_id: str
    measure: Any
    value: float


def _measures(measures: Iterable[Any]) -> list[tuple[Any, Measure]]:
    """Each measure as given, with rankscope's reading of its name (repeats dropped)."""
    if isinstance(measures, str | Measure) or not isinstance(measures, Iterable):
        measures = [measures]  # one name, or one of ir_measures' objects
    pairs: dict[Any, Measure] = {}
    for given in measures:
        pairs.setdefault(given, measure(given))
    return list(pairs.items())


class Evaluator:
    """Measures and judgements, ready to score runs (ir_measures' ``evaluator``)."""

    def __init__(self, measures: Iterable[Hashable], qrels: Any) -> None:
        self._measures = _measures(measures)
        self._names = list(dict.fromkeys(m.name for _, m in self._measures))
        self._qrels = native_qrels(qrels)
        # Complete, so that a judged query a dict run holds with no document is evaluated (as
        # ir_measures has pytrec_eval do); the others missing from the run get 0.
        self._settled = plan([m for _, m in self._measures], "trec9", complete=True)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Every judged query's value of every measure: first the queries in the run (in
        byte-wise order of their ids, measures in the order given), then the judged queries
        missing from it, with 0 (sorted by measure name, then query id, as ir_measures)."""
        ranking = native_ranking(run, self._qrels)
        values, _, missing = evaluate_native(self._qrels, ranking, self._settled)
        if len(ranking) == 0:  # an empty run: every judged query is missing from it
            missing = values.query_ids()
        held = set(run) if isinstance(run, Mapping) else set()
        missing = [query_id for query_id in missing if query_id not in held]
        absent_rows = set(missing)
        columns = [values.column(self._names.index(m.name)) for _, m in self._measures]
        lists = [memoryview(column).tolist() for column in columns]
        for row, query_id in enumerate(values.query_ids()):
            if query_id in absent_rows:
                continue
            for (given, _), column in zip(self._measures, lists, strict=True):
                yield Metric(query_id, given, column[row])
        absent = sorted(
            ((str(given), query_id, given) for given, _ in self._measures for query_id in missing),
            key=lambda item: (item[0], item[1]),
        )
        for _, query_id, given in absent:
            yield Metric(query_id, given, 0.0)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """``{measure: value}``: the mean over the judged queries (counts: the total)."""
        per_measure: dict[Any, list[float]] = {given: [] for given, _ in self._measures}
        for metric in self.iter_calc(run):
            per_measure[metric.measure].append(metric.value)
        how = {given: FAMILIES[m.family].aggregate for given, m in self._measures}
        return {given: _aggregate(values, how[given]) for given, values in per_measure.items()}


def _aggregate(values: list[float], how: str) -> float:
    """As ir_measures: a mean added in order, or a total for the counting measures (NaN for a
    mean over no query)."""
    if how in ("sum", "count"):
        return float(sum(values))
    if how == "mean":
        return sum(values) / len(values) if values else float("nan")
    return aggregate(values, how)


def evaluator(measures: Iterable[Hashable], qrels: Any) -> Evaluator:
    """An `Evaluator` for these measures and judgements, to score several runs."""
    return Evaluator(measures, qrels)


def iter_calc(measures: Iterable[Hashable], qrels: Any, run: Any) -> Iterator[Metric]:
    """Yield ``Metric(query_id, measure, value)`` for every judged query and measure."""
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Hashable], qrels: Any, run: Any) -> dict[Any, float]:
    """``{measure: aggregate value}`` over the judged queries."""
    return Evaluator(measures, qrels).calc_aggregate(run)
