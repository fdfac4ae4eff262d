"""`TaskSpec`: how a task is evaluated, as it is stored with the task and read back.

`Settings` are the fields a client sees of every task (the HTTP API's ``TaskOut`` inherits
them); `TaskSpec` adds the retriever's and the generator's specifications, from which another
process can build them again to resume the task.

Examples
--------
>>> spec = TaskSpec(profile="weknora", measures=("mrr",), k=10, concurrency=4,
...                 max_failures=None, retriever={"type": "bm25", "k1": 1.5, "b": 0.75})
>>> spec.stored()
{'profile': 'weknora', 'measures': ['mrr'], 'k': 10, 'concurrency': 4, 'max_failures': None, \
'retriever': {'type': 'bm25', 'k1': 1.5, 'b': 0.75}}
>>> TaskSpec.model_validate(spec.stored()) == spec
True
"""

from __future__ import annotations

from typing import Any

from rankscope.errors import MissingDependencyError

try:
    from pydantic import BaseModel, ConfigDict
except ImportError:  # pragma: no cover - pydantic comes with the service extra
    raise MissingDependencyError("pydantic", "the evaluation service", "service") from None

__all__ = ["Settings", "TaskSpec"]


class Settings(BaseModel):
    """How a task is evaluated: its profile, measures, depth, concurrency and failure limit."""

    model_config = ConfigDict(frozen=True)
    profile: str
    measures: tuple[str, ...]
    k: int
    concurrency: int
    max_failures: int | None


class TaskSpec(Settings):
    """A task's whole specification, as stored in its row.

    Attributes
    ----------
    retriever
        The retriever's specification (`parse_retriever_spec`), or ``{"type": "python",
        "description": ...}`` for a Python object that cannot be rebuilt.
    generator
        The generator's, likewise; None for a retrieval-only task.
    answer_measures
        The measures of the generator's answers (empty without a generator).
    references
        Questions of the dataset with a reference answer (None without a generator).
    measures_from
        The files (or modules) that define the task's user-defined measures
        (`rankscope.measures.load`): a process resuming the task loads them again.
    answer_judge
        For the judged answer measures (``Faithfulness``, ``AnswerRelevance``,
        ``ReferenceAgreement``): ``judge``, the judge's specification
        (`rankscope.service.sources.judges.parse_judge_spec`, the API key's variable, never
        the key), ``concurrency`` (askings in flight at once, over the task) and ``prompts``
        (``{measure: template}`` replacing `rankscope.answers.ANSWER_PROMPTS`' wording);
        None without judged measures.
    """

    retriever: dict[str, Any]
    generator: dict[str, Any] | None = None
    answer_measures: tuple[str, ...] = ()
    references: int | None = None
    measures_from: tuple[str, ...] = ()
    answer_judge: dict[str, Any] | None = None

    def stored(self) -> dict[str, Any]:
        """The JSON-able form kept in the store (a retrieval-only task without the keys of
        answers, as stores have always kept it)."""
        shown = self.model_dump(mode="json")
        if self.generator is None:
            for key in ("generator", "answer_measures", "references"):
                shown.pop(key)
        if not self.measures_from:
            shown.pop("measures_from")
        if self.answer_judge is None:
            shown.pop("answer_judge")
        return shown
