"""What `evaluate` and every function that takes measures accept: None (the profile's
defaults), strings listing several measures, ir_measures' measure objects; and the hints for
arguments given in the wrong order."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope.engine import evaluate_query
from rankscope.engine.measures import default_measures, given_measures, split_measures

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 3}}
RUN = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7, "x": 0.1}, "q2": {"d5": 0.9, "y": 0.5, "d4": 0.1}}


def names(results: rankscope.Results) -> list[str]:
    return [m.name for m in results.measures]


@pytest.mark.parametrize("profile", ["trec", "trec9", "weknora"])
def test_no_measures_means_the_profiles_defaults(profile: str) -> None:
    expected = [rankscope.measure(name).name for name in default_measures(profile)]
    omitted = rankscope.evaluate(QRELS, RUN, profile=profile)
    assert names(omitted) == expected
    assert names(rankscope.evaluate(QRELS, RUN, None, profile)) == expected
    assert omitted.mean() == rankscope.evaluate(QRELS, RUN, expected, profile).mean()


def test_weknora_defaults_are_weknoras_six_and_conventions_take_their_profiles() -> None:
    results = rankscope.evaluate(QRELS, RUN, profile="weknora")
    assert names(results) == ["P", "R", "nDCG@3", "nDCG@10", "RR", "AP"]
    # Conventions named after a profile take its defaults; others take trec's.
    judged_only = rankscope.PROFILES["trec9"].with_options(unjudged_documents="drop")
    assert names(rankscope.evaluate(QRELS, RUN, profile=judged_only)) == names(
        rankscope.evaluate(QRELS, RUN)
    )


def test_evaluate_query_and_compare_runs_default_their_measures_too() -> None:
    judged = [("a", 2), ("b", 0)]
    ranking = [("b", 0.5), ("a", 0.4)]
    defaults = [rankscope.measure(name) for name in default_measures("trec")]
    assert evaluate_query(judged, ranking) == evaluate_query(judged, ranking, defaults)
    assert evaluate_query(judged, ranking, "RR, P@1") == [0.5, 0.0]
    qrels = {f"q{i}": {"a": 1} for i in range(6)}
    runs = {
        "bm25": {f"q{i}": ["x", "a"] for i in range(6)},
        "dense": {f"q{i}": ["a"] for i in range(6)},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant differences: t is NaN
        report = rankscope.compare_runs(qrels, runs, test="randomization", n_resamples=200)
    assert list(report.comparison.measures) == [m.name for m in defaults]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("nDCG@10,AP", ["nDCG@10", "AP"]),
        ("P(rel=2)@5, AP", ["P(rel=2)@5", "AP"]),
        (" RR , ndcg_cut.10,", ["RR", "nDCG@10"]),
        (["nDCG@10, AP", "RR", "map"], ["nDCG@10", "AP", "RR"]),
        # One valid name holding commas stays one measure.
        ("P(rel=2,judged_only=True)@5", ["P(rel=2,judged_only=True)@5"]),
        ("RBP(p=0.5,rel=3)", ["RBP(p=0.5,rel=3)"]),
        ("nDCG(gains={0:0,1:4})@10, AP", ["nDCG(gains=0:0.0;1:4.0)@10", "AP"]),
    ],
)
def test_strings_list_measures_as_the_command_line_splits_them(
    given: str | list[str], expected: list[str]
) -> None:
    results = rankscope.evaluate(QRELS, RUN, given)
    assert names(results) == expected
    separately = rankscope.evaluate(QRELS, RUN, expected)
    # Keyed by the names given (" ndcg_cut.10" as "ndcg_cut.10"), the canonical ones find them.
    assert list(results.mean().values()) == list(separately.mean().values())
    assert all(results.mean()[name] == separately.mean()[name] for name in expected)
    assert [m.name for m in rankscope.engine.parse_measures(given)] == expected


def test_the_command_line_splits_with_the_same_rule() -> None:
    from rankscope.cli._common import split_measures as cli_split

    assert cli_split(["nDCG@10,P(rel=2)@5", "AP"]) == ["nDCG@10", "P(rel=2)@5", "AP"]
    assert split_measures("nDCG(gains={0:0,1:4})@10") == ["nDCG(gains={0:0,1:4})@10"]
    assert cli_split(["nDCG(gains={0:0,1:4})@10,RR"]) == ["nDCG(gains={0:0,1:4})@10", "RR"]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        *(
            (
                trec_eval_list,
                f"'{trec_eval_list}' is trec_eval's -m syntax, which `rankscope trec-eval` "
                "reads; here a list names each measure in full, separated by commas (P.5,10 is "
                "P@5,P@10; utility.1,-1,0,1 is Utility(a=1,b=-1,c=0,d=1); ndcg.1=0.5,2=1 is "
                "nDCG(gains=1:0.5;2:1))",
            )
            for trec_eval_list in ["P.5,10", "utility.1,-1,0,1", "ndcg.1=0.5,2=1"]
        ),
        (
            "nDCG@10,5",
            "'5' in 'nDCG@10,5' is not a measure: a list names each measure in full, separated "
            "by commas (P@5,P@10)",
        ),
        ("nDCG@10,nDGC@5", "unknown measure 'nDGC'; did you mean nDCG"),
        (",", "no measure named in ','"),
    ],
)
def test_a_bad_list_names_the_piece_that_is_wrong(given: str, message: str) -> None:
    with pytest.raises(rankscope.MeasureError) as caught:
        rankscope.evaluate(QRELS, RUN, given)
    assert str(caught.value).startswith(message)


ir_measures = pytest.importorskip("ir_measures")


def test_ir_measures_objects_are_taken_wherever_measures_are() -> None:
    theirs = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.RR, ir_measures.AP]
    expected = ["nDCG@10", "P(rel=2)@5", "RR", "AP"]
    results = rankscope.evaluate(QRELS, RUN, theirs)
    assert names(results) == expected
    assert results.mean() == rankscope.evaluate(QRELS, RUN, expected).mean()
    assert names(rankscope.evaluate(QRELS, RUN, ir_measures.nDCG @ 10)) == ["nDCG@10"]
    assert names(rankscope.evaluate(QRELS, RUN, [str(m) for m in theirs])) == expected
    assert rankscope.measure(ir_measures.P(rel=2) @ 5).name == "P(rel=2)@5"
    assert given_measures(ir_measures.RR) == ["RR"]
    judged, ranking = [("a", 2)], [("a", 0.5)]
    assert evaluate_query(judged, ranking, [ir_measures.RR, ir_measures.P @ 1]) == [1.0, 1.0]
    qrels = {f"q{i}": {"a": 1} for i in range(6)}
    runs = {
        "bm25": {f"q{i}": ["x", "a"] for i in range(6)},
        "dense": {f"q{i}": ["a"] for i in range(6)},
    }
    report = rankscope.compare_runs(qrels, runs, [ir_measures.RR], test="randomization")
    assert list(report.comparison.measures) == ["RR"]


def test_names_do_not_import_ir_measures() -> None:
    code = (
        "import sys, rankscope\n"
        "rankscope.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0}}, 'nDCG@10, AP')\n"
        "print('ir_measures' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


SWAPPED = (
    "were the qrels and the run given in the wrong order? The qrels come first: "
    "evaluate(qrels, run)"
)


def test_a_run_given_as_the_qrels_is_refused_with_the_order() -> None:
    with pytest.raises(rankscope.InputError) as caught:
        rankscope.evaluate(RUN, QRELS, "AP")
    assert str(caught.value) == (
        "<dict>: relevance must be an integer grade; found 0.9 for query 'q1', document 'd1' "
        "(row 1): " + SWAPPED
    )


def test_a_run_frame_given_as_the_qrels_is_refused_with_the_order() -> None:
    pl = pytest.importorskip("polars")
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.9, 0.5]})
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rankscope.InputError) as caught:
        rankscope.evaluate(run, qrels, "AP")
    assert str(caught.value).endswith("(row 1): " + SWAPPED)
    with pytest.raises(rankscope.InputError) as caught:
        rankscope.evaluate({"q1": {"a": 2.0, "b": 1.5}}, run, "AP")
    assert str(caught.value).endswith(SWAPPED)
    with pytest.raises(rankscope.InputError) as caught:  # not a number: no hint
        rankscope.evaluate({"q1": {"a": "yes"}}, run, "AP")
    assert SWAPPED not in str(caught.value)


def test_float_grades_beside_integer_scores_warn_of_the_order() -> None:
    run_of_whole_scores = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d4": 1.0}}
    with pytest.warns(rankscope.RankscopeWarning, match="The qrels come first"):
        rankscope.evaluate(run_of_whole_scores, QRELS, "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rankscope.evaluate(QRELS, RUN, "AP")  # in order: no warning
        rankscope.evaluate(QRELS, {"q1": {"d1": 3, "d2": 1}}, "AP")  # integer scores alone


def test_a_frame_without_a_column_names_the_reader_that_takes_column_names() -> None:
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"qid": ["q1"], "doc": ["d1"], "relevance": [1]})
    with pytest.raises(rankscope.InputError) as caught:
        rankscope.evaluate(frame, RUN, "AP")
    message = str(caught.value)
    assert "(or name it with rankscope.io.as_qrels(..., doc_id=...))" in message
    assert "(or name it with doc_id=...)" not in message
    with pytest.raises(rankscope.InputError, match=r"name it with doc_id=\.\.\.\)"):
        rankscope.io.as_qrels(frame)  # as_qrels takes query_id=: its message says so


def test_answers_given_before_the_references_are_refused_with_the_order() -> None:
    references = {"q1": ["Paris", "Paris, France"], "q2": "Rome"}
    answers = {"q1": "Paris", "q2": "Rome"}
    with pytest.raises(rankscope.InputError) as caught:
        rankscope.evaluate_answers(answers, references, "ExactMatch")
    assert str(caught.value).endswith(
        "several texts are what references hold: were the references and the answers given "
        "in the wrong order? The references come first: evaluate_answers(references, answers)"
    )
    with pytest.raises(rankscope.InputError, match=r"qrels or a run: use rankscope\.evaluate"):
        rankscope.evaluate_answers(answers, RUN, "ExactMatch")
    assert rankscope.evaluate_answers(references, answers, "ExactMatch").mean() == {
        "ExactMatch": 1.0
    }


def test_a_dict_of_runs_is_not_misread_as_one_run(tmp_path: Path) -> None:
    path = tmp_path / "bm25.run"
    path.write_text("q1 Q0 d1 1 0.9 bm25\n")
    for runs in [
        {"bm25": RUN, "dense": RUN},
        {"bm25": {"q1": ["d1", "d2"]}},
        {"bm25": str(path), "dense": path},
        {"bm25": rankscope.io.read_run(path)},
    ]:
        every = rankscope.evaluate(QRELS, runs, "AP")  # each run, by name (one table)
        assert list(every) == list(runs)
        for name, run in runs.items():
            assert every[name].to_dict() == rankscope.evaluate(QRELS, run, "AP").to_dict()
    # A run that is wrong in another way keeps its own message.
    with pytest.raises(rankscope.InputError, match="must be a list of document ids"):
        rankscope.evaluate(QRELS, {"q1": "d1"}, "AP")


def test_measure_reads_one_and_says_so_when_given_a_list() -> None:
    assert rankscope.measure("P(rel=2,judged_only=True)@5").name == "P(rel=2,judged_only=True)@5"
    with pytest.raises(rankscope.MeasureError) as caught:
        rankscope.measure("nDCG@10, AP")
    assert str(caught.value) == (
        "'nDCG@10, AP' names 2 measures (nDCG@10, AP); measure() reads one: parse_measures and "
        "evaluate read lists"
    )
    assert caught.value.measure == "nDCG@10, AP"
    with pytest.raises(rankscope.MeasureError, match="the cutoff of nDCG"):
        rankscope.measure("nDCG@x")  # no list: the name's own error
