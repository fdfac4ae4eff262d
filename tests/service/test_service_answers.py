"""A task with a generator: each question's answer, from its retrieved passages, is stored with
the ranking and scored against the reference answers, as `rankscope.evaluate_answers` scores
it; the answers come from a callable or a loopback HTTP endpoint, are listed, sorted, exported
and summed up; a store of the previous schema keeps its tasks."""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import (
    GENERATOR_OPTIONS,
    HTTP_OPTIONS,
    make_beir,
    serve_generator,
    serve_search,
)

import rankscope
from loopback import serving
from rankscope.errors import InputError, MeasureError
from rankscope.service import Dataset, EvaluationService, create_app, load_dataset
from rankscope.service.store.sqlite import SQLiteStore

pytest.importorskip("sacrebleu", reason="the answer measures need the answers extra")
pytest.importorskip("rouge_score", reason="the answer measures need the answers extra")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "weknora_samples"


@pytest.fixture
def answered_beir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "answered", answers=True)


def _answers_of(service: EvaluationService, task_id: str) -> dict[str, str]:
    return {
        r.query_id: r.answer
        for r in service.query_results(task_id, status="succeeded")
        if r.answer is not None
    }


@pytest.mark.parametrize("profile", ["weknora", "trec"])
def test_answers_are_scored_as_evaluate_answers_scores_them(
    tmp_path: Path, answered_beir: Path, toy_module: str, profile: str
) -> None:
    data = load_dataset(answered_beir)
    measures = None if profile == "weknora" else ["BLEU", "ROUGE-L", "ExactMatch", "TokenF1"]
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(
            data,
            f"{toy_module}:search",
            profile=profile,
            generator=f"{toy_module}:answer",
            answer_measures=measures,
        )
        info = service.run(task.id)
        records = service.query_results(task.id)
        answers = _answers_of(service, task.id)
    finally:
        service.close()
    assert info.status == "succeeded" and info.succeeded == len(data.queries) == 30
    expected_names = (
        ("bleu1", "bleu2", "bleu4", "rouge1", "rouge2", "rougel")
        if profile == "weknora"
        else ("BLEU", "ROUGE-L", "ExactMatch", "TokenF1")
    )
    assert info.answer_measures == expected_names
    assert len(answers) == 30 and info.references == len(data.references) == 24
    assert info.answered == 24
    assert info.answer_note == (
        "6 of 30 questions have no reference answer: their answers are stored, not scored"
    )
    # The answer is the first retrieved passage's text (what the toy generator returns).
    corpus = dict(data.corpus())
    for record in records:
        assert record.answer == (corpus[record.doc_ids[0]] if record.doc_ids else "no passage")
        assert (record.answer_metrics is None) == (record.query_id not in data.references)
        assert record.references == data.references.get(record.query_id)

    references = {query_id: list(texts) for query_id, texts in data.references.items()}
    engine_measures = (
        ["BLEU(n=1)", "BLEU(n=2)", "BLEU(n=4)", "ROUGE-1", "ROUGE-2", "ROUGE-L"]
        if profile == "weknora"
        else list(expected_names)
    )
    with pytest.warns(rankscope.RankscopeWarning, match="no reference answer"):
        expected = rankscope.evaluate_answers(
            references,
            answers,
            engine_measures,
            profile="weknora" if profile == "weknora" else "standard",
        )
    per_query = expected.to_dict()
    for record in records:
        if record.answer_metrics is not None:
            values = per_query[record.query_id]
            assert record.answer_metrics == {
                name: values[engine]
                for name, engine in zip(expected_names, engine_measures, strict=True)
            }
    means = expected.mean()
    for name, engine in zip(expected_names, engine_measures, strict=True):
        assert info.answer_metrics[name] == pytest.approx(means[engine], abs=1e-12)
    assert 0 < info.answer_metrics[expected_names[-1]] < 1  # some answers right, some not


