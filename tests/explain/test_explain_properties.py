"""Properties of `explain` on generated data: whatever two sets of conventions are compared,
the walk's steps and the unexplained part add up to the difference of the means, nothing is
left unexplained (profiles are conventions and nothing else), each step's per-query changes
add up to each query's difference, and a single convention that differs is the whole
difference in all three views."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.engine.profiles import ALLOWED, PROFILES, Conventions
from rankscope.explain import explain

DOCS = [f"d{i}" for i in range(6)]
MEASURES = ["nDCG@5", "AP", "RR", "nDCG"]


@st.composite
def data(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query in ("q1", "q2", "q3"):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=4, unique=True))
        qrels[query] = {doc: draw(st.integers(0, 3)) for doc in judged}
        ranked = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        # Few distinct scores, some a float32 apart: ties and collisions happen.
        scores = st.sampled_from([0.1, 0.3, 0.300000001, 0.5, 0.9])
        run[query] = {doc: draw(scores) for doc in ranked}
    return qrels, run


def _changed(draw: Any, base: Conventions) -> Conventions:
    fields = {
        name: draw(st.sampled_from(values or (True, False)))
        for name, values in ALLOWED.items()
        if name not in ("duplicate_documents", "zero_division", "missing_query_ranking")
    }
    return base.with_options(name="other", **fields)


@settings(max_examples=40, deadline=None)
@given(data(), st.sampled_from(MEASURES), st.data())
def test_the_walk_adds_up_to_the_difference(
    inputs: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
    measure: str,
    draws: st.DataObject,
) -> None:
    qrels, run = inputs
    base = PROFILES["trec"]
    other = _changed(draws.draw, base)
    explanation = explain(qrels, run, measure, profiles=[base, other])
    first, second = explanation.profiles
    if first.mean is None or second.mean is None or not explanation.pairs:
        return
    (pair,) = explanation.pairs
    walked = sum(step.change for step in pair.steps)
    assert walked == pytest.approx(pair.difference, abs=1e-9)
    assert pair.unexplained == pytest.approx(0.0, abs=1e-9)
    for query, before, after in pair.queries:
        moved = sum(dict(step.per_query).get(query, 0.0) for step in pair.steps)
        assert moved == pytest.approx(after - before, abs=1e-9)
    if len(pair.contributions) == 1 and not math.isnan(pair.difference):
        (only,) = pair.contributions
        assert only.walk == pytest.approx(pair.difference)
        assert only.alone == pytest.approx(pair.difference)
        assert only.last == pytest.approx(pair.difference)
