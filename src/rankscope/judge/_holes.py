"""Holes: the documents a run ranks that nobody judged, and how far they could move its scores."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import polars as pl

from rankscope.engine import Measure, Results, evaluate, parse_measures
from rankscope.errors import InputError, OptionError, RankscopeWarning
from rankscope.io import Qrels, Run, as_qrels
from rankscope.io._native import NativeQrels, native_qrels, native_run
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE
from rankscope.judge._ranked import RANK, QrelsLike, RunLike, as_run_list, check_depth, ranked

__all__ = ["RunHoles", "holes"]


@dataclass(frozen=True, eq=False)
class RunHoles:
    """One run's holes: how much of it is judged, which documents are not, and each measure
    with the holes judged both ways.

    Attributes
    ----------
    run_name
        The run.
    judged
        ``{k: Judged@k}``: the mean over the evaluated queries of the fraction of the top k
        that the qrels judge.
    unjudged
        ``query_id``, ``rank``, ``doc_id`` of every document absent from the qrels in the top
        ``max(judged)`` of an evaluated query, in rank order.
    measured
        The measures as the qrels stand (holes count as not relevant, as trec_eval counts them;
        a measure that skips unjudged documents, such as Bpref, skips them).
    holes_nonrelevant, holes_relevant
        The measures with every hole of the run (every document it retrieves for an evaluated
        query that the qrels do not hold, at any rank) judged not relevant (grade 0), and
        relevant at ``grade``.
    grade
        The grade the holes take in `holes_relevant`.
    holes
        The number of holes of the run, at any rank.
    """

    run_name: str
    judged: dict[int, float]
    unjudged: pl.DataFrame
    measured: Results
    holes_nonrelevant: Results
    holes_relevant: Results
    grade: int
    holes: int

    def bounds(self) -> dict[str, tuple[float, float]]:
        """``{measure: (value with the holes not relevant, value with them relevant)}``.

        For most measures these are the lowest and the highest values that judging the holes
        can give; a measure whose ideal grows with the number relevant (AP, R@k, nDCG) can
        fall below the second when only some holes turn out relevant.
        """
        low, high = self.holes_nonrelevant.mean(), self.holes_relevant.mean()
        return {name: (low[name], high[name]) for name in low}

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON: the run, Judged@k, the number of holes, each measure's value
        and bounds, and the unjudged documents of the top k by query."""
        measured = self.measured.mean()
        unjudged: dict[str, list[dict[str, Any]]] = {}
        for query_id, rank, doc_id in self.unjudged.iter_rows():
            unjudged.setdefault(query_id, []).append({"rank": rank, "doc_id": doc_id})
        return {
            "run": self.run_name,
            "queries": self.measured.num_queries,
            "judged": {f"Judged@{k}": value for k, value in self.judged.items()},
            "holes": self.holes,
            "grade": self.grade,
            "measures": {
                name: {
                    "value": measured[name],
                    "holes_nonrelevant": low,
                    "holes_relevant": high,
                }
                for name, (low, high) in self.bounds().items()
            },
            "unjudged": unjudged,
        }


def _check_cutoffs(cutoffs: int | Iterable[int]) -> tuple[int, ...]:
    if isinstance(cutoffs, int):
        cutoffs = (cutoffs,)
    checked = tuple(sorted({check_depth(k, "every cutoff") for k in cutoffs}))
    if not checked:
        raise OptionError("cutoffs must hold at least one k")
    return checked


def _filled(qrels: Qrels, gaps: pl.DataFrame, grade: int) -> Qrels:
    """The qrels with every hole of ``gaps`` judged ``grade``."""
    added = gaps.select(QUERY_ID, DOC_ID, pl.lit(grade, pl.Int64).alias(RELEVANCE))
    return Qrels(pl.concat([qrels.frame, added]), qrels.source)


