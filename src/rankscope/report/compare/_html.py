"""The comparison as one self-contained HTML page (and the summary table Jupyter shows)."""

from __future__ import annotations

import math

from rankscope.compare import ComparisonReport, largest_differences
from rankscope.report.compare._cells import (
    CORRECTION_LABELS,
    DAGGER,
    LARGEST_SHOWN,
    TEST_LABELS,
    Cell,
    Section,
    anova_section,
    corrected_label,
    footnote,
    format_p,
    p_equals,
    provenance_lines,
    run_label,
    table_grid,
    value_text,
)
from rankscope.report.compare._charts import (
    difference_chart,
    distribution_chart,
    esc,
    interval_chart,
    run_color,
)

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
.provenance { color: #4a5568; font-size: 12.5px; margin: 4px 0 6px; }
.provenance ul { margin: 4px 0; padding-left: 18px; }
sup.cld { color: #2b6cb0; font-weight: 600; margin-left: 2px; }
table.matrix td { text-align: center; min-width: 70px; }
table.matrix td .d { display: block; font-size: 12px; }
table.matrix td .p { display: block; font-size: 11px; color: #4a5568; }
"""

# The summary table shown inline (Jupyter): only what it needs, scoped to its own class.
_SUMMARY_CSS = """
.rankscope-summary table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.rankscope-summary th, .rankscope-summary td { padding: 3px 10px; text-align: right;
  white-space: nowrap; }
.rankscope-summary th:first-child, .rankscope-summary td:first-child { text-align: left; }
.rankscope-summary thead th { border-bottom: 1px solid currentColor; }
.rankscope-summary td .p { display: block; font-size: 85%; opacity: 0.7; }
.rankscope-summary .sig { color: #2f855a; font-weight: 600; }
.rankscope-summary .swatch { display: inline-block; width: 10px; height: 10px;
  border-radius: 2px; margin-right: 5px; }
.rankscope-summary .footnote { font-size: 90%; opacity: 0.8; }
.rankscope-summary sup.cld { font-weight: 600; margin-left: 2px; }
.rankscope-summary summary { cursor: pointer; margin-top: 6px; }
.rankscope-summary thead tr:first-child th[colspan] { text-align: center; }
"""


def _html_cell(cell: Cell) -> str:
    text = f"<strong>{cell.value}</strong>" if cell.best else cell.value
    if cell.letters:
        text += f'<sup class="cld" title="compact letter display">{esc(cell.letters)}</sup>'
    if cell.row is not None:
        if cell.significant:
            text += f'<span class="sig" title="significant">{DAGGER}</span>'
        text += f'<span class="p">{esc(p_equals(cell.row.corrected_p_value))}</span>'
    return text


def _summary_table(report: ComparisonReport) -> str:
    comparison = report.comparison
    head = "".join(f"<th>{esc(m)}</th>" for m in comparison.measures)
    body = []
    for name, cells in table_grid(report):
        css = ' class="baseline"' if name == report.baseline else ""
        swatch = f'<span class="swatch" style="background:{run_color(report, name)}"></span>'
        tds = "".join(f"<td>{_html_cell(cell)}</td>" for cell in cells)
        body.append(f"<tr{css}><td>{swatch}{run_label(report, name, esc)}</td>{tds}</tr>")
    p_name = corrected_label(comparison.correction)
    under = (
        ""
        if comparison.pairwise
        else f" Under each system’s value: the {esc(p_name)}-value of its difference from the "
        "baseline."
    )
    return (
        f'<table class="summary"><thead><tr><th>run</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        f'<p class="footnote">{esc(footnote(report))}{under}</p>'
    )


def _statistics_table(report: ComparisonReport, measure: str) -> str:
    rows = [report.comparison.row(system, measure) for system in report.aligned.systems]
    level = rows[0].difference_ci.level
    corrected = report.comparison.correction != "none"
    p_header = "<th>p</th>" + (
        f"<th>{esc(corrected_label(report.comparison.correction))}</th>" if corrected else ""
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
            f"<tr><td>{esc(row.system)}</td><td>{value_text(row.system_mean)}</td>"
            f'<td class="{css}">{difference:+.4f}{mark}</td>'
            f"<td>[{row.difference_ci.low:+.4f}, {row.difference_ci.high:+.4f}]</td>"
            f"{p_cells}<td>{effect}</td><td>{wtl.wins} / {wtl.ties} / {wtl.losses}</td></tr>"
        )
    baseline_mean = value_text(rows[0].baseline_mean)
    return (
        f'<table class="stats"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'
        f'<p class="footnote">Baseline {esc(report.baseline)}: mean {baseline_mean}.</p>'
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
                f"<tr><td><code>{esc(entry.query_id)}</code></td>"
                f"<td>{value_text(float(base[position[entry.query_id]]))}</td>"
                f"<td>{value_text(float(scores[position[entry.query_id]]))}</td>"
                f'<td class="{css}">{entry.difference:+.4f}</td></tr>'
                for entry in entries
            )
            or '<tr><td colspan="4">none</td></tr>'
        )
        tables.append(
            f'<table class="{css}s"><caption style="text-align:left;font-weight:600">'
            f"{title}</caption><thead><tr><th>query</th><th>{esc(report.baseline)}</th>"
            f"<th>{esc(system)}</th><th>difference</th></tr></thead><tbody>{rows}</tbody>"
            "</table>"
        )
    return f'<div class="moves">{"".join(tables)}</div>'


def _section_table(section: Section, css: str) -> str:
    head = "".join(f"<th>{esc(cell)}</th>" for cell in section.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in section.rows
    )
    return (
        f"<h3>{esc(section.title)}</h3>"
        f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


def _pairs_table(report: ComparisonReport, measure: str) -> str:
    comparison = report.comparison
    rows = [row for row in comparison.rows if row.measure == measure]
    level = rows[0].difference_ci.level
    p_header = "<th>p</th>" + (
        f"<th>{esc(corrected_label(comparison.correction))}</th>"
        if comparison.correction != "none"
        else ""
    )
    effect = "effect (d)" if comparison.test not in ("tukey", "randomized-tukey") else "effect"
    head = (
        "<tr><th>pair</th><th>means</th><th>difference</th>"
        f"<th>{level:.0%} CI of difference</th>{p_header}<th>{effect}</th>"
        "<th>wins / ties / losses</th></tr>"
    )
    body = []
    for row in rows:
        difference = row.test.mean_difference
        css = "gain" if difference > 0 else "loss" if difference < 0 else ""
        mark = f'<span class="sig">{DAGGER}</span>' if row.significant else ""
        size = f"{row.effect_size:+.2f}" if math.isfinite(row.effect_size) else "–"
        p_cells = f"<td>{format_p(row.test.p_value)}</td>" + (
            f"<td>{format_p(row.corrected_p_value)}</td>" if comparison.correction != "none" else ""
        )
        wtl = row.win_tie_loss
        body.append(
            f"<tr><td>{esc(row.system)} − {esc(row.baseline)}</td>"
            f"<td>{value_text(row.system_mean)} − {value_text(row.baseline_mean)}</td>"
            f'<td class="{css}">{difference:+.4f}{mark}</td>'
            f"<td>[{row.difference_ci.low:+.4f}, {row.difference_ci.high:+.4f}]</td>"
            f"{p_cells}<td>{size}</td><td>{wtl.wins} / {wtl.ties} / {wtl.losses}</td></tr>"
        )
    return f'<table class="stats"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


def _matrix(report: ComparisonReport, measure: str) -> str:
    """Every pair as a cell: the row's mean minus the column's, and the adjusted p-value,
    shaded by significance."""
    analysis = report.comparison.analyses[measure]
    systems, means = analysis.systems, analysis.means
    matrix = analysis.p_value_matrix()
    head = "".join(f"<th>{esc(system)}</th>" for system in systems)
    body = []
    for i, system in enumerate(systems):
        cells = []
        for j in range(len(systems)):
            value = float(matrix[i, j])
            if i == j or math.isnan(value):
                cells.append("<td>–</td>" if i == j else "<td></td>")
                continue
            shade = (
                f"rgba(47,133,90,{0.15 + 0.6 * (1 - value / analysis.alpha):.2f})"
                if value <= analysis.alpha
                else "transparent"
            )
            cells.append(
                f'<td style="background:{shade}" title="{esc(system)} − {esc(systems[j])}">'
                f'<span class="d">{means[i] - means[j]:+.4f}</span>'
                f'<span class="p">{esc(p_equals(value))}</span></td>'
            )
        body.append(f"<tr><th>{esc(system)}</th>{''.join(cells)}</tr>")
    return (
        f"<h3>Pairwise matrix: row − column, {esc(corrected_label(analysis.correction))}-value"
        f'</h3><table class="matrix"><thead><tr><th></th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        f'<p class="footnote">Shaded: significant at α = {analysis.alpha:g}.</p>'
    )


def _pairwise_measure_section(report: ComparisonReport, index: int, measure: str) -> str:
    analysis = report.comparison.analyses[measure]
    level = f"{1 - analysis.alpha:.0%}"
    anova = anova_section(analysis.anova, measure, analysis.margin_of_error, level)
    letters = (
        ""
        if analysis.letters is None
        else '<p class="footnote">Letters: '
        + ", ".join(f"{esc(s)} <b>{esc(analysis.letters[s])}</b>" for s in analysis.systems)
        + f"; residual standard deviation √V<sub>E</sub> = {analysis.residual_std:.4f}.</p>"
    )
    charts = (
        "<figure><figcaption>Distribution of per-query scores</figcaption>"
        f"{distribution_chart(report, measure)}</figure>"
        "<figure><figcaption>Confidence intervals of the mean differences</figcaption>"
        f"{interval_chart(report, measure)}</figure>"
    )
    return (
        f'<section class="measure" id="measure-{index}" data-measure="{esc(measure)}">'
        f"<h2>{esc(measure)}</h2>{_pairs_table(report, measure)}{_matrix(report, measure)}"
        f'{letters}<div class="charts">{charts}</div>'
        f"{_section_table(anova, 'anova')}</section>"
    )


def _measure_section(report: ComparisonReport, index: int, measure: str) -> str:
    if report.comparison.pairwise:
        return _pairwise_measure_section(report, index, measure)
    aligned = report.aligned
    base = aligned.scores[report.baseline][measure]
    differences = "".join(
        f"<figure><figcaption>Per-query difference: {esc(system)} − "
        f"{esc(report.baseline)}</figcaption>"
        f"{difference_chart(report, system, measure, aligned.scores[system][measure] - base)}"
        "</figure>"
        for system in aligned.systems
    )
    spread = (
        "<figure><figcaption>Distribution of per-query scores</figcaption>"
        f"{distribution_chart(report, measure)}</figure>"
        "<figure><figcaption>Confidence intervals of the mean difference</figcaption>"
        f"{interval_chart(report, measure)}</figure>"
    )
    moves = "".join(
        f"<h3>Largest wins and losses of {esc(system)} against {esc(report.baseline)}</h3>"
        f"{_moves_table(report, system, measure)}"
        for system in aligned.systems
    )
    return (
        f'<section class="measure" id="measure-{index}" data-measure="{esc(measure)}">'
        f"<h2>{esc(measure)}</h2>{_statistics_table(report, measure)}"
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
    >>> from rankscope.compare import build_report
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
    heading = f"{esc(systems)} compared with {esc(report.baseline)}"
    intervals = (
        f"BCa bootstrap intervals at {1 - comparison.alpha:.0%} "
        f"({comparison.n_resamples:,} resamples, seed "
        f"{'none' if comparison.seed is None else comparison.seed})"
    )
    if comparison.pairwise:
        runs = ", ".join(aligned.names)
        title = f"rankscope: pairs of {runs}"
        heading = f"Pairs of {esc(runs)} compared"
        if comparison.test in ("tukey", "randomized-tukey"):
            intervals = f"simultaneous intervals at {1 - comparison.alpha:.0%}"
            if comparison.test == "randomized-tukey":
                intervals += (
                    f" ({comparison.n_resamples:,} rounds, seed "
                    f"{'none' if comparison.seed is None else comparison.seed})"
                )
    meta = (
        f"{len(aligned.query_ids)} queries{' (complete)' if aligned.complete else ''} · "
        f"{TEST_LABELS[comparison.test]} · {CORRECTION_LABELS[comparison.correction]} · "
        f"α = {comparison.alpha:g} · {intervals} · rankscope {__version__}"
    )
    nav = "".join(
        f'<a href="#measure-{i}">{esc(m)}</a>' for i, m in enumerate(comparison.measures, 1)
    )
    sections = "".join(_measure_section(report, i, m) for i, m in enumerate(comparison.measures, 1))
    content = (
        f'<section id="summary"><h2>Summary</h2>{_summary_table(report)}'
        f"<nav>Measures: {nav}</nav></section>{sections}"
    )
    return page(title, heading, esc(meta), provenance_lines(report), content, aligned.note())


def page(
    title: str,
    heading: str,
    meta: str,
    stamp: list[str],
    content: str,
    note: str | None = None,
) -> str:
    """A self-contained report page: ``heading`` and ``meta`` (HTML), the ``note`` and the
    provenance ``stamp`` (text) in its header, then ``content`` (HTML)."""
    provenance = (
        '<details class="provenance"><summary>How this report was made</summary><ul>'
        + "".join(f"<li>{esc(line)}</li>" for line in stamp)
        + "</ul></details>"
        if stamp
        else ""
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{esc(title)}</title>'
        f"<style>{_CSS}</style></head>\n<body><main>"
        f"<header><h1>{heading}</h1>"
        f'<p class="meta">{meta}</p>'
        + (f'<p class="note">{esc(note)}</p>' if note else "")
        + provenance
        + "</header>"
        f"{content}</main></body></html>\n"
    )


def summary_html(report: ComparisonReport) -> str:
    """The summary table and its footnote as an HTML fragment (what Jupyter shows for a
    `ComparisonReport`); :func:`render_html` is the whole page.

    Examples
    --------
    >>> import rankscope
    >>> from rankscope.compare import build_report
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> base = rankscope.evaluate(qrels, {f"q{i}": ["x", "a"] for i in range(8)}, "RR")
    >>> other = rankscope.evaluate(qrels, {f"q{i}": ["a"] for i in range(8)}, "RR")
    >>> fragment = build_report(base, [other], names=["bm25", "dense"])._repr_html_()
    >>> fragment.startswith('<div class="rankscope-summary">')
    True
    >>> "<strong>1.0000</strong>" in fragment
    True
    """
    return (
        f'<div class="rankscope-summary"><style>{_SUMMARY_CSS}</style>'
        f"{_summary_table(report)}{_per_query_details(report)}</div>"
    )


def _per_query_details(report: ComparisonReport) -> str:
    """Every run's score per compared query and measure, folded (a column per run under a
    heading per measure), rounded as the summary is."""
    aligned = report.aligned
    measures = report.comparison.measures
    names = aligned.names
    top = "".join(f'<th colspan="{len(names)}">{esc(m)}</th>' for m in measures)
    runs = "".join(f"<th>{esc(name)}</th>" for _ in measures for name in names)
    columns = [aligned.scores[name][m].tolist() for m in measures for name in names]
    body = "".join(
        f"<tr><td>{esc(query_id)}</td>"
        + "".join(f"<td>{value_text(column[row])}</td>" for column in columns)
        + "</tr>"
        for row, query_id in enumerate(aligned.query_ids)
    )
    return (
        f"<details><summary>per query ({len(aligned.query_ids)} queries)</summary>"
        f'<table class="per-query"><thead><tr><th></th>{top}</tr><tr><th>query</th>{runs}'
        f"</tr></thead><tbody>{body}</tbody></table></details>"
    )
