"""The evaluation service: evaluate a live retriever on a dataset, keep every result, resume.

`EvaluationService` submits a task (a dataset, a retriever, measures, a profile, a depth k, and
optionally a generator that answers each question from its retrieved passages, with answer
measures), runs it with bounded concurrency, commits every finished query to its store (a
SQLite file in WAL mode, or a PostgreSQL server that several machines share) as it finishes,
and resumes an interrupted task where it stopped: no query lost, none recorded twice, final
results identical to an uninterrupted run. Tasks can be listed, shown, cancelled, exported
(JSON, CSV, TREC run) and compared. The command line (``rankscope run``, ``rankscope tasks``,
``rankscope serve``, ``rankscope worker``), the HTTP API and the web console (`create_app`) are
thin shells over it.

Layers: ``web/`` (the app, its routers and models), ``tasks/`` (a task's life: submitting,
claiming, running, scoring, summarising, exporting, comparing), ``store/`` (one interface, two
back-ends) and ``sources/`` (datasets, retrievers, generators and the allow-lists).

The HTTP retriever needs httpx, the BM25 baseline bm25s, the HTTP API fastapi and uvicorn, the
console jinja2 and the offline API documentation fastapi-offline: the ``rankscope[service]``
extra; a PostgreSQL store psycopg, the ``postgres`` extra; the answer measures of a generator's
answers, the ``answers`` extra. They are imported only when used.
"""

from typing import Any

from rankscope.errors import (
    GeneratorError,
    RetrieverError,
    TaskNotFoundError,
    TaskStateError,
)
from rankscope.service.sources.datasets import Dataset, load_dataset
from rankscope.service.sources.generators import CallableGenerator, Generation, Generator
from rankscope.service.sources.retrievers import CallableRetriever, Ranking, Retriever
from rankscope.service.store import QueryRecord
from rankscope.service.tasks.runner import Progress, RunStats
from rankscope.service.tasks.scoring import WEKNORA_MEASURES, MeasureSet
from rankscope.service.tasks.service import STATUSES, EvaluationService, TaskInfo, default_db_path

__all__ = [
    "STATUSES",
    "WEKNORA_MEASURES",
    "CallableGenerator",
    "CallableRetriever",
    "Dataset",
    "EvaluationService",
    "Generation",
    "Generator",
    "GeneratorError",
    "MeasureSet",
    "Progress",
    "QueryRecord",
    "Ranking",
    "Retriever",
    "RetrieverError",
    "RunStats",
    "TaskInfo",
    "TaskNotFoundError",
    "TaskStateError",
    "create_app",
    "default_db_path",
    "load_dataset",
]


def create_app(service: EvaluationService, **options: Any) -> Any:
    """The FastAPI application of the HTTP API (needs the ``service`` extra).

    See :func:`rankscope.service.web.app.create_app` for the options (``token``, ``recover``,
    ``allowed_callables``, ``allowed_urls``, ``data_roots``, ``allowed_hosts``,
    ``max_body_bytes``, ``console``).
    """
    from rankscope.service.web.app import create_app as make

    return make(service, **options)
