"""trec_eval's preference measures under their ir_measures-style names: in `evaluate` (the
query's graded judgements as one judgement group), listed with formula and citation, and
`rankscope trec-eval -R prefs` on inputs it refuses."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.cli import main
from rankscope.engine.measures import FAMILIES

# Each family and trec_eval's name for it.
PREFERENCE_MEASURES = {
    "NumPrefsPoss": "prefs_num_prefs_poss",
    "NumPrefsFul": "prefs_num_prefs_ful",
    "NumPrefsFulRet": "prefs_num_prefs_ful_ret",
    "PrefsSimp": "prefs_simp",
    "PrefsPair": "prefs_pair",
    "PrefsAvgJG": "prefs_avgjg",
    "PrefsAvgJGRNonRel": "prefs_avgjg_Rnonrel",
    "PrefsSimpRet": "prefs_simp_ret",
    "PrefsPairRet": "prefs_pair_ret",
    "PrefsAvgJGRet": "prefs_avgjg_ret",
    "PrefsAvgJGRNonRelRet": "prefs_avgjg_Rnonrel_ret",
    "PrefsSimpImp": "prefs_simp_imp",
    "PrefsPairImp": "prefs_pair_imp",
    "PrefsAvgJGImp": "prefs_avgjg_imp",
}
# The ratios a ranking of every judged document in grade order makes 1 (the Rnonrel ones
# recount the last class against its own first documents, as trec_eval does: not 1).
PERFECT_IS_ONE = [
    "PrefsSimp",
    "PrefsPair",
    "PrefsAvgJG",
    "PrefsSimpRet",
    "PrefsPairRet",
    "PrefsAvgJGRet",
    "PrefsSimpImp",
    "PrefsPairImp",
    "PrefsAvgJGImp",
]


def evaluate(qrels: Any, run: Any) -> rankscope.Results:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return rankscope.evaluate(qrels, run, list(PREFERENCE_MEASURES))


def test_names_and_trec_eval_names() -> None:
    for ours, trec_name in PREFERENCE_MEASURES.items():
        assert rankscope.measure(trec_name).name == ours
        assert rankscope.measure(ours).trec_name == trec_name
        family = FAMILIES[ours]
        assert family.formula and "trec_eval" in family.citation
        assert family.aggregate == ("sum" if ours.startswith("Num") else "mean")


def test_qrels_give_trec_eval_s_qrels_prefs_values_up_to_the_order_of_ties(
    conformance_dir: Path,
) -> None:
    # results.test ties a few scores, which trec_eval orders by document id ascending for
    # preferences and descending for qrels: one preference of 669704 moves.
    results = evaluate(conformance_dir / "qrels.test", conformance_dir / "results.test")
    expected = {
        line.split("\t")[0].strip(): float(line.split("\t")[2])
        for line in (conformance_dir / "out.test.qrels_prefs").read_text().splitlines()
        if line.split("\t")[1] == "all" and not line.startswith(("runid", "num_q"))
    }
    for ours, trec_name in PREFERENCE_MEASURES.items():
        # Counts by at most the one preference; ratios to the 4 decimals printed.
        tolerance = 1.0 if ours.startswith("Num") else 1e-4
        assert math.isclose(results.mean()[ours], expected[trec_name], abs_tol=tolerance), ours


def test_by_hand() -> None:
    # Grades a 2, b 1, c 0, d 0; ranking b, c, a (d not retrieved). Preferences: a>b, a>c, a>d,
    # b>c, b>d; fulfilled with both retrieved: b>c; with one: a>d, b>d; failed: a>b, a>c.
    qrels = {"q": {"a": 2, "b": 1, "c": 0, "d": 0}}
    run = {"q": {"b": 3.0, "c": 2.0, "a": 1.0, "x": 0.5}}
    row = evaluate(qrels, run).to_dict()["q"]
    assert (row["NumPrefsPoss"], row["NumPrefsFul"], row["NumPrefsFulRet"]) == (5, 3, 1)
    assert row["PrefsSimp"] == 3 / 5
    assert row["PrefsSimpRet"] == 1 / 3
    assert row["PrefsSimpImp"] == 3 / 5
    assert row["PrefsPair"] == row["PrefsAvgJG"] == 3 / 5
    # R = 2 >= N = 2: nothing added. Retrieved: R = 2 > N = 1: fulfilled 1 + 2·1,
    # possible 3 + 2·1.
    assert row["PrefsAvgJGRNonRel"] == 3 / 5
    assert row["PrefsAvgJGRNonRelRet"] == 3 / 5


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(10)]), st.integers(0, 3), min_size=2)
)
def test_a_perfect_ranking_scores_one_and_its_reverse_zero(judgements: dict[str, int]) -> None:
    if len(set(judgements.values())) < 2:
        return  # no preference
    ordered = sorted(judgements, key=lambda d: -judgements[d])
    best = evaluate({"q": judgements}, {"q": ordered}).mean()
    worst = evaluate({"q": judgements}, {"q": ordered[::-1]}).mean()
    for name in PERFECT_IS_ONE:
        assert best[name] == 1.0, name
        assert worst[name] == 0.0, name
    assert best["NumPrefsFul"] == best["NumPrefsPoss"] == worst["NumPrefsPoss"]


def test_measures_lists_them_with_formula_and_citation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for ours in PREFERENCE_MEASURES:
        assert ours in out
    assert "form_prefs_counts.c" in out


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("prefs", "message"),
    [
        ("q g s a 2\nq g s b\n", "prefs:2: expected 5 whitespace-separated fields"),
        ("q g s a 2\nq g s b x\n", "prefs:2: level must be a finite number; found 'x'"),
        (
            "q g s1 a 2\nq g s1 b 0\nq g s2 b 1\nq g s2 a 0.5\n",
            "prefs:3: document 'b' has level 0 (non-relevant) in one subgroup",
        ),
        (
            "q g s1 a 2\nq g s1 b 1\nq g s2 b 2\nq g s2 a 1\n",
            "documents 'a' and 'b' are each preferred to the other in group 'g' of query 'q'",
        ),
    ],
)
def test_trec_eval_refuses_bad_preferences_with_file_and_line(
    tmp_path: Path,
    prefs: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "prefs", prefs)
    write(tmp_path, "run", "q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
    code = main(["trec-eval", "-m", "all_prefs", "-R", "prefs", "prefs", "run"])
    captured = capsys.readouterr()
    # An input error (exit code 1), not a bad option.
    assert (code, captured.out) == (1, "")
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_trec_eval_prefs_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # -M keeps the first documents by score (ties by id ascending), -c adds judged queries
    # missing from the run with an empty ranking.
    prefs = write(tmp_path, "prefs", "q1 g s a 2\nq1 g s b 1\nq1 g s c 0\nq2 g s a 1\nq2 g s b 0\n")
    run = write(tmp_path, "run", "q1 Q0 c 1 5 t\nq1 Q0 b 2 5 t\nq1 Q0 a 3 1 t\n")
    code = main(
        ["trec-eval", "-q", "-c", "-M2", "-m", "prefs_num_prefs_ful", "-R", "prefs", prefs, run]
    )
    assert code == 0
    # q1 ranks b, c (a cut by -M): b>c fulfilled; a>b, a>c fail. q2: nothing retrieved.
    assert capsys.readouterr().out == (
        "prefs_num_prefs_ful   \tq1\t1\n"
        "prefs_num_prefs_ful   \tq2\t0\n"
        "prefs_num_prefs_ful   \tall\t1\n"
    )
