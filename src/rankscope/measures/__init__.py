"""Measures you define: a Python function of one query's ranked grades, registered as a
family of rankscope's registry beside the built-in ones.

A defined measure parses with parameters through the same grammar (``GradedP(alpha=0.5)@10``),
refuses bad parameters with the same errors, lists in ``rankscope measures`` (marked
user-defined, with its docstring's first line), and runs wherever a built-in one runs:
`rankscope.evaluate`, `rankscope.compare_runs`, the command line (``--measures-from
module.py``), the service (``rankscope serve --measures-from module.py``) and Spark; its
per-query values aggregate, compare and test like a built-in's.

The function sees one query at a time, as numpy views of the evaluation's arrays (no list is
built per document):

``fn(ranked, judged, *, k, rel, **params) -> float``
    ``ranked``: the grades of the retrieved documents in rank order (int64; -1 for a document
    without judgement, -2 for a judged-as-unjudged one); ``judged``: the query's judged
    grades, sorted descending (the ideal ranking); ``k``: the cutoff (None without ``@k``);
    ``rel``: the relevance level (the measure's ``rel=``, else the evaluation's); then every
    parameter, its default where the name gives none.

With ``vectorized=True`` it is called once per batch of queries, for numpy or numba code:

``fn(ranked, offsets, judged, judged_offsets, *, k, rel, **params) -> array``
    query ``q``'s ranking is ``ranked[offsets[q]:offsets[q + 1]]`` and its judgements
    ``judged[judged_offsets[q]:judged_offsets[q + 1]]``; one value per query comes back.

An exception raised inside the function, or a value that is not a finite number, stops the
evaluation with a `rankscope.errors.UserMeasureError` naming the measure, the query and the
exception.

Examples
--------
>>> import rankscope
>>> from rankscope.measures import define
>>> def graded_precision(ranked, judged, *, k, rel, scale):
...     '''Grades of the first k documents over k, times scale.'''
...     top = ranked[:k]
...     return scale * float(top[top >= rel].sum()) / k
>>> define("GradedP", graded_precision, params={"scale": 1.0}, cutoff="required")
'GradedP'
>>> qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1}}
>>> run = {"q1": {"d1": 3.0, "d9": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}
>>> rankscope.evaluate(qrels, run, ["GradedP@2", "GradedP(scale=0.5)@2"]).mean()
{'GradedP@2': 0.75, 'GradedP(scale=0.5)@2': 0.375}
>>> rankscope.measure("GradedP(scale=x)@2")
Traceback (most recent call last):
...
rankscope.errors.MeasureError: parameter scale of GradedP must be a number; got 'x' in ...
>>> undefine("GradedP")
True
"""

from __future__ import annotations

from rankscope.engine.measures._user import (
    Definition,
    define,
    defined,
    definitions_of,
    undefine,
)
from rankscope.measures._load import load

__all__ = ["Definition", "define", "defined", "definitions_of", "load", "undefine"]
