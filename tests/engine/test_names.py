"""Measure names parse, print back canonically, and fail with suggestions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rankscope
from rankscope.engine.measures import parse_measures


@pytest.mark.parametrize(
    ("given_name", "canonical", "trec_name"),
    [
        ("nDCG@10", "nDCG@10", "ndcg_cut_10"),
        ("ndcg_cut.10", "nDCG@10", "ndcg_cut_10"),
        ("ndcg_cut_10", "nDCG@10", "ndcg_cut_10"),
        ("NDCG@10", "nDCG@10", "ndcg_cut_10"),
        ("ndcg", "nDCG", "ndcg"),
        ("nDCG(gain=exp)@3", "nDCG(gain=exp)@3", None),
        ("map", "AP", "map"),
        ("MAP", "AP", "map"),
        ("map_cut.100", "AP@100", "map_cut_100"),
        ("recip_rank", "RR", "recip_rank"),
        ("MRR", "RR", "recip_rank"),
        ("RR@10", "RR@10", None),
        ("P.5", "P@5", "P_5"),
        ("P_5", "P@5", "P_5"),
        ("P(rel=2)@5", "P(rel=2)@5", None),
        ("set_P", "P", "set_P"),
        ("recall.1000", "R@1000", "recall_1000"),
        ("Recall@10", "R@10", "recall_10"),
        ("Rprec", "Rprec", "Rprec"),
        ("success.10", "Success@10", "success_10"),
        ("bpref", "Bpref", "bpref"),
        ("gm_map", "GM_AP", "gm_map"),
        ("iprec_at_recall_0.10", "IPrec@0.1", "iprec_at_recall_0.10"),
        ("iprec_at_recall.0.5", "IPrec@0.5", "iprec_at_recall_0.50"),
        ("IPrec@1", "IPrec@1.0", "iprec_at_recall_1.00"),
        ("num_ret", "NumRet", "num_ret"),
        ("num_rel", "NumRel", "num_rel"),
        ("num_rel_ret", "NumRelRet", "num_rel_ret"),
        ("num_q", "NumQ", "num_q"),
    ],
)
def test_names_parse_to_canonical_and_trec_names(
    given_name: str, canonical: str, trec_name: str | None
) -> None:
    m = rankscope.measure(given_name)
    assert m.name == canonical
    assert str(m) == canonical
    assert m.trec_name == trec_name
    assert rankscope.measure(canonical) == m


cutoffs = st.integers(1, 10_000)
names = st.one_of(
    st.builds(lambda k: f"nDCG@{k}", cutoffs),
    st.builds(lambda k, g: f"nDCG(gain={g})@{k}", cutoffs, st.sampled_from(["exp", "linear"])),
    st.builds(lambda f, k: f"{f}@{k}", st.sampled_from(["P", "R", "AP", "RR", "Success"]), cutoffs),
    st.builds(
        lambda f, r, k: f"{f}(rel={r})@{k}", st.sampled_from(["P", "R", "AP"]), cutoffs, cutoffs
    ),
    st.builds(lambda r: f"IPrec@{r!r}", st.floats(0.0, 1.0)),
    st.sampled_from(["AP", "RR", "Rprec", "Bpref", "GM_AP", "NumRet", "NumQ", "nDCG", "P", "R"]),
)


@given(names)
def test_canonical_names_round_trip(name: str) -> None:
    assert rankscope.measure(name).name == name


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        (
            "nDGC@10",
            rankscope.UnknownMeasureError,
            "unknown measure 'nDGC'; did you mean nDCG, RnDCG, nDCGRel?",
        ),
        ("mapp", rankscope.UnknownMeasureError, "did you mean map"),
        ("foo", rankscope.UnknownMeasureError, "unknown measure 'foo'"),
        ("P@0", rankscope.MeasureError, "the cutoff of P must be an integer from 1 to"),
        ("P@x", rankscope.MeasureError, "the cutoff of P must be an integer from 1 to"),
        ("nDCG@2.5", rankscope.MeasureError, "got '2.5'"),
        ("P@²", rankscope.MeasureError, "got '²'"),
        ("P@１", rankscope.MeasureError, "got '１'"),
        ("nDCG@9223372036854775808", rankscope.MeasureError, "from 1 to 1000000000"),
        ("P(rel=²)@1", rankscope.MeasureError, "parameter rel of P must be an integer from 1"),
        ("set_P@5", rankscope.MeasureError, "set_P takes no cutoff"),
        ("Rprec@10", rankscope.MeasureError, "measure Rprec takes no cutoff"),
        ("Success", rankscope.MeasureError, "measure Success needs a cutoff, as in Success@10"),
        ("IPrec@1.5", rankscope.MeasureError, "recall level of IPrec must be a number in [0, 1]"),
        ("nDCG(gain=log)@10", rankscope.MeasureError, "gain of nDCG must be one of linear, exp"),
        ("P(foo=1)@5", rankscope.MeasureError, "measure P has no parameter 'foo'"),
        ("P(rel=0)@5", rankscope.MeasureError, "parameter rel of P must be an integer from 1"),
        ("P(rel)@5", rankscope.MeasureError, "parameters are written key=value"),
        ("P(rel=1,rel=2)@5", rankscope.MeasureError, "parameter 'rel' given twice"),
        ("NumQ(rel=2)", rankscope.MeasureError, "measure NumQ has no parameter 'rel'"),
        ("set_P.5", rankscope.MeasureError, "set_P takes no cutoff"),
    ],
)
def test_bad_names_are_refused_with_a_clear_message(
    name: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        rankscope.measure(name)
    assert message in str(raised.value)


def test_parse_measures_keeps_order_and_drops_repeats() -> None:
    assert [m.name for m in parse_measures(["P@5", "nDCG@10", "P_5", "ndcg_cut.10", "AP"])] == [
        "P@5",
        "nDCG@10",
        "AP",
    ]
    with pytest.raises(rankscope.MeasureError, match="no measure given"):
        parse_measures([])
