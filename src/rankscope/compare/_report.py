"""A comparison and what it was computed on, as one value the report renderers draw:
`ComparisonReport`, made by `build_report` from evaluated runs or by `compare_aligned` from
scores already lined up.

Its ``to_*`` methods hand it to the renderers of `rankscope.report.compare`, imported when
called, so that `rankscope.compare` needs no renderer (and the renderers no statistics) until
a report is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rankscope.compare._align import AlignedScores, align_results
from rankscope.compare._compare import Comparison, compare
from rankscope.engine.provenance import Provenance
from rankscope.engine.results import Results
from rankscope.errors import require

__all__ = ["ComparisonReport", "build_report", "compare_aligned"]


@dataclass(frozen=True)
class ComparisonReport:
    """What the comparison renderers draw: the statistics and the scores they came from.

    `rankscope.compare_runs` returns one; its ``to_*`` methods render it, and Jupyter shows
    its summary table.

    Attributes
    ----------
    comparison
        Every system against the baseline on every measure.
    aligned
        The per-query scores the comparison was computed on.
    provenance
        The inputs, profile, measures, command, version and date that produced it; every
        format prints it (None: not recorded).
    """

    comparison: Comparison
    aligned: AlignedScores
    provenance: Provenance | None = None

    @property
    def baseline(self) -> str:
        """The baseline's name."""
        return self.aligned.baseline

    def means(self, name: str) -> dict[str, float]:
        """Measure -> mean score of ``name`` (baseline or system) over the compared queries,
        added one query at a time in query order as `Results.mean` (and trec_eval) add them."""
        return {
            measure: _running_mean(scores.tolist())
            for measure, scores in self.aligned.scores[name].items()
        }

    def to_text(self, show_p: bool = False) -> str:
        """A plain, aligned text table, then the footnotes."""
        from rankscope.report.compare import render_text

        return render_text(self, show_p)

    def to_markdown(self, show_p: bool = False) -> str:
        """A GitHub-flavoured Markdown table: best values in bold, a dagger on significant
        differences, the footnote and the provenance under it."""
        from rankscope.report.compare import render_markdown

        return render_markdown(self, show_p)

    def to_latex(
        self, show_p: bool = False, caption: str | None = None, label: str | None = None
    ) -> str:
        r"""A booktabs table in a ``table`` float with ``\caption`` and ``\label``, scaled down
        to the column width when wider (needs the booktabs and graphicx packages)."""
        from rankscope.report.compare import render_latex

        return render_latex(self, show_p, caption=caption, label=label)

    def to_html(self) -> str:
        """One self-contained HTML page with charts (no script, nothing loaded)."""
        from rankscope.report.compare import render_html

        return render_html(self)

    def to_json(self) -> str:
        """Everything computed, as JSON."""
        from rankscope.report.compare import render_json

        return render_json(self)

    def to_dataframe(self) -> Any:
        """One row per system and measure (polars): means, difference, interval, p-values,
        significance, effect size, wins, ties and losses."""
        import polars as pl

        rows = [
            {
                "system": row.system,
                "measure": row.measure,
                "queries": row.n,
                "baseline_mean": row.baseline_mean,
                "system_mean": row.system_mean,
                "mean_difference": row.test.mean_difference,
                "ci_low": row.difference_ci.low,
                "ci_high": row.difference_ci.high,
                "p_value": row.test.p_value,
                "corrected_p_value": row.corrected_p_value,
                "significant": row.significant,
                "effect_size": row.effect_size,
                "wins": row.win_tie_loss.wins,
                "ties": row.win_tie_loss.ties,
                "losses": row.win_tie_loss.losses,
            }
            for row in self.comparison.rows
        ]
        return pl.DataFrame(rows)

    def to_pandas(self) -> Any:
        """:meth:`to_dataframe` as a pandas DataFrame (needs the ``pandas`` extra)."""
        require(("pandas", "pyarrow"), "ComparisonReport.to_pandas", "pandas")
        return self.to_dataframe().to_pandas()

    def _repr_html_(self) -> str:
        from rankscope.report.compare._html import summary_html

        return summary_html(self)

    def __repr__(self) -> str:
        systems = ", ".join(self.aligned.systems)
        significant = sum(row.significant for row in self.comparison.rows)
        return (
            f"ComparisonReport({systems} vs {self.baseline}; {len(self.aligned.query_ids)} "
            f"queries; {significant} of {len(self.comparison.rows)} differences significant)"
        )


def build_report(
    baseline: Results,
    systems: Sequence[Results],
    *,
    names: Sequence[str] | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    provenance: Provenance | None = None,
) -> ComparisonReport:
    """Align the runs' scores (see :func:`align_results`) and compare them.

    The options are those of :func:`rankscope.compare.compare`; ``provenance`` records what
    produced the report.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {f"q{i}": {"a": 1} for i in range(6)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(6)}, "RR")
    >>> better = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(6)}, "RR")
    >>> report = build_report(base, [better], names=["base", "better"], test="randomization")
    >>> row = report.comparison.row("better", "RR")
    >>> row.baseline_mean, row.system_mean, row.win_tie_loss.wins
    (0.5, 1.0, 6)
    """
    aligned = align_results(baseline, systems, names)
    return compare_aligned(
        aligned,
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
        provenance=provenance,
    )


def compare_aligned(
    aligned: AlignedScores,
    *,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    provenance: Provenance | None = None,
) -> ComparisonReport:
    """Compare aligned scores (from :func:`align_results` or :func:`align_values`) with
    :func:`rankscope.compare.compare`.

    Examples
    --------
    >>> from rankscope.compare import align_values
    >>> base = {f"q{i}": {"AP": 0.25} for i in range(4)}
    >>> new = {f"q{i}": {"AP": 0.5} for i in range(4)}
    >>> aligned = align_values(["base", "new"], ["AP"], [base, new])
    >>> report = compare_aligned(aligned, test="randomization")
    >>> report.comparison.row("new", "AP").test.mean_difference
    0.25
    """
    comparison = compare(
        aligned.baseline_scores(),
        aligned.systems_scores(),
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
    )
    return ComparisonReport(comparison=comparison, aligned=aligned, provenance=provenance)


def _running_mean(values: list[float]) -> float:
    total = 0.0
    for value in values:  # not sum(): from Python 3.12 on it compensates rounding
        total += value
    return total / len(values) if values else 0.0
