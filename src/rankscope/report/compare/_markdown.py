"""The comparison as a GitHub-flavoured Markdown table."""

from __future__ import annotations

import re

from rankscope.compare import ComparisonReport
from rankscope.report.compare._cells import (
    DAGGER,
    Cell,
    Section,
    footnotes,
    p_equals,
    pairwise_sections,
    provenance_lines,
    run_label,
    table_grid,
)


def _markdown_escape(text: str) -> str:
    return re.sub(r"([\\|*_`\[\]<>#])", r"\\\1", text)


def _markdown_cell(cell: Cell, show_p: bool) -> str:
    text = f"**{cell.value}**" if cell.best else cell.value
    if cell.significant:
        text += DAGGER
    if cell.letters:
        text += f" <sup>{cell.letters}</sup>"
    if show_p and cell.row is not None:
        text += f" ({p_equals(cell.row.corrected_p_value)})"
    return text


def render_markdown(report: ComparisonReport, show_p: bool = False) -> str:
    """A GitHub-flavoured Markdown table, best values in bold, then the footnote.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
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
        [run_label(report, name, _markdown_escape), *(_markdown_cell(c, show_p) for c in cells)]
        for name, cells in table_grid(report)
    ]
    lines = ["| " + " | ".join(cells) + " |" for cells in [header, align, *rows]]
    notes = [_markdown_escape(note) for note in footnotes(report)]
    notes += [line for section in pairwise_sections(report) for line in markdown_section(section)]
    # One paragraph, a line per item (a backslash ends a line in CommonMark).
    stamp = [_markdown_escape(line) for line in provenance_lines(report)]
    provenance = ["", "\\\n".join(stamp)] if stamp else []
    # The footnote starts with the dagger, which needs no escaping; keep it readable.
    return "\n".join([*lines, "", *notes, *provenance]) + "\n"


def markdown_section(section: Section) -> list[str]:
    """A section of the pairwise report: a bold title, then its table."""
    align = ["---:" if numeric else "---" for numeric in section.numeric]
    rows = [[_markdown_escape(cell) for cell in row] for row in [section.header, *section.rows]]
    table = ["| " + " | ".join(cells) + " |" for cells in [rows[0], align, *rows[1:]]]
    return ["", f"**{_markdown_escape(section.title)}**", "", *table]
