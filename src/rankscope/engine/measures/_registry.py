"""The registry of measures, as the compiled core holds it: each family's parameters,
aggregate, aliases, formula and citation, for parsing names and reporting.

The kernels and the registry live in the core (``crates/rankscope-core/src/measures``):
adding a measure is a kernel and one entry there; names parse there too, so Python and the
core read every name the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, cast

from rankscope import _core
from rankscope.engine.measures._names import Measure
from rankscope.errors import MeasureError

__all__ = ["FAMILIES", "Family", "measure", "parse_measures"]

Aggregate = Literal["mean", "geometric_mean", "sum", "count"]
CutoffKind = Literal["none", "optional", "required", "recall_level", "factor"]


@dataclass(frozen=True)
class Family:
    """A family of measures sharing one kernel: ``P`` covers ``P@5``, ``P(rel=2)@10``, ...

    Attributes
    ----------
    name
        Canonical spelling.
    summary
        One line: what the measure is.
    formula
        The formula (trec profile).
    citation
        Where the measure is defined.
    cutoff
        Whether ``@k`` is refused, optional, required, a recall level in [0, 1], or a
        positive factor.
    params
        Allowed parameters and the values each takes (``integer``, ``number``, ...).
    aggregate
        How per-query values combine: mean, geometric mean (trec_eval's gm_*), or sum and
        count for the counting measures, as trec_eval prints them.
    bounded
        Whether values lie in [0, 1].
    aliases
        Other names (case-insensitive), including trec_eval's.
    weknora
        Whether the ``weknora`` profile defines the measure.
    """

    name: str
    summary: str
    formula: str
    citation: str
    cutoff: CutoffKind
    params: dict[str, str]
    aggregate: Aggregate
    bounded: bool
    aliases: tuple[str, ...]
    weknora: bool


FAMILIES: dict[str, Family] = {
    entry["name"]: Family(
        name=entry["name"],
        summary=entry["summary"],
        formula=entry["formula"],
        citation=entry["citation"],
        cutoff=cast(CutoffKind, entry["cutoff"]),
        params=dict(entry["params"]),
        aggregate=cast(Aggregate, entry["aggregate"]),
        bounded=entry["bounded"],
        aliases=tuple(entry["aliases"]),
        weknora=entry["weknora"],
    )
    for entry in _core.families()
}


def measure(name: str | Measure) -> Measure:
    """Parse a measure name (canonical, ir_measures-style or trec_eval) into a `Measure`.

    Examples
    --------
    >>> measure("nDCG@10"), measure("ndcg_cut.10"), measure("ndcg_cut_10")
    (nDCG@10, nDCG@10, nDCG@10)
    >>> measure("map"), measure("MRR"), measure("P_5"), measure("iprec_at_recall_0.10")
    (AP, RR, P@5, IPrec@0.1)
    >>> measure("nDCG(gain=exp)@3").name
    'nDCG(gain=exp)@3'
    >>> measure("nDGC@10")
    Traceback (most recent call last):
    ...
    rankscope.errors.UnknownMeasureError: unknown measure 'nDGC'; did you mean nDCG, ...
    """
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        raise MeasureError(f"a measure is given by its name as a string; got {name!r}")
    family, cutoff, params, _ = _core.parse_measure(name)
    return Measure(family, cutoff, tuple(params))


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one name or several into measures, dropping repeats and keeping the order.

    Examples
    --------
    >>> parse_measures(["nDCG@10", "ndcg_cut.10", "AP"])
    [nDCG@10, AP]
    """
    if isinstance(names, str | Measure):
        names = [names]
    result: list[Measure] = []
    for name in names:
        parsed = measure(name)
        if parsed not in result:
            result.append(parsed)
    if not result:
        raise MeasureError("no measure given; name at least one, e.g. 'nDCG@10'")
    return result
