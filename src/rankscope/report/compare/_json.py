"""The comparison as JSON: everything computed, for other programs."""

from __future__ import annotations

import json
import math

from rankscope.compare import ComparisonReport


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
    payload = {
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
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
