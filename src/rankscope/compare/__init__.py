"""Statistics over per-query scores: paired tests, confidence intervals, corrections.

Everything here works on plain arrays of per-query scores (one float per query, the arrays of a
baseline and a system aligned by query), so it serves any source of scores. scipy (the
``rankscope[stats]`` extra) is needed only by the Wilcoxon test, the Tukey tests and the
analysis of variance; it is imported on first use. The resampling and the t distribution run
in the native core.

- Paired tests, each returning a :class:`TestResult`: :func:`paired_t_test`,
  :func:`wilcoxon_test`, :func:`randomization_test`, :func:`bootstrap_test`; and
  :func:`exact_randomization_pvalue` for small numbers of queries.
- Bootstrap confidence intervals (percentile and BCa), returning a :class:`ConfidenceInterval`:
  :func:`bootstrap_ci`, :func:`paired_bootstrap_ci`.
- Effect size: :func:`paired_cohens_d`.
- Multiple comparisons: :func:`correct_pvalues` (Holm, Bonferroni, Benjamini-Hochberg).
- Per query: :func:`win_tie_loss`, :func:`largest_differences`.
- Many systems at once, each test returning a :class:`MultipleComparison` of every pair
  (difference, p-value, interval, effect size in units of the ANOVA's residual standard
  deviation, a compact letter display): :func:`tukey_hsd` (topic-blocked by default),
  :func:`randomized_tukey_hsd`, :func:`all_pairs_test` (a paired test of every pair, corrected);
  :func:`anova` (one-way, or two-way without replication) -> :class:`AnovaTable`;
  :func:`compact_letter_display`; :func:`discriminative_power` of measures ->
  :class:`DiscriminativePower`.
- All at once, for many systems and measures: :func:`compare` -> :class:`Comparison`; and
  for chosen pairs (every pair, several baselines), with the Tukey tests too,
  :func:`compare_pairs`.
- From evaluated runs: :func:`compare_runs` (evaluate and compare in one call) and
  :func:`build_report` (runs already evaluated) -> :class:`ComparisonReport`, which renders as
  Markdown, LaTeX, HTML, JSON or a DataFrame; :func:`align_results` and :func:`align_values`
  line scores up by query id (never by position) -> :class:`AlignedScores`.

Examples
--------
>>> from rankscope.compare import paired_t_test, correct_pvalues
>>> result = paired_t_test([0.2, 0.4, 0.6, 0.5], [0.3, 0.6, 0.6, 0.7])
>>> result.method, result.n, round(result.p_value, 4)
('t', 4, 0.0796)
>>> correct_pvalues([result.p_value, 0.01], "holm").round(4).tolist()
[0.0796, 0.02]
"""

from __future__ import annotations

from ._align import AlignedScores, align_results, align_values
from ._anova import ANOVA_DESIGNS, AnovaRow, AnovaTable, anova
from ._compare import TEST_NAMES, Comparison, ComparisonRow, compare
from ._corrections import CORRECTION_NAMES, correct_pvalues
from ._effect import paired_cohens_d
from ._intervals import INTERVAL_METHODS, ConfidenceInterval, bootstrap_ci, paired_bootstrap_ci
from ._multiple import MultipleComparison, PairDifference, compact_letter_display
from ._paired_tests import (
    EXACT_MAX_QUERIES,
    WILCOXON_ZERO_METHODS,
    TestResult,
    bootstrap_test,
    exact_randomization_pvalue,
    paired_t_test,
    randomization_test,
    wilcoxon_test,
)
from ._pairs import PAIR_TEST_NAMES, compare_pairs
from ._per_query import QueryDifference, WinTieLoss, largest_differences, win_tie_loss
from ._power import MANY_SYSTEM_TEST_NAMES, DiscriminativePower, MeasurePower, discriminative_power
from ._report import ComparisonReport, PowerReport, build_report, compare_aligned, power_report
from ._runs import compare_runs
from ._tukey import all_pairs_test, randomized_tukey_hsd, tukey_hsd

__all__ = [
    "ANOVA_DESIGNS",
    "CORRECTION_NAMES",
    "EXACT_MAX_QUERIES",
    "INTERVAL_METHODS",
    "MANY_SYSTEM_TEST_NAMES",
    "PAIR_TEST_NAMES",
    "TEST_NAMES",
    "WILCOXON_ZERO_METHODS",
    "AlignedScores",
    "AnovaRow",
    "AnovaTable",
    "Comparison",
    "ComparisonReport",
    "ComparisonRow",
    "ConfidenceInterval",
    "DiscriminativePower",
    "MeasurePower",
    "MultipleComparison",
    "PairDifference",
    "PowerReport",
    "QueryDifference",
    "TestResult",
    "WinTieLoss",
    "align_results",
    "align_values",
    "all_pairs_test",
    "anova",
    "bootstrap_ci",
    "bootstrap_test",
    "build_report",
    "compact_letter_display",
    "compare",
    "compare_aligned",
    "compare_pairs",
    "compare_runs",
    "correct_pvalues",
    "discriminative_power",
    "exact_randomization_pvalue",
    "largest_differences",
    "paired_bootstrap_ci",
    "paired_cohens_d",
    "paired_t_test",
    "power_report",
    "randomization_test",
    "randomized_tukey_hsd",
    "tukey_hsd",
    "wilcoxon_test",
    "win_tie_loss",
]
