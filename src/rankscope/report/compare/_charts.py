"""The SVG charts of the HTML report, drawn here (no script, no network): per-query differences,
score distributions and confidence intervals."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

from rankscope.compare import ComparisonReport
from rankscope.compare._align import FloatArray
from rankscope.report.compare._cells import value_text

PALETTE = ("#2b6cb0", "#dd6b20", "#2f855a", "#805ad5", "#b83280", "#319795", "#975a16")
_BASELINE_COLOR = "#718096"
_METHOD_LABELS = {"bca": "BCa", "percentile": "percentile"}
_INTERVAL_KINDS = {
    "tukey": "simultaneous interval",
    "randomized-tukey": "simultaneous interval",
}
_GAIN_COLOR = "#2f855a"
_LOSS_COLOR = "#c53030"
_TIE_COLOR = "#a0aec0"
# Beyond this many queries the charts draw shapes without one element per query.
_PER_QUERY_ELEMENTS = 500


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def run_color(report: ComparisonReport, name: str) -> str:
    if name == report.baseline:
        return _BASELINE_COLOR
    return PALETTE[report.aligned.systems.index(name) % len(PALETTE)]


def _svg_open(width: int, height: int, label: str, css_class: str) -> str:
    return (
        f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}">'
        f"<title>{esc(label)}</title>"
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


def difference_chart(
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
                f"<title>query {esc(ids[i])}: {value:+.4f} "
                f"({value_text(base_value)} → {value_text(system_value)})</title></rect>"
            )
    else:
        points = " ".join(
            f"{left + (position + 0.5) * step:.2f},{y(float(differences[i])):.2f}"
            for position, i in enumerate(order)
        )
        zero = y(0.0)
        parts.append(
            f'<polygon points="{left:.2f},{zero:.2f} {points} {width - right:.2f},{zero:.2f}" '
            f'fill="{PALETTE[0]}" fill-opacity="0.45" stroke="{PALETTE[0]}" stroke-width="1"/>'
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


def distribution_chart(report: ComparisonReport, measure: str) -> str:
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
        color = run_color(report, name)
        shown_name = name if len(name) <= 16 else name[:15] + "…"
        parts.append(
            f'<text x="{left - 8}" y="{center + 4:.1f}" text-anchor="end">'
            f"{esc(shown_name)}<title>{esc(name)}</title></text>"
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
                    f'fill="{color}" fill-opacity="0.55"><title>query {esc(query)}: '
                    f"{value_text(float(value))}</title></circle>"
                )
        mean = float(scores.mean())
        mx = x(mean)
        parts.append(
            f'<path d="M{mx:.1f},{center - 6:.1f} L{mx + 5:.1f},{center:.1f} '
            f'L{mx:.1f},{center + 6:.1f} L{mx - 5:.1f},{center:.1f} Z" fill="#1a202c">'
            f"<title>{esc(name)}: mean {value_text(mean)}</title></path>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" text-anchor="middle">'
        f"{esc(measure)} per query (box: quartiles, line: median, ◆: mean)</text></svg>"
    )
    return "".join(parts)


def interval_chart(report: ComparisonReport, measure: str) -> str:
    """Per system (or per pair, when pairs were compared): the mean difference with its
    confidence interval, and the zero line."""
    comparison = report.comparison
    if comparison.pairwise:
        rows = [row for row in comparison.rows if row.measure == measure]
    else:
        rows = [comparison.row(system, measure) for system in report.aligned.systems]
    pairwise = comparison.pairwise
    row_h, left, right, top, bottom = 30, 160 if pairwise else 120, 14, 8, 30
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
    against = "between the pairs" if pairwise else f"from {report.baseline}"
    label = f"Mean difference in {measure} {against}, {level:.0%} intervals"
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
        color = run_color(report, row.system)
        ci = row.difference_ci
        name = f"{row.system} − {row.baseline}" if pairwise else row.system
        limit = 24 if pairwise else 16
        shown_name = name if len(name) <= limit else name[: limit - 1] + "…"
        parts.append(
            f'<text x="{left - 8}" y="{center + 4:.1f}" text-anchor="end">{esc(shown_name)}'
            f"<title>{esc(name)}</title></text>"
            f'<line x1="{x(ci.low):.1f}" x2="{x(ci.high):.1f}" y1="{center:.1f}" '
            f'y2="{center:.1f}" stroke="{color}" stroke-width="2.5"/>'
            f'<line x1="{x(ci.low):.1f}" x2="{x(ci.low):.1f}" y1="{center - 6:.1f}" '
            f'y2="{center + 6:.1f}" stroke="{color}" stroke-width="2"/>'
            f'<line x1="{x(ci.high):.1f}" x2="{x(ci.high):.1f}" y1="{center - 6:.1f}" '
            f'y2="{center + 6:.1f}" stroke="{color}" stroke-width="2"/>'
            f'<circle cx="{x(row.test.mean_difference):.1f}" cy="{center:.1f}" r="4.5" '
            f'fill="{color if row.significant else "#fff"}" stroke="{color}" stroke-width="2">'
            f"<title>{esc(name)}: {row.test.mean_difference:+.4f} "
            f"[{ci.low:+.4f}, {ci.high:+.4f}]</title></circle>"
        )
    kind = _INTERVAL_KINDS.get(method, f"{method} bootstrap interval")
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 2}" text-anchor="middle">'
        f"mean difference {esc(against)} ({level:.0%} {kind}; filled: significant)</text></svg>"
    )
    return "".join(parts)


def asl_chart(curves: Sequence[tuple[str, Sequence[float]]], alpha: float) -> str:
    """Achieved significance level curves (Sakai 2006): per measure, the p-values of every
    system pair in ascending order; the level ``alpha`` as a dashed line."""
    width, height = 540, 260
    left, right, top, bottom = 46, 120, 10, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    n = max(len(asl) for _, asl in curves)

    def x(position: int) -> float:
        return left + (position + 0.5) / n * plot_w

    def y(value: float) -> float:
        return top + (1.0 - value) * plot_h

    parts = [_svg_open(width, height, "Achieved significance level per system pair", "asl-chart")]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="#edf2f7"/><text x="{left - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:g}</text>'
        )
    parts.append(
        f'<line x1="{left}" x2="{left + plot_w}" y1="{y(alpha):.1f}" y2="{y(alpha):.1f}" '
        f'stroke="#c53030" stroke-dasharray="4 3"/><text x="{left + plot_w + 4}" '
        f'y="{y(alpha) + 4:.1f}">α = {alpha:g}</text>'
    )
    for index, (measure, asl) in enumerate(curves):
        color = PALETTE[index % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(float(p)):.1f}" for i, p in enumerate(asl))
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2">'
            f"<title>{esc(measure)}</title></polyline>"
            f'<text x="{left + plot_w + 4}" y="{top + 14 + 14 * index}" style="fill:{color}">'
            f"{esc(measure)}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        f"{n} system pairs, sorted by achieved significance level</text></svg>"
    )
    return "".join(parts)
