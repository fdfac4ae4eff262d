"""Another tool's numbers matched against each profile: which profile reproduces them, per
query and in the mean, to the precision they were printed to; and when none does, which
conventions changed from a profile (or ``complete``) do.

The search is small and exhaustive where it can be: every profile; then every profile with one
convention (or ``complete``, or the relevance level) set to each other value it allows; then,
if none of those reproduces the file, pairs of the single changes that move any value (those
that bring more queries into agreement first, at most `MAX_PAIRS` pairs).
The queries no configuration tried reproduces are reported as unexplained.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankscope.engine.measures import measure
from rankscope.engine.profiles import ALLOWED, Conventions
from rankscope.errors import InputError, MeasureError
from rankscope.io._values import MeasureValues, read_values, same_printed

if TYPE_CHECKING:
    from rankscope.explain._explain import Evaluator, ProfileValues

__all__ = ["Against", "Match", "match_against"]

SHOWN = 5
"""How many disagreeing queries a match names."""

MAX_PAIRS = 200
"""At most this many pairs of changes are tried."""

Change = tuple[str, str]


@dataclass(frozen=True)
class Match:
    """How one configuration (a profile, perhaps with some conventions changed) agrees with
    the other tool's values.

    Attributes
    ----------
    profile
        The profile's name.
    changes
        The conventions (or ``complete``, ``relevance_level``) changed from the profile, as
        ``(field, value)``.
    matched, compared
        How many of the queries both hold print the same.
    mean
        Our mean; None when it could not be computed (``error``).
    reported_mean
        The file's mean (its ``all``), if it has one.
    mean_matches
        Whether the means print the same (None: the file has no mean).
    disagreeing
        A few queries that do not: ``(query, ours, theirs)``.
    only_reported
        Queries the file holds and we did not score (how many).
    only_ours
        Queries we scored and the file does not hold (how many).
    error
        Why the configuration could not be evaluated.
    """

    profile: str
    changes: tuple[Change, ...]
    matched: int
    compared: int
    mean: float | None
    reported_mean: float | None
    mean_matches: bool | None
    disagreeing: tuple[tuple[str, float, float], ...]
    only_reported: int
    only_ours: int
    error: str | None = None

    @property
    def label(self) -> str:
        """``trec9``, or ``trec with score_precision=float32``."""
        if not self.changes:
            return self.profile
        changed = ", ".join(f"{name}={value}" for name, value in self.changes)
        return f"{self.profile} with {changed}"

    @property
    def reproduces(self) -> bool:
        """Whether every query and the mean print the same, and the queries are the same."""
        return (
            self.error is None
            and self.matched == self.compared
            and self.mean_matches is not False
            and self.only_reported == 0
            and (self.compared > 0 or self.mean_matches is True)
        )

    @property
    def score(self) -> tuple[int, int, int]:
        """What ranks configurations: agreeing queries, then the mean, then fewest changes."""
        return (self.matched - self.only_reported, int(bool(self.mean_matches)), -len(self.changes))


@dataclass(frozen=True)
class Against:
    """The other tool's values and how each configuration tried matches them.

    Attributes
    ----------
    source
        The file read.
    format
        Its format (``trec_eval``, ``json``, ``csv``).
    name
        The measure's name as the file writes it.
    decimals
        The precision the file prints the measure to.
    per_query
        The file's value of each query.
    mean
        The file's mean, if it has one.
    profiles
        How each profile matches, in the order explained.
    reproduced_by
        The configurations that reproduce the file (profiles first, then changed ones).
    best
        The closest configuration when none reproduces it (else None).
    unexplained
        Queries no configuration tried reproduces (the closest one's disagreements).
    """

    source: str
    format: str
    name: str
    decimals: int
    per_query: Mapping[str, float]
    mean: float | None
    profiles: tuple[Match, ...]
    reproduced_by: tuple[Match, ...]
    best: Match | None
    unexplained: tuple[tuple[str, float, float], ...]


def _column(values: MeasureValues, wanted: str) -> str:
    """The file's name of the measure explained."""
    target = measure(wanted)
    found = []
    for name in values.measure_names:
        try:
            if measure(name) == target:
                found.append(name)
        except MeasureError:
            continue
    if not found:
        raise InputError(
            f"no values of {wanted} in this file; it holds {', '.join(values.measure_names)}",
            source=values.source,
        )
    return found[0]


def _match(
    values: ProfileValues,
    changes: tuple[Change, ...],
    profile: str,
    reported: Mapping[str, float],
    reported_mean: float | None,
    decimals: int,
) -> Match:
    if values.mean is None:
        return Match(
            profile, changes, 0, 0, None, reported_mean, None, (), len(reported), 0, values.error
        )
    shared = [q for q in values.per_query if q in reported]
    disagreeing = [
        (q, values.per_query[q], reported[q])
        for q in shared
        if not same_printed(reported[q], values.per_query[q], decimals)
    ]
    disagreeing.sort(key=lambda item: (-abs(item[1] - item[2]), item[0]))
    mean_matches = (
        None if reported_mean is None else same_printed(reported_mean, values.mean, decimals)
    )
    return Match(
        profile=profile,
        changes=changes,
        matched=len(shared) - len(disagreeing),
        compared=len(shared),
        mean=values.mean,
        reported_mean=reported_mean,
        mean_matches=mean_matches,
        disagreeing=tuple(disagreeing[:SHOWN]),
        only_reported=sum(1 for q in reported if q not in values.per_query),
        only_ours=sum(1 for q in values.per_query if q not in reported),
    )


Setting = tuple[Conventions, bool, int]
"""What one evaluation is done under: conventions, ``complete`` and the relevance level."""

OPTIONS = ("complete", "relevance_level")
"""The options of `rankscope.evaluate` tried beside the conventions."""


def _single_changes(
    conventions: Conventions, complete: bool, relevance_level: int, grades: Sequence[int]
) -> list[Change]:
    """Every other value of every convention, ``complete`` flipped, and every other
    relevance level from 1 to the highest grade."""
    changes: list[Change] = []
    for name, allowed in ALLOWED.items():
        current = getattr(conventions, name)
        options = allowed or ("True", "False")
        changes += [(name, value) for value in options if value != str(current)]
    changes.append(("complete", str(not complete)))
    changes += [
        ("relevance_level", str(level))
        for level in range(1, max(grades, default=1) + 1)
        if level != relevance_level
    ]
    return changes


def _applied(start: Setting, changes: Sequence[Change]) -> Setting | None:
    conventions, complete, relevance_level = start
    fields: dict[str, Any] = {}
    for name, value in changes:
        if name == "complete":
            complete = value == "True"
        elif name == "relevance_level":
            relevance_level = int(value)
        elif ALLOWED[name]:
            fields[name] = value
        else:
            fields[name] = value == "True"
    try:
        return conventions.with_options(**fields), complete, relevance_level
    except (InputError, ValueError):
        return None


def _in_order(changes: list[Change]) -> list[Change]:
    """Changes in the order of the core's table of conventions (the options last)."""
    order = [*ALLOWED, *OPTIONS]
    return sorted(changes, key=lambda change: order.index(change[0]))


def match_against(
    evaluator: Evaluator,
    chosen: Sequence[Conventions],
    values: Sequence[ProfileValues],
    against: str | os.PathLike[str] | MeasureValues,
    format: str | None,
    grades: Sequence[int] = (),
) -> Against:
    """Which of ``chosen`` (or which convention changes of them) reproduces the values in
    the file ``against``."""
    read = against if isinstance(against, MeasureValues) else read_values(against, format)
    name = _column(read, evaluator.measure.name)
    decimals = read.decimals(name)
    reported = {q: printed.value for q, printed in read.per_query.get(name, {}).items()}
    reported_mean = read.means[name].value if name in read.means else None

    def tried(setting: Setting, changes: tuple[Change, ...]) -> Match:
        outcome = evaluator(*setting)
        return _match(outcome, changes, setting[0].name, reported, reported_mean, decimals)

    profiles = tuple(
        _match(v, (), c.name, reported, reported_mean, decimals)
        for c, v in zip(chosen, values, strict=True)
    )
    reproduced = [m for m in profiles if m.reproduces]
    # Single changes that move any value, those that bring more queries into agreement first:
    # the candidates for pairs.
    singles: list[tuple[tuple[int, int, int], Conventions, Match, Change]] = []
    if not reproduced:
        seen: set[Setting] = set()
        for conventions, base_values in zip(chosen, values, strict=True):
            start = (conventions, evaluator.complete, evaluator.relevance_level)
            changes = _single_changes(
                conventions, evaluator.complete, evaluator.relevance_level, grades
            )
            for change in changes:
                applied = _applied(start, [change])
                if applied is None or applied in seen:
                    continue
                seen.add(applied)
                outcome = evaluator(*applied)
                found = _match(
                    outcome, (change,), conventions.name, reported, reported_mean, decimals
                )
                if found.reproduces:
                    reproduced.append(found)
                elif outcome.error is None and (
                    outcome.per_query != base_values.per_query or outcome.mean != base_values.mean
                ):
                    singles.append((found.score, conventions, found, change))
    singles.sort(key=lambda single: single[0], reverse=True)
    if not reproduced:
        pairs = 0
        for (_, one_base, _, one), (_, other_base, _, other) in itertools.combinations(singles, 2):
            if one_base != other_base or one[0] == other[0]:
                continue
            if pairs >= MAX_PAIRS:
                break
            pairs += 1
            start = (one_base, evaluator.complete, evaluator.relevance_level)
            applied = _applied(start, _in_order([one, other]))
            if applied is not None:
                found = tried(applied, tuple(_in_order([one, other])))
                if found.reproduces:
                    reproduced.append(found)
    candidates = [*profiles, *(found for _, _, found, _ in singles)]
    best = None
    if not reproduced:
        best = max(candidates, key=lambda m: m.score)
    return Against(
        source=read.source,
        format=read.format,
        name=name,
        decimals=decimals,
        per_query=reported,
        mean=reported_mean,
        profiles=profiles,
        reproduced_by=tuple(reproduced),
        best=best,
        unexplained=() if best is None else best.disagreeing,
    )
