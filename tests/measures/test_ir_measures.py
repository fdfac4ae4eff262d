"""Per-query agreement with ir_measures' own providers on generated data, and names that print
as ir_measures prints them.

Each measure is compared with the provider ir_measures computes it with: Judged with its
judged provider, ERR@k and nDCG(dcg='exp-log2')@k with gdeval (perl), RBP with trectools
(graded) and cwl_eval (``rel=``), Compat with its compat provider, the set measures, infAP and
``judged_only=True`` with pytrec_eval. The data has graded judgements up to 4 (gdeval's
limit), negative grades, tied scores, queries with nothing relevant, judged queries absent
from the run (scored over an empty ranking with ``complete=True``, as ir_measures scores every
judged query), and run queries without judgements.

Ties: rankscope ranks every measure by the profile's order (trec_eval's: score descending,
then doc id descending). gdeval, pytrec_eval and cwl_eval (which keeps the order it is given)
rank ties that way too; the judged and compat providers rank ties by doc id ascending, so those
comparisons hand rankscope the run in that order (``ordering="as_given"``). trectools gives
tied documents the mean of their RBP weights, which no ranking reproduces: its data has
distinct scores.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import rankscope
from rankscope.engine.profiles import PROFILES

ir_measures = pytest.importorskip("ir_measures")

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def generate(seed: int, distinct_scores: bool = False) -> tuple[Qrels, Run]:
    """Random qrels and run with the cases every evaluator must agree on.

    Query ids are numbers (gdeval reads no other), scores are positive (the compat provider
    ranks unretrieved relevant documents as if scored 0), and each query's judgements are
    listed by doc id (the compat provider breaks ties of its ideal ranking in that order).
    """
    rng = np.random.default_rng(seed)
    qrels: Qrels = {}
    run: Run = {}
    for q in range(30):
        qid = str(101 + q)
        pool = list(dict.fromkeys(f"d{rng.integers(0, 150):03d}" for _ in range(40)))
        judged = pool[: rng.integers(1, len(pool) + 1)]
        if q % 10 == 7:  # nothing relevant
            grades = rng.choice([-1, 0], size=len(judged))
        else:
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
        if q % 10 != 5:  # q % 10 == 5: retrieved, never judged
            qrels[qid] = {d: int(g) for d, g in sorted(zip(judged, grades, strict=True))}
        if q % 10 == 3:  # judged, not retrieved
            continue
        docs = list(dict.fromkeys(f"d{rng.integers(0, 150):03d}" for _ in range(60)))
        docs = docs[: rng.integers(1, len(docs) + 1)]
        if distinct_scores:  # distinct across queries too: trectools groups ties across them
            scores = (q * 1000 + rng.permutation(len(docs)) + 1) / 8.0
        else:  # many ties, exact in float32
            scores = rng.integers(1, 24, size=len(docs)) / 4.0
        run[qid] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


def in_order(run: Run, key: Callable[[tuple[str, float]], Any]) -> Run:
    """The run with each query's documents listed in the order `key` sorts them."""
    return {q: dict(sorted(docs.items(), key=key)) for q, docs in run.items()}


def doc_id_ascending(item: tuple[str, float]) -> tuple[float, str]:
    """Score descending, ties by doc id ascending (ir_measures' judged and compat providers)."""
    return (-item[1], item[0])


def trec_order(run: Run) -> Run:
    """Score descending, ties by doc id descending, as trec_eval and rankscope rank."""
    return {
        q: dict(sorted(sorted(docs.items(), reverse=True), key=lambda item: -item[1]))
        for q, docs in run.items()
    }


