"""trec_eval's measure families, its ``-m`` syntax, and its exact output format.

trec_eval prints lines ``measure<TAB>query<TAB>value``, the measure name left-justified to 22
characters, values with 4 decimals (counts as integers), families in the order of its measure
table (not the order of ``-m``), each family's parameters in ascending order, queries sorted
byte-wise and the summary (``all``) last. The core selects the lines and renders them (the
native ``rankscope`` executable prints through the same code); this module hands it the
values.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from rankscope.engine import native
from rankscope.engine.measures import Measure, measure
from rankscope.engine.measures._registry import (
    TrecJudgements,
    trec_eval_nicknames,
)
from rankscope.engine.results import Results
from rankscope.errors import RankscopeWarning

__all__ = [
    "ALL_TREC",
    "OFFICIAL",
    "TrecMeasure",
    "format_trec_eval",
    "trec_eval_measures",
]

_NICKNAMES: dict[str, tuple[str, ...]] = trec_eval_nicknames()
ALL_TREC = _NICKNAMES["all_trec"]
OFFICIAL = _NICKNAMES["official"]


@dataclass(frozen=True)
class TrecMeasure:
    """One line kind of trec_eval output: its printed name and the measure behind it."""

    printed: str
    measure: Measure | None  # None for runid and relstring
    relstring: int | None = None  # relstring's length
    judgements: TrecJudgements = "qrels"  # what it is computed from (trec_eval's -R)


def _warn(message: str) -> None:
    warnings.warn(message, RankscopeWarning, stacklevel=3)


def trec_eval_measures(specs: list[str], collection_size: int = 0) -> list[TrecMeasure]:
    """The output lines for trec_eval ``-m`` arguments, in trec_eval's order.

    ``collection_size`` is trec_eval's ``-N`` (utility's last term).

    Examples
    --------
    >>> [line.printed for line in trec_eval_measures(["P.10,5", "map"])]
    ['map', 'P_5', 'P_10']
    """
    lines = native.trec_eval_lines(list(specs), collection_size, _warn)
    return [
        TrecMeasure(
            printed,
            None if name is None else measure(name),
            relstring,
            judgements,  # type: ignore[arg-type]
        )
        for printed, name, relstring, judgements in lines
    ]


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's ``-Z`` file: lines ``query_id measure mean stddev`` (measures by their
    printed names), as ``{(query_id, measure): (mean, stddev)}``; read by the core (which the
    native ``rankscope`` executable reads it with too)."""
    return native.read_zscores(path, path)


def format_trec_eval(
    results: Results,
    lines: list[TrecMeasure],
    per_query: bool,
    summary: bool = True,
    run_name: str | None = None,
    summary_from: dict[str, TrecMeasure] | None = None,
    relstrings: dict[str, str] | None = None,
    zscores: dict[tuple[str, str], tuple[float, float]] | None = None,
    summary_of: Results | None = None,
    absent: int = 0,
) -> str:
    """The text trec_eval prints for ``results``, byte for byte, for the given lines.

    ``summary_from`` maps a printed name to the line whose aggregate its summary shows
    instead (trec_eval's num_rel under ``-c``); ``summary_of`` holds the values the summary
    aggregates, where they are not ``results``' (trec_eval's ``-c -D N.QID``); ``relstrings``
    holds the relstring of each query (per query only, as trec_eval prints it). With
    ``zscores`` (trec_eval's ``-Z``), every value becomes its z-score against the file's mean
    and standard deviation for its query and printed name, the summaries aggregate the
    z-scores, and names get a ``Z``; ``absent`` judged queries without values count in those
    summaries as trec_eval counts them under ``-c -D N.QID`` (the core's ``Layout::absent``:
    0 to a mean or sum of z-scores, the floor to a geometric mean's, one to num_q).

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AP", "NumQ"])
    >>> lines = trec_eval_measures(["num_q", "map"])
    >>> print(format_trec_eval(results, lines, per_query=True), end="")
    map                   	q	1.0000
    num_q                 	all	1
    map                   	all	1.0000
    """
    run_name = run_name or results.run_name
    summary_from = summary_from or {}
    means = (summary_of or results).mean() if summary else {}
    with_values = per_query or zscores is not None
    values: list[list[float]] = []
    summaries: list[tuple[float, bool]] = []
    for line in lines:
        if line.measure is None:
            values.append([])
            summaries.append((0.0, False))
            continue
        values.append(results.score_list(line.measure) if with_values else [])
        source = summary_from.get(line.printed)
        if source is not None:
            mean = 0.0 if source.measure is None else means.get(source.measure.name, math.nan)
            summaries.append((mean, True))
        else:
            summaries.append((means.get(line.measure.name, math.nan), False))
    return native.format_trec_eval(
        [
            (line.printed, None if line.measure is None else line.measure.name, line.relstring)
            for line in lines
        ],
        results.query_ids,
        values,
        summaries,
        per_query=per_query,
        summary=summary,
        run_name=run_name,
        relstrings=relstrings,
        zscores=zscores,
        absent=absent,
    )
