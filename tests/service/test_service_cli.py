"""``rankscope run``, ``rankscope tasks`` and ``rankscope serve`` through the real dispatcher."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest
from service_helpers import serve_search

from rankscope.cli import main
from rankscope.service import EvaluationService, load_dataset


def _task_id(output: str) -> str:
    match = re.search(r"^task id: ([0-9a-f]{12})$", output, re.MULTILINE)
    assert match, output
    return match.group(1)


def test_run_the_weknora_sample_with_bm25(
    tmp_path: Path, weknora_samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "cli.db")
    assert (
        main(["run", "--dataset", str(weknora_samples_dir), "--retriever", "bm25", "--db", db]) == 0
    )
    out = capsys.readouterr().out
    for field in ("precision", "recall", "ndcg3", "ndcg10", "mrr", "map"):
        assert re.search(rf"^  {field} +1\.0000$", out, re.MULTILINE), out
    task_id = _task_id(out)
    assert f"task {task_id} succeeded: 1 of 1 queries (0 failed)" in out
    assert "latency ms: mean" in out

    assert main(["tasks", "list", "--db", db]) == 0
    assert re.search(
        rf"^{task_id}  succeeded +1/1 +0  weknora  weknora_samples",
        capsys.readouterr().out,
        re.MULTILINE,
    )

    assert main(["tasks", "show", task_id[:6], "--queries", "1", "--db", db]) == 0
    shown = capsys.readouterr().out
    assert f"task {task_id} succeeded" in shown and "1\tsucceeded\t" in shown

    trec = tmp_path / "run.trec"
    assert main(["tasks", "export", task_id, "--format", "trec", "-o", str(trec), "--db", db]) == 0
    assert sorted(line.split()[2] for line in trec.read_text().splitlines()) == ["1", "2", "3", "4"]
    assert main(["tasks", "export", task_id, "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["task"]["metrics"]["map"] == 1.0

    assert main(["tasks", "cancel", task_id, "--db", db]) == 1
    assert "is succeeded; only pending or running tasks can be cancelled" in capsys.readouterr().err


def test_run_a_callable_under_trec_then_resume_and_compare(
    tmp_path: Path, beir_dir: Path, toy_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "cli.db")
    common = [
        "--dataset",
        str(beir_dir),
        "--profile",
        "trec",
        "-m",
        "nDCG@10,AP",
        "--db",
        db,
        "--json",
    ]
    assert main(["run", "--retriever", f"{toy_module}:search", *common]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["status"] == "succeeded" and first["measures"] == ["nDCG@10", "AP"]
    assert main(["run", "--retriever", f"{toy_module}:ids_only", "-k", "3", *common]) == 0
    second = json.loads(capsys.readouterr().out)

    # Make the second look interrupted: its process died with 10 queries unrecorded.
    service = EvaluationService(db)
    with service.store.transaction() as connection:
        connection.execute(
            "DELETE FROM results WHERE task_id = ? AND position >= 20", (second["id"],)
        )
    service.store.update_task(
        second["id"],
        status="running",
        summary=None,
        owner=f"{socket.gethostname()}:999999999:x",
        heartbeat=time.time(),
    )
    service.close()
    assert main(["tasks", "resume", second["id"], "--db", db, "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["status"] == "succeeded" and resumed["metrics"] == second["metrics"]

    compare = ["tasks", "compare", first["id"], second["id"], "--test", "randomization"]
    assert main([*compare, "--db", db]) == 0
    compared = capsys.readouterr().out
    assert f"significantly different from the baseline {first['id']}" in compared
    assert re.search(
        rf"^{first['id']} \(baseline\)\s+{first['metrics']['nDCG@10']:.4f}\s+"
        rf"{first['metrics']['AP']:.4f}",
        compared,
        re.MULTILINE,
    )
    assert f"command: rankscope tasks compare {first['id']} {second['id']}" in compared
    # Every report format of `rankscope compare`, with its options.
    latex = tmp_path / "tasks.tex"
    options = ["-f", "latex", "--label", "tab:tasks", "-o", str(latex), "--db", db]
    assert main([*compare, *options]) == 0
    assert r"\label{tab:tasks}" in latex.read_text()
    assert main([*compare, "-f", "json", "--db", db]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["baseline"] == first["id"] and payload["test"] == "randomization"
    assert payload["provenance"]["runs"][1] == {
        "name": second["id"],
        "source": f"task {second['id']}",
    }
    html = tmp_path / "tasks.html"
    assert main([*compare, "-f", "html", "-o", str(html), "--db", db]) == 0
    assert html.read_text().count('<section class="measure"') == 2
    assert main([*compare, "--caption", "x", "--db", db]) == 2
    # Every pair, with Tukey's HSD over the tasks; baselines by name or id.
    tasks = ["tasks", "compare", first["id"], second["id"], "--db", db]
    assert main([*tasks, "--all-pairs", "--test", "tukey", "-f", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["test"] == "tukey" and payload["baselines"] == []
    assert {(row["baseline"], row["system"]) for row in payload["comparisons"]} == {
        (first["id"], second["id"])
    }
    assert payload["analyses"]["AP"]["design"] and payload["analyses"]["AP"]["letters"]
    assert main([*tasks, "--baseline", second["id"], "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["baselines"] == [second["id"]]
    assert main([*tasks, "--baseline", "nope"]) == 2
    assert "--baseline 'nope' is not one of the tasks" in capsys.readouterr().err
    assert main([*tasks, "--all-pairs", "--baseline", first["id"]]) == 2
    assert "--all-pairs compares every pair" in capsys.readouterr().err


def test_run_an_http_retriever_with_its_options(
    tmp_path: Path, beir_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = load_dataset(beir_dir)
    with serve_search(dict(data.corpus())) as search:
        code = main(
            [
                "run", "--dataset", str(beir_dir), "--retriever", search.url,
                "--request-template", '{"query": "{query}", "k": "{k}"}',
                "--results-path", "data.hits", "--id-field", "doc.id", "--score-field", "relevance",
                "--header", "X-Team: search", "--timeout", "5", "--retries", "1",
                "--db", str(tmp_path / "h.db"), "--json",
            ]
        )  # fmt: skip
        assert len(search.requests) == 30
    task = json.loads(capsys.readouterr().out)
    assert code == 0 and task["progress"]["succeeded"] == 30
    assert task["retriever"]["headers"] == {"X-Team": "***"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--retriever", "bm25"], "give --dataset DIR, or --queries FILE and --qrels FILE"),
        (
            ["run", "--dataset", "{beir}", "--retriever", "bm25", "-m", "nDCG@10"],
            "use --profile trec",
        ),
        (["run", "--dataset", "{beir}", "--retriever", "search"], "unknown retriever 'search'"),
        (
            ["run", "--dataset", "{beir}", "--retriever", "bm25", "--concurrency", "0"],
            "concurrency must be",
        ),
        (["tasks", "show", "abc"], "no task with id 'abc'"),
        (["tasks", "resume", "abc"], "no task with id 'abc'"),
        (["serve", "--host", "0.0.0.0"], "give a bearer token with --token or $RANKSCOPE_TOKEN"),
        (["serve", "--data-root", "{beir}/nowhere"], "nowhere is not a directory"),
        (["serve", "--max-body-bytes", "10"], "--max-body-bytes must be at least 1024"),
    ],
)
def test_errors_are_one_message_and_an_exit_code(
    tmp_path: Path,
    beir_dir: Path,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RANKSCOPE_TOKEN", raising=False)
    argv = [arg.replace("{beir}", str(beir_dir)) for arg in argv]
    # A bad measure is a usage error (2); the rest, as the service words them, bad input (1).
    usage = "-m" in argv
    assert main([*argv, "--db", str(tmp_path / "e.db")]) == (2 if usage else 1)
    err = capsys.readouterr().err
    assert err.startswith("rankscope: error: ") and message in err
    assert "Traceback" not in err


def test_a_progress_bar_only_on_a_terminal(
    tmp_path: Path,
    weknora_samples_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ["run", "--dataset", str(weknora_samples_dir), "--retriever", "bm25"]
    assert main([*argv, "--db", str(tmp_path / "a.db")]) == 0
    assert "━" not in capsys.readouterr().err
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    seen: list[int] = []
    import rich.progress

    update = rich.progress.Progress.update

    def spy(self: rich.progress.Progress, task_id: rich.progress.TaskID, **fields: object) -> None:
        seen.append(int(fields.get("completed", -1)))  # type: ignore[call-overload]
        update(self, task_id, **fields)  # type: ignore[arg-type]

    monkeypatch.setattr(rich.progress.Progress, "update", spy)
    assert main([*argv, "--db", str(tmp_path / "b.db")]) == 0
    assert seen == [1]


def test_import_rankscope_imports_no_service_dependency() -> None:
    import subprocess
    import sys

    code = (
        "import sys, rankscope, rankscope.service, rankscope.cli._service; "
        "optional = ('fastapi', 'uvicorn', 'httpx', 'bm25s', 'rich'); "
        "print(sorted(m for m in optional if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_run_with_a_generator_on_the_weknora_sample(
    tmp_path: Path, weknora_samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("jieba", reason="WeKnora's generation metrics need the answers extra")
    from service_helpers import GENERATOR_OPTIONS, serve_generator

    db = str(tmp_path / "cli.db")
    with serve_generator() as server:
        code = main(
            [
                "run",
                "--dataset",
                str(weknora_samples_dir),
                "--retriever",
                "bm25",
                "--generator",
                server.url,
                "--generator-template",
                json.dumps(GENERATOR_OPTIONS["body"]),
                "--answer-path",
                "choices.0.text",
                "--max-passages",
                "1",
                "-A",
                "bleu1,rougel",
                "-A",
                "TokenF1",
                "--db",
                db,
            ]
        )
    out = capsys.readouterr().out
    assert code == 0, out
    assert len(server.requests) == 1 and len(server.requests[0]["passages"]) == 1
    assert "answers scored: 1 (generator http://127.0.0.1:" in out
    for name in ("bleu1", "rougel", "TokenF1"):
        assert re.search(rf"^  {name} +[01]\.\d{{4}}$", out, re.MULTILINE), out
    task_id = _task_id(out)
    assert main(["tasks", "show", task_id, "--queries", "1", "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "    answer: '" in shown and "TokenF1=" in shown

    base = ["run", "--dataset", str(weknora_samples_dir), "--retriever", "bm25", "--db", db]
    assert main([*base, "-A", "BLEU"]) == 1
    assert "go with a generator" in capsys.readouterr().err
    assert main([*base, "--generator", "x:y", "--generator-header", "nocolon"]) == 1
    assert "--generator-header must be 'Name: value'" in capsys.readouterr().err