def compare(
    provider: str,
    names: list[str],
    qrels: Qrels,
    run: Run,
    *,
    tolerance: float = 1e-9,
    profile: Any = "trec",
    reference_run: Run | None = None,
) -> None:
    """Every name's per-query values from rankscope and from ir_measures' `provider`.

    The provider is called once per measure: trectools' closures see only the last measure
    of a call.
    """
    expected: dict[tuple[str, str], float] = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        for metric in getattr(ir_measures, provider).iter_calc(
            [measure], qrels, reference_run or run
        ):
            expected[metric.query_id, name] = metric.value  # results are keyed as given
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        results = rankscope.evaluate(qrels, run, names, profile=profile, complete=True)
    got = {
        (qid, name): value for qid, row in results.to_dict().items() for name, value in row.items()
    }
    assert set(got) == set(expected), "evaluated queries or measure names differ"
    mismatches = [
        (key, got[key], expected[key])
        for key in sorted(expected)
        if abs(got[key] - expected[key]) > tolerance
    ]
    assert not mismatches, mismatches[:10]


SEEDS = [0, 1, 2]


@pytest.mark.parametrize("seed", SEEDS)
def test_judged_agrees_with_the_judged_provider(seed: int) -> None:
    qrels, run = generate(seed)
    names = ["Judged", "Judged@1", "Judged@5", "Judged@10", "Judged@20"]
    as_given = PROFILES["trec"].with_options(ordering="as_given")
    compare("judged", names, qrels, in_order(run, doc_id_ascending), profile=as_given)


