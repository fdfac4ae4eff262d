"""Properties every registered measure must have, checked with hypothesis."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.engine.measures import FAMILIES

# One or more concrete measures for every registered family.
MEASURES = [
    "nDCG",
    "nDCG@1",
    "nDCG@5",
    "nDCG(gain=exp)@5",
    "AP",
    "AP@5",
    "RR",
    "RR@3",
    "P",
    "P@1",
    "P@5",
    "P(rel=2)@5",
    "R",
    "R@5",
    "Rprec",
    "Success@1",
    "Success@5",
    "Bpref",
    "GM_AP",
    "IPrec@0.0",
    "IPrec@0.5",
    "IPrec@1.0",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "NumQ",
    "nDCG(gains=1:3;2:9;3:4.5)",
    "infAP",
    "GM_Bpref",
    "RprecMult@0.5",
    "RprecMult@2.0",
    "Utility",
    "IPrecAvg",
    "IPrecAvg(levels=0.25;0.5)",
    "BinG",
    "G",
    "nDCGRel",
    "RnDCG",
    "RelP",
    "RelP@5",
    "SetAP",
    "SetF",
    "SetF(beta=0.5)",
    "NumNonRelJudgedRet",
    "TrecRBP",
    "TrecRBP(p=0.5)",
    "TrecRBPResid",
    "Unjudged@5",
    "YAAP",
    # The C/W/L measures.
    "SDCG(max_rel=3)@5",
    "NERR8(max_rel=3)@5",
    "NERR9(max_rel=3)@5",
    "NERR10(max_rel=3)",
    "NERR11(T=2.0,max_rel=3)",
    "INST(max_rel=2)",
    "INSQ(max_rel=3)",
    "BPM(max_rel=3)@5",
    # Diversity measures (qrels without subtopics: one subtopic per query).
    "alpha_nDCG@5",
    "alpha_nDCG(alpha=0.2)@10",
    "alpha_DCG@5",
    "ERR_IA@5",
    "nERR_IA@5",
    "NRBP",
    "nNRBP",
    "P_IA@5",
    "AP_IA",
    "StRecall@5",
    "NumPrefsPoss",
    "NumPrefsFul",
    "NumPrefsFulRet",
    "PrefsSimp",
    "PrefsPair",
    "PrefsAvgJG",
    "PrefsAvgJGRNonRel",
    "PrefsSimpRet",
    "PrefsPairRet",
    "PrefsAvgJGRet",
    "PrefsAvgJGRNonRelRet",
    "PrefsSimpImp",
    "PrefsPairImp",
    "PrefsAvgJGImp",
    # ir_measures' measures
    "Judged",
    "Judged@5",
    "ERR@5",
    "ERR",
    "RBP",
    "RBP(p=0.5,rel=2)@5",
    "RBPResid",
    "RBPResid(rel=1)@5",
    "Compat",
    "Compat(p=0.8,normalize=False)",
    "SetP",
    "SetRelP",
    "SetP(judged_only=True)",
    "SetR",
    "nDCG(dcg='exp-log2')@5",
    "nDCG(judged_only=True)@5",
    "NCG",
    "NCG@5",
    # ranx's own
    "hits",
    "hits@5",
    "f1",
    "f1@5",
    "dcg@5",
    "dcg_burges",
    "ndcg_burges",
    "ndcg_burges@5",
]
# Unbounded measures that can be negative: utility (-1 per non-relevant document retrieved)
# and yaap (a log-odds).
SIGNED = {"Utility", "YAAP"}
# Measures of unjudged or non-relevant documents: not 0 when nothing is relevant.
ABOUT_THE_REST = {
    "Utility",
    "NumNonRelJudgedRet",
    "TrecRBPResid",
    "Unjudged",
    "Judged",
    "RBPResid",
}


def test_every_family_is_covered() -> None:
    covered = {rankscope.measure(name).family for name in MEASURES}
    assert covered == {name for name, family in FAMILIES.items() if family.kind == "ranking"}


docs = st.sampled_from([f"d{i}" for i in range(12)])


@st.composite
def evaluation_inputs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """Qrels and a run over a few queries; integer scores so that shifts stay exact."""
    queries = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, unique=True))
    qrels = {q: draw(st.dictionaries(docs, st.integers(-1, 3), min_size=1)) for q in queries}
    run = {
        q: draw(st.dictionaries(docs, st.integers(-5, 5).map(float), min_size=1)) for q in queries
    }
    return qrels, run


def evaluate(qrels: Any, run: Any, **options: Any) -> rankscope.Results:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return rankscope.evaluate(qrels, run, MEASURES, **options)


@settings(max_examples=60, deadline=None)
@given(evaluation_inputs(), st.booleans())
def test_bounded_measures_lie_in_unit_interval(inputs: Any, complete: bool) -> None:
    qrels, run = inputs
    results = evaluate(qrels, run, complete=complete)
    for m in results.measures:
        values = results.scores(m)
        assert np.isfinite(values).all()
        if FAMILIES[m.family].bounded:
            # Up to rounding: rbp_resid adds p^n and (1 - p) p^i over every rank, 1 + 2e-16.
            assert ((values >= 0.0) & (values <= 1.0 + 1e-12)).all(), (m, values)
        elif m.family not in SIGNED:
            assert (values >= 0.0).all()


@settings(max_examples=60, deadline=None)
@given(evaluation_inputs(), st.randoms(use_true_random=False), st.integers(-1000, 1000))
def test_invariant_to_query_order_row_order_and_score_shift(
    inputs: Any, random: Any, shift: int
) -> None:
    qrels, run = inputs
    expected = evaluate(qrels, run).to_dict()

    def shuffled(mapping: dict[str, Any]) -> dict[str, Any]:
        items = list(mapping.items())
        random.shuffle(items)
        return dict(items)

    reordered_qrels = {q: shuffled(d) for q, d in shuffled(qrels).items()}
    moved_run = {q: {d: s + shift for d, s in shuffled(docs).items()} for q, docs in run.items()}
    assert evaluate(reordered_qrels, shuffled(moved_run)).to_dict() == expected


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(docs, st.integers(0, 3), min_size=1))
def test_a_perfect_ranking_scores_one(judgements: dict[str, int]) -> None:
    qrels = {"q": judgements}
    relevant = sorted((d for d, g in judgements.items() if g >= 1), key=lambda d: -judgements[d])
    if not relevant:
        return
    nonrelevant = [d for d, g in judgements.items() if g < 1]
    run = {"q": relevant + nonrelevant + ["unjudged"]}
    means = evaluate(qrels, run).mean()
    for name in ["nDCG", "nDCG@1", "nDCG@5", "nDCG(gain=exp)@5", "AP", "RR", "R", "Rprec"]:
        assert means[name] == pytest.approx(1.0, abs=1e-12), name
    for name in ["Bpref", "GM_AP", "IPrec@0.0", "IPrec@0.5", "IPrec@1.0", "Success@1", "P@1"]:
        assert means[name] == pytest.approx(1.0, abs=1e-12), name
    for name in ["Compat", "SetR", "SetP(relative=True)", "nDCG(judged_only=True)@5"]:
        assert means[name] == pytest.approx(1.0, abs=1e-12), name
    for name in ["ndcg_burges", "ndcg_burges@5"]:
        assert means[name] == pytest.approx(1.0, abs=1e-12), name
    assert means["hits"] == len(relevant)
    # AP@k still divides by all R relevant documents (trec_eval's map_cut).
    assert means["AP@5"] == pytest.approx(min(5, len(relevant)) / len(relevant))
    if len(relevant) >= 5:
        assert means["P@5"] == 1.0


@settings(max_examples=40, deadline=None)
@given(evaluation_inputs())
def test_queries_without_relevant_documents_score_zero(inputs: Any) -> None:
    qrels, run = inputs
    qrels = {q: {d: min(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}
    results = evaluate(qrels, run)
    for m in results.measures:
        if m.family not in {"NumRet", "NumQ", *ABOUT_THE_REST}:
            assert (results.scores(m) == 0.0).all(), m


@settings(max_examples=40, deadline=None)
@given(evaluation_inputs())
def test_complete_adds_missing_queries_as_zeros(inputs: Any) -> None:
    qrels, run = inputs
    qrels = {**qrels, "zz-missing": {"d1": 1}}
    partial = evaluate(qrels, run)
    complete = evaluate(qrels, run, complete=True)
    assert "zz-missing" not in partial.query_ids
    assert complete.query_ids == [*partial.query_ids, "zz-missing"]
    row = complete.to_dict()["zz-missing"]
    assert row["NumRel"] == 1.0
    # yaap of an empty ranking is ln(1 / (1 + R)), as trec_eval computes it; RBP's residual
    # is all the weight (to k) that an empty ranking leaves unknown.
    assert row["YAAP"] == pytest.approx(np.log(1 / 2))
    assert row["RBPResid"] == 1.0
    assert row["RBPResid(rel=1)@5"] == pytest.approx(1 - 0.8**5)
    assert all(
        v == 0.0
        for name, v in row.items()
        if name not in {"NumRel", "NumQ", "YAAP"} and not name.startswith("RBPResid")
    )
