"""Agreement between two sets of judgements: on the pairs both judge (Cohen's κ, Krippendorff's
α, the confusion matrix), and on the leaderboards each gives a set of runs (Kendall's τ, τ_AP,
Spearman's ρ, rank-biased overlap, the pairs of systems that swap).

κ comes from scikit-learn, α from the ``krippendorff`` package, τ and ρ from scipy: the
``judge`` extra installs them, and each is imported when first needed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankscope.engine import Measure, evaluate, parse_measures
from rankscope.engine.provenance import distinct_names
from rankscope.errors import InputError, MissingDependencyError, OptionError, RankscopeWarning
from rankscope.io import Qrels, as_qrels
from rankscope.io._native import native_qrels, native_run
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE
from rankscope.judge._correlation import rbo, tau_ap
from rankscope.judge._ranked import QrelsLike, RunLike, as_run_list

__all__ = [
    "JudgementAgreement",
    "MeasureAgreement",
    "RankingAgreement",
    "judgement_agreement",
    "ranking_agreement",
]


def _sklearn_metrics() -> Any:
    try:
        from sklearn import metrics
    except ImportError as error:
        raise MissingDependencyError("scikit-learn", "Cohen's kappa", "judge") from error
    return metrics


def _krippendorff() -> Any:
    try:
        import krippendorff
    except ImportError as error:
        raise MissingDependencyError("krippendorff", "Krippendorff's alpha", "judge") from error
    return krippendorff


def _scipy_stats() -> Any:
    try:
        from scipy import stats
    except ImportError as error:
        raise MissingDependencyError(
            "scipy", "Kendall's tau and Spearman's rho", "judge"
        ) from error
    return stats


@dataclass(frozen=True)
class JudgementAgreement:
    """How two sets of judgements agree on the (query, document) pairs both judge.

    Attributes
    ----------
    shared
        Pairs both judge (of a pair judged twice in one set, the first judgement counts, as in
        an evaluation).
    only_a, only_b
        Pairs judged by one set alone.
    relevance_level
        The lowest grade that counts as relevant for the binary κ.
    grades
        Every grade either set gives a shared pair, ascending.
    confusion
        ``confusion[i][j]``: shared pairs graded ``grades[i]`` by the first set and
        ``grades[j]`` by the second.
    same_grade, same_relevance
        The share of shared pairs with the same grade, and on the same side of the relevance
        level.
    kappa
        Cohen's κ of relevance (grade >= ``relevance_level``) against non-relevance.
    kappa_linear, kappa_quadratic
        Cohen's κ over the grades, disagreements weighted by the distance between the grades
        (linear) or its square (quadratic).
    alpha
        Krippendorff's α with the ordinal metric over the grades.

    A coefficient is NaN where it is undefined: when every shared pair has one and the same
    grade (or relevance), chance agreement is perfect and κ is 0/0.
    """

    shared: int
    only_a: int
    only_b: int
    relevance_level: int
    grades: tuple[int, ...]
    confusion: tuple[tuple[int, ...], ...]
    same_grade: float
    same_relevance: float
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (NaN as None)."""

        def clean(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "pairs": {"shared": self.shared, "only_a": self.only_a, "only_b": self.only_b},
            "relevance_level": self.relevance_level,
            "same_grade": clean(self.same_grade),
            "same_relevance": clean(self.same_relevance),
            "kappa": clean(self.kappa),
            "kappa_linear": clean(self.kappa_linear),
            "kappa_quadratic": clean(self.kappa_quadratic),
            "alpha_ordinal": clean(self.alpha),
            "grades": list(self.grades),
            "confusion": [list(row) for row in self.confusion],
        }


def _first_judgements(qrels: Qrels, column: str) -> pl.DataFrame:
    if qrels.has_subtopics:
        raise InputError(
            "agreement is measured per (query, document); these qrels judge subtopics",
            source=qrels.source,
        )
    return qrels.frame.unique([QUERY_ID, DOC_ID], keep="first", maintain_order=True).select(
        QUERY_ID, DOC_ID, pl.col(RELEVANCE).alias(column)
    )