def test_an_http_generator_is_given_the_retrieved_passages(
    tmp_path: Path, answered_beir: Path, toy_module: str
) -> None:
    data = load_dataset(answered_beir)
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        with serve_generator() as server:
            task = service.submit(
                data,
                f"{toy_module}:search",
                k=5,
                generator=server.url,
                generator_options={**GENERATOR_OPTIONS, "max_passages": 2},
            )
            info = service.run(task.id)
        by_id = {r.query_id: r for r in service.query_results(task.id)}
    finally:
        service.close()
    assert info.status == "succeeded" and info.answered == 24
    assert info.generator is not None and info.generator["max_passages"] == 2
    corpus = dict(data.corpus())
    assert len(server.requests) == 30
    for payload in server.requests:
        query_id = payload["query_id"]
        record = by_id[query_id]
        assert payload["query"] == dict(data.queries)[query_id]
        assert payload["passages"] == [corpus[doc] for doc in record.doc_ids[:2]]
        assert record.answer == (payload["passages"] or ["no passage"])[0]
        assert record.answer_latency is not None and record.answer_latency >= 0


def test_a_failing_generator_fails_its_question_and_the_task_goes_on(
    tmp_path: Path, answered_beir: Path, toy_module: str
) -> None:
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        with serve_generator() as server:
            server.respond = lambda payload: (
                (500, {"error": "down"}) if payload["query"].endswith("q3") else
                (200, {"choices": [{"text": "an answer"}]})
            )  # fmt: skip
            task = service.submit(
                answered_beir,
                f"{toy_module}:search",
                generator=server.url,
                generator_options={**GENERATOR_OPTIONS, "retries": 1},
            )
            info = service.run(task.id)
        (failed,) = service.query_results(task.id, status="failed")
    finally:
        service.close()
    assert info.status == "succeeded" and info.failed == 1 and info.succeeded == 29
    assert failed.query_id == "q3" and failed.attempts == 1 and failed.doc_ids
    assert failed.error is not None and "HTTP 500" in failed.error
    assert "gave up after 2 attempts" in failed.error
    assert failed.answer is None and failed.metrics is None
    assert (
        server.attempts[next(t for q, t in load_dataset(answered_beir).queries if q == "q3")] == 2
    )


def test_answers_without_references_are_stored_and_not_scored(
    tmp_path: Path, beir_dir: Path, toy_module: str
) -> None:
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(beir_dir, f"{toy_module}:search", generator=f"{toy_module}:answer")
        info = service.run(task.id)
        records = service.query_results(task.id)
        shown = info.to_dict()["answers"]
    finally:
        service.close()
    assert info.status == "succeeded" and info.references == 0 and info.answered == 0
    assert all(r.answer for r in records) and all(r.answer_metrics is None for r in records)
    assert all(math.isnan(value) for value in info.answer_metrics.values())
    assert shown["note"] == (
        "the dataset has no reference answers: the answers are stored, and no answer measure "
        "is computed"
    )
    assert shown["metrics"] == dict.fromkeys(info.answer_measures)  # NaN shown as null
    assert shown["scored"] == 0


def test_weknora_references_come_from_answers_and_qas(tmp_path: Path) -> None:
    data = load_dataset(EXAMPLES)
    (question_id, _), *_ = data.queries
    (reference,) = data.references[question_id]
    assert reference.startswith("计算机的操作系统有")
    corpus = dict(data.corpus())

    def search(text: str, k: int) -> list[str]:
        return list(corpus)[:k]

    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(data, search, generator=lambda question, passages: reference)
        info = service.run(task.id)
    finally:
        service.close()
    assert info.answered == 1 and info.answer_note is None
    # WeKnora's ROUGE divides with an epsilon: 0.999999995 for identical texts.
    assert info.answer_metrics == pytest.approx(
        dict.fromkeys(("bleu1", "bleu2", "bleu4", "rouge1", "rouge2", "rougel"), 1.0), abs=1e-8
    )


