"""Render a comparison of systems with a baseline: text, rich, Markdown, LaTeX, JSON and HTML.

Every renderer takes a :class:`~rankscope.compare.ComparisonReport` and whether
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

from collections.abc import Callable

from rankscope.compare import ComparisonReport
from rankscope.errors import OptionError
from rankscope.report.compare._cells import CORRECTION_LABELS, TEST_LABELS, footnote, format_p
from rankscope.report.compare._html import render_html
from rankscope.report.compare._json import render_json
from rankscope.report.compare._latex import latex_escape, render_latex
from rankscope.report.compare._markdown import render_markdown
from rankscope.report.compare._power import POWER_FORMATS, render_power
from rankscope.report.compare._text import render_text, rich_table

__all__ = [
    "CORRECTION_LABELS",
    "FORMATS",
    "POWER_FORMATS",
    "TEST_LABELS",
    "footnote",
    "format_p",
    "latex_escape",
    "render_comparison",
    "render_html",
    "render_json",
    "render_latex",
    "render_markdown",
    "render_power",
    "render_text",
    "rich_table",
]

FORMATS: dict[str, Callable[[ComparisonReport, bool], str]] = {
    "table": render_text,
    "markdown": render_markdown,
    "latex": render_latex,
    "json": render_json,
    "html": render_html,
}
"""Format name -> renderer ``(report, show_p) -> text``."""


def render_comparison(
    report: ComparisonReport,
    format: str = "table",
    show_p: bool = False,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    """Render ``report`` in one of :data:`FORMATS` (``caption`` and ``label``: for LaTeX).

    Raises
    ------
    OptionError
        If ``format`` is not one of :data:`FORMATS`, or a caption or label is given for
        another format than LaTeX.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
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
    if format == "latex":
        return render_latex(report, show_p, caption=caption, label=label)
    if caption is not None or label is not None:
        raise OptionError(f"a caption or label applies to LaTeX; the format is {format}")
    return renderer(report, show_p)
