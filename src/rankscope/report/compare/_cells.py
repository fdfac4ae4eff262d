"""What every comparison format shares: labels of tests and corrections, the cells of the table
(a run's mean on a measure, whether it is the best and significant), the footnote."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rankscope.compare import ComparisonReport, ComparisonRow

TEST_LABELS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
}
"""How each test of :func:`rankscope.compare.compare` is named in footnotes."""

CORRECTION_LABELS = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "bh": "Benjamini-Hochberg correction",
    "none": "no correction for multiple comparisons",
}
"""How each correction of :func:`rankscope.compare.compare` is named in footnotes."""

DAGGER = "†"
BASELINE_MARK = " (baseline)"
# Largest wins and losses listed per system and measure in the HTML report.
LARGEST_SHOWN = 5


def value_text(value: float) -> str:
    return f"{value:.4f}"


def format_p(p_value: float) -> str:
    """A p-value with three decimals, or ``<0.001``.

    Examples
    --------
    >>> format_p(0.04567), format_p(0.0004), format_p(1.0)
    ('0.046', '<0.001', '1.000')
    """
    return "<0.001" if p_value < 0.0005 else f"{p_value:.3f}"


def p_equals(p_value: float) -> str:
    """``p=0.046`` or ``p<0.001``."""
    shown = format_p(p_value)
    return "p" + shown if shown.startswith("<") else f"p={shown}"


_CORRECTION_SHORT = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "BH"}


def corrected_label(correction: str) -> str:
    """``Holm-corrected p``, or ``p`` without correction."""
    short = _CORRECTION_SHORT.get(correction)
    return f"{short}-corrected p" if short else "p"


def best_runs(report: ComparisonReport) -> dict[str, set[str]]:
    """Measure -> the runs whose value, as printed, is the highest (all of them on a tie)."""
    best: dict[str, set[str]] = {}
    for measure in report.comparison.measures:
        shown = {name: value_text(report.means(name)[measure]) for name in report.aligned.names}
        top = max(float(text) for text in shown.values())
        best[measure] = {name for name, text in shown.items() if float(text) == top}
    return best


def footnote(report: ComparisonReport, bold: bool = True) -> str:
    """The sentence that explains the dagger: which test, which correction, which level.

    ``bold`` adds that the best values are in bold (for formats that have bold).

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(4)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(4)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(4)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(footnote(report))
    † significantly different from the baseline bm25 (paired randomization test,
    Holm correction, corrected p ≤ 0.05; 4 queries). Best value per measure in bold.
    """
    comparison = report.comparison
    level = f"{comparison.alpha:g}"
    p_name = "p" if comparison.correction == "none" else "corrected p"
    return (
        f"{DAGGER} significantly different from the baseline {report.baseline} "
        f"({TEST_LABELS[comparison.test]}, {CORRECTION_LABELS[comparison.correction]}, "
        f"{p_name} ≤ {level}; {len(report.aligned.query_ids)} queries)."
        + (" Best value per measure in bold." if bold else "")
    )


@dataclass(frozen=True)
class Cell:
    """A run's mean on a measure, as printed; ``row`` is None for the baseline."""

    value: str
    best: bool
    row: ComparisonRow | None

    @property
    def significant(self) -> bool:
        return self.row is not None and self.row.significant


def table_grid(report: ComparisonReport) -> list[tuple[str, list[Cell]]]:
    """One entry per run, the baseline first: its name and a cell per measure."""
    best = best_runs(report)
    grid = []
    for name in report.aligned.names:
        means = report.means(name)
        cells = [
            Cell(
                value_text(means[measure]),
                name in best[measure],
                None if name == report.baseline else report.comparison.row(name, measure),
            )
            for measure in report.comparison.measures
        ]
        grid.append((name, cells))
    return grid


def run_label(report: ComparisonReport, name: str, escape: Callable[[str], str]) -> str:
    return escape(name) + (BASELINE_MARK if name == report.baseline else "")


def footnotes(report: ComparisonReport, bold: bool = True) -> list[str]:
    """The footnote, then the note on queries left out (if any)."""
    note = report.aligned.note()
    return [footnote(report, bold), *([f"Note: {note}"] if note else [])]


def provenance_lines(report: ComparisonReport) -> list[str]:
    """``label: value`` lines saying what produced the report (none when not recorded)."""
    return [] if report.provenance is None else report.provenance.lines()
