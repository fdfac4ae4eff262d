"""Each comparison renderer on one small fixed comparison (bm25 vs "better" and "mixed").

In that comparison "better" is best on both measures and significant on both; "mixed" is
significant on P@1 only (Holm-corrected p 0.014) and not on RR (p 0.125).
"""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser

import pytest
from compare_report_data import FIXED_MEASURES, FIXED_QRELS, FIXED_RUNS, evaluate_lists
from rich.console import Console

from rankscope.compare import ComparisonReport, build_report
from rankscope.errors import OptionError
from rankscope.report.compare import (
    FORMATS,
    latex_escape,
    render_comparison,
    render_html,
    render_json,
    render_latex,
    render_markdown,
    render_text,
    rich_table,
)


@pytest.fixture(scope="module")
def fixed_report() -> ComparisonReport:
    """bm25 (baseline) against "better" (significant) and "mixed" (not), on RR and P@1."""
    baseline, *systems = evaluate_lists(FIXED_QRELS, FIXED_RUNS, FIXED_MEASURES)
    return build_report(baseline, systems, test="t", correction="holm", n_resamples=2000)


def test_the_fixture_is_what_the_assertions_assume(fixed_report: ComparisonReport) -> None:
    comparison = fixed_report.comparison
    assert comparison.row("better", "RR").significant
    assert comparison.row("better", "P@1").significant
    assert comparison.row("mixed", "P@1").significant
    assert not comparison.row("mixed", "RR").significant
    assert fixed_report.means("better") == pytest.approx({"RR": 8 / 9, "P@1": 10 / 12})


def test_markdown_bolds_the_best_and_daggers_the_significant(
    fixed_report: ComparisonReport,
) -> None:
    text = render_markdown(fixed_report)
    lines = text.splitlines()
    assert lines[0] == "| run | RR | P@1 |"
    assert lines[1] == "| --- | ---: | ---: |"
    assert lines[2] == "| bm25 (baseline) | 0.5000 | 0.0000 |"
    assert lines[3] == "| better | **0.8889**† | **0.8333**† |"
    assert lines[4] == "| mixed | 0.6667 | 0.5000† |"
    footnote = lines[6]
    assert footnote.startswith("† significantly different from the baseline bm25")
    assert "paired t-test" in footnote
    assert "Holm correction" in footnote
    assert "0.05" in footnote and "12 queries" in footnote


def test_markdown_shows_corrected_p_values_on_request(fixed_report: ComparisonReport) -> None:
    plain = render_markdown(fixed_report)
    with_p = render_markdown(fixed_report, show_p=True)
    assert "p=" not in plain and "p<" not in plain.split("\n\n")[0]
    mixed = fixed_report.comparison.row("mixed", "RR").corrected_p_value
    assert f"| mixed | 0.6667 (p={mixed:.3f}) |" in with_p
    assert "**0.8333**† (p<0.001)" in with_p


def test_markdown_escapes_run_names() -> None:
    runs = {"base|line": FIXED_RUNS["bm25"], "new_*sys*": FIXED_RUNS["better"]}
    baseline, system = evaluate_lists(FIXED_QRELS, runs, ["RR"])
    report = build_report(baseline, [system], n_resamples=200)
    text = render_markdown(report)
    assert "| base\\|line (baseline) |" in text
    assert "| new\\_\\*sys\\* |" in text
    # Every table line still has exactly the columns of the header.
    for line in text.splitlines()[:4]:
        assert len(re.findall(r"(?<!\\)\|", line)) == 3


def test_latex_is_a_booktabs_table_with_bold_best_and_daggers(
    fixed_report: ComparisonReport,
) -> None:
    text = render_latex(fixed_report)
    for command in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{@{}lrr@{}}"):
        assert command in text
    assert r"Run & RR & P@1 \\" in text
    assert r"bm25 (baseline) & 0.5000 & 0.0000 \\" in text
    assert r"better & \textbf{0.8889}$^{\dagger}$ & \textbf{0.8333}$^{\dagger}$ \\" in text
    assert r"mixed & 0.6667 & 0.5000$^{\dagger}$ \\" in text
    note = next(line for line in text.splitlines() if r"\footnotesize" in line)
    assert r"$^{\dagger}$" in note
    assert "Significantly different from the baseline bm25" in note
    assert "paired t-test" in note and "Holm correction" in note
    assert r"$\le$ 0.05" in note
    assert "†" not in text and "≤" not in text  # only ASCII LaTeX markup


def test_latex_escapes_special_characters() -> None:
    assert latex_escape("run_1 & 50% #2 $x^2$ {a} ~b\\c <d>") == (
        r"run\_1 \& 50\% \#2 \$x\textasciicircum{}2\$ \{a\} \textasciitilde{}b"
        r"\textbackslash{}c \textless{}d\textgreater{}"
    )
    runs = {"bm25_v2": FIXED_RUNS["bm25"], "new&improved": FIXED_RUNS["better"]}
    baseline, system = evaluate_lists(FIXED_QRELS, runs, ["RR"])
    text = render_latex(build_report(baseline, [system], n_resamples=200))
    assert r"bm25\_v2 (baseline) &" in text
    assert r"new\&improved &" in text
    assert "baseline bm25\\_v2" in text


def test_latex_shows_p_values_in_math_mode(fixed_report: ComparisonReport) -> None:
    text = render_latex(fixed_report, show_p=True)
    assert r"\textbf{0.8333}$^{\dagger}$ {\scriptsize($p<0.001$)}" in text


