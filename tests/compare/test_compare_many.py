"""Tests over many systems: the ANOVA and Tukey's HSD against statsmodels and scipy, the
randomized Tukey HSD test against Fisher's randomization test and a plain implementation,
the all-pairs tests, the compact letter display and discriminative power."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multicomp import pairwise_tukeyhsd

from rankscope.compare import (
    all_pairs_test,
    anova,
    compact_letter_display,
    correct_pvalues,
    discriminative_power,
    paired_t_test,
    randomization_test,
    randomized_tukey_hsd,
    tukey_hsd,
    wilcoxon_test,
)
from rankscope.compare._sakai import TABLE_5_1
from rankscope.errors import InputError, OptionError

Scores = dict[str, NDArray[np.float64]]


def _systems(seed: int, systems: int = 4, topics: int = 25, spread: float = 0.05) -> Scores:
    """Scores with a topic effect (much larger) and a system effect, clipped to [0, 1]."""
    rng = np.random.default_rng(seed)
    topic = rng.uniform(0.1, 0.8, topics)
    return {
        f"s{i}": np.clip(topic + i * spread + rng.normal(0, 0.08, topics), 0, 1)
        for i in range(systems)
    }


def _long(scores: Scores) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"system": system, "topic": f"t{t}", "score": float(value)}
            for system, values in scores.items()
            for t, value in enumerate(values)
        ]
    )


DATA = [TABLE_5_1, _systems(1), _systems(2, systems=6, topics=50), _systems(3, systems=2)]
DATA_IDS = ["sakai-5.1", "4x25", "6x50", "2x25"]


# --- ANOVA ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scores", DATA, ids=DATA_IDS)
def test_two_way_anova_is_statsmodels_anova_lm_of_system_plus_topic(scores: Scores) -> None:
    reference = anova_lm(ols("score ~ C(system) + C(topic)", data=_long(scores)).fit())
    table = anova(scores)
    for source, name in (("system", "C(system)"), ("topic", "C(topic)"), ("residual", "Residual")):
        row = table.row(source)
        assert row.df == reference.loc[name, "df"]
        assert row.sum_of_squares == pytest.approx(reference.loc[name, "sum_sq"], rel=1e-10)
        assert row.mean_square == pytest.approx(reference.loc[name, "mean_sq"], rel=1e-10)
        if source != "residual":
            assert row.f == pytest.approx(reference.loc[name, "F"], rel=1e-9)
            assert row.p_value == pytest.approx(reference.loc[name, "PR(>F)"], rel=1e-8)
    total = table.row("total")
    assert total.sum_of_squares == pytest.approx(reference["sum_sq"].sum(), rel=1e-10)
    assert total.df == reference["df"].sum()


@pytest.mark.parametrize("scores", DATA, ids=DATA_IDS)
def test_one_way_anova_is_statsmodels_and_scipy(scores: Scores) -> None:
    reference = anova_lm(ols("score ~ C(system)", data=_long(scores)).fit())
    table = anova(scores, design="one-way")
    assert [row.source for row in table.rows] == ["system", "residual", "total"]
    system = table.row("system")
    assert system.sum_of_squares == pytest.approx(reference.loc["C(system)", "sum_sq"], rel=1e-10)
    assert table.residual_df == reference.loc["Residual", "df"]
    assert system.f == pytest.approx(reference.loc["C(system)", "F"], rel=1e-9)
    oneway = scipy.stats.f_oneway(*scores.values())
    assert system.f == pytest.approx(oneway.statistic, rel=1e-9)
    assert system.p_value == pytest.approx(oneway.pvalue, rel=1e-8)


def test_two_way_anova_of_sakais_table_5_1() -> None:
    # Sakai (2018), Table 5.2, as elinor's tests also hold it (four decimals).
    table = anova(TABLE_5_1)
    assert table.row("system").sum_of_squares == pytest.approx(0.1083, abs=1e-4)
    assert table.row("topic").sum_of_squares == pytest.approx(1.0293, abs=1e-4)
    assert table.row("residual").sum_of_squares == pytest.approx(0.8317, abs=1e-4)
    assert table.row("system").mean_square == pytest.approx(0.0542, abs=1e-4)
    assert table.row("topic").mean_square == pytest.approx(0.0542, abs=1e-4)
    assert table.residual_variance == pytest.approx(0.0219, abs=1e-4)
    assert table.row("system").f == pytest.approx(2.475, abs=1e-3)
    assert table.row("topic").f == pytest.approx(2.475, abs=1e-3)
    assert table.row("system").p_value == pytest.approx(0.098, abs=1e-3)
    assert table.row("topic").p_value == pytest.approx(0.009, abs=1e-3)
    assert table.margin_of_error(0.95) == pytest.approx(0.0670, abs=1e-4)
    assert table.means == pytest.approx((0.345, 0.270, 0.245))


def test_anova_without_residual_variation() -> None:
    # Additive scores: the residuals are exactly zero.
    scores = {"a": [0.1, 0.5, 0.3], "b": [0.2, 0.6, 0.4], "c": [0.1, 0.5, 0.3]}
    table = anova(scores)
    assert table.residual_variance == pytest.approx(0.0, abs=1e-30)
    assert table.row("system").f == math.inf and table.row("system").p_value == 0.0
    same = anova({"a": [0.1, 0.5], "b": [0.1, 0.5]})
    assert math.isnan(same.row("system").f or 0.0) and same.row("system").p_value == 1.0


# --- Tukey's HSD ------------------------------------------------------------------------------


@pytest.mark.parametrize("scores", DATA, ids=DATA_IDS)
def test_one_way_tukey_is_statsmodels_pairwise_tukeyhsd(scores: Scores) -> None:
    data = _long(scores)
    reference = pairwise_tukeyhsd(data["score"], data["system"], alpha=0.05)
    ours = tukey_hsd(scores, design="one-way")
    # statsmodels orders the pairs by sorted group name, group2 - group1: our input order here.
    assert list(scores) == sorted(scores)
    assert len(ours.pairs) == len(reference.meandiffs)
    for pair, difference, p_value, interval, reject in zip(
        ours.pairs,
        reference.meandiffs,
        reference.pvalues,
        reference.confint,
        reference.reject,
        strict=True,
    ):
        assert pair.mean_difference == pytest.approx(difference, abs=1e-12)
        assert pair.p_value == pytest.approx(p_value, abs=1e-9)
        assert (pair.ci_low, pair.ci_high) == pytest.approx(tuple(interval), abs=1e-9)
        assert pair.significant == bool(reject)


@pytest.mark.parametrize("scores", DATA, ids=DATA_IDS)
def test_one_way_tukey_is_scipy_tukey_hsd(scores: Scores) -> None:
    reference = scipy.stats.tukey_hsd(*scores.values())
    interval = reference.confidence_interval(0.95)
    ours = tukey_hsd(scores, design="one-way")
    names = list(scores)
    for pair in ours.pairs:
        i, j = names.index(pair.first), names.index(pair.second)
        assert pair.p_value == pytest.approx(reference.pvalue[i, j], abs=1e-9)
        # scipy's statistic is mean_i - mean_j; ours is mean_j - mean_i.
        assert pair.ci_low == pytest.approx(-interval.high[i, j], abs=1e-9)


@pytest.mark.parametrize("scores", DATA, ids=DATA_IDS)
def test_blocked_tukey_is_the_studentized_range_of_the_two_way_residuals(scores: Scores) -> None:
    # Directly: the residual mean square of statsmodels' two-way fit, scipy's distribution.
    fit = ols("score ~ C(system) + C(topic)", data=_long(scores)).fit()
    residual_variance = fit.mse_resid
    df = fit.df_resid
    m = len(scores)
    n = len(next(iter(scores.values())))
    standard_error = math.sqrt(residual_variance / n)
    critical = scipy.stats.studentized_range.ppf(0.95, m, df)
    ours = tukey_hsd(scores)
    assert ours.anova.residual_df == df
    for (first, second), pair in zip(itertools.combinations(scores, 2), ours.pairs, strict=True):
        difference = float(np.mean(scores[second]) - np.mean(scores[first]))
        assert (pair.first, pair.second) == (first, second)
        assert pair.mean_difference == pytest.approx(difference, abs=1e-12)
        expected_p = scipy.stats.studentized_range.sf(abs(difference) / standard_error, m, df)
        assert pair.p_value == pytest.approx(expected_p, abs=1e-10)
        assert pair.ci_low == pytest.approx(difference - critical * standard_error, abs=1e-10)
        assert pair.ci_high == pytest.approx(difference + critical * standard_error, abs=1e-10)
        assert pair.effect_size == pytest.approx(difference / math.sqrt(residual_variance))


def test_blocking_on_topics_finds_what_the_one_way_design_misses() -> None:
    scores = _systems(7, systems=3, topics=30, spread=0.04)
    blocked = tukey_hsd(scores)
    one_way = tukey_hsd(scores, design="one-way")
    assert sum(p.significant for p in blocked.pairs) > sum(p.significant for p in one_way.pairs)
    for b, o in zip(blocked.pairs, one_way.pairs, strict=True):
        assert b.mean_difference == o.mean_difference
        assert b.p_value <= o.p_value


def test_tukey_effect_sizes_of_sakais_table_5_1() -> None:
    # Sakai (2018), §5.2 (elinor's TukeyHsdTest holds the same values): ES_E(i, j) =
    # (mean_i - mean_j) / sqrt(V_E); ours are second - first.
    result = tukey_hsd(TABLE_5_1)
    assert result.pair("B", "A").effect_size == pytest.approx(0.5070, abs=1e-4)
    assert result.pair("C", "A").effect_size == pytest.approx(0.6760, abs=1e-4)
    assert result.pair("C", "B").effect_size == pytest.approx(0.1690, abs=1e-4)
    assert result.pair("A", "B").effect_size == pytest.approx(-0.5070, abs=1e-4)
    assert result.margin_of_error == pytest.approx(0.0670, abs=1e-4)
    assert result.residual_std == pytest.approx(math.sqrt(0.021886), abs=1e-5)


def test_tukey_without_residual_variation() -> None:
    result = tukey_hsd({"a": [0.1, 0.5, 0.3], "b": [0.2, 0.6, 0.4], "c": [0.1, 0.5, 0.3]})
    assert result.pair("a", "b").p_value == 0.0 and result.pair("a", "b").significant
    assert result.pair("a", "c").p_value == 1.0 and not result.pair("a", "c").significant


def test_pairs_read_from_either_side() -> None:
    result = tukey_hsd(TABLE_5_1)
    forward, backward = result.pair("A", "C"), result.pair("C", "A")
    assert backward.mean_difference == -forward.mean_difference
    assert (backward.ci_low, backward.ci_high) == (-forward.ci_high, -forward.ci_low)
    assert backward.statistic == -forward.statistic and backward.p_value == forward.p_value
    with pytest.raises(KeyError, match="no comparison of 'A' and 'Z'"):
        result.pair("A", "Z")
    matrix = result.p_value_matrix()
    assert matrix.shape == (3, 3) and np.allclose(matrix, matrix.T)
    assert matrix[0, 2] == forward.adjusted_p_value and (np.diag(matrix) == 1.0).all()


# --- the randomized Tukey HSD test ------------------------------------------------------------


PAIR_DATA = [
    (TABLE_5_1["A"], TABLE_5_1["B"]),
    (TABLE_5_1["B"], TABLE_5_1["C"]),
    tuple(_systems(11, systems=2, topics=40).values()),
    ([0.5] * 6, [0.5] * 6),
    ([0.0, 0.25, 0.5, 0.75], [0.25, 0.5, 0.75, 1.0]),
]


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("n_permutations", [1, 999, 10_000, 25_001])
@pytest.mark.parametrize("pair", PAIR_DATA, ids=[f"pair{i}" for i in range(len(PAIR_DATA))])
def test_two_systems_give_fishers_randomization_test_exactly(
    pair: tuple[list[float], list[float]], n_permutations: int, seed: int
) -> None:
    first, second = pair
    ours = randomized_tukey_hsd(
        {"x": first, "y": second}, n_permutations=n_permutations, seed=seed
    ).pair("x", "y")
    fisher = randomization_test(first, second, n_permutations=n_permutations, seed=seed)
    assert ours.p_value == fisher.p_value
    assert ours.mean_difference == fisher.mean_difference


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=2, max_size=30),
    st.integers(0, 2**32),
)
def test_two_systems_agree_with_fisher_on_any_scores(
    rows: list[tuple[int, int]], seed: int
) -> None:
    first = [a / 10 for a, _ in rows]
    second = [b / 10 for _, b in rows]
    ours = randomized_tukey_hsd({"x": first, "y": second}, n_permutations=500, seed=seed)
    fisher = randomization_test(first, second, n_permutations=500, seed=seed)
    assert ours.pair("x", "y").p_value == fisher.p_value


def _plain_randomized_tukey(scores: Scores, rounds: int, seed: int) -> NDArray[np.float64]:
    """An independent, straightforward version: numpy's own permutations, p = count / B."""
    matrix = np.column_stack(list(scores.values()))
    rng = np.random.default_rng(seed)
    observed = matrix.mean(axis=0)
    ranges = np.empty(rounds)
    for b in range(rounds):
        shuffled = rng.permuted(matrix, axis=1)
        means = shuffled.mean(axis=0)
        ranges[b] = means.max() - means.min()
    m = matrix.shape[1]
    p = np.ones((m, m))
    for i, j in itertools.combinations(range(m), 2):
        p[i, j] = p[j, i] = np.mean(ranges >= abs(observed[j] - observed[i]) - 1e-12)
    return p


