"""`optimize_fusion`: the grids, given candidates, the choice of the best, training."""

from __future__ import annotations

import itertools

import pytest
from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

import rankscope
from rankscope.errors import OptionError
from rankscope.fuse import weight_grid

QRELS = {"q1": {"d1": 1, "d3": 2}, "q2": {"d4": 1}, "q3": {"d7": 1}}
BM25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}, "q3": {"d6": 1.0}}
DENSE = {"q1": {"d3": 0.9, "d2": 0.5}, "q2": {"d4": 0.8, "d5": 0.7}, "q3": {"d7": 0.2}}
RUNS = [BM25, DENSE]


@pytest.mark.parametrize(("n_runs", "step"), [(2, 0.1), (3, 0.1), (3, 0.25), (4, 0.2)])
def test_weight_grid_holds_ranx_trials_and_those_its_float_test_drops(n_runs, step) -> None:
    ours = list(weight_grid(n_runs, step))
    theirs = get_trial_configs(get_possible_weights(step), n_runs)
    assert set(theirs) <= set(ours)
    assert ours == sorted(ours)  # ranx's order (itertools.product), for what both hold
    assert all(abs(sum(w) - 1) < 1e-9 for w in ours)
    units = round(1 / step)
    assert len(ours) == len(list(itertools.combinations(range(units + n_runs - 1), n_runs - 1)))


def test_the_best_is_the_first_highest_score_of_a_brute_force_search() -> None:
    search = rankscope.optimize_fusion(QRELS, RUNS, "rrf", "nDCG@10", candidates={"k": [1, 5, 60]})
    by_hand = []
    for k in (1, 5, 60):
        fused = rankscope.fuse(RUNS, "rrf", params={"k": k})
        by_hand.append(rankscope.evaluate(QRELS, fused, "nDCG@10").mean()["nDCG@10"])
    assert [t.score for t in search.trials] == by_hand
    best = by_hand.index(max(by_hand))
    assert search.params == {"k": [1, 5, 60][best]}
    assert search.score == max(by_hand)
    assert search.table().columns == ["k", "nDCG@10"]


def test_default_grids_follow_ranx() -> None:
    rrf = rankscope.optimize_fusion(QRELS, RUNS, "rrf", "AP")
    assert [t.params["k"] for t in rrf.trials] == list(range(10, 101, 10))
    gmnz = rankscope.optimize_fusion(QRELS, RUNS, "gmnz", "AP", step=0.25)
    assert [t.params["gamma"] for t in gmnz.trials] == [0.01, 0.26, 0.51, 0.76]
    wsum = rankscope.optimize_fusion(QRELS, RUNS, "wsum", "AP")
    assert len(wsum.trials) == 11
    assert wsum.trials[3].params == {"weights": [0.3, 0.7]}


def test_candidates_as_a_list_of_configurations() -> None:
    configs = [{"weights": [0.9, 0.1]}, {"weights": [0.1, 0.9]}]
    search = rankscope.optimize_fusion(QRELS, RUNS, "wmnz", "RR", candidates=configs)
    assert [t.params for t in search.trials] == configs
    fused = rankscope.fuse(RUNS, "wmnz", params=search.params)
    assert rankscope.evaluate(QRELS, fused, "RR").mean()["RR"] == search.score


def test_trained_methods_return_parameters_fuse_takes() -> None:
    for method in ("probfuse", "segfuse", "slidefuse", "mapfuse", "posfuse", "bayesfuse"):
        search = rankscope.optimize_fusion(QRELS, RUNS, method, "nDCG@10", step=None)
        fused = rankscope.fuse(RUNS, method, params=search.params)
        assert rankscope.evaluate(QRELS, fused, "nDCG@10").mean()["nDCG@10"] == pytest.approx(
            search.score
        )
    probfuse = rankscope.optimize_fusion(QRELS, RUNS, "probfuse", candidates={"n_segments": [2]})
    assert [len(p) for p in probfuse.params["probs"]] == [2, 2]


def test_mapfuse_weights_are_each_runs_map() -> None:
    search = rankscope.optimize_fusion(QRELS, RUNS, "mapfuse", norm=None)
    expected = [rankscope.evaluate(QRELS, run, "AP", complete=True).mean()["AP"] for run in RUNS]
    assert search.params["map_scores"] == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "sum"}, "sum has no parameter to optimize or train"),
        (
            {"method": "rrf", "candidates": {"gamma": [1]}},
            "rrf: cannot search gamma; it searches k",
        ),
        ({"method": "wsum", "step": 0.3}, "the weight step must divide 1"),
        ({"method": "rrf", "candidates": []}, "candidates hold no configuration"),
        ({"method": "probfuse", "candidates": {"n_segments": [0]}}, "n_segments must be an int"),
        ({"method": "rrf", "metric": "nDCG@x"}, ""),
    ],
)
def test_bad_searches(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(rankscope.RankscopeError) as error:
        rankscope.optimize_fusion(QRELS, RUNS, **kwargs)  # type: ignore[arg-type]
    assert message in str(error.value)
    if "metric" not in kwargs:
        assert isinstance(error.value, OptionError)
