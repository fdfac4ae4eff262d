"""Per-query measures of a task: WeKnora's six, or rankscope measures under a trec profile;
and, for a task with a generator, the measures of its answers.

Each finished query is scored on its own, as a one-query `RankedBatch` run through the same
kernels that `rankscope.evaluate` runs, so a task's per-query values equal
``rankscope.evaluate(qrels, exported_run, measures, profile)`` exactly.

Under ``weknora`` the six values are WeKnora's `RetrievalMetrics` for
``MetricInput(retrieval_gt=[judged relevant documents], retrieval_ids=retrieved)``: WeKnora's
EvaluationService puts one ground-truth list per question, for which `rankscope.metric` is
the weknora profile's P, R, nDCG@3, nDCG@10, RR and AP of that one query.

Answers are scored as `rankscope.evaluate_answers` scores them, question by question (the
judged measures, ``Faithfulness``, ``AnswerRelevance`` and ``ReferenceAgreement``, through its
very judging path, `AnswerJudging`):
WeKnora's `GenerationMetrics` fields (``bleu1``, ``bleu2``, ``bleu4``, ``rouge1``, ``rouge2``,
``rougel``, its own tokenizer and quirks, one reference answer) and the standard answer
measures (``BLEU``, ``ROUGE-1``, ``ROUGE-2``, ``ROUGE-L``, ``ExactMatch``, ``TokenF1`` and
their parameters), which may be mixed in one task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rankscope.engine import (
    FAMILIES,
    Conventions,
    Measure,
    evaluate_query,
    parse_measures,
    resolve_profile,
)
from rankscope.engine.measures import default_measures
from rankscope.errors import InputError, MeasureError, UnknownMeasureError
from rankscope.metric import GenerationMetrics, RetrievalMetrics

if TYPE_CHECKING:
    from rankscope.answers._judged import AskingLedger
    from rankscope.judge import Judge, Prompt
    from rankscope.service.tasks.spec import TaskSpec

__all__ = [
    "ANSWER_JUDGE_OPTIONS",
    "WEKNORA_ANSWER_MEASURES",
    "WEKNORA_MEASURES",
    "AnswerJudging",
    "AnswerMeasureSet",
    "AnswerScorer",
    "MeasureSet",
    "QueryScorer",
    "effective_scores",
    "measure_sources",
    "resolve_task_measures",
]

WEKNORA_MEASURES: Mapping[str, str] = dict(
    zip(RetrievalMetrics.field_names(), default_measures("weknora"), strict=True)
)
"""WeKnora's `RetrievalMetrics` fields and the weknora-profile measure each one is: the
fields of `rankscope.metric.RetrievalMetrics` and the weknora profile's default measures,
in their order."""

DEFAULT_TREC_MEASURES = default_measures("trec")
"""What a task under a trec profile computes when no measure is named: the trec profile's
default measures, as the command line's."""

WEKNORA_ANSWER_MEASURES: Mapping[str, str] = dict(
    zip(GenerationMetrics.field_names(), default_measures("weknora", "answer"), strict=True)
)
"""WeKnora's `GenerationMetrics` fields and the weknora answer measure each one is."""