def _alpha(first: list[int], second: list[int], grades: list[int]) -> float:
    if len(grades) < 2:
        return math.nan  # one value only: no disagreement is possible, alpha is 0/0
    value = _krippendorff().alpha(
        reliability_data=[first, second], value_domain=grades, level_of_measurement="ordinal"
    )
    return float(value)


def judgement_agreement(
    qrels_a: QrelsLike, qrels_b: QrelsLike, relevance_level: int = 1, *, lenient: bool = False
) -> JudgementAgreement:
    """Cohen's κ (binary, and weighted over grades), Krippendorff's ordinal α and the
    confusion matrix of two sets of judgements, on the pairs both judge.

    Parameters
    ----------
    qrels_a, qrels_b
        The judgements (`Qrels`, dicts or files), without subtopics.
    relevance_level
        Lowest grade that counts as relevant for the binary κ.
    lenient
        For files: skip malformed lines (counted in a warning) instead of stopping.

    Raises
    ------
    InputError
        When the two share no judged pair.
    MissingDependencyError
        When scikit-learn or krippendorff is missing (``pip install 'rankscope[judge]'``).

    Examples
    --------
    >>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 0}}
    >>> b = {"q1": {"d1": 2, "d2": 1, "d3": 1, "d4": 0}, "q2": {"d5": 1}}
    >>> found = judgement_agreement(a, b)
    >>> found.shared, found.only_b, round(found.kappa, 4), found.confusion
    (4, 1, 0.5, ((1, 1, 0), (0, 1, 0), (0, 0, 1)))
    """
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
        raise OptionError(f"relevance_level must be an integer; got {relevance_level!r}")
    judged_a, judged_b = (as_qrels(qrels, lenient=lenient) for qrels in (qrels_a, qrels_b))
    first, second = _first_judgements(judged_a, "a"), _first_judgements(judged_b, "b")
    joined = first.join(second, on=[QUERY_ID, DOC_ID], how="inner")
    if joined.height == 0:
        raise InputError(
            f"the two qrels ({judged_a.source} and {judged_b.source}) share no judged "
            "(query, document) pair"
        )
    grades_a, grades_b = joined["a"].to_list(), joined["b"].to_list()
    grades = sorted(set(grades_a) | set(grades_b))
    relevant_a = [grade >= relevance_level for grade in grades_a]
    relevant_b = [grade >= relevance_level for grade in grades_b]
    metrics = _sklearn_metrics()
    with warnings.catch_warnings():
        # κ is 0/0 when chance agreement is perfect (one label only): NaN, as documented.
        warnings.simplefilter("ignore")
        kappa = metrics.cohen_kappa_score(relevant_a, relevant_b, labels=[False, True])
        weighted = [
            metrics.cohen_kappa_score(grades_a, grades_b, labels=grades, weights=weights)
            for weights in ("linear", "quadratic")
        ]
        confusion = metrics.confusion_matrix(grades_a, grades_b, labels=grades)
    shared = joined.height
    return JudgementAgreement(
        shared=shared,
        only_a=first.height - shared,
        only_b=second.height - shared,
        relevance_level=relevance_level,
        grades=tuple(grades),
        confusion=tuple(tuple(int(count) for count in row) for row in confusion),
        same_grade=sum(x == y for x, y in zip(grades_a, grades_b, strict=True)) / shared,
        same_relevance=sum(x == y for x, y in zip(relevant_a, relevant_b, strict=True)) / shared,
        kappa=float(kappa),
        kappa_linear=float(weighted[0]),
        kappa_quadratic=float(weighted[1]),
        alpha=_alpha(grades_a, grades_b, grades),
    )


