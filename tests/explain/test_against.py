"""``explain(..., against=FILE)``: another tool's output matched against each profile, to the
precision it was printed to, and the conventions that reproduce it when no profile does.
The other tools' numbers come from the tools themselves (pytrec_eval, trec_eval's output as
`rankscope trec-eval` writes it byte for byte) or are computed under known conventions."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import rankscope
from rankscope.cli import EXIT_OK, main
from rankscope.engine.profiles import PROFILES
from rankscope.errors import EmptyInputError, InputError, ParseError
from rankscope.explain import explain
from rankscope.io import Qrels, Run, write_qrels, write_run
from rankscope.io._values import read_values

# Scores that collide as 32-bit floats where the grades differ: trec_eval 9 and pytrec_eval
# tie them (then order by document id, descending); trec_eval 10 does not.
QRELS = {
    "q1": {"d1": 1, "d2": 0, "d3": 2},
    "q2": {"d4": 1, "d5": 1},
    "q3": {"d7": 1, "d8": 2},
}
RUN = {
    "q1": {"d1": 0.300000001, "d2": 0.3, "d3": 0.1},
    "q2": {"d4": 0.9, "d5": 0.5, "d6": 0.4},
    "q3": {"d8": 0.70000001, "d9": 0.7, "d7": 0.2},
}


# trec_eval's, pytrec_eval's and WeKnora's profiles (the peers' own give the same numbers here).
THREE = "trec,trec9,weknora"


def _files(folder: Path) -> tuple[str, str]:
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    write_qrels(Qrels.from_dict(QRELS), qrels)
    write_run(Run.from_dict(RUN, name="r"), run)
    return str(qrels), str(run)


def test_pytrec_eval_is_reproduced_by_trec9_not_trec(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut"}).evaluate(RUN)
    path = tmp_path / "pytrec_eval.json"
    path.write_text(json.dumps(theirs))
    against = explain(QRELS, RUN, "nDCG@10", profiles=THREE, against=path).against
    assert against is not None and against.format == "json" and against.name == "ndcg_cut_10"
    trec, trec9, _ = against.profiles
    assert trec9.reproduces and trec9.matched == trec9.compared == 3
    assert not trec.reproduces and {q for q, _, _ in trec.disagreeing} == {"q1", "q3"}
    assert [m.label for m in against.reproduced_by] == ["trec9"]


def test_trec_eval_text_with_and_without_q_is_reproduced_by_trec(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = _files(tmp_path)
    for flags, name in ((["-q"], "per_query.txt"), ([], "summary.txt")):
        assert main(["trec-eval", *flags, "-m", "ndcg_cut.10", qrels, run]) == EXIT_OK
        (tmp_path / name).write_text(capsys.readouterr().out)
    per_query = explain(
        qrels, run, "ndcg_cut.10", profiles=THREE, against=tmp_path / "per_query.txt"
    ).against
    assert per_query is not None and per_query.decimals == 4 and per_query.format == "trec_eval"
    assert [m.label for m in per_query.reproduced_by] == ["trec"]
    assert per_query.mean is not None and per_query.profiles[0].mean_matches
    summary = explain(
        qrels, run, "nDCG@10", profiles=THREE, against=tmp_path / "summary.txt"
    ).against
    assert summary is not None and summary.per_query == {}
    assert summary.profiles[0].reproduces and summary.profiles[0].compared == 0


def _write_csv(path: Path, values: dict[str, float], name: str) -> None:
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["query_id", name])
        writer.writerows([query, f"{value:.6f}"] for query, value in values.items())


def test_one_convention_changed_from_a_profile_reproduces_a_csv(tmp_path: Path) -> None:
    exp = PROFILES["trec"].with_options(gain="exp")
    values = rankscope.evaluate(QRELS, RUN, "nDCG@10", profile=exp).score_dict("nDCG@10")
    _write_csv(tmp_path / "theirs.csv", values, "ndcg@10")
    against = explain(
        QRELS, RUN, "nDCG@10", profiles="trec", against=tmp_path / "theirs.csv"
    ).against
    assert against is not None and against.decimals == 6
    assert not against.profiles[0].reproduces
    assert [m.label for m in against.reproduced_by] == ["trec with gain=exp"]


def test_two_conventions_changed_reproduce_what_one_cannot(tmp_path: Path) -> None:
    both = PROFILES["trec"].with_options(gain="exp", score_precision="float32")
    values = rankscope.evaluate(QRELS, RUN, "nDCG@10", profile=both).score_dict("nDCG@10")
    _write_csv(tmp_path / "theirs.csv", values, "nDCG@10")
    against = explain(
        QRELS, RUN, "nDCG@10", profiles="trec", against=tmp_path / "theirs.csv"
    ).against
    assert against is not None
    labels = [m.label for m in against.reproduced_by]
    assert "trec with score_precision=float32, gain=exp" in labels
    assert all(len(m.changes) == 2 for m in against.reproduced_by)


def test_what_nothing_reproduces_is_unexplained(tmp_path: Path) -> None:
    values = rankscope.evaluate(QRELS, RUN, "nDCG@10").score_dict("nDCG@10")
    values["q2"] = 0.123  # no convention gives this
    _write_csv(tmp_path / "theirs.csv", values, "nDCG@10")
    explanation = explain(QRELS, RUN, "nDCG@10", against=tmp_path / "theirs.csv")
    against = explanation.against
    assert against is not None and against.reproduced_by == ()
    assert against.best is not None and against.best.label == "trec"
    assert [q for q, _, _ in against.unexplained] == ["q2"]
    assert "no configuration tried reproduces it; closest: trec (2/3 queries)" in str(explanation)


def test_a_query_the_run_lacks_scored_0_points_at_complete(tmp_path: Path) -> None:
    qrels = {**QRELS, "q4": {"d1": 1}}
    values = rankscope.evaluate(qrels, RUN, "nDCG@10", complete=True).score_dict("nDCG@10")
    _write_csv(tmp_path / "theirs.csv", values, "nDCG@10")
    against = explain(
        qrels, RUN, "nDCG@10", profiles="trec", against=tmp_path / "theirs.csv"
    ).against
    assert against is not None and against.profiles[0].only_reported == 1
    assert [m.label for m in against.reproduced_by] == ["trec with complete=True"]


def test_a_relevance_level_is_among_the_changes_tried(tmp_path: Path) -> None:
    values = rankscope.evaluate(QRELS, RUN, "RR", relevance_level=2).score_dict("RR")
    _write_csv(tmp_path / "theirs.csv", values, "recip_rank")
    against = explain(QRELS, RUN, "RR", profiles="trec", against=tmp_path / "theirs.csv").against
    assert against is not None
    assert [m.label for m in against.reproduced_by] == ["trec with relevance_level=2"]


def test_a_file_without_the_measure_says_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "theirs.json"
    path.write_text(json.dumps({"q1": {"map": 0.5, "P_5": 0.2}}))
    with pytest.raises(InputError, match=r"no values of nDCG@10 in this file; it holds map, P_5"):
        explain(QRELS, RUN, "nDCG@10", against=path)


@pytest.mark.parametrize(
    ("name", "text", "error", "message", "line"),
    [
        ("bad.txt", "map\tq1\t0.5\nmap\tq2\n", ParseError, "expected trec_eval's 3 fields", 2),
        ("bad.txt", "map\tq1\tabc\n", ParseError, "expected a number as the value", 1),
        ("twice.txt", "map\tq1\t0.5\nmap\tq1\t0.6\n", ParseError, "a second value of map", 2),
        ("bad.csv", "query_id,map\nq1,0.5,0.7\n", ParseError, "expected 2 fields", 2),
        ("noquery.csv", "topic_name,map\nq1,0.5\n", ParseError, "expected a query column", 1),
        ("bad.json", '{"q1": {"map": 0.5}', ParseError, "not valid JSON", 1),
        ("empty.txt", "\n", EmptyInputError, "no measure values found", None),
    ],
)
def test_bad_files_name_the_file_and_the_line(
    tmp_path: Path,
    name: str,
    text: str,
    error: type[Exception],
    message: str,
    line: int | None,
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(error, match=message) as raised:
        read_values(path)
    assert getattr(raised.value, "line", None) == line
    assert str(path) in str(raised.value)


def test_the_formats_read_the_same_values(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("runid\tall\tr\nmap\tq1\t0.5000\nmap\tall\t0.5000\n")
    (tmp_path / "a.json").write_text('{"q1": {"map": 0.5}, "all": {"map": 0.5}}')
    (tmp_path / "a.csv").write_text("run,query_id,map\nr,q1,0.5\nr,all,0.5\n")
    (tmp_path / "long.csv").write_text("query_id,measure,value\nq1,map,0.5\nall,map,0.5\n")
    (tmp_path / "means.json").write_text('{"map": 0.5}')
    for name in ("a.txt", "a.json", "a.csv", "long.csv"):
        values = read_values(tmp_path / name)
        assert values.per_query["map"]["q1"].value == 0.5, name
        assert values.means["map"].value == 0.5, name
    assert read_values(tmp_path / "means.json").means["map"].value == 0.5
    assert read_values(tmp_path / "a.txt").decimals("map") == 4


@pytest.mark.slow
def test_ranx_json_is_reproduced_by_trec(tmp_path: Path) -> None:
    ranx = pytest.importorskip("ranx")
    run = {  # no ties: ranx's order of tied documents is its sort's
        "q1": {"d1": 0.9, "d2": 0.3, "d3": 0.1},
        "q2": {"d4": 0.9, "d5": 0.5, "d6": 0.4},
        "q3": {"d8": 0.8, "d9": 0.7, "d7": 0.2},
    }
    scores = ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(run), "ndcg@10", return_mean=False)
    theirs = {q: {"ndcg@10": float(v)} for q, v in zip(sorted(QRELS), scores, strict=True)}
    (tmp_path / "ranx.json").write_text(json.dumps(theirs))
    against = explain(QRELS, run, "nDCG@10", profiles=THREE, against=tmp_path / "ranx.json").against
    assert against is not None and against.name == "ndcg@10"
    assert [m.label for m in against.reproduced_by] == ["trec", "trec9"]
