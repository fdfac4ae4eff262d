"""`rankscope.explain` on constructed cases whose cause is known by construction: two profiles
that differ in one convention (then two), on data where that convention matters. The
explanation must name that convention (and only it) as the whole difference, name the query it
changes, and find in the data what lets it matter."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

import rankscope
from rankscope.engine.profiles import ALLOWED, PROFILES, Conventions
from rankscope.errors import OptionError, ProfileError
from rankscope.explain import CONVENTION_ORDER, explain

TREC = PROFILES["trec"]
KEEP_FIRST = TREC.with_options(duplicate_documents="keep_first")

# (convention, value, base profile, qrels, run, measure, the query it changes, the finding)
ONE_CONVENTION: list[tuple[str, Any, Conventions, Any, Any, str, str, str | None]] = [
    (
        "ordering",
        "score_then_docid_asc",
        TREC,
        {"q1": {"a": 1}, "q2": {"c": 1}},
        {"q1": {"a": 0.5, "b": 0.5}, "q2": {"c": 0.9, "d": 0.1}},
        "RR",
        "q1",
        "ties",
    ),
    (
        "ordering",
        "as_given",
        TREC,
        {"q1": {"a": 1}},
        {"q1": {"b": 0.1, "a": 0.9}},
        "RR",
        "q1",
        "input_order",
    ),
    (
        "score_precision",
        "float32",
        TREC,
        {"q1": {"b": 1}},
        {"q1": {"a": 0.300000001, "b": 0.3}},
        "RR",
        "q1",
        "float32_collisions",
    ),
    (
        "duplicate_documents",
        "keep_all",
        KEEP_FIRST,
        {"q1": {"a": 1}},
        {"q1": ["a", "a", "b"]},
        "P@3",
        "q1",
        "duplicates",
    ),
    (
        "binary_relevance",
        True,
        TREC,
        {"q1": {"a": 2, "b": 1}},
        {"q1": ["b", "a"]},
        "nDCG@10",
        "q1",
        "graded_judgements",
    ),
    (
        "gain",
        "exp",
        TREC,
        {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}},
        {"q1": ["b", "a"], "q2": ["c"]},
        "nDCG@10",
        "q1",
        "graded_judgements",
    ),
    (
        "ideal_ranking",
        "judged_capped_by_retrieved",
        TREC,
        {"q1": {"a": 1, "b": 1}},
        {"q1": ["a"]},
        "nDCG@10",
        "q1",
        "short_rankings",
    ),
    (
        "precision_denominator",
        "retrieved",
        TREC,
        {"q1": {"a": 1}},
        {"q1": ["a", "b"]},
        "P@5",
        "q1",
        "short_rankings",
    ),
    (
        "ap_denominator",
        "relevant_retrieved",
        TREC,
        {"q1": {"a": 1, "b": 1}},
        {"q1": ["a"]},
        "AP",
        "q1",
        None,
    ),
    (
        "recall_level_rounding",
        "add_0.9_truncate",
        TREC,
        {"q1": {"a": 1, "b": 1, "c": 1}},
        {"q1": ["a", "x", "y", "z", "b", "c"]},
        "IPrec@0.4",
        "q1",
        "unjudged_retrieved",
    ),
    (
        "unjudged_documents",
        "drop",
        TREC,
        {"q1": {"a": 1}},
        {"q1": ["x", "a"]},
        "RR",
        "q1",
        "unjudged_retrieved",
    ),
]


def _moving(pair: rankscope.explain.Pair) -> list[str]:
    return [c.convention for c in pair.contributions if c.walk != 0]


@pytest.mark.parametrize(
    ("convention", "value", "base", "qrels", "run", "measure", "query", "cause"),
    ONE_CONVENTION,
    ids=[f"{case[0]}={case[1]}" for case in ONE_CONVENTION],
)
def test_one_convention_that_differs_accounts_for_the_whole_difference(
    convention: str,
    value: Any,
    base: Conventions,
    qrels: Any,
    run: Any,
    measure: str,
    query: str,
    cause: str | None,
) -> None:
    other = base.with_options(name="other", **{convention: value})
    explanation = explain(qrels, run, measure, profiles=[base, other])
    first = rankscope.evaluate(qrels, run, measure, profile=base).mean()[measure]
    second = rankscope.evaluate(qrels, run, measure, profile=other).mean()[measure]
    assert [v.mean for v in explanation.profiles] == [first, second]
    assert first != second
    (pair,) = explanation.pairs
    assert pair.difference == pytest.approx(second - first)
    assert [c.convention for c in pair.contributions] == [convention]
    (contribution,) = pair.contributions
    assert contribution.first == str(getattr(base, convention))
    assert contribution.second == str(value)
    assert contribution.walk == contribution.alone == contribution.last == pair.difference
    assert contribution.share == 1.0 and not contribution.interacts
    assert contribution.queries[0][0] == query
    assert pair.unexplained == 0.0 and pair.interactions == ()
    if cause is not None:
        assert cause in [finding.cause for finding in explanation.findings]
        found = next(f for f in explanation.findings if f.cause == cause)
        assert query in " ".join(found.examples)


def test_profiles_that_agree_have_no_pair_to_explain() -> None:
    explanation = explain({"q1": {"a": 1}}, {"q1": {"a": 0.9, "b": 0.1}}, "RR")
    assert [v.profile for v in explanation.profiles] == list(PROFILES)
    assert explanation.pairs == ()
    assert "every profile gives the same values" in str(explanation)


QRELS_TWO = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 1}, "q3": {"e": 1}}
RUN_TWO = {
    "q1": {"a": 0.5, "b": 0.5},  # a tie: the order changes q1
    "q2": {"d": 0.9, "c": 0.8},  # graded, no tie: the gain changes q2
    "q3": {"e": 0.7},
}


def test_two_conventions_on_different_queries_add_up() -> None:
    other = TREC.with_options(name="other", ordering="score_then_docid_asc", gain="exp")
    pair = explain(QRELS_TWO, RUN_TWO, "nDCG@10", profiles=[TREC, other]).pairs[0]
    ordering, gain = pair.contributions
    assert (ordering.convention, gain.convention) == ("ordering", "gain")
    assert ordering.walk == pytest.approx(ordering.alone) == pytest.approx(ordering.last)
    assert gain.walk == pytest.approx(gain.alone) == pytest.approx(gain.last)
    assert [q for q, _ in ordering.queries] == ["q1"]
    assert [q for q, _ in gain.queries] == ["q2"]
    assert ordering.walk > 0 > gain.walk
    assert ordering.walk + gain.walk == pytest.approx(pair.difference)
    assert ordering.share + gain.share == pytest.approx(1.0)
    assert pair.interactions == () and pair.unexplained == pytest.approx(0.0)
    by_query = {q: b - a for q, a, b in pair.queries}
    assert by_query == pytest.approx({"q1": ordering.walk * 3, "q2": gain.walk * 3})


def test_two_conventions_that_interact_are_named_with_both_views() -> None:
    # Under binary relevance every relevant grade is 1, so the gain no longer matters: the
    # gain alone moves nDCG, the gain switched last (after binary relevance) does not.
    qrels = {"q1": {"a": 2, "b": 1}}
    run = {"q1": ["b", "a"]}
    other = TREC.with_options(name="other", binary_relevance=True, gain="exp")
    pair = explain(qrels, run, "nDCG@10", profiles=[TREC, other]).pairs[0]
    binary, gain = pair.contributions
    assert (binary.convention, gain.convention) == ("binary_relevance", "gain")
    assert gain.alone is not None and gain.alone < 0 and gain.last == 0.0
    assert gain.walk == 0.0 and binary.walk == pytest.approx(pair.difference)
    assert binary.interacts and gain.interacts
    (interaction,) = pair.interactions
    assert interaction.conventions == ("binary_relevance", "gain")
    assert gain.alone is not None and binary.alone is not None
    assert interaction.amount == pytest.approx(pair.difference - binary.alone - gain.alone)
    assert "binary_relevance and gain interact" in str(
        explain(qrels, run, "nDCG@10", profiles=[TREC, other])
    )


def test_every_pair_of_the_built_in_profiles_adds_up() -> None:
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1, "e": 2, "f": 1}, "q3": {"g": 1}}
    run = {
        "q1": {"c": 0.9, "a": 0.5, "b": 0.5},
        "q2": {"d": 0.300000001, "e": 0.3, "x": 0.2},
        "q3": {"y": 0.4},
    }
    explanation = explain(qrels, run, "nDCG@10")
    assert len(explanation.pairs) >= 3
    for pair in explanation.pairs:
        walked = sum(step.change for step in pair.steps)
        assert walked + pair.unexplained == pytest.approx(pair.difference)
        assert pair.unexplained == pytest.approx(0.0)
        assert [c.convention for c in pair.contributions] == [
            name
            for name in CONVENTION_ORDER
            if getattr(explanation_profile(pair.first), name)
            != getattr(explanation_profile(pair.second), name)
        ]


def explanation_profile(name: str) -> Conventions:
    return PROFILES[name]


def test_the_walk_follows_every_convention_the_core_defines() -> None:
    assert CONVENTION_ORDER == tuple(ALLOWED) == tuple(Conventions._fields[1:])


def test_a_profile_that_cannot_compute_the_measure_says_why() -> None:
    # weknora does not define P@5 (cut-offs but nDCG's): its column says so, the others
    # are still compared.
    explanation = explain({"q1": {"a": 1}}, {"q1": ["b", "a"]}, "P@5", profiles="trec,weknora")
    weknora = explanation.profile("weknora")
    assert weknora.mean is None and weknora.error is not None and "weknora" in weknora.error
    assert explanation.pairs == ()
    assert re.search(
        r"weknora +- +- +not computed: P@5: the weknora profile defines P", str(explanation)
    )


def test_a_duplicate_is_an_error_under_trec_only_and_found_in_the_data() -> None:
    explanation = explain({"q1": {"a": 1}}, {"q1": ["a", "a", "b"]}, "nDCG@10")
    assert explanation.profile("trec").error is not None
    assert "appears more than once" in (explanation.profile("trec").error or "")
    assert explanation.profile("weknora").mean is not None
    duplicates = next(f for f in explanation.findings if f.cause == "duplicates")
    assert (duplicates.queries, duplicates.documents, duplicates.examples) == (1, 1, ("q1: a x2",))
    # Every profile told to keep the first occurrence: trec is compared with the others, and
    # weknora's counting of both occurrences is what moves nDCG.
    kept = explain(
        {"q1": {"a": 1, "b": 1}},
        {"q1": ["a", "a", "b"]},
        "nDCG@10",
        profiles="trec,weknora",
        duplicate_documents="keep_first",
    )
    assert (
        kept.profile("trec").mean
        == rankscope.evaluate(
            {"q1": {"a": 1, "b": 1}},
            {"q1": ["a", "a", "b"]},
            "nDCG@10",
            duplicate_documents="keep_first",
        ).mean()["nDCG@10"]
    )
    # With the duplicate dropped, weknora agrees with trec here; counted twice, it does not.
    assert kept.pairs == ()
    default = explain({"q1": {"a": 1, "b": 1}}, {"q1": ["a", "a", "b"]}, "nDCG@10")
    assert default.profile("weknora").mean != kept.profile("weknora").mean


def test_bad_profiles_are_refused() -> None:
    with pytest.raises(ProfileError, match="unknown profile 'trac'"):
        explain({"q1": {"a": 1}}, {"q1": ["a"]}, "RR", profiles="trec,trac")
    with pytest.raises(OptionError, match="each profile once"):
        explain({"q1": {"a": 1}}, {"q1": ["a"]}, "RR", profiles=["trec", "trec"])
    with pytest.raises(OptionError, match="top must be an integer >= 0; got -1"):
        explain({"q1": {"a": 1}}, {"q1": ["a"]}, "RR", top=-1)


def test_the_data_findings_count_what_they_find() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "n": -1}, "q2": {"c": 3}, "q9": {"z": 1}}
    run = {
        "q1": {"a": 0.5, "b": 0.5, "u": 0.4},
        "q2": {"c": 0.300000001, "v": 0.3},
        "q7": {"w": 1.0},
    }
    explanation = explain(qrels, run, "P@10", profiles="trec")
    found = {f.cause: f for f in explanation.findings}
    assert set(found) == {
        "missing_queries",
        "unjudged_queries",
        "negative_grades",
        "graded_judgements",
        "unjudged_retrieved",
        "short_rankings",
        "ties",
        "float32_collisions",
    }
    assert found["missing_queries"].examples == ("q9",)
    assert found["unjudged_queries"].examples == ("q7",)
    assert (found["negative_grades"].queries, found["negative_grades"].documents) == (1, 1)
    assert found["unjudged_retrieved"].documents == 3  # u, v and w
    assert found["ties"].examples == ("q1: a = b (0.5)",)
    assert found["float32_collisions"].examples == ("q2: c = v (0.300000012)",)
    assert found["short_rankings"].queries == 3


def test_the_formats_hold_the_same_explanation() -> None:
    other = TREC.with_options(name="other", ordering="score_then_docid_asc", gain="exp")
    explanation = explain(QRELS_TWO, RUN_TWO, "nDCG@10", profiles=[TREC, other])
    document = json.loads(explanation.to_json())
    assert document["measure"] == "nDCG@10"
    contributions = document["pairs"][0]["contributions"]
    assert [c["convention"] for c in contributions] == ["ordering", "gain"]
    assert sum(c["share"] for c in contributions) == pytest.approx(1.0)
    frame = explanation.to_frame()
    assert frame.columns == ["query_id", "trec", "other"]
    assert frame["query_id"].to_list() == ["q1", "q2", "q3"]
    text, markdown = str(explanation), explanation.to_markdown()
    for shown in (text, markdown):
        assert "ordering" in shown and "score_then_docid_asc" in shown and "q2" in shown
    assert markdown.startswith("# nDCG@10 under 2 profiles") and "| ---" in markdown
    assert not any(math.isnan(v) for v in frame["trec"].to_list())