@dataclass(frozen=True)
class MeasureAgreement:
    """How the leaderboards of one measure under two sets of judgements agree.

    Attributes
    ----------
    measure
        The measure.
    scores_a, scores_b
        Each run's score (the measure's aggregate) under the first and the second judgements,
        in the order of `RankingAgreement.runs`.
    kendall_tau
        Kendall's τ-b of the two leaderboards (scipy), ties accounted for.
    tau_ap
        AP correlation of the second leaderboard with the first as the truth (NaN with ties).
    spearman_rho
        Spearman's ρ of the two leaderboards (scipy), ties at their mean rank.
    rbo
        Rank-biased overlap of the two leaderboards (NaN with ties).
    swaps
        The pairs of runs the two order oppositely: ``(ahead under the first, ahead under the
        second)``, in the first leaderboard's order.
    """

    measure: str
    scores_a: tuple[float, ...]
    scores_b: tuple[float, ...]
    kendall_tau: float
    tau_ap: float
    spearman_rho: float
    rbo: float
    swaps: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RankingAgreement:
    """How the leaderboards two sets of judgements give a set of runs agree, per measure.

    Attributes
    ----------
    runs
        The runs, by distinct name, in the order given.
    queries
        The queries the leaderboards are computed on: those both sets judge.
    rbo_p
        The persistence of RBO.
    measures
        One `MeasureAgreement` per measure, in the order asked.
    """

    runs: tuple[str, ...]
    queries: int
    rbo_p: float
    measures: tuple[MeasureAgreement, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (NaN as None)."""

        def clean(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "runs": list(self.runs),
            "queries": self.queries,
            "rbo_p": self.rbo_p,
            "measures": [
                {
                    "measure": m.measure,
                    "scores_a": dict(zip(self.runs, map(clean, m.scores_a), strict=True)),
                    "scores_b": dict(zip(self.runs, map(clean, m.scores_b), strict=True)),
                    "kendall_tau": clean(m.kendall_tau),
                    "tau_ap": clean(m.tau_ap),
                    "spearman_rho": clean(m.spearman_rho),
                    "rbo": clean(m.rbo),
                    "swaps": [list(pair) for pair in m.swaps],
                }
                for m in self.measures
            ],
        }


def _leaderboard(names: Sequence[str], scores: Sequence[float]) -> list[str] | None:
    """The names by score, best first; None when two scores tie (the order is not defined)."""
    if len(set(scores)) < len(scores):
        return None
    return [name for _, name in sorted(zip(scores, names, strict=True), key=lambda s: -s[0])]


def _swaps(
    names: Sequence[str], first: Sequence[float], second: Sequence[float]
) -> tuple[tuple[str, str], ...]:
    position = {name: -score for name, score in zip(names, first, strict=True)}
    found = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if (first[i] - first[j]) * (second[i] - second[j]) < 0:
                ahead_a, ahead_b = (i, j) if first[i] > first[j] else (j, i)
                found.append((names[ahead_a], names[ahead_b]))
    return tuple(sorted(found, key=lambda pair: (position[pair[0]], position[pair[1]])))


def _measure_agreement(
    measure: str,
    names: Sequence[str],
    first: list[float],
    second: list[float],
    rbo_p: float,
) -> MeasureAgreement:
    stats = _scipy_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input, then returns NaN
        kendall = float(stats.kendalltau(first, second).statistic)
        spearman = float(stats.spearmanr(first, second).statistic)
    board_a, board_b = _leaderboard(names, first), _leaderboard(names, second)
    overlap = math.nan if board_a is None or board_b is None else rbo(board_a, board_b, rbo_p)
    return MeasureAgreement(
        measure=measure,
        scores_a=tuple(first),
        scores_b=tuple(second),
        kendall_tau=kendall,
        tau_ap=tau_ap(first, second),
        spearman_rho=spearman,
        rbo=overlap,
        swaps=_swaps(names, first, second),
    )


def ranking_agreement(
    qrels_a: QrelsLike,
    qrels_b: QrelsLike,
    runs: Sequence[RunLike],
    measures: str | Measure | Iterable[str | Measure],
    *,
    relevance_level: int = 1,
    rbo_p: float = 0.9,
    lenient: bool = False,
) -> RankingAgreement:
    """Compare the leaderboards two sets of judgements give ``runs``, measure by measure.

    Every run is evaluated with `rankscope.evaluate` (``trec`` profile) under each set of
    judgements, on the queries both judge; the two lists of scores are then compared with
    Kendall's τ-b and Spearman's ρ (scipy), τ_AP with the first set as the truth, and RBO.

    Parameters
    ----------
    qrels_a, qrels_b
        The judgements (`Qrels`, dicts or files); ``qrels_a`` is the reference of τ_AP.
    runs
        Two or more runs (`Run` objects, dicts or files).
    measures
        The measures whose leaderboards to compare.
    relevance_level
        Lowest grade that counts as relevant for binary measures.
    rbo_p
        The persistence of RBO (0 < p < 1).
    lenient
        For files: skip malformed lines (counted in a warning) instead of stopping.

    Examples
    --------
    >>> from rankscope import Run
    >>> a = {"q1": {"d1": 1, "d2": 0, "d3": 0}}
    >>> b = {"q1": {"d1": 0, "d2": 1, "d3": 0}}
    >>> runs = [Run.from_lists({"q1": docs}, name=name) for docs, name in
    ...         [(["d1", "d2", "d3"], "x"), (["d2", "d3", "d1"], "y"), (["d3", "d1", "d2"], "z")]]
    >>> [found] = ranking_agreement(a, b, runs, "RR").measures
    >>> found.scores_a, found.scores_b
    ((1.0, 0.3333333333333333, 0.5), (0.5, 1.0, 0.3333333333333333))
    >>> round(found.kendall_tau, 4), found.tau_ap, found.swaps
    (-0.3333, -0.5, (('x', 'y'), ('z', 'y')))
    """
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
        raise OptionError(f"relevance_level must be an integer; got {relevance_level!r}")
    if isinstance(rbo_p, bool) or not isinstance(rbo_p, int | float) or not 0.0 < rbo_p < 1.0:
        raise OptionError(f"rbo_p must lie strictly between 0 and 1; got {rbo_p!r}")
    wanted = parse_measures(measures)
    first, second = (as_qrels(qrels, lenient=lenient) for qrels in (qrels_a, qrels_b))
    shared = set(first.frame[QUERY_ID].unique().to_list()) & set(
        second.frame[QUERY_ID].unique().to_list()
    )
    if not shared:
        raise InputError(
            f"the two qrels ({first.source} and {second.source}) judge no query in common"
        )
    runs_read = as_run_list(runs, lenient)
    if len(runs_read) < 2:
        raise OptionError(f"comparing leaderboards needs at least two runs; got {len(runs_read)}")
    names = distinct_names([run.name for run in runs_read], [run.source for run in runs_read])
    ranked = [native_run(run) for run in runs_read]  # each handed to the core once
    scores: list[list[dict[str, float]]] = []
    for qrels in (first, second):
        restricted = native_qrels(
            Qrels(qrels.frame.filter(pl.col(QUERY_ID).is_in(shared)), qrels.source)
        )
        with warnings.catch_warnings():
            # Queries the other set does not judge are left out on purpose.
            warnings.simplefilter("ignore", RankscopeWarning)
            scores.append(
                [
                    evaluate(restricted, run, wanted, relevance_level=relevance_level).mean()
                    for run in ranked
                ]
            )
    return RankingAgreement(
        runs=tuple(names),
        queries=len(shared),
        rbo_p=float(rbo_p),
        measures=tuple(
            _measure_agreement(
                m.name,
                names,
                [means[m.name] for means in scores[0]],
                [means[m.name] for means in scores[1]],
                float(rbo_p),
            )
            for m in wanted
        ),
    )
