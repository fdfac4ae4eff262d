"""``optimize_fusion(progress=...)``: a callback after each trial, a rich bar on a terminal,
nothing when standard error is piped; ``rankscope fuse --optimize`` shows the bar on a
terminal only."""

from __future__ import annotations

import sys

import pytest

import rankscope

QRELS = {"q1": {"d1": 1, "d3": 1}, "q2": {"d4": 1}}
BM25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}}
DENSE = {"q1": {"d3": 0.9, "d2": 0.5}, "q2": {"d4": 0.8, "d5": 0.7}}


def test_a_callback_hears_of_every_trial() -> None:
    seen: list[tuple[int, int]] = []
    search = rankscope.optimize_fusion(
        QRELS, [BM25, DENSE], "wsum", "AP", step=0.25, progress=lambda *step: seen.append(step)
    )
    assert len(search.trials) == 5
    assert seen == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]


def test_no_bar_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    rankscope.optimize_fusion(QRELS, [BM25, DENSE], "wsum", "AP", step=0.5, progress=True)
    assert capsys.readouterr().err == ""


def test_a_bar_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("rich")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich, too, takes standard error for a terminal
    search = rankscope.optimize_fusion(QRELS, [BM25, DENSE], "wsum", "AP", step=0.5, progress=True)
    err = capsys.readouterr().err
    assert "wsum: trials" in err and f"{len(search.trials)}/{len(search.trials)}" in err