def test_json_holds_corrected_p_values_and_everything_computed(
    fixed_report: ComparisonReport,
) -> None:
    payload = json.loads(render_json(fixed_report))
    assert payload["baseline"] == "bm25"
    assert payload["systems"] == ["better", "mixed"]
    assert payload["measures"] == FIXED_MEASURES
    assert (payload["test"], payload["correction"], payload["alpha"]) == ("t", "holm", 0.05)
    assert payload["queries"] == 12
    assert payload["left_out_queries"] == {}
    assert payload["means"]["bm25"] == {"RR": 0.5, "P@1": 0.0}
    records = {(r["system"], r["measure"]): r for r in payload["comparisons"]}
    assert set(records) == {(s, m) for s in ("better", "mixed") for m in FIXED_MEASURES}
    for (system, measure), record in records.items():
        row = fixed_report.comparison.row(system, measure)
        assert record["corrected_p_value"] == row.corrected_p_value
        assert record["p_value"] == row.test.p_value
        assert record["corrected_p_value"] >= record["p_value"]
        assert record["significant"] is row.significant
        assert record["difference_ci"]["low"] <= record["mean_difference"]
        assert record["mean_difference"] <= record["difference_ci"]["high"]
        assert record["wins"] + record["ties"] + record["losses"] == 12
    # Holm over four tests: the smallest raw p-value is multiplied by 4.
    smallest = min(records.values(), key=lambda r: r["p_value"])
    assert smallest["corrected_p_value"] == pytest.approx(4 * smallest["p_value"])


def test_text_table_aligns_columns_and_marks_significance(
    fixed_report: ComparisonReport,
) -> None:
    text = render_text(fixed_report)
    lines = text.splitlines()
    assert lines[0].split() == ["run", "RR", "P@1"]
    assert lines[1].split() == ["bm25", "(baseline)", "0.5000", "0.0000"]
    assert lines[2].split() == ["better", "0.8889†", "0.8333†"]
    assert lines[3].split() == ["mixed", "0.6667", "0.5000†"]
    assert len({len(line) for line in lines[:4]}) <= 2  # right-aligned numbers
    assert lines[0].index("RR") + 2 == lines[1].index("0.5000") + 6
    assert "paired t-test" in text and "Holm correction" in text


def test_rich_table_puts_the_best_values_in_bold(fixed_report: ComparisonReport) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="standard", width=120)
    console.print(rich_table(fixed_report, show_p=True))
    output = buffer.getvalue()
    assert "\x1b[1m0.8889" in output  # bold
    assert "\x1b[1m0.6667" not in output and "0.6667" in output
    assert "†" in output and "p=0.125" in output
    assert "Holm correction" in output


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.scripts += tag == "script"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_one_self_contained_page(fixed_report: ComparisonReport) -> None:
    page = render_html(fixed_report)
    parser = _Collector()
    parser.feed(page)
    assert page.startswith("<!DOCTYPE html>")
    assert parser.scripts == 0
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert "default-src 'none'" in page  # the page may load nothing at all
    assert page.count('<section class="measure"') == len(FIXED_MEASURES)
    # Per measure: a difference chart per system, a distribution and an interval chart.
    assert page.count('class="diff-chart"') == 2 * len(FIXED_MEASURES)
    assert page.count('class="dist-chart"') == len(FIXED_MEASURES)
    assert page.count('class="ci-chart"') == len(FIXED_MEASURES)
    assert "<strong>0.8889</strong>" in page
    text = "".join(parser.text)
    assert "Largest wins" in text and "Largest losses" in text
    assert "paired t-test" in text and "Holm correction" in text


def test_html_lists_the_biggest_wins_and_losses_with_query_ids(
    fixed_report: ComparisonReport,
) -> None:
    page = render_html(fixed_report)
    section = page.split('data-measure="RR"')[1].split("</section>")[0]
    mixed = section.split("of mixed against bm25")[1]
    wins, losses = mixed.split("Largest losses")
    # mixed wins by +0.5 on even queries and loses by -0.1667 on odd ones.
    assert "<code>q00</code>" in wins and "+0.5000" in wins
    assert "<code>q01</code>" in losses and "-0.1667" in losses
    assert "<code>q01</code>" not in wins


def test_html_escapes_user_strings() -> None:
    evil = '<script>alert("x")</script>'
    qrels = {f"{evil}{i}": docs for i, docs in enumerate(FIXED_QRELS.values())}
    runs = {
        name: dict(zip(qrels, run.values(), strict=True))
        for name, run in (("base", FIXED_RUNS["bm25"]), (evil, FIXED_RUNS["better"]))
    }
    baseline, system = evaluate_lists(qrels, runs, ["RR"])
    page = render_html(build_report(baseline, [system], n_resamples=200))
    assert "<script" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def test_formats_table_dispatches_and_refuses_unknown_names(
    fixed_report: ComparisonReport,
) -> None:
    assert set(FORMATS) == {"table", "markdown", "latex", "json", "html"}
    assert render_comparison(fixed_report, "markdown") == render_markdown(fixed_report)
    with pytest.raises(OptionError, match="unknown output format 'csv'; expected one of table"):
        render_comparison(fixed_report, "csv")


def test_ties_for_best_are_all_bold() -> None:
    runs = {"base": FIXED_RUNS["better"], "same": FIXED_RUNS["better"]}
    baseline, system = evaluate_lists(FIXED_QRELS, runs, ["RR"])
    text = render_markdown(build_report(baseline, [system], n_resamples=200))
    assert "| base (baseline) | **0.8889** |" in text
    assert "| same | **0.8889** |" in text
