"""Each peer's documented usage, the examples of its README, run against rankscope with one
changed import: pytrec_eval's through `rankscope.compat.pytrec_eval`, ir_measures' through
`rankscope.compat.ir_measures` (the measure objects still come from ir_measures), ranx's through
``from rankscope import ...``. The expected values are the peer's own: computed by the peer
where it is cheap to call (pytrec_eval, ir_measures), else the numbers its README prints
(ranx compiles with numba on first use).

Anything a peer's user writes that `rankscope.evaluate` does not take yet is marked
``xfail(strict=True)`` with what must be added, so that it turns green (and must then be
unmarked) when it is; none is left."""

from __future__ import annotations

import math
from typing import Any

import pytest

import rankscope

# pytrec_eval's README (https://github.com/cvangysel/pytrec_eval), verbatim.
PYTREC_QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
PYTREC_RUN = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {"d1": 1.5, "d2": 0.2, "d3": 0.5}}

# ir_measures' README (https://github.com/terrierteam/ir_measures), verbatim.
IRM_QRELS = {"Q0": {"D0": 0, "D1": 1}, "Q1": {"D0": 0, "D3": 2}}
IRM_RUN = {"Q0": {"D0": 1.2, "D1": 1.0}, "Q1": {"D0": 2.4, "D3": 3.6}}
IRM = (IRM_QRELS, IRM_RUN)

# ranx's README (https://github.com/AmenRa/ranx), verbatim.
RANX_QRELS = {"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}}
RANX_RUN = {
    "q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7, "d_36": 0.6, "d_32": 0.5, "d_35": 0.4},
    "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7, "d_36": 0.6, "d_22": 0.5, "d_35": 0.4},
}


# --- pytrec_eval ---------------------------------------------------------------------------


def test_pytrec_eval_readme_example() -> None:
    import pytrec_eval as reference

    from rankscope.compat import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(PYTREC_QREL, {"map", "ndcg"})
    expected = reference.RelevanceEvaluator(PYTREC_QREL, {"map", "ndcg"}).evaluate(PYTREC_RUN)
    assert evaluator.evaluate(PYTREC_RUN) == expected
    assert expected["q2"] == {"map": 0.5833333333333333, "ndcg": 0.6934264036172708}


def test_pytrec_eval_measure_families_cutoffs_and_aggregation() -> None:
    import pytrec_eval as reference

    from rankscope.compat import pytrec_eval

    assert {"map", "ndcg", "ndcg_cut", "P", "recip_rank"} <= set(pytrec_eval.supported_measures)
    wanted = {"ndcg_cut.1,3", "P.1", "recip_rank", "recall"}
    ours = pytrec_eval.RelevanceEvaluator(PYTREC_QREL, wanted).evaluate(PYTREC_RUN)
    theirs = reference.RelevanceEvaluator(PYTREC_QREL, wanted).evaluate(PYTREC_RUN)
    assert ours == theirs and "ndcg_cut_3" in ours["q1"] and "recall_1000" in ours["q1"]
    per_query = [values["ndcg_cut_3"] for values in ours.values()]
    assert pytrec_eval.compute_aggregated_measure(
        "ndcg_cut_3", per_query
    ) == reference.compute_aggregated_measure("ndcg_cut_3", per_query)


def test_rankscope_results_have_pytrec_evals_shape() -> None:
    """`rankscope.evaluate` itself: a mapping from query id to ``{measure: value}``."""
    import pytrec_eval as reference

    expected = reference.RelevanceEvaluator(PYTREC_QREL, {"map", "ndcg"}).evaluate(PYTREC_RUN)
    results = rankscope.evaluate(PYTREC_QREL, PYTREC_RUN, ["map", "ndcg"])
    assert sorted(results) == sorted(expected) and len(results) == 2
    assert results["q2"] == {"map": expected["q2"]["map"], "ndcg": expected["q2"]["ndcg"]}
    assert results["q2"]["AP"] == expected["q2"]["map"]  # the canonical name finds it too


def test_rankscope_results_keyed_by_pytrec_evals_names() -> None:
    import pytrec_eval as reference

    expected = reference.RelevanceEvaluator(PYTREC_QREL, {"map", "ndcg"}).evaluate(PYTREC_RUN)
    assert dict(rankscope.evaluate(PYTREC_QREL, PYTREC_RUN, ["map", "ndcg"])) == expected


# --- ir_measures ---------------------------------------------------------------------------


def irm_measures() -> list[Any]:
    from ir_measures import AP, RR, P, nDCG

    return [AP, nDCG, RR, nDCG @ 10, P(rel=2) @ 10]


def test_ir_measures_readme_aggregate_and_per_query() -> None:
    import ir_measures as reference

    from rankscope.compat import ir_measures

    measures = irm_measures()
    aggregate = ir_measures.calc_aggregate(measures, IRM_QRELS, IRM_RUN)
    assert aggregate == reference.calc_aggregate(measures, IRM_QRELS, IRM_RUN)
    assert aggregate[measures[1]] == 0.8154648767857288 and aggregate[measures[4]] == 0.05
    ours = {(m.query_id, m.measure, m.value) for m in ir_measures.iter_calc(measures, *IRM)}
    theirs = {(m.query_id, m.measure, m.value) for m in reference.iter_calc(measures, *IRM)}
    assert ours == theirs and len(ours) == 10


def test_ir_measures_readme_input_forms() -> None:
    """The README's other forms of qrels and run: data frames and namedtuples."""
    import ir_measures as reference
    import pandas as pd

    from rankscope.compat import ir_measures

    expected = reference.calc_aggregate(irm_measures(), IRM_QRELS, IRM_RUN)
    qrels_rows = [(q, d, r) for q, docs in IRM_QRELS.items() for d, r in docs.items()]
    run_rows = [(q, d, s) for q, docs in IRM_RUN.items() for d, s in docs.items()]
    frames = (
        pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]),
    )
    tuples = (
        [reference.Qrel(*row) for row in qrels_rows],
        [reference.ScoredDoc(*row) for row in run_rows],
    )
    assert ir_measures.calc_aggregate(irm_measures(), *frames) == expected
    assert ir_measures.calc_aggregate(irm_measures(), *tuples) == expected


