"""ranx's metric names give ranx's values: every ranx name the registry knows (ranx's documented
list: hits, hit_rate, precision, recall, f1, r-precision, mrr, map, dcg, dcg_burges, ndcg,
ndcg_burges, bpref, rbp), with and without ``@k`` and ranx's ``-lN``, parsed by rankscope and
compared per query with ranx itself on generated data without tied scores (ranx orders tied
documents arbitrarily). ranx compiles with numba on first use, so it is called once per data
set, for all names together; those tests are marked slow."""

from __future__ import annotations

import math
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

import rankscope
from rankscope.engine.measures import FAMILIES

FORMS = {
    "cutoff": ["", "@3", "@10", "@50"],
    "persistence": [".95", ".8", ".5"],
    "none": [""],
}


def ranx_names(*, bpref: bool) -> list[str]:
    """Every ranx name of the registry in each form it takes (bpref's, or all the others),
    with ranx's default level and levels 2 and 3."""
    names = []
    for family in FAMILIES.values():
        ranx = family.ranx
        if ranx is None or (ranx.name == "bpref") != bpref:
            continue
        for form in FORMS[ranx.number]:
            names += [f"{ranx.name}{form}", f"{ranx.name}{form}-l2", f"{ranx.name}{form}-l3"]
    return names


