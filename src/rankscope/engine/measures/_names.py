"""Measure values and their names: ``nDCG@10``, ``P(rel=2)@5``, ``nDCG(gain=exp)@10``.

A name is ``Family[(param=value, ...)][@cutoff]``. It parses without ``eval`` and prints back
canonically: the family's canonical spelling, parameters in the family's order
(ir_measures' order; defaults left out), the cutoff last. trec_eval's names (``ndcg_cut.10``,
``ndcg_cut_10``, ``P_5``, ``map``, ``recip_rank``, ...) and ranx's (``ndcg@10-l2``,
``rbp.95``) are accepted too; :attr:`Measure.trec_name` gives a measure's trec_eval output
name. The core parses and prints every name.
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

from typing import TYPE_CHECKING, Any, NamedTuple

__all__ = ["Measure", "from_core", "measures_of"]


class Measure(NamedTuple):
    """One measure with its parameters, e.g. ``Measure("nDCG", 10)`` for ``nDCG@10``.

    Build measures with :func:`rankscope.measure` (which validates) rather than directly. A
    measure is a named tuple ``(family, cutoff, params)``: it compares, orders and hashes as
    that tuple.

    Examples
    --------
    >>> from rankscope import measure
    >>> m = measure("ndcg_cut.10")
    >>> m, m.name, m.trec_name
    (nDCG@10, 'nDCG@10', 'ndcg_cut_10')
    >>> measure("P(rel=2)@5").name
    'P(rel=2)@5'
    """

    family: str
    cutoff: int | float | None = None
    params: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """The canonical name, as the core prints it; parsing it gives this measure back."""
        return _printed(self)[0]

    def param(self, key: str) -> str | None:
        """The value of parameter ``key``, or None when not given."""
        for name, value in self.params:
            if name == key:
                return value
        return None

    @property
    def relevance_level(self) -> int | None:
        """The ``rel=`` parameter, if given."""
        value = self.param("rel")
        return None if value is None else int(value)

    @property
    def trec_name(self) -> str | None:
        """The name trec_eval prints for this measure, or None when trec_eval has no such one.

        A measure with its own parameters (``rel=``, ``gains=``, ...) has none: trec_eval sets
        those for all measures at once (``-l``) or prints the family's name whatever they are.
        """
        return _printed(self)[1]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


_PRINTED: "dict[Measure, tuple[str, str | None]]" = {}
"""The canonical and trec_eval names of measures the core has parsed or printed."""


def _printed(m: Measure) -> "tuple[str, str | None]":
    """The core's canonical name and trec_eval name of a measure (validated by the core)."""
    found = _PRINTED.get(m)
    if found is None:
        from rankscope import _core

        cutoff = None if m.cutoff is None else repr(m.cutoff)
        found = _remember(_core.build_measure(m.family, cutoff, list(m.params)))[1]
    return found


if TYPE_CHECKING:
    Parsed = tuple[str, int | float | None, list[tuple[str, str]], str, str | None]
    """A measure as the core describes it: family, cutoff, parameters, canonical name,
    trec_eval's name."""


def _remember(parsed: "Parsed") -> "tuple[Measure, tuple[str, str | None]]":
    """The `Measure` the core described, its names kept so that printing it asks nothing."""
    family, cutoff, params, name, trec_name = parsed
    measure = Measure(family, cutoff, tuple(params))
    if len(_PRINTED) < 4096:
        _PRINTED[measure] = (name, trec_name)
    return measure, (name, trec_name)


def from_core(parsed: "Parsed") -> Measure:
    """The `Measure` of the core's description of one."""
    return _remember(parsed)[0]


def measures_of(settled: Any) -> "list[Measure]":
    """The measures a plan of the core settled (`rankscope.engine.plan`), in order."""
    return [_remember(parsed)[0] for parsed in settled.measures]
