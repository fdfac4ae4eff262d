"""pytrec_eval's API over rankscope's core: replace ``import pytrec_eval`` with ``from
rankscope.compat import pytrec_eval`` and nothing else changes.

`RelevanceEvaluator` takes the same arguments and measure sets (names, nicknames, trec_eval's
``measure.p1,p2`` and ``measure_p1`` forms, parameterless families expanded to trec_eval's
default parameters: ``ndcg_cut`` gives ``ndcg_cut_5`` ... ``ndcg_cut_1000``), and `evaluate`
returns the same dicts, keys and values: pytrec_eval is trec_eval 9, which the ``trec9`` profile
reproduces (scores rounded to float32 before sorting, ties by document id descending). As
pytrec_eval: only queries both judged (with at least one judgement) and in the run are
evaluated (a query the run holds with no document too: where pytrec_eval then crashes or gives
NaN, for gm_map, gm_bpref and iprec_at_recall, rankscope gives the measures' values for an
empty ranking; likewise for a query whose every grade is negative, where pytrec_eval counts no
document retrieved), queries of the run without judgements are ignored silently, ``runid`` and
``relstring`` are 0.0 per query, ``num_q`` is 1.0, and ``gm_map`` and ``gm_bpref`` are
per-query logarithms (``log(max(value, 1e-5))``; `compute_aggregated_measure` turns them into
geometric means).

Where pytrec_eval misbehaves, rankscope says so instead: parameters for ``ndcg``, ``G``,
``ndcg_rel`` or ``Rndcg`` (pytrec_eval can only pass numbers, which trec_eval reads as malformed
gain pairs and may crash on) and a ``utility`` without exactly four coefficients (pytrec_eval
scores 0) raise ValueError. Grades must be integers, ``relevance_level`` at least 1. The
preference and judgement-group nicknames (``all_prefs``, ``prefs``, ``qrels_jg``), which
pytrec_eval accepts but cannot compute, are unsupported measures here.

Examples
--------
>>> from rankscope.compat import pytrec_eval
>>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
>>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "q2": {"d5": 0.9, "d4": 0.1}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.3", "P.1"})
>>> evaluator.evaluate(run)["q1"]
{'map': 0.8333333333333333, 'P_1': 1.0, 'ndcg_cut_3': 0.9502344167898356}
>>> results = evaluator.evaluate(run)
>>> pytrec_eval.compute_aggregated_measure("map", [q["map"] for q in results.values()])
0.6666666666666666
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from rankscope.engine._evaluate import evaluate_native, evaluate_query, plan
from rankscope.engine.measures import FAMILIES
from rankscope.engine.measures._registry import (
    GEOMETRIC_MEAN_FLOOR,
    TrecName,
    trec_eval_nicknames,
    trec_eval_table,
)
from rankscope.engine.profiles import PROFILES
from rankscope.errors import EmptyInputError, OptionError, ParseError
from rankscope.io._native import native_qrels, native_run, trec_qrels_rows, trec_run_rows
from rankscope.report.trec_eval import trec_eval_measures

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

# pytrec_eval is trec_eval 9: the lines of trec_eval's table it computes (the registry says
# which), and the nicknames made of them alone.
_FULL_TABLE = {entry.name: entry for entry in trec_eval_table()}
_TABLE: dict[str, TrecName] = {
    name: entry for name, entry in _FULL_TABLE.items() if entry.pytrec_eval
}
supported_measures: frozenset[str] = frozenset(_TABLE)
supported_nicknames: dict[str, frozenset[str]] = {
    nickname: frozenset(names) & supported_measures
    for nickname, names in trec_eval_nicknames().items()
    # pytrec_eval reads qrels only: not the nicknames of preferences or judgement groups.
    if all(_FULL_TABLE[name].judgements in ("qrels", "any") for name in names)
}
# Families with one output key per parameter (``P_5``, ``iprec_at_recall_0.10``); the others
# print their bare name whatever their parameters.
_PER_PARAMETER = frozenset(
    name
    for name, entry in _TABLE.items()
    if entry.family is not None and entry.style in ("cutoffs", "levels", "factors")
)
# trec_eval reads these families' parameters as grade=gain pairs, which pytrec_eval's syntax
# cannot write.
_GAIN_PAIRS = frozenset(name for name, entry in _TABLE.items() if entry.style == "pairs")
# Keys pytrec_eval reports as 0.0 for every query: the lines that are not measures.
_ZEROS = frozenset(name for name, entry in _TABLE.items() if entry.family is None)
# Keys whose per-query value pytrec_eval reports as log(max(value, floor)): the measures
# aggregated by geometric mean.
_LOGARITHMS = frozenset(
    name
    for name, entry in _TABLE.items()
    if entry.family is not None and FAMILIES[entry.family].aggregate == "geometric_mean"
)
# As pytrec_eval: the measure, then "." or "_" and numbers separated by commas (a prefix match).
_PARAMETERS = r"{}[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"


def _combine_measures(measures: Iterable[str]) -> dict[str, set[str]]:
    """pytrec_eval's reading of a measure set: nicknames expanded, then ``{family: {parameter
    text, ...}}``; a family given with parameters anywhere keeps only those."""
    expanded: set[str] = set()
    for name in measures:
        expanded.update(supported_nicknames.get(name, {name}))
    combined: dict[str, set[str]] = collections.defaultdict(set)
    # Longest names first, so that a name is read as the family it most specifically starts
    # with (none of pytrec_eval's names is ambiguous this way; the order makes it explicit).
    families = sorted(supported_measures, key=lambda f: (-len(f), f))
    for name in sorted(expanded):
        if name in supported_measures:
            combined.setdefault(name, set())
            continue
        match = next(
            (
                (family, found)
                for family in families
                if (found := re.match(_PARAMETERS.format(re.escape(family)), name)) is not None
            ),
            None,
        )
        if match is None:
            raise ValueError(f"unsupported measure {name}")
        family, found = match
        combined[family].update(found.group(1).split(","))
    return combined


class RelevanceEvaluator:
    """Evaluate runs against judgements, as ``pytrec_eval.RelevanceEvaluator``.

    Parameters
    ----------
    query_relevance
        ``{query_id: {doc_id: grade}}`` with integer grades (negative: unjudged in the pool).
    measures
        trec_eval measure names, nicknames (``official``, ``set``, ``all_trec``) and
        parameterized forms (``ndcg_cut.10,20``, ``P_5``).
    relevance_level
        Lowest grade that counts as relevant for binary measures (trec_eval ``-l``).
    judged_docs_only_flag
        Drop retrieved documents without a judgement before scoring (trec_eval ``-J``).

    Examples
    --------
    >>> from rankscope.compat import pytrec_eval
    >>> evaluator = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"P_1", "success"})
    >>> evaluator.evaluate({"q": {"b": 2.0, "a": 1.0}})
    {'q': {'P_1': 0.0, 'success_1': 0.0, 'success_5': 1.0, 'success_10': 1.0}}
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
            raise OptionError(f"relevance_level must be an integer; got {relevance_level!r}")
        if relevance_level < 1:
            raise OptionError(
                f"relevance_level must be at least 1 (grades below it are not relevant); got "
                f"{relevance_level}"
            )
        conventions = PROFILES["trec9"]
        if judged_docs_only_flag:
            conventions = conventions.with_options(unjudged_documents="drop")
        # As pytrec_eval: queries without any judgement are not evaluated (and with none at
        # all, nothing is).
        self._judged = {query: docs for query, docs in query_relevance.items() if len(docs) > 0}
        self._qrels = native_qrels(self._judged) if self._judged else None
        self._keys, names = self._plan(_combine_measures(measures))
        # Complete: a judged query the run holds with no document is evaluated, as
        # pytrec_eval does; those the run does not hold at all are then left out.
        self._settled = plan(names, conventions, relevance_level=relevance_level, complete=True)

    @staticmethod
    def _plan(combined: dict[str, set[str]]) -> tuple[list[tuple[str, int]], list[str]]:
        """The output keys in trec_eval's order, each with the index of its measure among the
        measures the core computes (runid and relstring: any, their values are replaced)."""
        specs: list[str] = []
        key_of: dict[str, str] = {}  # trec_eval's printed name -> pytrec_eval's key
        for family, parameters in combined.items():
            text = ",".join(sorted(parameters))
            if parameters and family in _GAIN_PAIRS:
                raise ValueError(
                    f"measure {family}.{text}: trec_eval reads {family}'s parameters as "
                    "grade=gain pairs, which pytrec_eval's measure syntax cannot write; name "
                    f"{family} alone, or use rankscope.evaluate with nDCG(gains=...)"
                )
            if family == "utility" and parameters and len(parameters) != 4:
                raise ValueError(
                    f"measure utility.{text}: utility takes 4 distinct coefficients (a,b,c,d); "
                    f"got {len(parameters)}"
                )
            specs.append(f"{family}.{text}" if parameters else family)
            if family not in _PER_PARAMETER:
                key_of[f"{family}_{text}" if parameters else family] = family
        names: list[str] = []
        keys: list[tuple[str, int]] = []
        for line in trec_eval_measures(specs) if specs else []:
            if line.measure is None:  # runid or relstring
                keys.append((key_of[line.printed], 0))
                continue
            if line.measure.name not in names:
                names.append(line.measure.name)
            keys.append((key_of.get(line.printed, line.printed), names.index(line.measure.name)))
        if not names:  # runid or relstring alone: num_q carries the queries
            names.append("NumQ")
        return keys, names

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Evaluate a run, ``{query_id: {doc_id: score}}``: ``{query_id: {key: value}}`` for
        the queries both judged and in the run."""
        if not scores or self._qrels is None:
            return {}
        try:
            ranking = native_run(scores)
        except EmptyInputError:
            result = self._empty_rankings(scores)
        else:
            values, _, missing = evaluate_native(self._qrels, ranking, self._settled)
            result = values.to_dict(self._keys)
            for query_id in missing:
                if query_id not in scores:
                    del result[query_id]
        keys = {key for key, _ in self._keys}
        zeros = keys & _ZEROS
        logarithms = keys & _LOGARITHMS
        if zeros or logarithms:
            for per_query in result.values():
                for key in zeros:
                    per_query[key] = 0.0
                for key in logarithms:
                    per_query[key] = math.log(max(per_query[key], GEOMETRIC_MEAN_FLOOR))
        return result

    def _empty_rankings(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
        """A run without any document: each judged query it holds, as an empty ranking."""
        result: dict[str, Any] = {}
        for query_id in sorted(query for query in scores if query in self._judged):
            row = evaluate_query(
                list(self._judged[query_id].items()), [], self._settled, query_id=query_id
            )
            result[query_id] = {key: row[index] for key, index in self._keys}
        return result


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate one measure's per-query values as pytrec_eval does: ``num_*`` summed, ``gm_*``
    (per-query logarithms) as a geometric mean, every other measure averaged."""
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _parse_lines(lines: Iterable[str], what: str) -> dict[str, dict[str, Any]]:
    """``{query_id: {doc_id: value}}`` from TREC lines (``what``: "qrels" or "run"), read by
    the core's TREC reader; a document given twice for a query is an error, as pytrec_eval
    asserts."""
    source = str(getattr(lines, "name", f"<{what}>"))  # an open file's name
    texts = [line if line.endswith("\n") else line + "\n" for line in lines]
    table: dict[str, dict[str, Any]] = collections.defaultdict(dict)
    rows = _trec_rows("".join(texts).encode(), source, what)
    for row, (query_id, doc_id, number) in enumerate(rows.iter_rows()):
        docs = table[query_id]
        if doc_id in docs:
            line = _line_of_row(texts, row, source, what)
            raise ParseError(
                f"document {doc_id!r} appears twice for query {query_id!r}",
                source=source,
                line=line,
                text=texts[line - 1].rstrip("\r\n"),
            )
        docs[doc_id] = number  # an int grade or a float score, as pytrec_eval gives
    return table


