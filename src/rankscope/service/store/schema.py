"""The store's schema, one text for every back-end, and what each version added.

Tables
------
``tasks``
    One row per task: status, specification, the process that owns it while it runs and its
    heartbeat, the time it has run, the final summary, and its counters: succeeded and failed
    queries, the sum of every measure and of the latencies, a histogram of the latencies, and
    for a task with a generator the number of scored answers and the sum of every answer
    measure, and per answer measure the answers it has a value of and (a judged measure) those
    the judge never graded. The counters change in the same transaction as the
    result that changes them, so reading a task never reads its results. A judging task names
    in ``source_task`` the evaluation task whose holes it fills (indexed).
``task_queries``, ``task_qrels``
    The task's questions (with their reference answers, for a task with a generator) and
    judgements, copied in when it is submitted, so a task can be shown, exported, compared and
    resumed without its dataset files.
``results``
    One row per finished query, keyed by ``(task_id, query_id)``: status, retrieved ids and
    scores, latency, attempts, measure values, error, and the generated answer with its
    measure values and latency. Written with an upsert, so recording a query twice leaves one
    row.

A task's ``kind`` is ``evaluation`` (the tables above) or ``judging``: a judge grades pairs,
and its task keeps, besides its row (whose ``succeeded`` and ``failed`` count the pairs judged
and failed, and whose ``tallies`` count grades, failures by kind, calls by outcome, tokens and
cost, in the same transaction as what changes them):

``judge_pairs``, ``judge_texts``
    The pairs to judge, in order (the calibration pairs first, with their human grade), and
    the texts of their queries and documents, copied in when the task is submitted.
``judge_calls``
    Every call of the judge, as it ends: when, how long, its outcome and HTTP status, the raw
    answer, the error, the tokens and cost. A call that is retried is written at once; the
    call that decides a pair, with the pair's grade.
``judge_grades``
    One row per pair judged, keyed by ``(task_id, query_id, doc_id)``: its grade (None when
    it failed), the kind of failure and its error, the answer read, the calls it took.
``answer_judgements``
    The judged answer measures of an evaluation task with a generator: one row per asking of
    the judge, keyed by ``(task_id, query_id, measure, repeats, number)`` and written as it
    ends, with a digest of the prompt it answered (a resumed task reuses an asking only for
    the same prompt), its grade or failure, the raw answer, the calls, tokens and cost.
``answer_calls``
    Every call of the judge of answers, as it ends, as ``judge_calls`` keeps a judging task's:
    its asking (question, measure, repeats, number), when, how long, its outcome and HTTP
    status, the raw answer, the error, the tokens and cost. A call that is retried is written
    at once; the call that decides an asking, with it (``deciding`` 1; an asking asked again,
    its prompt changed, leaves its earlier calls undeciding).

JSON values are kept as text in every back-end. Versions: 1 had no latency histogram, 2 no
answers, 3 no judging tasks, 4 no judged answers nor index of a judging task's source, 5 no
count of the answers a judge failed to grade nor rows of the calls of a judge of answers; a
store brings an older database up to date when it opens it (columns, tables and indexes
added, counters recomputed, the sources of judging tasks read from their specifications),
keeping every task (the calls of answers judged before version 6 are in
``answer_judgements`` alone: the deciding call's answer, tokens and cost, and the attempts).

>>> "DOUBLE PRECISION" in schema("DOUBLE PRECISION", "") and "WITHOUT ROWID" not in schema(
...     "DOUBLE PRECISION", "")
True
"""

from __future__ import annotations

__all__ = [
    "ADDED_COLUMNS",
    "INDEXES",
    "SCHEMA_VERSION",
    "TASK_COLUMNS",
    "TASK_JSON_COLUMNS",
    "schema",
]

SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    name TEXT,
    status TEXT NOT NULL,
    created_at {real} NOT NULL,
    started_at {real},
    finished_at {real},
    updated_at {real} NOT NULL,
    owner TEXT,
    heartbeat {real},
    total INTEGER NOT NULL,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    sums TEXT NOT NULL DEFAULT '{{}}',
    latency_sum {real} NOT NULL DEFAULT 0,
    latency_bins TEXT NOT NULL DEFAULT '{{}}',
    latency_max {real},
    active_seconds {real} NOT NULL DEFAULT 0,
    answered INTEGER NOT NULL DEFAULT 0,
    answer_sums TEXT NOT NULL DEFAULT '{{}}',
    error TEXT,
    spec TEXT NOT NULL,
    dataset TEXT NOT NULL,
    summary TEXT,
    kind TEXT NOT NULL DEFAULT 'evaluation',
    tallies TEXT NOT NULL DEFAULT '{{}}',
    answer_counts TEXT NOT NULL DEFAULT '{{}}',
    source_task TEXT,
    answer_failed TEXT NOT NULL DEFAULT '{{}}'
);
CREATE INDEX IF NOT EXISTS tasks_by_created ON tasks (created_at);
CREATE TABLE IF NOT EXISTS task_queries (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    text TEXT NOT NULL,
    reference_answers TEXT,
    PRIMARY KEY (task_id, query_id)
){without_rowid};
CREATE TABLE IF NOT EXISTS task_qrels (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    relevance INTEGER NOT NULL,
    PRIMARY KEY (task_id, query_id, doc_id)
){without_rowid};
CREATE TABLE IF NOT EXISTS results (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    status TEXT NOT NULL,
    doc_ids TEXT NOT NULL,
    scores TEXT,
    latency {real},
    attempts INTEGER NOT NULL,
    metrics TEXT,
    error TEXT,
    finished_at {real} NOT NULL,
    answer TEXT,
    answer_metrics TEXT,
    answer_latency {real},
    PRIMARY KEY (task_id, query_id)
){without_rowid};
CREATE TABLE IF NOT EXISTS judge_pairs (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    calibration INTEGER NOT NULL DEFAULT 0,
    human INTEGER,
    PRIMARY KEY (task_id, query_id, doc_id)
){without_rowid};
CREATE TABLE IF NOT EXISTS judge_texts (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (task_id, kind, id)
){without_rowid};
CREATE TABLE IF NOT EXISTS judge_calls (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    number INTEGER NOT NULL,
    started_at {real} NOT NULL,
    latency {real},
    outcome TEXT NOT NULL,
    status INTEGER,
    answer TEXT,
    error TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost {real},
    PRIMARY KEY (task_id, call_id)
){without_rowid};
CREATE INDEX IF NOT EXISTS judge_calls_by_pair ON judge_calls (task_id, query_id, doc_id);
CREATE TABLE IF NOT EXISTS judge_grades (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    status TEXT NOT NULL,
    grade INTEGER,
    failure TEXT,
    error TEXT,
    answer TEXT,
    attempts INTEGER NOT NULL,
    latency {real},
    finished_at {real} NOT NULL,
    PRIMARY KEY (task_id, query_id, doc_id)
){without_rowid};
CREATE TABLE IF NOT EXISTS answer_judgements (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    measure TEXT NOT NULL,
    repeats INTEGER NOT NULL,
    number INTEGER NOT NULL,
    digest TEXT NOT NULL,
    owner TEXT NOT NULL,
    grade INTEGER,
    failure TEXT,
    error TEXT,
    answer TEXT,
    attempts INTEGER NOT NULL,
    latency {real},
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost {real},
    finished_at {real} NOT NULL,
    PRIMARY KEY (task_id, query_id, measure, repeats, number)
){without_rowid};
CREATE TABLE IF NOT EXISTS answer_calls (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    query_id TEXT NOT NULL,
    measure TEXT NOT NULL,
    repeats INTEGER NOT NULL,
    asking INTEGER NOT NULL,
    owner TEXT NOT NULL,
    number INTEGER NOT NULL,
    deciding INTEGER NOT NULL,
    started_at {real} NOT NULL,
    latency {real},
    outcome TEXT NOT NULL,
    status INTEGER,
    answer TEXT,
    error TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost {real},
    PRIMARY KEY (task_id, call_id)
){without_rowid};
CREATE INDEX IF NOT EXISTS answer_calls_by_asking
    ON answer_calls (task_id, query_id, measure, repeats, asking);
"""

INDEXES = ("CREATE INDEX IF NOT EXISTS tasks_by_source ON tasks (source_task)",)
"""Indexes on columns a later version added: created once a store is brought up to date."""


def schema(real: str, without_rowid: str) -> str:
    """The schema's statements in a back-end's words: its type of 8-byte floats (``REAL``,
    ``DOUBLE PRECISION``) and what ends a table keyed by its primary key alone."""
    return _SCHEMA.format(real=real, without_rowid=without_rowid)


TASK_COLUMNS = (
    "id, name, status, created_at, started_at, finished_at, updated_at, owner, heartbeat, "
    "total, succeeded, failed, sums, latency_sum, latency_bins, latency_max, active_seconds, "
    "answered, answer_sums, error, spec, dataset, summary, kind, tallies, answer_counts, "
    "source_task, answer_failed"
)
TASK_JSON_COLUMNS = (
    "sums",
    "latency_bins",
    "answer_sums",
    "spec",
    "dataset",
    "summary",
    "tallies",
    "answer_counts",
    "answer_failed",
)
ADDED_COLUMNS = {
    2: [
        ("tasks", "latency_bins", "TEXT NOT NULL DEFAULT '{}'"),
        ("tasks", "latency_max", "{real}"),
    ],
    3: [
        ("tasks", "answered", "INTEGER NOT NULL DEFAULT 0"),
        ("tasks", "answer_sums", "TEXT NOT NULL DEFAULT '{}'"),
        ("task_queries", "reference_answers", "TEXT"),
        ("results", "answer", "TEXT"),
        ("results", "answer_metrics", "TEXT"),
        ("results", "answer_latency", "{real}"),
    ],
    4: [
        ("tasks", "kind", "TEXT NOT NULL DEFAULT 'evaluation'"),
        ("tasks", "tallies", "TEXT NOT NULL DEFAULT '{}'"),
    ],
    5: [
        ("tasks", "answer_counts", "TEXT NOT NULL DEFAULT '{}'"),
        ("tasks", "source_task", "TEXT"),
    ],
    6: [
        ("tasks", "answer_failed", "TEXT NOT NULL DEFAULT '{}'"),
    ],
}
"""The columns each schema version added, for migrating older stores (``{real}`` is the
back-end's float type)."""
