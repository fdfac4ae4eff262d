"""The HTTP API's request and response bodies (pydantic), as its OpenAPI schema shows them.

Every number a client sends is bounded and finite, every string and list bounded in length, so
that a request is either valid or answered 422 with the reason, never a server error.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from rankscope.engine.profiles import PROFILES, resolve_profile
from rankscope.errors import ProfileError
from rankscope.service.tasks.spec import Settings

__all__ = [
    "AnswerCountOut",
    "AnswerJudgeIn",
    "AnswersOut",
    "DatasetIn",
    "ErrorOut",
    "EvaluationIn",
    "GeneratorIn",
    "JudgeIn",
    "JudgingIn",
    "JudgingOut",
    "JudgingPage",
    "QueryOut",
    "QueryPage",
    "RetrieverIn",
    "TaskOut",
    "TaskPage",
    "TaskState",
    "ValidationErrorOut",
]

PATH_LENGTH = 4096
MAX_OFFSET = 10**9
PathText = Annotated[str, StringConstraints(max_length=PATH_LENGTH)]
SpecText = Annotated[str, StringConstraints(max_length=2048)]


class DatasetIn(BaseModel):
    """A dataset directory (WeKnora or BEIR layout), or queries and qrels files, under the
    server's data roots."""

    model_config = ConfigDict(extra="forbid")
    path: str | None = Field(None, max_length=PATH_LENGTH, description="dataset directory")
    split: str | None = Field(None, max_length=200, description="BEIR split (default: test)")
    queries: str | None = Field(None, max_length=PATH_LENGTH, description="queries file")
    qrels: str | None = Field(None, max_length=PATH_LENGTH, description="qrels file")
    corpus: str | None = Field(None, max_length=PATH_LENGTH, description="corpus (BM25)")
    name: str | None = Field(None, max_length=200)


class RetrieverIn(BaseModel):
    """A retriever specification: bm25, a callable, or an HTTP endpoint."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    type: Literal["bm25", "callable", "http"]
    target: str | None = Field(
        None, max_length=500, description="module:function, for type callable or prompt"
    )
    url: str | None = Field(None, max_length=2048, description="endpoint, for type http")
    method: Literal["GET", "POST"] | None = None
    body: Any = Field(
        None, description="JSON request template with {query}, {k}, {query_id} (64 KiB at most)"
    )
    headers: dict[str, str] | None = None
    results_path: str | None = Field(None, max_length=500)
    id_field: str | None = Field(None, max_length=500)
    score_field: str | None = Field(None, max_length=500)
    timeout: float | None = Field(None, gt=0, le=3600)
    retries: int | None = Field(None, ge=0, le=100)
    backoff: float | None = Field(None, ge=0, le=60)
    k1: float | None = Field(None, ge=0, le=100, description="BM25 k1")
    b: float | None = Field(None, ge=0, le=1, description="BM25 b")


class GeneratorIn(BaseModel):
    """A generator specification: a callable ``f(question, passages) -> answer`` or an HTTP
    endpoint answering a JSON request made from a template."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    type: Literal["callable", "http"]
    target: str | None = Field(
        None, max_length=500, description="module:function, for type callable or prompt"
    )
    url: str | None = Field(None, max_length=2048, description="endpoint, for type http")
    method: Literal["GET", "POST"] | None = None
    body: Any = Field(
        None,
        description="JSON request template with {query}, {query_id}, {passages} (the list of "
        "texts), {doc_ids} (64 KiB at most); default "
        '{"question": "{query}", "passages": "{passages}"}',
    )
    headers: dict[str, str] | None = None
    answer_path: str | None = Field(
        None, max_length=500, description="where the answer is in the response (default answer)"
    )
    timeout: float | None = Field(None, gt=0, le=3600)
    retries: int | None = Field(None, ge=0, le=100)
    backoff: float | None = Field(None, ge=0, le=60)
    max_passages: int | None = Field(
        None, ge=1, le=10_000, description="passages given per question (default: all retrieved)"
    )