@pytest.mark.parametrize("scores", DATA[:3], ids=DATA_IDS[:3])
def test_randomized_tukey_is_within_monte_carlo_error_of_a_plain_version(scores: Scores) -> None:
    rounds = 20_000
    ours = randomized_tukey_hsd(scores, n_permutations=rounds, seed=3)
    reference = _plain_randomized_tukey(scores, rounds, seed=99)
    names = list(scores)
    for pair in ours.pairs:
        expected = reference[names.index(pair.first), names.index(pair.second)]
        # Two independent estimates: the difference's standard error is sqrt(2 p (1-p) / B).
        error = math.sqrt(2 * max(expected * (1 - expected), 1 / rounds) / rounds)
        assert abs(pair.p_value - expected) <= 4.5 * error + 1 / rounds


def test_randomized_tukey_does_not_depend_on_the_number_of_threads() -> None:
    code = (
        "from rankscope.compare import randomized_tukey_hsd\n"
        "import numpy as np\n"
        "rng = np.random.default_rng(5)\n"
        "scores = {f's{i}': rng.uniform(0, 1, 400) + i * 0.01 for i in range(5)}\n"
        "r = randomized_tukey_hsd(scores, n_permutations=3000, seed=8)\n"
        "print([p.p_value for p in r.pairs], r.pairs[0].ci_high)\n"
    )
    outputs = set()
    for threads in ("1", "2", "3"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_randomized_tukey_is_reproducible_and_seeded() -> None:
    scores = _systems(4)
    once = randomized_tukey_hsd(scores, n_permutations=2000, seed=7)
    again = randomized_tukey_hsd(scores, n_permutations=2000, seed=7)
    other = randomized_tukey_hsd(scores, n_permutations=2000, seed=8)
    assert once == again
    assert [p.p_value for p in once.pairs] != [p.p_value for p in other.pairs]
    assert once.n_resamples == 2000 and once.seed == 7 and once.correction == "tukey"


def test_randomized_tukey_of_identical_systems() -> None:
    result = randomized_tukey_hsd(
        {"a": [0.2, 0.4], "b": [0.2, 0.4], "c": [0.2, 0.4]}, n_permutations=9
    )
    assert all(pair.p_value == 1.0 for pair in result.pairs)
    assert result.letters == {"a": "a", "b": "a", "c": "a"}


def test_tukey_p_values_never_fall_below_the_paired_tests_on_two_systems() -> None:
    # For two systems the blocked HSD is the paired t-test: q = sqrt(2) |t|, p the same.
    first, second = TABLE_5_1["A"], TABLE_5_1["B"]
    pair = tukey_hsd({"x": first, "y": second}).pair("x", "y")
    t = paired_t_test(first, second)
    assert pair.p_value == pytest.approx(t.p_value, rel=1e-9)
    assert abs(pair.statistic) == pytest.approx(math.sqrt(2) * abs(t.statistic), rel=1e-12)


# --- paired tests of every pair ---------------------------------------------------------------


def test_all_pairs_corrects_every_pairs_paired_test() -> None:
    scores = _systems(5)
    result = all_pairs_test(scores, test="wilcoxon", correction="bh")
    raw = [
        wilcoxon_test(scores[a], scores[b]).p_value for a, b in itertools.combinations(scores, 2)
    ]
    assert [pair.p_value for pair in result.pairs] == raw
    assert [pair.adjusted_p_value for pair in result.pairs] == correct_pvalues(raw, "bh").tolist()
    assert result.method == "wilcoxon" and result.correction == "bh"
    assert result.letters is not None and set(result.letters) == set(scores)


def test_all_pairs_randomization_matches_each_pair_alone() -> None:
    scores = _systems(6, systems=3)
    result = all_pairs_test(scores, test="randomization", n_resamples=999, seed=4)
    for pair in result.pairs:
        alone = randomization_test(
            scores[pair.first], scores[pair.second], n_permutations=999, seed=4
        )
        assert pair.p_value == alone.p_value
        assert pair.ci_low < pair.mean_difference < pair.ci_high


# --- the compact letter display ---------------------------------------------------------------


def test_letters_of_a_chain() -> None:
    # a > b > c > d; only neighbours two apart and more are different.
    letters = compact_letter_display(
        ["a", "b", "c", "d"], [4, 3, 2, 1], [("a", "c"), ("a", "d"), ("b", "d")]
    )
    assert letters == {"a": "a", "b": "ab", "c": "bc", "d": "c"}


def test_letters_follow_the_means_not_the_input_order() -> None:
    letters = compact_letter_display(["low", "high"], [0.1, 0.9], [("low", "high")])
    assert letters == {"low": "b", "high": "a"}


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 7).flatmap(
        lambda m: st.tuples(
            st.just(m),
            st.lists(st.floats(0, 1), min_size=m, max_size=m),
            st.sets(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1))),
        )
    )
)
def test_a_letter_is_shared_exactly_when_a_pair_is_not_different(
    case: tuple[int, list[float], set[tuple[int, int]]],
) -> None:
    m, means, raw = case
    systems = [f"s{i}" for i in range(m)]
    different = {(systems[i], systems[j]) for i, j in raw if i != j}
    letters = compact_letter_display(systems, means, sorted(different))
    for a, b in itertools.combinations(systems, 2):
        shares = bool(set(letters[a]) & set(letters[b])) if m <= 26 else None
        apart = (a, b) in different or (b, a) in different
        assert shares is not apart
    assert all(letters[s] for s in systems)