@dataclass(frozen=True)
class MeasureSet:
    """The measures of a task under one profile, with the names its results use.

    Attributes
    ----------
    profile
        A profile's name (`rankscope.PROFILES`): ``"weknora"``, ``"trec"``, ``"trec9"``, ...
    names
        The names of the values: WeKnora's field names under ``weknora`` (``precision``,
        ``recall``, ``ndcg3``, ``ndcg10``, ``mrr``, ``map``), canonical measure names otherwise.
    measures
        The rankscope measure computing each name.

    Examples
    --------
    >>> MeasureSet.resolve(None, "weknora").names
    ('precision', 'recall', 'ndcg3', 'ndcg10', 'mrr', 'map')
    >>> MeasureSet.resolve(["ndcg_cut.10", "map"], "trec").names
    ('nDCG@10', 'AP')
    """

    profile: str
    names: tuple[str, ...]
    measures: tuple[Measure, ...]

    @classmethod
    def resolve(cls, measures: Sequence[str] | None, profile: str) -> MeasureSet:
        """Check the measure names against the profile."""
        conventions = resolve_profile(profile)
        if conventions.name == "weknora":
            names = tuple(measures) if measures else tuple(WEKNORA_MEASURES)
            unknown = [name for name in names if name not in WEKNORA_MEASURES]
            if unknown:
                raise MeasureError(
                    f"the weknora profile computes WeKnora's RetrievalMetrics "
                    f"({', '.join(WEKNORA_MEASURES)}); unknown: {', '.join(unknown)} "
                    "(use profile 'trec' for rankscope measures such as nDCG@10, AP, RR, P@10)"
                )
            if len(set(names)) != len(names):
                raise MeasureError(f"a measure is named twice: {list(names)}")
            parsed = parse_measures([WEKNORA_MEASURES[name] for name in names])
            return cls(conventions.name, names, tuple(parsed))
        parsed = parse_measures(
            list(measures) if measures else list(default_measures(conventions.name))
        )
        canonical = tuple(m.name for m in parsed)
        if len(set(canonical)) != len(canonical):
            raise MeasureError(f"a measure is named twice: {list(canonical)}")
        answer_measures = [m.name for m in parsed if FAMILIES[m.family].kind == "answer"]
        if answer_measures:
            raise MeasureError(
                f"{', '.join(answer_measures)} score generated answers, not rankings; the "
                "service scores retrievals (score answers with rankscope answers)"
            )
        aggregated = [m.name for m in parsed if FAMILIES[m.family].aggregate != "mean"]
        if aggregated:
            raise MeasureError(
                f"the service reports means over queries; {', '.join(aggregated)} "
                "aggregate otherwise (use rankscope evaluate on the exported run)"
            )
        return cls(conventions.name, canonical, tuple(parsed))

    @property
    def engine_names(self) -> tuple[str, ...]:
        """The rankscope measure name of each value (for `rankscope.evaluate`)."""
        return tuple(m.name for m in self.measures)


def effective_scores(doc_ids: Sequence[str], scores: Sequence[float] | None) -> list[float]:
    """The scores a ranking is evaluated and exported with: as given, else ``n - i``.

    ``n - i`` for the i-th of n documents is what `Run.from_lists` uses, so every profile ranks
    documents without scores in the order the retriever returned them.

    >>> effective_scores(["a", "b", "c"], None)
    [3.0, 2.0, 1.0]
    """
    if scores is None:
        return [float(len(doc_ids) - i) for i in range(len(doc_ids))]
    return [float(score) for score in scores]


def measure_sources(names: Sequence[str]) -> tuple[str, ...]:
    """The files (or modules) that defined the user-defined measures among ``names`` (canonical
    names), each once: what a task keeps so that another process can define them again."""
    from rankscope.measures import definitions_of

    sources = (d.source for d in definitions_of(names) if d.source is not None)
    return tuple(dict.fromkeys(sources))


def resolve_task_measures(task_id: str, spec: TaskSpec) -> MeasureSet:
    """A stored task's measures, its user-defined ones loaded again from the files that
    defined them when this process does not know them (a resume after a crash, a worker).

    Raises
    ------
    InputError
        A file that defined them cannot be loaded any more.
    UnknownMeasureError
        A measure is still unknown (its definition moved, or was made in another process's
        code): the message names the files the task was defined with.
    """
    try:
        return MeasureSet.resolve(spec.measures, spec.profile)
    except UnknownMeasureError as error:
        if not spec.measures_from:
            raise
        from rankscope.measures import load

        for source in spec.measures_from:
            try:
                load(source)
            except InputError as failed:
                raise InputError(
                    f"task {task_id}'s measures are defined by {source}, which cannot be "
                    f"loaded: {failed}",
                    source=source,
                ) from failed
        try:
            return MeasureSet.resolve(spec.measures, spec.profile)
        except UnknownMeasureError as still:
            raise UnknownMeasureError(
                f"task {task_id}: {still.measure} is not defined by "
                f"{', '.join(spec.measures_from)} any more",
                measure=still.measure,
            ) from error


