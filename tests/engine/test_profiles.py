"""Conventions: named tuples whose values are checked where they are used."""

from __future__ import annotations

import pytest

import rankscope
from rankscope.engine import PROFILES, Conventions, resolve_profile

QRELS = {"q1": {"d1": 1}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0}}


def test_a_profile_is_its_conventions() -> None:
    assert PROFILES["trec"] == Conventions("trec")
    assert resolve_profile("trec9").score_precision == "float32"
    changed = PROFILES["trec"].with_options(gain="exp")
    assert isinstance(changed, Conventions)
    assert (changed.name, changed.gain, PROFILES["trec"].gain) == ("trec", "exp", "linear")


def test_a_bad_value_is_refused_where_the_conventions_are_used() -> None:
    mine = Conventions("mine", gain="bogus")  # type: ignore[arg-type]
    message = r"gain must be one of 'linear', 'exp'; got 'bogus'"
    with pytest.raises(rankscope.ProfileError, match=message):
        resolve_profile(mine)
    with pytest.raises(rankscope.ProfileError, match=message):
        rankscope.evaluate(QRELS, RUN, "nDCG", profile=mine)
    with pytest.raises(rankscope.ProfileError, match="ordering must be one of"):
        PROFILES["trec"].with_options(ordering="by_luck")


def test_an_unknown_convention_is_named() -> None:
    with pytest.raises(rankscope.ProfileError, match=r"unknown convention\(s\) \['gian'\]"):
        PROFILES["trec"].with_options(gian="exp")


def test_good_conventions_of_ones_own_evaluate() -> None:
    mine = PROFILES["trec"].with_options(name="mine", gain="exp")
    assert rankscope.evaluate(QRELS, RUN, "nDCG", profile=mine).mean() == {"nDCG": 1.0}