# --- discriminative power ---------------------------------------------------------------------


def test_discriminative_power_counts_the_significant_pairs() -> None:
    measures = {
        "good": _systems(8, systems=5, topics=40, spread=0.05),
        "poor": _systems(8, systems=5, topics=40, spread=0.005),
    }
    power = discriminative_power(measures, n_resamples=3000, seed=2)
    good, poor = power.measure("good"), power.measure("poor")
    assert good.pairs == poor.pairs == 10
    assert good.significant > poor.significant
    direct = randomized_tukey_hsd(measures["good"], n_permutations=3000, seed=2)
    assert good.significant == sum(p.significant for p in direct.pairs)
    assert good.asl == tuple(sorted(p.p_value for p in direct.pairs))
    assert good.power == good.significant / 10


@pytest.mark.parametrize("test", ["tukey", "t", "bootstrap"])
def test_discriminative_power_by_other_tests(test: str) -> None:
    power = discriminative_power({"m": _systems(9)}, test=test, n_resamples=500)
    assert power.test == test and 0 <= power.measure("m").significant <= 6


def test_discriminative_power_needs_the_same_systems() -> None:
    with pytest.raises(InputError, match="measure 'b' holds systems"):
        discriminative_power({"a": {"x": [0.1, 0.2], "y": [0.3, 0.4]}, "b": {"x": [0.1, 0.2]}})
    with pytest.raises(InputError, match="at least one measure"):
        discriminative_power({})


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ({"a": [0.1, 0.2]}, "at least 2 systems to compare, got 1"),
        ({"a": [0.1, 0.2], "b": [0.1]}, "system 'b' has 1 scores but 'a' has 2"),
        ({"a": [0.1], "b": [0.2]}, "at least 2 topics, got 1"),
        ({"a": [0.1, float("nan")], "b": [0.1, 0.2]}, "system 'a': expected finite scores"),
        ([[0.1, 0.2]], "expected a mapping of system name"),
    ],
)
def test_bad_scores_are_refused_with_a_clear_message(scores: object, message: str) -> None:
    for test in (tukey_hsd, randomized_tukey_hsd, all_pairs_test, anova):
        with pytest.raises(InputError, match=message):
            test(scores)  # type: ignore[operator]


def test_bad_options_are_refused() -> None:
    with pytest.raises(OptionError, match="'design' parameter of tukey_hsd"):
        tukey_hsd(TABLE_5_1, design="three-way")
    with pytest.raises(OptionError, match="'n_permutations' parameter of randomized_tukey_hsd"):
        randomized_tukey_hsd(TABLE_5_1, n_permutations=0)
    with pytest.raises(OptionError, match="'test' parameter of all_pairs_test"):
        all_pairs_test(TABLE_5_1, test="tukey")
    with pytest.raises(OptionError, match="'alpha' parameter of tukey_hsd"):
        tukey_hsd(TABLE_5_1, alpha=1.5)