def _trec_rows(data: bytes, source: str, what: str) -> Any:
    """The rows (query_id, doc_id, grade or score) of TREC lines as the core reads them."""
    import polars as pl

    if what == "qrels":
        return pl.DataFrame(trec_qrels_rows(data, source)).select("query_id", "doc_id", "relevance")
    return pl.DataFrame(trec_run_rows(data, source)[0])


def _line_of_row(texts: list[str], row: int, source: str, what: str) -> int:
    """The 1-based line that gave row ``row`` (blank and comment lines give none), as the core
    reads each line: looked for only when a message names it."""
    rows = 0
    for number, text in enumerate(texts, start=1):
        rows += len(_trec_rows(text.encode(), source, what))
        if rows > row:
            return number
    return len(texts)


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """Read qrels lines ``query_id iteration doc_id grade`` into ``{query_id: {doc_id: grade}}``.

    Examples
    --------
    >>> dict(parse_qrel(["q1 0 d1 2", "q1 0 d2 0"]))
    {'q1': {'d1': 2, 'd2': 0}}
    """
    return _parse_lines(f_qrel, "qrels")


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """Read run lines ``query_id Q0 doc_id rank score tag`` into ``{query_id: {doc_id: score}}``.

    Examples
    --------
    >>> dict(parse_run(["q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25"]))
    {'q1': {'d1': 2.5, 'd2': 1.5}}
    """
    return _parse_lines(f_run, "run")
