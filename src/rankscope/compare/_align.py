"""From evaluated runs to a comparison: per-query scores lined up by query id, then tested.

A paired test needs, for every measure, one score per query in the baseline and in each system,
in the same query order. Evaluated runs do not promise that: without ``complete`` a run that did
not retrieve anything for a judged query has no row for it. This module lines the scores up by
query id and makes the policy explicit:

- runs evaluated with ``complete=True`` score every judged query (0 where a run has nothing), so
  they all hold the same queries; if they do not, they were evaluated against different qrels,
  which is an error;
- otherwise the comparison is restricted to the queries every run holds, with a
  :class:`~rankscope.errors.RankscopeWarning` that counts the queries left out and names the
  first few, per run;
- no shared query at all is an error naming the runs.

Scores are never matched by position.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rankscope.engine.results import Results
from rankscope.errors import InputError, RankscopeWarning

__all__ = ["AlignedScores", "FloatArray", "align_results", "align_values"]

FloatArray = NDArray[np.float64]

# How many query ids a message names before it says "...".
SHOWN_IDS = 5


@dataclass(frozen=True)
class AlignedScores:
    """Per-query scores of a baseline and some systems, on the same queries, in the same order.

    Attributes
    ----------
    query_ids
        The queries compared, in the baseline's order (byte-wise by id).
    names
        The baseline's name, then the systems' names, all distinct.
    measures
        Canonical measure names, in the order they were evaluated.
    scores
        Name -> measure -> per-query scores aligned with :attr:`query_ids`.
    lacking
        Name -> queries that some other run holds and this one does not (and that were therefore
        left out of the comparison); empty for every run when the query sets agree.
    complete
        Whether the runs were evaluated with ``complete=True`` (missing queries scored 0).
    """

    query_ids: tuple[str, ...]
    names: tuple[str, ...]
    measures: tuple[str, ...]
    scores: Mapping[str, Mapping[str, FloatArray]]
    lacking: Mapping[str, tuple[str, ...]]
    complete: bool

    @property
    def baseline(self) -> str:
        """The baseline's name."""
        return self.names[0]

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems' names, in input order."""
        return self.names[1:]

    @property
    def left_out(self) -> tuple[str, ...]:
        """Queries held by some run but not compared, sorted."""
        return tuple(sorted({query for queries in self.lacking.values() for query in queries}))

    def baseline_scores(self) -> dict[str, FloatArray]:
        """Measure -> baseline scores: the first argument of :func:`rankscope.compare.compare`."""
        return dict(self.scores[self.baseline])

    def systems_scores(self) -> dict[str, dict[str, FloatArray]]:
        """System -> measure -> scores (second argument of :func:`rankscope.compare.compare`)."""
        return {name: dict(self.scores[name]) for name in self.systems}

    def note(self) -> str | None:
        """A sentence on the queries left out, or None when every run holds the same queries."""
        if not self.left_out:
            return None
        parts = [
            f"{name!r} lacks {len(queries)} ({_show_ids(queries)})"
            for name, queries in self.lacking.items()
            if queries
        ]
        left_out = len(self.left_out)
        return (
            f"{_count(left_out, 'query is', 'queries are')} not in every run and "
            f"{'was' if left_out == 1 else 'were'} left out; the comparison uses the "
            f"{_count(len(self.query_ids), 'query', 'queries')} all runs share: "
            f"{'; '.join(parts)}. Evaluate with complete=True (--complete) to score a "
            "judged query missing from a run as 0 instead."
        )


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _show_ids(queries: Sequence[str]) -> str:
    shown = ", ".join(queries[:SHOWN_IDS])
    return shown + (", ..." if len(queries) > SHOWN_IDS else "")


