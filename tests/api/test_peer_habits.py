"""What the peers' users write that `rankscope.evaluate` and its neighbours take as they mean
it: a dict of runs evaluated into one table, values keyed by the names given, empty inputs
scored as ir_measures scores them, fused runs that keep a query every run left empty, progress
of the long calls, and swapped arguments said so by `compare_runs`."""

from __future__ import annotations

import io
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rankscope
from rankscope.errors import EmptyInputError, InputError, RankscopeWarning
from rankscope.report.results import render

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {"a": 1}}
BM25 = {"q1": ["b", "a"], "q2": ["c"], "q3": ["x", "y", "a"]}
DENSE = {"q1": ["a"], "q2": ["x", "c"], "q3": ["a"]}


# --- a dict of runs: one table --------------------------------------------------------------


def test_a_dict_of_runs_is_evaluated_run_by_run_into_one_table() -> None:
    both = rankscope.evaluate(QRELS, {"bm25": BM25, "dense": DENSE}, ["mrr", "P@1"])
    assert isinstance(both, rankscope.ResultsByRun) and list(both) == ["bm25", "dense"]
    for name, run in [("bm25", BM25), ("dense", DENSE)]:
        alone = rankscope.evaluate(QRELS, run, ["mrr", "P@1"])
        assert both[name].to_dict() == alone.to_dict() and both[name].run_name == name
        assert both.mean()[name] == alone.mean()
    assert both.mean() == {
        "bm25": {"mrr": (0.5 + 1.0 + 1 / 3) / 3, "P@1": 1 / 3},
        "dense": {"mrr": (1.0 + 0.5 + 1.0) / 3, "P@1": 2 / 3},
    }
    # The command line's table of several runs, and its frame with a run column.
    assert str(both) == render(list(both.values()), "table").rstrip("\n")
    assert str(both).splitlines()[0].split() == ["run", "RR", "P@1"]
    assert both.per_query.columns == ["run", "query_id", "RR", "P@1"]
    assert both.per_query.height == 6 and both.per_query["run"].to_list()[:3] == ["bm25"] * 3
    assert both.to_polars().rows() == [
        ("bm25", (0.5 + 1.0 + 1 / 3) / 3, 1 / 3),
        ("dense", (1.0 + 0.5 + 1.0) / 3, 2 / 3),
    ]
    assert "<td>bm25</td>" in both._repr_html_()
    assert repr(both) == "ResultsByRun('bm25', 'dense'; mrr, P@1)"