def test_references_in_memory_and_their_checks(tmp_path: Path) -> None:
    data = Dataset.from_records(
        {"q1": "capital of France", "q2": "capital of Italy"},
        {"q1": {"d1": 1}, "q2": {"d2": 1}},
        corpus={"d1": "Paris is the capital of France", "d2": "Rome is the capital of Italy"},
        references={"q1": "Paris", "q2": ["Rome", "Roma"]},
    )
    assert data.references == {"q1": ("Paris",), "q2": ("Rome", "Roma")}
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        with pytest.raises(InputError, match="one reference answer per question; question 'q2'"):
            service.submit(data, lambda text, k: ["d1"], generator=lambda q, p: "x")
        with pytest.raises(InputError, match="go with a generator"):
            service.submit(data, lambda text, k: ["d1"], answer_measures=["BLEU"])
        with pytest.raises(MeasureError, match="scores rankings, not answers"):
            service.submit(
                data, lambda text, k: ["d1"], generator=lambda q, p: "x", answer_measures=["AP"]
            )
        with pytest.raises(InputError, match="has no corpus"):
            service.submit(
                Dataset.from_records({"q1": "x"}, {"q1": {"d1": 1}}),
                lambda text, k: ["d1"],
                generator=lambda q, p: "x",
                answer_measures=["ExactMatch"],
            )
        with pytest.raises(InputError, match="unknown generator 'gpt'"):
            service.submit(data, lambda text, k: ["d1"], generator="gpt")
        with pytest.raises(InputError, match="generator 'os:system' is not allowed"):
            EvaluationService(tmp_path / "other.db", allowed_callables=[]).submit(
                data, lambda text, k: ["d1"], generator="os:system"
            )
        task = service.submit(
            data,
            lambda text, k: ["d1", "d2"],
            generator=lambda question, passages: passages[0].split()[0],
            answer_measures=["ExactMatch", "TokenF1"],
        )
        info = service.run(task.id)
        by_id = {r.query_id: r for r in service.query_results(task.id)}
    finally:
        service.close()
    assert by_id["q1"].answer == "Paris" and by_id["q1"].answer_metrics == {
        "ExactMatch": 1.0,
        "TokenF1": 1.0,
    }
    assert by_id["q2"].answer == "Paris" and by_id["q2"].answer_metrics == {
        "ExactMatch": 0.0,
        "TokenF1": 0.0,
    }
    assert info.answer_metrics == {"ExactMatch": 0.5, "TokenF1": 0.5}


def test_a_retrieved_document_outside_the_corpus_fails_its_question(tmp_path: Path) -> None:
    data = Dataset.from_records(
        {"q1": "a", "q2": "b"},
        {"q1": {"d1": 1}, "q2": {"d1": 1}},
        corpus={"d1": "text one"},
        references={"q1": "text one", "q2": "text one"},
    )
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(
            data,
            lambda text, k: ["d1"] if text == "a" else ["ghost"],
            generator=lambda question, passages: passages[0],
            answer_measures=["ExactMatch"],
        )
        info = service.run(task.id)
        (failed,) = service.query_results(task.id, status="failed")
    finally:
        service.close()
    assert info.succeeded == 1 and failed.query_id == "q2" and failed.doc_ids == ("ghost",)
    assert failed.error is not None and "'ghost' is not in the dataset's corpus" in failed.error


def test_sort_page_and_export_by_answer_measures(
    tmp_path: Path, answered_beir: Path, toy_module: str
) -> None:
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(
            answered_beir,
            f"{toy_module}:search",
            generator=f"{toy_module}:answer",
            answer_measures=["rougel", "TokenF1"],
        )
        service.run(task.id)
        records, total = service.query_page(task.id, sort="-TokenF1", limit=100)
        ascending, _ = service.query_page(task.id, sort="rougel", limit=100)
        with pytest.raises(InputError, match=r"or one of the task's measures: .*TokenF1"):
            service.query_page(task.id, sort="BLEU")
        exported = json.loads(service.export_text(task.id, "json"))
        rows = list(csv.DictReader(io.StringIO(service.export_text(task.id, "csv"))))
    finally:
        service.close()
    assert total == 30
    scores = [r.answer_metrics["TokenF1"] for r in records if r.answer_metrics]
    assert len(scores) == 24 and scores == sorted(scores, reverse=True)
    assert all(r.answer_metrics is None for r in records[24:])  # unscored last
    rouge = [r.answer_metrics["rougel"] for r in ascending if r.answer_metrics]
    assert rouge == sorted(rouge) and rouge[0] < rouge[-1]
    assert exported["task"]["answers"]["measures"] == ["rougel", "TokenF1"]
    first = exported["queries"][0]
    assert first["answer"] and "answer_metrics" in first and "references" in first
    assert list(rows[0])[-6:] == [
        "error",
        "rougel",
        "TokenF1",
        "answer_latency_ms",
        "answer",
        "references",
    ]
    by_id = {row["query_id"]: row for row in rows}
    for query in exported["queries"]:
        row = by_id[query["query_id"]]
        assert row["answer"] == query["answer"]
        assert row["references"] == "\n".join(query["references"] or [])
        if query["answer_metrics"]:
            assert float(row["TokenF1"]) == query["answer_metrics"]["TokenF1"]
        else:
            assert row["TokenF1"] == ""


