"""``rankscope pool``, ``holes`` and ``agree``: in-process on the bundled example runs, each
output the library's numbers, and errors as the exit codes promise."""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import rankscope
from rankscope.cli import EXIT_DEPENDENCY, EXIT_INPUT, EXIT_OK, EXIT_USAGE, main
from rankscope.io import read_qrels
from rankscope.judge import holes, judgement_agreement, pool, ranking_agreement

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
QRELS, BM25, DENSE = (str(DATA / name) for name in ("qrels.txt", "bm25.run", "dense.run"))


def cli(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def other_qrels(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The example qrels with a third of the grades redrawn, and a query left out."""
    rng = random.Random(29)
    lines = []
    for line in Path(QRELS).read_text().splitlines():
        query, iteration, doc, grade = line.split()
        if query == "130":
            continue
        if rng.random() < 0.3:
            grade = str(rng.randint(0, 3))
        lines.append(f"{query} {iteration} {doc} {grade}")
    path = tmp_path_factory.mktemp("qrels") / "other.qrels"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


# -- pool ---------------------------------------------------------------------------------------


def test_pool_writes_trec_qrels_to_stdout_and_counts_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "pool", BM25, DENSE, "--depth", "5", "--qrels", QRELS)
    assert code == EXIT_OK
    expected = pool([BM25, DENSE], 5, QRELS)
    lines = out.splitlines()
    assert lines == [f"{q} 0 {d} -1" for q, d in expected.frame.select("query_id", "doc_id").rows()]
    assert err == (
        f"rankscope: pool: {len(expected)} pairs to judge in {len(expected.query_ids)} queries "
        f"(depth 5, 2 runs; {expected.judged} pairs already judged left out)\n"
    )


def test_pool_with_texts_writes_csv_from_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pooled = pool([BM25], 2)
    corpus = tmp_path / "collection.tsv"
    corpus.write_text("".join(f"{doc}\ttext of {doc}\n" for doc in set(pooled.frame["doc_id"])))
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        "".join(json.dumps({"_id": q, "text": f"query {q}"}) + "\n" for q in pooled.query_ids)
    )
    output = tmp_path / "to-judge.csv"
    code, _, _ = cli(
        capsys,
        "pool",
        BM25,
        "--depth",
        "2",
        "--corpus",
        str(corpus),
        "--queries",
        str(queries),
        "-o",
        str(output),
    )
    assert code == EXIT_OK
    rows = list(csv.DictReader(output.open()))
    assert len(rows) == len(pooled)
    assert rows[0]["document"] == f"text of {rows[0]['doc_id']}"
    assert rows[0]["query"] == f"query {rows[0]['query_id']}"
    assert len(read_qrels(output)) == len(pooled)  # a judging sheet reads back as qrels


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["--depth", "0"], EXIT_USAGE, "--depth must be an integer >= 1; got 0"),
        (["--depth", "3", "--corpus", "c.tsv", "-f", "trec"], EXIT_USAGE, "TREC qrels cannot"),
        (["--depth", "3", "-f", "parquet"], EXIT_USAGE, "--format parquet needs --output"),
    ],
)
def test_pool_refuses_bad_options(
    capsys: pytest.CaptureFixture[str], arguments: list[str], code: int, message: str
) -> None:
    found, _, err = cli(capsys, "pool", BM25, *arguments)
    assert found == code and message in err


def test_pool_without_depth_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["pool", BM25])
    assert stopped.value.code == EXIT_USAGE
    assert "--depth" in capsys.readouterr().err


def test_a_malformed_run_line_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 high x\n")
    code, out, err = cli(capsys, "pool", str(bad), "--depth", "3")
    assert (code, out) == (EXIT_INPUT, "")
    assert f"{bad}:2:" in err and "q1 Q0 d2 2 high x" in err


# -- holes --------------------------------------------------------------------------------------


def test_holes_table_prints_the_librarys_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "holes", QRELS, BM25, DENSE, "-m", "nDCG@10,AP", "-k", "5,10")
    assert code == EXIT_OK
    found = holes(QRELS, [BM25, DENSE], ["nDCG@10", "AP"], [5, 10])
    summary, measures = out.split("\n\n")
    header, *rows = summary.splitlines()
    assert header.split() == ["run", "queries", "Judged@5", "Judged@10", "unjudged@10", "holes"]
    for row, run_holes in zip(rows, found, strict=True):
        assert row.split() == [
            run_holes.run_name,
            "30",
            f"{run_holes.judged[5]:.4f}",
            f"{run_holes.judged[10]:.4f}",
            str(run_holes.unjudged.height),
            str(run_holes.holes),
        ]
    lines = measures.splitlines()
    assert lines[0].split() == [
        "run",
        "measure",
        "as",
        "judged",
        "holes",
        "=",
        "0",
        "holes",
        "=",
        "3",
    ]
    low, high = found[1].bounds()["AP"]
    assert lines[-1].split() == [
        "dense",
        "AP",
        f"{found[1].measured.mean()['AP']:.4f}",
        f"{low:.4f}",
        f"{high:.4f}",
    ]


def test_holes_json_and_csv_hold_every_digit(capsys: pytest.CaptureFixture[str]) -> None:
    found = holes(QRELS, [BM25], ["P@10"], [10])
    code, out, _ = cli(capsys, "holes", QRELS, BM25, "-m", "P@10", "-f", "json")
    assert code == EXIT_OK
    assert json.loads(out) == {"runs": [found[0].to_dict()]}
    code, out, _ = cli(capsys, "holes", QRELS, BM25, "-m", "P@10", "-f", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    low, high = found[0].bounds()["P@10"]
    assert rows == [
        ["run", "measure", "value", "holes_nonrelevant", "holes_relevant"],
        ["bm25", "Judged@10", repr(found[0].judged[10]), "", ""],
        ["bm25", "P@10", repr(found[0].measured.mean()["P@10"]), repr(low), repr(high)],
    ]


def test_holes_lists_the_unjudged_documents(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "holes", QRELS, BM25, "--unjudged", "-k", "3", "-f", "csv")
    assert code == EXIT_OK
    [found] = holes(QRELS, [BM25], ["P@3"], [3])
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "query_id", "rank", "doc_id"]
    assert [(q, int(r), d) for _, q, r, d in rows[1:]] == found.unjudged.rows()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-k", "ten"], "-k/--cutoff must be integers >= 1; got 'ten'"),
        (["--grade", "0"], "--grade must be an integer >= 1; got 0"),
        (["-m", "nDCG@x"], "nDCG@x"),
    ],
)
def test_holes_refuses_bad_options(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    code, _, err = cli(capsys, "holes", QRELS, BM25, *arguments)
    assert code == EXIT_USAGE and message in err


# -- agree --------------------------------------------------------------------------------------


def test_agree_prints_kappa_to_four_decimals(
    capsys: pytest.CaptureFixture[str], other_qrels: str
) -> None:
    code, out, _ = cli(capsys, "agree", QRELS, other_qrels)
    assert code == EXIT_OK
    found = judgement_agreement(QRELS, other_qrels)
    assert f"{found.shared} pairs judged in both ({found.only_a} judged in QRELS_A only" in out
    assert f"Cohen's kappa (grade >= 1)        {found.kappa:.4f}" in out
    assert f"Krippendorff's alpha, ordinal     {found.alpha:.4f}" in out
    assert "leaderboards" not in out


def test_agree_with_runs_compares_the_leaderboards(
    capsys: pytest.CaptureFixture[str], other_qrels: str, tmp_path: Path
) -> None:
    third = tmp_path / "third.run"
    third.write_text(Path(BM25).read_text().replace(" bm25", " third").replace("D101-4763", "X"))
    runs = [BM25, DENSE, str(third)]
    code, out, _ = cli(capsys, "agree", QRELS, other_qrels, *runs, "-m", "AP,nDCG@10", "-f", "json")
    assert code == EXIT_OK
    document = json.loads(out)
    rankings = ranking_agreement(QRELS, other_qrels, runs, ["AP", "nDCG@10"])
    assert document["rankings"] == json.loads(json.dumps(rankings.to_dict()))
    assert document["judgements"] == judgement_agreement(QRELS, other_qrels).to_dict()
    assert document["rankings"]["queries"] == 29  # query 130 is judged by one side only
    code, out, _ = cli(capsys, "agree", QRELS, other_qrels, *runs, "-m", "AP", "-f", "markdown")
    assert code == EXIT_OK
    ap = rankings.measures[0]
    assert f"| AP | {ap.kendall_tau:.4f} | " in out
    assert "**leaderboards: 3 runs on the 29 queries both judge" in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([BM25], "at least two runs; got 1"),
        ([BM25, DENSE, "--rbo-p", "1.5"], "--rbo-p must lie strictly between 0 and 1; got 1.5"),
    ],
)
def test_agree_refuses_bad_options(
    capsys: pytest.CaptureFixture[str], other_qrels: str, arguments: list[str], message: str
) -> None:
    code, _, err = cli(capsys, "agree", QRELS, other_qrels, *arguments)
    assert code == EXIT_USAGE and message in err


def test_agree_without_scikit_learn_names_the_extra(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, other_qrels: str
) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    code, _, err = cli(capsys, "agree", QRELS, other_qrels)
    assert code == EXIT_DEPENDENCY
    assert "pip install 'rankscope[judge]'" in err and "scikit-learn" in err


@pytest.mark.parametrize("command", ["pool", "holes", "agree"])
def test_help_loads_no_heavy_module(command: str) -> None:
    script = (
        "import sys\n"
        "from rankscope.cli import main\n"
        "try:\n"
        f"    main([{command!r}, '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('polars', 'numpy', 'scipy', 'sklearn', 'krippendorff', 'rich')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"usage: rankscope {command}" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_commands_are_listed_in_the_top_help() -> None:
    for name in ("pool", "holes", "agree"):
        assert name in rankscope.cli.COMMANDS
