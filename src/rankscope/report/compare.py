"""Render a comparison of systems with a baseline: text, rich, Markdown, LaTeX, JSON and HTML.

Every renderer takes a :class:`~rankscope.report.compare_inputs.ComparisonReport` and whether
to show the corrected p-values, and returns text; :data:`FORMATS` maps format names to
renderers, so the command line offers exactly what is here. The tables have a row per run (the
baseline first) and a column per measure; the best value of each measure is in bold (where the
format has bold) and a dagger marks a system significantly different from the baseline after
correction. A footnote names the test, the correction and the level.

The HTML report is one self-contained file: inline CSS and inline SVG charts drawn here, no
script and no network access (its Content-Security-Policy forbids any). Every name that comes
from the user (run names, measure names, query ids) is escaped for the format it lands in.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankscope.compare import ComparisonRow, largest_differences
from rankscope.errors import MissingDependencyError, OptionError
from rankscope.report.compare_inputs import ComparisonReport, FloatArray

if TYPE_CHECKING:
    from rich.console import Group

__all__ = [
    "CORRECTION_LABELS",
    "FORMATS",
    "TEST_LABELS",
    "footnote",
    "format_p",
    "latex_escape",
    "render_comparison",
    "render_html",
    "render_json",
    "render_latex",
    "render_markdown",
    "render_text",
    "rich_table",
]

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


# ---------------------------------------------------------------------------------------------
# Cells shared by the tables


def _value(value: float) -> str:
    return f"{value:.4f}"


def format_p(p_value: float) -> str:
    """A p-value with three decimals, or ``<0.001``.

    Examples
    --------
    >>> format_p(0.04567), format_p(0.0004), format_p(1.0)
    ('0.046', '<0.001', '1.000')
    """
    return "<0.001" if p_value < 0.0005 else f"{p_value:.3f}"


def _p_equals(p_value: float) -> str:
    """``p=0.046`` or ``p<0.001``."""
    shown = format_p(p_value)
    return "p" + shown if shown.startswith("<") else f"p={shown}"


_CORRECTION_SHORT = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "BH"}


def _corrected_label(correction: str) -> str:
    """``Holm-corrected p``, or ``p`` without correction."""
    short = _CORRECTION_SHORT.get(correction)
    return f"{short}-corrected p" if short else "p"


def _best(report: ComparisonReport) -> dict[str, set[str]]:
    """Measure -> the runs whose value, as printed, is the highest (all of them on a tie)."""
    best: dict[str, set[str]] = {}
    for measure in report.comparison.measures:
        shown = {name: _value(report.means(name)[measure]) for name in report.aligned.names}
        top = max(float(text) for text in shown.values())
        best[measure] = {name for name, text in shown.items() if float(text) == top}
    return best


def footnote(report: ComparisonReport, bold: bool = True) -> str:
    """The sentence that explains the dagger: which test, which correction, which level.

    ``bold`` adds that the best values are in bold (for formats that have bold).

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
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
class _Cell:
    """A run's mean on a measure, as printed; ``row`` is None for the baseline."""

    value: str
    best: bool
    row: ComparisonRow | None

    @property
    def significant(self) -> bool:
        return self.row is not None and self.row.significant


def _grid(report: ComparisonReport) -> list[tuple[str, list[_Cell]]]:
    """One entry per run, the baseline first: its name and a cell per measure."""
    best = _best(report)
    grid = []
    for name in report.aligned.names:
        means = report.means(name)
        cells = [
            _Cell(
                _value(means[measure]),
                name in best[measure],
                None if name == report.baseline else report.comparison.row(name, measure),
            )
            for measure in report.comparison.measures
        ]
        grid.append((name, cells))
    return grid


def _label(report: ComparisonReport, name: str, escape: Callable[[str], str]) -> str:
    return escape(name) + (BASELINE_MARK if name == report.baseline else "")


# ---------------------------------------------------------------------------------------------
# Text, rich, Markdown, LaTeX


# " p=0.012" and " p<0.001" have the same width, so the numbers above them can line up.
_P_WIDTH = len(" p=0.000")