def test_ir_measures_names_as_strings() -> None:
    """The command line's way (``'P(rel=2)@5 nDCG@15'``), each name given as a string."""
    import ir_measures as reference

    from rankscope.compat import ir_measures

    names = ["P@1", "P(rel=2)@1", "nDCG@15", "Judged@2", "NumQ", "NumRel", "NumRelRet"]
    parsed = [reference.parse_measure(name) for name in names]
    ours = ir_measures.calc_aggregate(names, IRM_QRELS, IRM_RUN)
    theirs = reference.calc_aggregate(parsed, IRM_QRELS, IRM_RUN)
    assert [ours[name] for name in names] == [theirs[m] for m in parsed]


def test_rankscope_evaluate_takes_ir_measures_objects() -> None:
    import ir_measures as reference

    expected = reference.calc_aggregate(irm_measures(), IRM_QRELS, IRM_RUN)
    results = rankscope.evaluate(IRM_QRELS, IRM_RUN, irm_measures())
    # ir_measures' dict is in the order its providers computed; ours, in the order given.
    assert results.mean() == {str(measure): value for measure, value in expected.items()}
    assert [m.name for m in results.measures] == [str(m) for m in irm_measures()]


def test_ir_measures_numret_rel() -> None:
    import ir_measures as reference

    from rankscope.compat import ir_measures

    measure = reference.NumRet(rel=1)
    expected = reference.calc_aggregate([measure], *IRM)
    assert ir_measures.calc_aggregate([measure], *IRM) == expected == {measure: 2.0}


def test_ir_measures_printed_gains() -> None:
    import ir_measures as reference

    from rankscope.compat import ir_measures

    measure = reference.nDCG(gains={0: 1, 1: 4})
    expected = reference.calc_aggregate([measure], IRM_QRELS, IRM_RUN)[measure]
    assert ir_measures.calc_aggregate([str(measure)], IRM_QRELS, IRM_RUN)[str(measure)] == (
        pytest.approx(expected, abs=1e-12)
    )


