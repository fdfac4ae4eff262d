"""The comparison as a LaTeX (booktabs) table, ready for a paper."""

from __future__ import annotations

from rankscope.report.compare._cells import DAGGER, Cell, footnote, p_equals, run_label, table_grid
from rankscope.report.compare_inputs import ComparisonReport

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
    if show_p and cell.row is not None:
        text += rf" {{\scriptsize(${p_equals(cell.row.corrected_p_value)}$)}}"
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
        [run_label(report, name, latex_escape), *(_latex_cell(c, show_p) for c in cells)]
        for name, cells in table_grid(report)
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
