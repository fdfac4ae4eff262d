"""Agreement of leaderboards: τ and ρ equal to scipy, τ_AP and RBO against published and
hand-computed examples, the swaps, and the queries compared."""

from __future__ import annotations

import math
import random
import warnings

import pytest

import rankscope
from rankscope.errors import InputError, OptionError
from rankscope.io import Run
from rankscope.judge import ranking_agreement, rbo, tau_ap
from rankscope.judge._correlation import agreements

stats = pytest.importorskip("scipy.stats")


# -- tau_AP ------------------------------------------------------------------------------------


def test_tau_ap_of_ircors_documented_example() -> None:
    # The example of ircor's tauAP (Urbano's R package of IR correlations, after Yilmaz et
    # al. 2008): x the true scores, y the estimated ones, no ties; documented output 0.3928571.
    x = [0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54]
    y = [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84]
    assert round(tau_ap(x, y), 7) == 0.3928571


def test_tau_ap_weighs_a_swap_at_the_top_more_than_one_at_the_bottom() -> None:
    # Yilmaz et al. 2008, section 3: tau_AP = 2/(N-1) sum_{i>=2} C(i)/(i-1) - 1. Truth a > b > c
    # > d > e. Swapping a and b: C = 0, 2, 3, 4 over i - 1 = 1, 2, 3, 4: 2/4 * 3 - 1 = 0.5.
    # Swapping d and e: C(i)/(i-1) = 1, 1, 1, 3/4: 2/4 * 3.75 - 1 = 0.875. Kendall's tau: 0.8.
    truth = [5, 4, 3, 2, 1]
    top_swapped, bottom_swapped = [4, 5, 3, 2, 1], [5, 4, 3, 1, 2]
    assert tau_ap(truth, top_swapped) == 0.5
    assert tau_ap(truth, bottom_swapped) == 0.875
    for swapped in (top_swapped, bottom_swapped):
        assert stats.kendalltau(truth, swapped).statistic == pytest.approx(0.8)


def test_tau_ap_is_one_for_the_same_order_and_minus_one_for_the_reverse() -> None:
    assert tau_ap([3, 2, 1], [30, 20, 10]) == 1.0
    assert tau_ap([3, 2, 1], [1, 2, 3]) == -1.0


def test_tau_ap_is_undefined_with_ties() -> None:
    assert math.isnan(tau_ap([1, 1, 2], [1, 2, 3]))
    assert math.isnan(tau_ap([1, 2, 3], [2, 2, 3]))


@pytest.mark.parametrize(
    ("reference", "estimate", "message"),
    [([1.0], [1.0], "at least two items"), ([1.0, 2.0], [1.0], "one score per item")],
)
def test_tau_ap_refuses_what_it_cannot_compare(
    reference: list[float], estimate: list[float], message: str
) -> None:
    with pytest.raises(OptionError, match=message):
        tau_ap(reference, estimate)


# -- RBO ----------------------------------------------------------------------------------------


def test_agreements_of_webbers_figure_5() -> None:
    # Webber, Moffat and Zobel 2010, figure 5: S = abcdefg, T = zcavwxy; agreement at each
    # depth 0, 0, 2/3, 2/4, 2/5, 2/6, 2/7 and their average overlap 0.312.
    shares = agreements("abcdefg", "zcavwxy")
    assert shares == pytest.approx([0, 0, 2 / 3, 2 / 4, 2 / 5, 2 / 6, 2 / 7])
    assert round(sum(shares) / len(shares), 3) == 0.312


def test_rbo_ext_of_figure_5_by_hand() -> None:
    # Equation 32: X_7/7 p^7 + (1-p)/p sum_d X_d/d p^d, X_d = 0, 0, 2, 2, 2, 2, 2, p = 0.9.
    p = 0.9
    overlaps = [0, 0, 2, 2, 2, 2, 2]
    expected = 2 / 7 * p**7 + (1 - p) / p * sum(x / d * p**d for d, x in enumerate(overlaps, 1))
    assert rbo("abcdefg", "zcavwxy", p) == pytest.approx(expected)
    assert rbo("abcdefg", "zcavwxy", p) == pytest.approx(0.2882173, abs=1e-7)


def test_rbo_limits() -> None:
    assert rbo("abcd", "abcd", 0.5) == pytest.approx(1.0)
    assert rbo("abcd", "wxyz", 0.5) == 0.0
    # Conjoint rankings, the two best swapped, p = 0.5: X = 0, 2, 3 ->
    # 1 * 0.5^3 + (0 + 0.25 + 0.125) = 0.5.
    assert rbo("abc", "bac", 0.5) == 0.5


@pytest.mark.parametrize(
    ("first", "second", "p", "message"),
    [
        ("ab", "abc", 0.9, "the same length"),
        ("aa", "ab", 0.9, "without repeated items"),
        ("ab", "ab", 1.0, "strictly between 0 and 1"),
        ("", "", 0.9, "at least one item"),
    ],
)
def test_rbo_refuses_what_it_cannot_compare(
    first: str, second: str, p: float, message: str
) -> None:
    with pytest.raises(OptionError, match=message):
        rbo(first, second, p)


