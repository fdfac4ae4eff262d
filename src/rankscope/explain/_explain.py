"""`explain`: one measure under several profiles, and which conventions make the numbers differ.

For each pair of profiles whose values differ, the conventions that differ between them are
switched from the first profile's value to the second's, one at a time, in the order of the
core's table of conventions (`rankscope.engine.profiles.ALLOWED`: how the ranking is formed
first, then what the measures count). The change of the mean (and of every query's value) at
each step is that convention's contribution along the walk; the contributions add up to the
whole difference. Two more views tell conventions that interact apart from those that add up:
each convention switched *alone* (from the first profile) and switched *last* (the second
profile with only that convention put back). Where the two disagree the convention interacts
with another, and the pairs that do are named with the size of their interaction. A step that
cannot be evaluated on its own (the measure is not defined under the mixed conventions, or a
document ranked twice is an error there) is merged with the next one. What the walk does not
reach is reported as unexplained.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankscope.engine import evaluate
from rankscope.engine.measures import Measure
from rankscope.engine.measures import measure as parse_measure
from rankscope.engine.profiles import ALLOWED, PROFILES, Conventions, resolve_profile
from rankscope.errors import OptionError, RankscopeError
from rankscope.explain._data import Finding, find_causes

if TYPE_CHECKING:
    import polars as pl

    from rankscope.explain._against import Against

__all__ = [
    "CONVENTION_ORDER",
    "Contribution",
    "Explanation",
    "Interaction",
    "Pair",
    "ProfileValues",
    "Step",
    "explain",
]

CONVENTION_ORDER: tuple[str, ...] = tuple(ALLOWED)
"""The order conventions are switched in: the core's table of conventions (every one the core
defines, new ones included)."""

TOLERANCE = 1e-12
"""Values closer than this are the same (sums taken in another order)."""

TOP_QUERIES = 5
"""How many queries each contribution names, by default."""


@dataclass(frozen=True)
class ProfileValues:
    """The measure under one profile: its mean and each query's value, or why it cannot be
    computed there (``error``)."""

    profile: str
    mean: float | None
    per_query: Mapping[str, float]
    error: str | None = None


@dataclass(frozen=True)
class Step:
    """One step of the walk from the first profile's conventions to the second's.

    Attributes
    ----------
    conventions
        The conventions switched at this step (several when a step alone could not be
        evaluated), each as ``(field, from, to)``.
    change
        The change of the mean.
    per_query
        Each query's change (only those that changed), largest first.
    """

    conventions: tuple[tuple[str, str, str], ...]
    change: float
    per_query: tuple[tuple[str, float], ...]

    @property
    def label(self) -> str:
        """The conventions switched, joined with ``+``."""
        return " + ".join(name for name, _, _ in self.conventions)


@dataclass(frozen=True)
class Contribution:
    """What one convention that differs between two profiles does to the measure.

    Attributes
    ----------
    convention
        Its field name (``ordering``).
    first, second
        Its value under the first and the second profile.
    walk
        Its change of the mean along the walk (its step's, shared when steps were merged).
    alone
        The change when it alone is switched, from the first profile (None: not computable).
    last
        The change when it is switched last: the second profile minus the second profile with
        this convention put back (None: not computable).
    share
        ``walk`` as a part of the whole difference.
    queries
        The queries its step changed most, with their changes.
    merged_with
        Conventions switched in the same step (when this one could not be evaluated alone).
    """

    convention: str
    first: str
    second: str
    walk: float
    alone: float | None
    last: float | None
    share: float
    queries: tuple[tuple[str, float], ...]
    merged_with: tuple[str, ...] = ()

    @property
    def interacts(self) -> bool:
        """Whether its effect alone and its effect switched last differ."""
        if self.alone is None or self.last is None:
            return False
        return abs(self.alone - self.last) > TOLERANCE


@dataclass(frozen=True)
class Interaction:
    """Two conventions whose effects do not add: ``amount`` is the effect of switching both
    minus the effects of switching each alone (from the first profile)."""

    conventions: tuple[str, str]
    amount: float


@dataclass(frozen=True)
class Pair:
    """Why the measure differs between two profiles.

    Attributes
    ----------
    first, second
        The profiles' names; differences are ``second - first``.
    difference
        The difference of the means.
    queries
        Each query whose value differs: ``(query, first value, second value)``, largest
        difference first.
    compared
        How many queries both profiles scored.
    steps
        The walk, step by step.
    contributions
        One per convention that differs, in the order switched.
    interactions
        The pairs of conventions whose effects do not add.
    unexplained
        The part of the difference the walk does not reach (0 when the conventions account
        for all of it).
    unexplained_queries
        The queries whose difference the walk does not reach, with the part not reached.
    """

    first: str
    second: str
    difference: float
    queries: tuple[tuple[str, float, float], ...]
    compared: int
    steps: tuple[Step, ...]
    contributions: tuple[Contribution, ...]
    interactions: tuple[Interaction, ...]
    unexplained: float
    unexplained_queries: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Explanation:
    """What `explain` returns: the measure under each profile, why each pair differs, the
    causes in the data, and (with ``against``) which profile reproduces another tool's
    numbers. Printing it gives the text report; `to_markdown`, `to_json` and `to_frame` give
    the others.

    Attributes
    ----------
    measure
        The measure's canonical name.
    profiles
        The measure under each profile, in the order given.
    pairs
        Every pair of profiles whose values differ.
    findings
        The properties of the data that let conventions matter.
    against
        The comparison with another tool's values, if asked for.
    queries
        How many queries were evaluated (under the first profile).
    """

    measure: str
    profiles: tuple[ProfileValues, ...]
    pairs: tuple[Pair, ...]
    findings: tuple[Finding, ...]
    against: Against | None = None
    queries: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)

    def profile(self, name: str) -> ProfileValues:
        """The values under the profile of that name."""
        for values in self.profiles:
            if values.profile == name:
                return values
        raise KeyError(f"{name!r} is not one of the profiles explained")

    def pair(self, first: str, second: str) -> Pair:
        """The explanation of the difference between two profiles (in either order)."""
        for pair in self.pairs:
            if (pair.first, pair.second) in ((first, second), (second, first)):
                return pair
        raise KeyError(f"{first!r} and {second!r} give the same values (or are not explained)")

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain values (what `to_json` writes)."""
        from rankscope.report.explain import explanation_dict

        return explanation_dict(self)

    def to_json(self) -> str:
        """The explanation as JSON."""
        from rankscope.report.explain import render_json

        return render_json(self)

    def to_markdown(self) -> str:
        """The explanation as Markdown tables."""
        from rankscope.report.explain import render_markdown

        return render_markdown(self)

    def to_text(self) -> str:
        """The explanation as plain text (what printing it shows)."""
        from rankscope.report.explain import render_text

        return render_text(self)

    def to_frame(self) -> pl.DataFrame:
        """Each query's value under each profile (and in the other tool's file): a polars
        DataFrame of ``query_id`` and one column per profile (``against``: the file's)."""
        import polars as pl

        queries = sorted({q for values in self.profiles for q in values.per_query})
        if self.against is not None:
            queries = sorted({*queries, *self.against.per_query})
        columns: dict[str, list[float | None]] = {
            values.profile: [values.per_query.get(q) for q in queries] for values in self.profiles
        }
        if self.against is not None:
            columns["against"] = [self.against.per_query.get(q) for q in queries]
        schema = {"query_id": pl.String, **{name: pl.Float64 for name in columns}}
        return pl.DataFrame({"query_id": queries, **columns}, schema=schema)

    def __str__(self) -> str:
        return self.to_text()


def _same(first: float, second: float) -> bool:
    if math.isnan(first) or math.isnan(second):
        return math.isnan(first) and math.isnan(second)
    return abs(first - second) <= TOLERANCE


def _difference(first: float, second: float) -> float:
    if math.isnan(first) and math.isnan(second):
        return 0.0
    return second - first


class Evaluator:
    """The measure on one pair of inputs under any conventions (and ``complete``), each
    evaluation done once: the inputs are read once, by the core."""

    def __init__(
        self,
        qrels: Any,
        run: Any,
        wanted: Measure,
        *,
        complete: bool,
        relevance_level: int,
        max_documents: int | None,
    ) -> None:
        self.qrels = qrels
        self.run = run
        self.measure = wanted
        self.complete = complete
        self.relevance_level = relevance_level
        self.max_documents = max_documents
        self._done: dict[tuple[Conventions, bool, int], ProfileValues] = {}

    def __call__(
        self,
        conventions: Conventions,
        complete: bool | None = None,
        relevance_level: int | None = None,
    ) -> ProfileValues:
        """The measure under ``conventions`` (and ``complete`` and ``relevance_level``, when
        given, instead of the evaluator's)."""
        scored = self.complete if complete is None else complete
        level = self.relevance_level if relevance_level is None else relevance_level
        key = (conventions, scored, level)
        if key not in self._done:
            self._done[key] = self._evaluate(conventions, scored, level)
        return self._done[key]

    def _evaluate(
        self, conventions: Conventions, complete: bool, relevance_level: int
    ) -> ProfileValues:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the causes in the data are reported instead
                results = evaluate(
                    self.qrels,
                    self.run,
                    [self.measure],
                    profile=conventions,
                    complete=complete,
                    relevance_level=relevance_level,
                    max_documents=self.max_documents,
                )
        except RankscopeError as error:
            return ProfileValues(conventions.name, None, {}, str(error))
        return ProfileValues(
            conventions.name,
            results.mean()[self.measure.name],
            results.score_dict(self.measure),
        )


def _changes(
    before: ProfileValues, after: ProfileValues
) -> tuple[float, tuple[tuple[str, float], ...]]:
    """The change of the mean and of each query's value (those that changed, largest first)."""
    assert before.mean is not None and after.mean is not None
    per_query = [
        (query, _difference(value, after.per_query[query]))
        for query, value in before.per_query.items()
        if query in after.per_query and not _same(value, after.per_query[query])
    ]
    per_query.sort(key=lambda item: (-abs(item[1]), item[0]))
    return _difference(before.mean, after.mean), tuple(per_query)


def _mean_change(before: ProfileValues, after: ProfileValues) -> float | None:
    if before.mean is None or after.mean is None:
        return None
    return _difference(before.mean, after.mean)


def _field_text(conventions: Conventions, name: str) -> str:
    """A convention's value as the core names it (a truth value as ``True`` or ``False``)."""
    return str(getattr(conventions, name))


def _explain_pair(
    evaluator: Evaluator,
    first: Conventions,
    second: Conventions,
    first_values: ProfileValues,
    second_values: ProfileValues,
    top: int,
) -> Pair:
    assert first_values.mean is not None and second_values.mean is not None
    difference, _ = _changes(first_values, second_values)
    shared = [q for q in first_values.per_query if q in second_values.per_query]
    queries = [
        (q, first_values.per_query[q], second_values.per_query[q])
        for q in shared
        if not _same(first_values.per_query[q], second_values.per_query[q])
    ]
    queries.sort(key=lambda item: (-abs(_difference(item[1], item[2])), item[0]))
    differing = [name for name in CONVENTION_ORDER if getattr(first, name) != getattr(second, name)]

    # The walk: one convention at a time, in the core's order; a step that cannot be
    # evaluated is merged with the next.
    steps: list[Step] = []
    state, reached, pending = first, first_values, []
    for name in differing:
        state = state.with_options(**{name: getattr(second, name)})
        pending.append(name)
        values = evaluator(state)
        if values.mean is None:
            continue
        change, per_query = _changes(reached, values)
        switched = tuple(
            (each, _field_text(first, each), _field_text(second, each)) for each in pending
        )
        steps.append(Step(switched, change, per_query))
        reached, pending = values, []
    assert reached.mean is not None  # the first profile's values, or a step's that was evaluated
    unexplained = _difference(reached.mean, second_values.mean)
    unexplained_queries = [
        (q, _difference(reached.per_query[q], second_values.per_query[q]))
        for q in shared
        if q in reached.per_query and not _same(reached.per_query[q], second_values.per_query[q])
    ]

    contributions = []
    for step in steps:
        names = [name for name, _, _ in step.conventions]
        for name in names:
            alone = _mean_change(
                first_values, evaluator(first.with_options(**{name: getattr(second, name)}))
            )
            last = _mean_change(
                evaluator(second.with_options(**{name: getattr(first, name)})), second_values
            )
            share = step.change / difference if not _same(difference, 0.0) else math.nan
            contributions.append(
                Contribution(
                    convention=name,
                    first=_field_text(first, name),
                    second=_field_text(second, name),
                    walk=step.change,
                    alone=alone,
                    last=last,
                    share=share,
                    queries=step.per_query[:top],
                    merged_with=tuple(other for other in names if other != name),
                )
            )
    for name in pending:  # switched, but never reached an evaluable state
        contributions.append(
            Contribution(
                name,
                _field_text(first, name),
                _field_text(second, name),
                0.0,
                None,
                None,
                0.0,
                (),
                tuple(pending),
            )
        )

    interacting = [c.convention for c in contributions if c.interacts]
    interactions = []
    for one, other in itertools.combinations(interacting, 2):
        both = evaluator(
            first.with_options(**{one: getattr(second, one), other: getattr(second, other)})
        )
        alone_one = next(c.alone for c in contributions if c.convention == one)
        alone_other = next(c.alone for c in contributions if c.convention == other)
        together = _mean_change(first_values, both)
        if together is None or alone_one is None or alone_other is None:
            continue
        amount = together - alone_one - alone_other
        if abs(amount) > TOLERANCE:
            interactions.append(Interaction((one, other), amount))

    return Pair(
        first=first.name,
        second=second.name,
        difference=difference,
        queries=tuple(queries),
        compared=len(shared),
        steps=tuple(steps),
        contributions=tuple(contributions),
        interactions=tuple(interactions),
        unexplained=unexplained,
        unexplained_queries=tuple(unexplained_queries),
    )


def _differ(first: ProfileValues, second: ProfileValues) -> bool:
    if first.mean is None or second.mean is None:
        return False
    if not _same(first.mean, second.mean) or first.per_query.keys() != second.per_query.keys():
        return True
    return any(not _same(v, second.per_query[q]) for q, v in first.per_query.items())


def _profiles(given: str | Conventions | Iterable[str | Conventions] | None) -> list[Conventions]:
    if given is None:
        return list(PROFILES.values())
    if isinstance(given, str | Conventions):
        given = [p.strip() for p in given.split(",")] if isinstance(given, str) else [given]
    chosen = [resolve_profile(p) for p in given]
    names = [c.name for c in chosen]
    if not chosen:
        raise OptionError("profiles: expected at least one profile; got none", option="profiles")
    if len(set(names)) != len(names):
        raise OptionError(
            f"profiles: expected each profile once (by name); got {', '.join(names)}",
            option="profiles",
        )
    return chosen


def explain(
    qrels: Any,
    run: Any,
    measure: str | Measure,
    *,
    profiles: str | Conventions | Sequence[str | Conventions] | None = None,
    against: Any = None,
    against_format: str | None = None,
    complete: bool = False,
    relevance_level: int = 1,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    top: int = TOP_QUERIES,
    lenient: bool = False,
) -> Explanation:
    """Why a measure differs between profiles (and from another tool's numbers).

    The measure is computed under each profile, means and per query; for each pair of
    profiles whose values differ, the conventions that differ are switched one at a time (see
    the module's docstring) and each one's part of the difference is recorded, with the
    queries where it matters most. The data is searched for what lets conventions matter
    (ties, float32 collisions, duplicates, negative grades, graded judgements, missing
    queries, rankings shorter than the cut-off), each counted.

    Parameters
    ----------
    qrels, run
        As `rankscope.evaluate` takes them.
    measure
        One measure (``"nDCG@10"``, ``"ndcg_cut.10"``, ...).
    profiles
        Profiles (names, a comma-separated string, or `Conventions`) to compare, in order.
        None: every built-in profile.
    against
        Another tool's output, a file (trec_eval's text with or without ``-q``, JSON
        ``{query: {measure: value}}``, a CSV of per-query values; see
        `rankscope.io._values`): which profile, or which profile with which conventions
        changed, reproduces it to the precision it was printed to.
    against_format
        ``"trec_eval"``, ``"json"`` or ``"csv"``; None: detected.
    complete, relevance_level, max_documents
        As `rankscope.evaluate` takes them, for every profile.
    duplicate_documents
        Every profile's policy for a document ranked twice, overridden (``"keep_first"``
        compares ``trec`` with the others on a run that ranks a document twice, where
        ``trec`` itself refuses it); None: each profile's own.
    top
        How many queries each contribution names.
    lenient
        For inputs given as file paths: skip malformed lines.

    Returns
    -------
    Explanation

    Examples
    --------
    A profile that differs from trec_eval's only in nDCG's gain: the gain accounts for the
    whole difference, all of it in the one query with a grade above 1.

    >>> import rankscope
    >>> qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1, "d4": 1}}
    >>> run = {"q1": {"d2": 0.9, "d1": 0.8}, "q2": {"d4": 0.5, "d3": 0.5}}
    >>> exp = rankscope.PROFILES["trec"].with_options(name="exp", gain="exp")
    >>> explanation = rankscope.explain(qrels, run, "nDCG@10", profiles=["trec", exp])
    >>> pair = explanation.pair("trec", "exp")
    >>> round(pair.difference, 4), pair.unexplained
    (-0.0315, 0.0)
    >>> [(c.convention, c.first, c.second, c.share, c.queries[0][0]) for c in pair.contributions]
    [('gain', 'linear', 'exp', 1.0, 'q1')]
    >>> [finding.cause for finding in explanation.findings]
    ['graded_judgements', 'short_rankings', 'ties']
    """
    from rankscope.io import as_qrels, as_run
    from rankscope.io._native import native_qrels, native_run

    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise OptionError(f"top must be an integer >= 0; got {top!r}", option="top")
    wanted = parse_measure(measure)
    chosen = _profiles(profiles)
    if duplicate_documents is not None:
        chosen = [c.with_options(duplicate_documents=duplicate_documents) for c in chosen]
    judgements = as_qrels(qrels, lenient=lenient)
    ranking = as_run(run, lenient=lenient)
    evaluator = Evaluator(
        native_qrels(judgements),
        native_run(ranking),
        wanted,
        complete=complete,
        relevance_level=relevance_level,
        max_documents=max_documents,
    )
    values = [evaluator(conventions) for conventions in chosen]
    if all(v.error is not None for v in values):
        evaluate(
            evaluator.qrels,
            evaluator.run,
            [wanted],
            profile=chosen[0],
            complete=complete,
            relevance_level=relevance_level,
            max_documents=max_documents,
        )  # raises the error every profile met, as evaluate words it
    pairs = [
        _explain_pair(evaluator, chosen[i], chosen[j], values[i], values[j], top)
        for i, j in itertools.combinations(range(len(chosen)), 2)
        if _differ(values[i], values[j])
    ]
    cutoff = wanted.cutoff if isinstance(wanted.cutoff, int) else None
    if max_documents is not None:
        cutoff = max_documents if cutoff is None else min(cutoff, max_documents)
    findings = find_causes(judgements, ranking, cutoff=cutoff, relevance_level=relevance_level)
    compared = None
    if against is not None:
        from rankscope.explain._against import match_against
        from rankscope.io.tables import RELEVANCE

        grades = judgements.frame[RELEVANCE].unique().to_list()
        compared = match_against(evaluator, chosen, values, against, against_format, grades)
    evaluated = next((len(v.per_query) for v in values if v.error is None), 0)
    return Explanation(
        measure=wanted.name,
        profiles=tuple(values),
        pairs=tuple(pairs),
        findings=tuple(findings),
        against=compared,
        queries=evaluated,
        options={
            "complete": complete,
            "relevance_level": relevance_level,
            "max_documents": max_documents,
            "duplicate_documents": duplicate_documents,
        },
    )
