"""Measure values and their names: ``nDCG@10``, ``P(rel=2)@5``, ``nDCG(gain=exp)@10``.

A name is ``Family[(param=value, ...)][@cutoff]``. It parses without ``eval`` and prints back
canonically: the family's canonical spelling, parameters sorted by name, the cutoff last.
trec_eval names (``ndcg_cut.10``, ``ndcg_cut_10``, ``P_5``, ``map``, ``recip_rank``, ...) are
accepted as aliases; :attr:`Measure.trec_name` gives a measure's trec_eval output name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Measure", "format_cutoff"]


def format_cutoff(cutoff: int | float) -> str:
    """The canonical text of a cutoff: integers plainly, recall levels as short floats."""
    if isinstance(cutoff, float):
        return repr(cutoff)
    return str(cutoff)


@dataclass(frozen=True, order=True)
class Measure:
    """One measure with its parameters, e.g. ``Measure("nDCG", 10)`` for ``nDCG@10``.

    Build measures with :func:`rankscope.measure` (which validates) rather than directly.

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

        A measure with its own relevance level (``rel=``) has none: trec_eval sets the level
        for all measures at once (``-l``).
        """
        if self.params:
            return None
        cut = self.cutoff
        plain = {
            "AP": "map",
            "RR": "recip_rank",
            "nDCG": "ndcg",
            "Rprec": "Rprec",
            "Bpref": "bpref",
            "GM_AP": "gm_map",
            "NumRet": "num_ret",
            "NumRel": "num_rel",
            "NumRelRet": "num_rel_ret",
            "NumQ": "num_q",
            "P": "set_P",
            "R": "set_recall",
        }
        cut_prefix = {
            "AP": "map_cut_",
            "nDCG": "ndcg_cut_",
            "P": "P_",
            "R": "recall_",
            "Success": "success_",
        }
        if cut is None:
            return plain.get(self.family)
        if self.family == "IPrec":
            return f"iprec_at_recall_{cut:.2f}"
        prefix = cut_prefix.get(self.family)
        return None if prefix is None else f"{prefix}{cut}"

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


# Family[(k=v,...)][@cutoff]
NAME_PATTERN = re.compile(
    r"^(?P<family>[A-Za-z_][A-Za-z0-9_-]*)"
    r"(?:\((?P<params>[^()]*)\))?"
    r"(?:@(?P<cutoff>[^@()]+))?$"
)
# trec_eval output and -m names: family, then _N or .N (iprec_at_recall_0.10, ndcg_cut.10)
TREC_PATTERN = re.compile(r"^(?P<family>[A-Za-z_]+?)(?:[._](?P<cutoff>\.?[0-9][0-9.]*))?$")