def _plain_cell(cell: _Cell, show_p: bool) -> str:
    text = cell.value + (DAGGER if cell.significant else " ")
    if show_p:
        text += " " * _P_WIDTH if cell.row is None else " " + _p_equals(cell.row.corrected_p_value)
    return text


def render_text(report: ComparisonReport, show_p: bool = False) -> str:
    """A plain, aligned text table with the footnote (what the terminal table prints when piped).

    Plain text has no bold: the best values are marked only in :func:`rich_table`.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(render_text(report), end="")
    run                  RR
    bm25 (baseline)  0.5000
    dense            1.0000†
    <BLANKLINE>
    † significantly different from the baseline bm25 (paired randomization test, Holm
    correction, corrected p ≤ 0.05; 8 queries).
    """
    # Headers end where the numbers do, before the dagger (and p-value) slot.
    pad = " " * (1 + (_P_WIDTH if show_p else 0))
    header = ["run", *(measure + pad for measure in report.comparison.measures)]
    rows = [
        [_label(report, name, str), *(_plain_cell(cell, show_p) for cell in cells)]
        for name, cells in _grid(report)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    lines = [line(cells) for cells in [header, *rows]]
    return "\n".join([*lines, "", *_notes(report, bold=False)]) + "\n"


def _notes(report: ComparisonReport, bold: bool = True) -> list[str]:
    note = report.aligned.note()
    return [footnote(report, bold), *([f"Note: {note}"] if note else [])]


def rich_table(report: ComparisonReport, show_p: bool = False) -> Group:
    """The comparison for a terminal: a rich table, best values in bold, then the footnote.

    Raises
    ------
    MissingDependencyError
        If rich (the ``cli`` extra) is not installed.
    """
    try:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text
    except ImportError as error:
        raise MissingDependencyError("rich", "the terminal table", "cli") from error
    grid = _grid(report)
    measures = report.comparison.measures
    # rich trims trailing spaces, so the columns are left-justified and the numbers padded here:
    # headers and numbers end at the same place, before the dagger (and p-value) slot.
    widths = [
        max(len(measure), *(len(cells[i].value) for _, cells in grid))
        for i, measure in enumerate(measures)
    ]
    table = Table(show_edge=False, header_style="bold")
    table.add_column("run")
    for measure, width in zip(measures, widths, strict=True):
        table.add_column(measure.rjust(width), no_wrap=True)
    for name, cells in grid:
        styled = [Text(_label(report, name, str), style="dim" if name == report.baseline else "")]
        for cell, width in zip(cells, widths, strict=True):
            text = Text(cell.value.rjust(width), style="bold" if cell.best else "")
            text.append(DAGGER if cell.significant else " ", style="bold green")
            if show_p and cell.row is not None:
                text.append(" " + _p_equals(cell.row.corrected_p_value), style="dim")
            styled.append(text)
        table.add_row(*styled)
    notes = Text("\n".join(_notes(report)), style="dim")
    return Group(table, Text(""), notes)


def _markdown_escape(text: str) -> str:
    return re.sub(r"([\\|*_`\[\]<>#])", r"\\\1", text)


def _markdown_cell(cell: _Cell, show_p: bool) -> str:
    text = f"**{cell.value}**" if cell.best else cell.value
    if cell.significant:
        text += DAGGER
    if show_p and cell.row is not None:
        text += f" ({_p_equals(cell.row.corrected_p_value)})"
    return text


def render_markdown(report: ComparisonReport, show_p: bool = False) -> str:
    """A GitHub-flavoured Markdown table, best values in bold, then the footnote.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(render_markdown(report, show_p=True), end="")  # doctest: +ELLIPSIS
    | run | RR |
    | --- | ---: |
    | bm25 (baseline) | 0.5000 |
    | dense | **1.0000**† (p=0.006) |
    <BLANKLINE>
    † significantly different from the baseline bm25 (paired randomization test, ...
    """
    header = ["run", *(_markdown_escape(m) for m in report.comparison.measures)]
    align = ["---", *(["---:"] * len(report.comparison.measures))]
    rows = [
        [_label(report, name, _markdown_escape), *(_markdown_cell(c, show_p) for c in cells)]
        for name, cells in _grid(report)
    ]
    lines = ["| " + " | ".join(cells) + " |" for cells in [header, align, *rows]]
    notes = [_markdown_escape(note) for note in _notes(report)]
    # The footnote starts with the dagger, which needs no escaping; keep it readable.
    return "\n".join([*lines, "", *notes]) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    r"""Escape the characters LaTeX treats specially.

    Examples
    --------
    >>> print(latex_escape("bm25_v2 & 100% {x}"))
    bm25\_v2 \& 100\% \{x\}
    """
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _latex_cell(cell: _Cell, show_p: bool) -> str:
    text = rf"\textbf{{{cell.value}}}" if cell.best else cell.value
    if cell.significant:
        text += r"$^{\dagger}$"
    if show_p and cell.row is not None:
        text += rf" {{\scriptsize(${_p_equals(cell.row.corrected_p_value)}$)}}"
    return text


def render_latex(report: ComparisonReport, show_p: bool = False) -> str:
    r"""A booktabs table in a ``table`` float, best values bold, the footnote under it.

    Needs ``\usepackage{booktabs}`` in the preamble.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(render_latex(report), end="")  # doctest: +ELLIPSIS
    % rankscope compare; needs \usepackage{booktabs}
    \begin{table}[tbp]
      \centering
      \begin{tabular}{@{}lr@{}}
        \toprule
        Run & RR \\
        \midrule
        bm25 (baseline) & 0.5000 \\
        dense & \textbf{1.0000}$^{\dagger}$ \\
        \bottomrule
      \end{tabular}
    ...
      {\footnotesize $^{\dagger}$\,Significantly different from the baseline bm25 (paired
      randomization test, Holm correction, corrected p $\le$ 0.05; 8 queries). Best value per
      measure in bold.\par}
    \end{table}
    """
    comparison = report.comparison
    columns = "l" + "r" * len(comparison.measures)
    header = ["Run", *(latex_escape(m) for m in comparison.measures)]
    rows = [
        [_label(report, name, latex_escape), *(_latex_cell(c, show_p) for c in cells)]
        for name, cells in _grid(report)
    ]
    sentence = footnote(report).removeprefix(DAGGER).strip()
    note = latex_escape(sentence[:1].upper() + sentence[1:])
    note = note.replace("≤", r"$\le$")
    body = [
        "% rankscope compare; needs \\usepackage{booktabs}",
        r"\begin{table}[tbp]",
        r"  \centering",
        rf"  \begin{{tabular}}{{@{{}}{columns}@{{}}}}",
        r"    \toprule",
        "    " + " & ".join(header) + r" \\",
        r"    \midrule",
        *("    " + " & ".join(cells) + r" \\" for cells in rows),
        r"    \bottomrule",
        r"  \end{tabular}",
        "",
        r"  \smallskip",
        rf"  {{\footnotesize $^{{\dagger}}$\,{note}\par}}",
        r"\end{table}",
    ]
    return "\n".join(body) + "\n"


# ---------------------------------------------------------------------------------------------
# JSON


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def render_json(report: ComparisonReport, show_p: bool = False) -> str:
    """Everything computed, as JSON: options, means, and a record per (system, measure).

    p-values are always included; ``show_p`` is accepted for a uniform signature. Non-finite
    numbers (an undefined effect size) are ``null``.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
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


# ---------------------------------------------------------------------------------------------
# HTML

_PALETTE = ("#2b6cb0", "#dd6b20", "#2f855a", "#805ad5", "#b83280", "#319795", "#975a16")
_BASELINE_COLOR = "#718096"
_METHOD_LABELS = {"bca": "BCa", "percentile": "percentile"}
_GAIN_COLOR = "#2f855a"
_LOSS_COLOR = "#c53030"
_TIE_COLOR = "#a0aec0"
# Beyond this many queries the charts draw shapes without one element per query.
_PER_QUERY_ELEMENTS = 500

_CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: #1a202c; background: #f7fafc; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid #e2e8f0; }
h3 { font-size: 14px; margin: 18px 0 6px; color: #2d3748; }
.meta { color: #4a5568; margin: 0 0 6px; }
.note { background: #fffbeb; border: 1px solid #f6e05e; padding: 8px 12px; border-radius: 4px; }
section { background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 4px 18px 16px;
  margin-top: 18px; }
section > h2 { border: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #2d3748; }
tbody tr:last-child td { border-bottom: 2px solid #2d3748; }
tbody tr.baseline td { color: #4a5568; }
td .p { display: block; font-size: 11px; color: #718096; }
.sig { color: #2f855a; font-weight: 600; }
.footnote { color: #4a5568; font-size: 12.5px; margin-top: 8px; }
nav { margin-top: 12px; color: #4a5568; }
nav a { margin-right: 10px; color: #2b6cb0; text-decoration: none; }
.charts { display: flex; flex-wrap: wrap; gap: 14px 22px; }
figure { margin: 6px 0 16px; }
figcaption { font-size: 12.5px; color: #2d3748; margin-bottom: 2px; }
svg { display: block; overflow: visible; }
svg text { font: 11px system-ui, -apple-system, "DejaVu Sans", sans-serif; fill: #4a5568; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 5px; vertical-align: -1px; }
.moves { display: flex; flex-wrap: wrap; gap: 10px 40px; align-items: flex-start; }
.moves table td, .moves table th { padding: 2px 8px; }
.gain { color: #2f855a; }
.loss { color: #c53030; }
code { font-size: 12.5px; }
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _color(report: ComparisonReport, name: str) -> str:
    if name == report.baseline:
        return _BASELINE_COLOR
    return _PALETTE[report.aligned.systems.index(name) % len(_PALETTE)]


def _svg_open(width: int, height: int, label: str, css_class: str) -> str:
    return (
        f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(label)}">'
        f"<title>{_esc(label)}</title>"
    )


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values, the first <= ``low`` and the last >= ``high``.

    Examples
    --------
    >>> _nice_ticks(-0.39, 0.95)
    [-0.5, 0.0, 0.5, 1.0]
    >>> _nice_ticks(0.0, 1.0, 6)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> _nice_ticks(0.0, 0.0)
    [-0.1, 0.0, 0.1]
    """
    if not high > low:
        return [low - 0.1, low, low + 0.1]
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(i * step, 10) + 0.0 for i in range(first, last + 1)]