class JudgeIn(BaseModel):
    """A judge: an OpenAI-compatible chat-completions endpoint (``http``), a callable
    ``module:function`` grading a (query, passage) pair (``callable``), or one answering the
    judge's prompts (``prompt``)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    type: Literal["http", "callable", "prompt"]
    url: str | None = Field(
        None, max_length=2048, description="the endpoint's base (http://host:8000/v1) or URL"
    )
    model: str | None = Field(None, max_length=500, description="the model name, for http")
    api_key_env: str | None = Field(
        None, max_length=200, description="the server's environment variable holding the key"
    )
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1, le=10**6)
    seed: int | None = Field(None, ge=-(2**63), le=2**63 - 1)
    timeout: float | None = Field(None, gt=0, le=3600)
    retries: int | None = Field(None, ge=0, le=100)
    backoff: float | None = Field(None, ge=0, le=60)
    prices: tuple[float, float] | None = Field(
        None, description="per million prompt tokens, per million completion tokens"
    )
    target: str | None = Field(
        None, max_length=500, description="module:function, for type callable or prompt"
    )
    thresholds: list[float] | None = Field(None, max_length=100)


class AnswerJudgeIn(BaseModel):
    """The judge of a task's judged answer measures and how to ask it."""

    model_config = ConfigDict(extra="forbid")
    judge: SpecText | JudgeIn = Field(
        description="an http judge (an OpenAI-compatible endpoint) or a prompt judge"
    )
    concurrency: int = Field(4, ge=1, le=256, description="askings in flight at once")
    repeats: int | None = Field(
        None, ge=1, le=100, description="askings of each judged measure named without repeats="
    )
    prompts: (
        dict[
            Literal["Faithfulness", "AnswerRelevance", "ReferenceAgreement"],
            Annotated[str, StringConstraints(max_length=20_000)],
        ]
        | None
    ) = Field(None, description="a measure's prompt template, replacing rankscope's wording")


class EvaluationIn(BaseModel):
    """A task to run."""

    model_config = ConfigDict(extra="forbid")
    dataset: PathText | DatasetIn = Field(description="a dataset directory, or its description")
    retriever: SpecText | RetrieverIn = Field(
        description="'bm25', 'module:function', an http(s):// URL, or a specification"
    )
    measures: list[Annotated[str, StringConstraints(max_length=200)]] | None = Field(
        None,
        max_length=100,
        description="WeKnora fields under weknora; rankscope measures under trec",
    )
    profile: str = Field(
        "weknora",
        description="a profile of rankscope.PROFILES",
        json_schema_extra={"enum": list(PROFILES)},
    )
    k: int | None = Field(None, ge=1, le=100_000, description="documents per question")
    concurrency: int = Field(4, ge=1, le=256)
    max_failures: int | None = Field(None, ge=0, le=MAX_OFFSET)
    name: str | None = Field(None, max_length=200)
    generator: SpecText | GeneratorIn | None = Field(
        None,
        description="answers each question from its retrieved passages: 'module:function', "
        "an http(s):// URL, or a specification",
    )
    answer_measures: list[Annotated[str, StringConstraints(max_length=200)]] | None = Field(
        None,
        max_length=100,
        description="WeKnora's bleu1, bleu2, bleu4, rouge1, rouge2, rougel and/or BLEU, "
        "ROUGE-1, ROUGE-2, ROUGE-L, ExactMatch, TokenF1 (with a generator; default WeKnora's "
        "six under weknora, the standard six otherwise); the judged Faithfulness, "
        "AnswerRelevance, ReferenceAgreement with an answer judge",
    )
    answer_judge: AnswerJudgeIn | None = Field(
        None, description="the judge of the judged answer measures"
    )

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        try:
            resolve_profile(value)
        except ProfileError as error:  # the core's message, naming the profiles it knows
            raise ValueError(str(error)) from None
        return value


class ErrorOut(BaseModel):
    """Why the request failed."""

    detail: str


class ValidationItem(BaseModel):
    """One invalid part of a request."""

    loc: list[str | int]
    msg: str
    type: str


class ValidationErrorOut(BaseModel):
    """An invalid request: a reason, or (for a body or parameter of the wrong shape) a list of
    the invalid parts."""

    detail: str | list[ValidationItem]


class ProgressOut(BaseModel):
    total: int
    finished: int
    succeeded: int
    failed: int
    fraction: float


class AnswerCountOut(BaseModel):
    """How many scored answers an answer measure's mean is over."""

    scored: int
    failed: int


class JudgeTalliesOut(BaseModel):
    """What the judge of a task's answers did: askings, calls, tokens and cost."""

    askings: int = Field(description="askings of the judge, over every judged measure")
    asked: dict[str, int] = Field(description="askings per judged measure (family)")
    failed: dict[str, int] = Field(description="askings without a grade per judged measure")
    failures: dict[str, int] = Field(description="askings without a grade per kind of failure")
    calls: dict[str, int] = Field(description="calls per outcome, retries included")
    prompt_tokens: int
    completion_tokens: int
    cost: float


