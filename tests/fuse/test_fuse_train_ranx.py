"""The trained methods against ranx: the trained values (ranx's ``*_train`` functions) and the
fusion with them, for every normalisation, on generated runs with ties and documents missing
from some runs. ranx trains only on runs and qrels that hold the same queries, so every query
here is judged and in every run."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from fusion_reference import Scores, assert_same_fusion, normalized, ranx_qrels, to_python
from ranx import fusion as ranx_fusion
from ranx.fusion import fusion_switch

import rankscope
from rankscope.fuse import METHODS, NORMS

# A slow group (numba compiles ranx's fusion methods): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow

TRAINED = [name for name, method in METHODS.items() if method.trained]
NORM_CHOICES: list[str | None] = [*NORMS, None]
DOCS = [f"d{i:02d}" for i in range(40)]
SCORES = [0.0, 0.5, 1.0, 1.0, 2.0, 3.5, 4.0]


def case(seed: int) -> tuple[list[Scores], dict[str, dict[str, int]]]:
    rng = random.Random(seed)
    queries = [f"q{i}" for i in range(rng.randint(2, 5))]
    runs = [
        {q: {d: rng.choice(SCORES) for d in rng.sample(DOCS, rng.randint(1, 25))} for q in queries}
        for _ in range(rng.randint(2, 3))
    ]
    qrels = {q: {d: rng.choice([0, 1, 1, 2]) for d in rng.sample(DOCS, 12)} for q in queries}
    return runs, qrels


def ranx_trained(
    method: str, runs: list[Scores], qrels: Any, norm: str | None, setting: int
) -> tuple[dict[str, Any], Any]:
    """ranx's trained parameters and its fused run."""
    query_ids = sorted(qrels)
    norm_runs = normalized(runs, norm, query_ids)
    judged = ranx_qrels(qrels)
    if method == "probfuse":
        params: dict[str, Any] = {"probs": ranx_fusion.probfuse_train(judged, norm_runs, setting)}
    elif method == "slidefuse":
        params = {"probs": ranx_fusion.slidefuse_train(judged, norm_runs), "w": setting}
    elif method == "bayesfuse":
        params = {"log_odds": ranx_fusion.bayesfuse_train(judged, norm_runs)}
    elif method == "mapfuse":
        params = {"map_scores": ranx_fusion.mapfuse_train(judged, norm_runs)}
    else:
        train = getattr(ranx_fusion, f"{method}_train")
        params = {"probs": train(judged, norm_runs)}
    return params, to_python(fusion_switch(method)(norm_runs, **params))


@pytest.mark.parametrize("norm", NORM_CHOICES, ids=str)
@pytest.mark.parametrize("method", TRAINED)
@pytest.mark.parametrize("seed", range(3))
def test_trained_methods_agree_with_ranx(method: str, norm: str | None, seed: int) -> None:
    runs, qrels = case(seed)
    setting = 1 + seed * 2  # probfuse's segments, slidefuse's window
    expected_params, expected = ranx_trained(method, runs, qrels, norm, setting)
    candidates = {"probfuse": {"n_segments": [setting]}, "slidefuse": {"w": [setting]}}
    search = rankscope.optimize_fusion(
        qrels, runs, method, "AP", norm, candidates=candidates.get(method)
    )
    for name, value in expected_params.items():
        if name == "w":
            assert search.params["w"] == value
            continue
        # ranx's lists of arrays (or of floats, for map_scores); one per run.
        assert len(search.params[name]) == len(value)
        for ours, theirs in zip(search.params[name], value, strict=True):
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    fused = rankscope.fuse(runs, method, norm, params=search.params)
    got: dict[str, list[tuple[str, float]]] = {}
    for query_id, doc_id, score in fused.frame.iter_rows():
        got.setdefault(query_id, []).append((doc_id, score))
    assert_same_fusion(got, expected)