def holes(
    qrels: QrelsLike,
    runs: Sequence[RunLike],
    measures: str | Measure | Iterable[str | Measure],
    cutoffs: int | Iterable[int] = (10,),
    *,
    relevance_level: int = 1,
    grade: int | None = None,
    lenient: bool = False,
) -> list[RunHoles]:
    """Each run's holes: Judged@k, the unjudged documents of its top k, and every measure with
    the holes judged not relevant and relevant.

    Runs are ranked and evaluated as `rankscope.evaluate` does under the ``trec`` profile; the
    evaluated queries are the judged ones each run holds.

    Parameters
    ----------
    qrels
        The judgements (a `Qrels`, a dict or a file); without subtopics.
    runs
        One or more runs (`Run` objects, dicts or files).
    measures
        The measures to bound, as `rankscope.evaluate` names them.
    cutoffs
        The k of Judged@k; the unjudged documents listed are those of the top largest k.
    relevance_level
        Lowest grade that counts as relevant for binary measures.
    grade
        The grade holes take when judged relevant; by default the highest grade of the qrels
        (at least ``relevance_level``).
    lenient
        For files: skip malformed lines (counted in a warning) instead of stopping.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d2": 0}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}  # d3 was never judged
    >>> [found] = holes(qrels, [run], ["P@3", "nDCG@3"], cutoffs=[3])
    >>> found.judged, found.unjudged.rows()
    ({3: 0.6666666666666666}, [('q1', 3, 'd3')])
    >>> {name: tuple(round(v, 4) for v in b) for name, b in found.bounds().items()}
    {'P@3': (0.3333, 0.6667), 'nDCG@3': (1.0, 0.9197)}

    Judged relevant at grade 2, d3 joins the ideal ranking ahead of d2: P@3 rises, nDCG@3 falls.
    """
    cutoff_list = _check_cutoffs(cutoffs)
    wanted = parse_measures(measures)
    judgements = as_qrels(qrels, lenient=lenient)
    if judgements.has_subtopics:
        raise InputError(
            "holes are counted per (query, document); these qrels judge subtopics",
            source=judgements.source,
        )
    top_grade = cast(int, judgements.frame[RELEVANCE].max())
    grade = max(top_grade, relevance_level) if grade is None else grade
    if isinstance(grade, bool) or not isinstance(grade, int) or grade < 1:
        raise OptionError(f"grade must be an integer >= 1; got {grade!r}")
    runs_read = as_run_list(runs, lenient)
    judged_pairs = judgements.frame.select(QUERY_ID, DOC_ID).unique()
    judged_queries = judged_pairs.select(QUERY_ID).unique()
    judged_at = [parse_measures(f"Judged@{k}")[0] for k in cutoff_list]
    judged_natively = native_qrels(judgements)
    found = []
    for run, frame in zip(runs_read, ranked(runs_read), strict=True):
        found.append(
            _run_holes(
                judgements,
                judged_natively,
                run,
                frame.join(judged_queries, on=QUERY_ID, how="semi"),
                judged_pairs,
                wanted,
                judged_at,
                cutoff_list,
                relevance_level,
                grade,
            )
        )
    return found


def _run_holes(
    qrels: Qrels,
    judged_natively: NativeQrels,
    run: Run,
    ranking: pl.DataFrame,
    judged_pairs: pl.DataFrame,
    measures: list[Measure],
    judged_at: list[Measure],
    cutoffs: tuple[int, ...],
    relevance_level: int,
    grade: int,
) -> RunHoles:
    gaps = ranking.join(judged_pairs, on=[QUERY_ID, DOC_ID], how="anti")
    ranked_natively = native_run(run)  # handed to the core once for the four evaluations
    measured = evaluate(judged_natively, ranked_natively, measures, relevance_level=relevance_level)
    with warnings.catch_warnings():
        # The queries left out are those of `measured`, which has said so already.
        warnings.simplefilter("ignore", RankscopeWarning)
        judged = evaluate(judged_natively, ranked_natively, judged_at).mean()
        low, high = (
            evaluate(
                _filled(qrels, gaps, value),
                ranked_natively,
                measures,
                relevance_level=relevance_level,
            )
            for value in (0, grade)
        )
    return RunHoles(
        run_name=run.name,
        judged={k: judged[m.name] for k, m in zip(cutoffs, judged_at, strict=True)},
        unjudged=gaps.filter(pl.col(RANK) <= cutoffs[-1]).select(QUERY_ID, RANK, DOC_ID),
        measured=measured,
        holes_nonrelevant=low,
        holes_relevant=high,
        grade=grade,
        holes=gaps.height,
    )
