"""Multiple-comparison corrections: hand-computed values, a naive reference, properties."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from rankscope.compare import CORRECTION_NAMES, correct_pvalues

# Worked by hand. p = [0.01, 0.04, 0.03, 0.005], m = 4; ascending 0.005, 0.01, 0.03, 0.04.
# Bonferroni: 4p.
# Holm: (4, 3, 2, 1) x ascending = 0.02, 0.03, 0.06, 0.04; running max 0.02, 0.03, 0.06, 0.06.
# BH: ascending x 4 / (1, 2, 3, 4) = 0.02, 0.02, 0.04, 0.04; running min from the top: same.
#
# p = [0.5, 0.2, 0.2, 0.9] (a tie, and clipping at 1); ascending 0.2, 0.2, 0.5, 0.9.
# Bonferroni: 2.0 -> 1, 0.8, 0.8, 3.6 -> 1.
# Holm: 0.8, 0.6, 1.0, 0.9; running max 0.8, 0.8, 1.0, 1.0.
# BH: 0.8, 0.4, 0.6667, 0.9; running min from the top 0.4, 0.4, 0.6667, 0.9.
HAND_COMPUTED = [
    ([0.01, 0.04, 0.03, 0.005], "bonferroni", [0.04, 0.16, 0.12, 0.02]),
    ([0.01, 0.04, 0.03, 0.005], "holm", [0.03, 0.06, 0.06, 0.02]),
    ([0.01, 0.04, 0.03, 0.005], "bh", [0.02, 0.04, 0.04, 0.02]),
    ([0.01, 0.04, 0.03, 0.005], "none", [0.01, 0.04, 0.03, 0.005]),
    ([0.5, 0.2, 0.2, 0.9], "bonferroni", [1.0, 0.8, 0.8, 1.0]),
    ([0.5, 0.2, 0.2, 0.9], "holm", [1.0, 0.8, 0.8, 1.0]),
    ([0.5, 0.2, 0.2, 0.9], "bh", [2 / 3, 0.4, 0.4, 0.9]),
    ([0.03], "holm", [0.03]),
    ([0.03], "bh", [0.03]),
    ([0.03], "bonferroni", [0.03]),
    ([0.0, 1.0], "holm", [0.0, 1.0]),
]

pvalue_lists = st.lists(
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_subnormal=False),
    min_size=1,
    max_size=40,
)


def naive_holm(pvalues: list[float]) -> NDArray[np.float64]:
    """Holm by its definition: max over j <= i of min(1, (m - j + 1) p(j)), one at a time."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda index: pvalues[index])
    result = np.empty(m)
    for i, index in enumerate(order):
        result[index] = max(min(1.0, (m - j) * pvalues[order[j]]) for j in range(i + 1))
    return result


def naive_bh(pvalues: list[float]) -> NDArray[np.float64]:
    """BH by its definition: min over j >= i of min(1, m p(j) / j), one at a time."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda index: pvalues[index])
    result = np.empty(m)
    for i, index in enumerate(order):
        result[index] = min(min(1.0, m * pvalues[order[j]] / (j + 1)) for j in range(i, m))
    return result


@pytest.mark.parametrize(("pvalues", "method", "expected"), HAND_COMPUTED)
def test_hand_computed(pvalues: list[float], method: str, expected: list[float]) -> None:
    np.testing.assert_allclose(correct_pvalues(pvalues, method), expected, rtol=1e-12, atol=0)


def test_default_is_holm() -> None:
    np.testing.assert_array_equal(
        correct_pvalues([0.01, 0.04, 0.03, 0.005]),
        correct_pvalues([0.01, 0.04, 0.03, 0.005], "holm"),
    )


@pytest.mark.parametrize("method", CORRECTION_NAMES)
def test_empty_input_gives_empty_output(method: str) -> None:
    result = correct_pvalues([], method)
    assert result.shape == (0,)
    assert result.dtype == np.float64


@pytest.mark.parametrize("method", CORRECTION_NAMES)
def test_returns_a_new_array_and_leaves_the_input(method: str) -> None:
    pvalues = np.array([0.2, 0.01, 0.5])
    result = correct_pvalues(pvalues, method)
    np.testing.assert_array_equal(pvalues, [0.2, 0.01, 0.5])
    assert not np.shares_memory(result, pvalues)
    result[0] = 0.0
    assert pvalues[0] == 0.2


@settings(max_examples=100, deadline=None)
@given(pvalue_lists)
def test_holm_and_bh_equal_their_definitions(pvalues: list[float]) -> None:
    np.testing.assert_allclose(correct_pvalues(pvalues, "holm"), naive_holm(pvalues), rtol=1e-12)
    np.testing.assert_allclose(correct_pvalues(pvalues, "bh"), naive_bh(pvalues), rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(pvalue_lists, st.sampled_from(CORRECTION_NAMES))
def test_adjusted_within_raw_and_one_and_order_kept(pvalues: list[float], method: str) -> None:
    raw = np.array(pvalues)
    adjusted = correct_pvalues(raw, method)
    assert adjusted.shape == raw.shape
    assert np.all(adjusted >= raw)
    assert np.all(adjusted <= 1.0)
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)  # monotone in the raw p-values


@settings(max_examples=100, deadline=None)
@given(pvalue_lists)
def test_bh_at_most_holm_at_most_bonferroni(pvalues: list[float]) -> None:
    bh = correct_pvalues(pvalues, "bh")
    holm = correct_pvalues(pvalues, "holm")
    bonferroni = correct_pvalues(pvalues, "bonferroni")
    assert np.all(bh <= holm + 1e-15)
    assert np.all(holm <= bonferroni + 1e-15)


@settings(max_examples=50, deadline=None)
@given(pvalue_lists, st.sampled_from(CORRECTION_NAMES), st.randoms(use_true_random=False))
def test_permuting_inputs_permutes_outputs(
    pvalues: list[float], method: str, random: Random
) -> None:
    order = list(range(len(pvalues)))
    random.shuffle(order)
    permutation = np.array(order)
    raw = np.array(pvalues)
    np.testing.assert_array_equal(
        correct_pvalues(raw[permutation], method), correct_pvalues(raw, method)[permutation]
    )
