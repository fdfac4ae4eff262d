"""NCG@k, normalised cumulative gain: no reference implements it (ir_measures lists it as
wanted), so it is checked on hand-computed cases and by its relations to other measures: with
binary grades it is relative precision (RelP@k, trec_eval's relative_P), a perfect ranking
scores 1, and without a cutoff it is NCG at any cutoff past both the ranking and the judged
documents."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.cli import main
from rankscope.engine.measures import FAMILIES


def test_by_hand() -> None:
    # Ranked a (3), u (unjudged), n (0), b (1); judged also c (3) and e (1). Ideal 3, 3, 1, 1.
    qrels = {"q": {"a": 3, "b": 1, "c": 3, "e": 1, "n": 0}}
    run = {"q": ["a", "u", "n", "b"]}
    means = rankscope.evaluate(qrels, run, ["NCG@1", "NCG@2", "NCG@4", "NCG@10", "NCG"]).mean()
    assert means == {"NCG@1": 1.0, "NCG@2": 0.5, "NCG@4": 0.5, "NCG@10": 0.5, "NCG": 0.5}
    # Nothing judged relevant: 0.
    assert rankscope.evaluate({"q": {"a": 0}}, {"q": ["a"]}, "NCG@5").mean() == {"NCG@5": 0.0}


def test_registered_with_its_definition(capsys: pytest.CaptureFixture[str]) -> None:
    family = FAMILIES["NCG"]
    assert (family.cutoff, family.aggregate, family.bounded) == ("optional", "mean", True)
    assert "Järvelin & Kekäläinen" in family.citation
    assert rankscope.measure("ncg@10").name == "NCG@10"
    assert rankscope.measure("NCG@10").trec_name is None
    assert main(["measures"]) == 0
    assert f"formula: {family.formula}" in capsys.readouterr().out


documents = [f"d{i}" for i in range(12)]


@st.composite
def query(draw: st.DrawFn, grades: st.SearchStrategy[int]) -> tuple[Any, Any]:
    judged = draw(st.dictionaries(st.sampled_from(documents), grades, min_size=1))
    ranked = draw(st.lists(st.sampled_from(documents), unique=True, min_size=1, max_size=12))
    return {"q": judged}, {"q": ranked}


@settings(max_examples=150, deadline=None)
@given(query(st.integers(0, 1)), st.integers(1, 15))
def test_with_binary_grades_it_is_relative_precision(inputs: tuple[Any, Any], k: int) -> None:
    qrels, run = inputs
    means = rankscope.evaluate(qrels, run, [f"NCG@{k}", f"RelP@{k}"], complete=True).mean()
    assert means[f"NCG@{k}"] == means[f"RelP@{k}"]


@settings(max_examples=150, deadline=None)
@given(query(st.integers(-1, 4)), st.integers(1, 15))
def test_bounded_perfect_one_and_whole_ranking_past_every_document(
    inputs: tuple[Any, Any], k: int
) -> None:
    qrels, run = inputs
    means = rankscope.evaluate(qrels, run, [f"NCG@{k}", "NCG", "NCG@100"], complete=True).mean()
    assert 0.0 <= means[f"NCG@{k}"] <= 1.0
    assert means["NCG"] == means["NCG@100"]
    judged = qrels["q"]
    if any(grade > 0 for grade in judged.values()):
        perfect = {"q": sorted(judged, key=lambda doc: -judged[doc])}
        assert rankscope.evaluate(qrels, perfect, f"NCG@{k}").mean()[f"NCG@{k}"] == 1.0
