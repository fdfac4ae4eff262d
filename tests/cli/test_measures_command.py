"""``rankscope measures [FILTER]``: the families a filter picks (by name or alias, a measure, a
tool, a profile, a kind, what they read), wrapped at word boundaries for a width."""

from __future__ import annotations

import re

import pytest

from rankscope.cli import EXIT_OK, EXIT_USAGE, main
from rankscope.cli._measures import _IR_MEASURES
from rankscope.engine.measures import FAMILIES


def listed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[list[str], str]:
    assert main(["measures", *argv]) == EXIT_OK
    out = capsys.readouterr().out
    starts = (re.match(r"[A-Za-z0-9_-]+", line) for line in out.splitlines())
    return [m[0] for m in starts if m is not None and m[0] in FAMILIES], out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ndcg_cut", ["nDCG"]),  # an alias
        ("nDCG@10", ["nDCG"]),  # a measure: its family only
        ("MAP", ["AP", "GM_AP", "SetAP", "AP_IA"]),  # part of a name or alias, any case
        ("ERR_IA", ["ERR_IA", "nERR_IA"]),
    ],
)
def test_a_filter_by_name_alias_or_measure(
    capsys: pytest.CaptureFixture[str], text: str, expected: list[str]
) -> None:
    names, _ = listed(capsys, text)
    assert names == expected


def test_a_filter_by_tool_profile_kind_or_what_they_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ranx, out = listed(capsys, "ranx")
    assert ranx == [f.name for f in FAMILIES.values() if f.ranx is not None]
    assert "ranx's names" in out and re.search(r"map\[@k\] +  = AP: ", out)
    trec_eval, _ = listed(capsys, "trec_eval")
    assert trec_eval == [f.name for f in FAMILIES.values() if f.trec_eval]
    weknora, _ = listed(capsys, "weknora")
    assert weknora == [f.name for f in FAMILIES.values() if "weknora" in f.profiles]
    answers, _ = listed(capsys, "answer")
    assert answers == [f.name for f in FAMILIES.values() if f.kind == "answer"] != []
    subtopics, _ = listed(capsys, "subtopics")
    assert "alpha_nDCG" in subtopics and "nDCG" not in subtopics
    everything, out = listed(capsys)
    assert everything == list(FAMILIES) and "Default measures" in out


def test_ir_measures_lists_the_names_ir_measures_has() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    theirs = set(ir_measures.measures.registry)
    assert theirs >= _IR_MEASURES
    assert {name for name in theirs if name in FAMILIES} == _IR_MEASURES


def test_wrapped_at_word_boundaries_for_the_width(capsys: pytest.CaptureFixture[str]) -> None:
    _, piped = listed(capsys, "AP")
    _, wrapped = listed(capsys, "AP", "--width", "50")
    assert max(len(line) for line in piped.splitlines()) > 50  # not a terminal: one line each
    lines = wrapped.splitlines()
    for line in lines:
        assert len(line) <= 50 or " " not in line.strip(), line  # only an unbreakable word
    assert re.sub(r"\s+", " ", wrapped) == re.sub(r"\s+", " ", piped)  # no word cut or lost
    # A labelled line goes on under its text, not its label ("    formula: ", "    source:  ").
    assert any(re.match(r" {13}\S", line) for line in lines)
    assert not any(re.match(r" {5,12}\S", line) for line in lines)


def test_no_match_and_a_bad_width_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures", "nothing-like-it"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "no measure matches 'nothing-like-it'" in err and "a tool (trec_eval" in err
    assert main(["measures", "--width", "5"]) == EXIT_USAGE
    assert "--width must be at least 20; found 5" in capsys.readouterr().err