def test_a_dict_of_runs_takes_files_run_objects_and_frames(tmp_path: Path) -> None:
    path = tmp_path / "bm25.run"
    path.write_text("q1 Q0 a 1 0.9 bm25\nq2 Q0 c 1 0.5 bm25\n")
    runs: dict[str, Any] = {
        "file": str(path),
        "path": path,
        "run": rankscope.Run({"q1": ["a"], "q2": ["c"]}),
        "frame": pl.DataFrame(
            {"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "score": [1.0, 1.0]}
        ),
    }
    every = rankscope.evaluate(QRELS, runs, "AP")
    assert {name: results.mean()["AP"] for name, results in every.items()} == dict.fromkeys(
        runs, 1.0
    )
    with pytest.raises(KeyError, match="no run named 'bm26'; runs: file, path, run, frame"):
        every["bm26"]


def test_run_names_must_be_non_empty_strings() -> None:
    with pytest.raises(InputError, match="run names must be non-empty strings; got 3"):
        rankscope.evaluate(QRELS, {"bm25": BM25, 3: DENSE}, "AP")


# --- values keyed by the names given ----------------------------------------------------------


def test_values_are_keyed_by_the_names_given_and_found_by_any_alias() -> None:
    results = rankscope.evaluate(QRELS, BM25, ["ndcg_cut.3", "map", "recip_rank"])
    means = results.mean()
    assert list(means) == ["ndcg_cut.3", "map", "recip_rank"]
    assert means["nDCG@3"] == means["ndcg_cut_3"] == means["ndcg_cut.3"]
    assert means["AP"] == means["map"] and "RR" in means and "P@5" not in means
    assert means.get("MRR") == means["recip_rank"] and means.get("P@5", -1.0) == -1.0
    with pytest.raises(KeyError):
        means["P@5"]
    assert list(results["q1"]) == ["ndcg_cut.3", "map", "recip_rank"]
    assert results["q1"]["AP"] == results["q1"]["map"] == 0.5
    assert list(results.to_dict()["q2"]) == ["ndcg_cut.3", "map", "recip_rank"]
    assert results.score_dict("map") == results.score_dict("AP")
    # The frames, the command line and every renderer keep the canonical names.
    assert results.per_query.columns == ["query_id", "nDCG@3", "AP", "RR"]
    assert render([results], "table").split()[:4] == ["run", "nDCG@3", "AP", "RR"]
    assert '"AP": 0.5' in render([results], "json", per_query=True)
    assert repr(results).startswith("Results('run', 3 queries, ndcg_cut.3=")


def test_a_measure_given_twice_is_keyed_by_its_first_name() -> None:
    results = rankscope.evaluate(QRELS, BM25, "ndcg_cut.3, nDCG@3, P@1")
    assert list(results.mean()) == ["ndcg_cut.3", "P@1"]
    assert [m.name for m in results.measures] == ["nDCG@3", "P@1"]


def test_the_default_measures_and_measure_objects_keep_their_canonical_names() -> None:
    weknora = rankscope.evaluate(QRELS, BM25, profile="weknora")
    assert list(weknora.mean()) == ["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]
    given = rankscope.evaluate(QRELS, BM25, [rankscope.measure("map")])
    assert list(given.mean()) == ["AP"]


def test_names_survive_renaming_and_restriction_to_some_queries() -> None:
    results = rankscope.evaluate(QRELS, BM25, ["map", "mrr"])
    assert list(results.renamed("bm25").mean()) == ["map", "mrr"]
    only = results.only_queries(["q1"])
    assert only.mean() == {"map": 0.5, "mrr": 0.5}


def test_ir_measures_printed_gains_key_the_value_as_ir_measures_prints_them() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.nDCG(gains={0: 1, 1: 4}) @ 10
    results = rankscope.evaluate(QRELS, BM25, [measure, str(measure)])
    scored = {q: {d: 3.0 - i for i, d in enumerate(docs)} for q, docs in BM25.items()}
    expected = ir_measures.calc_aggregate([measure], QRELS, scored)
    assert str(measure) == "nDCG(gains={0:1,1:4})@10"
    assert list(results.mean()) == ["nDCG(gains={0:1,1:4})@10"]
    assert results.mean()[str(measure)] == pytest.approx(expected[measure], abs=1e-12)
    # The canonical name is one spelling for every way of writing the same gains.
    assert results.measures[0].name == "nDCG(gains=0:1.0;1:4.0)@10"
    assert rankscope.measure("nDCG(gains={1:4,0:1})@10") == results.measures[0]


# --- empty inputs -----------------------------------------------------------------------------


RUN_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}


@pytest.mark.parametrize(
    "empty", [{}, [], pl.DataFrame(schema=RUN_SCHEMA)], ids=["dict", "list", "frame"]
)
def test_an_empty_run_retrieved_nothing_for_every_judged_query(empty: Any) -> None:
    results = rankscope.evaluate(QRELS, empty, ["AP", "nDCG@10", "P@5", "NumRel", "NumRet"])
    assert results.query_ids == ["q1", "q2", "q3"] and results.missing_queries == ()
    assert results.to_dict()["q2"] == {
        "AP": 0.0,
        "nDCG@10": 0.0,
        "P@5": 0.0,
        "NumRel": 1.0,
        "NumRet": 0.0,
    }
    assert results.mean()["AP"] == 0.0 and results.mean()["NumRel"] == 3.0


def test_an_empty_run_scores_as_ir_measures_scores_it() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.RR]
    expected = ir_measures.calc_aggregate(measures, QRELS, {})
    results = rankscope.evaluate(QRELS, {}, measures)
    assert results.mean() == {str(m): value for m, value in expected.items()}


def test_empty_qrels_give_empty_results_with_a_warning() -> None:
    with pytest.warns(RankscopeWarning, match=r"the qrels hold no judgements: no query of run "):
        results = rankscope.evaluate({}, BM25, ["map", "P@1"])
    assert len(results) == 0 and results.to_dict() == {}
    assert results.unjudged_queries == ("q1", "q2", "q3")
    assert list(results.mean()) == ["map", "P@1"]
    assert all(math.isnan(value) for value in results.mean().values())
    with pytest.warns(RankscopeWarning, match=r"\(0 unjudged\)"):
        nothing = rankscope.evaluate({}, {}, "AP")
    assert len(nothing) == 0 and math.isnan(nothing.mean()["AP"])


