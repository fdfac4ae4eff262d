"""The compiled core, rankscope._core: per-query values shared with numpy and Arrow, inputs
walked and read natively, and `import rankscope` without numpy or polars."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

import rankscope
from rankscope import _core

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
RUN = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d5": 0.9, "d4": 0.1}}


def test_scores_are_a_view_of_the_cores_buffer() -> None:
    results = rankscope.evaluate(QRELS, RUN, ["P@2", "RR"])
    scores = results.scores("RR")
    assert scores.tolist() == [1.0, 0.5]
    assert not scores.flags.writeable and not scores.flags.owndata
    column = results.values.column(1)
    assert np.shares_memory(np.frombuffer(column, dtype=np.float64), scores) or (
        np.frombuffer(column, dtype=np.float64).ctypes.data == scores.ctypes.data
    )
    view = memoryview(column)
    assert (view.format, view.readonly, view.shape) == ("d", True, (2,))
    with pytest.raises(ValueError, match="read-only"):
        scores[0] = 2.0


def test_frames_come_from_the_arrow_stream() -> None:
    results = rankscope.evaluate(QRELS, RUN, ["P@2", "RR"])
    table = pa.table(results.values)
    assert table.schema.names == ["query_id", "P@2", "RR"]
    assert table.column("RR").to_pylist() == [1.0, 0.5]
    frame = results.to_polars()
    assert frame.schema == pl.Schema({"query_id": pl.String, "P@2": pl.Float64, "RR": pl.Float64})
    assert frame.rows() == [("q1", 0.5, 1.0), ("q2", 0.5, 0.5)]
    assert results.to_pandas()["RR"].tolist() == [1.0, 0.5]


def test_values_computed_elsewhere_are_sorted_by_query_id() -> None:
    values = _core.PerQuery(
        ["b", "a", "c"],
        ["AP", "NumQ"],
        ["mean", "count"],
        [
            [0.5, 1.0, 0.0],
            [1.0, 1.0, 1.0],
        ],
    )
    assert values.query_ids() == ["a", "b", "c"]
    assert values.to_dict() == {
        "a": {"AP": 1.0, "NumQ": 1.0},
        "b": {"AP": 0.5, "NumQ": 1.0},
        "c": {"AP": 0.0, "NumQ": 1.0},
    }
    assert values.aggregates() == [0.5, 3.0]
    with pytest.raises(ValueError, match="a column holds 1 values for 3 queries"):
        _core.PerQuery(["b", "a", "c"], ["AP"], ["mean"], [[0.5]])


def test_dicts_are_walked_with_the_messages_of_the_python_tables() -> None:
    with pytest.raises(
        rankscope.InputError,
        match=r"<dict>: relevance must be an integer grade; "
        r"found 1\.5 for query 'q1', document 'd1' \(row 1\)",
    ):
        rankscope.evaluate({"q1": {"d1": 1.5}}, RUN, "AP")
    with pytest.raises(
        rankscope.InputError,
        match="document ids must be strings or integers; "
        r"found float 1\.0 in query 'q1'",
    ):
        rankscope.evaluate(QRELS, {"q1": {1.0: 1.0}}, "AP")
    with pytest.raises(
        rankscope.InputError,
        match="results of query 'q1' must be a list of document ids in rank order; found set",
    ):
        rankscope.evaluate(QRELS, {"q1": {"d1"}}, "AP")
    # Integer ids become their text; numpy numbers are numbers; ranked lists rank as given.
    run = {1: {np.int64(7): np.float32(0.5)}}
    assert rankscope.evaluate({1: {7: np.int64(1)}}, run, "RR").to_dict() == {"1": {"RR": 1.0}}
    assert rankscope.evaluate(QRELS, {"q1": ("d3", "d1")}, "RR").mean() == {"RR": 0.5}


def test_arrow_tables_are_read_as_runs() -> None:
    frame = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d2", "d1"], "score": [2.0, 1.0]})
    run = _core.run_from_arrow(frame, "frame")
    qrels = _core.qrels_from_dict(QRELS)
    values, unjudged, missing = _core.evaluate(qrels, run, _core.plan(["RR"], "trec"))
    assert (values.to_dict(), unjudged, missing) == ({"q1": {"RR": 1.0}}, [], ["q2"])
    as_arrow = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "score": pa.array([1], pa.int8())})
    assert len(_core.run_from_arrow(as_arrow)) == 1


def test_reading_releases_the_gil(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    lines = [f"q{q} Q0 d{d} {d + 1} {1000 - d} tag" for q in range(400) for d in range(500)]
    run.write_text("\n".join(lines) + "\n")
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        for _ in range(3):
            _core.read_trec_run(str(run), path=str(run))
    finally:
        done.set()
        counter.join()
    assert ticks > 1000  # the counting thread ran while the core read


def _evaluate_in_a_process(
    tmp_path: Path, output: str, watched: tuple[str, ...]
) -> tuple[dict[str, list[str]], list[str]]:
    """Which of the ``watched`` modules a fresh process loads with ``import rankscope``, and
    by the end of ``rankscope evaluate`` on two small TREC files writing ``output`` (modules the
    interpreter's start-up loaded, e.g. through a site's .pth file, are not counted); and what
    it printed."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d2 1 2.0 bm25\nq1 Q0 d1 2 1.0 bm25\n")
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import json\n"
        f"watched = [m for m in {watched!r} if m not in before]\n"
        "import rankscope\n"
        "loaded = {'import': [m for m in watched if m in sys.modules]}\n"
        "from rankscope.cli import main\n"
        f"code = main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'RR', '-f', {output!r}])\n"
        "loaded['evaluate'] = [m for m in watched if m in sys.modules]\n"
        "print(json.dumps([code, loaded]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    *printed, last = done.stdout.splitlines()
    code, loaded = json.loads(last)
    assert code == 0
    return loaded, printed


def test_import_rankscope_loads_neither_numpy_nor_polars(tmp_path: Path) -> None:
    loaded, printed = _evaluate_in_a_process(tmp_path, "csv", ("numpy", "polars"))
    assert "bm25,0.5" in printed
    assert loaded == {"import": [], "evaluate": []}


# Modules that cost a small evaluation's start-up more than its reading: dataclasses (through
# inspect), pathlib (through urllib), the compression codecs (shutil loads them too), datetime,
# trec_eval's tables.
START_UP_HEAVY = (
    "dataclasses",
    "inspect",
    "pathlib",
    "shutil",
    "bz2",
    "lzma",
    "gzip",
    "datetime",
    "rankscope.report.trec_eval",
)


@pytest.mark.parametrize("output", ["json", "table"])
def test_evaluating_a_trec_file_loads_only_what_it_uses(tmp_path: Path, output: str) -> None:
    loaded, printed = _evaluate_in_a_process(tmp_path, output, START_UP_HEAVY)
    assert "0.5" in "".join(printed)
    assert loaded["evaluate"] == []
