"""Statistics over per-query scores: paired tests, confidence intervals, corrections.

Everything here works on plain arrays of per-query scores (one float per query, the arrays of a
baseline and a system aligned by query), so it serves any source of scores. scipy (the
``rankscope[stats]`` extra) is needed only by the t-test and the Wilcoxon test; it is imported
on first use.

- Paired tests, each returning a :class:`TestResult`: :func:`paired_t_test`,
  :func:`wilcoxon_test`, :func:`randomization_test`, :func:`bootstrap_test`; and
  :func:`exact_randomization_pvalue` for small numbers of queries.
- Bootstrap confidence intervals (percentile and BCa), returning a :class:`ConfidenceInterval`:
  :func:`bootstrap_ci`, :func:`paired_bootstrap_ci`.
- Effect size: :func:`paired_cohens_d`.
- Multiple comparisons: :func:`correct_pvalues` (Holm, Bonferroni, Benjamini-Hochberg).
- Per query: :func:`win_tie_loss`, :func:`largest_differences`.
- All at once, for many systems and measures: :func:`compare` -> :class:`Comparison`.
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
from ._compare import TEST_NAMES, Comparison, ComparisonRow, compare
from ._corrections import CORRECTION_NAMES, correct_pvalues
from ._effect import paired_cohens_d
from ._intervals import INTERVAL_METHODS, ConfidenceInterval, bootstrap_ci, paired_bootstrap_ci
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
from ._per_query import QueryDifference, WinTieLoss, largest_differences, win_tie_loss
from ._report import ComparisonReport, build_report, compare_aligned
from ._runs import compare_runs

__all__ = [
    "CORRECTION_NAMES",
    "EXACT_MAX_QUERIES",
    "INTERVAL_METHODS",
    "TEST_NAMES",
    "WILCOXON_ZERO_METHODS",
    "AlignedScores",
    "Comparison",
    "ComparisonReport",
    "ComparisonRow",
    "ConfidenceInterval",
    "QueryDifference",
    "TestResult",
    "WinTieLoss",
    "align_results",
    "align_values",
    "bootstrap_ci",
    "bootstrap_test",
    "build_report",
    "compare",
    "compare_aligned",
    "compare_runs",
    "correct_pvalues",
    "exact_randomization_pvalue",
    "largest_differences",
    "paired_bootstrap_ci",
    "paired_cohens_d",
    "paired_t_test",
    "randomization_test",
    "wilcoxon_test",
    "win_tie_loss",
]