def test_empty_files_are_still_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(EmptyInputError, match=r"empty\.txt: file is empty"):
        rankscope.evaluate(QRELS, str(empty), "AP")
    with pytest.raises(EmptyInputError, match=r"empty\.txt: file is empty"):
        rankscope.evaluate(str(empty), BM25, "AP")


# --- runs that hold a query empty; fusion ------------------------------------------------------


def test_a_run_keeps_the_queries_given_empty() -> None:
    run = rankscope.Run({"q1": ["a"], "q2": [], "q3": []}, name="bm25")
    assert run.empty_queries == ("q2", "q3") and run.query_ids == ["q1", "q2", "q3"]
    assert run.to_dict() == {"q1": {"a": 1.0}, "q2": {}, "q3": {}}
    assert repr(run) == "Run('bm25', 1 results, 3 queries, source='<lists>')"
    assert rankscope.Run({"q1": {}}).empty_queries == ("q1",)
    renamed = rankscope.io.as_run(run, name="other")
    assert renamed.empty_queries == ("q2", "q3") and renamed.name == "other"
    results = rankscope.evaluate(QRELS, run, ["AP", "NumRet"])
    assert results.query_ids == ["q1", "q2", "q3"] and results.missing_queries == ()
    assert results["q2"] == {"AP": 0.0, "NumRet": 0.0}
    with pytest.raises(EmptyInputError, match="run holds no results"):
        rankscope.Run({})


def test_a_query_with_rows_is_not_an_empty_query() -> None:
    frame = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    run = rankscope.io.Run.from_frame(frame, empty_queries=["q1", "q2", "q2"])
    assert run.empty_queries == ("q2",)


def _fusion_methods() -> list[str]:
    from rankscope.fuse import METHODS

    return [name for name, method in METHODS.items() if not method.trained]


@pytest.mark.parametrize("method", _fusion_methods())
def test_every_fusion_keeps_a_query_every_run_holds_empty(method: str) -> None:
    runs = [
        {"q1": {"a": 0.9, "b": 0.5}, "q2": {}, "q3": {"a": 0.3}},
        {"q1": {"b": 0.8, "c": 0.1}, "q2": {}},
    ]
    params = {"gmnz": {"gamma": 1.0}, "rbc": {"phi": 0.8}}.get(method)  # no default
    fused = rankscope.fuse(runs, method, params=params)
    assert fused.query_ids == ["q1", "q2", "q3"] and fused.empty_queries == ("q2",)
    results = rankscope.evaluate(QRELS, fused, "AP")
    assert results.query_ids == ["q1", "q2", "q3"] and results["q2"] == {"AP": 0.0}


def test_a_trec_file_of_a_run_has_no_line_for_an_empty_query(tmp_path: Path) -> None:
    run = rankscope.Run({"q1": ["a"], "q2": []}, name="fused")
    path = tmp_path / "fused.run"
    rankscope.io.write_run(run, path)
    assert path.read_text() == "q1 Q0 a 1 1.0 fused\n"
    back = rankscope.evaluate(QRELS, str(path), "AP")
    assert "q2" in back.missing_queries


# --- progress ---------------------------------------------------------------------------------


def test_compare_runs_reports_its_steps() -> None:
    seen: list[tuple[int, int]] = []
    qrels = {f"q{i}": {"a": 1} for i in range(6)}
    runs = {
        "bm25": {f"q{i}": ["x", "a"] for i in range(6)},
        "dense": {f"q{i}": ["a"] if i % 2 else ["x", "a"] for i in range(6)},
    }
    report = rankscope.compare_runs(
        qrels, runs, ["RR", "P@1"], progress=lambda done, total: seen.append((done, total))
    )
    # Two runs evaluated, then the two rows' intervals, computed here and kept.
    assert seen == [(1, 2), (2, 2), (1, 2), (2, 2)]
    assert all("difference_ci" in vars(row) for row in report.comparison.rows)
    quiet = rankscope.compare_runs(qrels, runs, ["RR", "P@1"])
    assert not any("difference_ci" in vars(row) for row in quiet.comparison.rows)
    assert [row.difference_ci for row in quiet.comparison.rows] == [
        row.difference_ci for row in report.comparison.rows
    ]


