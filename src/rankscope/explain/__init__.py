"""Why two numbers differ: a measure under several profiles side by side, the conventions
that account for each difference, the causes in the data, and which profile reproduces
another tool's output.

- :func:`explain` -> :class:`Explanation` (printable; ``to_markdown``, ``to_json``,
  ``to_dict``, ``to_frame``), whose :class:`Pair` of profiles holds the walk from one
  profile's conventions to the other's (:class:`Step`), each convention's
  :class:`Contribution` (along the walk, alone, switched last) and the
  :class:`Interaction` of conventions whose effects do not add;
- :class:`Finding`: a property of the data that lets a convention matter;
- :class:`Against` and :class:`Match`: another tool's values matched against profiles.

The package itself is callable: ``rankscope.explain(qrels, run, measure, ...)`` is `explain`.

Examples
--------
>>> import rankscope
>>> qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
>>> run = {"q1": {"d1": 0.5, "d3": 0.5, "d2": 0.1}}
>>> explanation = rankscope.explain(qrels, run, "RR", profiles="trec,weknora")
>>> [(v.profile, v.mean) for v in explanation.profiles]
[('trec', 0.5), ('weknora', 1.0)]
>>> [(c.convention, c.walk) for c in explanation.pair("trec", "weknora").contributions][:1]
[('ordering', 0.5)]
"""

from rankscope._lazy import callable_package
from rankscope.explain._against import Against, Match
from rankscope.explain._data import Finding
from rankscope.explain._explain import (
    CONVENTION_ORDER,
    Contribution,
    Explanation,
    Interaction,
    Pair,
    ProfileValues,
    Step,
    explain,
)

__all__ = [
    "CONVENTION_ORDER",
    "Against",
    "Contribution",
    "Explanation",
    "Finding",
    "Interaction",
    "Match",
    "Pair",
    "ProfileValues",
    "Step",
    "explain",
]

callable_package(__name__, explain)
