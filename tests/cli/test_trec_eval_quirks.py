"""trec_eval 10's deterministic quirks, reproduced by `rankscope trec-eval` by default, and the
corrected values under ``--fix-trec-eval-quirks``. Each expected output is what trec_eval 10
(built from its public source) prints for the same files and options."""

from __future__ import annotations

from pathlib import Path

import pytest
from doors import run as run_door

from rankscope.cli import EXIT_OK

# Every test here runs through both doors of the command line.
pytestmark = pytest.mark.usefixtures("door")

QRELS = "1 0 a 1\n2 0 b 1\n"  # query 2 is judged but not retrieved
RUN = "1 Q0 a 1 1 r\n"
# Nothing judged is retrieved for query 1 (so -J leaves it empty); grade-0 judgements.
QRELS_J = "1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n"
RUN_J = "1 Q0 x 1 1 r\n1 Q0 y 2 0.5 r\n2 Q0 c 1 1 r\n2 Q0 z 2 0.5 r\n"
ZSCORES = (
    "1 num_rel 1.0 0.5\n2 num_rel 1.0 0.5\n1 map 0.5 0.25\n2 map 0.5 0.25\n"
    "1 gm_map -1.0 2.0\n2 gm_map -1.0 2.0\n1 num_ret 1.0 1.0\n2 num_ret 1.0 1.0\n"
)


