"""Measure values and their names: ``nDCG@10``, ``P(rel=2)@5``, ``nDCG(gain=exp)@10``.

A name is ``Family[(param=value, ...)][@cutoff]``. It parses without ``eval`` and prints back
canonically: the family's canonical spelling, parameters in the family's order
(ir_measures' order; defaults left out), the cutoff last.
trec_eval names (``ndcg_cut.10``, ``ndcg_cut_10``, ``P_5``, ``map``, ``recip_rank``, ...) are
accepted as aliases; :attr:`Measure.trec_name` gives a measure's trec_eval output name.
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

from typing import NamedTuple

__all__ = ["Measure", "format_cutoff"]


def format_cutoff(cutoff: int | float) -> str:
    """The canonical text of a cutoff: integers plainly, recall levels as short floats."""
    if isinstance(cutoff, float):
        return repr(cutoff)
    return str(cutoff)


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
        """The canonical name; parsing it gives this measure back."""
        text = self.family
        if self.params:
            text += "(" + ",".join(f"{key}={value}" for key, value in self.params) + ")"
        if self.cutoff is not None:
            text += "@" + format_cutoff(self.cutoff)
        return text

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
        from rankscope import _core
        from rankscope.engine.measures._registry import ANSWER_FAMILIES

        if self.family in ANSWER_FAMILIES:
            return None
        return _core.parse_measure(self.name)[3]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name
