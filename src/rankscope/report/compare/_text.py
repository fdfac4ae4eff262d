"""The comparison as plain text (what the terminal table prints when piped) and as a rich table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope.compare import ComparisonReport
from rankscope.errors import MissingDependencyError
from rankscope.report.compare._cells import (
    DAGGER,
    Cell,
    footnotes,
    p_equals,
    provenance_lines,
    run_label,
    table_grid,
)

if TYPE_CHECKING:
    from rich.console import Group


# " p=0.012" and " p<0.001" have the same width, so the numbers above them can line up.
_P_WIDTH = len(" p=0.000")


def _plain_cell(cell: Cell, show_p: bool) -> str:
    text = cell.value + (DAGGER if cell.significant else " ")
    if show_p:
        text += " " * _P_WIDTH if cell.row is None else " " + p_equals(cell.row.corrected_p_value)
    return text


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
    # Headers end where the numbers do, before the dagger (and p-value) slot.
    pad = " " * (1 + (_P_WIDTH if show_p else 0))
    header = ["run", *(measure + pad for measure in report.comparison.measures)]
    rows = [
        [run_label(report, name, str), *(_plain_cell(cell, show_p) for cell in cells)]
        for name, cells in table_grid(report)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    lines = [line(cells) for cells in [header, *rows]]
    stamp = provenance_lines(report)
    return "\n".join([*lines, "", *footnotes(report, bold=False), *stamp]) + "\n"


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
            if show_p and cell.row is not None:
                text.append(" " + p_equals(cell.row.corrected_p_value), style="dim")
            styled.append(text)
        table.add_row(*styled)
    notes = Text("\n".join([*footnotes(report), *provenance_lines(report)]), style="dim")
    return Group(table, Text(""), notes)
