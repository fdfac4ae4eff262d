"""The discriminative power of measures: a table per format, and in HTML the achieved
significance level curves."""

from __future__ import annotations

import json

from rankscope.compare import PowerReport
from rankscope.errors import OptionError
from rankscope.report.compare._cells import CORRECTION_LABELS, TEST_LABELS, Section, format_p
from rankscope.report.compare._charts import asl_chart, esc

POWER_FORMATS = ("table", "markdown", "latex", "json", "html")


def power_section(report: PowerReport) -> Section:
    """One row per measure: the pairs, how many are significant, the power, the median ASL."""
    rows = []
    for power in report.power.measures:
        median = power.asl[len(power.asl) // 2]
        rows.append(
            (
                power.measure,
                str(power.pairs),
                str(power.significant),
                f"{power.power:.1%}",
                format_p(median),
            )
        )
    return Section(
        "Discriminative power",
        ("measure", "pairs", "significant", "power", "median ASL"),
        tuple(rows),
        (False, True, True, True, True),
    )


def power_note(report: PowerReport) -> str:
    """What the numbers are: the test, its adjustment, the level, the runs and queries."""
    power = report.power
    aligned = report.aligned
    return (
        f"Share of the pairs of {len(aligned.names)} runs that differ significantly "
        f"({TEST_LABELS[power.test]}, {CORRECTION_LABELS[power.correction]}, "
        f"α = {power.alpha:g}; {len(aligned.query_ids)} queries). ASL: achieved significance "
        "level (adjusted p-value) of a pair."
    )


def render_power(report: PowerReport, format: str = "table") -> str:
    """``report`` in one of :data:`POWER_FORMATS`.

    Raises
    ------
    OptionError
        If ``format`` is not one of them.

    Examples
    --------
    >>> from rankscope.compare import align_values, power_report
    >>> values = [{f"q{i}": {"AP": 0.1 * i + 0.1 * k} for i in range(6)} for k in range(3)]
    >>> report = power_report(align_values(["a", "b", "c"], ["AP"], values), n_resamples=999)
    >>> print(render_power(report), end="")  # doctest: +ELLIPSIS
    measure  pairs  significant  power  median ASL
    AP           3            1  33.3%       0.233
    <BLANKLINE>
    Share of the pairs of 3 runs that differ significantly (randomized Tukey HSD test, ...
    """
    from rankscope.report.compare._latex import latex_escape
    from rankscope.report.compare._markdown import markdown_section
    from rankscope.report.compare._text import aligned_lines

    section = power_section(report)
    note = power_note(report)
    stamp = [] if report.provenance is None else report.provenance.lines()
    if format == "table":
        lines = aligned_lines(
            list(section.header), [list(row) for row in section.rows], list(section.numeric)
        )
        return "\n".join([*lines, "", note, *stamp]) + "\n"
    if format == "markdown":
        return "\n".join([*markdown_section(section)[3:], "", note]) + "\n"
    if format == "latex":
        columns = "".join("r" if numeric else "l" for numeric in section.numeric)
        latex_note = latex_escape(note).replace("α", r"$\alpha$")
        body = [
            r"\begin{table}[tbp]",
            r"  \centering",
            r"  \caption{Discriminative power of the measures.}",
            rf"  \begin{{tabular}}{{@{{}}{columns}@{{}}}}",
            r"    \toprule",
            "    " + " & ".join(section.header) + r" \\",
            r"    \midrule",
            *(
                "    " + " & ".join(latex_escape(cell) for cell in row) + r" \\"
                for row in section.rows
            ),
            r"    \bottomrule",
            r"  \end{tabular}",
            rf"  {{\footnotesize {latex_note}\par}}",
            r"\end{table}",
        ]
        return "\n".join(body) + "\n"
    if format == "json":
        return render_power_json(report)
    if format == "html":
        return render_power_html(report)
    raise OptionError(
        f"unknown output format {format!r}; expected one of {', '.join(POWER_FORMATS)}"
    )


def render_power_json(report: PowerReport) -> str:
    """Every measure's power with its ASL curve, as JSON."""
    power = report.power
    payload = {
        "test": power.test,
        "correction": power.correction,
        "alpha": power.alpha,
        "n_resamples": power.n_resamples,
        "seed": power.seed,
        "runs": list(report.aligned.names),
        "queries": len(report.aligned.query_ids),
        "measures": [
            {
                "measure": m.measure,
                "pairs": m.pairs,
                "significant": m.significant,
                "power": m.power,
                "asl": list(m.asl),
            }
            for m in power.measures
        ],
        "provenance": None if report.provenance is None else report.provenance.to_dict(),
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def render_power_html(report: PowerReport) -> str:
    """A self-contained page: the power table and the ASL curves (no script)."""
    from rankscope.report.compare._html import page

    section = power_section(report)
    head = "".join(f"<th>{esc(cell)}</th>" for cell in section.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in section.rows
    )
    curves = [(m.measure, m.asl) for m in report.power.measures]
    content = (
        f'<section id="power"><h2>Discriminative power</h2>'
        f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        f'<p class="footnote">{esc(power_note(report))}</p>'
        "<figure><figcaption>Achieved significance level curves (Sakai 2006): lower and "
        "longer below α is more discriminative</figcaption>"
        f"{asl_chart(curves, report.power.alpha)}</figure></section>"
    )
    runs = ", ".join(report.aligned.names)
    stamp = [] if report.provenance is None else report.provenance.lines()
    from rankscope import __version__

    power = report.power
    meta = (
        f"{len(report.aligned.names)} runs · {len(report.aligned.query_ids)} queries · "
        f"{TEST_LABELS[power.test]} · α = {power.alpha:g} · rankscope {__version__}"
    )
    return page(
        f"rankscope: discriminative power of {', '.join(report.aligned.measures)}",
        f"Discriminative power over {esc(runs)}",
        esc(meta),
        stamp,
        content,
    )
