"""Render an `Explanation` (`rankscope.explain`): plain text, Markdown, JSON.

Numbers are printed to four decimals, as the command line prints measures; a change too small
for that is printed in scientific notation rather than as a misleading ``+0.0000``. The text
has no blank lines (each section starts at the margin, its lines indented), so that it reads
as one block in a terminal, a log or a doctest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankscope.explain import Against, Contribution, Explanation, Match, Pair

__all__ = [
    "EXPLAIN_FORMATS",
    "explanation_dict",
    "render_explanation",
    "render_json",
    "render_markdown",
    "render_text",
]

SHOWN_QUERIES = 3
"""How many queries a line of the text and Markdown reports names."""


def _value(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "nan"
    return f"{value:.4f}"


def _change(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isnan(value):
        return "nan"
    if value != 0 and abs(value) < 5e-5:
        return f"{value:+.1e}"
    return f"{value:+.4f}"


def _share(value: float) -> str:
    return "-" if math.isnan(value) else f"{value + 0.0:.0%}"  # no "-0%"


def _queries(changes: Sequence[tuple[str, float]]) -> str:
    shown = ", ".join(f"{q} {_change(v)}" for q, v in changes[:SHOWN_QUERIES])
    return shown + (", ..." if len(changes) > SHOWN_QUERIES else "")


def _clean(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else value


def _table(
    header: list[str],
    rows: list[list[str]],
    markdown: bool,
    numeric_from: int,
    numeric_to: int | None = None,
) -> str:
    """Columns ``numeric_from`` up to ``numeric_to`` (excluded; None: the last) right-aligned."""
    last = len(header) if numeric_to is None else numeric_to

    def left(i: int) -> bool:
        return i < numeric_from or i >= last

    if markdown:
        align = ["---" if left(i) else "---:" for i in range(len(header))]
        return "".join("| " + " | ".join(cells) + " |\n" for cells in [header, align, *rows])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for cells in [header, *rows]:
        padded = [
            cell.ljust(width) if left(i) else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append("  " + "  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"


def _pair_lines(pair: Pair, markdown: bool) -> list[str]:
    title = (
        f"{pair.first} -> {pair.second}: {_change(pair.difference)} in the mean; "
        f"{len(pair.queries)} of {pair.compared} queries differ"
    )
    lines = [f"### {title}\n" if markdown else title + "\n"]
    if pair.queries:
        most = ", ".join(
            f"{q} {_value(a)} -> {_value(b)}" for q, a, b in pair.queries[:SHOWN_QUERIES]
        )
        lines.append(f"{'' if markdown else '  '}most: {most}\n")
    header = ["convention", pair.first, pair.second, "walk", "share", "alone", "last", "queries"]
    rows = []
    idle = [c.convention for c in pair.contributions if not _moves(c)]
    for c in pair.contributions:
        if not _moves(c):
            continue
        name = c.convention + (f" (with {', '.join(c.merged_with)})" if c.merged_with else "")
        rows.append(
            [
                name,
                c.first,
                c.second,
                _change(c.walk),
                _share(c.share),
                _change(c.alone),
                _change(c.last),
                _queries(c.queries),
            ]
        )
    rows.append(["unexplained", "", "", _change(pair.unexplained), _share(_part(pair)), "", "", ""])
    lines.append(("\n" if markdown else "") + _table(header, rows, markdown, 3, 7))
    indent = "" if markdown else "  "
    if idle:
        lines.append(f"{chr(10) if markdown else ''}{indent}no effect here: {', '.join(idle)}\n")
    if pair.interactions:
        said = "; ".join(
            f"{' and '.join(i.conventions)} interact ({_change(i.amount)} beyond their effects "
            "alone)"
            for i in pair.interactions
        )
        lines.append(f"{chr(10) if markdown and not idle else ''}{indent}{said}\n")
    return lines


def _moves(contribution: Contribution) -> bool:
    """Whether switching the convention changes the measure in any of the three views."""
    return any(
        value is None or value != 0
        for value in (contribution.walk, contribution.alone, contribution.last)
    ) or bool(contribution.queries)


def _part(pair: Pair) -> float:
    if pair.difference == 0 or math.isnan(pair.difference):
        return math.nan
    return pair.unexplained / pair.difference


def _match_row(match: Match) -> list[str]:
    mean = "-" if match.mean_matches is None else "yes" if match.mean_matches else "no"
    disagreeing = ", ".join(
        f"{q} {_value(ours)} vs {_value(theirs)}" for q, ours, theirs in match.disagreeing[:3]
    )
    if match.error is not None:
        disagreeing = match.error
    return [
        match.label,
        f"{match.matched}/{match.compared}",
        _value(match.mean),
        mean,
        str(match.only_reported),
        disagreeing,
    ]


def _against_lines(against: Against, markdown: bool) -> list[str]:
    title = (
        f"Against {against.source} ({against.format}, {against.name} to {against.decimals} "
        "decimals" + (f", mean {_value(against.mean)}" if against.mean is not None else "") + ")"
    )
    lines = [f"## {title}\n\n" if markdown else title + "\n"]
    header = ["configuration", "queries equal", "mean", "mean equal", "only theirs", "differ"]
    rows = [_match_row(m) for m in against.profiles]
    rows += [_match_row(m) for m in against.reproduced_by if m.changes]
    if against.best is not None and against.best.changes:
        rows.append(_match_row(against.best))
    lines.append(_table(header, rows, markdown, 1, 5))
    indent = "" if markdown else "  "
    if against.reproduced_by:
        names = "; ".join(m.label for m in against.reproduced_by)
        lines.append(f"{'' if not markdown else chr(10)}{indent}reproduced by: {names}\n")
    else:
        best = against.best
        assert best is not None
        lines.append(
            f"{chr(10) if markdown else ''}{indent}no configuration tried reproduces it; closest: "
            f"{best.label} ({best.matched}/{best.compared} queries); unexplained: "
            + (
                ", ".join(f"{q} {_value(o)} vs {_value(t)}" for q, o, t in against.unexplained)
                or "the mean"
            )
            + "\n"
        )
    return lines


def _render(explanation: Explanation, markdown: bool) -> str:
    lines = []
    profiles, queries = len(explanation.profiles), explanation.queries
    heading = (
        f"{explanation.measure} under {profiles} profile{'' if profiles == 1 else 's'} "
        f"({queries} quer{'y' if queries == 1 else 'ies'})"
    )
    lines.append(f"# {heading}\n\n" if markdown else heading + "\n")
    rows = [
        [v.profile, _value(v.mean), str(len(v.per_query)), v.error or ""]
        if v.error is None
        else [v.profile, "-", "-", f"not computed: {v.error}"]
        for v in explanation.profiles
    ]
    notes = any(v.error is not None for v in explanation.profiles)
    header = ["profile", "mean", "queries", *(["note"] if notes else [])]
    lines.append(_table(header, [row[: len(header)] for row in rows], markdown, 1, 3))
    gap = "\n" if markdown else ""  # text: sections start at the margin, their lines indented
    if not explanation.pairs and len(explanation.profiles) > 1:
        lines.append(f"{gap or '  '}every profile gives the same values\n")
    for pair in explanation.pairs:
        lines.append(gap)
        lines += _pair_lines(pair, markdown)
    lines.append(gap + ("## Causes in the data\n\n" if markdown else "Causes in the data\n"))
    if not explanation.findings:
        lines.append(f"{'' if markdown else '  '}none found\n")
    for finding in explanation.findings:
        bears = f" [{', '.join(finding.bears_on)}]" if finding.bears_on else ""
        examples = f" (e.g. {'; '.join(finding.examples)})" if finding.examples else ""
        lines.append(f"{'- ' if markdown else '  - '}{finding.summary}{examples}{bears}\n")
    if explanation.against is not None:
        lines.append(gap)
        lines += _against_lines(explanation.against, markdown)
    return "".join(lines)


def render_text(explanation: Explanation) -> str:
    """The explanation as plain text: the profiles' means, each pair's table of
    contributions, the causes in the data, the match against another tool."""
    return _render(explanation, markdown=False)


def render_markdown(explanation: Explanation) -> str:
    """The explanation as GitHub-flavoured Markdown."""
    return _render(explanation, markdown=True)


def _match_dict(match: Match) -> dict[str, Any]:
    return {
        "profile": match.profile,
        "changes": dict(match.changes),
        "label": match.label,
        "reproduces": match.reproduces,
        "matched": match.matched,
        "compared": match.compared,
        "mean": _clean(match.mean),
        "mean_matches": match.mean_matches,
        "disagreeing": [
            {"query_id": q, "ours": _clean(o), "theirs": _clean(t)} for q, o, t in match.disagreeing
        ],
        "only_theirs": match.only_reported,
        "only_ours": match.only_ours,
        "error": match.error,
    }


def explanation_dict(explanation: Explanation) -> dict[str, Any]:
    """The explanation as plain values: what `render_json` writes."""
    pairs = []
    for pair in explanation.pairs:
        pairs.append(
            {
                "first": pair.first,
                "second": pair.second,
                "difference": _clean(pair.difference),
                "compared": pair.compared,
                "queries": [
                    {"query_id": q, pair.first: _clean(a), pair.second: _clean(b)}
                    for q, a, b in pair.queries
                ],
                "steps": [
                    {
                        "conventions": [
                            {"convention": n, "from": a, "to": b} for n, a, b in step.conventions
                        ],
                        "change": _clean(step.change),
                        "per_query": dict(step.per_query),
                    }
                    for step in pair.steps
                ],
                "contributions": [
                    {
                        "convention": c.convention,
                        pair.first: c.first,
                        pair.second: c.second,
                        "walk": _clean(c.walk),
                        "alone": _clean(c.alone),
                        "last": _clean(c.last),
                        "share": _clean(c.share),
                        "interacts": c.interacts,
                        "merged_with": list(c.merged_with),
                        "queries": dict(c.queries),
                    }
                    for c in pair.contributions
                ],
                "interactions": [
                    {"conventions": list(i.conventions), "amount": i.amount}
                    for i in pair.interactions
                ],
                "unexplained": _clean(pair.unexplained),
                "unexplained_queries": dict(pair.unexplained_queries),
            }
        )
    document: dict[str, Any] = {
        "measure": explanation.measure,
        "queries": explanation.queries,
        "options": dict(explanation.options),
        "profiles": [
            {
                "profile": v.profile,
                "mean": _clean(v.mean),
                "per_query": {q: _clean(x) for q, x in v.per_query.items()},
                "error": v.error,
            }
            for v in explanation.profiles
        ],
        "pairs": pairs,
        "findings": [finding.to_dict() for finding in explanation.findings],
    }
    against = explanation.against
    if against is not None:
        document["against"] = {
            "source": against.source,
            "format": against.format,
            "name": against.name,
            "decimals": against.decimals,
            "mean": _clean(against.mean),
            "per_query": {q: _clean(v) for q, v in against.per_query.items()},
            "profiles": [_match_dict(m) for m in against.profiles],
            "reproduced_by": [_match_dict(m) for m in against.reproduced_by],
            "closest": None if against.best is None else _match_dict(against.best),
            "unexplained": [
                {"query_id": q, "ours": _clean(o), "theirs": _clean(t)}
                for q, o, t in against.unexplained
            ],
        }
    return document


def render_json(explanation: Explanation) -> str:
    """The explanation as JSON (NaN as null)."""
    return json.dumps(explanation_dict(explanation), indent=2) + "\n"


EXPLAIN_FORMATS: dict[str, Callable[[Explanation], str]] = {
    "text": render_text,
    "json": render_json,
    "md": render_markdown,
}
"""The formats of ``rankscope explain -f``."""


def render_explanation(explanation: Explanation, format: str) -> str:
    """The explanation in one of `EXPLAIN_FORMATS`."""
    return EXPLAIN_FORMATS[format](explanation)
