"""ranx's metric names give ranx's values: every name of `RANX_NAMES` (and ranx's ``-l2``
relevance levels, written ``(rel=2)``) per query against ranx itself, on generated data without
tied scores (ranx orders tied documents arbitrarily). ranx compiles with numba on first use, so
it is called once, for all names together."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import rankscope
from rankscope.engine.measures._ranx import RANX_NAMES

# A slow group (numba compiles each of ranx's measures): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

# ranx's name -> rankscope's spelling of the same measure.
PAIRS: dict[str, str] = {
    "hits@5": "hits@5",
    "hits": "hits",
    "hits@10-l2": "hits(rel=2)@10",
    "hit_rate@3": "hit_rate@3",
    "precision@5": "precision@5",
    "precision@50": "precision@50",
    "precision@5-l2": "P(rel=2)@5",
    "recall@10": "recall@10",
    "f1@5": "f1@5",
    "f1": "f1",
    "f1@50": "f1@50",
    "f1@10-l2": "f1(rel=2)@10",
    "r-precision": "r-precision",
    "mrr@10": "mrr@10",
    "mrr": "mrr",
    "map@10": "map@10",
    "map": "map",
    "ndcg@10": "ndcg@10",
    "ndcg": "ndcg",
    "ndcg_burges@10": "ndcg_burges@10",
    "ndcg_burges": "ndcg_burges",
    "ndcg_burges@10-l2": "ndcg_burges(rel=2)@10",
    "dcg@10": "dcg@10",
    "dcg": "dcg",
    "dcg@10-l2": "dcg(rel=2)@10",
    "dcg_burges@5": "dcg_burges@5",
}


def generate(seed: int, all_relevant: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """30 queries, each judged (with a non-relevant document) and ranked, without tied
    scores; some with no relevant document unless ``all_relevant``."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        docs = rng.sample(range(100), 45)
        grades = [0] if q % 8 == 5 and not all_relevant else [0, 0, 1, 1, 2, 3]
        judged = {f"d{d}": rng.choice(grades) for d in docs[:25]}
        judged[f"d{docs[0]}"] = 0
        judged[f"d{docs[1]}"] = max(judged[f"d{docs[1]}"], 0 if grades == [0] else 1)
        qrels[f"q{q:02d}"] = judged
        ranked = docs[5 : 5 + rng.randint(1, 40)]
        scores = rng.sample(range(1000), len(ranked))
        run[f"q{q:02d}"] = {f"d{d}": s / 7.0 for d, s in zip(ranked, scores, strict=True)}
    return qrels, run


Values = tuple[dict[str, Any], dict[str, Any], dict[str, list[float]]]


@pytest.fixture(scope="module")
def ranx_values() -> dict[str, Values]:
    """ranx's per-query values of every name in PAIRS, and of bpref on data where ranx
    defines it (every query with a relevant and a judged non-relevant document: without a
    relevant one, ranx's bpref divides by zero, which in its parallel loop leaves that query
    and the following ones at 0)."""
    ranx = pytest.importorskip("ranx")
    values: dict[str, Values] = {}
    for key, names, (qrels, run) in (
        ("names", list(PAIRS), generate(11)),
        ("bpref", ["bpref"], generate(12, all_relevant=True)),
    ):
        scores = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_mean=False)
        if len(names) == 1:
            scores = {names[0]: scores}
        values[key] = qrels, run, {name: [float(v) for v in s] for name, s in scores.items()}
    return values


def compare(values: Values, pairs: dict[str, str]) -> None:
    qrels, run, expected = values
    results = rankscope.evaluate(qrels, run, list(pairs.values()))
    assert results.query_ids == sorted(qrels)
    mismatches = [
        (ranx_name, query_id, got, want)
        for ranx_name, ours in pairs.items()
        for query_id, got, want in zip(
            results.query_ids, results.score_list(ours), expected[ranx_name], strict=True
        )
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)
    ]
    assert not mismatches, mismatches[:10]


def test_every_ranx_name_is_tested_and_parses_as_documented() -> None:
    tested = {name.split("@")[0].split("-l")[0] for name in [*PAIRS, "bpref"]}
    assert tested == {name.split("@")[0] for name in RANX_NAMES}
    for name, (ours, _) in RANX_NAMES.items():
        assert rankscope.measure(name.replace("@k", "@10")) == rankscope.measure(
            ours.replace("@k", "@10")
        )


def test_ranx_names_give_ranx_values(ranx_values: dict[str, Values]) -> None:
    compare(ranx_values["names"], PAIRS)


def test_bpref_gives_ranx_values_where_ranx_defines_it(ranx_values: dict[str, Values]) -> None:
    compare(ranx_values["bpref"], {"bpref": "bpref"})


def test_bpref_where_ranx_gives_nan() -> None:
    """A query without judged non-relevant documents: ranx's bpref is NaN (0 / 0), trec_eval's
    (which the name keeps) a number."""
    ranx = pytest.importorskip("ranx")
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 2.0, "c": 1.0, "b": 0.5}}
    assert math.isnan(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "bpref"))
    assert rankscope.evaluate(qrels, run, "bpref").mean()["Bpref"] == 1.0
