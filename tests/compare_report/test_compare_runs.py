"""`rankscope.compare_runs` and the report it returns: every format, provenance, Jupyter."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import rankscope
from rankscope.compare import build_report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
QRELS, BM25, DENSE = (str(EXAMPLE / name) for name in ("qrels.txt", "bm25.run", "dense.run"))
MEASURES = ["nDCG@10", "AP"]
FAST = {"test": "randomization", "n_resamples": 500}


@pytest.fixture(scope="module")
def report() -> rankscope.ComparisonReport:
    return rankscope.compare_runs(QRELS, {"bm25": BM25, "dense": DENSE}, MEASURES, **FAST)


def test_the_report_is_the_command_lines(report: rankscope.ComparisonReport) -> None:
    base = rankscope.evaluate(QRELS, BM25, MEASURES)
    dense = rankscope.evaluate(QRELS, DENSE, MEASURES)
    direct = build_report(base, [dense], names=["bm25", "dense"], **FAST)
    assert report.comparison == direct.comparison
    assert report.to_markdown().split("\n\n")[0] == direct.to_markdown().split("\n\n")[0]


def test_runs_from_a_list_take_their_names_and_any_run_can_be_the_baseline() -> None:
    listed = rankscope.compare_runs(QRELS, [BM25, DENSE], MEASURES, **FAST)
    assert listed.aligned.names == ("bm25", "dense")
    swapped = rankscope.compare_runs(
        QRELS, {"bm25": BM25, "dense": DENSE}, MEASURES, baseline="dense", **FAST
    )
    assert swapped.baseline == "dense" and swapped.aligned.systems == ("bm25",)
    same_tag = rankscope.compare_runs(QRELS, [BM25, BM25, DENSE], ["AP"], **FAST)
    assert same_tag.aligned.names == ("bm25.run#1", "bm25.run#2", "dense")


def test_runs_in_memory_of_any_kind() -> None:
    dense = rankscope.io.read_run(DENSE).frame
    report = rankscope.compare_runs(
        rankscope.io.read_qrels(QRELS).frame.to_pandas(),
        {"bm25": rankscope.io.read_run(BM25), "dense": dense.rename({"query_id": "qid"})},
        MEASURES,
        **FAST,
    )
    assert report.means("dense") == rankscope.evaluate(QRELS, DENSE, MEASURES).mean()


@pytest.mark.parametrize(
    ("runs", "options", "message"),
    [
        ({"bm25": BM25}, {}, "needs a baseline and at least one run; got 1"),
        ({"bm25": BM25, "dense": DENSE}, {"baseline": "splade"}, "no run named 'splade'"),
        ({"": BM25, "dense": DENSE}, {}, "run names must be non-empty strings"),
        (BM25, {}, "runs must be a dict {name: run} or a list of runs"),
    ],
)
def test_errors(runs: object, options: dict[str, str], message: str) -> None:
    with pytest.raises(rankscope.InputError, match=message.replace("{", r"\{")):
        rankscope.compare_runs(QRELS, runs, ["AP"], **options)  # type: ignore[arg-type]


def test_every_format_says_what_produced_it(report: rankscope.ComparisonReport) -> None:
    provenance = report.provenance
    assert provenance is not None
    assert provenance.qrels == QRELS
    assert provenance.runs == (("bm25", BM25), ("dense", DENSE))
    assert provenance.measures == ("nDCG@10", "AP") and provenance.profile == "trec"
    assert provenance.command.startswith("rankscope.compare_runs(test='randomization'")
    stamp = f"rankscope {rankscope.__version__}, {provenance.created}"
    assert stamp in report.to_text()
    assert stamp in report.to_markdown()
    assert f"% {stamp}" in report.to_latex()
    assert stamp in report.to_html()
    assert json.loads(report.to_json())["provenance"]["created"] == provenance.created


def test_latex_fits_the_column_with_caption_and_label(report: rankscope.ComparisonReport) -> None:
    latex = report.to_latex(caption="Runs & scores_v2", label="tab:main")
    assert r"\caption{Runs \& scores\_v2}" in latex and r"\label{tab:main}" in latex
    assert latex.index(r"\resizebox") < latex.index(r"\begin{tabular}") < latex.index("}}")
    default = report.to_latex()
    queries = len(report.aligned.query_ids)
    assert rf"\caption{{dense compared with the baseline bm25 ({queries} queries).}}" in default
    assert r"\label{tab:comparison}" in default
    with pytest.raises(rankscope.OptionError, match="a caption or label applies to LaTeX"):
        rankscope.report.compare.render_comparison(report, "markdown", caption="x")


def test_dataframes(report: rankscope.ComparisonReport) -> None:
    frame = report.to_dataframe()
    assert isinstance(frame, pl.DataFrame)
    assert frame.select("system", "measure").rows() == [("dense", "nDCG@10"), ("dense", "AP")]
    row = report.comparison.row("dense", "AP")
    first = frame.filter(pl.col("measure") == "AP").row(0, named=True)
    assert first["corrected_p_value"] == row.corrected_p_value
    assert first["mean_difference"] == row.test.mean_difference
    wtl = row.win_tie_loss
    assert (first["wins"], first["ties"], first["losses"]) == (wtl.wins, wtl.ties, wtl.losses)
    assert isinstance(report.to_pandas(), pd.DataFrame)


def test_jupyter_shows_tables(report: rankscope.ComparisonReport) -> None:
    fragment = report._repr_html_()
    assert fragment.startswith('<div class="rankscope-summary"><style>')
    assert "<script" not in fragment and "<html" not in fragment
    summary, per_query = fragment.split("<details>")
    assert summary.count("<tr") == 3  # the header, the baseline, dense
    queries = len(report.aligned.query_ids)
    assert per_query.startswith(f"<summary>per query ({queries} queries)</summary>")
    assert per_query.count("<tr") == 2 + queries  # two header rows, one row per query
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = rankscope.evaluate(QRELS, BM25, MEASURES)
    page = results._repr_html_()
    queries = len(results.query_ids)
    assert f"<strong>bm25</strong>: {queries} queries, profile trec" in page
    assert f"<td>{results.mean()['AP']:.4f}</td>" in page  # rounded as the command line rounds
    assert "<details><summary>per query</summary>" in page


def test_repr_counts_significant_differences(report: rankscope.ComparisonReport) -> None:
    significant = sum(row.significant for row in report.comparison.rows)
    queries = len(report.aligned.query_ids)
    assert repr(report) == (
        f"ComparisonReport(dense vs bm25; {queries} queries; {significant} of 2 differences "
        "significant)"
    )