def _tick(value: float) -> str:
    """A signed tick label: ``+0.25``, ``0``, ``-0.5``."""
    return "0" if value == 0 else f"{value:+.3g}"


def _difference_chart(
    report: ComparisonReport, system: str, measure: str, differences: FloatArray
) -> str:
    """Bars of ``system - baseline`` per query, largest gain first."""
    width, height = 540, 190
    left, right, top, bottom = 46, 8, 10, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    ids = report.aligned.query_ids
    order = sorted(range(len(ids)), key=lambda i: (-differences[i], ids[i]))
    # The scale spans the differences and zero; a difference-free chart still gets an axis.
    ticks = _nice_ticks(min(0.0, float(differences.min())), max(0.0, float(differences.max())))
    span_low, span_high = ticks[0], ticks[-1]

    def y(value: float) -> float:
        return top + (span_high - value) / (span_high - span_low) * plot_h

    label = f"Per-query difference in {measure}, {system} minus {report.baseline}"
    parts = [_svg_open(width, height, label, "diff-chart")]
    for tick in ticks:
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="{"#4a5568" if tick == 0 else "#edf2f7"}" stroke-width="1"/>'
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_tick(tick)}</text>'
        )
    n = len(order)
    step = plot_w / max(n, 1)
    if n <= _PER_QUERY_ELEMENTS:
        bar = max(step * 0.8, 0.6)
        for position, i in enumerate(order):
            value = float(differences[i])
            color = _GAIN_COLOR if value > 1e-12 else _LOSS_COLOR if value < -1e-12 else _TIE_COLOR
            y0, y1 = sorted((y(0.0), y(value)))
            if y1 - y0 < 1.0:  # a tie still shows as a sliver, so every query is visible
                y0, y1 = y(0.0) - 0.5, y(0.0) + 0.5
            base_value = report.aligned.scores[report.baseline][measure][i]
            system_value = report.aligned.scores[system][measure][i]
            parts.append(
                f'<rect x="{left + position * step + (step - bar) / 2:.2f}" y="{y0:.2f}" '
                f'width="{bar:.2f}" height="{y1 - y0:.2f}" fill="{color}">'
                f"<title>query {_esc(ids[i])}: {value:+.4f} "
                f"({_value(base_value)} → {_value(system_value)})</title></rect>"
            )
    else:
        points = " ".join(
            f"{left + (position + 0.5) * step:.2f},{y(float(differences[i])):.2f}"
            for position, i in enumerate(order)
        )
        zero = y(0.0)
        parts.append(
            f'<polygon points="{left:.2f},{zero:.2f} {points} {width - right:.2f},{zero:.2f}" '
            f'fill="{_PALETTE[0]}" fill-opacity="0.45" stroke="{_PALETTE[0]}" stroke-width="1"/>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        f"{n} queries, sorted by difference (largest gain first)</text></svg>"
    )
    return "".join(parts)


