"""`rankscope trec-eval` against trec_eval's regression outputs, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankscope.cli import main
from rankscope.report.trec_eval import NOT_IMPLEMENTED

# (expected output, arguments) from the conformance README.
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
]


def implemented_lines(text: str) -> list[str]:
    """Lines of trec_eval output whose measure family rankscope implements."""
    kept = []
    for line in text.splitlines(keepends=True):
        name = line.split("\t")[0].strip()
        family = name.rsplit("_", 1)[0] if name[-1].isdigit() else name
        if family.startswith("iprec_at_recall"):
            family = "iprec_at_recall"
        if name.startswith("ndcg_") and not name.startswith("ndcg_cut"):
            family = "ndcg_params"  # ndcg with gain parameters: not implemented
        if (
            family not in NOT_IMPLEMENTED
            and family != "ndcg_params"
            and name not in NOT_IMPLEMENTED
        ):
            kept.append(line)
    return kept


@pytest.mark.parametrize(("expected", "arguments"), COMMANDS)
def test_output_equals_trec_eval_line_for_line(
    conformance_dir: Path,
    expected: str,
    arguments: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(conformance_dir)
    assert main(["trec-eval", *arguments]) == 0
    printed = capsys.readouterr().out
    wanted = implemented_lines((conformance_dir / expected).read_text())
    assert printed.splitlines(keepends=True) == wanted


def test_default_measures_output_is_byte_for_byte(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["trec-eval", str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    )
    assert code == 0
    assert capsys.readouterr().out == (conformance_dir / "out.test").read_text()


def test_unimplemented_measures_are_named_on_stderr(
    conformance_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "trec-eval",
            "-m",
            "map",
            "-m",
            "utility",
            str(conformance_dir / "qrels.test"),
            str(conformance_dir / "results.test"),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out == "map                   \tall\t0.1785\n"
    assert "not implemented yet, left out: utility" in captured.err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-m", "nosuch"], "unknown trec_eval measure 'nosuch'"),
        (["-m", "utility"], "no implemented trec_eval measure was asked for"),
        (["-m", "P.x"], "takes numeric parameters; got 'x'"),
        (["-m", "map.5"], "trec_eval measure 'map' takes no parameters"),
        (["-m", "runid.3"], "trec_eval measure 'runid' takes no parameters"),
        (["-J"], "trec_eval option -J (judged documents only) is not supported"),
    ],
)
def test_bad_trec_eval_arguments(
    conformance_dir: Path,
    arguments: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = [str(conformance_dir / "qrels.test"), str(conformance_dir / "results.test")]
    code = main(["trec-eval", *arguments, *files])
    assert code in (1, 2)
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
