"""Tukey's HSD against ranx's ``compare(stat_test="tukey")``, on ranx's own kind of example
(three random runs of random graded qrels, as in ranx's report tests) and on runs that share a
topic effect.

ranx runs scipy's one-way ``tukey_hsd`` on each measure's per-query scores: every system's
scores are taken as an independent sample, and the variation between topics stays in the
error. rankscope's one-way design gives ranx's p-values and decisions; its default two-way
design removes the topics' variation first, which is what finds the differences between
systems that are evaluated on the same topics.

ranx compiles its measures with numba on first use (tens of seconds): these tests are slow.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from rankscope.compare import tukey_hsd

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.slow

METRICS = ["map@100", "mrr@100", "ndcg@10"]


def _ranx_example(seed: int, queries: int = 300) -> tuple[Any, list[Any]]:
    """ranx's report-test data: graded qrels of up to 9 documents, runs of up to 99 scored
    documents, each run drawn independently."""
    rng = random.Random(seed)
    qrels = {
        f"q{i}": {f"d{j}": rng.choice([0, 1, 2, 3, 4, 5]) for j in range(rng.choice(range(1, 10)))}
        for i in range(queries)
    }
    runs = []
    for k in range(1, 4):
        run = {
            f"q{i}": {f"d{j}": rng.uniform(0.0, 1.0) for j in range(rng.choice(range(1, 100)))}
            for i in range(queries)
        }
        named = ranx.Run.from_dict(run)
        named.name = f"model_{k}"
        runs.append(named)
    return ranx.Qrels.from_dict(qrels), runs


def _shared_topics(seed: int, queries: int = 120) -> tuple[Any, list[Any]]:
    """Three runs that are noisy versions of one ranking per query, the later ones a little
    better: topics differ far more than the runs do, as in real experiments."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: list[dict[str, dict[str, float]]] = [{}, {}, {}]
    for q in range(queries):
        docs = [f"d{j}" for j in range(50)]
        relevant = rng.choice(50, size=int(rng.integers(1, 12)), replace=False)
        qrels[f"q{q}"] = {docs[j]: int(rng.integers(1, 4)) for j in relevant}
        difficulty = rng.uniform(0.0, 2.5)  # how well any system can do on this topic
        base = rng.normal(0, 1, 50) + difficulty * np.isin(np.arange(50), relevant)
        for k, run in enumerate(runs):
            noise = rng.normal(0, 0.35, 50) + 0.25 * k * np.isin(np.arange(50), relevant)
            run[f"q{q}"] = {doc: float(s) for doc, s in zip(docs, base + noise, strict=True)}
    named = []
    for k, run in enumerate(runs, 1):
        ranx_run = ranx.Run.from_dict(run)
        ranx_run.name = f"model_{k}"
        named.append(ranx_run)
    return ranx.Qrels.from_dict(qrels), named


def _per_query(runs: list[Any], metric: str) -> dict[str, np.ndarray]:
    """Each run's per-query scores as ranx computed them, in one query order."""
    queries = sorted(runs[0].scores[metric])
    return {run.name: np.array([run.scores[metric][q] for q in queries]) for run in runs}


@pytest.mark.parametrize("max_p", [0.01, 0.05])
@pytest.mark.parametrize("seed", [42, 7])
def test_the_one_way_design_gives_ranxs_p_values_and_decisions(seed: int, max_p: float) -> None:
    qrels, runs = _ranx_example(seed)
    report = ranx.compare(qrels, runs, METRICS, stat_test="tukey", max_p=max_p)
    for metric in METRICS:
        ours = tukey_hsd(_per_query(runs, metric), design="one-way", alpha=max_p)
        for pair in ours.pairs:
            theirs = report.comparisons[pair.first, pair.second][metric]
            assert pair.p_value == pytest.approx(float(theirs["p_value"]), abs=1e-9)
            assert pair.significant == bool(theirs["significant"])


def test_blocking_on_topics_separates_what_ranxs_one_way_design_cannot() -> None:
    qrels, runs = _shared_topics(3)
    report = ranx.compare(qrels, runs, METRICS, stat_test="tukey", max_p=0.05)
    ranx_found = blocked_found = 0
    for metric in METRICS:
        scores = _per_query(runs, metric)
        one_way = tukey_hsd(scores, design="one-way")
        blocked = tukey_hsd(scores)
        for o, b in zip(one_way.pairs, blocked.pairs, strict=True):
            theirs = report.comparisons[o.first, o.second][metric]
            assert o.significant == bool(theirs["significant"])
            ranx_found += bool(theirs["significant"])
            blocked_found += b.significant
            assert b.p_value <= o.p_value  # the same difference over a smaller error
    assert blocked_found > ranx_found
