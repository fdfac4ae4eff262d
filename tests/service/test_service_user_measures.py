"""Measures defined by users in the service: a task naming them scores them as the kernels
score the same measures, keeps the files that define them, and a process that does not know
them (a resume after a crash, a worker) loads them again, or fails saying which file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rankscope.measures import load, undefine
from rankscope.service import EvaluationService

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "weknora_samples"
MODULE = Path(__file__).resolve().parents[1] / "measures" / "user_measures.py"
MEASURES = ["UserP@5", "P@5", "UserNDCG@10", "nDCG@10"]


def _forget(names: list[str]) -> None:
    for name in names:
        undefine(name)


def test_a_task_scores_user_measures_and_defines_them_again(tmp_path: Path) -> None:
    names = load(MODULE)
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(EXAMPLES, "bm25", profile="trec", measures=MEASURES)
        _forget(names)  # as a process started after a crash knows none of them
        info = service.run(task.id)
        records = service.query_results(task.id, status="succeeded")
    finally:
        service.close()
        _forget(names)
    assert info.status == "succeeded" and info.succeeded > 0
    assert info.metrics["UserP@5"] == info.metrics["P@5"]
    assert info.metrics["UserNDCG@10"] == pytest.approx(info.metrics["nDCG@10"], rel=1e-12)
    for record in records:
        assert record.metrics["UserP@5"] == record.metrics["P@5"]


def test_a_task_whose_measures_file_is_gone_fails_saying_so(tmp_path: Path) -> None:
    copy = tmp_path / "mine.py"
    shutil.copy(MODULE, copy)
    names = load(copy)
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(EXAMPLES, "bm25", profile="trec", measures=["UserP@5"])
        _forget(names)
        copy.unlink()
        info = service.run(task.id)
    finally:
        service.close()
        _forget(names)
    assert info.status == "failed"
    assert info.error == (
        f"{copy}: task {task.id}'s measures are defined by {copy}, which cannot be loaded: "
        f"{copy}: no such file (--measures-from takes a Python file or a module's dotted name)"
    )


def test_the_run_command_reads_measures_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankscope.cli import main

    common = ["run", "--dataset", str(EXAMPLES), "--retriever", "bm25", "--profile", "trec"]
    common += ["--db", str(tmp_path / "cli.db"), "--measures-from", str(MODULE)]
    try:
        assert main([*common, "-m", "UserP@5,P@5"]) == 0
    finally:
        _forget(["UserP", "UserPVec", "UserNDCG"])
    out = capsys.readouterr().out
    ours = re.search(r"^  UserP@5 +(\S+)$", out, re.MULTILINE)
    theirs = re.search(r"^  P@5 +(\S+)$", out, re.MULTILINE)
    assert ours and theirs, out
    assert ours.group(1) == theirs.group(1)
