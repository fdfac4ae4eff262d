"""The C/W/L measures (SDCG, NERR8-NERR11, INST, INSQ, BPM) against ir_measures' cwl_eval
provider, query by query, on generated data.

cwl_eval prints its measures with 4 decimals; through ir_measures its values come as full
doubles, and rankscope agrees with them to 1e-12. The generated data has graded judgements
above max_rel, negative grades, unjudged documents, tied scores, rankings longer than
cwl_eval's depth of 1000, empty rankings, queries judged but absent from the run (both score
them 0: rankscope with ``complete=True``) and run queries without judgements (both ignore them).

ir_measures sorts a query's documents by score with a stable sort, so tied documents keep the
order they were given in; rankscope's ``trec`` profile breaks ties by document id, descending.
The runs handed to ir_measures are therefore listed in rankscope's order.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.cli import main
from rankscope.engine.measures import FAMILIES
from rankscope.errors import MeasureError

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

MEASURES = [
    "SDCG(max_rel=3)@1",
    "SDCG(max_rel=3)@5",
    "SDCG(max_rel=3)@20",
    "SDCG(max_rel=2)@10",
    "SDCG(max_rel=3,min_rel=1)@10",
    "SDCG(max_rel=3)@1200",
    "NERR8(max_rel=3)@1",
    "NERR8(max_rel=3)@10",
    "NERR8(max_rel=2,min_rel=-1)@10",
    "NERR9(max_rel=3)@10",
    "NERR9(max_rel=3)@1100",
    "NERR10(max_rel=3)",
    "NERR10(max_rel=3,p=0.5)",
    "NERR10(max_rel=1,p=1.0)",
    "NERR11(max_rel=3)",
    "NERR11(T=2.5,max_rel=3)",
    "INST(max_rel=3)",
    "INST(T=3.0,max_rel=3)",
    "INST(T=0.5,max_rel=2,min_rel=1)",
    "INSQ(max_rel=3)",
    "INSQ(T=4.0,max_rel=3)",
    "BPM(max_rel=3)@10",
    "BPM(T=2.0,max_rel=3)@20",
    "BPM(T=0.5,max_rel=3,min_rel=1)@5",
    "BPM(T=50.0,max_rel=3)@1500",
]


def trec_ordered(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run with each query's documents listed by score, ties by document id descending."""
    return {
        q: dict(sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True))
        for q, docs in run.items()
    }


def ir_measure(name: str) -> Any:
    """ir_measures' measure for a rankscope name, built from its parts (ir_measures' own
    parser reads no negative numbers, as in min_rel=-1)."""
    parsed = rankscope.measure(name)
    types = {"max_rel": int, "min_rel": int, "T": float, "p": float, "dcg": str}
    measure = getattr(ir_measures, parsed.family)(
        **{key: types[key](value) for key, value in parsed.params}
    )
    return measure if parsed.cutoff is None else measure @ parsed.cutoff


def theirs(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], names: list[str]
) -> dict[str, dict[str, float]]:
    """Per-query values of ir_measures' cwl_eval provider, keyed by measure name."""
    measures = [ir_measure(name) for name in names]
    # The provider warns about max_rel and min_rel against the grades seen; that is expected.
    logging.getLogger("ir_measures.cwl_eval").disabled = True
    result: dict[str, dict[str, float]] = {}
    for metric in ir_measures.cwl_eval.iter_calc(measures, qrels, trec_ordered(run)):
        result.setdefault(metric.query_id, {})[str(metric.measure)] = float(metric.value)
    return result


