"""The comparison as a LaTeX (booktabs) table, ready for a paper."""

from __future__ import annotations

from rankscope.compare import ComparisonReport
from rankscope.report.compare._cells import (
    DAGGER,
    Cell,
    Section,
    footnote,
    p_equals,
    pairwise_sections,
    provenance_lines,
    run_label,
    table_grid,
)

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


def _latex_cell(cell: Cell, show_p: bool) -> str:
    text = rf"\textbf{{{cell.value}}}" if cell.best else cell.value
    if cell.significant:
        text += r"$^{\dagger}$"
    if cell.letters:
        text += rf"\textsuperscript{{{cell.letters}}}"
    if show_p and cell.row is not None:
        text += rf" {{\scriptsize(${p_equals(cell.row.corrected_p_value)}$)}}"
    return text


def _latex_text(text: str) -> str:
    return latex_escape(text).replace(DAGGER, r"$^{\dagger}$").replace("±", r"$\pm$")


def _section(section: Section) -> list[str]:
    """A section of the pairwise report: a small title, then a booktabs tabular."""
    columns = "".join("r" if numeric else "l" for numeric in section.numeric)
    return [
        "",
        r"  \medskip",
        rf"  {{\small {_latex_text(section.title)}\par}}",
        r"  \resizebox{\ifdim\width>\columnwidth\columnwidth\else\width\fi}{!}{%",
        rf"  \begin{{tabular}}{{@{{}}{columns}@{{}}}}",
        r"    \toprule",
        "    " + " & ".join(_latex_text(cell) for cell in section.header) + r" \\",
        r"    \midrule",
        *("    " + " & ".join(_latex_text(cell) for cell in row) + r" \\" for row in section.rows),
        r"    \bottomrule",
        r"  \end{tabular}}",
    ]


def default_caption(report: ComparisonReport) -> str:
    """``dense and splade compared with the baseline bm25 (50 queries).``"""
    if report.comparison.pairwise:
        names = report.aligned.names
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        pairs = len({(row.baseline, row.system) for row in report.comparison.rows})
        queries = len(report.aligned.query_ids)
        return f"{pairs} pairs of {listed} compared ({queries} queries)."
    systems = report.aligned.systems
    listed = ", ".join(systems[:-1]) + (" and " if len(systems) > 1 else "") + systems[-1]
    queries = len(report.aligned.query_ids)
    return f"{listed} compared with the baseline {report.baseline} ({queries} queries)."


DEFAULT_LABEL = "tab:comparison"


def render_latex(
    report: ComparisonReport,
    show_p: bool = False,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""A booktabs table in a ``table`` float, best values bold, the footnote under it.

    The tabular is scaled down to ``\columnwidth`` when it is wider (never up), so that it
    fits a column of a two-column paper. The caption and label default to a sentence naming
    the runs and ``tab:comparison``; the caption is escaped, the label is taken as given. What
    produced the table is written in comments above it. Needs ``\usepackage{booktabs}`` and
    ``\usepackage{graphicx}`` in the preamble.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> report = build_report(base, [other], names=["bm25", "dense"], test="randomization")
    >>> print(render_latex(report, label="tab:rr"), end="")  # doctest: +ELLIPSIS
    % rankscope compare; needs \usepackage{booktabs} and \usepackage{graphicx}
    \begin{table}[tbp]
      \centering
      \caption{dense compared with the baseline bm25 (8 queries).}
      \label{tab:rr}
      \resizebox{\ifdim\width>\columnwidth\columnwidth\else\width\fi}{!}{%
      \begin{tabular}{@{}lr@{}}
        \toprule
        Run & RR \\
        \midrule
        bm25 (baseline) & 0.5000 \\
        dense & \textbf{1.0000}$^{\dagger}$ \\
        \bottomrule
      \end{tabular}}
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
        [run_label(report, name, latex_escape), *(_latex_cell(c, show_p) for c in cells)]
        for name, cells in table_grid(report)
    ]
    full = footnote(report)
    mark = r"$^{\dagger}$\," if full.startswith(DAGGER) else ""
    sentence = full.removeprefix(DAGGER).strip()
    note = latex_escape(sentence[:1].upper() + sentence[1:])
    note = note.replace("≤", r"$\le$")
    title = latex_escape(default_caption(report) if caption is None else caption)
    # A comment ends at the line's end: keep each provenance line on one line.
    stamp = ["% " + line.replace("\n", " ") for line in provenance_lines(report)]
    body = [
        r"% rankscope compare; needs \usepackage{booktabs} and \usepackage{graphicx}",
        *stamp,
        r"\begin{table}[tbp]",
        r"  \centering",
        rf"  \caption{{{title}}}",
        rf"  \label{{{DEFAULT_LABEL if label is None else label}}}",
        r"  \resizebox{\ifdim\width>\columnwidth\columnwidth\else\width\fi}{!}{%",
        rf"  \begin{{tabular}}{{@{{}}{columns}@{{}}}}",
        r"    \toprule",
        "    " + " & ".join(header) + r" \\",
        r"    \midrule",
        *("    " + " & ".join(cells) + r" \\" for cells in rows),
        r"    \bottomrule",
        r"  \end{tabular}}",
        "",
        r"  \smallskip",
        rf"  {{\footnotesize {mark}{note}\par}}",
        *(line for section in pairwise_sections(report) for line in _section(section)),
        r"\end{table}",
    ]
    return "\n".join(body) + "\n"