class QueryScorer:
    """Scores one query's ranking against its judgements, as `rankscope.evaluate` would.

    Examples
    --------
    WeKnora's documented example:

    >>> judged = {"q": [("1", 1), ("5", 1), ("8", 1)]}
    >>> scorer = QueryScorer(MeasureSet.resolve(None, "weknora"), judged)
    >>> ranking = ["1", "3", "5", "7", "8", "10", "12", "14", "16", "18"]
    >>> values = scorer.score("q", ranking, None)
    >>> [round(values[name], 6) for name in WEKNORA_MEASURES]
    [0.3, 1.0, 0.703918, 0.88546, 1.0, 0.755556]
    """

    def __init__(
        self, measure_set: MeasureSet, judgements: Mapping[str, Sequence[tuple[str, int]]]
    ) -> None:
        self.measure_set = measure_set
        self._conventions: Conventions = resolve_profile(measure_set.profile)
        self._judgements = judgements

    def score(
        self, query_id: str, doc_ids: Sequence[str], scores: Sequence[float] | None
    ) -> dict[str, float]:
        """``{name: value}`` for one query; a query that retrieved nothing scores 0.

        Raises
        ------
        InputError
            If the ranking breaks the profile's rules (a document twice under ``trec``).
        """
        judged = self._judgements.get(query_id, ())
        names = self.measure_set.names
        if not judged or not doc_ids:
            return dict.fromkeys(names, 0.0)
        ranking = list(zip(doc_ids, effective_scores(doc_ids, scores), strict=True))
        values = evaluate_query(
            judged, ranking, self.measure_set.measures, self._conventions, query_id=query_id
        )
        return dict(zip(names, values, strict=True))


@dataclass(frozen=True)
class AnswerMeasureSet:
    """The answer measures of a task with a generator, with the names its results use.

    Attributes
    ----------
    names
        WeKnora's `GenerationMetrics` field names (``bleu1`` ... ``rougel``) for its
        measures, canonical answer measure names (``BLEU``, ``ROUGE-L(stem=True)``, ...) for
        the standard ones.
    measures
        The answer measure computing each name.
    profiles
        ``"weknora"`` or ``"standard"``: how each one is computed.

    Examples
    --------
    >>> AnswerMeasureSet.resolve(None, "weknora").names
    ('bleu1', 'bleu2', 'bleu4', 'rouge1', 'rouge2', 'rougel')
    >>> AnswerMeasureSet.resolve(["rougel", "ROUGE-L(stem=True)", "EM"], "trec").names
    ('rougel', 'ROUGE-L(stem=True)', 'ExactMatch')
    """

    names: tuple[str, ...]
    measures: tuple[Measure, ...]
    profiles: tuple[str, ...]

    @classmethod
    def resolve(
        cls, names: Sequence[str] | None, retrieval_profile: str, repeats: int | None = None
    ) -> AnswerMeasureSet:
        """Check the names; None: WeKnora's six under the weknora profile, else the standard
        defaults (`rankscope.answers.DEFAULT_MEASURES`). ``repeats``: the askings of each
        judged measure named without its own ``repeats=``.

        >>> AnswerMeasureSet.resolve(["Faithfulness(stat=sd)", "TokenF1"], "trec", 3).names
        ('Faithfulness(repeats=3,stat=sd)', 'TokenF1')
        """
        from rankscope.answers._judged import JUDGED_FAMILIES
        from rankscope.answers._scorers import DEFAULT_MEASURES, check_answer_measures

        if not names:
            if resolve_profile(retrieval_profile).name == "weknora":
                names = tuple(WEKNORA_ANSWER_MEASURES)
            else:
                names = DEFAULT_MEASURES["standard"]
        resolved: list[tuple[str, Measure, str]] = []
        for name in names:
            if name in WEKNORA_ANSWER_MEASURES:
                (measure,) = parse_measures([WEKNORA_ANSWER_MEASURES[name]])
                resolved.append((name, measure, "weknora"))
                continue
            (measure,) = parse_measures([name])
            if FAMILIES[measure.family].kind != "answer":
                raise MeasureError(
                    f"{measure.name} scores rankings, not answers; answer measures are "
                    f"WeKnora's {', '.join(WEKNORA_ANSWER_MEASURES)} and "
                    + ", ".join(f.name for f in FAMILIES.values() if f.kind == "answer")
                )
            check_answer_measures([measure], "standard")
            if (
                repeats is not None
                and measure.family in JUDGED_FAMILIES
                and measure.param("repeats") is None
            ):
                given = ",".join(f"{k}={v}" for k, v in (*measure.params, ("repeats", repeats)))
                (measure,) = parse_measures([f"{measure.family}({given})"])
            resolved.append((measure.name, measure, "standard"))
        chosen = tuple(name for name, _, _ in resolved)
        if len(set(chosen)) != len(chosen):
            raise MeasureError(f"an answer measure is named twice: {list(chosen)}")
        return cls(
            chosen,
            tuple(measure for _, measure, _ in resolved),
            tuple(profile for _, _, profile in resolved),
        )

    @property
    def weknora(self) -> bool:
        """Whether a measure is WeKnora's (they score one reference answer per question)."""
        return "weknora" in self.profiles

    @property
    def judged(self) -> tuple[Measure, ...]:
        """The measures a judge grades (`rankscope.answers._judged`), in order."""
        from rankscope.answers._judged import JUDGED_FAMILIES

        return tuple(m for m in self.measures if m.family in JUDGED_FAMILIES)