def ours(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], names: list[str]
) -> dict[str, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return rankscope.evaluate(qrels, run, names, complete=True).to_dict()


def assert_agree(qrels: dict[str, Any], run: dict[str, Any], names: list[str]) -> None:
    got, expected = ours(qrels, run, names), theirs(qrels, run, names)
    assert set(got) == set(expected), "evaluated query sets differ"
    mismatches = [
        (qid, name, got[qid][name], expected[qid][name])
        for qid in expected
        for name in names
        if abs(got[qid][name] - expected[qid][name]) > 1e-12
    ]
    assert not mismatches, mismatches[:10]


def generate(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run with the cases named in the module docstring."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        qid = f"q{q:02d}"
        pool = list(dict.fromkeys(f"d{rng.integers(0, 1500):04d}" for _ in range(80)))
        judged = pool[: rng.integers(1, len(pool))]
        grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
        if q % 10 == 7:  # nothing relevant
            grades = np.minimum(grades, 0)
        if q % 10 != 5:  # q05, q15, q25: retrieved, not judged
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
        if q % 10 == 3:  # judged, absent from the run
            continue
        depth = 1150 if q % 10 == 1 else int(rng.integers(1, 60))
        docs = list(dict.fromkeys([*judged[: depth // 2], *(f"d{i:04d}" for i in range(depth))]))
        docs = [docs[i] for i in rng.permutation(len(docs))[:depth]]
        if q % 10 == 1:  # relevant documents past rank 1000
            docs = [d for d in docs if qrels[qid].get(d, 0) <= 0] + [judged[0]]
            qrels[qid][judged[0]] = 3
        scores = rng.integers(0, 12, size=len(docs)) / 2.0  # many ties
        if q % 10 == 1:
            scores = -np.arange(len(docs), dtype=float)
        run[qid] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_data_agrees_with_cwl_eval(seed: int) -> None:
    qrels, run = generate(seed)
    assert_agree(qrels, run, MEASURES)


def test_generated_data_has_the_awkward_cases() -> None:
    qrels, run = generate(0)
    lengths = [len(docs) for docs in run.values()]
    assert max(lengths) > 1000
    assert any(g > 3 for docs in qrels.values() for g in docs.values())
    assert any(g < 0 for docs in qrels.values() for g in docs.values())
    assert set(qrels) - set(run) and set(run) - set(qrels)
    assert any(len(set(docs.values())) < len(docs) for docs in run.values())


docs = st.sampled_from([f"d{i}" for i in range(8)])


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.dictionaries(docs, st.integers(-1, 4))),
    st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.dictionaries(docs, st.integers(0, 3).map(float)),
    ),
)
def test_small_cases_agree_with_cwl_eval(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> None:
    # Queries with no judgement at all are no query to either tool; rankscope refuses a run
    # or qrels with nothing in them.
    qrels = {q: d for q, d in qrels.items() if d}
    assume(qrels and any(run.values()))
    # Empty rankings stay: rankscope evaluates them as rankings of nothing, ir_measures as
    # queries absent from the run; both give 0.
    assert_agree(qrels, run, MEASURES[::3])


@pytest.mark.parametrize("name", MEASURES)
def test_names_print_as_ir_measures_prints_them(name: str) -> None:
    assert rankscope.measure(name).name == name == str(ir_measure(name))
    if "=-" not in name:
        assert str(ir_measures.parse_measure(name)) == name


# rankscope's spelling, ir_measures' spelling of the same measure, the name both print.
# ir_measures keeps parameters in the order written (and tells INSQ(max_rel=3,T=2.0) from
# INSQ(T=2.0,max_rel=3)); rankscope prints them in the order the family declares them.
@pytest.mark.parametrize(
    ("written", "ir_written", "canonical"),
    [
        ("SDCG(max_rel=3,min_rel=0)@10", "SDCG(max_rel=3,min_rel=0)@10", "SDCG(max_rel=3)@10"),
        ("SDCG(dcg=log2,max_rel=3)@10", "SDCG(dcg='log2',max_rel=3)@10", "SDCG(max_rel=3)@10"),
        ("INST(T=1.0,max_rel=3)", "INST(T=1.0,max_rel=3)", "INST(max_rel=3)"),
        ("NERR10(p=0.9,max_rel=3)", "NERR10(p=0.9,max_rel=3)", "NERR10(max_rel=3)"),
        ("INSQ(max_rel=3,T=2.0)", "INSQ(T=2.0,max_rel=3)", "INSQ(T=2.0,max_rel=3)"),
        ("bpm(T=2,max_rel=3)@10", "BPM(T=2.0,max_rel=3)@10", "BPM(T=2.0,max_rel=3)@10"),
    ],
)
def test_defaults_drop_out_of_names_as_in_ir_measures(
    written: str, ir_written: str, canonical: str
) -> None:
    assert (
        rankscope.measure(written).name == canonical == str(ir_measures.parse_measure(ir_written))
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("SDCG@10", "measure SDCG needs max_rel, the grade that gains 1, as in SDCG(max_rel=3)@10"),
        ("INSQ", "measure INSQ needs max_rel, the grade that gains 1, as in INSQ(max_rel=3)"),
        ("NERR8(max_rel=3)", "measure NERR8 needs a cutoff, as in NERR8@10"),
        ("INST(max_rel=3)@10", "measure INST takes no cutoff"),
        ("BPM(max_rel=1.5)@10", "parameter max_rel of BPM must be an integer"),
        ("NERR9(max_rel=1,min_rel=1)@5", "min_rel of NERR9 must be below max_rel"),
        ("INST(T=-1,max_rel=3)", "parameter T of INST must be a positive number"),
        ("NERR10(p=2,max_rel=3)", "parameter p of NERR10 must be a number in [0, 1]"),
        ("SDCG(dcg=exp-log2,max_rel=3)@5", "parameter dcg of SDCG must be one of log2"),
    ],
)
def test_bad_names_say_what_is_wrong(name: str, message: str) -> None:
    with pytest.raises(
        MeasureError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")
    ):
        rankscope.measure(name)


def test_ties_follow_the_profile_not_the_input_order() -> None:
    qrels = {"q": {"b": 1}}
    run = {"q": {"b": 1.0, "a": 1.0}}  # tied: trec puts b (the larger id) first
    assert ours(qrels, run, ["NERR10(max_rel=1)"])["q"]["NERR10(max_rel=1)"] == 1.0
    as_given = ir_measures.cwl_eval.iter_calc(
        [ir_measures.parse_measure("NERR10(max_rel=1)")], qrels, {"q": {"a": 1.0, "b": 1.0}}
    )
    assert next(iter(as_given)).value < 1.0


def test_listed_with_formula_and_citation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    listing = capsys.readouterr().out
    for family in ["SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM"]:
        entry = FAMILIES[family]
        assert f"formula: {entry.formula}" in listing
        assert f"source:  {entry.citation}" in listing
        assert "max_rel" in entry.params