def _scale(values: Sequence[FloatArray]) -> tuple[float, float]:
    low = min(0.0, *(float(v.min()) for v in values))
    high = max(1.0, *(float(v.max()) for v in values))
    return low, high


def _distribution_chart(report: ComparisonReport, measure: str) -> str:
    """Per run: every query's score as a dot, a box from the quartiles, the mean as a diamond."""
    names = report.aligned.names
    row_h, left, right, top, bottom = 46, 120, 12, 8, 30
    width = 540
    height = top + row_h * len(names) + bottom
    plot_w = width - left - right
    arrays = [report.aligned.scores[name][measure] for name in names]
    ticks = _nice_ticks(*_scale(arrays), 6)
    low, high = ticks[0], ticks[-1]

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot_w

    parts = [_svg_open(width, height, f"Distribution of per-query {measure} per run", "dist-chart")]
    axis_y = top + row_h * len(names)
    for tick in ticks:
        parts.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top}" y2="{axis_y}" '
            f'stroke="#edf2f7"/><text x="{x(tick):.1f}" y="{axis_y + 14}" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    jitter = np.random.default_rng(0)  # a fixed spread of the dots: the report is reproducible
    for row, (name, scores) in enumerate(zip(names, arrays, strict=True)):
        center = top + row * row_h + row_h / 2
        color = _color(report, name)
        shown_name = name if len(name) <= 16 else name[:15] + "…"
        parts.append(
            f'<text x="{left - 8}" y="{center + 4:.1f}" text-anchor="end">'
            f"{_esc(shown_name)}<title>{_esc(name)}</title></text>"
        )
        q1, median, q3 = (float(v) for v in np.percentile(scores, [25, 50, 75]))
        parts.append(
            f'<line x1="{x(float(scores.min())):.1f}" x2="{x(float(scores.max())):.1f}" '
            f'y1="{center:.1f}" y2="{center:.1f}" stroke="{color}" stroke-width="1"/>'
            f'<rect x="{x(q1):.1f}" y="{center - 11:.1f}" width="{max(x(q3) - x(q1), 1):.1f}" '
            f'height="22" fill="{color}" fill-opacity="0.18" stroke="{color}"/>'
            f'<line x1="{x(median):.1f}" x2="{x(median):.1f}" y1="{center - 11:.1f}" '
            f'y2="{center + 11:.1f}" stroke="{color}" stroke-width="2"/>'
        )
        if scores.size <= _PER_QUERY_ELEMENTS:
            offsets = jitter.uniform(-8, 8, scores.size)
            for query, value, offset in zip(report.aligned.query_ids, scores, offsets, strict=True):
                parts.append(
                    f'<circle cx="{x(float(value)):.1f}" cy="{center + offset:.1f}" r="2.2" '
                    f'fill="{color}" fill-opacity="0.55"><title>query {_esc(query)}: '
                    f"{_value(float(value))}</title></circle>"
                )
        mean = float(scores.mean())
        mx = x(mean)
        parts.append(
            f'<path d="M{mx:.1f},{center - 6:.1f} L{mx + 5:.1f},{center:.1f} '
            f'L{mx:.1f},{center + 6:.1f} L{mx - 5:.1f},{center:.1f} Z" fill="#1a202c">'
            f"<title>{_esc(name)}: mean {_value(mean)}</title></path>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" text-anchor="middle">'
        f"{_esc(measure)} per query (box: quartiles, line: median, ◆: mean)</text></svg>"
    )
    return "".join(parts)