def align_results(
    baseline: Results, systems: Sequence[Results], names: Sequence[str] | None = None
) -> AlignedScores:
    """Line up the per-query scores of a baseline and systems by query id.

    Parameters
    ----------
    baseline
        The run the others are compared with.
    systems
        One or more runs, evaluated with the same measures and the same ``complete`` setting.
    names
        A distinct name for the baseline and each system, in that order; by default each run's
        ``run_name``.

    Returns
    -------
    AlignedScores

    Raises
    ------
    InputError
        If there is no system, the names are not distinct (or not one per run), the runs differ
        in measures or in ``complete``, runs evaluated with ``complete=True`` hold different
        queries, or no query is held by every run.

    Warns
    -----
    RankscopeWarning
        When the runs hold different queries: the comparison is restricted to the shared ones;
        the message counts and names those left out, per run.

    Examples
    --------
    >>> import warnings, rankscope
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> base = rankscope.evaluate(qrels, {"q1": ["a"], "q2": ["x", "b"], "q3": ["c"]}, "RR")
    >>> other = rankscope.evaluate(qrels, {"q1": ["x", "a"], "q2": ["b"]}, "RR")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     aligned = align_results(base, [other], names=["base", "other"])
    >>> aligned.query_ids, aligned.lacking["other"]
    (('q1', 'q2'), ('q3',))
    >>> aligned.scores["base"]["RR"].tolist(), aligned.scores["other"]["RR"].tolist()
    ([1.0, 0.5], [0.5, 1.0])
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    1 query is not in every run and was left out; ... 'other' lacks 1 (q3). ...

    With ``complete=True`` the missing query is scored 0 and nothing is left out:

    >>> base = rankscope.evaluate(
    ...     qrels, {"q1": ["a"], "q2": ["x", "b"], "q3": ["c"]}, "RR", complete=True
    ... )
    >>> other = rankscope.evaluate(qrels, {"q1": ["x", "a"], "q2": ["b"]}, "RR", complete=True)
    >>> aligned = align_results(base, [other], names=["base", "other"])
    >>> aligned.query_ids, aligned.scores["other"]["RR"].tolist()
    (('q1', 'q2', 'q3'), [0.5, 1.0, 0.0])
    """
    runs = [baseline, *systems]
    if not systems:
        raise InputError("expected at least one system to compare with the baseline, got none")
    names = _check_names(runs, names)
    measures = tuple(m.name for m in baseline.measures)
    for name, results in zip(names, runs, strict=True):
        found = tuple(m.name for m in results.measures)
        if found != measures:
            raise InputError(
                f"run {name!r} was evaluated with measures {list(found)}; expected the "
                f"baseline's {list(measures)}"
            )
        if results.complete != baseline.complete:
            raise InputError(
                f"run {name!r} was evaluated with complete={results.complete} but the baseline "
                f"{names[0]!r} with complete={baseline.complete}; evaluate every run alike"
            )

    query_sets = [set(results.query_ids) for results in runs]
    _check_some_shared(names, query_sets)
    shared = set.intersection(*query_sets)
    union = set.union(*query_sets)
    lacking = {
        name: tuple(sorted(union - queries))
        for name, queries in zip(names, query_sets, strict=True)
    }
    if baseline.complete and len(shared) != len(union):
        first = next(name for name, queries in lacking.items() if queries)
        raise InputError(
            f"the runs were evaluated with complete=True, which scores every judged query, yet "
            f"run {first!r} lacks {len(lacking[first])} queries others hold "
            f"({_show_ids(lacking[first])}); were they evaluated against different qrels?"
        )
    query_ids = tuple(query for query in baseline.query_ids if query in shared)
    scores = {
        name: _scores_in_order(results, query_ids, measures)
        for name, results in zip(names, runs, strict=True)
    }
    aligned = AlignedScores(
        query_ids=query_ids,
        names=names,
        measures=measures,
        scores=scores,
        lacking=lacking,
        complete=baseline.complete,
    )
    note = aligned.note()
    if note is not None:
        warnings.warn(note, RankscopeWarning, stacklevel=2)
    return aligned


def align_values(
    names: Sequence[str],
    measures: Sequence[str],
    values: Sequence[Mapping[str, Mapping[str, float]]],
) -> AlignedScores:
    """Line up per-query values ``{query_id: {measure: value}}`` (one mapping per run, the
    baseline first), as :func:`align_results` lines up evaluated runs: restricted to the
    queries every run holds, with the same warning, queries in byte-wise order.

    Examples
    --------
    >>> aligned = align_values(["a", "b"], ["AP"], [{"q1": {"AP": 0.5}}, {"q1": {"AP": 1.0}}])
    >>> aligned.query_ids, aligned.scores["b"]["AP"].tolist()
    (('q1',), [1.0])
    """
    chosen = tuple(names)
    if len(set(chosen)) != len(chosen) or len(chosen) != len(values):
        raise InputError(f"expected a distinct name per run; got {list(chosen)}")
    query_sets = [set(run) for run in values]
    _check_some_shared(chosen, query_sets)
    shared = sorted(set.intersection(*query_sets))  # code points: byte-wise in UTF-8
    union = set.union(*query_sets)
    aligned = AlignedScores(
        query_ids=tuple(shared),
        names=chosen,
        measures=tuple(measures),
        scores={
            name: {m: np.array([run[q][m] for q in shared], dtype=np.float64) for m in measures}
            for name, run in zip(chosen, values, strict=True)
        },
        lacking={
            name: tuple(sorted(union - queries))
            for name, queries in zip(chosen, query_sets, strict=True)
        },
        complete=False,
    )
    note = aligned.note()
    if note is not None:
        warnings.warn(note, RankscopeWarning, stacklevel=2)
    return aligned


def _check_names(runs: Sequence[Results], names: Sequence[str] | None) -> tuple[str, ...]:
    chosen = tuple(results.run_name for results in runs) if names is None else tuple(names)
    if len(chosen) != len(runs):
        raise InputError(f"names: expected one name per run ({len(runs)}), got {len(chosen)}")
    seen: set[str] = set()
    for name in chosen:
        if name in seen:
            raise InputError(
                f"two runs are named {name!r}; give each run a distinct name (names=...)"
            )
        seen.add(name)
    return chosen


def _check_some_shared(names: tuple[str, ...], query_sets: list[set[str]]) -> None:
    baseline_queries = query_sets[0]
    for name, queries in zip(names[1:], query_sets[1:], strict=True):
        if not baseline_queries & queries:
            raise InputError(
                f"run {name!r} and the baseline {names[0]!r} have no query in common "
                f"({len(queries)} and {len(baseline_queries)} evaluated queries); expected "
                "runs of the same queries, evaluated against the same qrels"
            )
    if not set.intersection(*query_sets):
        raise InputError(
            f"no query is evaluated in every run ({', '.join(repr(n) for n in names)}); "
            "expected runs of the same queries"
        )


def _scores_in_order(
    results: Results, query_ids: tuple[str, ...], measures: tuple[str, ...]
) -> dict[str, FloatArray]:
    position = {query: i for i, query in enumerate(results.query_ids)}
    if len(position) != results.per_query.height:
        raise InputError(f"run {results.run_name!r}: a query appears twice in its results")
    rows = np.fromiter((position[query] for query in query_ids), dtype=np.intp)
    return {
        measure: np.asarray(results.per_query[measure].to_numpy(), dtype=np.float64)[rows]
        for measure in measures
    }