@pytest.mark.parametrize("seed", SEEDS)
def test_err_and_exp_ndcg_agree_with_gdeval(seed: int) -> None:
    if ir_measures.gdeval.is_available() is False:
        pytest.skip("gdeval needs perl")
    qrels, run = generate(seed)
    names = [f"{family}@{k}" for family in ("ERR", "nDCG(dcg='exp-log2')") for k in (1, 5, 20)]
    # gdeval prints 5 decimals.
    compare("gdeval", names, qrels, run, tolerance=5e-6 + 1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_graded_rbp_agrees_with_trectools(seed: int) -> None:
    qrels, run = generate(seed, distinct_scores=True)
    names = ["RBP", "RBP(p=0.5)", "RBP@5", "RBP(p=0.95)@20"]
    compare("trectools", names, qrels, run)


@pytest.mark.parametrize("seed", SEEDS)
def test_binary_rbp_agrees_with_cwl_eval(seed: int) -> None:
    qrels, run = generate(seed)
    names = ["RBP(rel=1)", "RBP(rel=2)", "RBP(p=0.5,rel=3)"]
    # cwl_eval keeps tied documents in the order given: give it trec_eval's.
    compare("cwl_eval", names, qrels, run, reference_run=trec_order(run))


@pytest.mark.parametrize("seed", SEEDS)
def test_compat_agrees_with_the_compat_provider(seed: int) -> None:
    qrels, run = generate(seed)
    names = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"]
    as_given = PROFILES["trec"].with_options(ordering="as_given")
    compare("compat", names, qrels, in_order(run, doc_id_ascending), profile=as_given)


@pytest.mark.parametrize("seed", SEEDS)
def test_set_measures_infap_and_judged_only_agree_with_pytrec_eval(seed: int) -> None:
    qrels, run = generate(seed)
    names = [
        "SetP",
        "SetRelP",
        "SetR",
        "SetF",
        "SetF(beta=0.5)",
        "SetAP",
        "infAP",
        "SetP(rel=2)",
        "SetR(rel=2)",
        "SetAP(rel=3)",
        "infAP(rel=2)",
        "SetP(judged_only=True)",
        "SetAP(judged_only=True)",
        "SetF(judged_only=True)",
        "nDCG(judged_only=True)",
        "nDCG(judged_only=True)@10",
    ]
    compare("pytrec_eval", names, qrels, run, profile="trec9")


def test_names_print_as_ir_measures_prints_them() -> None:
    for name in [
        "Judged@10",
        "ERR@20",
        "nDCG(dcg='exp-log2')@10",
        "nDCG(dcg='log2')@10",
        "nDCG(judged_only=True)@10",
        "RBP",
        "RBP(p=0.8)",
        "RBP(p=0.9,rel=2)",
        "RBP(rel=1)@10",
        "Compat",
        "Compat(p=0.95,normalize=True)",
        "Compat(p=0.8,normalize=False)",
        "SetP",
        "SetRelP",
        "SetP(relative=True,judged_only=True)",
        "SetR",
        "SetF(beta=0.5)",
        "SetF(beta=1.0)",
        "SetAP(judged_only=True)",
        "infAP",
        "infAP(rel=2)",
    ]:
        assert rankscope.measure(name).name == str(ir_measures.parse_measure(name)), name


def test_rbp_is_ir_measures_and_trec_eval_keeps_its_own() -> None:
    qrels = {"1": {"a": 2, "b": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    means = rankscope.evaluate(qrels, run, ["RBP", "TrecRBP"]).mean()
    assert means["RBP"] == pytest.approx(0.2 * (2 + 0.8))  # p = 0.8, gain = grade
    assert means["TrecRBP"] == pytest.approx(0.1 * (1 + 0.9 * 0.5))  # p = 0.9, gain = grade / 2


def test_err_refuses_grades_beyond_gdeval() -> None:
    with pytest.raises(rankscope.MeasureError, match="ERR@10 takes grades up to 4"):
        rankscope.evaluate({"1": {"a": 5}}, {"1": {"a": 1.0}}, "ERR@10")


@pytest.mark.parametrize("seed", SEEDS)
def test_judged_only_agrees_with_pytrec_eval_for_every_measure_it_takes(seed: int) -> None:
    qrels, run = generate(seed)
    names = [
        "P(judged_only=True)@5",
        "P(rel=2,judged_only=True)@10",
        "RR(judged_only=True)",
        "RR(rel=2,judged_only=True)",
        "Rprec(judged_only=True)",
        "AP(judged_only=True)",
        "AP(rel=2,judged_only=True)@100",
        "R(judged_only=True)@10",
        "Success(judged_only=True)@5",
        "Success(rel=3,judged_only=True)@10",
        "IPrec(judged_only=True)@0.2",
    ]
    compare("pytrec_eval", names, qrels, run, profile="trec9")


@pytest.mark.parametrize("seed", SEEDS)
def test_numret_with_rel_and_printed_gains_agree_with_pytrec_eval(seed: int) -> None:
    qrels, run = generate(seed)
    compare(
        "pytrec_eval", ["NumRet", "NumRet(rel=1)", "NumRet(rel=3)"], qrels, run, profile="trec9"
    )
    # ir_measures prints gains as a dict (leaving out grades whose gain is the grade): read
    # back, the measure is the one ir_measures computes.
    for theirs in [
        ir_measures.nDCG(gains={0: 1, 1: 4}) @ 10,
        ir_measures.nDCG(gains={0: 0, 1: 1, 2: 5, 3: 9, 4: 20}),
    ]:
        expected = {
            metric.query_id: metric.value
            for metric in ir_measures.pytrec_eval.iter_calc([theirs], qrels, run)
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankscope.RankscopeWarning)
            results = rankscope.evaluate(qrels, run, str(theirs), "trec9", complete=True)
        got = {qid: row[str(theirs)] for qid, row in results.to_dict().items()}  # keyed as given
        assert got.keys() == expected.keys()
        assert all(abs(got[q] - expected[q]) < 1e-9 for q in expected), str(theirs)


def test_judged_only_numret_and_gains_names_read_as_ir_measures_prints_them() -> None:
    for name in ["P(judged_only=True)@5", "RR(rel=2,judged_only=True)", "NumRet(rel=2)"]:
        assert rankscope.measure(name).name == str(ir_measures.parse_measure(name)), name
    printed = str(ir_measures.nDCG(gains={0: 1, 1: 4}) @ 10)
    assert printed == "nDCG(gains={0:1,1:4})@10"
    assert rankscope.measure(printed) == rankscope.measure("nDCG(gains=0:1;1:4)@10")