def _interval_chart(report: ComparisonReport, measure: str) -> str:
    """Per system: the mean difference with its confidence interval, and the zero line."""
    rows = [report.comparison.row(system, measure) for system in report.aligned.systems]
    row_h, left, right, top, bottom = 30, 120, 14, 8, 30
    width = 540
    height = top + row_h * len(rows) + bottom
    plot_w = width - left - right
    bounds = [0.0, *(r.difference_ci.low for r in rows), *(r.difference_ci.high for r in rows)]
    ticks = _nice_ticks(min(bounds), max(bounds), 6)
    low, high = ticks[0], ticks[-1]

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot_w

    level = rows[0].difference_ci.level
    method = _METHOD_LABELS.get(rows[0].difference_ci.method, rows[0].difference_ci.method)
    label = f"Mean difference in {measure} from {report.baseline}, {level:.0%} intervals"
    parts = [_svg_open(width, height, label, "ci-chart")]
    axis_y = top + row_h * len(rows)
    for tick in ticks:
        parts.append(
            f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top}" y2="{axis_y}" '
            f'stroke="{"#4a5568" if tick == 0 else "#edf2f7"}"/>'
            f'<text x="{x(tick):.1f}" y="{axis_y + 14}" text-anchor="middle">{_tick(tick)}</text>'
        )
    for index, row in enumerate(rows):
        center = top + index * row_h + row_h / 2
        color = _color(report, row.system)
        ci = row.difference_ci
        shown_name = row.system if len(row.system) <= 16 else row.system[:15] + "…"
        parts.append(
            f'<text x="{left - 8}" y="{center + 4:.1f}" text-anchor="end">{_esc(shown_name)}'
            f"<title>{_esc(row.system)}</title></text>"
            f'<line x1="{x(ci.low):.1f}" x2="{x(ci.high):.1f}" y1="{center:.1f}" '
            f'y2="{center:.1f}" stroke="{color}" stroke-width="2.5"/>'
            f'<line x1="{x(ci.low):.1f}" x2="{x(ci.low):.1f}" y1="{center - 6:.1f}" '
            f'y2="{center + 6:.1f}" stroke="{color}" stroke-width="2"/>'
            f'<line x1="{x(ci.high):.1f}" x2="{x(ci.high):.1f}" y1="{center - 6:.1f}" '
            f'y2="{center + 6:.1f}" stroke="{color}" stroke-width="2"/>'
            f'<circle cx="{x(row.test.mean_difference):.1f}" cy="{center:.1f}" r="4.5" '
            f'fill="{color if row.significant else "#fff"}" stroke="{color}" stroke-width="2">'
            f"<title>{_esc(row.system)}: {row.test.mean_difference:+.4f} "
            f"[{ci.low:+.4f}, {ci.high:+.4f}]</title></circle>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" text-anchor="middle">'
        f"mean difference from {_esc(report.baseline)} ({level:.0%} {method} bootstrap "
        "interval; filled: significant)</text></svg>"
    )
    return "".join(parts)


