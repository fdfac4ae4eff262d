"""Comparing chosen pairs of runs: compare_runs(pairs=..., baselines=..., test="tukey"), the
reports' letters, pairwise matrix and ANOVA, and `rankscope compare --all-pairs`,
`--baseline`, `--discriminative-power`."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from compare_report_data import generated_data, write_trec_files

import rankscope
from rankscope.cli import main
from rankscope.compare import (
    ComparisonReport,
    all_pairs_test,
    correct_pvalues,
    discriminative_power,
    randomized_tukey_hsd,
    tukey_hsd,
)
from rankscope.errors import InputError, OptionError

SYSTEMS = ("bm25", "dense", "splade", "colbert")
MEASURES = ["nDCG@10", "AP"]
FAST = 500
Data = tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]


@pytest.fixture(scope="module")
def data() -> Data:
    return generated_data(30, SYSTEMS)


def _report(data: Data, **options: object) -> ComparisonReport:
    qrels, runs = data
    return rankscope.compare_runs(qrels, runs, MEASURES, n_resamples=FAST, **options)


def _scores(report: ComparisonReport, measure: str) -> dict[str, object]:
    return {name: report.aligned.scores[name][measure] for name in report.aligned.names}


def test_all_pairs_by_tukey_are_tukey_hsd_of_every_run(data: Data) -> None:
    report = _report(data, pairs="all", test="tukey")
    comparison = report.comparison
    assert comparison.pairwise and comparison.correction == "tukey"
    assert len(comparison.rows) == 6 * len(MEASURES)
    for measure in MEASURES:
        direct = tukey_hsd(_scores(report, measure))
        assert comparison.analyses[measure] == direct
        for pair in direct.pairs:
            row = comparison.pair(pair.first, pair.second, measure)
            assert row.corrected_p_value == row.test.p_value == pair.p_value
            assert (row.difference_ci.low, row.difference_ci.high) == (pair.ci_low, pair.ci_high)
            assert row.effect_size == pair.effect_size and row.test.method == "tukey"


def test_all_pairs_by_randomized_tukey_start_each_measure_from_the_seed(data: Data) -> None:
    report = _report(data, pairs="all", test="randomized-tukey", seed=3)
    for measure in MEASURES:
        direct = randomized_tukey_hsd(_scores(report, measure), n_permutations=FAST, seed=3)
        assert report.comparison.analyses[measure] == direct


def test_all_pairs_by_a_paired_test_correct_every_pair_and_measure(data: Data) -> None:
    report = _report(data, pairs="all", test="t", correction="bh")
    rows = report.comparison.rows
    raw = [row.test.p_value for row in rows]
    assert [row.corrected_p_value for row in rows] == correct_pvalues(raw, "bh").tolist()
    # One measure alone corrects a smaller family: never more significant than that.
    alone = all_pairs_test(_scores(report, "AP"), test="t", correction="bh")
    for pair in alone.pairs:
        assert report.comparison.pair(pair.first, pair.second, "AP").test.p_value == pair.p_value
    letters = report.comparison.analyses["AP"].letters
    assert letters is not None and set(letters) == set(SYSTEMS)


def test_the_dataframe_has_a_row_per_pair_and_measure(data: Data) -> None:
    frame = _report(data, pairs="all", test="tukey").to_dataframe()
    assert frame.columns[:3] == ["baseline", "system", "measure"]
    assert frame.height == 12 and "p_value" in frame.columns
    assert set(zip(frame["baseline"], frame["system"], strict=True)) == {
        ("bm25", "dense"), ("bm25", "splade"), ("bm25", "colbert"),
        ("dense", "splade"), ("dense", "colbert"), ("splade", "colbert"),
    }  # fmt: skip


def test_several_baselines_compare_every_other_run_with_each(data: Data) -> None:
    report = _report(data, baselines=["bm25", "splade"], test="randomization")
    pairs = [(row.baseline, row.system) for row in report.comparison.rows if row.measure == "AP"]
    assert pairs == [("bm25", "dense"), ("bm25", "splade"), ("bm25", "colbert"),
                     ("splade", "dense"), ("splade", "colbert")]  # fmt: skip
    assert report.comparison.baselines == ("bm25", "splade")
    assert report.comparison.analyses["AP"].letters is None  # not every pair was tested
    text = report.to_text()
    assert "bm25 (baseline)" in text and "splade (baseline)" in text
    assert "† in the pairs: significantly different" in text


def test_listed_pairs(data: Data) -> None:
    report = _report(data, pairs=[("dense", "colbert")], test="bootstrap")
    assert {(row.baseline, row.system) for row in report.comparison.rows} == {("dense", "colbert")}
    with pytest.raises(InputError, match="names 'nope', not a system"):
        _report(data, pairs=[("dense", "nope")])
    with pytest.raises(InputError, match="given twice"):
        _report(data, pairs=[("dense", "bm25"), ("bm25", "dense")])


def test_one_baseline_and_a_paired_test_is_todays_comparison(data: Data) -> None:
    qrels, runs = data
    default = rankscope.compare_runs(qrels, runs, MEASURES, n_resamples=FAST)
    named = rankscope.compare_runs(
        qrels, runs, MEASURES, n_resamples=FAST, correction="holm", baselines=["bm25"]
    )
    assert not default.comparison.pairwise and default.comparison.correction == "holm"
    assert named.comparison == default.comparison
    assert "analyses" not in json.loads(default.to_json())
    assert default.to_dataframe().columns[0] == "system"


def test_a_tukey_test_against_one_baseline_still_tests_every_run(data: Data) -> None:
    report = _report(data, test="tukey")
    rows = [row for row in report.comparison.rows if row.measure == "AP"]
    assert [(row.baseline, row.system) for row in rows] == [("bm25", name) for name in SYSTEMS[1:]]
    analysis = report.comparison.analyses["AP"]
    assert analysis.systems == SYSTEMS and len(analysis.pairs) == 6


def test_bad_choices_are_refused(data: Data) -> None:
    with pytest.raises(OptionError, match="must be left unset with test='tukey'"):
        _report(data, test="tukey", correction="holm")
    with pytest.raises(OptionError, match="pairs must be 'baseline', 'all'"):
        _report(data, pairs="some")
    with pytest.raises(OptionError, match="baselines apply to pairs='baseline'"):
        _report(data, pairs="all", baselines=["bm25"])
    with pytest.raises(InputError, match="no run named 'nope' to be a baseline"):
        _report(data, baselines=["nope"])


# --- the reports ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tukey_report(data: Data) -> ComparisonReport:
    return _report(data, pairs="all", test="tukey")


def test_text_shows_letters_pairs_matrix_and_anova(tukey_report: ComparisonReport) -> None:
    text = tukey_report.to_text()
    letters = tukey_report.comparison.analyses["AP"].letters
    assert letters is not None
    table = text.split("\n\n")[0].splitlines()
    assert table[0].split() == ["run", "nDCG@10", "AP"]
    assert table[1].startswith("bm25 ") and table[1].split()[-1] == letters["bm25"]
    assert "Runs that share a letter do not differ significantly (Tukey's HSD test" in text
    assert "Pairs:" in text and "Adjusted p-values, AP:" in text
    anova = re.search(
        r"ANOVA, AP \(systems x topics; 95% margin of error of a mean ±([\d.]+)\)", text
    )
    assert anova is not None
    assert float(anova.group(1)) == pytest.approx(
        tukey_report.comparison.analyses["AP"].margin_of_error, abs=5e-5
    )
    assert re.search(r"^residual\s+[\d.]+\s+87\s", text, re.MULTILINE)  # (4-1)(30-1)


def test_markdown_and_latex_show_the_same_sections(tukey_report: ComparisonReport) -> None:
    markdown = tukey_report.to_markdown()
    assert "<sup>" in markdown and "**Adjusted p-values, AP**" in markdown
    assert "| system |" in markdown
    latex = tukey_report.to_latex()
    assert r"\textsuperscript{" in latex and latex.count(r"\begin{tabular}") == 1 + 1 + 2 * 2
    assert r"$^{\dagger}$\," not in latex  # letters, not a dagger, explain the main table


def test_json_holds_every_analysis(tukey_report: ComparisonReport) -> None:
    payload = json.loads(tukey_report.to_json())
    assert payload["comparisons"][0]["baseline"] == "bm25"
    analysis = payload["analyses"]["AP"]
    assert analysis["method"] == "tukey" and analysis["design"] == "two-way"
    assert [row["source"] for row in analysis["anova"]] == ["system", "topic", "residual", "total"]
    assert len(analysis["adjusted_p_values"]) == 4 and len(analysis["pairs"]) == 6
    assert analysis["letters"] == dict(tukey_report.comparison.analyses["AP"].letters or {})


def test_html_draws_the_matrix_and_the_intervals(tukey_report: ComparisonReport) -> None:
    page = tukey_report.to_html()
    assert page.count('<table class="matrix">') == 2 and page.count('class="ci-chart"') == 2
    assert page.count('<sup class="cld"') == 8 and "<script" not in page
    assert "simultaneous intervals at 95%" in page
    assert "colbert − splade" in page


# --- discriminative power ---------------------------------------------------------------------


def test_power_report_is_discriminative_power_of_the_aligned_scores(data: Data) -> None:
    report = _report(data, pairs="all", test="tukey")
    from rankscope.compare import power_report

    power = power_report(report.aligned, n_resamples=FAST, seed=1)
    direct = discriminative_power(
        {m: _scores(report, m) for m in MEASURES}, n_resamples=FAST, seed=1
    )
    assert power.power == direct
    assert json.loads(power.render("json"))["measures"][0]["asl"] == list(direct.measures[0].asl)
    page = power.render("html")
    assert 'class="asl-chart"' in page and page.count("<polyline") == len(MEASURES)
    assert power.render("markdown").startswith("| measure | pairs | significant | power |")
    assert r"\begin{tabular}" in power.render("latex")
    with pytest.raises(OptionError, match="unknown output format 'pdf'"):
        power.render("pdf")


# --- the command line -------------------------------------------------------------------------


TrecFiles = Callable[..., tuple[str, list[str]]]


@pytest.fixture
def trec_files(tmp_path: Path) -> TrecFiles:
    return functools.partial(write_trec_files, tmp_path)


def _cli(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["compare", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_all_pairs_by_tukey(trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = trec_files(30, SYSTEMS)
    code, out, err = _cli([qrels, *runs, "--all-pairs", "--test", "tukey", "-m", "AP"], capsys)
    assert code == 0, err
    assert "Runs that share a letter" in out and "ANOVA, AP" in out
    assert out.count(" - ") >= 6  # the six pairs


def test_cli_several_baselines_by_name_or_file(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files(30, SYSTEMS)
    arguments = [qrels, *runs, "--baseline", "bm25", "--baseline", runs[1], "-m", "AP"]
    code, out, err = _cli([*arguments, "-f", "json", "--resamples", "300"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["baselines"] == ["bm25", "dense"]
    assert len(payload["comparisons"]) == 3 + 2


def test_cli_discriminative_power(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, runs = trec_files(30, SYSTEMS)
    arguments = [qrels, *runs, "--discriminative-power", "-m", "AP,P@10", "--resamples", "500"]
    code, out, err = _cli([*arguments, "-f", "json"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["test"] == "randomized-tukey" and payload["correction"] == "tukey"
    assert [m["measure"] for m in payload["measures"]] == ["AP", "P@10"]
    assert all(m["pairs"] == 6 for m in payload["measures"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--all-pairs", "--baseline", "bm25"], "--all-pairs compares every pair"),
        (["--test", "tukey", "--correction", "holm"], "--correction does not apply to --test"),
        (["--baseline", "nope"], "--baseline 'nope' is not one of the runs"),
        (["--discriminative-power", "--all-pairs"], "--discriminative-power compares every"),
    ],
)
def test_cli_refuses_contradictory_options(
    trec_files: TrecFiles, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    qrels, runs = trec_files(10, SYSTEMS[:3])
    code, _, err = _cli([qrels, *runs, "-m", "AP", *extra], capsys)
    assert code != 0
    assert message in err and "Traceback" not in err
