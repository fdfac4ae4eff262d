"""`EvaluationService`: submit, run, follow, cancel, resume, export and compare tasks.

A task evaluates one retriever on one dataset: every judged question goes through the
retriever, its ranking is scored against the judgements, and the result is committed to the
store as soon as it is known. A task may also name a generator: each question's retrieved
passages then go to it, and its answer is scored against the question's reference answers and
committed with the ranking, in the same transaction. Its status moves ``pending -> running ->
succeeded | failed | cancelled``; a task whose process died stays ``running`` with a stale
owner until it is resumed (or marked failed by a server configured so).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import polars as pl

from rankscope._loop import run_to_end
from rankscope.errors import (
    InputError,
    QueueFullError,
    RankscopeError,
    StoreError,
    TaskStateError,
)
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE, Qrels, Run
from rankscope.service.sources.allow import check_allowed
from rankscope.service.sources.datasets import Dataset, load_dataset
from rankscope.service.sources.generators import Generator, build_generator, parse_generator_spec
from rankscope.service.sources.retrievers import Retriever, build_retriever, parse_retriever_spec
from rankscope.service.store import QueryRecord, is_server_url, open_store
from rankscope.service.tasks.compare import compare_tasks, task_scores
from rankscope.service.tasks.export import EXPORT_FORMATS, write_export
from rankscope.service.tasks.info import ACTIVE, STATUSES, TaskInfo, task_info
from rankscope.service.tasks.owners import new_owner, owner_alive
from rankscope.service.tasks.runner import Control, Progress, RunStats, run_queries
from rankscope.service.tasks.scoring import (
    AnswerJudging,
    AnswerMeasureSet,
    AnswerScorer,
    MeasureSet,
    QueryScorer,
    effective_scores,
    measure_sources,
    resolve_task_measures,
)
from rankscope.service.tasks.spec import TaskSpec
from rankscope.service.tasks.summary import summary

if TYPE_CHECKING:
    from rankscope.compare import ComparisonReport
    from rankscope.judge import Judge, JudgementAgreement
    from rankscope.service.tasks.judging import JudgingInfo

__all__ = ["EXPORT_FORMATS", "STATUSES", "EvaluationService", "TaskInfo", "default_db_path"]


def default_db_path() -> Path:
    """``$RANKSCOPE_DB``, else ``$XDG_DATA_HOME/rankscope/tasks.db`` (``~/.local/share``)."""
    configured = os.environ.get("RANKSCOPE_DB")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "rankscope" / "tasks.db"


class EvaluationService:
    """Evaluate live retrievers on datasets, keeping every per-query result in a SQLite store.

    Parameters
    ----------
    db
        The store: a SQLite file (default: `default_db_path`), or a PostgreSQL server's
        ``postgresql://`` URL (``$RANKSCOPE_DB`` may hold one).
    synchronous
        ``"NORMAL"`` (a committed query survives a crash of the process) or ``"FULL"`` (also a
        power cut, with an fsync per query).
    allowed_callables
        Patterns ``module:name`` (``fnmatch`` on each side) of the callables that may be
        imported as retrievers; None allows all (the library and the command line; the HTTP
        server passes its list).
    allowed_urls
        Patterns (``fnmatch``) of the HTTP retriever URLs that may be called, matched against
        `normal_url`; None allows all (the server passes its ``--allow-url`` list).
    data_roots
        Directories that every dataset file read must lie in, symbolic links resolved; None
        reads anywhere (the server passes its ``--data-root`` list).
    max_running
        Tasks that `start` runs at once in this process; more wait, pending.
    max_pending
        Tasks that may wait to run at once, in the whole store (every process that shares
        it); `submit` refuses more with `QueueFullError`. None: no limit.
    stale_after
        Seconds without a heartbeat after which a running task's owner counts as dead.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankscope.service import Dataset, EvaluationService
    >>> judgements = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> data = Dataset.from_records({"q1": "cats", "q2": "dogs"}, judgements)
    >>> def search(text, k):
    ...     return ["d1", "d2"] if text == "cats" else ["d1", "d3"]
    >>> service = EvaluationService(pathlib.Path(tempfile.mkdtemp()) / "tasks.db")
    >>> task = service.submit(data, search)
    >>> task.status, task.total
    ('pending', 2)
    >>> done = service.run(task.id)
    >>> done.status, done.succeeded, done.metrics["mrr"], done.metrics["precision"]
    ('succeeded', 2, 0.5, 0.25)
    >>> [record.doc_ids for record in service.query_results(task.id)]
    [('d1', 'd2'), ('d1', 'd3')]
    >>> service.close()
    """

    def __init__(
        self,
        db: str | Path | None = None,
        *,
        synchronous: str = "NORMAL",
        allowed_callables: Sequence[str] | None = None,
        allowed_urls: Sequence[str] | None = None,
        data_roots: Sequence[str | Path] | None = None,
        max_running: int = 2,
        max_pending: int | None = None,
        stale_after: float = 30.0,
    ) -> None:
        configured = os.environ.get("RANKSCOPE_DB", "")
        if db is None:
            db = configured if is_server_url(configured) else default_db_path()
        self.store = open_store(db, synchronous=synchronous)
        self.allowed_callables = None if allowed_callables is None else tuple(allowed_callables)
        self.allowed_urls = None if allowed_urls is None else tuple(allowed_urls)
        self.data_roots = None if data_roots is None else tuple(Path(r) for r in data_roots)
        self.max_running = max_running
        self.max_pending = max_pending
        self.stale_after = stale_after
        self._lock = threading.Lock()
        self._controls: dict[str, Control] = {}
        self._futures: dict[str, Future[TaskInfo | None]] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._retrievers: dict[str, Retriever] = {}
        self._generators: dict[str, Generator] = {}
        self._datasets: dict[str, Dataset] = {}
        self._judges: dict[str, Judge] = {}
        self.last_stats: dict[str, RunStats] = {}

    # --- submitting -----------------------------------------------------------------------

    def submit(
        self,
        dataset: Dataset | str | Path | Mapping[str, Any],
        retriever: str | Mapping[str, Any] | Callable[..., Any] | Retriever,
        *,
        measures: Sequence[str] | None = None,
        profile: str = "weknora",
        k: int | None = None,
        concurrency: int = 4,
        max_failures: int | None = None,
        name: str | None = None,
        http_options: Mapping[str, Any] | None = None,
        generator: str | Mapping[str, Any] | Callable[..., Any] | Generator | None = None,
        answer_measures: Sequence[str] | None = None,
        generator_options: Mapping[str, Any] | None = None,
        answer_judge: Mapping[str, Any] | None = None,
    ) -> TaskInfo:
        """Check everything and store a new pending task (nothing is retrieved yet).

        Parameters
        ----------
        dataset
            A `Dataset`, a dataset directory, or ``{"path": ..., "split": ...}`` /
            ``{"queries": ..., "qrels": ..., "corpus": ...}`` (see `load_dataset`).
        retriever
            ``"bm25"``, ``"module:function"``, an ``http(s)://`` URL (options in
            ``http_options``), a specification mapping, a Python callable ``f(text, k)``, or a
            `Retriever`.
        measures
            Under ``weknora`` (the default), some of WeKnora's RetrievalMetrics fields
            (default all six); under ``trec``/``trec9``, rankscope measure names (default
            the profile's default measures, as `rankscope evaluate`'s).
        k
            Documents asked of the retriever per question (default 10 under weknora, 100
            under trec).
        concurrency
            Retriever calls in flight at once.
        max_failures
            The task fails once more than this many queries have failed; None never fails it
            for failed queries (they are counted and reported).
        generator
            Answers each question from its retrieved passages: ``"module:function"`` (a
            function ``f(question, passages) -> answer``), an ``http(s)://`` URL (options in
            ``generator_options``: ``body``, ``answer_path``, ``headers``, ``timeout``,
            ``retries``, ``backoff``, ``max_passages``), a specification mapping, a Python
            callable or a `Generator`. The dataset must have a corpus. Each answer is stored
            and scored against the question's reference answers; questions without one keep
            their answer unscored.
        answer_measures
            WeKnora's generation metrics (``bleu1``, ``bleu2``, ``bleu4``, ``rouge1``,
            ``rouge2``, ``rougel``) and standard answer measures (``BLEU``, ``ROUGE-1``,
            ``ROUGE-2``, ``ROUGE-L``, ``ExactMatch``, ``TokenF1``, with their parameters), in
            any mix; default WeKnora's six under the weknora profile, the standard six
            otherwise. Only with a generator. The judged measures (``Faithfulness``,
            ``AnswerRelevance``, ``ReferenceAgreement``, with ``repeats=N`` and
            ``stat=mean|sd|failed``) need ``answer_judge``.
        answer_judge
            The judge of the judged answer measures: ``{"judge": ..., "concurrency": 4,
            "repeats": N, "prompts": {measure: template}}``, the judge an HTTP endpoint
            ``{"type": "http", "url": ..., "model": ...}`` (checked against the allow-list of
            URLs as a judging task's), ``{"type": "prompt", "target": "module:function"}`` (a
            function answering the prompt's messages) or a `rankscope.judge.Judge` (kept in
            this process only); ``repeats`` the askings of each judged measure named without
            its own. Each asking is stored as it ends: a resumed task asks nothing twice. An
            answer the judge gave no grade is counted apart (``answer_counts``), never in the
            mean.
        """
        if self.max_pending is not None:
            waiting = self.store.count_tasks(("pending",))
            if waiting >= self.max_pending:
                raise QueueFullError(
                    f"{waiting} tasks wait to run, as many as this server takes "
                    f"(--max-pending {self.max_pending}); submit again once some have started"
                )
        data = self._dataset(dataset)
        measure_set = MeasureSet.resolve(measures, profile)
        depth = (10 if measure_set.profile == "weknora" else 100) if k is None else k
        for label, value, low in (("k", depth, 1), ("concurrency", concurrency, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InputError(f"{label} must be an integer >= {low}; found {value!r}")
        if max_failures is not None and (
            isinstance(max_failures, bool) or not isinstance(max_failures, int) or max_failures < 0
        ):
            raise InputError(
                f"max_failures must be an integer >= 0 or None; found {max_failures!r}"
            )
        if isinstance(retriever, str | Mapping):
            spec = parse_retriever_spec(retriever, http_options)
            check_allowed(spec, self.allowed_callables, self.allowed_urls)
            built = build_retriever(spec, data, **self._allow_lists())
        else:
            built = build_retriever(retriever, data)
        if built.spec is not None and built.spec.get("type") == "bm25":
            from rankscope.service.sources.bm25 import BM25Retriever

            if isinstance(built, BM25Retriever):
                built.check()  # reads the corpus now, before any retrieval; indexed at start
        spec = (
            dict(built.spec)
            if built.spec is not None
            else {
                "type": "python",
                "description": built.describe(),
            }
        )
        answering = self._answering(
            data, measure_set, generator, answer_measures, generator_options, answer_judge
        )
        task_id = uuid.uuid4().hex[:12]
        judgements = [(q, d, int(g)) for q, d, g in data.qrels.frame.iter_rows()]
        generator_spec: dict[str, Any] | None = None
        answer_names: tuple[str, ...] = ()
        judging: dict[str, Any] | None = None
        if answering is not None:
            built_generator, answer_set, judging, _ = answering
            generator_spec = (
                dict(built_generator.spec)
                if built_generator.spec is not None
                else {"type": "python", "description": built_generator.describe()}
            )
            answer_names = tuple(answer_set.names)
        task_spec = TaskSpec(
            profile=measure_set.profile,
            measures=tuple(measure_set.names),
            k=depth,
            concurrency=concurrency,
            max_failures=max_failures,
            retriever=spec,
            generator=generator_spec,
            answer_measures=answer_names,
            references=None if answering is None else len(data.references),
            measures_from=measure_sources([m.name for m in measure_set.measures]),
            answer_judge=judging,
        )
        self.store.create_task(
            {"id": task_id, "name": name, "spec": task_spec.stored(), "dataset": data.describe()},
            list(data.queries),
            judgements,
            data.references if answering is not None else None,
        )
        with self._lock:
            # Kept only what the task's specification cannot build again (Python objects, a
            # dataset in memory): the rest is loaded when the task starts and let go when it
            # ends, so a pending task holds no dataset, index or client.
            if built.spec is None:
                self._retrievers[task_id] = built
            if not data.describe().get("location") and (
                spec["type"] == "bm25" or answering is not None
            ):
                self._datasets[task_id] = data
            if answering is not None and answering[0].spec is None:
                self._generators[task_id] = answering[0]
            if answering is not None and answering[3] is not None and answering[3].spec is None:
                self._judges[task_id] = answering[3]
        return self.get(task_id)

    def _allow_lists(self) -> dict[str, Any]:
        return {"allowed_callables": self.allowed_callables, "allowed_urls": self.allowed_urls}

    def held(self) -> dict[str, list[str]]:
        """What this process keeps in memory for each task (``retriever``, ``dataset``,
        ``generator``, ``judge``): only what the task's specification cannot build again."""
        with self._lock:
            kept: dict[str, list[str]] = {}
            for kind, objects in (
                ("retriever", self._retrievers),
                ("dataset", self._datasets),
                ("generator", self._generators),
                ("judge", self._judges),
            ):
                for task_id in objects:
                    kept.setdefault(task_id, []).append(kind)
            return kept

    def _answering(
        self,
        data: Dataset,
        measure_set: MeasureSet,
        generator: str | Mapping[str, Any] | Callable[..., Any] | Generator | None,
        answer_measures: Sequence[str] | None,
        generator_options: Mapping[str, Any] | None,
        answer_judge: Mapping[str, Any] | None = None,
    ) -> tuple[Generator, AnswerMeasureSet, dict[str, Any] | None, Judge | None] | None:
        """The task's generator and answer measures, checked, and the stored configuration
        and judge of its judged answer measures (None without them); None without a
        generator."""
        if generator is None:
            if answer_measures or generator_options or answer_judge:
                raise InputError(
                    "answer measures, generator options and an answer judge go with a "
                    "generator; name one too"
                )
            return None
        repeats: int | None = None
        if answer_judge is not None:
            concurrency, repeats, prompts = AnswerJudging.check(answer_judge)
        answer_set = AnswerMeasureSet.resolve(answer_measures, measure_set.profile, repeats)
        judging: dict[str, Any] | None = None
        judge: Judge | None = None
        if answer_set.judged and answer_judge is None:
            raise InputError(
                f"{answer_set.judged[0].name} is graded by a judge: give the task an answer judge"
            )
        if answer_judge is not None:
            families = {m.family for m in answer_set.judged}
            if not families:
                raise InputError(
                    "an answer judge grades the judged answer measures (Faithfulness, "
                    "AnswerRelevance, ReferenceAgreement); the task names none"
                )
            unused = sorted(set(prompts) - families)
            if unused:
                raise InputError(f"a prompt is given for {unused[0]}, which the task does not "
                                 "measure")  # fmt: skip
            judge, judge_spec = self._answer_judge(answer_judge["judge"])
            judging = {
                "judge": judge_spec,
                "concurrency": concurrency,
                "repeats": repeats,
                "prompts": {family: prompt.template for family, prompt in prompts.items()},
            }
        both = sorted(set(answer_set.names) & set(measure_set.names))
        if both:
            raise InputError(f"{both[0]!r} is named as a measure and as an answer measure")
        if isinstance(generator, str | Mapping):
            spec = parse_generator_spec(generator, generator_options)
            check_allowed(spec, self.allowed_callables, self.allowed_urls, role="generator")
            built = build_generator(spec, **self._allow_lists())
        else:
            built = build_generator(generator)
        if not data.has_corpus:
            raise InputError(
                f"dataset {data.name!r} has no corpus; the generator is given the text of the "
                "retrieved passages"
            )
        data.corpus()  # read and checked now, before any retrieval
        if answer_set.weknora:
            several = sorted(q for q, texts in data.references.items() if len(texts) > 1)
            if several:
                raise InputError(
                    f"WeKnora's generation metrics score one reference answer per question; "
                    f"question {several[0]!r} of dataset {data.name!r} has "
                    f"{len(data.references[several[0]])}"
                )
        AnswerScorer(answer_set, {})  # a scorer's missing package is named now, not later
        return built, answer_set, judging, judge

    def _answer_judge(self, given: Any) -> tuple[Judge, dict[str, Any]]:
        """The judge of a task's answers and the specification stored with the task, checked
        against the allow-lists as a judging task's judge is."""
        from rankscope.judge import Judge
        from rankscope.service.sources.judges import build_judge, check_judge, parse_judge_spec

        if isinstance(given, Judge):
            return given, dict(given.spec or {"type": "python", "description": given.describe()})
        spec = parse_judge_spec(given)
        if spec["type"] == "callable":
            raise InputError(
                "a callable judge grades (query, passage) pairs; the judge of answers answers "
                'prompts: {"type": "prompt", "target": "module:function"} or an http judge'
            )
        check_judge(spec, self.allowed_callables, self.allowed_urls)
        return build_judge(spec, **self._allow_lists()), spec

    def _answer_judging(
        self, task_id: str, spec: TaskSpec, answer_set: AnswerMeasureSet, writer: Any
    ) -> AnswerJudging | None:
        """How a run of the task asks its judge of answers (None without judged measures)."""
        from rankscope.answers._judged import ANSWER_PROMPTS
        from rankscope.judge import Prompt
        from rankscope.service.store.judging import AnswerLedger

        if spec.answer_judge is None:
            return None
        with self._lock:
            kept = self._judges.get(task_id)
        stored = spec.answer_judge
        if kept is None:
            if stored["judge"].get("type") == "python":
                raise InputError(
                    f"task {task_id} judges its answers with a Python judge "
                    f"({stored['judge'].get('description')}) that cannot be rebuilt from its "
                    "specification; resume it in the process that submitted it"
                )
            kept, _ = self._answer_judge(stored["judge"])
        prompts = {
            family: Prompt(template, ANSWER_PROMPTS[family].system, ANSWER_PROMPTS[family].fields)
            for family, template in (stored.get("prompts") or {}).items()
        }
        return AnswerJudging(
            kept, answer_set.judged, int(stored["concurrency"]), prompts, AnswerLedger(writer)
        )

    def _dataset(self, dataset: Dataset | str | Path | Mapping[str, Any]) -> Dataset:
        if isinstance(dataset, Dataset):
            return dataset
        if isinstance(dataset, str | Path):
            return load_dataset(dataset, data_roots=self.data_roots)
        if isinstance(dataset, Mapping):
            options = {key: value for key, value in dataset.items() if value is not None}
            allowed = {"path", "split", "queries", "qrels", "corpus", "name"}
            unknown = sorted(set(options) - allowed)
            if unknown:
                raise InputError(
                    f"unknown dataset options {unknown}; expected some of {sorted(allowed)}"
                )
            return load_dataset(**options, data_roots=self.data_roots)
        raise InputError(
            f"a dataset must be a Dataset, a directory or a mapping; found {type(dataset).__name__}"
        )

    # --- reading --------------------------------------------------------------------------

    def resolve(self, prefix: str) -> str:
        """The full id of the one task whose id starts with ``prefix``."""
        return self.store.resolve(prefix)

    def get(self, task_id: str) -> TaskInfo:
        """The task's status, progress, metrics and latency (from its row alone: the same cost
        for any number of results).

        Raises
        ------
        TaskNotFoundError
        """
        return task_info(self.store.task(task_id))

    def list_tasks(
        self, *, status: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[TaskInfo], int]:
        """Tasks, newest first (a page of them), and how many there are in all."""
        if status is not None and status not in STATUSES:
            raise InputError(f"unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        rows, total = self.store.list_tasks(status=status, limit=limit, offset=offset)
        return [task_info(row) for row in rows], total

    def query_results(
        self,
        task_id: str,
        *,
        status: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[QueryRecord]:
        """Recorded queries of a task in dataset order (a page of them)."""
        self.store.task(task_id)
        return self.store.results(task_id, status=status, limit=limit, offset=offset)

    def query_page(
        self,
        task_id: str,
        *,
        status: str | None = None,
        limit: int = 100,
        offset: int = 0,
        sort: str | None = None,
        search: str | None = None,
    ) -> tuple[list[QueryRecord], int]:
        """A page of a task's recorded queries and how many match in all.

        ``sort`` is ``query_id``, ``position``, ``status``, ``latency``, ``attempts`` or one of
        the task's measures or answer measures, with ``-`` first for descending (default:
        dataset order); ``search`` keeps the queries whose id contains it (any case).
        """
        info = self.get(task_id)
        key = (sort or "").lstrip("-")
        measures = (*info.measures, *info.answer_measures)
        if (
            key
            and key not in ("query_id", "position", "status", "latency", "attempts")
            and (key not in measures)
        ):
            raise InputError(
                f"cannot sort by {key!r}; expected query_id, position, status, latency, "
                f"attempts or one of the task's measures: {', '.join(measures)}"
            )
        records = self.store.results(
            task_id,
            status=status,
            limit=limit,
            offset=offset,
            sort=sort,
            search=search,
            answer_measures=info.answer_measures,
        )
        if search:
            total = self.store.count_results(task_id, status, search)
        else:
            total = {None: info.finished, "succeeded": info.succeeded, "failed": info.failed}[
                status
            ]
        return records, total

    def qrels(self, task_id: str) -> Qrels:
        """The task's judgements."""
        rows = [
            (query_id, doc_id, grade)
            for query_id, docs in self.store.judgements(task_id).items()
            for doc_id, grade in docs
        ]
        return Qrels(
            pl.DataFrame(
                rows,
                schema={QUERY_ID: pl.String, DOC_ID: pl.String, RELEVANCE: pl.Int64},
                orient="row",
            ),
            source=f"<task {task_id}>",
        )

    def run_of(self, task_id: str) -> Run:
        """What the retriever returned for every succeeded query, as a `Run`.

        Scores are the retriever's, or ``n - i`` where it gave none; rows are in the order
        returned, so every profile ranks them as the task did.
        """
        info = self.get(task_id)
        query_ids: list[str] = []
        doc_ids: list[str] = []
        scores: list[float] = []
        for record in self.store.results(task_id, status="succeeded"):
            query_ids.extend([record.query_id] * len(record.doc_ids))
            doc_ids.extend(record.doc_ids)
            scores.extend(effective_scores(record.doc_ids, record.scores))
        return Run(
            pl.DataFrame(
                {QUERY_ID: query_ids, DOC_ID: doc_ids, SCORE: scores},
                schema={QUERY_ID: pl.String, DOC_ID: pl.String, SCORE: pl.Float64},
            ),
            name=info.name or f"rankscope-{task_id}",
            source=f"<task {task_id}>",
        )

    def wait(self, task_id: str, timeout: float | None = None, poll: float = 0.05) -> TaskInfo:
        """Wait until the task is done (or ``timeout`` seconds pass); its state then."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            info = self.get(task_id)
            if info.done or (deadline is not None and time.monotonic() >= deadline):
                return self.get(task_id)
            time.sleep(poll)

    # --- running --------------------------------------------------------------------------

    def run(
        self,
        task_id: str,
        *,
        retriever: str | Mapping[str, Any] | Callable[..., Any] | Retriever | None = None,
        dataset: Dataset | str | Path | Mapping[str, Any] | None = None,
        progress: Callable[[Progress], None] | None = None,
        force: bool = False,
        generator: str | Mapping[str, Any] | Callable[..., Any] | Generator | None = None,
        owner: str | None = None,
    ) -> TaskInfo:
        """Run (or resume) a task in this thread until it is done, cancelled or stopped.

        Queries already recorded are not run again (nor their answers generated again).
        ``owner`` is the owner id under which `run_next` claimed the task (else it is claimed
        here).
        ``retriever`` and ``generator`` (and, for the BM25 baseline or a generator's passages,
        ``dataset``) are needed only when the task's own specification cannot rebuild them
        (a Python object given to `submit` in another process). Returns the task's state.

        Raises
        ------
        TaskStateError
            The task succeeded already, or is running in a live process (``force`` overrides).
        """
        # From inside an event loop (a notebook), in a thread of its own.
        return run_to_end(
            lambda: self._execute(task_id, retriever, dataset, progress, force, generator, owner),
            f"rankscope-task-{task_id}",
        )

    def run_next(self) -> TaskInfo | JudgingInfo | None:
        """Take the oldest pending task of the store, an evaluation or a judging task
        (skipping those other workers take at the same moment), and run it to its end; None
        if no task waits. Tasks whose process died go back to the queue first
        (`requeue_abandoned`)."""
        self.requeue_abandoned()
        owner = new_owner()
        task_id = self.store.claim_next(owner, ("evaluation", "judging"))
        if task_id is None:
            return None
        if self.store.task(task_id)["kind"] == "judging":
            try:
                return self.run_judging(task_id, owner=owner)
            except RankscopeError:
                # Its judge cannot be had here: the task says why.
                return self.judging(task_id)
        try:
            return self.run(task_id, owner=owner)
        except RankscopeError:
            # Its retriever or dataset cannot be had here: the task says why.
            return self.get(task_id)

    def requeue_abandoned(self) -> list[str]:
        """Put back to pending the running tasks whose owner is gone (a process of this host
        that died, or a heartbeat older than ``stale_after`` seconds); their ids."""
        requeued: list[str] = []
        running = [
            *self.store.task_ids(("running",)),
            *self.store.task_ids(("running",), "judging"),
        ]
        for task_id in running:
            row = self.store.task(task_id)
            if row["status"] != "running" or self._owner_alive(row):
                continue
            if self.store.update_task(
                task_id,
                when_status=("running",),
                when_owner=row["owner"],
                status="pending",
                owner=None,
            ):
                requeued.append(task_id)
        return requeued

    def work(self, stop: threading.Event, *, poll: float = 1.0) -> int:
        """Run the store's pending tasks one after another until ``stop`` is set (what
        ``rankscope worker`` does in each of its threads); how many it ran."""
        ran = 0
        while not stop.is_set():
            if self.run_next() is None:
                stop.wait(poll)
            else:
                ran += 1
        return ran

    def resume(self, task_id: str, **options: Any) -> TaskInfo:
        """Continue an interrupted, failed or cancelled task where it stopped (see `run`)."""
        return self.run(task_id, **options)

    def start(self, task_id: str) -> None:
        """Run the task in a background thread of this process (at most ``max_running`` at
        once); it goes on whatever the caller does. With ``max_running`` 0 the task waits for
        a worker (`work`) of the same store."""
        self.store.task(task_id)
        if self.max_running == 0:
            return
        with self._lock:
            running = self._futures.get(task_id)
            if running is None or running.done():
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(
                        self.max_running, thread_name_prefix="rankscope-task"
                    )
                self._controls.setdefault(task_id, Control())
                self._futures[task_id] = self._executor.submit(self._run_quietly, task_id)
                return
        # A run of it is still ending (it was just cancelled): start again once it has, if
        # the task is still waiting to run then.
        running.add_done_callback(lambda _ended: self._start_if_pending(task_id))

    def _start_if_pending(self, task_id: str) -> None:
        with self._lock:
            shut_down = self._executor is None
        if not shut_down and self.store.status(task_id) == "pending":
            self.start(task_id)

    def resume_in_background(self, task_id: str) -> TaskInfo:
        """Put a failed, cancelled or interrupted task back to pending and `start` it.

        Raises
        ------
        TaskStateError
            The task succeeded already, or a live process is running it.
        """
        row = self.store.task(task_id)
        if row["status"] == "succeeded":
            raise TaskStateError(f"task {task_id} has succeeded already; nothing to resume")
        self._requeue(row)
        return self.get(task_id)

    def _requeue(self, row: Mapping[str, Any]) -> None:
        """Put a task that no live process runs back to pending, and `start` it."""
        if row["status"] == "running" and self._owner_alive(row):
            raise TaskStateError(f"task {row['id']} is running")
        self.store.update_task(
            row["id"],
            when_status=(row["status"],),
            status="pending",
            owner=None,
            error=None,
            finished_at=None,
        )
        self.start(row["id"])

    def _run_quietly(self, task_id: str) -> TaskInfo | None:
        control = self._controls.get(task_id)
        if control is not None and (control.stop.is_set() or control.cancel.is_set()):
            return self.get(task_id)
        if self.store.task(task_id)["kind"] == "judging":
            # Another process judges it, or its judge cannot be had: the task says which.
            with contextlib.suppress(RankscopeError):
                self.run_judging(task_id)
            return None
        try:
            return self.run(task_id)
        except RankscopeError:
            # Another process owns it, or it is done: nothing to do here.
            return self.get(task_id)

    def cancel(self, task_id: str) -> TaskInfo:
        """Cancel a pending or running task (here or in another process); it can be resumed.

        Raises
        ------
        TaskStateError
            If it is not pending or running.
        """
        self._cancel_row(task_id)
        return self.get(task_id)

    def _cancel_row(self, task_id: str) -> None:
        changed = self.store.update_task(
            task_id,
            when_status=ACTIVE,
            status="cancelled",
            error="cancelled by the user",
            finished_at=time.time(),
        )
        if not changed:
            status = self.store.status(task_id)
            raise TaskStateError(
                f"task {task_id} is {status}; only pending or running tasks can be cancelled"
            )
        with self._lock:
            control = self._controls.get(task_id)
        if control is not None:
            control.cancel.set()

    def cancel_judging(self, task_id: str) -> JudgingInfo:
        """Cancel a pending or running judging task (see `cancel`); it can be resumed."""
        self._judging_row(task_id)
        self._cancel_row(task_id)
        return self.judging(task_id)

    def recover(
        self,
        mode: str = "resume",
        *,
        allowed_callables: Sequence[str] | None = None,
        allowed_urls: Sequence[str] | None = None,
    ) -> list[str]:
        """Deal with tasks left pending or running by a process that is gone.

        ``mode`` is ``"resume"`` (start them in the background), ``"fail"`` (mark them failed)
        or ``"leave"``. Tasks whose retriever the allow-lists refuse are left alone
        (``allowed_callables`` and ``allowed_urls`` as well as the service's own, when given).
        Returns the ids acted on.
        """
        if mode not in ("resume", "fail", "leave"):
            raise InputError(f"mode must be resume, fail or leave; found {mode!r}")
        acted: list[str] = []
        if mode == "leave":
            return acted
        for task_id in [
            *self.store.task_ids(ACTIVE),
            *self.store.task_ids(ACTIVE, kind="judging"),
        ]:
            row = self.store.task(task_id)
            if row["status"] == "running" and self._owner_alive(row):
                continue
            if row["kind"] == "judging":
                # A judging task of the command line has no way to be run here.
                judged_by = (row["spec"].get("service") or {}).get("judge")
                if judged_by is None:
                    continue
                roles = [("judge", judged_by)]
            else:
                roles = [(role, row["spec"].get(role)) for role in ("retriever", "generator")]
            try:
                for role, spec in roles:
                    if spec is not None:
                        check_allowed(spec, self.allowed_callables, self.allowed_urls, role=role)
                        check_allowed(spec, allowed_callables, allowed_urls, role=role)
            except InputError:
                continue
            if mode == "resume":
                self.start(task_id)
            else:
                self.store.update_task(
                    task_id,
                    when_status=ACTIVE,
                    status="failed",
                    owner=None,
                    finished_at=time.time(),
                    error="interrupted: the process running it stopped (resume to continue)",
                )
            acted.append(task_id)
        return acted

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop the tasks running in the background; they go back to pending, to be resumed."""
        with self._lock:
            controls = list(self._controls.values())
            futures = list(self._futures.values())
            executor, self._executor = self._executor, None
        for control in controls:
            control.stop.set()
        deadline = time.monotonic() + timeout
        for future in futures:
            # A task's own failure is recorded in the store already.
            with contextlib.suppress(Exception):
                future.result(timeout=max(0.0, deadline - time.monotonic()))
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop background tasks and close the store."""
        self.shutdown()
        self.store.close()

    # --- the run itself -------------------------------------------------------------------

    def is_running(self, task_id: str) -> bool:
        """Whether a live process (this one or another) is running the task now."""
        row = self.store.task(task_id)
        return row["status"] == "running" and self._owner_alive(row)

    def _owner_alive(self, row: Mapping[str, Any]) -> bool:
        with self._lock:
            future = self._futures.get(row["id"]) if row["id"] in self._controls else None
        running_here = None if future is None else not future.done()
        return owner_alive(row, self.stale_after, running_here)

    def _claim(self, task_id: str, force: bool) -> str:
        owner = new_owner()

        def may_take(row: dict[str, Any]) -> None:
            if row["status"] == "succeeded":
                raise TaskStateError(f"task {task_id} has succeeded already; nothing to resume")
            if row["status"] == "running" and not force and self._owner_alive(row):
                raise TaskStateError(
                    f"task {task_id} is running in another process ({row['owner']}); "
                    "cancel it first, or resume with force if that process is gone"
                )

        self.store.claim(task_id, owner, may_take)
        return owner

    def _retriever_for(
        self,
        task_id: str,
        row: Mapping[str, Any],
        retriever: str | Mapping[str, Any] | Callable[..., Any] | Retriever | None,
        dataset: Dataset | str | Path | Mapping[str, Any] | None,
    ) -> Retriever:
        spec = row["spec"]["retriever"]
        if retriever is not None:
            return build_retriever(retriever, None if dataset is None else self._dataset(dataset))
        with self._lock:
            kept = self._retrievers.get(task_id)
        if kept is not None:
            return kept
        if spec.get("type") == "python":
            raise InputError(
                f"task {task_id} ran a Python retriever ({spec.get('description')}) that cannot "
                "be rebuilt from its specification; pass the retriever to resume it"
            )
        check_allowed(spec, self.allowed_callables, self.allowed_urls)
        data: Dataset | None = None
        if spec.get("type") == "bm25":
            data = self._dataset(dataset) if dataset is not None else self._reload_dataset(row)
            return self._bm25(spec, data)
        return build_retriever(spec, data, **self._allow_lists())

    def _generator_for(
        self,
        task_id: str,
        row: Mapping[str, Any],
        generator: str | Mapping[str, Any] | Callable[..., Any] | Generator | None,
    ) -> Generator:
        if generator is not None:
            return build_generator(generator)
        with self._lock:
            kept = self._generators.get(task_id)
        if kept is not None:
            return kept
        spec = row["spec"]["generator"]
        if spec.get("type") == "python":
            raise InputError(
                f"task {task_id} ran a Python generator ({spec.get('description')}) that cannot "
                "be rebuilt from its specification; pass the generator to resume it"
            )
        check_allowed(spec, self.allowed_callables, self.allowed_urls, role="generator")
        return build_generator(spec, **self._allow_lists())

    def _passages(
        self,
        task_id: str,
        row: Mapping[str, Any],
        dataset: Dataset | str | Path | Mapping[str, Any] | None,
    ) -> dict[str, str]:
        """``{doc_id: text}`` of the task's corpus, for its generator."""
        with self._lock:
            kept = self._datasets.get(task_id)
        if dataset is not None:
            data = self._dataset(dataset)
        elif kept is not None:
            data = kept
        else:
            data = self._reload_dataset(row)
        return dict(data.corpus())

    def _bm25(self, spec: Mapping[str, Any], data: Dataset | None) -> Retriever:
        from rankscope.service.sources.bm25 import BM25Retriever

        if data is None:
            raise InputError("the BM25 baseline needs the dataset's corpus")
        return BM25Retriever(data, dict(spec))

    def _reload_dataset(self, row: Mapping[str, Any]) -> Dataset:
        described = row["dataset"]
        location = described.get("location") or {}
        if not location:
            raise InputError(
                f"task {row['id']} was given a dataset in memory; pass the dataset to resume it"
            )
        data = load_dataset(**location, name=described.get("name"), data_roots=self.data_roots)
        if data.fingerprint() != described.get("fingerprint"):
            raise InputError(
                f"the dataset at {location} changed since task {row['id']} started; "
                "its results would not be comparable"
            )
        return data

    async def _execute(
        self,
        task_id: str,
        retriever: str | Mapping[str, Any] | Callable[..., Any] | Retriever | None,
        dataset: Dataset | str | Path | Mapping[str, Any] | None,
        progress: Callable[[Progress], None] | None,
        force: bool,
        generator: str | Mapping[str, Any] | Callable[..., Any] | Generator | None = None,
        owner: str | None = None,
    ) -> TaskInfo:
        owner = owner or self._claim(task_id, force)
        with self._lock:
            control = self._controls.setdefault(task_id, Control())
        built: Retriever | None = None
        answering: Generator | None = None
        judging: AnswerJudging | None = None
        try:
            row = self.store.task(task_id)
            spec = TaskSpec.model_validate(row["spec"])
            built = self._retriever_for(task_id, row, retriever, dataset)
            scorer = QueryScorer(
                resolve_task_measures(task_id, spec), self.store.judgements(task_id)
            )
            answer_scorer: AnswerScorer | None = None
            passages: dict[str, str] | None = None
            writer = self.store.writer(task_id, owner)
            if spec.generator is not None:
                answer_set = AnswerMeasureSet.resolve(spec.answer_measures, spec.profile)
                answer_scorer = AnswerScorer(answer_set, self.store.references(task_id))
                passages = self._passages(task_id, row, dataset)
                answering = self._generator_for(task_id, row, generator)
                judging = self._answer_judging(task_id, spec, answer_set, writer)
            done = self.store.finished_query_ids(task_id)
            pending = [item for item in self.store.queries(task_id) if item[1] not in done]
            await built.open(spec.concurrency)
            if answering is not None:
                await answering.open(spec.concurrency)
            if judging is not None:
                await judging.judge.open(judging.concurrency)
            stats = await run_queries(
                writer=writer,
                retriever=built,
                scorer=scorer,
                pending=pending,
                total=row["total"],
                k=spec.k,
                concurrency=spec.concurrency,
                max_failures=spec.max_failures,
                control=control,
                status_of=lambda: self.store.status(task_id),
                progress=progress,
                generator=answering,
                answer_scorer=answer_scorer,
                passages=passages,
                answer_judging=judging,
            )
            self.last_stats[task_id] = stats
            writer.heartbeat()
            self._conclude(task_id, owner, stats, spec)
        except (KeyboardInterrupt, asyncio.CancelledError):
            self.store.update_task(
                task_id,
                when_owner=owner,
                when_status=("running",),
                status="cancelled",
                owner=None,
                finished_at=time.time(),
                error="interrupted (resume to continue)",
            )
            raise
        except StoreError:
            # Nothing is wrong with the task: what is committed stays, and a resume continues
            # once the store can be written again.
            raise
        except RankscopeError as error:
            self.store.update_task(
                task_id,
                when_owner=owner,
                status="failed",
                owner=None,
                finished_at=time.time(),
                error=str(error),
            )
        except BaseException as error:
            self.store.update_task(
                task_id,
                when_owner=owner,
                status="failed",
                owner=None,
                finished_at=time.time(),
                error=f"internal error: {type(error).__name__}: {error}",
            )
            raise
        finally:
            if built is not None:
                await built.aclose()
            if answering is not None:
                await answering.aclose()
            if judging is not None:
                await judging.judge.aclose()
            with self._lock:
                self._controls.pop(task_id, None)
        info = self.get(task_id)
        if info.status == "succeeded":
            with self._lock:
                # Nothing left to resume: let go of indexes and clients.
                self._retrievers.pop(task_id, None)
                self._generators.pop(task_id, None)
                self._datasets.pop(task_id, None)
                self._judges.pop(task_id, None)
        return info

    def _conclude(self, task_id: str, owner: str, stats: RunStats, spec: TaskSpec) -> None:
        now = time.time()
        if stats.stopped == "taken over":
            return  # its new owner concludes it
        if stats.stopped == "cancelled":
            self.store.update_task(task_id, when_owner=owner, owner=None)
        elif stats.stopped == "stopped":
            self.store.update_task(
                task_id, when_owner=owner, when_status=("running",), status="pending", owner=None
            )
        elif stats.stopped == "failed":
            self.store.update_task(
                task_id,
                when_owner=owner,
                when_status=("running",),
                status="failed",
                owner=None,
                finished_at=now,
                summary=self._summary(task_id, spec),
                error=(
                    f"more than {spec.max_failures} queries failed; the last: {stats.last_error}"
                ),
            )
        else:
            self.store.update_task(
                task_id,
                when_owner=owner,
                when_status=("running",),
                status="succeeded",
                owner=None,
                finished_at=now,
                summary=self._summary(task_id, spec),
            )

    def _summary(self, task_id: str, spec: TaskSpec) -> dict[str, Any]:
        return summary(self.store.results(task_id, status="succeeded"), spec)

    # --- judging --------------------------------------------------------------------------

    def submit_judging(
        self,
        judge: str | Mapping[str, Any] | Judge,
        *,
        pairs: Qrels | str | Path | Mapping[str, Any] | None = None,
        queries: str | Path | Mapping[str, str] | None = None,
        corpus: str | Path | Mapping[str, str] | None = None,
        holes_of: str | None = None,
        depth: int = 10,
        prompt: str | None = None,
        concurrency: int = 4,
        calibrate: bool | Qrels | str | Path | Mapping[str, Any] | None = None,
        calibration_sample: int = 50,
        seed: int = 0,
        name: str | None = None,
    ) -> JudgingInfo:
        """Check everything and store a pending judging task (nothing is asked yet); the same
        judging submitted again is the same task.

        Parameters
        ----------
        judge
            ``{"type": "http", "url": ..., "model": ..., ...}`` (an OpenAI-compatible
            chat-completions endpoint; `rankscope.service.sources.judges`), ``"module:function"``
            or ``{"type": "callable", "target": ...}`` (a function grading a pair), or a
            `rankscope.judge.Judge` (kept in this process only).
        pairs, queries, corpus
            What to judge (a to-judge file of ``rankscope pool``, or any qrels) and the texts.
        holes_of, depth
            Instead of ``pairs``: the holes of an evaluation task, the unjudged documents of
            the top ``depth`` of its succeeded queries (`rankscope.judge.holes`); the queries
            are the task's and the corpus its dataset's, unless ``corpus`` is given.
        prompt
            A template with ``{query}`` and ``{passage}``, replacing the built-in one.
        concurrency
            Calls in flight at once.
        calibrate, calibration_sample, seed
            Human qrels (``True`` with ``holes_of``: the task's own) of which a seeded sample
            of pairs is judged first, to measure the judge (see `rankscope.judge.judge_pairs`).
        name
            A name for the task.
        """
        from rankscope.judge import RELEVANCE_PROMPT, Judge, Prompt
        from rankscope.judge._judging import submit_judging
        from rankscope.service.sources.files import regular_file, within_roots
        from rankscope.service.sources.judges import build_judge, check_judge, parse_judge_spec

        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise InputError(f"concurrency must be an integer >= 1; found {concurrency!r}")
        chosen_prompt = (
            RELEVANCE_PROMPT if prompt is None else Prompt(prompt, RELEVANCE_PROMPT.system)
        )
        if isinstance(judge, Judge):
            built, judge_spec = judge, judge.spec
        else:
            judge_spec = parse_judge_spec(judge)
            check_judge(judge_spec, self.allowed_callables, self.allowed_urls)
            built = build_judge(judge_spec, prompt=chosen_prompt, **self._allow_lists())
        human: Any = None if calibrate is True or calibrate is False else calibrate
        source = None
        with within_roots(self.data_roots):
            if holes_of is not None:
                if pairs is not None:
                    raise InputError("give the pairs to judge, or the task whose holes to fill")
                row = self._evaluation_row(holes_of)
                if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
                    raise InputError(f"depth must be an integer >= 1; found {depth!r}")
                from rankscope.service.tasks.judging import unjudged_pairs

                found = unjudged_pairs(self.qrels(holes_of), self.run_of(holes_of), depth)
                if found.height == 0:
                    raise InputError(
                        f"task {holes_of} has no hole in its top {depth}: every document "
                        "retrieved there is judged"
                    )
                pairs = Qrels.from_frame(found.with_columns(pl.lit(-1, pl.Int64).alias(RELEVANCE)))
                queries = queries or {qid: text for _, qid, text in self.store.queries(holes_of)}
                if corpus is None:
                    corpus = self._passages(holes_of, row, None)
                if calibrate is True:
                    human = self.qrels(holes_of)
                source = {"evaluation": holes_of, "depth": depth}
            elif pairs is None or queries is None or corpus is None:
                raise InputError("a judging task needs its pairs, queries and corpus (or holes_of)")
            elif calibrate is True:
                raise InputError("calibrate=True takes the human qrels of holes_of's task")

            def read(value: Any) -> Any:
                return regular_file(value) if isinstance(value, str | Path) else value

            task_id, _ = submit_judging(
                read(pairs),
                built,
                queries=read(queries),
                corpus=read(corpus),
                store=self.store,
                calibrate=read(human),
                calibration_sample=calibration_sample,
                seed=seed,
                name=name,
                source_task=holes_of,
                extra={
                    "service": {
                        "judge": judge_spec or {"type": "python", "description": built.describe()},
                        "concurrency": concurrency,
                        "source": source,
                    }
                },
            )
        if judge_spec is None:
            with self._lock:
                self._judges[task_id] = built
        return self.judging(task_id)

    def wait_judging(
        self, task_id: str, timeout: float | None = None, poll: float = 0.05
    ) -> JudgingInfo:
        """Wait until the judging task is done (or ``timeout`` seconds pass); its state then."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            info = self.judging(task_id)
            if info.done or (deadline is not None and time.monotonic() >= deadline):
                return info
            time.sleep(poll)

    def _evaluation_row(self, task_id: str) -> dict[str, Any]:
        row = self.store.task(task_id)
        if row["kind"] != "evaluation":
            raise InputError(f"task {task_id} is a judging task, not an evaluation")
        return row

    def _judging_row(self, task_id: str) -> dict[str, Any]:
        row = self.store.task(task_id)
        if row["kind"] != "judging":
            raise InputError(f"task {task_id} is an evaluation, not a judging task")
        return row

    def judging(self, task_id: str) -> JudgingInfo:
        """A judging task's status, progress, failures, calls, tokens and cost, and its
        agreement with human judgements where both judge.

        Raises
        ------
        TaskNotFoundError
        """
        from rankscope.service.tasks.judging import judging_info

        row = self._judging_row(task_id)
        return judging_info(row, self._agreement(row))

    def _agreement(self, row: Mapping[str, Any]) -> JudgementAgreement | None:
        from rankscope.judge import human_agreement
        from rankscope.service.store.judging import judging_pairs

        human: dict[str, dict[str, int]] = {}
        source = (row["spec"].get("service") or {}).get("source")
        if source is not None:
            for query_id, docs in self.store.judgements(source["evaluation"]).items():
                human[query_id] = dict(docs)
        for pair in judging_pairs(self.store, row["id"]):
            if pair.calibration and pair.human is not None:
                human.setdefault(pair.query_id, {})[pair.doc_id] = pair.human
        if not human or not row["succeeded"]:
            return None
        try:
            return human_agreement(self.store, row["id"], human)
        except RankscopeError:
            return None  # a missing package of the judge extra: no agreement to show

    def list_judgings(
        self, *, status: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[JudgingInfo], int]:
        """Judging tasks, newest first (a page of them), and how many there are in all."""
        from rankscope.service.tasks.judging import judging_info

        if status is not None and status not in STATUSES:
            raise InputError(f"unknown status {status!r}; expected one of {', '.join(STATUSES)}")
        rows, total = self.store.list_tasks(
            status=status, limit=limit, offset=offset, kind="judging"
        )
        return [judging_info(row, None) for row in rows], total

    def judgings_of(self, task_id: str) -> list[JudgingInfo]:
        """The judging tasks of an evaluation task's holes, newest first."""
        from rankscope.service.tasks.judging import judging_info

        rows, _ = self.store.list_tasks(limit=10**6, kind="judging", source_task=task_id)
        return [judging_info(row, None) for row in rows]

    def run_judging(
        self, task_id: str, *, judge: Judge | None = None, owner: str | None = None
    ) -> JudgingInfo:
        """Run (or resume) a judging task in this thread until it is done, cancelled or
        stopped: only its pairs without a stored judgement are asked. ``judge`` is needed
        only when the task's specification cannot build it again (a Python object given to
        `submit_judging` in another process); ``owner`` is the owner id under which
        `run_next` claimed the task (else it is claimed here).

        Raises
        ------
        TaskStateError
            A live process is judging it.
        """
        from rankscope.judge import Prompt
        from rankscope.judge._judging import run_judging
        from rankscope.service.sources.judges import build_judge, check_judge

        row = self._judging_row(task_id)
        kept = row["spec"].get("service") or {}
        spec = kept.get("judge") or {}
        with self._lock:
            judge = judge or self._judges.get(task_id)
            control = self._controls.setdefault(task_id, Control())
        try:
            if judge is None:
                if spec.get("type") not in ("http", "callable", "prompt"):
                    raise InputError(
                        f"judging task {task_id} has a Python judge ({spec.get('description')}) "
                        "that cannot be rebuilt from its specification; pass the judge to resume it"
                    )
                check_judge(spec, self.allowed_callables, self.allowed_urls)
                system, template = row["spec"]["prompt"]
                judge = build_judge(
                    spec,
                    prompt=Prompt(template, system),
                    grades=row["spec"]["grades"],
                    **self._allow_lists(),
                )

            def halt() -> str | None:
                if control.cancel.is_set():
                    return "cancelled"
                if control.stop.is_set():
                    return "stopped"
                return "cancelled" if self.store.status(task_id) == "cancelled" else None

            run_judging(
                self.store,
                task_id,
                judge,
                concurrency=int(kept.get("concurrency", 4)),
                halt=halt,
                owner=owner,
            )
        except RankscopeError as error:
            if not isinstance(error, TaskStateError | StoreError):
                self.store.update_task(
                    task_id,
                    when_status=ACTIVE,
                    status="failed",
                    owner=None,
                    finished_at=time.time(),
                    error=str(error),
                )
            raise
        finally:
            with self._lock:
                self._controls.pop(task_id, None)
        info = self.judging(task_id)
        if info.status == "succeeded":
            with self._lock:
                self._judges.pop(task_id, None)
        return info

    def resume_judging_in_background(self, task_id: str) -> JudgingInfo:
        """Put a failed, cancelled or interrupted judging task back to pending and `start` it
        (its pairs judged already are not asked again).

        Raises
        ------
        TaskStateError
            A live process is judging it.
        """
        self._requeue(self._judging_row(task_id))
        return self.judging(task_id)

    def judged_qrels(self, task_id: str, *, merged: bool = False) -> pl.DataFrame:
        """A judging task's grades as qrels with their ``source`` column (``judge``); with
        ``merged``, beside the human judgements of its evaluation task (``human``), which win
        where both judge."""
        from rankscope.judge import judged_qrels

        row = self._judging_row(task_id)
        source = (row["spec"].get("service") or {}).get("source")
        human = self.qrels(source["evaluation"]) if merged and source is not None else None
        return judged_qrels(self.store, task_id, human)

    def judging_failures(self, task_id: str) -> list[dict[str, Any]]:
        """The pairs whose judgement failed: ``query_id``, ``doc_id``, ``failure`` (its kind),
        ``error``, ``answer`` (the raw answer, if any) and ``attempts``."""
        from rankscope.service.store.judging import stored_grades

        self._judging_row(task_id)
        return [
            {
                "query_id": g.pair.query_id,
                "doc_id": g.pair.doc_id,
                "failure": g.failure,
                "error": g.error,
                "answer": g.answer,
                "attempts": g.attempts,
            }
            for g in stored_grades(self.store, task_id)
            if g.grade is None
        ]

    def reevaluation(self, task_id: str) -> dict[str, Any] | None:
        """For a judging task of an evaluation task's holes: that task's measures with its
        own judgements and with the judged ones merged in (``before``, ``after``); None for
        another judging task."""
        from rankscope.service.tasks.judging import reevaluated

        row = self._judging_row(task_id)
        source = (row["spec"].get("service") or {}).get("source")
        if source is None:
            return None
        evaluation = source["evaluation"]
        spec = TaskSpec.model_validate(self.store.task(evaluation)["spec"])
        return reevaluated(
            spec,
            self.store.results(evaluation, status="succeeded"),
            self.store.judgements(evaluation),
            self.judged_qrels(task_id),
        )

    # --- export and compare ---------------------------------------------------------------

    def export(self, task_id: str, format: str, destination: str | Path | TextIO) -> None:
        """Write a task's results: ``json`` (the task and every query), ``csv`` (a row per
        query) or ``trec`` (a TREC run file of what the retriever returned)."""
        if format not in EXPORT_FORMATS:
            raise InputError(
                f"unknown export format {format!r}; expected one of {', '.join(EXPORT_FORMATS)}"
            )
        info = self.get(task_id)
        records = self.store.results(task_id)
        if isinstance(destination, str | Path):
            with open(destination, "w", encoding="utf-8", newline="") as handle:
                write_export(info, records, format, handle)
        else:
            write_export(info, records, format, destination)

    def export_text(self, task_id: str, format: str) -> str:
        """`export` into a string."""
        buffer = io.StringIO()
        self.export(task_id, format, buffer)
        return buffer.getvalue()

    def task_scores(
        self, task_ids: Sequence[str]
    ) -> tuple[list[str], list[str], list[dict[str, Mapping[str, float]]]]:
        """The per-query scores of tasks on the same dataset, for comparing them: a distinct
        label per task (its name, else its id), the measures they share, and per task
        ``{query_id: {measure: value}}`` of its succeeded queries."""
        return task_scores(self, task_ids)

    def compare(
        self,
        task_ids: Sequence[str],
        *,
        test: str = "t",
        correction: str | None = None,
        alpha: float = 0.05,
        seed: int | None = 0,
        n_resamples: int = 10_000,
        pairs: str | Sequence[tuple[str, str]] = "baseline",
        baselines: Sequence[str] | None = None,
        command: str | None = None,
    ) -> tuple[ComparisonReport, int]:
        """Compare tasks on the same dataset over the queries every task scored: each against
        the first (``pairs="baseline"``), against each of ``baselines``, every pair
        (``pairs="all"``) or the pairs listed, with a paired test (``t``, ``wilcoxon``,
        ``randomization``, ``bootstrap``, corrected by ``correction``, default Holm) or a test
        over all the tasks (``tukey``, ``randomized-tukey``), as `rankscope compare` does.

        Returns the `ComparisonReport` (``.comparison`` holds the tests; it renders as a table,
        Markdown, LaTeX, JSON or HTML) and the number of queries left out because some task
        did not score them.
        """
        return compare_tasks(
            self,
            task_ids,
            test=test,
            correction=correction,
            alpha=alpha,
            seed=seed,
            n_resamples=n_resamples,
            pairs=pairs,
            baselines=baselines,
            command=command,
        )