def _html_cell(cell: _Cell) -> str:
    text = f"<strong>{cell.value}</strong>" if cell.best else cell.value
    if cell.row is not None:
        if cell.significant:
            text += f'<span class="sig" title="significant">{DAGGER}</span>'
        text += f'<span class="p">{_esc(_p_equals(cell.row.corrected_p_value))}</span>'
    return text


def _summary_table(report: ComparisonReport) -> str:
    comparison = report.comparison
    head = "".join(f"<th>{_esc(m)}</th>" for m in comparison.measures)
    body = []
    for name, cells in _grid(report):
        css = ' class="baseline"' if name == report.baseline else ""
        swatch = f'<span class="swatch" style="background:{_color(report, name)}"></span>'
        tds = "".join(f"<td>{_html_cell(cell)}</td>" for cell in cells)
        body.append(f"<tr{css}><td>{swatch}{_label(report, name, _esc)}</td>{tds}</tr>")
    p_name = _corrected_label(comparison.correction)
    return (
        f'<table class="summary"><thead><tr><th>run</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        f'<p class="footnote">{_esc(footnote(report))} Under each system’s value: the '
        f"{_esc(p_name)}-value of its difference from the baseline.</p>"
    )


def _statistics_table(report: ComparisonReport, measure: str) -> str:
    rows = [report.comparison.row(system, measure) for system in report.aligned.systems]
    level = rows[0].difference_ci.level
    corrected = report.comparison.correction != "none"
    p_header = "<th>p</th>" + (
        f"<th>{_esc(_corrected_label(report.comparison.correction))}</th>" if corrected else ""
    )
    head = (
        "<tr><th>system</th><th>mean</th><th>difference</th>"
        f"<th>{level:.0%} CI of difference</th>{p_header}"
        "<th>Cohen’s d</th><th>wins / ties / losses</th></tr>"
    )
    body = []
    for row in rows:
        difference = row.test.mean_difference
        css = "gain" if difference > 0 else "loss" if difference < 0 else ""
        wtl = row.win_tie_loss
        mark = f'<span class="sig">{DAGGER}</span>' if row.significant else ""
        effect = f"{row.effect_size:+.2f}" if math.isfinite(row.effect_size) else "–"
        p_cells = f"<td>{format_p(row.test.p_value)}</td>" + (
            f"<td>{format_p(row.corrected_p_value)}</td>" if corrected else ""
        )
        body.append(
            f"<tr><td>{_esc(row.system)}</td><td>{_value(row.system_mean)}</td>"
            f'<td class="{css}">{difference:+.4f}{mark}</td>'
            f"<td>[{row.difference_ci.low:+.4f}, {row.difference_ci.high:+.4f}]</td>"
            f"{p_cells}<td>{effect}</td><td>{wtl.wins} / {wtl.ties} / {wtl.losses}</td></tr>"
        )
    baseline_mean = _value(rows[0].baseline_mean)
    return (
        f'<table class="stats"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
        f'<p class="footnote">Baseline {_esc(report.baseline)}: mean {baseline_mean}.</p>'
    )


