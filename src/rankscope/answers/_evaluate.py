"""`evaluate_answers`: generated answers against reference answers, per question and in mean."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from rankscope.answers._judged import JUDGED_FAMILIES, judge_answers, needs_reference
from rankscope.answers._read import PathLike, read_texts
from rankscope.answers._scorers import (
    DEFAULT_MEASURES,
    check_answer_measures,
    check_answer_profile,
    rouge_has_no_tokens,
    score_columns,
)
from rankscope.engine.measures import Measure, parse_measures
from rankscope.engine.results import Results
from rankscope.errors import InputError, OptionError, RankscopeWarning
from rankscope.io import read_queries
from rankscope.io.tables import QUERY_ID

if TYPE_CHECKING:
    from rankscope.judge import Judge

__all__ = ["evaluate_answers"]


def _listing(question_ids: list[str]) -> str:
    return ", ".join(question_ids[:5]) + ("..." if len(question_ids) > 5 else "")


def _judged_columns(
    wanted: Sequence[Measure],
    question_ids: list[str],
    pairs: list[tuple[str, list[str]]],
    references: Mapping[str, list[str]],
    judge: Judge | None,
    questions: Mapping[Any, str] | PathLike | None,
    contexts: Mapping[Any, Sequence[str]] | None,
    concurrency: int,
) -> dict[str, list[float]]:
    """The values of the judged measures among ``wanted``, per question (a warning counts
    the askings that failed)."""
    judged = [m for m in wanted if m.family in JUDGED_FAMILIES]
    if not judged:
        return {}
    if judge is None:
        raise OptionError(f"{judged[0].name} is graded by a judge: pass judge=")
    if questions is None:
        raise OptionError(f"{judged[0].name} needs the questions' texts: pass questions=")
    if isinstance(questions, Mapping):
        texts = {str(key): value for key, value in questions.items()}
    else:
        texts = read_queries(questions, ids=set(question_ids))
    found = judge_answers(
        judge,
        judged,
        question_ids,
        texts,
        {q: answer for q, (answer, _) in zip(question_ids, pairs, strict=True)},
        references,
        None if contexts is None else {str(k): list(v) for k, v in contexts.items()},
        concurrency=concurrency,
    )
    if found.failures:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(found.failures.items()))
        warnings.warn(
            f"{sum(found.failures.values())} of {found.askings} judge askings gave no grade "
            f"({kinds}); each question's share is its stat=failed value, and a question "
            "without any grade has none (NaN)",
            RankscopeWarning,
            stacklevel=3,
        )
    return found.values


def evaluate_answers(
    references: Mapping[Any, Any] | PathLike,
    answers: Mapping[Any, Any] | PathLike,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    profile: str = "standard",
    complete: bool = False,
    *,
    judge: Judge | None = None,
    questions: Mapping[Any, str] | PathLike | None = None,
    contexts: Mapping[Any, Sequence[str]] | None = None,
    concurrency: int = 4,
) -> Results:
    """Score generated answers against reference answers, question by question.

    Parameters
    ----------
    references
        Reference answers: ``{question_id: text}`` (or a list of texts: the best match
        counts), a JSONL, CSV, TSV or Parquet file, or a WeKnora dataset directory
        (``answers.parquet`` and ``qas.parquet``).
    answers
        Generated answers, ``{question_id: text}`` or a file in the same formats.
    measures
        Answer measures: ``BLEU``, ``BLEU(n=2)``, ``ROUGE-1``, ``ROUGE-2``, ``ROUGE-L``
        (``ROUGE-L(stem=True)`` with Porter stemming), ``ExactMatch``, ``TokenF1``. None:
        the profile's defaults (`DEFAULT_MEASURES`).
    profile
        ``"standard"``: sacrebleu's sentence BLEU (0-1), rouge-score's F-measures, SQuAD's
        exact match and token F1. ``"weknora"``: WeKnora's BLEU-n and ROUGE, quirks and all
        (see `rankscope.metric.generation_metrics`).
    complete
        Score questions that have a reference but no answer as an empty answer, and include
        them in the means; otherwise they are left out (listed in ``missing_queries``).
    judge
        For the judged measures (``Faithfulness``, ``AnswerRelevance``,
        ``ReferenceAgreement``, each with ``repeats=N`` and ``stat=mean|sd|failed``; see
        `rankscope.answers._judged`): a judge that answers prompts
        (`rankscope.judge.ChatJudge`, `PromptJudge`), ``concurrency`` askings at once. Failed
        askings are counted in a warning and in each question's ``stat=failed`` value.
    questions
        The questions' texts (``{question_id: text}`` or a file `rankscope.io.read_queries`
        reads), for the judged measures.
    contexts
        ``{question_id: [passage, ...]}``: the passages each answer was written from, for
        ``Faithfulness``.

    Returns
    -------
    Results
        As `rankscope.evaluate` returns: ``per_query``, ``mean()``, frames, and
        `rankscope.compare.compare` works on it. Answers to questions without a reference are
        ignored, with a warning, unless a judged measure that needs none (``Faithfulness``,
        ``AnswerRelevance``) is asked for: then they are evaluated, and the measures that
        need a reference (the others) have no value of them (NaN), named in a warning.
        Each measure's ``mean()`` is over the questions with a value of it (NaN in
        ``per_query``: no reference, or no grade from the judge).

    Examples
    --------
    >>> import rankscope
    >>> references = {"q1": "The cat sat on the mat.", "q2": "Paris"}
    >>> answers = {"q1": "the cat sat on a mat", "q2": "It is Paris."}
    >>> results = rankscope.evaluate_answers(references, answers, ["ROUGE-L", "ExactMatch"])
    >>> results.to_dict()["q1"]  # SQuAD's normalization drops the articles and the period
    {'ROUGE-L': 0.8333333333333334, 'ExactMatch': 1.0}
    >>> results.mean()
    {'ROUGE-L': 0.6666666666666667, 'ExactMatch': 0.5}
    """
    if not isinstance(complete, bool):
        raise OptionError(f"complete must be True or False; got {complete!r}")
    check_answer_profile(profile)
    wanted = parse_measures(DEFAULT_MEASURES[profile] if measures is None else measures)
    check_answer_measures(wanted, profile)
    reference_texts, references_name = read_texts(references, several=True, what="references")
    answer_texts, answers_name = read_texts(answers, several=False, what="answers")
    if profile == "weknora":
        several = sorted(q for q, texts in reference_texts.items() if len(texts) > 1)
        if several:
            raise InputError(
                f"WeKnora scores one reference answer per question; question {several[0]!r} "
                f"has {len(reference_texts[several[0]])} in {references_name}"
            )
    unreferenced = sorted(set(answer_texts) - set(reference_texts))
    missing = sorted(set(reference_texts) - set(answer_texts))
    # A judged measure that needs no reference answer judges every answer: the answers
    # without one are evaluated too, and the measures that need one have no value of them.
    free = [m for m in wanted if not needs_reference(m)]
    skipping = [m for m in wanted if needs_reference(m)]
    unjudged = [] if free else unreferenced
    if len(unreferenced) == len(answer_texts) and not complete and not free:
        raise InputError(
            f"no answered question ({answers_name}) has a reference answer ({references_name}): "
            f"{len(answer_texts)} answers, {len(reference_texts)} references, none in common; "
            "check that the question ids match"
        )
    question_ids = sorted(
        set(reference_texts) & set(answer_texts)
        | (set(missing) if complete else set())
        | (set(unreferenced) if free else set())
    )
    pairs = [(answer_texts.get(q, [""])[0], reference_texts.get(q, [])) for q in question_ids]
    referenced = [row for row, q in enumerate(question_ids) if q in reference_texts]
    computed = [m for m in wanted if m.family not in JUDGED_FAMILIES]
    scored = score_columns(computed, profile, [pairs[row] for row in referenced])
    columns: dict[str, list[float]] = {}
    for m, values in zip(computed, scored, strict=True):
        column = [math.nan] * len(question_ids)
        for row, value in zip(referenced, values, strict=True):
            column[row] = value
        columns[m.name] = column
    columns.update(
        _judged_columns(
            wanted, question_ids, pairs, reference_texts, judge, questions, contexts, concurrency
        )
    )
    per_query = pl.DataFrame(
        {QUERY_ID: question_ids, **{m.name: columns[m.name] for m in wanted}},
        schema={QUERY_ID: pl.String, **{m.name: pl.Float64 for m in wanted}},
    ).sort(QUERY_ID)
    if unreferenced and not free:
        warnings.warn(
            f"{len(unreferenced)} answers of {answers_name!r} have no reference answer and were "
            f"ignored: {_listing(unreferenced)}",
            RankscopeWarning,
            stacklevel=2,
        )
    elif unreferenced and skipping:
        warnings.warn(
            f"{len(unreferenced)} answers of {answers_name!r} have no reference answer: "
            f"{', '.join(m.name for m in skipping)} need one and have no value of them (NaN), "
            f"{', '.join(m.name for m in free)} judged them: {_listing(unreferenced)}",
            RankscopeWarning,
            stacklevel=2,
        )
    if profile == "standard" and any(m.family.startswith("ROUGE") for m in wanted):
        unseen = [
            q
            for q, (answer, texts) in zip(question_ids, pairs, strict=True)
            if texts and any(rouge_has_no_tokens(text) for text in (answer, *texts))
        ]
        if unseen:
            warnings.warn(
                f"{len(unseen)} questions have an answer or a reference in which rouge-score's "
                "tokenizer finds no token (it keeps ASCII letters and digits only: Chinese text, "
                f"for one, scores 0): {_listing(unseen)}; profile='weknora' segments Chinese "
                "text",
                RankscopeWarning,
                stacklevel=2,
            )
    return Results(
        measures=tuple(wanted),
        per_query=per_query,
        profile=profile,
        run_name=answers_name,
        unjudged_queries=tuple(unjudged),
        missing_queries=tuple(missing),
        complete=complete,
    )