def test_a_version_2_store_keeps_its_tasks_and_gains_answers(
    tmp_path: Path, beir_dir: Path, answered_beir: Path, toy_module: str
) -> None:
    path = tmp_path / "old.db"
    service = EvaluationService(path)
    old = service.run(service.submit(beir_dir, f"{toy_module}:search").id)
    old_records = service.query_results(old.id)
    service.close()
    with sqlite3.connect(path) as db:
        for table, column in [
            ("tasks", "answered"),
            ("tasks", "answer_sums"),
            ("task_queries", "reference_answers"),
            ("results", "answer"),
            ("results", "answer_metrics"),
            ("results", "answer_latency"),
        ]:
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        (version,) = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert version == "6"
    service = EvaluationService(path)
    try:
        again = service.get(old.id)
        assert service.query_results(old.id) == old_records
        assert again.metrics == old.metrics and again.generator is None
        assert again.to_dict()["answers"] is None
        new = service.run(
            service.submit(
                answered_beir, f"{toy_module}:search", generator=f"{toy_module}:answer"
            ).id
        )
    finally:
        service.close()
    assert new.status == "succeeded" and new.answered == 24


def test_progress_reports_running_answer_means(
    tmp_path: Path, answered_beir: Path, toy_module: str
) -> None:
    seen: list[Any] = []
    service = EvaluationService(tmp_path / "tasks.db")
    try:
        task = service.submit(
            answered_beir,
            f"{toy_module}:search",
            generator=f"{toy_module}:answer",
            answer_measures=["TokenF1"],
            concurrency=1,
        )
        info = service.run(task.id, progress=seen.append)
        first = service.query_results(task.id, limit=1)[0]
    finally:
        service.close()
    assert len(seen) == 30
    last = seen[-1].running_answer_metrics
    assert last["TokenF1"] == pytest.approx(info.answer_metrics["TokenF1"])
    # One question at a time, in dataset order: the first report is q0's answer alone.
    assert first.query_id == "q0" and first.answer_metrics is not None
    assert seen[0].running_answer_metrics == first.answer_metrics


def test_the_api_runs_a_generator_and_checks_it(
    tmp_path: Path, answered_beir: Path, toy_module: str
) -> None:
    api = "/api/v1/evaluations"
    data = load_dataset(answered_beir)
    service = EvaluationService(tmp_path / "api.db")
    app = create_app(service, data_roots=[tmp_path], allowed_callables=[f"{toy_module}:search"])
    try:
        with (
            serve_search(dict(data.corpus())) as search,
            serve_generator() as generator,
            serving(app) as base,
            httpx.Client(base_url=base, timeout=10) as client,
        ):
            body: dict[str, Any] = {
                "dataset": str(answered_beir),
                "retriever": {"type": "http", "url": search.url, **HTTP_OPTIONS},
                "generator": {"type": "http", "url": generator.url, **GENERATOR_OPTIONS},
                "answer_measures": ["rougel", "ExactMatch"],
            }
            created = client.post(api, json=body)
            assert created.status_code == 202, created.text
            task_id = created.json()["id"]
            deadline = time.monotonic() + 20
            while (task := client.get(f"{api}/{task_id}").json())["status"] in (
                "pending",
                "running",
            ):
                assert time.monotonic() < deadline
                time.sleep(0.05)
            page = client.get(f"{api}/{task_id}/queries", params={"sort": "-rougel"}).json()

            refused = []
            for change in (
                {"generator": {"type": "callable", "target": f"{toy_module}:answer"}},
                {"generator": "http://198.51.100.7:80/answer"},
                {"generator": {"type": "http", "url": generator.url, "max_passages": 0}},
                {"generator": None},
                {"answer_measures": ["nDCG@10"]},
            ):
                answer = client.post(api, json={**body, **change})
                refused.append((answer.status_code, answer.text))
    finally:
        service.close()
    assert task["status"] == "succeeded"
    answers = task["answers"]
    assert answers["measures"] == ["rougel", "ExactMatch"] and answers["scored"] == 24
    assert answers["references"] == 24 and answers["note"].startswith("6 of 30 questions")
    assert 0 < answers["metrics"]["rougel"] < 1
    values = [q["answer_metrics"]["rougel"] for q in page["items"] if q["answer_metrics"]]
    assert values == sorted(values, reverse=True) and len(values) == 24
    assert all(q["answer"] for q in page["items"])
    assert [status for status, _ in refused] == [422] * 5
    assert "generator" in refused[0][1] and "not allowed" in refused[0][1]
    assert "generator URL" in refused[1][1] and "not allowed" in refused[1][1]
    assert "max_passages" in refused[2][1]
    assert "go with a generator" in refused[3][1]
    assert "scores rankings, not answers" in refused[4][1]


