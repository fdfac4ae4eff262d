"""Per-query agreement with pytrec_eval (trec_eval's C code) on generated data.

The data has graded judgements (including negative "unjudged in pool" grades), many tied
scores, queries judged but absent from the run, run queries without judgements, and queries
with no relevant document. ``trec9`` must agree exactly (pytrec_eval sorts float32-rounded
scores); ``trec`` agrees wherever rounding to float32 creates no new tie, which the second data
set guarantees by using scores that are exact in float32. IPrec is left out of that second
comparison: trec_eval 10 rounds recall levels to the nearest count, pytrec_eval (trec_eval 9)
adds 0.9 and truncates, which is what ``trec9`` does.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import rankscope

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 3, 5, 10, 20, 100)
RECALL_LEVELS = ("0.00", "0.10", "0.30", "0.50", "0.70", "1.00")

# rankscope name -> pytrec_eval output key
PAIRS: dict[str, str] = {
    "AP": "map",
    "nDCG": "ndcg",
    "RR": "recip_rank",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
    "P": "set_P",
    "R": "set_recall",
}
for _k in CUTOFFS:
    PAIRS |= {
        f"nDCG@{_k}": f"ndcg_cut_{_k}",
        f"AP@{_k}": f"map_cut_{_k}",
        f"P@{_k}": f"P_{_k}",
        f"R@{_k}": f"recall_{_k}",
        f"Success@{_k}": f"success_{_k}",
    }
for _level in RECALL_LEVELS:
    PAIRS[f"IPrec@{float(_level)}"] = f"iprec_at_recall_{_level}"

PYTREC_MEASURES = {
    "map",
    "ndcg",
    "recip_rank",
    "Rprec",
    "bpref",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
    "ndcg_cut." + ",".join(map(str, CUTOFFS)),
    "map_cut." + ",".join(map(str, CUTOFFS)),
    "P." + ",".join(map(str, CUTOFFS)),
    "recall." + ",".join(map(str, CUTOFFS)),
    "success." + ",".join(map(str, CUTOFFS)),
    "iprec_at_recall." + ",".join(RECALL_LEVELS),
}


def generate(seed: int, float32_exact: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Random qrels and run with the awkward cases every evaluator must agree on."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        qid = f"q{q:02d}"
        pool = [f"d{rng.integers(0, 400):03d}" for _ in range(60)]
        judged = list(dict.fromkeys(pool))[: rng.integers(1, 35)]
        if q % 10 == 7:  # no relevant document at all
            grades = np.zeros(len(judged), dtype=int)
        else:
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        if q % 10 != 3:  # judged but missing from the run
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
        if q % 10 == 5:  # in the run, not judged
            qrels.pop(qid, None)
        if q % 10 != 9:  # judged but not retrieved
            docs = list(dict.fromkeys(f"d{rng.integers(0, 400):03d}" for _ in range(150)))
            docs = docs[: rng.integers(1, len(docs) + 1)]
            if float32_exact:
                scores = rng.integers(0, 40, size=len(docs)) / 4.0  # exact in float32
            else:
                # Many ties, and values that differ only beyond float32 precision.
                scores = np.round(rng.normal(size=len(docs)), 1) + rng.choice(
                    [0.0, 1e-9], size=len(docs)
                )
            run[qid] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


def compare(
    qrels: dict[str, Any], run: dict[str, Any], profile: str, level: int, iprec: bool = True
) -> None:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES, relevance_level=level)
    expected = evaluator.evaluate(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        got = rankscope.evaluate(
            qrels, run, list(PAIRS), profile=profile, relevance_level=level
        ).to_dict()
    assert set(got) == set(expected), "evaluated query sets differ"
    mismatches = [
        (qid, ours, theirs, got[qid][ours], expected[qid][theirs])
        for qid in expected
        for ours, theirs in PAIRS.items()
        if (iprec or not ours.startswith("IPrec"))
        and abs(got[qid][ours] - expected[qid][theirs]) > 1e-9
    ]
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [1, 2])
def test_trec9_equals_pytrec_eval_with_ties(seed: int, level: int) -> None:
    qrels, run = generate(seed, float32_exact=False)
    compare(qrels, run, "trec9", level)


@pytest.mark.parametrize("seed", [3, 4])
def test_trec_equals_pytrec_eval_when_float32_creates_no_ties(seed: int) -> None:
    qrels, run = generate(seed, float32_exact=True)
    compare(qrels, run, "trec", 1, iprec=False)


def test_trec_and_trec9_differ_only_through_float32_ties() -> None:
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0 + 1e-9}}  # equal in float32: tie broken by doc id desc
    assert rankscope.evaluate(qrels, run, "RR", profile="trec").mean()["RR"] == 0.5
    assert rankscope.evaluate(qrels, run, "RR", profile="trec9").mean()["RR"] == 0.5
    run = {"q": {"b": 1.0, "a": 1.0 + 1e-9}}  # a wins in float64, ties and loses in float32
    assert rankscope.evaluate(qrels, run, "RR", profile="trec").mean()["RR"] == 1.0
    assert rankscope.evaluate(qrels, run, "RR", profile="trec9").mean()["RR"] == 0.5