def generate(seed: int, relevant_at: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """30 queries, each judged (with a non-relevant document) and ranked, without tied
    scores; some with no relevant document unless every query must have one graded
    ``relevant_at`` or more (and one graded below 1)."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        docs = rng.sample(range(100), 45)
        grades = [0] if q % 8 == 5 and not relevant_at else [0, 0, 1, 1, 2, 3]
        judged = {f"d{d}": rng.choice(grades) for d in docs[:25]}
        judged[f"d{docs[0]}"] = 0
        judged[f"d{docs[1]}"] = max(judged[f"d{docs[1]}"], relevant_at, 0 if grades == [0] else 1)
        qrels[f"q{q:02d}"] = judged
        ranked = docs[5 : 5 + rng.randint(1, 40)]
        scores = rng.sample(range(1000), len(ranked))
        run[f"q{q:02d}"] = {f"d{d}": s / 7.0 for d, s in zip(ranked, scores, strict=True)}
    return qrels, run


Values = tuple[dict[str, Any], dict[str, Any], dict[str, list[float]]]


@pytest.fixture(scope="module")
def ranx_values() -> dict[str, Values]:
    """ranx's per-query values of every name, bpref's on data where ranx defines it at every
    level tested (every query with a document graded 3 or more and a judged non-relevant one:
    without a relevant one, ranx's bpref divides by zero, which in its parallel loop leaves
    that query and the following ones at 0)."""
    ranx = pytest.importorskip("ranx")
    values: dict[str, Values] = {}
    for key, names, (qrels, run) in (
        ("names", ranx_names(bpref=False), generate(11)),
        ("bpref", ranx_names(bpref=True), generate(12, relevant_at=3)),
    ):
        scores = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_mean=False)
        values[key] = qrels, run, {name: [float(v) for v in s] for name, s in scores.items()}
    return values


def compare(values: Values) -> None:
    qrels, run, expected = values
    names = list(expected)
    results = rankscope.evaluate(qrels, run, names)
    assert results.query_ids == sorted(qrels)
    mismatches = [
        (name, query_id, got, want)
        for name in names
        for query_id, got, want in zip(
            results.query_ids, results.score_list(name), expected[name], strict=True
        )
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)
    ]
    assert not mismatches, mismatches[:10]


def test_ranx_names_are_ranx_s_documented_list() -> None:
    named = {family.ranx.name for family in FAMILIES.values() if family.ranx is not None}
    assert named == {
        "hits",
        "hit_rate",
        "precision",
        "recall",
        "f1",
        "r-precision",
        "mrr",
        "map",
        "dcg",
        "dcg_burges",
        "ndcg",
        "ndcg_burges",
        "bpref",
        "rbp",
    }


@pytest.mark.parametrize(
    ("ranx_name", "ours"),
    [
        ("rbp.95", "RBP(p=0.95)"),
        ("rbp.8", "RBP"),
        ("rbp.05", "RBP(p=0.05)"),
        ("rbp.95-l2", "RBP(p=0.95,gains=1:0.0)"),
        ("rbp.9-l3", "RBP(p=0.9,gains=1:0.0;2:0.0)"),
        ("ndcg@10-l2", "nDCG(gains=1:0.0)@10"),
        ("ndcg-l1", "nDCG"),
        ("ndcg@10", "nDCG@10"),
        ("hits@10-l2", "hits(rel=2)@10"),
        ("precision@5-l2", "P(rel=2)@5"),
        ("precision-l2", "P(rel=2)"),
        ("map@100", "AP@100"),
        ("mrr@10", "RR@10"),
        ("hit_rate@5", "Success@5"),
        ("hit_rate", "Success@1000000000"),
        ("hit_rate-l2", "Success(rel=2)@1000000000"),
        ("r-precision-l2", "Rprec(rel=2)"),
        ("bpref-l2", "Bpref(rel=2)"),
        ("dcg_burges@5-l3", "dcg_burges(rel=3)@5"),
    ],
)
def test_ranx_names_parse_to_what_ranx_computes(ranx_name: str, ours: str) -> None:
    parsed = rankscope.measure(ranx_name)
    assert parsed.name == ours
    assert rankscope.measure(parsed.name) == parsed


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("rbp@95", "ranx writes RBP's persistence after a dot, as in rbp.95"),
        ("rbp.9x", "ranx writes RBP's persistence after a dot"),
        ("rbp.0", "parameter p of RBP must be a number strictly between 0 and 1; got '0.0'"),
        ("ndcg@10-l0", "ranx's relevance level (-lN) must be an integer from 1"),
        ("bpref@5", "measure Bpref takes no cutoff; got 'bpref@5'"),
    ],
)
def test_bad_ranx_names_say_what_ranx_writes(name: str, message: str) -> None:
    with pytest.raises(rankscope.MeasureError, match=re.escape(message)):
        rankscope.measure(name)


def test_other_spellings_keep_their_meaning() -> None:
    """ranx's grammar reads ranx's spellings only: ir_measures' RBP@k is a cutoff."""
    assert rankscope.measure("RBP@95").name == "RBP@95"
    assert rankscope.measure("rbp").name == "RBP"


@pytest.mark.slow
def test_ranx_names_give_ranx_values(ranx_values: dict[str, Values]) -> None:
    compare(ranx_values["names"])


@pytest.mark.slow
def test_bpref_gives_ranx_values_where_ranx_defines_it(ranx_values: dict[str, Values]) -> None:
    compare(ranx_values["bpref"])


@pytest.mark.slow
def test_bpref_where_ranx_gives_nan() -> None:
    """A query without judged non-relevant documents: ranx's bpref is NaN (0 / 0), trec_eval's
    (which the name keeps) a number."""
    ranx = pytest.importorskip("ranx")
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 2.0, "c": 1.0, "b": 0.5}}
    assert math.isnan(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "bpref"))
    assert rankscope.evaluate(qrels, run, "bpref").mean()["Bpref"] == 1.0


@pytest.mark.slow
def test_each_worker_compiles_ranx_into_a_cache_of_its_own(worker_id: str) -> None:
    """Under pytest-xdist ranx's numba caches are the worker's own (tests/conftest.py: two
    processes saving two signatures of one function into one cache can leave an index naming
    one signature over the other's machine code); in one process numba's default is kept."""
    ndcg = pytest.importorskip("ranx.metrics.ndcg")
    cache = Path(ndcg._ndcg._cache.cache_path)  # where the function's index and code are saved
    if worker_id == "master":
        assert Path(__file__).parents[2] / "build" / "numba-cache" not in cache.parents, cache
        return
    ours = Path(os.environ["NUMBA_CACHE_DIR"])
    assert ours.name == worker_id and ours in cache.parents, cache