def test_pool_reports_the_runs_read() -> None:
    from rankscope.judge import pool

    seen: list[tuple[int, int]] = []
    pooled = pool([BM25, DENSE, BM25], 2, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)] and len(pooled) > 0


def test_no_bar_when_standard_error_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    from rankscope._progress import shown, steps

    assert not shown(True)  # pytest captures standard error: not a terminal
    with steps(3, "trials", True) as advance:
        advance(1)
    assert capsys.readouterr().err == ""


# --- swapped arguments ------------------------------------------------------------------------


def test_compare_runs_says_when_the_runs_come_first() -> None:
    runs = {"bm25": {"q1": {"a": 0.5}}, "dense": {"q1": {"a": 0.7}}}
    with pytest.raises(InputError) as raised:
        rankscope.compare_runs(runs, {"q1": {"a": 1}}, "AP")
    assert str(raised.value).endswith(
        "were the qrels and the runs given in the wrong order? The qrels come first: "
        "compare_runs(qrels, runs)"
    )
    with pytest.raises(InputError, match=r"The qrels come first: compare_runs\(qrels, runs\)"):
        rankscope.compare_runs({"q1": {"a": 0.5}}, runs, "AP")


def test_evaluate_keeps_its_own_hint() -> None:
    with pytest.raises(InputError, match=r"The qrels come first: evaluate\(qrels, run\)$"):
        rankscope.evaluate({"q1": {"a": 0.5}}, {"q1": {"a": 1}}, "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rankscope.evaluate(QRELS, BM25, "AP")  # no warning for inputs in the right order


def test_a_streamed_run_file_reports_the_mebibytes_read(tmp_path: Path) -> None:
    path = tmp_path / "big.run"
    lines = [
        f"q{q} Q0 d{d} {d + 1} {1.0 - d / 1000} tag{q}\n" for q in range(3) for d in range(400)
    ]
    path.write_text("".join(lines))
    qrels = {f"q{q}": {"d3": 1, "d7": 2} for q in range(3)}
    seen: list[tuple[int, int]] = []
    counted = rankscope.evaluate(
        qrels,
        str(path),
        ["AP", "nDCG@10"],
        stream=True,
        chunk_bytes=4096,
        progress=lambda done, total: seen.append((done, total)),
    )
    alone = rankscope.evaluate(qrels, str(path), ["AP", "nDCG@10"], stream=True, chunk_bytes=4096)
    assert counted.to_dict() == alone.to_dict() and counted.run_name == alone.run_name == "tag2"
    assert seen and all(total == 1 for _, total in seen) and seen[-1][0] == 0  # under 1 MiB
    # A run in memory has nothing to show.
    rankscope.evaluate(qrels, BM25, "AP", progress=lambda done, total: seen.append((-1, -1)))
    assert (-1, -1) not in seen


def test_the_command_line_shows_a_bar_where_the_reading_can_be_counted(tmp_path: Path) -> None:
    import gzip

    from rankscope.engine._evaluate import counts_progress

    plain = tmp_path / "run.trec"
    plain.write_text("q1 Q0 a 1 1.0 t\n")
    packed = tmp_path / "run.trec.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert counts_progress(str(plain), stream=True)
    assert not counts_progress(str(plain))  # small: read whole, with the spinner if any
    assert not counts_progress(str(packed), stream=True)  # decompressed: no size to count
    assert not counts_progress(BM25)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_one_bar_at_a_time_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from rankscope._progress import bar_shown, steps

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    seen: list[tuple[int, int]] = []
    with steps(2, "evaluating runs", True) as advance:
        assert bar_shown()
        with steps(5, "reading run.trec (MiB)", True) as inner:  # inside: nothing more shown
            inner(3)
        with steps(5, "trials", lambda done, total: seen.append((done, total))) as called:
            called(4)  # a callback is called whatever is on the terminal
        advance(2)
    assert not bar_shown() and seen == [(4, 5)]
    assert (
        "evaluating runs" in terminal.getvalue() and "reading run.trec" not in terminal.getvalue()
    )
