"""`rankscope trec-eval` against trec_eval's own test suite, byte for byte, and its options."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from doors import run as run_door

from rankscope.cli import EXIT_INPUT, EXIT_OK, main

# Every command of trec_eval's quicktest (tests/data/trec_eval/README.md): expected output and
# arguments.
COMMANDS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    (
        "out.test.aql",
        ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"],
    ),
    (
        "out.test.meas_params",
        [
            "-q",
            "-miprec_at_recall..10,.20,.25,.75,.50",
            "-m",
            "P.5,7,3",
            "-m",
            "recall.20,2000",
            "-m",
            "Rprec_mult.5.0,0.2,0.35",
            "-mutility.2,-1,0,0",
            "-m",
            "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5",
            "-mndcg_cut.10,20,23.4",
            "-msuccess.2,5,20",
            "qrels.test",
            "results.test",
        ],
    ),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    (
        "out.test.qrels_jg",
        ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"],
    ),
    (
        "out.test.prefs",
        ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"],
    ),
    (
        "out.test.prefs",
        ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"],
    ),
    (
        "out.test.qrels_prefs",
        ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"],
    ),
]


# Every test here runs through both doors of the command line: the Python command and the
# native executable.
pytestmark = pytest.mark.usefixtures("door")


def trec_eval(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_door(["trec-eval", *arguments], capsys)


@pytest.mark.parametrize(("expected", "arguments"), COMMANDS)
def test_quicktest_command_prints_what_trec_eval_prints(
    conformance_dir: Path,
    expected: str,
    arguments: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(conformance_dir)
    code, out, _ = trec_eval(arguments, capsys)
    assert code == 0
    assert out == (conformance_dir / expected).read_text()


def write(folder: Path, name: str, lines: list[str]) -> str:
    path = folder / name
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_the_mean_adds_queries_in_order_as_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One relevant document per query at these ranks: the mean of the reciprocal ranks is
    # 0.30625 summed in query order (printed 0.3063), 0.306249... summed otherwise.
    ranks = [8, 2, 5, 3, 2, 6, 8, 6, 10, 3, 8, 1]
    qrels = [f"q{i:02d} 0 rel 1" for i in range(len(ranks))]
    run = [
        f"q{i:02d} Q0 {'rel' if j == rank else f'd{j}'} {j} {100 - j} first"
        for i, rank in enumerate(ranks)
        for j in range(1, 11)
    ]
    files = [write(tmp_path, "qrels", qrels), write(tmp_path, "run", run)]
    code, out, _ = trec_eval(["-m", "map", "-m", "recip_rank", *files], capsys)
    assert code == 0
    assert out == "map                   \tall\t0.3063\nrecip_rank            \tall\t0.3063\n"


def test_runid_is_the_tag_of_the_last_run_line_and_prints_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = write(tmp_path, "qrels", ["q1 0 a 1"])
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 first", "q1 Q0 b 2 1 last"])
    code, out, _ = trec_eval(["-m", "runid", qrels, run], capsys)
    assert (code, out) == (0, "runid                 \tall\tlast\n")


def test_num_rel_under_c_counts_every_positive_grade_as_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # At -l2, q1 has 1 relevant document and q2 1; trec_eval's summary under -c counts the
    # qrels lines with a grade above 0 whatever -l says: 5.
    qrels = write(tmp_path, "qrels", ["q1 0 a 2", "q1 0 b 1", "q2 0 c 1", "q2 0 d 2", "q3 0 e 1"])
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 t", "q1 Q0 b 2 1 t"])
    code, out, _ = trec_eval(["-c", "-l2", "-q", "-m", "num_rel", qrels, run], capsys)
    assert code == 0
    assert out.splitlines() == [
        "num_rel               \tq1\t1",
        "num_rel               \tq2\t1",
        "num_rel               \tq3\t0",
        "num_rel               \tall\t5",
    ]


@pytest.mark.parametrize(("grade", "as_trec_eval"), [("1e1", 1), ("2.7", 2), ("+1x", 1)])
def test_a_grade_trec_eval_would_read_otherwise_is_refused_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], grade: str, as_trec_eval: int
) -> None:
    qrels = write(tmp_path, "qrels", ["# q 0 d 1.5", "q1 0 a 1", f"q1 0 b {grade}"])
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 t"])
    code, out, err = trec_eval([qrels, run], capsys)
    assert (code, out) == (1, "")
    assert f"qrels:3: the grade '{grade}' is not an integer: trec_eval would read it as " in err
    assert f"as {as_trec_eval} (" in err
    assert f"q1 0 b {grade}" in err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-m", "P.5,5"], "lists 5 twice in -m 'P.5,5'"),
        (["-m", "iprec_at_recall.0.5,.5"], "lists 0.5 twice"),
        (["-m", "nosuch"], "unknown trec_eval measure 'nosuch'"),
        (["-m", "P.x"], "takes numeric parameters; got 'x'"),
        (["-m", "utility.1,2"], "'utility' takes 4 coefficients"),
        (["-m", "ndcg.1=x"], "takes name=value parameters"),
        (["-R", "nosuch"], "-R 'nosuch': trec_eval has no such format"),
        (["-T", "nosuch"], "-T 'nosuch': trec_eval has no such format"),
        (["-D", "x"], "expected a debug level"),
        (["-m", "map_avgjg"], "-m map_avgjg: trec_eval computes it only with -R qrels_jg"),
        (["-R", "qrels_jg", "-m", "map"], "-m map: trec_eval computes it only with -R qrels ("),
        (["-m", "prefs_simp"], "-m prefs_simp: trec_eval computes it only with -R prefs or -R"),
        (["-R", "qrels_prefs", "-m", "P.5"], "-m P_5: trec_eval computes it only with -R qrels ("),
    ],
)
def test_inputs_trec_eval_refuses_are_refused_clearly(
    conformance_dir: Path,
    arguments: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, err = trec_eval([*arguments, *files], capsys)
    assert code in (1, 2)
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_parameters_of_a_measure_without_any_are_ignored_with_a_warning(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, err = trec_eval(["-m", "set_P.5", *files], capsys)
    assert (code, out) == (0, "set_P                 \tall\t0.0873\n")
    assert "'set_P' takes no parameters; '5' ignored" in err


def test_the_first_parameters_given_win_over_later_ones_and_nicknames(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, _ = trec_eval(["-m", "official", "-m", "P.7", "-m", "P.9", *files], capsys)
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("P_")] == [
        "P_7                   \tall\t0.3333"
    ]


def test_long_options_are_trec_eval_s(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.trunc")]
    short = trec_eval(["-q", "-c", "-l2", "-n", "-M100", "-m", "all_trec", *files], capsys)
    long = trec_eval(
        [
            "--query_eval_wanted",
            "--complete_rel_info_wanted",
            "--level_for_rel",
            "2",
            "--nosummary",
            "--Max_retrieved_per_topic",
            "100",
            "--measure",
            "all_trec",
            "--Rel_info_format",
            "qrels",
            "--Results_format",
            "trec_results",
            "--Output_old_results_format",
            "x",
            "-o",
            "--Debug_level",
            "0",
            "--Number_docs_in_coll",
            "0",
            *files,
        ],
        capsys,
    )
    assert short == long
    assert short[0] == 0 and "\tall\t" not in short[1]


def test_judged_docs_only_drops_unjudged_documents_before_every_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = write(tmp_path, "qrels", ["q1 0 a 1", "q1 0 b 0", "q1 0 c 1", "q1 0 p -1"])
    run = ["q1 Q0 x 1 9 t", "q1 Q0 a 2 8 t", "q1 Q0 p 3 7 t", "q1 Q0 b 4 6 t", "q1 Q0 c 5 5 t"]
    judged_only = write(
        tmp_path, "judged", [line for line in run if " x " not in line and " p " not in line]
    )
    everything = write(tmp_path, "run", run)
    measures = ["-m", "all_trec", "-q"]
    with_j = trec_eval(["-J", *measures, qrels, everything], capsys)
    filtered = trec_eval([*measures, qrels, judged_only], capsys)
    assert with_j == filtered
    assert "P_5                   \tq1\t0.4000" in with_j[1]
    assert "unj_5                 \tq1\t0.0000" in with_j[1]


def test_collection_size_enters_utility(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = write(tmp_path, "qrels", ["q1 0 a 1", "q1 0 b 0", "q1 0 c 1"])
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 t", "q1 Q0 b 2 1 t"])
    # 1 relret, 1 non-relevant retrieved, 1 relevant missed, 100 + 1 - 2 - 2 others.
    code, out, _ = trec_eval(["-N", "100", "-m", "utility.1,-1,-2,0.5", qrels, run], capsys)
    assert code == 0
    assert out == f"{'utility_1,-1,-2,0.5':<22}\tall\t{1 - 1 - 2 + 0.5 * 97:.4f}\n"


def test_debug_level_with_a_query_evaluates_that_query_only(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, _ = trec_eval(["-D", "0.302", "-q", "-m", "P.5", "-m", "map", *files], capsys)
    expected = [
        line
        for line in (conformance_dir / "out.test.aq").read_text().splitlines()
        if line.split("\t")[0].strip() in ("map", "P_5") and line.split("\t")[1] == "302"
    ]
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == expected
    assert [line.split("\t")[2] for line in lines[2:]] == [line.split("\t")[2] for line in expected]


def test_zscores_without_a_mean_are_trec_eval_s_missing_value(
    tmp_path: Path, conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zscores = write(tmp_path, "z", ["301 map 0.5 0.25", "302 map 0.1 0", "301 P_5 0 0"])
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, _ = trec_eval(["-q", "-m", "map", "-m", "P.5", "-Z", zscores, *files], capsys)
    assert code == 0
    lines = out.splitlines()
    # 301's map is 0.0324: (0.0324 - 0.5) / 0.25; 302's map differs from a mean with no spread;
    # 303 has no line; 301's P_5 is 0, the mean of a stddev of 0.
    assert lines[0].startswith("Zmap                   \t301\t-1.87")
    assert lines[1:4] == [
        "ZP_5                   \t301\t0.0000",
        "Zmap                   \t302\t-1000000.0000",
        "ZP_5                   \t302\t-1000000.0000",
    ]
    assert lines[-2].startswith("Zmap                   \tall\t-666667.29")


def test_a_malformed_zscore_line_is_named(
    tmp_path: Path, conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zscores = write(tmp_path, "z", ["301 map 0.5 0.25", "301 P_5 x 0"])
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code, out, err = trec_eval(["-Z", zscores, *files], capsys)
    assert (code, out) == (1, "")
    assert "z:2: mean and stddev must be numbers" in err


def test_judgement_groups_average_each_group_s_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Group A finds a relevant (AP 1), group B finds b relevant (AP 1/2); q2 has group A only.
    qrels = write(
        tmp_path, "qrels_jg", ["q1 A a 1", "q1 A b 0", "q1 B a 0", "q1 B b 1", "q2 A c 1"]
    )
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 t", "q1 Q0 b 2 1 t", "q2 Q0 c 1 1 t"])
    code, out, _ = trec_eval(
        ["-R", "qrels_jg", "-q", "-m", "map_avgjg", "-m", "P_avgjg.2", qrels, run], capsys
    )
    assert code == 0
    assert out.splitlines() == [
        "map_avgjg             \tq1\t0.7500",
        "P_avgjg_2             \tq1\t0.5000",
        "map_avgjg             \tq2\t1.0000",
        "P_avgjg_2             \tq2\t0.5000",
        "map_avgjg             \tall\t0.8750",
        "P_avgjg_2             \tall\t0.5000",
    ]


def test_a_document_judged_twice_in_a_group_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = write(tmp_path, "qrels_jg", ["q1 A a 1", "q1 B a 0", "q1 A a 0"])
    run = write(tmp_path, "run", ["q1 Q0 a 1 2 t"])
    code, out, err = trec_eval(["-R", "qrels_jg", "-m", "qrels_jg", qrels, run], capsys)
    assert (code, out) == (1, "")
    assert "qrels_jg:3: document 'a' is judged twice in group 'A' of query 'q1'" in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["trec-eval", "-v", "q", "r"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().err.startswith("trec_eval version 10.0 (rankscope ")


def test_every_trec_eval_measure_has_a_rankscope_name(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import rankscope

    names = {
        "infAP": "infAP",
        "gm_bpref": "GM_Bpref",
        "Rprec_mult_0.20": "RprecMult@0.2",
        "11pt_avg": "IPrecAvg",
        "binG": "BinG",
        "G": "G",
        "ndcg_rel": "nDCGRel",
        "Rndcg": "RnDCG",
        "relative_P_5": "RelP@5",
        "set_relative_P": "RelP",
        "set_map": "SetAP",
        "set_F": "SetF",
        "num_nonrel_judged_ret": "NumNonRelJudgedRet",
        "rbp": "TrecRBP",
        "rbp_resid": "TrecRBPResid",
        "unj_5": "Unjudged@5",
        "yaap": "YAAP",
    }
    for trec_name, ours in names.items():
        if not trec_name.startswith("rbp"):
            assert rankscope.measure(trec_name).name == ours
        assert rankscope.measure(ours).trec_name == trec_name
    # Outside the trec-eval command, RBP is ir_measures' measure (p = 0.8, grades as gains).
    assert rankscope.measure("rbp").name == "RBP"
    assert rankscope.measure("RBP").trec_name is None
    results = rankscope.evaluate(
        conformance_dir / "qrels.test", conformance_dir / "results.test", list(names.values())
    )
    expected = {
        line.split("\t")[0].strip(): float(line.split("\t")[2])
        for line in (conformance_dir / "out.test.a").read_text().splitlines()
        if line.split("\t")[1] == "all" and not line.startswith("runid")
    }
    # yaap is not in all_trec; the core's tests compute it by hand.
    assert set(names) - set(expected) == {"yaap"}
    for trec_name, ours in names.items():
        if trec_name not in expected:
            continue
        got = results.mean()[ours]
        assert math.isclose(got, expected[trec_name], abs_tol=5e-5), trec_name


def test_a_document_judged_under_two_iterations_is_a_duplicate_as_in_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval ignores the qrels' second field, so it refuses such qrels ("duplicate docs");
    `rankscope evaluate` reads the field as a subtopic instead."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 1 d1 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    code, _, err = trec_eval(["-m", "num_rel", str(qrels), str(run)], capsys)
    assert code == EXIT_INPUT
    assert "document 'd1' appears more than once in the qrels of query '1'" in err
    assert run_door(["evaluate", str(qrels), str(run), "-m", "P@1", "-f", "json"], capsys)[0] == (
        EXIT_OK
    )