def _moves_table(report: ComparisonReport, system: str, measure: str) -> str:
    aligned = report.aligned
    base = aligned.scores[report.baseline][measure]
    scores = aligned.scores[system][measure]
    gains, losses = largest_differences(
        list(aligned.query_ids), base, scores, n=min(LARGEST_SHOWN, len(aligned.query_ids))
    )
    position = {query: i for i, query in enumerate(aligned.query_ids)}
    tables = []
    for title, entries, css in (
        ("Largest wins", gains, "gain"),
        ("Largest losses", losses, "loss"),
    ):
        rows = (
            "".join(
                f"<tr><td><code>{_esc(entry.query_id)}</code></td>"
                f"<td>{_value(float(base[position[entry.query_id]]))}</td>"
                f"<td>{_value(float(scores[position[entry.query_id]]))}</td>"
                f'<td class="{css}">{entry.difference:+.4f}</td></tr>'
                for entry in entries
            )
            or '<tr><td colspan="4">none</td></tr>'
        )
        tables.append(
            f'<table class="{css}s"><caption style="text-align:left;font-weight:600">'
            f"{title}</caption><thead><tr><th>query</th><th>{_esc(report.baseline)}</th>"
            f"<th>{_esc(system)}</th><th>difference</th></tr></thead><tbody>{rows}</tbody>"
            "</table>"
        )
    return f'<div class="moves">{"".join(tables)}</div>'


