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

from rankscope._progress import ProgressOption, shown, steps
from rankscope.compare._align import AlignedScores, align_results
from rankscope.compare._compare import Comparison, compare
from rankscope.compare._pairs import (
    TUKEY_TEST_NAMES,
    choose_pairs,
    compare_pairs,
    default_correction,
)
from rankscope.compare._power import DiscriminativePower, discriminative_power
from rankscope.engine.provenance import Provenance
from rankscope.engine.results import Results
from rankscope.errors import require

__all__ = ["ComparisonReport", "PowerReport", "build_report", "compare_aligned", "power_report"]


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
        significance, effect size, wins, ties and losses. When pairs were compared (all pairs,
        several baselines, a Tukey test), one row per pair and measure, the pair's first run in
        the column ``baseline`` before ``system``."""
        import polars as pl

        pairwise = self.comparison.pairwise
        rows = [
            {
                **({"baseline": row.baseline} if pairwise else {}),
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

    def __str__(self) -> str:
        """The plain text table and its footnotes (`to_text`): what ``print(report)`` shows."""
        return self.to_text()

    def __repr__(self) -> str:
        significant = sum(row.significant for row in self.comparison.rows)
        if self.comparison.pairwise:
            pairs = len({(row.baseline, row.system) for row in self.comparison.rows})
            return (
                f"ComparisonReport({pairs} pairs of {len(self.aligned.names)} runs; "
                f"{len(self.aligned.query_ids)} queries; {significant} of "
                f"{len(self.comparison.rows)} differences significant)"
            )
        systems = ", ".join(self.aligned.systems)
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
    correction: str | None = None,
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    provenance: Provenance | None = None,
    pairs: str | Sequence[tuple[str, str]] = "baseline",
    baselines: Sequence[str] | None = None,
    progress: ProgressOption = None,
) -> ComparisonReport:
    """Align the runs' scores (see :func:`align_results`) and compare them.

    The options are those of :func:`compare_aligned`; ``provenance`` records what produced the
    report.

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
        pairs=pairs,
        baselines=baselines,
        progress=progress,
    )


def compare_aligned(
    aligned: AlignedScores,
    *,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    provenance: Provenance | None = None,
    pairs: str | Sequence[tuple[str, str]] = "baseline",
    baselines: Sequence[str] | None = None,
    progress: ProgressOption = None,
) -> ComparisonReport:
    """Compare aligned scores (from :func:`align_results` or :func:`align_values`).

    With ``pairs="baseline"``, one baseline (the first run) and a paired test, every system is
    compared with the baseline by :func:`rankscope.compare.compare`; otherwise the chosen pairs
    (every run against each of ``baselines``, every pair with ``pairs="all"``, or the listed
    pairs) by :func:`rankscope.compare.compare_pairs`, which also runs the Tukey tests
    (``test="tukey"`` or ``"randomized-tukey"``, over all the runs). ``correction`` defaults to
    ``"holm"`` for the paired tests; the Tukey tests adjust for every pair themselves.

    Each row's bootstrap interval is computed when first read; with ``progress`` (``True``:
    a bar on standard error when it is a terminal; or a callable, called with ``(done,
    total)``) every interval is computed here, one step each.

    Examples
    --------
    >>> from rankscope.compare import align_values
    >>> base = {f"q{i}": {"AP": 0.25} for i in range(4)}
    >>> new = {f"q{i}": {"AP": 0.5} for i in range(4)}
    >>> aligned = align_values(["base", "new"], ["AP"], [base, new])
    >>> report = compare_aligned(aligned, test="randomization")
    >>> report.comparison.row("new", "AP").test.mean_difference
    0.25
    >>> every = compare_aligned(aligned, test="tukey", pairs="all")
    >>> every.comparison.pair("base", "new", "AP").corrected_p_value
    0.0
    """
    function = "compare_aligned"
    resolved = default_correction(test, correction, function)
    chosen, chosen_baselines = choose_pairs(aligned.names, pairs, baselines)
    one_baseline = chosen_baselines == (aligned.baseline,)
    if one_baseline and test not in TUKEY_TEST_NAMES:
        comparison = compare(
            aligned.baseline_scores(),
            aligned.systems_scores(),
            test=test,
            correction=resolved,
            alpha=alpha,
            seed=seed,
            n_resamples=n_resamples,
            baseline=aligned.baseline,
        )
    else:
        comparison = compare_pairs(
            {name: dict(aligned.scores[name]) for name in aligned.names},
            chosen,
            test=test,
            correction=correction,
            alpha=alpha,
            seed=seed,
            n_resamples=n_resamples,
            baselines=chosen_baselines,
        )
    if shown(progress):
        with steps(len(comparison.rows), "bootstrap intervals", progress) as advance:
            for done, row in enumerate(comparison.rows, 1):
                _ = row.difference_ci  # computed once, kept by the row
                advance(done)
    return ComparisonReport(comparison=comparison, aligned=aligned, provenance=provenance)


@dataclass(frozen=True)
class PowerReport:
    """The discriminative power of the measures and the scores it was computed on.

    Attributes
    ----------
    power
        Per measure, the share of run pairs separated at the level.
    aligned
        The per-query scores (every run on the same queries).
    provenance
        What produced it (None: not recorded).
    """

    power: DiscriminativePower
    aligned: AlignedScores
    provenance: Provenance | None = None

    def render(self, format: str = "table") -> str:
        """The power of every measure as ``table``, ``markdown``, ``latex``, ``json`` or
        ``html`` (with the achieved-significance-level curves)."""
        from rankscope.report.compare import render_power

        return render_power(self, format)


def power_report(
    aligned: AlignedScores,
    *,
    test: str = "randomized-tukey",
    correction: str | None = None,
    alpha: float = 0.05,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    provenance: Provenance | None = None,
) -> PowerReport:
    """The discriminative power (:func:`rankscope.compare.discriminative_power`) of every
    measure of aligned scores.

    Examples
    --------
    >>> from rankscope.compare import align_values
    >>> values = [{f"q{i}": {"AP": 0.1 * i + 0.1 * k} for i in range(6)} for k in range(3)]
    >>> report = power_report(align_values(["a", "b", "c"], ["AP"], values), n_resamples=999)
    >>> power = report.power.measure("AP")
    >>> power.pairs, power.significant, [round(p, 3) for p in power.asl]
    (3, 1, [0.001, 0.233, 0.233])
    """
    per_measure = {
        measure: {name: aligned.scores[name][measure] for name in aligned.names}
        for measure in aligned.measures
    }
    power = discriminative_power(
        per_measure,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
    )
    return PowerReport(power=power, aligned=aligned, provenance=provenance)


def _running_mean(values: list[float]) -> float:
    total = 0.0
    for value in values:  # not sum(): from Python 3.12 on it compensates rounding
        total += value
    return total / len(values) if values else 0.0