# -- leaderboards -------------------------------------------------------------------------------


def generated(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]], list[Run]]:
    """Two qrels (the second a noisy copy of the first, judging fewer queries) and six runs."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(30)]
    first = {f"q{q}": {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, 15)} for q in range(8)}
    second = {
        query: {d: g if rng.random() < 0.7 else rng.choice([0, 1, 2]) for d, g in judged.items()}
        for query, judged in first.items()
        if query != "q7"
    }
    runs = [
        Run.from_dict(
            {f"q{q}": {d: rng.random() for d in rng.sample(docs, 12)} for q in range(8)},
            name=f"system{i}",
        )
        for i in range(6)
    ]
    return first, second, runs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tau_and_rho_equal_scipy_on_the_leaderboards_rankscope_evaluates(seed: int) -> None:
    first, second, runs = generated(seed)
    measures = ["nDCG@10", "AP", "nDCG"]
    found = ranking_agreement(first, second, runs, measures)
    assert found.runs == tuple(f"system{i}" for i in range(6))
    assert found.queries == 7  # q7 is judged by the first set only
    shared = {q: judged for q, judged in first.items() if q in second}
    for m in found.measures:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rankscope.RankscopeWarning)
            a = [rankscope.evaluate(shared, run, m.measure).mean()[m.measure] for run in runs]
            b = [rankscope.evaluate(second, run, m.measure).mean()[m.measure] for run in runs]
        assert list(m.scores_a) == a and list(m.scores_b) == b
        assert len(set(a)) == len(set(b)) == 6  # no ties: every coefficient is defined
        assert m.kendall_tau == pytest.approx(stats.kendalltau(a, b).statistic)
        assert m.spearman_rho == pytest.approx(stats.spearmanr(a, b).statistic)
        assert m.tau_ap == pytest.approx(tau_ap(a, b))
        order_a = [runs[i].name for i in sorted(range(6), key=lambda i: -a[i])]
        order_b = [runs[i].name for i in sorted(range(6), key=lambda i: -b[i])]
        assert m.rbo == pytest.approx(rbo(order_a, order_b, 0.9))
        swapped = {
            (order_a[i], order_a[j])
            for i in range(6)
            for j in range(i + 1, 6)
            if order_b.index(order_a[i]) > order_b.index(order_a[j])
        }
        assert set(m.swaps) == {(x, y) for x, y in swapped} and len(m.swaps) == len(swapped)
        # Kendall's tau (no ties) is 1 - 4 swaps / (n (n - 1)).
        assert m.kendall_tau == pytest.approx(1 - 4 * len(swapped) / 30)


def test_the_swaps_are_named_in_the_first_leaderboards_order() -> None:
    a = {"q": {"d1": 1, "d2": 0, "d3": 0}}
    b = {"q": {"d1": 0, "d2": 0, "d3": 1}}
    runs = [
        Run.from_lists({"q": ["d1", "d2", "d3"]}, name="x"),  # RR 1 under a, 1/3 under b
        Run.from_lists({"q": ["d2", "d1", "d3"]}, name="y"),  # 1/2, 1/3
        Run.from_lists({"q": ["d3", "d2", "d1"]}, name="z"),  # 1/3, 1
    ]
    [found] = ranking_agreement(a, b, runs, "RR").measures
    assert found.swaps == (("x", "z"), ("y", "z"))
    # x and y tie under b: not a swap; the tie leaves tau_AP and RBO undefined.
    assert math.isnan(found.tau_ap) and math.isnan(found.rbo)
    assert found.kendall_tau == pytest.approx(
        stats.kendalltau([1, 0.5, 1 / 3], [1 / 3, 1 / 3, 1]).statistic
    )


def test_to_dict_names_every_run() -> None:
    first, second, runs = generated(4)
    found = ranking_agreement(first, second, runs[:3], ["AP"], rbo_p=0.8)
    data = found.to_dict()
    assert data["rbo_p"] == 0.8 and data["queries"] == 7
    [measure] = data["measures"]
    assert list(measure["scores_a"]) == ["system0", "system1", "system2"]


@pytest.mark.parametrize(
    ("runs", "options", "error", "message"),
    [
        (1, {}, OptionError, "at least two runs; got 1"),
        (2, {"rbo_p": 0}, OptionError, "rbo_p must lie strictly between 0 and 1"),
    ],
)
def test_bad_options(runs: int, options: dict[str, object], error: type, message: str) -> None:
    first, second, generated_runs = generated(5)
    with pytest.raises(error, match=message):
        ranking_agreement(first, second, generated_runs[:runs], "AP", **options)  # type: ignore[arg-type]


def test_qrels_without_a_common_query_are_an_error() -> None:
    with pytest.raises(InputError, match="judge no query in common"):
        ranking_agreement({"q1": {"a": 1}}, {"q2": {"a": 1}}, [{"q1": ["a"]}, {"q1": ["b"]}], "P@1")
