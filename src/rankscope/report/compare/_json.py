"""The comparison as JSON: everything computed, for other programs."""

from __future__ import annotations

import json
import math
from typing import Any

from rankscope.compare import ComparisonReport, MultipleComparison


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def render_json(report: ComparisonReport, show_p: bool = False) -> str:
    """Everything computed, as JSON: options, means, and a record per (system, measure).

    p-values are always included; ``show_p`` is accepted for a uniform signature. Non-finite
    numbers (an undefined effect size) are ``null``.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> import json
    >>> record = json.loads(render_json(report))["comparisons"][0]
    >>> record["system"], record["measure"], record["mean_difference"], record["significant"]
    ('dense', 'RR', 0.5, True)
    >>> record["corrected_p_value"] == record["p_value"]  # one test: nothing to correct
    True
    """
    comparison = report.comparison
    aligned = report.aligned
    pairwise = comparison.pairwise
    payload: dict[str, Any] = {
        "baseline": report.baseline,
        "systems": list(comparison.systems),
        "measures": list(comparison.measures),
        "test": comparison.test,
        "correction": comparison.correction,
        "alpha": comparison.alpha,
        "seed": comparison.seed,
        "n_resamples": comparison.n_resamples,
        "queries": len(aligned.query_ids),
        "complete": aligned.complete,
        "left_out_queries": {name: list(q) for name, q in aligned.lacking.items() if q},
        "means": {name: report.means(name) for name in aligned.names},
        "provenance": None if report.provenance is None else report.provenance.to_dict(),
        "comparisons": [
            {
                **({"baseline": row.baseline} if pairwise else {}),
                "system": row.system,
                "measure": row.measure,
                "queries": row.n,
                "baseline_mean": row.baseline_mean,
                "system_mean": row.system_mean,
                "mean_difference": row.test.mean_difference,
                "statistic": _finite(row.test.statistic),
                "p_value": row.test.p_value,
                "corrected_p_value": row.corrected_p_value,
                "significant": row.significant,
                "difference_ci": {
                    "low": row.difference_ci.low,
                    "high": row.difference_ci.high,
                    "level": row.difference_ci.level,
                    "method": row.difference_ci.method,
                },
                "effect_size": _finite(row.effect_size),
                "wins": row.win_tie_loss.wins,
                "ties": row.win_tie_loss.ties,
                "losses": row.win_tie_loss.losses,
            }
            for row in comparison.rows
        ],
    }
    if pairwise:
        payload["baselines"] = list(comparison.baselines)
        payload["analyses"] = {
            measure: analysis_record(analysis) for measure, analysis in comparison.analyses.items()
        }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def analysis_record(analysis: MultipleComparison) -> dict[str, Any]:
    """A test of many systems as JSON: the means and letters, the margin of error, the ANOVA
    table, the matrix of adjusted p-values (null where a pair was not compared) and every
    pair."""
    matrix = analysis.p_value_matrix()
    return {
        "method": analysis.method,
        "design": analysis.design,
        "correction": analysis.correction,
        "alpha": analysis.alpha,
        "systems": list(analysis.systems),
        "means": dict(zip(analysis.systems, analysis.means, strict=True)),
        "letters": None if analysis.letters is None else dict(analysis.letters),
        "margin_of_error": analysis.margin_of_error,
        "residual_std": analysis.residual_std,
        "anova": [
            {
                "source": row.source,
                "sum_of_squares": row.sum_of_squares,
                "df": row.df,
                "mean_square": row.mean_square,
                "f": None if row.f is None else _finite(row.f),
                "p_value": row.p_value,
            }
            for row in analysis.anova.rows
        ],
        "adjusted_p_values": [[_finite(float(value)) for value in row] for row in matrix],
        "pairs": [
            {
                "first": pair.first,
                "second": pair.second,
                "mean_difference": pair.mean_difference,
                "statistic": _finite(pair.statistic),
                "p_value": pair.p_value,
                "adjusted_p_value": pair.adjusted_p_value,
                "significant": pair.significant,
                "ci_low": pair.ci_low,
                "ci_high": pair.ci_high,
                "effect_size": _finite(pair.effect_size),
            }
            for pair in analysis.pairs
        ],
    }
