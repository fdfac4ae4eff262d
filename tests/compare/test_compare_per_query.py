"""Per-query helpers: win/tie/loss counts and the largest gains and losses."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.compare import QueryDifference, WinTieLoss, largest_differences, win_tie_loss

pairs = st.lists(
    st.tuples(st.integers(0, 10).map(lambda k: k / 10), st.integers(0, 10).map(lambda k: k / 10)),
    min_size=1,
    max_size=30,
)


def test_win_tie_loss_hand_computed() -> None:
    # 0.1 + 0.2 is 0.30000000000000004: a tie within the default tolerance.
    result = win_tie_loss([0.1, 0.5, 0.3, 0.3, 0.0], [0.2, 0.4, 0.1 + 0.2, 0.9, 0.0])
    assert result == WinTieLoss(wins=2, ties=2, losses=1)


def test_win_tie_loss_tolerance() -> None:
    baseline, system = [0.3, 0.5, 0.5], [0.1 + 0.2, 0.52, 0.49]
    assert win_tie_loss(baseline, system, tolerance=0.0) == WinTieLoss(2, 0, 1)
    assert win_tie_loss(baseline, system, tolerance=0.05) == WinTieLoss(0, 3, 0)


@settings(max_examples=100, deadline=None)
@given(pairs)
def test_win_tie_loss_counts_every_query_and_mirrors(pairs: list[tuple[float, float]]) -> None:
    baseline = [b for b, _ in pairs]
    system = [s for _, s in pairs]
    forward = win_tie_loss(baseline, system)
    backward = win_tie_loss(system, baseline)
    assert forward.wins + forward.ties + forward.losses == len(pairs)
    assert (backward.wins, backward.ties, backward.losses) == (
        forward.losses,
        forward.ties,
        forward.wins,
    )
    assert forward.wins == sum(s > b + 1e-9 for b, s in pairs)


def test_largest_differences_hand_computed() -> None:
    ids = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    baseline = [0.5, 0.2, 0.3, 0.6, 0.4, 0.9, 0.8]
    system = [0.7, 0.4, 0.3, 0.1, 0.5, 0.4, 0.9]
    # Differences 0.2 (q1), 0.2 (q2, float-noise apart from q1's), 0, -0.5, 0.1, -0.5, 0.1.
    gains, losses = largest_differences(ids, baseline, system, n=3)
    assert [gain.query_id for gain in gains] == ["q1", "q2", "q5"]
    assert [gain.difference for gain in gains] == pytest.approx([0.2, 0.2, 0.1])
    assert [loss.query_id for loss in losses] == ["q4", "q6"]
    assert losses[0] == QueryDifference("q4", pytest.approx(-0.5))  # type: ignore[arg-type]


def test_largest_differences_ties_by_query_id_and_truncation() -> None:
    ids = ["b", "c", "a", "d"]
    gains, losses = largest_differences(ids, [0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.25], n=2)
    assert [gain.query_id for gain in gains] == ["a", "b"]
    assert losses == ()


def test_largest_differences_n_zero() -> None:
    assert largest_differences(["q1", "q2"], [0.1, 0.5], [0.5, 0.1], n=0) == ((), ())


def test_largest_differences_accepts_numpy_ids() -> None:
    gains, _ = largest_differences(np.array(["x", "y"]), [0.0, 0.0], [0.1, 0.3], n=5)
    assert [gain.query_id for gain in gains] == ["y", "x"]
    assert all(type(gain.query_id) is str for gain in gains)


@settings(max_examples=60, deadline=None)
@given(pairs, st.integers(0, 8), st.randoms(use_true_random=False))
def test_largest_differences_independent_of_input_order(
    pairs: list[tuple[float, float]], n: int, random: Random
) -> None:
    ids = [f"q{index:02d}" for index in range(len(pairs))]
    order = list(range(len(pairs)))
    random.shuffle(order)
    expected = largest_differences(ids, [b for b, _ in pairs], [s for _, s in pairs], n)
    shuffled = largest_differences(
        [ids[i] for i in order], [pairs[i][0] for i in order], [pairs[i][1] for i in order], n
    )
    assert shuffled == expected
    gains, losses = expected
    assert len(gains) <= n and len(losses) <= n
    assert all(gain.difference > 0 for gain in gains)
    assert all(loss.difference < 0 for loss in losses)
    # Largest first, equal differences (up to float noise) by query id.
    gain_keys = [(-round(gain.difference, 9), gain.query_id) for gain in gains]
    loss_keys = [(round(loss.difference, 9), loss.query_id) for loss in losses]
    assert gain_keys == sorted(gain_keys)
    assert loss_keys == sorted(loss_keys)
    wins = win_tie_loss([b for b, _ in pairs], [s for _, s in pairs])
    assert len(gains) == min(n, wins.wins)
    assert len(losses) == min(n, wins.losses)
