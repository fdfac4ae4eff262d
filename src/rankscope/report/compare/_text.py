"""The comparison as plain text (what the terminal table prints when piped) and as a rich table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope.compare import ComparisonReport
from rankscope.errors import MissingDependencyError
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

if TYPE_CHECKING:
    from rich.console import Group


# " p=0.012" and " p<0.001" have the same width, so the numbers above them can line up.
_P_WIDTH = len(" p=0.000")


def _plain_cell(cell: Cell, show_p: bool, letters_width: int = 0) -> str:
    text = cell.value + (DAGGER if cell.significant else " ")
    if letters_width:
        text += cell.letters.ljust(letters_width)
    if show_p:
        text += " " * _P_WIDTH if cell.row is None else " " + p_equals(cell.row.corrected_p_value)
    return text


def aligned_lines(header: list[str], rows: list[list[str]], numeric: list[bool]) -> list[str]:
    """Columns padded to their widest cell: text to the left, numbers to the right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, numeric, strict=True)
        ).rstrip()
        for cells in [header, *rows]
    ]


def section_lines(section: Section) -> list[str]:
    """A section of the pairwise report as a title and an aligned table."""
    return [
        section.title + ":",
        *aligned_lines(
            list(section.header), [list(row) for row in section.rows], list(section.numeric)
        ),
    ]


def render_text(report: ComparisonReport, show_p: bool = False) -> str:
    """A plain, aligned text table with the footnote (what the terminal table prints when piped).

    Plain text has no bold: the best values are marked only in :func:`rich_table`.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
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
    grid = table_grid(report)
    measures = report.comparison.measures
    letters = [max(len(cells[i].letters) for _, cells in grid) for i in range(len(measures))]
    # Headers end where the numbers do, before the dagger (and p-value) slot.
    pads = [" " * (1 + width + (_P_WIDTH if show_p else 0)) for width in letters]
    header = ["run", *(measure + pad for measure, pad in zip(measures, pads, strict=True))]
    rows = [
        [
            run_label(report, name, str),
            *(_plain_cell(cell, show_p, width) for cell, width in zip(cells, letters, strict=True)),
        ]
        for name, cells in grid
    ]
    lines = aligned_lines(header, rows, [False, *([True] * len(measures))])
    sections = [
        line for section in pairwise_sections(report) for line in ["", *section_lines(section)]
    ]
    stamp = provenance_lines(report)
    if sections and stamp:
        stamp = ["", *stamp]
    return "\n".join([*lines, "", *footnotes(report, bold=False), *sections, *stamp]) + "\n"


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
    grid = table_grid(report)
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
        styled = [
            Text(run_label(report, name, str), style="dim" if name == report.baseline else "")
        ]
        for cell, width in zip(cells, widths, strict=True):
            text = Text(cell.value.rjust(width), style="bold" if cell.best else "")
            text.append(DAGGER if cell.significant else " ", style="bold green")
            if cell.letters:
                text.append(cell.letters, style="cyan")
            if show_p and cell.row is not None:
                text.append(" " + p_equals(cell.row.corrected_p_value), style="dim")
            styled.append(text)
        table.add_row(*styled)
    sections = [
        line for section in pairwise_sections(report) for line in ["", *section_lines(section)]
    ]
    notes = Text("\n".join([*footnotes(report), *sections, *provenance_lines(report)]), style="dim")
    return Group(table, Text(""), notes)