def test_scoring_threads_do_not_share_rouge_state() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from rankscope.service.tasks.scoring import AnswerMeasureSet, AnswerScorer

    words = [
        "the",
        "cat",
        "sat",
        "on",
        "a",
        "mat",
        "while",
        "dogs",
        "ran",
        "in",
        "the",
        "park",
        "at",
        "noon",
    ]
    references = {f"q{i}": [" ".join(words[i % 7 : i % 7 + 6])] for i in range(400)}
    answers = {f"q{i}": " ".join(words[(3 * i) % 9 : (3 * i) % 9 + 5]) for i in range(400)}
    scorer = AnswerScorer(
        AnswerMeasureSet.resolve(["ROUGE-1", "ROUGE-2", "ROUGE-L", "rougel"], "trec"), references
    )
    alone = {
        q: AnswerScorer(scorer.measure_set, references).score(q, a) for q, a in answers.items()
    }
    with ThreadPoolExecutor(8) as pool:
        together = dict(
            zip(answers, pool.map(lambda q: scorer.score(q, answers[q]), answers), strict=True)
        )
    assert together == alone
    assert len({values["ROUGE-L"] for values in alone.values() if values}) > 3


def test_reference_answers_in_every_layout_and_their_errors(tmp_path: Path) -> None:
    import polars as pl

    beir = make_beir(tmp_path / "beir", n_queries=3, n_docs=10)
    lines = (beir / "queries.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    records[0]["answers"] = ["one", "uno"]
    records[1]["answer"] = "two"
    records[4]["answer"] = "unjudged, left out"
    (beir / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert load_dataset(beir).references == {"q0": ("one", "uno"), "q1": ("two",)}

    records[2]["answer"] = 3
    (beir / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(InputError, match=r"queries\.jsonl:3: the reference answer of query 'q2'"):
        load_dataset(beir)

    queries = tmp_path / "queries.parquet"
    pl.DataFrame(
        {"id": ["q0", "q1", "q2"], "text": ["a", "b", "c"], "answer": ["Paris", None, "Rome"]}
    ).write_parquet(queries)
    files = load_dataset(queries=queries, qrels=beir / "qrels" / "test.tsv")
    assert files.references == {"q0": ("Paris",), "q2": ("Rome",)}

    weknora = tmp_path / "weknora"
    weknora.mkdir()
    for name in ("queries", "corpus", "qrels", "answers"):
        (weknora / f"{name}.parquet").write_bytes((EXAMPLES / f"{name}.parquet").read_bytes())
    with pytest.raises(InputError, match=r"missing file qas\.parquet: WeKnora's reference answers"):
        load_dataset(weknora)
    pl.DataFrame({"qid": ["1"], "aid": [7]}).write_parquet(weknora / "qas.parquet")
    with pytest.raises(InputError, match=r"row 1: answer id .7. is not in answers\.parquet"):
        load_dataset(weknora)
