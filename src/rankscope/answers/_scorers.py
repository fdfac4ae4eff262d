"""One scorer per answer measure and profile: ``(answer, references) -> value``.

Profile ``standard`` (the default) computes what the reference packages compute:

* ``BLEU`` is sacrebleu's sentence BLEU (``sacrebleu.sentence_bleu``: 13a tokenizer, ``exp``
  smoothing, effective order) divided by 100; ``BLEU(n=2)`` stops at bigrams;
  ``BLEU(tokenize=zh)`` uses sacrebleu's Chinese tokenizer (13a leaves a run of Han characters
  one token).
* ``ROUGE-1``, ``ROUGE-2``, ``ROUGE-L`` are rouge-score's F-measures (``RougeScorer``, its
  tokenizer lower-cases and keeps ASCII letters and digits only, so Chinese text has no
  tokens and scores 0: `evaluate_answers` warns; ``stem=True`` adds its Porter stemmer). With
  several references, the best F-measure (``score_multi``).
* ``ExactMatch`` and ``TokenF1`` are SQuAD's: both texts lower-cased, punctuation and the
  articles a, an, the removed, whitespace collapsed; F1 over the multisets of the remaining
  tokens; the best over the references. As in SQuAD 2.0's script, an empty answer to an empty
  reference scores 1 (SQuAD 1.1's gives F1 = 0 there).

Profile ``weknora`` computes WeKnora's BLEU-n and ROUGE-1/2/L (see `rankscope.answers._weknora`)
against a single reference.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from rankscope.answers._judged import JUDGED_FAMILIES
from rankscope.answers._weknora import BLEU_WEIGHTS, weknora_bleu, weknora_rouge
from rankscope.engine.measures import FAMILIES, Measure, default_measures
from rankscope.errors import MeasureError, MissingDependencyError, ProfileError

__all__ = [
    "ANSWER_PROFILES",
    "DEFAULT_MEASURES",
    "Scorer",
    "check_answer_measures",
    "check_answer_profile",
    "exact_match",
    "rouge_has_no_tokens",
    "scorers",
    "token_f1",
]

Scorer = Callable[[str, Sequence[str]], float]
"""``scorer(answer, references)``: the value of one measure for one question."""

ANSWER_PROFILES = ("standard", "weknora")

DEFAULT_MEASURES: dict[str, tuple[str, ...]] = {
    profile: default_measures(profile, "answer") for profile in ANSWER_PROFILES
}
"""What `evaluate_answers` computes when no measure is named, by profile (the registry's):
WeKnora's six for ``weknora``."""

_ROUGE_TYPES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeL"}
_WEKNORA_ROUGE = {"ROUGE-1": "rouge-1", "ROUGE-2": "rouge-2", "ROUGE-L": "rouge-l"}

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ROUGE_TOKEN = re.compile(r"[a-z0-9]")  # what rouge-score's tokenizer keeps, after lower()
_PUNCTUATION = frozenset(string.punctuation)


def _normalize(text: str) -> str:
    """SQuAD's ``normalize_answer``."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(answer: str, references: Sequence[str]) -> float:
    """1.0 if the answer equals a reference after SQuAD's normalization.

    Examples
    --------
    >>> exact_match("The Eiffel Tower!", ["eiffel tower"])
    1.0
    >>> exact_match("Eiffel", ["eiffel tower"])
    0.0
    """
    normalized = _normalize(answer)
    return float(any(normalized == _normalize(reference) for reference in references))


def _f1(answer_tokens: list[str], reference_tokens: list[str]) -> float:
    if not answer_tokens or not reference_tokens:
        return float(answer_tokens == reference_tokens)
    same = sum((Counter(answer_tokens) & Counter(reference_tokens)).values())
    if same == 0:
        return 0.0
    precision = same / len(answer_tokens)
    recall = same / len(reference_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(answer: str, references: Sequence[str]) -> float:
    """SQuAD's token F1, the best over the references.

    Examples
    --------
    >>> token_f1("the big red ball", ["a red ball"])
    0.8
    >>> token_f1("", [""])
    1.0
    """
    tokens = _normalize(answer).split()
    return max((_f1(tokens, _normalize(r).split()) for r in references), default=0.0)


def rouge_has_no_tokens(text: str) -> bool:
    """Whether rouge-score's tokenizer finds no token in a text that is not blank.

    Examples
    --------
    >>> [rouge_has_no_tokens(text) for text in ("计算机的操作系统", "Linux 系统", "")]
    [True, False, False]
    """
    return bool(text.strip()) and _ROUGE_TOKEN.search(text.lower()) is None


def _sacrebleu(m: Measure) -> Scorer:
    try:
        from sacrebleu.metrics.bleu import BLEU
    except ImportError:
        raise MissingDependencyError("sacrebleu", "BLEU", "answers") from None
    bleu = BLEU(
        effective_order=True,
        max_ngram_order=int(m.param("n") or 4),
        tokenize=m.param("tokenize") or "13a",
    )

    def score(answer: str, references: Sequence[str]) -> float:
        return float(bleu.sentence_score(answer, list(references)).score) / 100.0

    return score


class _Rouge:
    """rouge-score's three F-measures of one pair, computed together and kept for the next ask
    (ROUGE-1, -2 and -L of a question then tokenize and stem its texts once)."""

    def __init__(self, stem: bool) -> None:
        try:
            from rouge_score.rouge_scorer import RougeScorer
        except ImportError:
            raise MissingDependencyError("rouge-score", "ROUGE", "answers") from None
        self._scorer: Any = RougeScorer(list(_ROUGE_TYPES.values()), use_stemmer=stem)
        self._last: tuple[str, tuple[str, ...], Any] | None = None

    def measure(self, family: str) -> Scorer:
        kind = _ROUGE_TYPES[family]

        def score(answer: str, references: Sequence[str]) -> float:
            pair = (answer, tuple(references))
            if self._last is None or self._last[:2] != pair:
                self._last = (*pair, self._scorer.score_multi(list(references), answer))
            return float(self._last[2][kind].fmeasure)

        return score


def _weknora(m: Measure) -> Scorer:
    if m.family == "BLEU":
        weights = BLEU_WEIGHTS[int(m.param("n") or 4)]
        return lambda answer, references: weknora_bleu(answer, references[0], weights)
    variant = _WEKNORA_ROUGE[m.family]
    return lambda answer, references: weknora_rouge(answer, references[0], variant)


def check_answer_profile(profile: str) -> None:
    """Refuse a profile that answer measures do not have."""
    if profile not in ANSWER_PROFILES:
        raise ProfileError(
            f"unknown answer profile {profile!r}; expected one of {', '.join(ANSWER_PROFILES)}"
        )


def check_answer_measures(measures: Sequence[Measure], profile: str) -> None:
    """Refuse ranking measures, unknown profiles, and what the profile does not define."""
    check_answer_profile(profile)
    for m in measures:
        family = FAMILIES[m.family]
        if family.kind != "answer":
            raise MeasureError(
                f"{m.name} scores rankings, not answers; use rankscope.evaluate "
                "(answer measures: "
                + ", ".join(f.name for f in FAMILIES.values() if f.kind == "answer")
                + ")"
            )
        standard_only = m.param("stem") == "True" or m.param("tokenize") is not None
        if profile == "weknora" and (not family.weknora or standard_only):
            raise ProfileError(
                f"{m.name} is not defined by the weknora profile (it defines BLEU(n=1..4), "
                "ROUGE-1, ROUGE-2 and ROUGE-L, with WeKnora's own words: no stemming, no "
                "tokenizer choice); use profile='standard'"
            )


def scorers(measures: Sequence[Measure], profile: str) -> list[Scorer]:
    """The scorer of each answer measure under ``profile`` (checked by `check_answer_measures`);
    ask them question by question: the ROUGE measures share their work on each question."""
    rouge: dict[bool, _Rouge] = {}
    built: list[Scorer] = []
    for m in measures:
        if m.family in JUDGED_FAMILIES:
            raise MeasureError(
                f"{m.name} is graded by a judge, not computed from the texts: "
                "rankscope.evaluate_answers(..., judge=...) scores it"
            )
        if profile == "weknora":
            built.append(_weknora(m))
        elif m.family == "BLEU":
            built.append(_sacrebleu(m))
        elif m.family in _ROUGE_TYPES:
            stem = m.param("stem") == "True"
            built.append(rouge.setdefault(stem, _Rouge(stem)).measure(m.family))
        else:
            built.append(exact_match if m.family == "ExactMatch" else token_f1)
    return built
