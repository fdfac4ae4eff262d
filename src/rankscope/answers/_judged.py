"""The judged answer measures: a judge (`rankscope.judge.ChatJudge` or `PromptJudge`) grades
each answer on a 0-3 scale, asked ``repeats`` times.

=====================  ======================================================================
measure                what the judge is asked
=====================  ======================================================================
``Faithfulness``       how far every statement of the answer is supported by the passages it
                       was written from (the ``contexts``)
``AnswerRelevance``    how well the answer addresses the question
``ReferenceAgreement`` how far the answer agrees with the reference answer(s)
=====================  ======================================================================

The prompts (`ANSWER_PROMPTS`) are rankscope's own wording, one scale per measure, the grade
asked for on the last line; an answer is read by `rankscope.judge.read_grade`. A measure's
value for a question is its grades over 3: ``stat=mean`` (the default) their mean,
``stat=sd`` their (population) standard deviation, ``stat=failed`` the share of askings that
gave no grade (a failure of one of `rankscope.judge.FAILURES`, never a guess). A question
without any grade has no mean nor spread (NaN), and the measure's mean over questions leaves
it out. The three statistics of one measure and
``repeats`` share the same askings.

What a measure is given is its prompt's fields (`needs_reference`): ``Faithfulness`` and
``AnswerRelevance`` judge an answer whose question has no reference answer, ``ReferenceAgreement``
skips it (it has no value there, and no judge is asked).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from rankscope.errors import OptionError
from rankscope.judge._judges import judgement_of
from rankscope.judge._prompt import Prompt

if TYPE_CHECKING:
    from rankscope.engine.measures import Measure
    from rankscope.judge._judges import Call, Judge, Judgement

__all__ = [
    "ANSWER_GRADES",
    "ANSWER_PROMPTS",
    "JUDGED_FAMILIES",
    "AskingLedger",
    "JudgedAnswers",
    "ask_answers",
    "check_judged",
    "judge_answers",
    "needs_reference",
    "prompt_digest",
]

ANSWER_GRADES = (0, 1, 2, 3)
"""The scale of the judged answer measures."""

_SYSTEM = (
    "You grade answers written by a question-answering system, as a careful reviewer does. "
    "You are careful, consistent and brief."
)
_LAST_LINE = "Write the grade alone on the last line, as: Grade: N"

ANSWER_PROMPTS: dict[str, Prompt] = {
    "Faithfulness": Prompt(
        "Grade how far every statement of the answer is supported by the passages, on this "
        "scale:\n"
        "3 = every statement of the answer is stated in the passages or follows from them;\n"
        "2 = most of it is supported; a detail is not;\n"
        "1 = some of it is supported, much of it is not;\n"
        "0 = the answer is not supported by the passages, or contradicts them.\n\n"
        "Judge the answer against the passages only, not against what you know.\n\n"
        "Question: {question}\n\nPassages:\n{passages}\n\nAnswer: {answer}\n\n" + _LAST_LINE,
        _SYSTEM,
        ("question", "passages", "answer"),
    ),
    "AnswerRelevance": Prompt(
        "Grade how well the answer addresses the question, on this scale:\n"
        "3 = it answers the question directly and completely;\n"
        "2 = it answers part of it, or buries the answer in what is beside the point;\n"
        "1 = it is on the question's topic but does not answer it;\n"
        "0 = it has nothing to do with the question, or declines to answer.\n\n"
        "Question: {question}\n\nAnswer: {answer}\n\n" + _LAST_LINE,
        _SYSTEM,
        ("question", "answer"),
    ),
    "ReferenceAgreement": Prompt(
        "Grade how far the answer agrees with the reference answer, on this scale:\n"
        "3 = it says what the reference says, in any words;\n"
        "2 = it agrees with most of the reference, missing or adding a detail;\n"
        "1 = it agrees with a little of it;\n"
        "0 = it disagrees with the reference, or says nothing of what it says.\n\n"
        "Question: {question}\n\nReference answer:\n{reference}\n\nAnswer: {answer}\n\n"
        + _LAST_LINE,
        _SYSTEM,
        ("question", "reference", "answer"),
    ),
}
"""The prompt of each judged measure (replace one with ``prompts=`` of `judge_answers`)."""

JUDGED_FAMILIES = tuple(ANSWER_PROMPTS)


def needs_reference(measure: Measure, prompts: Mapping[str, Prompt] | None = None) -> bool:
    """Whether an answer measure needs the question's reference answers: a computed one
    (BLEU, ROUGE, ExactMatch, TokenF1) always, a judged one when its prompt (``prompts``'s,
    else `ANSWER_PROMPTS`'s) has a ``{reference}`` field.

    >>> from rankscope.engine.measures import parse_measures
    >>> [needs_reference(m) for m in parse_measures(
    ...     ["Faithfulness", "AnswerRelevance(repeats=3)", "ReferenceAgreement", "TokenF1"])]
    [False, False, True, True]
    """
    prompt = (prompts or {}).get(measure.family) or ANSWER_PROMPTS.get(measure.family)
    return prompt is None or "reference" in prompt.fields


@dataclass
class JudgedAnswers:
    """What the judge gave: each measure's value per question, and the failures by kind.

    Attributes
    ----------
    values
        ``{measure name: [value per question, in order]}``.
    askings, failures
        Askings made, and those that failed per kind of failure.
    skipped
        ``{measure name: [question id, ...]}``: the questions a measure that needs a reference
        answer (`needs_reference`) was not asked of, having none (their value is NaN).
    """

    values: dict[str, list[float]] = field(default_factory=dict)
    askings: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    skipped: dict[str, list[str]] = field(default_factory=dict)


def _repeats(measure: Measure) -> int:
    given = measure.param("repeats")
    return 1 if given is None else int(given)


def _value(grades: Sequence[int | None], stat: str) -> float:
    graded = [g / max(ANSWER_GRADES) for g in grades if g is not None]
    if stat == "failed":
        return (len(grades) - len(graded)) / len(grades)
    if not graded:
        return math.nan
    return statistics.fmean(graded) if stat == "mean" else statistics.pstdev(graded)


class AskingLedger(Protocol):
    """Where the askings of `ask_answers` are kept as they end, so that asking again (a resumed
    task) reuses them: an asking is named by its measure, ``repeats``, question, number (0 ...
    ``repeats - 1``) and a digest of the prompt it answers (another answer, another prompt)."""

    def known(
        self, family: str, repeats: int, question_id: str, number: int, digest: str
    ) -> Judgement | None:
        """The stored judgement of this asking of this prompt, or None (to be asked)."""

    def retried(self, family: str, repeats: int, question_id: str, number: int, call: Call) -> None:
        """Keep a call of an asking that is retried, as it ends (the asking goes on); the call
        that decides it comes with its judgement, to `asked`."""

    def asked(
        self,
        family: str,
        repeats: int,
        question_id: str,
        number: int,
        digest: str,
        judgement: Judgement,
    ) -> None:
        """Keep an asking's judgement, before any other asking of its question goes on."""


def prompt_digest(messages: Sequence[Mapping[str, str]]) -> str:
    """What names a prompt's messages across processes.

    >>> prompt_digest([{"role": "user", "content": "Grade: ?"}])[:12]
    '488c53b8c727'
    """
    return hashlib.sha256(json.dumps(list(map(dict, messages))).encode()).hexdigest()


def check_judged(
    measures: Sequence[Measure],
    question_ids: Sequence[str],
    questions: Mapping[str, str],
    contexts: Mapping[str, Sequence[str]] | None,
) -> list[Measure]:
    """The judged measures among ``measures``, checked: each question has its text, and the
    passages for ``Faithfulness``."""
    judged = [m for m in measures if m.family in ANSWER_PROMPTS]
    for m in judged:
        if m.family == "Faithfulness" and contexts is None:
            raise OptionError(f"{m.name} needs the passages each answer was written from: contexts")
        missing = [q for q in question_ids if q not in questions]
        if missing:
            raise OptionError(
                f"{m.name} needs each question's text; {len(missing)} have none (first: "
                f"{missing[0]!r}): questions"
            )
    return judged


async def ask_answers(
    judge: Judge,
    judged: Sequence[Measure],
    question_ids: Sequence[str],
    questions: Mapping[str, str],
    answers: Mapping[str, str],
    references: Mapping[str, Sequence[str]],
    contexts: Mapping[str, Sequence[str]] | None,
    gate: asyncio.Semaphore,
    *,
    prompts: Mapping[str, Prompt] | None = None,
    ledger: AskingLedger | None = None,
) -> JudgedAnswers:
    """The askings of `judge_answers` (the judged measures checked by `check_judged`), with
    ``judge`` open and ``gate`` bounding the askings in flight: what the service's tasks await
    for each question. With a ``ledger``, an asking it knows is not asked again, and every
    other is handed to it as it ends. A measure that needs a reference answer
    (`needs_reference`) is not asked of a question without one: its value there is NaN, and
    the question is listed in ``skipped``."""
    used = {**ANSWER_PROMPTS, **(prompts or {})}
    groups = sorted({(m.family, _repeats(m)) for m in judged})
    found = JudgedAnswers()
    unreferenced = {q for q in question_ids if not references.get(q)}
    needing = {m.family for m in judged if needs_reference(m, used)}
    grades: dict[tuple[str, int, str], list[int | None]] = {}

    def texts(family: str, qid: str) -> dict[str, str]:
        given = {"question": questions.get(qid, ""), "answer": answers.get(qid, "")}
        if family == "Faithfulness":
            passages = (contexts or {}).get(qid, ())
            given["passages"] = "\n\n".join(f"[{i}] {p}" for i, p in enumerate(passages, 1))
        elif family == "ReferenceAgreement":
            given["reference"] = "\n".join(f"- {r}" for r in references.get(qid, ()))
        return given

    async def ask(family: str, repeats: int, qid: str) -> None:
        messages = used[family].messages(**texts(family, qid))
        digest = prompt_digest(messages) if ledger is not None else ""
        for number in range(repeats):
            judgement = (
                None if ledger is None else ledger.known(family, repeats, qid, number, digest)
            )
            if judgement is None:
                on_call = (
                    None
                    if ledger is None
                    else functools.partial(ledger.retried, family, repeats, qid, number)
                )
                async with gate:
                    reply = await judge.complete(messages, on_call)
                judgement = judgement_of(reply, ANSWER_GRADES)
                if ledger is not None:
                    ledger.asked(family, repeats, qid, number, digest, judgement)
            grades.setdefault((family, repeats, qid), []).append(judgement.grade)
            found.askings += 1
            if judgement.grade is None:
                found.failures[judgement.failure or "error"] += 1

    await asyncio.gather(
        *(
            ask(family, repeats, q)
            for family, repeats in groups
            for q in question_ids
            if family not in needing or q not in unreferenced
        )
    )
    for m in judged:
        stat = m.param("stat") or "mean"
        skips = m.family in needing and unreferenced
        found.values[m.name] = [
            math.nan
            if skips and q in unreferenced
            else _value(grades[(m.family, _repeats(m), q)], stat)
            for q in question_ids
        ]
        if skips:
            found.skipped[m.name] = [q for q in question_ids if q in unreferenced]
    return found


def judge_answers(
    judge: Judge,
    measures: Sequence[Measure],
    question_ids: Sequence[str],
    questions: Mapping[str, str],
    answers: Mapping[str, str],
    references: Mapping[str, Sequence[str]],
    contexts: Mapping[str, Sequence[str]] | None = None,
    *,
    concurrency: int = 4,
    prompts: Mapping[str, Prompt] | None = None,
) -> JudgedAnswers:
    """Ask ``judge`` every judged measure of ``measures`` for every question, ``repeats`` times
    (``concurrency`` askings at once), and give each measure's values.

    Examples
    --------
    >>> from rankscope.engine.measures import parse_measures
    >>> from rankscope.judge import PromptJudge
    >>> judge = PromptJudge(lambda messages: "On topic.\\nGrade: 2")
    >>> measures = parse_measures(["AnswerRelevance", "AnswerRelevance(stat=sd)"])
    >>> found = judge_answers(judge, measures, ["q1"], {"q1": "What is BM25?"},
    ...                       {"q1": "A ranking function."}, {})
    >>> found.values, found.askings
    ({'AnswerRelevance': [0.6666666666666666], 'AnswerRelevance(stat=sd)': [0.0]}, 1)
    """
    judged = check_judged(measures, question_ids, questions, contexts)
    if not judged or not question_ids:
        return JudgedAnswers({m.name: [] for m in judged})

    async def ask_all() -> JudgedAnswers:
        await judge.open(concurrency)
        try:
            return await ask_answers(
                judge,
                judged,
                question_ids,
                questions,
                answers,
                references,
                contexts,
                asyncio.Semaphore(concurrency),
                prompts=prompts,
            )
        finally:
            await judge.aclose()

    return asyncio.run(ask_all())
