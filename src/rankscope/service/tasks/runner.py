"""Run a task's remaining queries: retrieve concurrently, generate, score, record each as it
finishes.

``concurrency`` workers (asyncio tasks) take the next question and put it through its steps
(``evaluate``: ``retrieve`` awaits the retriever, ``generate`` (for a task with a generator)
awaits the answer from the retrieved passages, ``score`` scores the ranking and the answer in a
small thread pool; each step passes its result on or ends the question with a failed record),
then hand the record to the task's single `TaskWriter`, which commits it (the answer with the
ranking) before the worker takes another question. A watcher notices a cancel (from this
process or, through the store, from another), a stop, and keeps the task's heartbeat fresh.
Stopping cancels the calls in flight: they were not recorded, so a resume runs them again.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from rankscope.errors import CallError, GeneratorError, RankscopeError, TaskTakenOverError
from rankscope.service.sources.generators import Generation, Generator
from rankscope.service.sources.retrievers import Ranking, Retriever
from rankscope.service.store import QueryRecord, TaskWriter
from rankscope.service.tasks.scoring import AnswerJudging, AnswerScorer, QueryScorer

__all__ = ["Control", "Progress", "RunStats", "run_queries"]

HEARTBEAT_SECONDS = 2.0
_POLL_SECONDS = 0.1
_STATUS_EVERY = 5  # polls between reads of the task's status in the store


@dataclass
class Control:
    """Asks a task running in this process to stop: ``cancel`` (for good) or ``stop`` (to be
    resumed later, e.g. at server shutdown)."""

    cancel: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Progress:
    """Where a running task is, after each recorded query."""

    total: int
    succeeded: int
    failed: int
    running_metrics: dict[str, float]
    running_answer_metrics: dict[str, float] = field(default_factory=dict)

    @property
    def finished(self) -> int:
        """Queries recorded, succeeded or failed."""
        return self.succeeded + self.failed


@dataclass
class RunStats:
    """How one run of a task went, and where its time went.

    Attributes
    ----------
    recorded
        Queries recorded by this run.
    wall_seconds
        Time from the first question to the last record.
    store_seconds
        Time spent committing results (and heartbeats) to the store.
    scoring_seconds
        Time spent computing measures, of rankings and answers (in the scoring threads).
    stopped
        None if every query was run; else ``"cancelled"``, ``"stopped"``, ``"failed"`` (more
        queries failed than the task allows) or ``"taken over"`` (another process runs it).
    """

    recorded: int = 0
    wall_seconds: float = 0.0
    store_seconds: float = 0.0
    scoring_seconds: float = 0.0
    stopped: str | None = None
    last_error: str | None = None


async def run_queries(
    *,
    writer: TaskWriter,
    retriever: Retriever,
    scorer: QueryScorer,
    pending: Sequence[tuple[int, str, str]],
    total: int,
    k: int,
    concurrency: int,
    max_failures: int | None,
    control: Control,
    status_of: Callable[[], str],
    progress: Callable[[Progress], None] | None = None,
    generator: Generator | None = None,
    answer_scorer: AnswerScorer | None = None,
    passages: Mapping[str, str] | None = None,
    answer_judging: AnswerJudging | None = None,
) -> RunStats:
    """Run ``pending`` ``(position, query_id, text)`` and record each result as it finishes.

    With a ``generator``, each question's answer is asked from the text (``passages``: doc id
    -> text) of its retrieved documents and scored by ``answer_scorer``; its judged measures
    by ``answer_judging``, given the question, the answer, its references and the passages
    the generator was given (each asking kept as it ends, before the question's record).
    """
    loop = asyncio.get_running_loop()
    stats = RunStats()
    halt = asyncio.Event()
    queue = iter(pending)
    scoring_pool = ThreadPoolExecutor(
        max(1, min(concurrency, os.cpu_count() or 1)), thread_name_prefix="rankscope-scoring"
    )
    store_before = writer.seconds
    started = time.perf_counter()

    def stop(reason: str) -> None:
        if stats.stopped is None:
            stats.stopped = reason
        halt.set()

    def scored(
        query_id: str, ranking: Ranking, answer: str | None
    ) -> tuple[dict[str, float], dict[str, float] | None, float]:
        began = time.perf_counter()
        values = scorer.score(query_id, ranking.doc_ids, ranking.scores)
        answer_values = (
            answer_scorer.score(query_id, answer)
            if answer_scorer is not None and answer is not None
            else None
        )
        return values, answer_values, time.perf_counter() - began

    def failed(
        position: int, query_id: str, error: BaseException, ranking: Ranking | None = None
    ) -> QueryRecord:
        """The record of a question that a call failed: the retriever's, or after its ranking
        (kept), the generator's."""
        message = str(error) if isinstance(error, CallError) else f"{type(error).__name__}: {error}"
        if ranking is None:
            attempts = error.attempts if isinstance(error, CallError) else 1
            return QueryRecord(query_id, position, "failed", attempts=attempts, error=message)
        return QueryRecord(
            query_id,
            position,
            "failed",
            tuple(ranking.doc_ids),
            None if ranking.scores is None else tuple(ranking.scores),
            ranking.latency,
            ranking.attempts,
            error=f"generator: {message}",
        )

    async def retrieve(position: int, query_id: str, text: str) -> Ranking | QueryRecord:
        """The retriever's ranking, or the failed query's record."""
        began = time.perf_counter()
        try:
            ranking = await retriever.retrieve(query_id, text, k)
        except CallError as error:
            return failed(position, query_id, error)
        except Exception as error:  # a retriever's own bug must not end the task
            return failed(position, query_id, error)
        if ranking.latency is None:
            ranking = replace(ranking, latency=time.perf_counter() - began)
        return ranking

    async def generate(
        generator: Generator, texts: Mapping[str, str], item: tuple[int, str, str], ranking: Ranking
    ) -> Generation | QueryRecord:
        """The generator's answer from the retrieved passages, or the failed query's record."""
        position, query_id, text = item
        chosen = ranking.doc_ids[: generator.max_passages]
        unknown = [doc_id for doc_id in chosen if doc_id not in texts]
        if unknown:
            error = GeneratorError(
                f"retrieved document {unknown[0]!r} is not in the dataset's corpus, so the "
                "generator cannot be given its text"
            )
            return failed(position, query_id, error, ranking)
        began = time.perf_counter()
        try:
            generation = await generator.generate(
                query_id, text, chosen, [texts[doc_id] for doc_id in chosen]
            )
        except Exception as error:  # a generator's own bug must not end the task
            return failed(position, query_id, error, ranking)
        if generation.latency is None:
            generation = replace(generation, latency=time.perf_counter() - began)
        return generation

    async def judged(
        item: tuple[int, str, str], answer: str | None, contexts: Sequence[str]
    ) -> dict[str, float] | None:
        """The judged measures of a question's answer (None when it is not judged); without
        a reference answer, those that need none."""
        _, query_id, text = item
        if answer_judging is None or answer_scorer is None or answer is None:
            return None
        references = answer_scorer.references(query_id)
        graded = await answer_judging.judge_one(query_id, text, answer, references, contexts)
        return graded or None

    async def score(
        item: tuple[int, str, str],
        ranking: Ranking,
        generation: Generation | None,
        contexts: Sequence[str] = (),
    ) -> QueryRecord:
        """The record of a ranking (and answer) scored against the query's judgements (and
        reference answers, and by the judge)."""
        position, query_id, _ = item
        metrics: dict[str, float] | None = None
        answer_metrics: dict[str, float] | None = None
        failure: str | None = None
        seconds = 0.0
        answer = None if generation is None else generation.answer
        graded = await judged(item, answer, contexts)
        try:
            metrics, answer_metrics, seconds = await loop.run_in_executor(
                scoring_pool, scored, query_id, ranking, answer
            )
        except RankscopeError as error:
            failure = str(error)
        stats.scoring_seconds += seconds
        if graded is not None and answer_scorer is not None and failure is None:
            values = {**(answer_metrics or {}), **graded}
            answer_metrics = {
                name: values[name] for name in answer_scorer.measure_set.names if name in values
            }
        return QueryRecord(
            query_id,
            position,
            "failed" if failure else "succeeded",
            tuple(ranking.doc_ids),
            None if ranking.scores is None else tuple(ranking.scores),
            ranking.latency,
            ranking.attempts,
            metrics,
            failure,
            answer=answer,
            answer_metrics=answer_metrics,
            answer_latency=None if generation is None else generation.latency,
        )

    async def evaluate(position: int, query_id: str, text: str) -> QueryRecord:
        # The steps of one question, in order; each either passes its result on or ends the
        # question with a failed record.
        ranking = await retrieve(position, query_id, text)
        if isinstance(ranking, QueryRecord):
            return ranking
        item = (position, query_id, text)
        if generator is None:
            return await score(item, ranking, None)
        texts = passages or {}
        generation = await generate(generator, texts, item, ranking)
        if isinstance(generation, QueryRecord):
            return generation
        given = [texts[doc_id] for doc_id in ranking.doc_ids[: generator.max_passages]]
        return await score(item, ranking, generation, given)

    async def worker() -> None:
        while not halt.is_set():
            item = next(queue, None)
            if item is None:
                return
            record = await evaluate(*item)
            writer.record(record)
            stats.recorded += 1
            if record.status == "failed":
                stats.last_error = f"query {record.query_id!r}: {record.error}"
                if max_failures is not None and writer.counters.failed > max_failures:
                    stop("failed")
            if progress is not None:
                counters = writer.counters
                succeeded = max(counters.succeeded, 1)
                answered = (
                    {
                        name: value
                        for name in counters.answer_counts
                        if math.isfinite(value := counters.answer_mean(name))
                    }
                    if counters.answered
                    else {}
                )
                progress(
                    Progress(
                        total,
                        counters.succeeded,
                        counters.failed,
                        {name: value / succeeded for name, value in counters.sums.items()},
                        answered,
                    )
                )

    async def watcher() -> None:
        polls = 0
        last_beat = time.monotonic()
        while not halt.is_set():
            await asyncio.sleep(_POLL_SECONDS)
            polls += 1
            if control.cancel.is_set():
                stop("cancelled")
            elif control.stop.is_set():
                stop("stopped")
            elif polls % _STATUS_EVERY == 0 and status_of() == "cancelled":
                stop("cancelled")
            if time.monotonic() - last_beat >= HEARTBEAT_SECONDS and not halt.is_set():
                try:
                    writer.heartbeat()
                except TaskTakenOverError:
                    stop("taken over")  # another process runs the task now: stop writing
                    return
                last_beat = time.monotonic()

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(concurrency, len(pending))))]
    watching = asyncio.create_task(watcher())
    halted = asyncio.create_task(halt.wait())
    try:
        everything: asyncio.Future[Any] = asyncio.gather(*workers)
        # Retrieve the outcome so that asyncio never reports it as unretrieved.
        everything.add_done_callback(lambda done: done.cancelled() or done.exception())
        waiting: list[asyncio.Future[Any]] = [everything, halted]
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if halt.is_set():
            for task in workers:
                task.cancel()
        await asyncio.gather(*workers, return_exceptions=halt.is_set())
        if not halt.is_set():
            everything.result()
    finally:
        halt.set()
        for pending_task in (*workers, watching, halted):
            pending_task.cancel()
        await asyncio.gather(*workers, watching, halted, return_exceptions=True)
        scoring_pool.shutdown(wait=False, cancel_futures=True)
        stats.wall_seconds = time.perf_counter() - started
        stats.store_seconds = writer.seconds - store_before
    return stats