def _run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    qrels: str = QRELS,
    run: str = RUN,
) -> tuple[int, str, str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    (tmp_path / "zscores").write_text(ZSCORES)
    options = [str(tmp_path / "zscores") if o == "ZFILE" else o for o in options]
    return run_door(["trec-eval", *options, str(tmp_path / "qrels"), str(tmp_path / "run")], capsys)


def test_a_parameterised_utility_under_c_is_scored_on_trec_evals_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["-q", "-c", "-N", "10", "-m", "utility.1,-1,0,1"]
    assert _run(tmp_path, capsys, options)[:2] == (
        EXIT_OK,
        "utility_1,-1,0,1      \t1\t10.0000\n"
        "utility_1,-1,0,1      \t2\t7.0000\n"
        "utility_1,-1,0,1      \tall\t8.5000\n",
    )
    fixed = _run(tmp_path, capsys, [*options, "--fix-trec-eval-quirks"])[1]
    assert fixed.splitlines()[1:] == [
        "utility_1,-1,0,1      \t2\t9.0000",
        "utility_1,-1,0,1      \tall\t9.5000",
    ]
    # The measure named exactly utility is set to 0 for the placeholder, as trec_eval does.
    plain = _run(tmp_path, capsys, ["-q", "-c", "-m", "utility"])[1]
    assert "utility               \t2\t0.0000\n" in plain


def test_interpolated_precision_of_an_empty_ranking_is_nan_as_trec_eval_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["-q", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg"]
    code, out, _ = _run(tmp_path, capsys, options, QRELS_J, RUN_J)
    assert (code, out) == (
        EXIT_OK,
        "iprec_at_recall_0.00  \t1\t  -nan\n"
        "iprec_at_recall_0.50  \t1\t0.0000\n"
        "11pt_avg              \t1\t  -nan\n"
        "iprec_at_recall_0.00  \t2\t1.0000\n"
        "iprec_at_recall_0.50  \t2\t1.0000\n"
        "11pt_avg              \t2\t1.0000\n"
        "iprec_at_recall_0.00  \tall\t  -nan\n"
        "iprec_at_recall_0.50  \tall\t0.5000\n"
        "11pt_avg              \tall\t  -nan\n",
    )
    fixed = _run(tmp_path, capsys, [*options, "--fix-trec-eval-quirks"], QRELS_J, RUN_J)[1]
    assert "-nan" not in fixed
    assert "iprec_at_recall_0.00  \tall\t0.5000\n" in fixed


def test_no_documents_and_levels_below_one_are_taken_as_trec_eval_takes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_documents = ["-q", "-M0", "-m", "num_ret", "-m", "P.2", "-m", "iprec_at_recall.0"]
    assert _run(tmp_path, capsys, no_documents, QRELS_J, RUN_J)[1] == (
        "num_ret               \t1\t0\n"
        "iprec_at_recall_0.00  \t1\t  -nan\n"
        "P_2                   \t1\t0.0000\n"
        "num_ret               \t2\t0\n"
        "iprec_at_recall_0.00  \t2\t  -nan\n"
        "P_2                   \t2\t0.0000\n"
        "num_ret               \tall\t0\n"
        "iprec_at_recall_0.00  \tall\t  -nan\n"
        "P_2                   \tall\t0.0000\n"
    )
    level_0 = ["-q", "-l0", "-m", "num_rel", "-m", "P.2", "-m", "bpref"]
    assert _run(tmp_path, capsys, level_0, QRELS_J, RUN_J)[1] == (
        "num_rel               \t1\t2\n"
        "bpref                 \t1\t0.0000\n"
        "P_2                   \t1\t0.0000\n"
        "num_rel               \t2\t2\n"
        "bpref                 \t2\t0.5000\n"
        "P_2                   \t2\t0.5000\n"
        "num_rel               \tall\t4\n"
        "bpref                 \tall\t0.2500\n"
        "P_2                   \tall\t0.2500\n"
    )
    # Below 0, documents absent from the qrels count where trec_eval compares grades (P, map)
    # but not in its counts of relevant documents (num_rel, num_rel_ret).
    level_minus_1 = ["-q", "-l-1", "-m", "num_rel", "-m", "num_rel_ret", "-m", "P.2", "-m", "map"]
    assert _run(tmp_path, capsys, level_minus_1, QRELS_J, RUN_J)[1] == (
        "num_rel               \t1\t2\n"
        "num_rel_ret           \t1\t0\n"
        "map                   \t1\t1.0000\n"
        "P_2                   \t1\t1.0000\n"
        "num_rel               \t2\t2\n"
        "num_rel_ret           \t2\t1\n"
        "map                   \t2\t1.0000\n"
        "P_2                   \t2\t1.0000\n"
        "num_rel               \tall\t4\n"
        "num_rel_ret           \tall\t1\n"
        "map                   \tall\t1.0000\n"
        "P_2                   \tall\t1.0000\n"
    )


def test_znum_rel_summarises_the_count_of_relevant_judgements_under_c(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, capsys, ["-q", "-c", "-Z", "ZFILE", "-m", "num_rel", "-m", "map"])[1] == (
        "Znum_rel               \t1\t0.0000\n"
        "Zmap                   \t1\t2.0000\n"
        "Znum_rel               \t2\t0.0000\n"
        "Zmap                   \t2\t-2.0000\n"
        "Znum_rel               \tall\t2.0000\n"
        "Zmap                   \tall\t0.0000\n"
    )


def test_a_judged_query_missing_without_c_ends_the_output_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(tmp_path, capsys, ["-q", "-m", "map"])
    assert (code, out) == (4, "map                   \t1\t1.0000\n")
    assert "query '2' is judged in" in err and "exit status 4" in err
    assert "Give -c" in err and "--fix-trec-eval-quirks" in err
    # Without -q trec_eval prints nothing at all; -c scores it instead.
    assert _run(tmp_path, capsys, ["-m", "map"])[:2] == (4, "")
    assert _run(tmp_path, capsys, ["-c", "-m", "map"])[:2] == (
        EXIT_OK,
        "map                   \tall\t0.5000\n",
    )
    # Corrected: left out of the average.
    fixed = _run(tmp_path, capsys, ["-m", "map", "--fix-trec-eval-quirks"])
    assert fixed[:2] == (EXIT_OK, "map                   \tall\t1.0000\n")


def test_a_run_of_no_judged_query_stops_at_the_first_judged_one_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval 10 walks its judged queries in byte order and stops at the first one the run
    lacks ("result qid 'a' not found in qrels", exit status 4); -c scores them all."""
    qrels, run = "b 0 d1 1\na 0 d2 1\n", "z Q0 d1 1 1.0 t\n"
    code, out, err = _run(tmp_path, capsys, ["-q", "-m", "map"], qrels, run)
    assert (code, out) == (4, "")
    assert "no query of the run" in err and "first judged query, 'a'" in err
    assert "exit status 4" in err and "Give -c" in err
    assert _run(tmp_path, capsys, ["-q", "-c", "-m", "map", "-m", "P.5"], qrels, run)[:2] == (
        EXIT_OK,
        "map                   \ta\t0.0000\n"
        "P_5                   \ta\t0.0000\n"
        "map                   \tb\t0.0000\n"
        "P_5                   \tb\t0.0000\n"
        "map                   \tall\t0.0000\n"
        "P_5                   \tall\t0.0000\n",
    )
    # Corrected, it is the error it is everywhere else (exit status 1).
    fixed = _run(tmp_path, capsys, ["-m", "map", "--fix-trec-eval-quirks"], qrels, run)
    assert fixed[0] not in (EXIT_OK, 4) and "no query of the run" in fixed[2]


NEGATIVE_FIRST = "a 0 d1 -1\nb 0 d1 1\n"
NEGATIVE_LATER = "a 0 d1 1\nb 0 d1 -1\n"
RUN_AB = "a Q0 d1 1 1.0 t\nb Q0 d1 1 1.0 t\n"


def test_a_first_query_of_negative_grades_only_stops_trec_eval_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """trec_eval 10 sizes its count of documents per grade by a query's highest grade: for its
    first query, all of whose grades are negative, it allocates nothing and stops ("Can't
    calculate measure 'map'", exit status 4) before printing; a later such query is scored."""
    code, out, err = _run(
        tmp_path, capsys, ["-q", "-m", "P.5", "-m", "map"], NEGATIVE_FIRST, RUN_AB
    )
    assert (code, out) == (4, "")
    assert "query 'a'" in err and "only negative grades" in err
    assert "Can't calculate measure 'map'" in err and "--fix-trec-eval-quirks" in err
    # Under -c too; ndcg_cut names its measure as trec_eval does.
    code, out, err = _run(tmp_path, capsys, ["-c", "-m", "ndcg_cut.5"], NEGATIVE_FIRST, RUN_AB)
    assert (code, out) == (4, "") and "Can't calculate measure 'ndcg_cut'" in err
    # num_q and runid read no judgements: trec_eval prints them.
    assert _run(tmp_path, capsys, ["-m", "num_q"], NEGATIVE_FIRST, RUN_AB)[:2] == (
        EXIT_OK,
        "num_q                 \tall\t2\n",
    )
    later = _run(tmp_path, capsys, ["-q", "-m", "map"], NEGATIVE_LATER, RUN_AB)
    assert later[:2] == (
        EXIT_OK,
        "map                   \ta\t1.0000\nmap                   \tb\t0.0000\n"
        "map                   \tall\t0.5000\n",
    )
    fixed = _run(
        tmp_path, capsys, ["-q", "-m", "map", "--fix-trec-eval-quirks"], NEGATIVE_FIRST, RUN_AB
    )
    assert fixed[0] == EXIT_OK and "map                   \tb\t1.0000\n" in fixed[1]
    # The first judged query missing from the run stops trec_eval earlier, as ever.
    code, out, err = _run(tmp_path, capsys, ["-m", "map"], NEGATIVE_FIRST, "b Q0 d1 1 1.0 t\n")
    assert (code, out) == (4, "") and "query 'a' is judged in" in err


def test_with_a_debug_query_trec_eval_stops_where_that_query_stops_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -D N.QID trec_eval 10 evaluates QID alone: it stops there (exit status 4, nothing
    printed) if the run lacks QID, without -c ("result qid '2' not found in qrels"), or if QID
    has only negative grades ("Can't calculate measure 'map'"), first or not."""
    code, out, err = _run(tmp_path, capsys, ["-q", "-D", "0.2", "-m", "map"])
    assert (code, out) == (4, "") and "query '2' is judged in" in err
    assert _run(tmp_path, capsys, ["-q", "-D", "0.1", "-m", "map"])[:2] == (
        EXIT_OK,
        "map                   \t1\t1.0000\nmap                   \tall\t1.0000\n",
    )
    assert _run(tmp_path, capsys, ["-q", "-c", "-D", "0.2", "-m", "map"])[:2] == (
        EXIT_OK,
        "map                   \t2\t0.0000\nmap                   \tall\t0.0000\n",
    )
    code, out, err = _run(
        tmp_path, capsys, ["-q", "-D", "0.b", "-m", "map"], NEGATIVE_LATER, RUN_AB
    )
    assert (code, out) == (4, "") and "query 'b'" in err and "only negative grades" in err
    assert _run(tmp_path, capsys, ["-q", "-D", "0.b", "-m", "map"], NEGATIVE_FIRST, RUN_AB)[:2] == (
        EXIT_OK,
        "map                   \tb\t1.0000\nmap                   \tall\t1.0000\n",
    )
    # A query of negative grades the run lacks: the missing query stops it, unless -c.
    run_b = "b Q0 d1 1 1.0 t\n"
    code, out, err = _run(tmp_path, capsys, ["-q", "-D", "0.a", "-m", "map"], NEGATIVE_FIRST, run_b)
    assert (code, out) == (4, "") and "query 'a' is judged in" in err
    code, out, err = _run(
        tmp_path, capsys, ["-q", "-c", "-D", "0.a", "-m", "map"], NEGATIVE_FIRST, run_b
    )
    assert (code, out) == (4, "") and "Can't calculate measure 'map'" in err


def test_under_c_a_debug_query_s_summary_is_over_every_judged_query(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -c -D N.QID trec_eval 10 evaluates QID alone but divides by the number of judged
    queries, the others counting 0 (floored in gm_map); num_rel's summary stays the count of
    relevant judgements. Likewise under -Z (trec_eval 10's output on the same files)."""
    options = ["-q", "-c", "-D", "0.1", "-m", "map", "-m", "num_q", "-m", "num_rel"]
    assert _run(tmp_path, capsys, [*options, "-m", "num_ret", "-m", "gm_map"])[:2] == (
        EXIT_OK,
        "num_ret               \t1\t1\n"
        "num_rel               \t1\t1\n"
        "map                   \t1\t1.0000\n"
        "num_q                 \tall\t2\n"
        "num_ret               \tall\t1\n"
        "num_rel               \tall\t2\n"
        "map                   \tall\t0.5000\n"
        "gm_map                \tall\t0.0032\n",
    )
    # Without -c, over QID alone.
    assert _run(tmp_path, capsys, ["-D", "0.1", "-m", "map", "-m", "num_q"])[1] == (
        "num_q                 \tall\t1\nmap                   \tall\t1.0000\n"
    )
    # Under -Z the same: the other judged queries add a z-score of 0 (the floor's logarithm in
    # gm_map's mean of logarithms) and count in num_q.
    assert _run(tmp_path, capsys, [*options, "-Z", "ZFILE", "-m", "num_ret", "-m", "gm_map"])[
        :2
    ] == (
        EXIT_OK,
        "Znum_ret               \t1\t0.0000\n"
        "Znum_rel               \t1\t0.0000\n"
        "Zmap                   \t1\t2.0000\n"
        "Znum_q                 \tall\t2.0000\n"
        "Znum_ret               \tall\t0.0000\n"
        "Znum_rel               \tall\t2.0000\n"
        "Zmap                   \tall\t1.0000\n"
        "Zgm_map                \tall\t0.0041\n",
    )


def test_with_a_debug_query_not_judged_trec_eval_stops_with_exit_7(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -D N.QID where QID is not judged (retrieved or not, with -c or not, the run judged
    or not), trec_eval 10 says "No queries with both results and relevance info" and stops with
    exit status 7 before printing anything; under --fix-trec-eval-quirks it is an error of the
    option, naming QID and the qrels file."""
    run = "1 Q0 a 1 1 r\n3 Q0 a 1 1 r\n"
    for options in (["-q", "-D", "0.3"], ["-D", "0.9"], ["-q", "-c", "-D", "0.3"]):
        code, out, err = _run(tmp_path, capsys, [*options, "-m", "map"], QRELS, run)
        assert (code, out) == (7, ""), options
        assert f"-D: query '{options[-1][2:]}' is not judged in {tmp_path / 'qrels'};" in err
        assert "No queries with both results and relevance info" in err
    # No query of the run judged: QID not judged stops it so too; QID judged, at QID.
    code, out, err = _run(tmp_path, capsys, ["-D", "0.3", "-m", "map"], QRELS, "3 Q0 a 1 1 r\n")
    assert (code, out) == (7, "") and "query '3' is not judged" in err
    code, out, err = _run(tmp_path, capsys, ["-D", "0.2", "-m", "map"], QRELS, "3 Q0 a 1 1 r\n")
    assert (code, out) == (4, "") and "query '2' is judged in" in err
    fixed = ["-D", "0.9", "-m", "map", "--fix-trec-eval-quirks"]
    code, out, err = _run(tmp_path, capsys, fixed, QRELS, run)
    assert (code, out) == (2, "")
    assert f"rankscope: error: -D: query '9' is not judged in {tmp_path / 'qrels'}: " in err


@pytest.mark.parametrize(
    ("options", "qrels", "warned"),
    [
        (["-m", "rbp"], QRELS_J, "rbp: trec_eval 10 scales the gains by a lowest and a highest"),
        (["-m", "ndcg.1=0.5,2=3"], QRELS_J, "gains less than 1 apart"),
        (
            ["-R", "qrels_prefs", "-m", "prefs_avgjg_Rnonrel"],
            QRELS_J,
            "prefs_avgjg_Rnonrel: trec_eval 10 can read past the end of an array",
        ),
    ],
)
def test_measures_whose_trec_eval_value_is_undetermined_warn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], qrels: str, warned: str
) -> None:
    code, _, err = _run(tmp_path, capsys, options, qrels, RUN_J)
    assert code == EXIT_OK
    assert warned in err and "prints the" in err


def test_integer_gains_do_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, capsys, ["-m", "ndcg.1=3,2=9"], QRELS_J, RUN_J)[2] == ""
