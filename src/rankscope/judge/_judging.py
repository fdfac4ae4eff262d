"""Judging that survives a crash: the pairs to judge become a judging task in the service's
store (a SQLite file or a PostgreSQL server), every call and every grade is committed as it
arrives, and the same call again resumes the task where it stopped, asking nothing twice.

The task is named by what it judges: a digest of the judge's description, its prompt and
scale, and the pairs (and calibration pairs). Running the same judging again with the same
store finds the task and judges only the pairs that have no stored judgement; a pair that
failed stays failed (its kind of failure and the raw answer are kept), never guessed.

Calibration: given human qrels, a seeded sample of their pairs is judged first, and the
agreement of the judge with the humans on it (`rankscope.judge.judgement_agreement`) is
part of the report.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from rankscope._loop import run_to_end
from rankscope.errors import InputError, OptionError, TaskNotFoundError, TaskStateError
from rankscope.io import Qrels, as_qrels
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE
from rankscope.judge._pool import Pool, TextsLike, _texts

if TYPE_CHECKING:
    from rankscope._progress import ProgressOption
    from rankscope.judge._agreement import JudgementAgreement
    from rankscope.judge._judges import Judge, Judgement
    from rankscope.service.store import Store
    from rankscope.service.store.judging import JudgePair

__all__ = [
    "JudgingReport",
    "human_agreement",
    "judge_pairs",
    "judged_qrels",
    "judging_report",
    "run_judging",
    "submit_judging",
]

SOURCE = "source"
"""The side column of judged qrels written as CSV, TSV, JSONL or Parquet: ``judge`` or
``human`` (readers of qrels ignore it)."""

HEARTBEAT_SECONDS = 2.0
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class JudgingReport:
    """What a judging run did, and what its task holds.

    Attributes
    ----------
    task_id
        The judging task in the store.
    total
        Its pairs (the calibration pairs included).
    resumed
        Pairs judged by earlier runs of the task, not asked again.
    graded, failed
        Pairs of the task with a grade, and without one (all runs).
    failures
        Failed pairs per kind of failure (`rankscope.judge.FAILURES`).
    calls
        Calls made per outcome (``answered``, ``timed out``, ``rate limited``...), retries
        included.
    prompt_tokens, completion_tokens, cost
        What the endpoint reported for all of them (0 where it reported nothing).
    calibration
        The judge's agreement with the human grades of the calibration pairs, if any.
    """

    task_id: str
    total: int
    resumed: int
    graded: int
    failed: int
    failures: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    calibration: JudgementAgreement | None = None


PairsLike = Pool | Qrels | Mapping[str, Any] | str | os.PathLike[str]


def _pairs_frame(pairs: PairsLike) -> pl.DataFrame:
    frame = pairs.frame if isinstance(pairs, Pool) else as_qrels(pairs).frame
    return frame.select(QUERY_ID, DOC_ID).unique(maintain_order=True).sort(QUERY_ID, DOC_ID)


def _calibration_pairs(
    human: Qrels, exclude: set[tuple[str, str]], sample: int, seed: int
) -> list[tuple[str, str, int]]:
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
        raise OptionError(f"the calibration sample must be an integer >= 1; got {sample!r}")
    rows = sorted(
        (q, d, int(g))
        for q, d, g in human.frame.select(QUERY_ID, DOC_ID, RELEVANCE).rows()
        if (q, d) not in exclude and g >= 0
    )
    if not rows:
        raise InputError("the human qrels judge no pair to calibrate on", source=human.source)
    return sorted(random.Random(seed).sample(rows, min(sample, len(rows))))


# How a judge is reached, not what it answers: a resumed task may change them.
_TRANSPORT = ("timeout", "retries", "backoff", "prices", "api_key_env")


def _identity(judge: Judge) -> dict[str, Any]:
    """What names a judge across processes: its spec but for how it is reached (timeout,
    retries, back-off, prices, the key's variable), else its class and function by name (and
    thresholds), never an address."""
    if judge.spec is not None:
        return {key: value for key, value in judge.spec.items() if key not in _TRANSPORT}
    function = getattr(judge, "function", None)
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    return {
        "type": type(judge).__name__,
        "function": f"{getattr(function, '__module__', None)}:{name}",
        "thresholds": getattr(judge, "thresholds", None),
    }


def _task_id(spec: Mapping[str, Any]) -> str:
    return "judge-" + hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def _open(store: Store | str | os.PathLike[str]) -> tuple[Store, bool]:
    from rankscope.service.store import Store, open_store

    if isinstance(store, Store):
        return store, False
    return open_store(store if isinstance(store, str) else Path(store)), True


def judge_pairs(
    pairs: PairsLike,
    judge: Judge,
    *,
    queries: TextsLike,
    corpus: TextsLike,
    store: Store | str | os.PathLike[str],
    calibrate: Qrels | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    calibration_sample: int = 50,
    seed: int = 0,
    concurrency: int = 4,
    name: str | None = None,
    retry_failed: bool = False,
    on_judged: Callable[[JudgePair, Judgement], None] | None = None,
    progress: ProgressOption = None,
) -> JudgingReport:
    """Judge every pair with ``judge``, each call and grade committed to ``store`` as it
    arrives; called again with the same store, resume where it stopped.

    Parameters
    ----------
    pairs
        What to judge: a `Pool`, qrels (a to-judge file of ``rankscope pool``, whose grades
        are ignored) or any pairs `rankscope.io.as_qrels` reads.
    judge
        The judge (`rankscope.judge.ChatJudge`, `PromptJudge`, `CallableJudge`).
    queries, corpus
        ``{id: text}`` or files `rankscope.io.read_queries` / `read_corpus` read; every
        query and document judged must have its text.
    store
        The store (a SQLite file, a ``postgresql://`` URL, or an open store).
    calibrate
        Human qrels: a seeded sample of ``calibration_sample`` of their pairs (``seed``) is
        judged first and the agreement reported.
    concurrency
        Calls in flight at once.
    name
        A name for the task.
    retry_failed
        Ask again the pairs whose judgement failed in an earlier run (otherwise a failure is
        kept as it is); the new judgement replaces the failure.
    on_judged
        Called with each pair and its judgement once it is committed.
    progress
        ``True``: a bar of the pairs judged on a terminal; a callable: called with ``(done,
        total)`` after each (`rankscope._progress.steps`).

    Returns
    -------
    JudgingReport

    Raises
    ------
    TaskStateError
        When another live process is judging the same task.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankscope.judge import CallableJudge
    >>> judge = CallableJudge(lambda query, passage: 3 if "bm25" in passage.lower() else 0)
    >>> report = judge_pairs(
    ...     {"q1": {"d1": -1, "d2": -1}}, judge,
    ...     queries={"q1": "what is bm25"},
    ...     corpus={"d1": "BM25 is a ranking function", "d2": "A recipe for bread"},
    ...     store=pathlib.Path(tempfile.mkdtemp()) / "judging.db")
    >>> report.graded, report.failed, report.calls
    (2, 0, {'answered': 2})
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise OptionError(f"concurrency must be an integer >= 1; got {concurrency!r}")
    opened, owned = _open(store)
    try:
        task_id, _ = submit_judging(
            pairs,
            judge,
            queries=queries,
            corpus=corpus,
            store=opened,
            calibrate=calibrate,
            calibration_sample=calibration_sample,
            seed=seed,
            name=name,
        )
        report = run_judging(
            opened,
            task_id,
            judge,
            concurrency=concurrency,
            retry_failed=retry_failed,
            on_judged=on_judged,
            progress=progress,
        )
        return report if calibrate is None else _with_calibration(opened, task_id, report)
    finally:
        if owned:
            opened.close()


def submit_judging(
    pairs: PairsLike,
    judge: Judge,
    *,
    queries: TextsLike,
    corpus: TextsLike,
    store: Store,
    calibrate: Qrels | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    calibration_sample: int = 50,
    seed: int = 0,
    name: str | None = None,
    extra: Mapping[str, Any] | None = None,
    source_task: str | None = None,
) -> tuple[str, bool]:
    """The judging task of these pairs and this judge in ``store``, created (with the texts
    it reads) unless it is there already: its id, and whether it was there.

    The id is a digest of what is judged and by what (`judge_pairs`), so the same judging
    asked again finds its task. ``extra`` is kept in the task's specification beside that
    (the service keeps how to run it again there) and is no part of the digest;
    ``source_task`` names the evaluation task whose holes it fills (the store indexes it).
    """
    from rankscope.service.store.judging import JudgePair, create_judging

    frame = _pairs_frame(pairs)
    if frame.height == 0:
        raise InputError("there is no pair to judge")
    to_judge = [(q, d) for q, d in frame.rows()]
    human = None if calibrate is None else as_qrels(calibrate)
    calibration = (
        [] if human is None else _calibration_pairs(human, set(to_judge), calibration_sample, seed)
    )
    ordered = [JudgePair(i, q, d, True, g) for i, (q, d, g) in enumerate(calibration)] + [
        JudgePair(len(calibration) + i, q, d) for i, (q, d) in enumerate(to_judge)
    ]
    spec: dict[str, Any] = {
        "judge": _identity(judge),
        "prompt": [judge.prompt.system, judge.prompt.template],
        "grades": list(judge.grades),
        "pairs": hashlib.sha256(
            json.dumps([[p.query_id, p.doc_id, p.human] for p in ordered]).encode()
        ).hexdigest(),
    }
    task_id = _task_id(spec)
    try:
        store.task(task_id)
        return task_id, True
    except TaskNotFoundError:
        pass
    query_texts = _texts(queries, pl.Series([p.query_id for p in ordered]), "query", "queries")
    doc_texts = _texts(corpus, pl.Series([p.doc_id for p in ordered]), "document", "corpus")
    create_judging(
        store,
        {
            "id": task_id,
            "name": name,
            "spec": {**spec, **(extra or {})},
            "source_task": source_task,
        },
        ordered,
        query_texts,
        doc_texts,
    )
    return task_id, False


def _with_calibration(store: Store, task_id: str, report: JudgingReport) -> JudgingReport:
    """The report with the judge's agreement with the humans on the calibration pairs it
    graded (none graded: no agreement)."""
    from dataclasses import replace

    from rankscope.judge._agreement import judgement_agreement
    from rankscope.service.store.judging import stored_grades

    judged = [g for g in stored_grades(store, task_id) if g.pair.calibration]
    human: dict[str, dict[str, int | None]] = {}
    machine: dict[str, dict[str, int]] = {}
    for stored in judged:
        pair = stored.pair
        human.setdefault(pair.query_id, {})[pair.doc_id] = pair.human
        if stored.grade is not None:
            machine.setdefault(pair.query_id, {})[pair.doc_id] = stored.grade
    if not machine:
        return report
    return replace(report, calibration=judgement_agreement(human, machine))


def _claim(store: Store, task_id: str) -> str:
    from rankscope.service.tasks.owners import new_owner, owner_alive

    owner = new_owner()

    def may_take(row: dict[str, Any]) -> None:
        if row["status"] == "running" and owner_alive(row, 30.0, None):
            raise TaskStateError(
                f"judging task {task_id} is running in another process ({row['owner']}); "
                "wait for it, or stop it first"
            )

    store.claim(task_id, owner, may_take)
    return owner


def run_judging(
    store: Store,
    task_id: str,
    judge: Judge,
    *,
    concurrency: int = 4,
    retry_failed: bool = False,
    on_judged: Callable[[JudgePair, Judgement], None] | None = None,
    halt: Callable[[], str | None] | None = None,
    progress: ProgressOption = None,
    owner: str | None = None,
) -> JudgingReport:
    """Run (or resume) a judging task of ``store`` with ``judge``: claim it (unless a worker
    claimed it already, under ``owner``), judge its pairs
    without a stored judgement (and, with ``retry_failed``, the failed ones), each committed
    as it arrives, and conclude it.

    ``halt`` is asked a few times a second: ``"cancelled"`` ends the run and leaves the task
    as its canceller set it, ``"stopped"`` puts it back to pending (to be resumed); the calls
    in flight then were not stored, so a resume asks them again. ``progress`` shows the pairs
    judged (`rankscope._progress.steps`).

    Raises
    ------
    TaskStateError
        When another live process is judging the task.
    """
    from rankscope._progress import steps
    from rankscope.service.store.judging import JudgeWriter, judging_texts, pending_pairs

    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise OptionError(f"concurrency must be an integer >= 1; got {concurrency!r}")
    owner = owner or _claim(store, task_id)
    writer = JudgeWriter(store, task_id, owner)
    task = store.task(task_id)
    pending = pending_pairs(store, task_id, failed=retry_failed)
    resumed = int(task["total"]) - len(pending)
    queries, documents = judging_texts(store, task_id)
    stopped: list[str] = []

    async def judge_all(advance: Callable[..., None]) -> None:
        await judge.open(concurrency)
        limit = asyncio.Semaphore(concurrency)
        done = failed = 0

        async def one(pair: JudgePair) -> None:
            nonlocal done, failed
            async with limit:
                judgement = await judge.grade(
                    queries[pair.query_id],
                    documents[pair.doc_id],
                    lambda call: writer.call(pair, call),
                )
            if writer.judged(pair, judgement) and on_judged is not None:
                on_judged(pair, judgement)
            done += 1
            failed += judgement.grade is None
            advance(done, detail=f"failed {failed}")

        async def watch() -> None:
            beat = time.monotonic()
            while True:
                await asyncio.sleep(_POLL_SECONDS)
                reason = None if halt is None else halt()
                if reason is not None:
                    stopped.append(reason)
                    for running in judging:
                        running.cancel()
                    return
                if time.monotonic() - beat > HEARTBEAT_SECONDS:
                    beat = time.monotonic()
                    writer.heartbeat()

        judging = [asyncio.ensure_future(one(pair)) for pair in pending]
        watcher = asyncio.ensure_future(watch())
        try:
            results = await asyncio.gather(*judging, return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and not isinstance(
                    result, asyncio.CancelledError
                ):
                    raise result
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await judge.aclose()

    try:
        with steps(len(pending), "judging", progress) as advance:
            run_to_end(lambda: judge_all(advance), "rankscope-judging")
    except BaseException as error:
        store.update_task(
            task_id,
            when_owner=owner,
            status="failed",
            owner=None,
            error=f"{type(error).__name__}: {error}",
            active_seconds=writer.active_seconds,
        )
        raise
    if stopped and stopped[0] == "stopped":
        store.update_task(
            task_id,
            when_owner=owner,
            when_status=("running",),
            status="pending",
            owner=None,
            active_seconds=writer.active_seconds,
        )
    elif stopped:
        store.update_task(
            task_id, when_owner=owner, owner=None, active_seconds=writer.active_seconds
        )
    else:
        store.update_task(
            task_id,
            when_owner=owner,
            when_status=("running",),
            status="succeeded",
            owner=None,
            error=None,
            finished_at=time.time(),
            active_seconds=writer.active_seconds,
        )
    return judging_report(store, task_id, resumed)


def judging_report(store: Store, task_id: str, resumed: int = 0) -> JudgingReport:
    """What a judging task holds now, as a `JudgingReport` (``resumed``: the pairs a run found
    judged already)."""
    task = store.task(task_id)
    tallies = task["tallies"] or {}
    return JudgingReport(
        task_id=task_id,
        total=int(task["total"]),
        resumed=resumed,
        graded=int(task["succeeded"]),
        failed=int(task["failed"]),
        failures=dict(sorted(tallies.get("failures", {}).items())),
        calls=dict(sorted(tallies.get("calls", {}).items())),
        prompt_tokens=int(tallies.get("prompt_tokens", 0)),
        completion_tokens=int(tallies.get("completion_tokens", 0)),
        cost=float(tallies.get("cost", 0.0)),
    )


def judged_qrels(
    store: Store | str | os.PathLike[str],
    task_id: str,
    human: Qrels | Mapping[str, Any] | str | os.PathLike[str] | None = None,
) -> pl.DataFrame:
    """The grades of a judging task as a qrels frame (``query_id``, ``doc_id``,
    ``relevance``, ``source``): the judge's grades of the pairs judged (failed pairs and
    calibration pairs left out), with ``human``'s judgements added, which win where both
    judge a pair."""
    from rankscope.service.store.judging import stored_grades

    opened, owned = _open(store)
    try:
        rows = [
            (g.pair.query_id, g.pair.doc_id, g.grade, "judge")
            for g in stored_grades(opened, task_id)
            if g.grade is not None and not g.pair.calibration
        ]
    finally:
        if owned:
            opened.close()
    schema = {QUERY_ID: pl.String, DOC_ID: pl.String, RELEVANCE: pl.Int64, SOURCE: pl.String}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    if human is not None:
        humans = (
            as_qrels(human)
            .frame.select(QUERY_ID, DOC_ID, RELEVANCE)
            .with_columns(pl.lit("human").alias(SOURCE))
        )
        frame = pl.concat([humans, frame.join(humans, on=[QUERY_ID, DOC_ID], how="anti")])
    return frame.sort(QUERY_ID, DOC_ID)


def human_agreement(
    store: Store | str | os.PathLike[str],
    task_id: str,
    human: Qrels | Mapping[str, Any] | str | os.PathLike[str],
    relevance_level: int = 1,
) -> JudgementAgreement | None:
    """How far a judging task's grades agree with human qrels on the pairs both judge (the
    calibration pairs among them): `rankscope.judge.judgement_agreement` with the humans as
    ``A``; None when they share no pair.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankscope.judge import CallableJudge
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "judging.db"
    >>> report = judge_pairs({"q1": {"d1": -1, "d2": -1}}, CallableJudge(lambda q, p: 1),
    ...                      queries={"q1": "a query"}, corpus={"d1": "one", "d2": "two"},
    ...                      store=db)
    >>> found = human_agreement(db, report.task_id, {"q1": {"d1": 1, "d2": 0, "d3": 1}})
    >>> found.shared, found.same_grade
    (2, 0.5)
    """
    from rankscope.judge._agreement import judgement_agreement
    from rankscope.service.store.judging import stored_grades

    opened, owned = _open(store)
    try:
        graded = [
            (g.pair.query_id, g.pair.doc_id, g.grade)
            for g in stored_grades(opened, task_id)
            if g.grade is not None
        ]
    finally:
        if owned:
            opened.close()
    machine = pl.DataFrame(
        graded, schema={QUERY_ID: pl.String, DOC_ID: pl.String, RELEVANCE: pl.Int64}, orient="row"
    )
    humans = as_qrels(human)
    if humans.frame.join(machine, on=[QUERY_ID, DOC_ID], how="semi").height == 0:
        return None
    return judgement_agreement(humans, Qrels.from_frame(machine), relevance_level)