def _measure_section(report: ComparisonReport, index: int, measure: str) -> str:
    aligned = report.aligned
    base = aligned.scores[report.baseline][measure]
    differences = "".join(
        f"<figure><figcaption>Per-query difference: {_esc(system)} − "
        f"{_esc(report.baseline)}</figcaption>"
        f"{_difference_chart(report, system, measure, aligned.scores[system][measure] - base)}"
        "</figure>"
        for system in aligned.systems
    )
    spread = (
        "<figure><figcaption>Distribution of per-query scores</figcaption>"
        f"{_distribution_chart(report, measure)}</figure>"
        "<figure><figcaption>Confidence intervals of the mean difference</figcaption>"
        f"{_interval_chart(report, measure)}</figure>"
    )
    moves = "".join(
        f"<h3>Largest wins and losses of {_esc(system)} against {_esc(report.baseline)}</h3>"
        f"{_moves_table(report, system, measure)}"
        for system in aligned.systems
    )
    return (
        f'<section class="measure" id="measure-{index}" data-measure="{_esc(measure)}">'
        f"<h2>{_esc(measure)}</h2>{_statistics_table(report, measure)}"
        f'<div class="charts"><div>{differences}</div><div>{spread}</div></div>{moves}</section>'
    )


def render_html(report: ComparisonReport, show_p: bool = False) -> str:
    """One self-contained HTML page: the summary table, then a section per measure.

    Each measure's section holds the statistics of every system, a chart of the per-query
    differences from the baseline (queries sorted by difference), the distribution of per-query
    scores of every run, the confidence intervals of the mean differences, and the queries with
    the largest wins and losses. The corrected p-values are always shown (``show_p`` is accepted
    for a uniform signature). Nothing is loaded from the network.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> page = render_html(report)
    >>> page.startswith("<!DOCTYPE html>"), page.count('<section class="measure"')
    (True, 1)
    >>> "<strong>1.0000</strong>" in page, "<script" in page
    (True, False)
    """
    from rankscope import __version__

    comparison = report.comparison
    aligned = report.aligned
    systems = ", ".join(aligned.systems)
    title = f"rankscope: {systems} vs {report.baseline}"
    seed = "none" if comparison.seed is None else str(comparison.seed)
    meta = (
        f"{len(aligned.query_ids)} queries{' (complete)' if aligned.complete else ''} · "
        f"{TEST_LABELS[comparison.test]} · {CORRECTION_LABELS[comparison.correction]} · "
        f"α = {comparison.alpha:g} · BCa bootstrap intervals at {1 - comparison.alpha:.0%} "
        f"({comparison.n_resamples:,} resamples, seed {seed}) · rankscope {__version__}"
    )
    note = aligned.note()
    nav = "".join(
        f'<a href="#measure-{i}">{_esc(m)}</a>' for i, m in enumerate(comparison.measures, 1)
    )
    sections = "".join(_measure_section(report, i, m) for i, m in enumerate(comparison.measures, 1))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{_esc(title)}</title>'
        f"<style>{_CSS}</style></head>\n<body><main>"
        f"<header><h1>{_esc(systems)} compared with {_esc(report.baseline)}</h1>"
        f'<p class="meta">{_esc(meta)}</p>'
        + (f'<p class="note">{_esc(note)}</p>' if note else "")
        + "</header>"
        f'<section id="summary"><h2>Summary</h2>{_summary_table(report)}'
        f"<nav>Measures: {nav}</nav></section>{sections}</main></body></html>\n"
    )


# ---------------------------------------------------------------------------------------------

FORMATS: dict[str, Callable[[ComparisonReport, bool], str]] = {
    "table": render_text,
    "markdown": render_markdown,
    "latex": render_latex,
    "json": render_json,
    "html": render_html,
}
"""Format name -> renderer ``(report, show_p) -> text``."""


def render_comparison(report: ComparisonReport, format: str = "table", show_p: bool = False) -> str:
    """Render ``report`` in one of :data:`FORMATS`.

    Raises
    ------
    OptionError
        If ``format`` is not one of :data:`FORMATS`.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.report.compare_inputs import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(render_comparison(report, "markdown").splitlines()[3])
    | dense | **1.0000**† |
    """
    try:
        renderer = FORMATS[format]
    except KeyError:
        raise OptionError(
            f"unknown output format {format!r}; expected one of {', '.join(FORMATS)}"
        ) from None
    return renderer(report, show_p)
