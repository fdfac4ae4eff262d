"""Render evaluation results: a terminal table, JSON, CSV, Markdown, or trec_eval text.

Every renderer takes a list of `Results` (one per run) and returns text; one table of formats
maps names to renderers, so the command line offers exactly what is here.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rankscope.engine import native
from rankscope.engine.results import Results
from rankscope.errors import InputError

if TYPE_CHECKING:
    import polars as pl

    from rankscope.engine.native import PerQuery
    from rankscope.engine.provenance import Provenance

__all__ = [
    "FORMATS",
    "OUTPUT_FORMATS",
    "render",
    "results_frame",
    "results_html",
    "write_results",
    "write_text",
]


def _native_runs(runs: list[Results]) -> tuple[list[str], list[tuple[str, PerQuery, list[int]]]]:
    """The headings (the first run's measures, by canonical name) and each run as the core's
    table takes it: its name, its values, the column of each heading."""
    measures = runs[0].measures if runs else ()
    headings = [m.name for m in measures]
    tables = []
    for results in runs:
        names = results.values.names
        tables.append((results.run_name, results.values, [names.index(h) for h in headings]))
    return headings, tables


def table_rows(
    runs: list[Results], per_query: bool, exact: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Header and text rows: one per run (means), or one per run and query; counts as
    integers, everything else with 4 decimals (as trec_eval prints them) or, when ``exact``,
    every digit (for files other programs read). Rendered by the core."""
    headings, tables = _native_runs(runs)
    return native.results_rows(headings, tables, per_query=per_query, exact=exact)


_NOTEBOOK_CSS = """
.rankscope-results table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.rankscope-results th, .rankscope-results td { padding: 3px 10px; text-align: right;
  white-space: nowrap; }
.rankscope-results th:first-child, .rankscope-results td:first-child { text-align: left; }
.rankscope-results thead th { border-bottom: 1px solid currentColor; }
.rankscope-results summary { cursor: pointer; margin-top: 6px; }
"""


def html_table(header: list[str], rows: list[list[str]]) -> str:
    """An HTML table of text cells, escaped."""
    import html

    def cells(tag: str, row: list[str]) -> str:
        return "".join(f"<{tag}>{html.escape(cell)}</{tag}>" for cell in row)

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f"<table><thead><tr>{cells('th', header)}</tr></thead><tbody>{body}</tbody></table>"


def results_html(results: Results) -> str:
    """What Jupyter shows for `Results`: a heading, the aggregates as a table rounded as the
    command line rounds them, and the per-query values folded under it.

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": ["b", "a"]}, ["RR", "NumRet"])
    >>> page = results_html(results)
    >>> "<td>run</td><td>0.5000</td><td>2</td>" in page, "<details>" in page
    (True, True)
    """
    import html

    header, rows = table_rows([results], per_query=True)
    means = [row[:1] + row[2:] for row in rows if row[1] == "all"]
    per_query = [row[1:] for row in rows if row[1] != "all"]
    left_out = (
        f"; {len(results.missing_queries)} judged queries not in the run"
        if results.missing_queries and not results.complete
        else ""
    )
    heading = (
        f"<p><strong>{html.escape(results.run_name)}</strong>: {results.num_queries} queries"
        f", profile {html.escape(results.profile)}{left_out}</p>"
    )
    return (
        f'<div class="rankscope-results"><style>{_NOTEBOOK_CSS}</style>{heading}'
        f"{html_table(header[:1] + header[2:], means)}"
        "<details><summary>per query</summary>"
        f"{html_table(header[1:], per_query)}</details></div>"
    )


def render_json(runs: list[Results], per_query: bool, provenance: Provenance | None = None) -> str:
    """``{"runs": [{"run", "profile", "queries", "mean", "per_query"?}], "provenance"?}``,
    values to full precision, NaN as null."""

    def clean(value: float) -> float | None:
        return None if math.isnan(value) else value

    payload = []
    for results in runs:
        means = results.mean()  # by canonical name, as the columns of every other format
        entry: dict[str, object] = {
            "run": results.run_name,
            "profile": results.profile,
            "queries": len(results.query_ids),
            "mean": {m.name: clean(means[m.name]) for m in results.measures},
        }
        if results.unjudged_queries:
            entry["unjudged_queries"] = list(results.unjudged_queries)
        if results.missing_queries:
            entry["missing_queries"] = list(results.missing_queries)
        if per_query:
            entry["per_query"] = {
                query: {name: clean(v) for name, v in values.items()}
                for query, values in results.values.to_dict().items()
            }
        payload.append(entry)
    document: dict[str, object] = {"runs": payload}
    if provenance is not None:
        document["provenance"] = provenance.to_dict()
    return json.dumps(document, indent=2) + "\n"


def results_frame(runs: list[Results], per_query: bool) -> pl.DataFrame:
    """One row per run (query ``all``: the aggregates), preceded by its queries if asked.

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": ["b", "a"]}, ["RR"])
    >>> results_frame([results], per_query=True).rows()
    [('run', 'q', 0.5), ('run', 'all', 0.5)]
    """
    import polars as pl

    frames = []
    for results in runs:
        means = results.mean()
        if per_query:
            frames.append(results.per_query.select(pl.lit(results.run_name).alias("run"), pl.all()))
        frames.append(
            pl.DataFrame(
                {
                    "run": [results.run_name],
                    "query_id": ["all"],
                    **{m.name: [means[m.name]] for m in results.measures},
                },
                schema={
                    "run": pl.String,
                    "query_id": pl.String,
                    **{m.name: pl.Float64 for m in results.measures},
                },
            )
        )
    return pl.concat(frames, how="diagonal")


def render_jsonl(runs: list[Results], per_query: bool, provenance: Provenance | None = None) -> str:
    """One JSON object per line: ``{"run", "query_id", measure: value, ...}``; ``query_id``
    is ``"all"`` on the line of the aggregates."""
    return results_frame(runs, per_query).write_ndjson()


def render_csv(runs: list[Results], per_query: bool, provenance: Provenance | None = None) -> str:
    """One header line, then one line per run (or per run and query, then its mean), every
    value to full precision (rendered by the core, as the native executable renders it)."""
    headings, tables = _native_runs(runs)
    return native.format_results(headings, tables, per_query=per_query, format="csv")


def render_markdown(
    runs: list[Results], per_query: bool, provenance: Provenance | None = None
) -> str:
    """A GitHub-flavoured Markdown table, numbers right-aligned; then what produced it, one
    line each (a backslash ends a line in CommonMark)."""
    header, rows = table_rows(runs, per_query)
    labels = 2 if per_query else 1
    align = ["---"] * labels + ["---:"] * (len(header) - labels)
    lines = [header, align, *rows]
    table = "".join("| " + " | ".join(cells) + " |\n" for cells in lines)
    if provenance is None:
        return table
    return table + "\n" + "\\\n".join(provenance.lines()) + "\n"


def render_text(runs: list[Results], per_query: bool, provenance: Provenance | None = None) -> str:
    """A plain, aligned text table (what the terminal table prints when piped), rendered by the
    core, as the native executable renders it."""
    headings, tables = _native_runs(runs)
    return native.format_results(headings, tables, per_query=per_query, format="text")


def render_trec(runs: list[Results], per_query: bool, provenance: Provenance | None = None) -> str:
    """trec_eval's format for the measures asked, one block per run."""
    from rankscope.report.trec_eval import TrecMeasure, format_trec_eval

    blocks = []
    for results in runs:
        lines = [TrecMeasure(m.trec_name or m.name, m) for m in results.measures]
        blocks.append(format_trec_eval(results, lines, per_query))
    return "".join(blocks)


FORMATS: dict[str, Callable[[list[Results], bool, Provenance | None], str]] = {
    "table": render_text,
    "json": render_json,
    "jsonl": render_jsonl,
    "csv": render_csv,
    "markdown": render_markdown,
    "trec": render_trec,
}
"""Text formats: renderers ``(runs, per_query, provenance) -> text``. JSON and Markdown say
what produced them; the data formats (CSV, JSONL, trec) and the terminal table do not.
Parquet, a binary format, is written by `write_results` only."""

OUTPUT_FORMATS = (*FORMATS, "parquet")


def write_results(
    runs: list[Results],
    target: str | None,
    format: str = "table",
    per_query: bool = False,
    provenance: Provenance | None = None,
) -> None:
    """Write ``runs`` to the file ``target`` (standard output if None or ``-``) in ``format``:
    one of :data:`FORMATS`, or ``parquet`` (the table of `results_frame`; needs a file)."""
    if format == "parquet":
        if target is None or target == "-":
            raise InputError("parquet output needs a file to write to (--output FILE)")
        results_frame(runs, per_query).write_parquet(target)
        return
    write_text(render(runs, format, per_query, provenance), target)


def write_text(text: str, target: str | None) -> None:
    """Write ``text`` to the file ``target``, or to standard output if None or ``-``."""
    if target is None or target == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with open(target, "w", encoding="utf-8") as file:
            file.write(text)


def render(
    runs: list[Results],
    format: str = "table",
    per_query: bool = False,
    provenance: Provenance | None = None,
) -> str:
    """Render ``runs`` in one of :data:`FORMATS`.

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": ["b", "a"]}, ["RR", "P@1"])
    >>> print(render([results], "markdown"), end="")
    | run | RR | P@1 |
    | --- | ---: | ---: |
    | run | 0.5000 | 0.0000 |
    """
    try:
        renderer = FORMATS[format]
    except KeyError:
        raise InputError(
            f"unknown output format {format!r}; expected one of {', '.join(FORMATS)}"
        ) from None
    return renderer(runs, per_query, provenance)
