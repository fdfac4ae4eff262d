"""The habits users bring from other tools: one -m grammar everywhere, flags named in errors,
column and list-key flags, duplicate handling, swapped arguments, exact CSV, provenance, and a
--help that loads nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import rankscope
from rankscope.cli import EXIT_INPUT, EXIT_OK, main
from rankscope.cli import _common as common

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "data"
QRELS, BM25, DENSE = (str(EXAMPLE / name) for name in ("qrels.txt", "bm25.run", "dense.run"))


def evaluate_cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["evaluate", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _means(out: str) -> dict[str, float]:
    return dict(json.loads(out)["runs"][0]["mean"])


# -- --help ------------------------------------------------------------------------------------

HEAVY = ("polars", "numpy", "pandas", "pyarrow", "scipy", "rich")


@pytest.mark.parametrize("command", [[], ["evaluate"], ["compare"], ["trec-eval"], ["measures"]])
def test_help_loads_no_heavy_module(command: list[str]) -> None:
    script = (
        "import sys\n"
        "from rankscope.cli import main\n"
        "try:\n"
        f"    main({[*command, '--help']!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(name for name in {HEAVY!r} if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "usage: rankscope" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_top_help_lists_every_command_with_its_summary() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rankscope", "--help"], capture_output=True, text=True
    )
    for name, (_, summary) in rankscope.cli.COMMANDS.items():
        assert name in done.stdout and summary[:40] in done.stdout


def test_the_names_the_options_offer_are_the_librarys() -> None:
    from rankscope.answers import ANSWER_PROFILES
    from rankscope.compare import CORRECTION_NAMES, PAIR_TEST_NAMES
    from rankscope.compare._pairs import TUKEY_TEST_NAMES
    from rankscope.engine import PROFILES
    from rankscope.engine.profiles import ALLOWED
    from rankscope.io import FORMATS
    from rankscope.io._formats import _ALIASES
    from rankscope.report.compare import FORMATS as COMPARISON
    from rankscope.report.results import OUTPUT_FORMATS

    assert tuple(PROFILES) == common.PROFILE_NAMES
    assert ANSWER_PROFILES == common.ANSWER_PROFILE_NAMES
    assert common.INPUT_FORMATS == FORMATS
    assert set(common.INPUT_FORMAT_ALIASES) == set(_ALIASES)
    assert common.RESULT_FORMATS == OUTPUT_FORMATS
    assert tuple(COMPARISON) == common.COMPARISON_FORMATS
    assert tuple(PAIR_TEST_NAMES) == common.TEST_NAMES
    assert TUKEY_TEST_NAMES == common.TUKEY_TEST_NAMES
    assert tuple(CORRECTION_NAMES) == common.CORRECTION_NAMES
    assert tuple(common.DUPLICATE_POLICIES.values()) == ALLOWED["duplicate_documents"]


# -- measures ----------------------------------------------------------------------------------


def test_measures_repeat_and_split_at_commas_alike(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for flags in (
        ["-m", "nDCG@10,P(rel=2)@5", "-m", "RR"],
        ["-m", "nDCG@10", "-m", "P(rel=2)@5,RR"],
    ):
        code, out, err = evaluate_cli(capsys, QRELS, BM25, *flags, "-f", "json")
        assert code == EXIT_OK, err
        outputs.append(_means(out))
    assert outputs[0] == outputs[1]
    assert list(outputs[0]) == ["nDCG@10", "P(rel=2)@5", "RR"]
    assert outputs[0] == rankscope.evaluate(QRELS, BM25, ["nDCG@10", "P(rel=2)@5", "RR"]).mean()


# -- inputs ------------------------------------------------------------------------------------


def _duplicate_run(tmp_path: Path) -> str:
    path = tmp_path / "dup.run"
    text = Path(BM25).read_text()
    first = text.splitlines()[0].split()
    path.write_text(text + f"{first[0]} Q0 {first[2]} 999 -5.0 bm25\n")
    return str(path)


def test_duplicates_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _duplicate_run(tmp_path)
    code, _, err = evaluate_cli(capsys, QRELS, run, "-m", "AP")
    assert code == EXIT_INPUT
    assert "appears more than once" in err and "(--duplicates keep-first keeps the first" in err
    assert "duplicate_documents" not in err
    code, out, err = evaluate_cli(
        capsys, QRELS, run, "-m", "AP", "--duplicates", "keep-first", "-f", "json"
    )
    assert code == EXIT_OK, err
    expected = rankscope.evaluate(QRELS, run, "AP", duplicate_documents="keep_first").mean()
    assert _means(out) == expected


def test_column_flags_and_errors_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = rankscope.io.read_qrels(QRELS).frame
    run = rankscope.io.read_run(BM25).frame
    qrels_csv, run_csv = tmp_path / "qrels.csv", tmp_path / "run.csv"
    qrels.rename({"query_id": "topic", "doc_id": "document", "relevance": "judgement"}).write_csv(
        qrels_csv
    )
    run.rename({"query_id": "topic", "doc_id": "document", "score": "sim"}).write_csv(run_csv)
    code, _, err = evaluate_cli(capsys, str(qrels_csv), str(run_csv))
    assert code == EXIT_INPUT
    assert "no column for query_id" in err and "name it with --qrels-columns query_id=..." in err
    flags = ["--qrels-columns", "query_id=topic,doc_id=document,relevance=judgement"]
    code, _, err = evaluate_cli(capsys, str(qrels_csv), str(run_csv), *flags)
    assert code == EXIT_INPUT
    assert "run.csv: no column for query_id" in err and "--run-columns query_id=..." in err
    flags += ["--run-columns", "query_id=topic,doc_id=document,score=sim", "-m", "AP", "-f", "json"]
    code, out, err = evaluate_cli(capsys, str(qrels_csv), str(run_csv), *flags)
    assert code == EXIT_OK, err
    assert _means(out) == rankscope.evaluate(QRELS, BM25, "AP").mean()
    code, _, err = evaluate_cli(capsys, QRELS, BM25, "--run-columns", "score=sim")
    assert code == EXIT_INPUT
    assert "--run-columns (score='sim') applies to CSV, TSV, JSONL and Parquet files" in err


def test_run_key_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ranked = (
        rankscope.io.read_run(BM25).frame.group_by("query_id", maintain_order=True).agg("doc_id")
    )
    path = tmp_path / "rag.jsonl"
    path.write_text(
        "".join(
            json.dumps({"qid": q, "mine": [{"id": d} for d in docs]}) + "\n"
            for q, docs in ranked.rows()
        )
    )
    code, out, err = evaluate_cli(
        capsys, QRELS, str(path), "--run-key", "mine", "-m", "AP", "-f", "json"
    )
    assert code == EXIT_OK, err
    assert _means(out) == rankscope.evaluate(QRELS, BM25, "AP").mean()  # BM25 is in rank order


@pytest.mark.parametrize("order", ["run-as-qrels", "qrels-as-run"])
def test_swapped_qrels_and_run_are_diagnosed(
    order: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = (BM25, QRELS) if order == "run-as-qrels" else (QRELS, QRELS)
    code, _, err = evaluate_cli(capsys, first, second)
    assert code == EXIT_INPUT
    assert "were the qrels and the run given in the wrong order? The qrels come first" in err


# -- outputs -----------------------------------------------------------------------------------


def test_csv_keeps_every_digit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = evaluate_cli(capsys, QRELS, BM25, "-m", "AP,NumRet", "-q", "-f", "csv")
    assert code == EXIT_OK
    frame = pl.read_csv(out.encode(), schema_overrides={"query": pl.String})
    per_query = rankscope.evaluate(QRELS, BM25, ["AP", "NumRet"]).to_dict()
    for query, ap, num_ret in frame.select("query", "AP", "NumRet").rows():
        if query != "all":
            assert ap == per_query[query]["AP"]  # exactly, not to 4 decimals
            assert num_ret == per_query[query]["NumRet"]
    assert any(len(line.split(",")[2]) > 8 for line in out.splitlines()[1:])


def test_json_and_markdown_say_what_produced_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = evaluate_cli(capsys, QRELS, BM25, "-m", "AP", "-f", "json")
    assert code == EXIT_OK
    provenance = json.loads(out)["provenance"]
    assert provenance["qrels"] == QRELS and provenance["runs"] == [{"name": "bm25", "source": BM25}]
    assert provenance["profile"] == "trec" and provenance["measures"] == ["AP"]
    assert provenance["command"] == f"rankscope evaluate {QRELS} {BM25} -m AP -f json"
    assert provenance["rankscope_version"] == rankscope.__version__
    assert provenance["created"].endswith("Z")
    code, out, _ = evaluate_cli(capsys, QRELS, BM25, "-m", "AP", "-f", "markdown")
    assert f"\ncommand: rankscope evaluate {QRELS} {BM25} -m AP -f markdown\\\n" in out


def test_runs_with_one_tag_print_as_distinct_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "bm25-again.run"
    copy.write_text(Path(BM25).read_text())
    code, out, _ = evaluate_cli(capsys, QRELS, BM25, str(copy), DENSE, "-m", "AP")
    assert code == EXIT_OK
    assert [line.split()[0] for line in out.splitlines()[1:]] == [
        "bm25.run",
        "bm25-again.run",
        "dense",
    ]


def test_compare_latex_caption_and_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "table.tex"
    flags = ["-m", "AP", "--resamples", "200", "-f", "latex", "-o", str(target)]
    code = main(
        [
            "compare",
            QRELS,
            BM25,
            DENSE,
            *flags,
            "--caption",
            "BM25 vs dense_v2 (50% off)",
            "--label",
            "tab:main",
        ]
    )
    assert code == EXIT_OK, capsys.readouterr().err
    latex = target.read_text()
    assert r"\caption{BM25 vs dense\_v2 (50\% off)}" in latex
    assert r"\label{tab:main}" in latex
    assert r"\resizebox{\ifdim\width>\columnwidth\columnwidth\else\width\fi}{!}{%" in latex
    assert f"% command: rankscope compare {QRELS} {BM25} {DENSE}" in latex


# -- | head ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["fuse", BM25, DENSE],  # written by polars
        ["evaluate", QRELS, BM25, DENSE, "-q", "-f", "trec", "-m", "P@5,R@10,nDCG@10,AP"],
        # official, not all_trec: all_trec's rbp warns that trec_eval's own is undetermined.
        ["trec-eval", "-q", "-m", "official", QRELS, BM25],
    ],
)
def test_a_reader_that_goes_away_is_not_an_error(command: list[str]) -> None:
    """`rankscope ... | head -1`: the first line arrives, then exit 0 with nothing on stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rankscope", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `head -1` does
    code = process.wait(timeout=60)
    error = process.stderr.read().decode()
    process.stderr.close()
    assert first.strip(), "the first line arrives"
    assert (code, error) == (EXIT_OK, "")
