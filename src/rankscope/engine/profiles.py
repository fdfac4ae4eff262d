"""Profiles: named bundles of the conventions that evaluation tools disagree on.

Every convention is a field of :class:`Conventions` with a name that says what it decides.
A profile is one value of it. ``trec`` reproduces trec_eval 10, ``trec9`` trec_eval up to 9.0.8
(and so pytrec_eval and published BEIR numbers), ``weknora`` WeKnora's metric package; the
peers' profiles ``ir_measures`` (its default providers), ``ranx``, ``beir`` (its
``EvaluateRetrieval.evaluate``), ``sklearn`` (``ndcg_score``) and ``torchmetrics`` (its
retrieval metrics) reproduce those tools.

The profiles, the conventions, the values each allows and what they mean are defined once, in
the core (``crates/rankscope-core/src/profile.rs``): this module reads them from there.

Examples
--------
>>> PROFILES["weknora"].gain, PROFILES["trec"].gain
('exp', 'linear')
>>> ALLOWED["duplicate_documents"]
('error', 'keep_first', 'keep_all')
>>> PROFILES["sklearn"].tied_scores, PROFILES["beir"].identical_ids
('averaged', 'drop')
"""

from collections import namedtuple
from typing import TYPE_CHECKING, Any

from rankscope import _core
from rankscope.errors import ProfileError

__all__ = ["ALLOWED", "CONVENTIONS", "PROFILES", "Conventions", "resolve_profile"]

CONVENTIONS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = tuple(
    (field, summary, tuple((value, meaning) for value, meaning in values))
    for field, summary, values in _core.convention_table()
)
"""The core's table of conventions, in its order: ``(field, summary, ((value, meaning),
...))``; a truth value has no values."""
_PROFILES = _core.profiles()
_TREC = dict(_PROFILES[0][1])

ALLOWED: dict[str, tuple[str, ...]] = {
    field: tuple(value for value, _ in values) for field, _, values in CONVENTIONS
}
"""Each convention's allowed values, in order; empty for a truth value (``binary_relevance``)."""


def _lowered(text: str) -> str:
    """A sentence continued after a colon: its first word in lower case (unless a name)."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _attributes() -> str:
    """The numpydoc attributes of `Conventions`, from the core's description of each field."""
    lines = ["name", "    The profile's name."]
    for field, summary, values in CONVENTIONS:
        meanings = " ".join(f'``"{value}"``: {_lowered(meaning)}' for value, meaning in values)
        text = f"{summary} {meanings}".strip().replace("`", "``").replace("````", "``")
        lines += [field, f"    {text}"]
    return "\n    ".join(lines)


if TYPE_CHECKING:
    from typing import NamedTuple

    class _Fields(NamedTuple):
        name: str
        ordering: str = _TREC["ordering"]
        score_precision: str = _TREC["score_precision"]
        duplicate_documents: str = _TREC["duplicate_documents"]
        binary_relevance: bool = _TREC["binary_relevance"]
        gain: str = _TREC["gain"]
        ideal_ranking: str = _TREC["ideal_ranking"]
        precision_denominator: str = _TREC["precision_denominator"]
        ap_denominator: str = _TREC["ap_denominator"]
        recall_level_rounding: str = _TREC["recall_level_rounding"]
        unjudged_documents: str = _TREC["unjudged_documents"]
        zero_division: str = _TREC["zero_division"]
        missing_query_ranking: str = _TREC["missing_query_ranking"]
        ideal_ties: str = _TREC["ideal_ties"]
        unretrieved_judgements: str = _TREC["unretrieved_judgements"]
        tied_scores: str = _TREC["tied_scores"]
        identical_ids: str = _TREC["identical_ids"]

else:
    # The fields and their defaults (trec_eval 10's) as the core lists them.
    _Fields = namedtuple(
        "_Fields",
        ["name", *(field for field, _, _ in CONVENTIONS)],
        defaults=list(_TREC.values())[1:],
    )


class Conventions(_Fields):
    __doc__ = f"""How a ranking is formed and how measures treat the contested cases.

    Values are checked by the core where conventions are used (`resolve_profile`,
    `with_options`, and so every evaluation): a `ProfileError` names the field and the values
    it allows (`ALLOWED`).

    Attributes
    ----------
    {_attributes()}
    """

    __slots__ = ()

    def checked(self) -> "Conventions":
        """These conventions, once the core has checked that every field holds a value its
        convention allows."""
        return _conventions(_core.conventions(_fields(self)))

    @property
    def keeps_duplicate_judgements(self) -> bool:
        """Whether a document judged twice counts twice in the ideal ranking (WeKnora's
        countGt). Only with binary relevance; otherwise a duplicate judgement is an error."""
        return self.duplicate_documents == "keep_all" and self.binary_relevance

    def with_options(self, **changes: Any) -> "Conventions":
        """A copy with some conventions changed (checked by the core)."""
        fields = dict(self._asdict())
        fields.update(changes)
        return _conventions(_core.conventions(list(fields.items())))


def _fields(conventions: Conventions) -> list[tuple[str, Any]]:
    return list(conventions._asdict().items())


def _conventions(fields: list[tuple[str, Any]]) -> Conventions:
    return Conventions(**dict(fields))


PROFILES: dict[str, Conventions] = {name: _conventions(fields) for name, fields in _PROFILES}
"""Every built-in profile by name, as the core defines them."""


def resolve_profile(profile: str | Conventions) -> Conventions:
    """The conventions of a profile given by name (or as conventions already, checked).

    Examples
    --------
    >>> resolve_profile("trec9").score_precision
    'float32'
    >>> resolve_profile("trac")
    Traceback (most recent call last):
    ...
    rankscope.errors.ProfileError: unknown profile 'trac'; expected one of 'trec', ...
    """
    if isinstance(profile, Conventions):
        return profile.checked()
    found = PROFILES.get(profile) if isinstance(profile, str) else None
    if found is None:
        _core.conventions(profile)  # raises the core's ProfileError
        raise ProfileError(f"unknown profile {profile!r}")  # pragma: no cover
    return found


def profile_spec(profile: str | Conventions) -> str | list[tuple[str, Any]]:
    """A profile as the core takes it: a name, or the fields of conventions to check."""
    return _fields(profile) if isinstance(profile, Conventions) else profile


def conventions_of(settled: "_core.Plan") -> Conventions:
    """The conventions a `plan` settled."""
    return _conventions(settled.conventions)