class AnswerScorer:
    """Scores one question's generated answer against its reference answers.

    Examples
    --------
    >>> scorer = AnswerScorer(AnswerMeasureSet.resolve(["ExactMatch", "TokenF1"], "trec"),
    ...                       {"q1": ["The Eiffel Tower"]})
    >>> scorer.score("q1", "eiffel tower!")
    {'ExactMatch': 1.0, 'TokenF1': 1.0}
    >>> scorer.score("q2", "no reference for this one") is None
    True
    """

    def __init__(
        self, measure_set: AnswerMeasureSet, references: Mapping[str, Sequence[str]]
    ) -> None:
        self.measure_set = measure_set
        self._references = references
        self._values("", [""])  # a measure's missing package is named now

    def _values(self, answer: str, references: list[str]) -> list[float]:
        """The measures' values of one answer, computed as `rankscope.evaluate_answers` does
        (one call per profile)."""
        from rankscope.answers._scorers import score_columns

        pairs = [
            (measure, profile)
            for measure, profile in zip(
                self.measure_set.measures, self.measure_set.profiles, strict=True
            )
            if measure not in self.measure_set.judged
        ]
        by_profile: dict[str, Iterator[list[float]]] = {}
        for profile in {profile for _, profile in pairs}:
            chosen = [measure for measure, of in pairs if of == profile]
            by_profile[profile] = iter(score_columns(chosen, profile, [(answer, references)]))
        return [next(by_profile[profile])[0] for _, profile in pairs]

    def references(self, query_id: str) -> tuple[str, ...]:
        """The question's reference answers (none: its answer is not scored)."""
        return tuple(self._references.get(query_id) or ())

    def score(self, query_id: str, answer: str) -> dict[str, float] | None:
        """``{name: value}`` of the computed measures (not the judged ones) for one answer;
        None when the question has no reference."""
        references = self._references.get(query_id)
        if not references:
            return None
        computed = [
            name
            for name, measure in zip(self.measure_set.names, self.measure_set.measures, strict=True)
            if measure not in self.measure_set.judged
        ]
        values = self._values(answer, list(references))
        return dict(zip(computed, values, strict=True))


ANSWER_JUDGE_OPTIONS = ("judge", "concurrency", "repeats", "prompts")
"""The keys of a task's answer judge configuration (`AnswerJudging.check`)."""


