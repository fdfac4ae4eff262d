"""`rankscope.fuse`: hand-computed cases, the tie rule, inputs, and errors."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

import rankscope
from rankscope.errors import DuplicateDocumentError, OptionError
from rankscope.fuse import METHODS, NORMS
from rankscope.io import Run, write_run

BM25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d9": 1.0}}
DENSE = {"q1": {"d3": 0.9, "d4": 0.5}}


def rows(run: Run) -> list[tuple[str, str, float]]:
    return run.frame.rows()


def test_rrf_by_hand() -> None:
    fused = rankscope.fuse([BM25, DENSE], "rrf", params={"k": 60})
    assert rows(fused) == [
        ("q1", "d3", 1 / 63 + 1 / 61),
        ("q1", "d1", 1 / 61),
        ("q1", "d4", 1 / 62),
        ("q1", "d2", 1 / 62),
        ("q2", "d9", 1 / 61),
    ]
    assert fused.name == "rrf"


def test_min_max_then_sum_by_hand() -> None:
    # BM25 q1 -> 1, 0.5, 0; DENSE q1 -> d3 1, d4 0; a single document normalises to 0.
    fused = rankscope.fuse([BM25, DENSE], "sum", norm="min-max")
    assert rows(fused) == [
        ("q1", "d3", 1.0),
        ("q1", "d1", 1.0),
        ("q1", "d2", 0.5),
        ("q1", "d4", 0.0),
        ("q2", "d9", 0.0),
    ]


def test_ties_fall_to_the_larger_document_id_bytewise() -> None:
    runs = [{"q": {"B": 1.0, "a": 1.0}}, {"q": {"b": 1.0, "A": 1.0}}]
    fused = rankscope.fuse(runs, "sum", norm=None)
    assert [doc for _, doc, _ in rows(fused)] == ["b", "a", "B", "A"]


def test_tied_input_scores_rank_by_document_id_for_rank_based_methods() -> None:
    # d2 and d1 tie in the first run: d2 (larger id) takes rank 1.
    fused = rankscope.fuse([{"q": {"d1": 1.0, "d2": 1.0}}, {"q": {"d3": 1.0}}], "rrf")
    assert dict((doc, score) for _, doc, score in rows(fused)) == {
        "d2": 1 / 61,
        "d1": 1 / 62,
        "d3": 1 / 61,
    }


def test_a_query_missing_from_a_run_is_an_empty_ranking() -> None:
    fused = rankscope.fuse([BM25, DENSE], "mnz", norm=None)
    assert [r for r in rows(fused) if r[0] == "q2"] == [("q2", "d9", 1.0)]


def test_inputs_are_runs_dicts_lists_or_files(tmp_path: Path) -> None:
    path = tmp_path / "bm25.trec"
    write_run(Run.from_dict(BM25, name="bm25"), path)
    from_file = rankscope.fuse(
        [str(path), Run.from_dict(DENSE)], "wsum", params={"weights": [1, 2]}
    )
    from_dicts = rankscope.fuse([BM25, DENSE], "wsum", params={"weights": [1, 2]})
    assert rows(from_file) == rows(from_dicts)
    lists = rankscope.fuse([{"q1": ["d1", "d2"]}, {"q1": ["d2"]}], "bordafuse", name="mine")
    assert lists.name == "mine"
    assert rows(lists)[0][1] == "d2"


def test_inputs_are_not_modified() -> None:
    bm25 = {"q1": {"d1": 3.0, "d2": 2.0}}
    rankscope.fuse([bm25, DENSE], "sum", norm="zmuv")
    assert bm25 == {"q1": {"d1": 3.0, "d2": 2.0}}


@pytest.mark.parametrize("norm", [*NORMS, None])
@pytest.mark.parametrize("method", [m for m in METHODS if not METHODS[m].trained])
def test_every_method_and_norm_gives_finite_scores_in_trec_order(method: str, norm: str) -> None:
    params = {"gmnz": {"gamma": 0.5}, "rbc": {"phi": 0.5}}.get(method, {})
    fused = rows(rankscope.fuse([BM25, DENSE, {"q1": {"d2": 5.0}}], method, norm, params))
    assert {doc for q, doc, _ in fused if q == "q1"} == {"d1", "d2", "d3", "d4"}
    assert all(math.isfinite(score) for _, _, score in fused)
    for query in ("q1", "q2"):
        ranking = [(score, doc) for q, doc, score in fused if q == query]
        assert ranking == sorted(ranking, reverse=True)


def test_the_package_is_callable_and_import_stays_light() -> None:
    import rankscope.fuse as module

    assert module(runs=[BM25, DENSE]).frame.height == 5
    assert rankscope.fuse is module
    code = (
        "import sys, rankscope; "
        "print('rankscope.fuse' in sys.modules); "
        "rankscope.optimize_fusion; print('rankscope.fuse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "borda"}, "unknown fusion method 'borda'; expected one of sum, mnz"),
        ({"norm": "l2"}, "unknown normalization 'l2'"),
        ({"method": "rrf", "params": {"kk": 1}}, "rrf takes no parameter kk; it accepts: k"),
        ({"method": "rrf", "params": {"k": -1}}, "rrf: k must be >= 0"),
        ({"method": "gmnz"}, "gmnz needs the parameter gamma"),
        ({"method": "rbc", "params": {"phi": 1.5}}, "rbc: phi must lie in [0, 1]"),
        ({"method": "logn_isr", "params": {"sigma": 2}}, "sigma must lie in [0, 1]"),
        ({"method": "wsum", "params": {"weights": [1]}}, "needs one value per run (2); got 1"),
        ({"method": "wsum", "params": {"weights": [1, "a"]}}, "weights must be a number"),
        ({"method": "wsum", "params": {"weights": [1, math.nan]}}, "weights must be finite"),
        ({"method": "probfuse"}, "train it with rankscope.optimize_fusion(qrels, runs"),
        ({"method": "slidefuse", "params": {"probs": [[1.0], [1.0]], "w": -1}}, "w must be"),
    ],
)
def test_bad_options_say_what_is_wrong(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError) as error:
        rankscope.fuse([BM25, DENSE], **kwargs)  # type: ignore[arg-type]
    assert message in str(error.value)


def test_one_run_is_not_enough() -> None:
    with pytest.raises(OptionError, match="at least two runs; got 1"):
        rankscope.fuse([BM25])
    with pytest.raises(OptionError, match="must be a list of runs"):
        rankscope.fuse(BM25)  # type: ignore[arg-type]


def test_a_duplicate_document_names_run_query_and_document(tmp_path: Path) -> None:
    path = tmp_path / "dup.trec"
    path.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")
    with pytest.raises(DuplicateDocumentError) as error:
        rankscope.fuse([BM25, str(path)])
    assert str(error.value) == f"{path}: document 'd1' appears twice in query 'q1'"