class AnswersOut(BaseModel):
    """A task's generator and the means of its answer measures (None: nothing scored yet)."""

    generator: dict[str, Any]
    measures: list[str]
    metrics: dict[str, float | None]
    scored: int = Field(
        description="answers scored (questions with a reference answer; without one, by the "
        "judged measures that need none)"
    )
    counts: dict[str, AnswerCountOut] = Field(
        description="per measure, the answers with a value and those the judge gave no "
        "grade, left out of the mean (a measure that needs a reference answer counts neither "
        "for an answer without one)"
    )
    judge: dict[str, Any] | None = Field(
        description="the judge of the judged measures, its concurrency, repeats and prompts"
    )
    tallies: JudgeTalliesOut | None = Field(
        description="what the judge did: askings, calls, tokens and cost (None without a judge)"
    )
    references: int | None = Field(description="questions with a reference answer")
    note: str | None = Field(description="what cannot be scored, e.g. no reference answers")


class TaskState(BaseModel):
    """Where a task is: status, progress, metrics (None: no query succeeded yet), latency (ms),
    throughput."""

    id: str
    name: str | None
    status: Literal["pending", "running", "succeeded", "failed", "cancelled"]
    progress: ProgressOut
    metrics: dict[str, float | None]
    latency_ms: dict[str, float] | None
    queries_per_second: float | None
    active_seconds: float


class TaskOut(Settings, TaskState):
    """A task: where it is (`TaskState`), how it is evaluated (`Settings`, the fields of its
    `TaskSpec`), what it evaluates and when; in that order."""

    retriever: dict[str, Any]
    dataset: dict[str, Any]
    error: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    updated_at: float
    answers: AnswersOut | None = Field(description="None for a task without a generator")


class TaskPage(BaseModel):
    items: list[TaskOut]
    total: int
    limit: int
    offset: int


class QueryOut(BaseModel):
    """One recorded query."""

    query_id: str
    position: int
    status: Literal["succeeded", "failed"]
    doc_ids: list[str]
    scores: list[float] | None
    latency: float | None
    attempts: int
    metrics: dict[str, float] | None
    error: str | None
    finished_at: float
    answer: str | None
    answer_metrics: dict[str, float] | None
    answer_latency: float | None
    references: list[str] | None


class QueryPage(BaseModel):
    items: list[QueryOut]
    total: int
    limit: int
    offset: int


class JudgingIn(BaseModel):
    """A judging task: the pairs of a pool file (with the queries' and documents' texts), or
    the holes of an evaluation task; a judge; how to ask it."""

    model_config = ConfigDict(extra="forbid")
    judge: SpecText | JudgeIn = Field(description="'module:function', or a specification")
    holes_of: str | None = Field(
        None,
        max_length=200,
        description="an evaluation task whose holes (unjudged documents of its top depth) to judge",
    )
    depth: int = Field(10, ge=1, le=100_000, description="the top k whose holes are judged")
    pairs: PathText | None = Field(None, description="a to-judge file (or any qrels)")
    queries: PathText | None = Field(None, description="the queries' texts")
    corpus: PathText | None = Field(
        None, description="the documents' texts (default for holes_of: the task's dataset's)"
    )
    prompt: str | None = Field(
        None, max_length=64 * 1024, description="a template with {query} and {passage}"
    )
    concurrency: int = Field(4, ge=1, le=256)
    calibrate: bool | PathText | None = Field(
        None,
        description="human qrels to judge a seeded sample of first (true with holes_of: the "
        "task's own)",
    )
    calibration_sample: int = Field(50, ge=1, le=100_000)
    seed: int = Field(0, ge=0, le=2**32 - 1)
    name: str | None = Field(None, max_length=200)


class JudgingProgressOut(BaseModel):
    total: int
    graded: int
    failed: int
    pending: int
    fraction: float


class JudgingOut(BaseModel):
    """A judging task: where it is, what it cost, and how far it agrees with humans."""

    id: str
    name: str | None
    status: Literal["pending", "running", "succeeded", "failed", "cancelled"]
    progress: JudgingProgressOut
    failures: dict[str, int] = Field(description="failed pairs per kind of failure")
    calls: dict[str, int] = Field(description="calls per outcome, retries included")
    prompt_tokens: int
    completion_tokens: int
    cost: float
    judge: dict[str, Any]
    concurrency: int
    source: dict[str, Any] | None = Field(
        description="{evaluation, depth} for the holes of an evaluation task"
    )
    agreement: dict[str, Any] | None = Field(
        description="with human judgements where both judge (kappa, alpha, confusion)"
    )
    error: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    updated_at: float
    active_seconds: float


class JudgingPage(BaseModel):
    items: list[JudgingOut]
    total: int
    limit: int
    offset: int