@dataclass
class AnswerJudging:
    """The judge of a task's judged answer measures, as a run asks it: one judge, opened once
    per run, ``concurrency`` askings in flight over the whole task, each asking kept by
    ``ledger`` as it ends (`rankscope.answers._judged.ask_answers`, the judging path of
    `rankscope.evaluate_answers`).

    Attributes
    ----------
    judge
        The judge (built from the task's ``answer_judge`` specification, or kept in memory).
    measures
        The judged measures (their names are the task's answer measure names).
    concurrency
        Askings in flight at once, over the task.
    prompts
        ``{measure: Prompt}`` replacing the default wording.
    ledger
        Where each asking is kept (`rankscope.service.store.judging.AnswerLedger`).
    """

    judge: Judge
    measures: tuple[Measure, ...]
    concurrency: int
    prompts: dict[str, Prompt] = field(default_factory=dict)
    ledger: AskingLedger | None = None
    _gate: asyncio.Semaphore | None = None

    @staticmethod
    def check(given: Mapping[str, Any]) -> tuple[int, int | None, dict[str, Prompt]]:
        """The ``concurrency``, ``repeats`` and prompts of a task's answer judge
        configuration, checked (its ``judge`` is checked by the service's allow-lists).

        >>> AnswerJudging.check({"judge": "m:f", "concurrency": 2, "repeats": 3})
        (2, 3, {})
        >>> AnswerJudging.check({"judge": "m:f", "prompts": {"Faithfulness": "{answer}"}})
        Traceback (most recent call last):
        ...
        rankscope.errors.OptionError: the prompt template must hold {question}; it holds {answer}
        """
        from rankscope.answers._judged import ANSWER_PROMPTS
        from rankscope.judge import Prompt

        if not isinstance(given, Mapping):
            raise InputError(
                f"the answer judge is a mapping of {', '.join(ANSWER_JUDGE_OPTIONS)}; "
                f"found {type(given).__name__}"
            )
        unknown = sorted(set(given) - set(ANSWER_JUDGE_OPTIONS))
        if unknown:
            raise InputError(
                f"unknown options {unknown} of the answer judge; expected some of "
                f"{list(ANSWER_JUDGE_OPTIONS)}"
            )
        if given.get("judge") is None:
            raise InputError("the answer judge names its judge: judge")
        values: dict[str, int | None] = {}
        for label, default, high in (("concurrency", 4, 256), ("repeats", None, 100)):
            value = given.get(label, default)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high
            ):
                raise InputError(f"the answer judge's {label} must be an integer 1-{high}; "
                                 f"found {value!r}")  # fmt: skip
            values[label] = value
        prompts: dict[str, Prompt] = {}
        for family, template in dict(given.get("prompts") or {}).items():
            if family not in ANSWER_PROMPTS:
                raise InputError(
                    f"a prompt is replaced for a judged measure ({', '.join(ANSWER_PROMPTS)}); "
                    f"found {family!r}"
                )
            wording = ANSWER_PROMPTS[family]
            prompts[family] = Prompt(template, wording.system, wording.fields)
        return int(values["concurrency"] or 4), values["repeats"], prompts

    async def judge_one(
        self,
        query_id: str,
        question: str,
        answer: str,
        references: Sequence[str],
        contexts: Sequence[str],
    ) -> dict[str, float]:
        """``{name: value}`` of the judged measures of one answer (NaN where the judge gave
        no grade at all); a measure that needs a reference answer (`needs_reference`) is
        left out of an answer to a question without one."""
        from rankscope.answers._judged import ask_answers

        if self._gate is None:
            self._gate = asyncio.Semaphore(self.concurrency)
        found = await ask_answers(
            self.judge,
            self.measures,
            [query_id],
            {query_id: question},
            {query_id: answer},
            {query_id: list(references)},
            {query_id: list(contexts)},
            self._gate,
            prompts=self.prompts,
            ledger=self.ledger,
        )
        return {
            name: values[0] for name, values in found.values.items() if name not in found.skipped
        }
