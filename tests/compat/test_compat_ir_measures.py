"""`rankscope.compat.ir_measures` gives ir_measures' own outputs: the same metrics per query
(judged queries missing from the run included, with 0) and the same aggregates, for measure
objects and names, with qrels and runs as dicts, Qrel/ScoredDoc tuples and DataFrames."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rankscope.compat import ir_measures as compat

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import (  # noqa: E402
    AP,
    RR,
    Bpref,
    IPrec,
    NumQ,
    NumRel,
    P,
    R,
    Rprec,
    Success,
    infAP,
    nDCG,
)

# Measures ir_measures computes with pytrec_eval: ties are broken as the trec9 profile does.
TRECLIKE = [
    nDCG @ 10,
    nDCG @ 3,
    nDCG,
    P @ 5,
    P(rel=2) @ 5,
    AP,
    AP @ 5,
    AP(rel=2),
    RR,
    R @ 10,
    R(rel=2) @ 100,
    Bpref,
    Rprec,
    infAP,
    Success @ 1,
    Success @ 10,
    IPrec @ 0.5,
    NumQ,
    NumRel,
]


def generate(seed: int, ties: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Graded qrels (negative grades too), queries missing from the run and from the qrels,
    a query without relevant documents; tied scores (also in float32 only) when asked."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        docs = rng.sample(range(80), 40)
        if q % 7 != 3:
            grades = [0] if q % 9 == 4 else [-1, 0, 0, 1, 1, 2, 3]
            qrels[f"q{q}"] = {f"d{d}": rng.choice(grades) for d in docs[:20]}
        if q % 5 != 2:
            values = [0.5, 1.0, 1.0 + 1e-9, 2.0] if ties else None
            run[f"q{q}"] = {
                f"d{d}": (rng.choice(values) if values else rng.random() * 10 + q)
                for d in docs[10:40]
            }
    return qrels, run


def per_query(metrics: Any) -> dict[tuple[str, str], float]:
    table: dict[tuple[str, str], float] = {}
    for metric in metrics:
        key = (metric.query_id, str(metric.measure))
        assert key not in table, key
        table[key] = metric.value
    return table


def assert_same(ours: dict[Any, float], theirs: dict[Any, float]) -> None:
    assert set(ours) == set(theirs)
    bad = {k: (ours[k], theirs[k]) for k in ours if abs(ours[k] - theirs[k]) > 1e-12}
    assert not bad, list(bad.items())[:5]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", [True, False])
def test_iter_calc_and_calc_aggregate_agree(seed: int, ties: bool) -> None:
    qrels, run = generate(seed, ties)
    measures = TRECLIKE if ties else [*TRECLIKE, RR @ 5, RR(rel=2) @ 10]
    ours = list(compat.iter_calc(measures, qrels, run))
    theirs = list(ir_measures.iter_calc(measures, qrels, run))
    assert len(ours) == len(theirs)
    assert_same(per_query(ours), per_query(theirs))
    aggregate = compat.calc_aggregate(measures, qrels, run)
    assert list(aggregate) == measures  # keyed by the caller's objects
    assert_same(aggregate, ir_measures.calc_aggregate(measures, qrels, run))


def test_names_records_and_frames() -> None:
    pd = pytest.importorskip("pandas")
    qrels, run = generate(2, ties=True)
    qrel_records = [
        ir_measures.Qrel(q, d, g) for q, judged in qrels.items() for d, g in judged.items()
    ]
    run_records = [
        ir_measures.ScoredDoc(q, d, s) for q, ranked in run.items() for d, s in ranked.items()
    ]
    expected = ir_measures.calc_aggregate([nDCG @ 10, AP, P(rel=2) @ 5], qrels, run)
    expected_by_name = {str(m): v for m, v in expected.items()}
    inputs = [
        (qrel_records, run_records),
        (pd.DataFrame(qrel_records), pd.DataFrame(run_records)),
        (qrels, run_records),
    ]
    for qrels_input, run_input in inputs:
        got = compat.calc_aggregate(["nDCG@10", "AP", "P(rel=2)@5"], qrels_input, run_input)
        assert_same(got, expected_by_name)


def test_evaluator_scores_several_runs_and_yields_the_callers_objects() -> None:
    qrels, run = generate(3, ties=True)
    other = {q: {d: -s for d, s in ranked.items()} for q, ranked in run.items()}
    measure = nDCG @ 10
    ours = compat.evaluator([measure], qrels)
    theirs = ir_measures.evaluator([measure], qrels)
    for scored in (run, other):
        assert_same(ours.calc_aggregate(scored), theirs.calc_aggregate(scored))
    metric = next(iter(ours.iter_calc(run)))
    assert metric.measure is measure
    assert metric == ir_measures.Metric(metric.query_id, measure, metric.value)


def test_files(tmp_path: Any) -> None:
    qrels, run = generate(4, ties=True)
    qrels_file = tmp_path / "qrels.txt"
    run_file = tmp_path / "run.trec"
    qrels_file.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items())
    )
    run_file.write_text(
        "".join(
            f"{q} Q0 {d} {i} {s!r} tag\n"
            for q, ranked in run.items()
            for i, (d, s) in enumerate(ranked.items())
        )
    )
    assert_same(
        compat.calc_aggregate([AP, nDCG @ 5], str(qrels_file), str(run_file)),
        ir_measures.calc_aggregate([AP, nDCG @ 5], qrels, run),
    )


def test_unknown_measure_names_the_measure() -> None:
    with pytest.raises(ValueError, match="unknown measure 'nDGC'"):
        compat.calc_aggregate(["nDGC@10"], {"q": {"a": 1}}, {"q": {"a": 1.0}})
