"""What every comparison format shares: labels of tests and corrections, the cells of the table
(a run's mean on a measure, whether it is the best and significant), the footnote."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rankscope.compare import AnovaTable, ComparisonReport, ComparisonRow
from rankscope.compare._align import FloatArray

TEST_LABELS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey's HSD test, topics as blocks",
    "randomized-tukey": "randomized Tukey HSD test",
}
"""How each test of :func:`rankscope.compare.compare` is named in footnotes."""

CORRECTION_LABELS = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "bh": "Benjamini-Hochberg correction",
    "none": "no correction for multiple comparisons",
    "tukey": "adjusted for all pairs",
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
    """``Holm-corrected p``, ``adjusted p`` for the Tukey tests, or ``p`` without correction."""
    if correction == "tukey":
        return "adjusted p"
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
    if comparison.pairwise:
        return pairwise_footnote(report, bold)
    return (
        f"{DAGGER} significantly different from the baseline {report.baseline} "
        f"({TEST_LABELS[comparison.test]}, {CORRECTION_LABELS[comparison.correction]}, "
        f"{p_name} ≤ {level}; {len(report.aligned.query_ids)} queries)."
        + (" Best value per measure in bold." if bold else "")
    )


@dataclass(frozen=True)
class Cell:
    """A run's mean on a measure, as printed; ``row`` is None for the baseline (and for every
    run when pairs were compared); ``letters``: the run's compact letter display, if any."""

    value: str
    best: bool
    row: ComparisonRow | None
    letters: str = ""

    @property
    def significant(self) -> bool:
        return self.row is not None and self.row.significant


def table_grid(report: ComparisonReport) -> list[tuple[str, list[Cell]]]:
    """One entry per run, the baseline first: its name and a cell per measure."""
    best = best_runs(report)
    comparison = report.comparison
    grid = []
    for name in report.aligned.names:
        means = report.means(name)
        cells = [
            Cell(
                value_text(means[measure]),
                name in best[measure],
                None
                if comparison.pairwise or name == report.baseline
                else comparison.row(name, measure),
                _letters(report, name, measure),
            )
            for measure in comparison.measures
        ]
        grid.append((name, cells))
    return grid


def _letters(report: ComparisonReport, name: str, measure: str) -> str:
    analysis = report.comparison.analyses.get(measure)
    if analysis is None or analysis.letters is None:
        return ""
    return analysis.letters[name]


def has_letters(report: ComparisonReport) -> bool:
    """Whether the table shows a compact letter display (every pair of every measure tested)."""
    analyses = report.comparison.analyses.values()
    return bool(analyses) and all(analysis.letters is not None for analysis in analyses)


def baseline_names(report: ComparisonReport) -> tuple[str, ...]:
    """The runs marked as baselines: the one baseline, the chosen baselines, or none (all
    pairs, listed pairs)."""
    comparison = report.comparison
    return comparison.baselines if comparison.pairwise else (report.baseline,)


def run_label(report: ComparisonReport, name: str, escape: Callable[[str], str]) -> str:
    return escape(name) + (BASELINE_MARK if name in baseline_names(report) else "")


def pairwise_footnote(report: ComparisonReport, bold: bool = True) -> str:
    """What the letters (or the daggers of the pairs' table) mean, when pairs were compared."""
    comparison = report.comparison
    p_name = corrected_label(comparison.correction)
    how = (
        f"{TEST_LABELS[comparison.test]}, {CORRECTION_LABELS[comparison.correction]}, "
        f"{p_name} ≤ {comparison.alpha:g}; {len(report.aligned.query_ids)} queries"
    )
    lead = (
        "Runs that share a letter do not differ significantly"
        if has_letters(report)
        else f"{DAGGER} in the pairs: significantly different"
    )
    return f"{lead} ({how})." + (" Best value per measure in bold." if bold else "")


@dataclass(frozen=True)
class Section:
    """A table of its own below the main one (pairs, pairwise matrix, ANOVA), as text cells.

    ``numeric[i]`` says whether column ``i`` is right-aligned.
    """

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]


def _signed(value: float, digits: int = 4) -> str:
    return f"{value:+.{digits}f}" if math.isfinite(value) else "-"


def pairwise_sections(report: ComparisonReport) -> list[Section]:
    """The tables that follow the main one when pairs were compared: every pair's difference,
    interval, p-values and effect size; per measure the matrix of adjusted p-values and the
    ANOVA table. Empty for a comparison with one baseline."""
    comparison = report.comparison
    if not comparison.pairwise:
        return []
    level = f"{1 - comparison.alpha:.0%}"
    p_name = corrected_label(comparison.correction)
    effect = "effect (d)" if comparison.test not in ("tukey", "randomized-tukey") else "effect"
    pair_rows = tuple(
        (
            row.measure,
            f"{row.system} - {row.baseline}",
            _signed(row.test.mean_difference) + (DAGGER if row.significant else ""),
            f"[{_signed(row.difference_ci.low)}, {_signed(row.difference_ci.high)}]",
            format_p(row.test.p_value),
            format_p(row.corrected_p_value),
            _signed(row.effect_size, 2),
        )
        for row in comparison.rows
    )
    sections = [
        Section(
            "Pairs",
            ("measure", "pair", "difference", f"{level} CI", "p", p_name, effect),
            pair_rows,
            (False, False, True, True, True, True, True),
        )
    ]
    for measure in comparison.measures:
        analysis = comparison.analyses[measure]
        sections.append(matrix_section(analysis.systems, analysis.p_value_matrix(), measure))
        sections.append(anova_section(analysis.anova, measure, analysis.margin_of_error, level))
    return sections


def matrix_section(systems: tuple[str, ...], matrix: FloatArray, measure: str) -> Section:
    """The adjusted p-values of every pair (``-`` on the diagonal, blank where not compared)."""
    rows = []
    for i, system in enumerate(systems):
        cells = []
        for j in range(len(systems)):
            value = float(matrix[i, j])
            cells.append("-" if i == j else "" if math.isnan(value) else format_p(value))
        rows.append((system, *cells))
    return Section(
        f"Adjusted p-values, {measure}",
        ("", *systems),
        tuple(rows),
        (False, *([True] * len(systems))),
    )


def anova_section(table: AnovaTable, measure: str, margin: float, level: str) -> Section:
    """The ANOVA table, its title naming the design and the margin of error."""

    def number(value: float | None, digits: int = 4) -> str:
        return "" if value is None else f"{value:.{digits}f}" if math.isfinite(value) else "-"

    rows = tuple(
        (
            row.source,
            number(row.sum_of_squares),
            str(row.df),
            number(row.mean_square),
            number(row.f, 3),
            "" if row.p_value is None else format_p(row.p_value),
        )
        for row in table.rows
    )
    design = "systems x topics" if table.design == "two-way" else "systems"
    return Section(
        f"ANOVA, {measure} ({design}; {level} margin of error of a mean ±{margin:.4f})",
        ("source", "SS", "df", "MS", "F", "p"),
        rows,
        (False, True, True, True, True, True),
    )


def footnotes(report: ComparisonReport, bold: bool = True) -> list[str]:
    """The footnote, then the note on queries left out (if any)."""
    note = report.aligned.note()
    return [footnote(report, bold), *([f"Note: {note}"] if note else [])]


def provenance_lines(report: ComparisonReport) -> list[str]:
    """``label: value`` lines saying what produced the report (none when not recorded)."""
    return [] if report.provenance is None else report.provenance.lines()