def test_ir_measures_judged_only_precision() -> None:
    import ir_measures as reference

    from rankscope.compat import ir_measures

    measure = reference.P(judged_only=True) @ 2
    run = {"Q0": {"D0": 1.2, "D9": 1.1, "D1": 1.0}, "Q1": IRM_RUN["Q1"]}
    expected = reference.calc_aggregate([measure], IRM_QRELS, run)[measure]
    assert ir_measures.calc_aggregate([measure], IRM_QRELS, run)[measure] == expected


def test_ir_measures_empty_run_scores_zero() -> None:
    from ir_measures import AP

    from rankscope.compat import ir_measures

    assert math.isclose(ir_measures.calc_aggregate([AP], IRM_QRELS, {})[AP], 0.0)


def test_rankscope_evaluate_scores_an_empty_run_as_ir_measures() -> None:
    import ir_measures as reference

    expected = reference.calc_aggregate(irm_measures(), IRM_QRELS, {})
    results = rankscope.evaluate(IRM_QRELS, {}, irm_measures())
    assert results.mean() == {str(measure): value for measure, value in expected.items()}


# --- ranx ----------------------------------------------------------------------------------


def test_ranx_readme_qrels_run_and_evaluate() -> None:
    from rankscope import Qrels, Run, evaluate

    qrels = Qrels(RANX_QRELS)
    run = Run(RANX_RUN)
    # ranx prints 0.7861 and {"map@5": 0.6416, "mrr": 0.75}; rankscope returns `Results`.
    assert round(evaluate(qrels, run, "ndcg@5").mean()["nDCG@5"], 4) == 0.7861
    means = evaluate(qrels, run, ["map@5", "mrr"]).mean()
    assert [round(value, 4) for value in means.values()] == [0.6417, 0.75]
    assert math.floor(means["AP@5"] * 1e4) / 1e4 == 0.6416  # ranx truncates in its README


def test_ranx_readme_results_keyed_by_ranx_names() -> None:
    from rankscope import Qrels, Run, evaluate

    means = evaluate(Qrels(RANX_QRELS), Run(RANX_RUN), ["map@5", "mrr"]).mean()
    assert means == {"map@5": pytest.approx(0.6416, abs=1e-4), "mrr": 0.75}


def ranx_runs() -> list[Any]:
    """Five runs over the README's qrels, named as in its compare example."""
    from rankscope import Run

    docs = ["d_12", "d_25", "d_11", "d_22", "d_23", "d_36"]
    runs = []
    for shift in range(5):
        order = docs[shift:] + docs[:shift]
        ranking = {d: 1.0 - i / 10 for i, d in enumerate(order)}
        runs.append(Run({"q_1": ranking, "q_2": dict(reversed(ranking.items()))}, name=f"m{shift}"))
    return runs


def test_ranx_readme_compare_and_print() -> None:
    from rankscope import Qrels, compare_runs

    runs = ranx_runs()
    report = compare_runs(Qrels(RANX_QRELS), runs, ["map@100", "mrr@100", "ndcg@10"], alpha=0.01)
    printed = str(report).splitlines()
    assert printed[0].split() == ["run", "AP@100", "RR@100", "nDCG@10"]
    assert [line.split()[0] for line in printed[1:6]] == ["m0", "m1", "m2", "m3", "m4"]
    expected = rankscope.evaluate(RANX_QRELS, runs[3], "ndcg@10").mean()["nDCG@10"]
    assert f"{expected:.4f}" in printed[4]


def test_ranx_readme_fusion() -> None:
    from rankscope import Qrels, fuse, optimize_fusion

    runs = ranx_runs()[:3]
    best = optimize_fusion(
        qrels=Qrels(RANX_QRELS), runs=runs, norm="min-max", method="wsum", metric="ndcg@100"
    )
    combined = fuse(runs=runs, norm="min-max", method="wsum", params=best.params)
    score = rankscope.evaluate(RANX_QRELS, combined, "ndcg@100").mean()["nDCG@100"]
    assert score == pytest.approx(best.score, abs=1e-12)
    assert set(best.params) == {"weights"} and len(best.params["weights"]) == 3
