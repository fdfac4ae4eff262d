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

BLEU and ROUGE are computed by the core (``rankscope_core::answers``), batch-wise, with the
same values as the packages to the last bit. Where the tokens come from: sacrebleu's ``13a``,
``zh``, ``char`` and ``none`` tokenizers and rouge-score's run in the core; here, before the
core, run nltk's Porter stemmer (``stem=True``, memoized per word), sacrebleu's ``intl``
tokenizer and WeKnora's sentence and word split (jieba), their tokens handed over joined by
spaces. ExactMatch and TokenF1 are computed here.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

from rankscope.answers._judged import JUDGED_FAMILIES
from rankscope.answers._weknora import BLEU_WEIGHTS, bleu_spec, rouge_spec, weknora_columns
from rankscope.engine import native
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
    "score_columns",
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


_ARTICLES = re.compile(r"\b(a|an|the)\b")
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
    return bool(text.strip()) and not native.answer_tokens(text, "rouge")


_BLEU_CORE_TOKENIZERS = ("13a", "zh", "char", "none")
"""sacrebleu's tokenizers the core runs; ``intl`` (Unicode classes of the ``regex`` package) stays
sacrebleu's own, its tokens handed to the core."""

_ROUGE_CORE = {"ROUGE-1": ("ROUGE-N", 1), "ROUGE-2": ("ROUGE-N", 2), "ROUGE-L": ("ROUGE-L", 1)}
_VALID_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


@cache
def _intl() -> Callable[[str], str]:
    try:
        from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
    except ImportError:
        raise MissingDependencyError("sacrebleu", "BLEU(tokenize=intl)", "answers") from None
    tokenizer = TokenizerV14International()  # type: ignore[no-untyped-call]
    return lambda text: str(tokenizer(text.rstrip()))


@cache
def _stem() -> Callable[[str], str]:
    """nltk's Porter stemmer as rouge-score configures it, memoized per word."""
    try:
        from nltk.stem import porter  # type: ignore[import-untyped]
    except ImportError:
        raise MissingDependencyError("nltk", "ROUGE(stem=True)", "answers") from None
    return lru_cache(maxsize=1 << 16)(porter.PorterStemmer().stem)


def _stemmed(text: str) -> str:
    """rouge-score's tokens of ``text`` with ``use_stemmer=True`` (words of more than three
    letters stemmed), joined by spaces for the core's ``none`` tokenizer."""
    stem = _stem()
    tokens = (stem(t) if len(t) > 3 else t for t in native.answer_tokens(text, "rouge"))
    return " ".join(t for t in tokens if _VALID_ROUGE_TOKEN.fullmatch(t))


def _core_measure(m: Measure) -> tuple[str | None, tuple[str, int, str]]:
    """How the core computes ``m``: the text preparation done here first (None, ``intl`` or
    ``stem``) and the core's ``(kind, n, tokenizer)``."""
    if m.family == "BLEU":
        tokenize = m.param("tokenize") or "13a"
        n = int(m.param("n") or 4)
        if tokenize in _BLEU_CORE_TOKENIZERS:
            return None, ("BLEU", n, tokenize)
        return tokenize, ("BLEU", n, "none")
    kind, n = _ROUGE_CORE[m.family]
    if m.param("stem") == "True":
        return "stem", (kind, n, "none")
    return None, (kind, n, "rouge")


_PREPARE: dict[str, Callable[[], Callable[[str], str]]] = {
    "intl": _intl,
    "stem": lambda: _stemmed,
}


def _standard_columns(
    measures: Sequence[Measure], pairs: Sequence[tuple[str, Sequence[str]]]
) -> dict[Measure, list[float]]:
    """BLEU and ROUGE by the core, one call per text preparation the measures need."""
    groups: dict[str | None, list[tuple[Measure, tuple[str, int, str]]]] = {}
    for m in measures:
        prepare, spec = _core_measure(m)
        groups.setdefault(prepare, []).append((m, spec))
    found: dict[Measure, list[float]] = {}
    for prepare, group in groups.items():
        answers = [answer for answer, _ in pairs]
        references = [list(texts) for _, texts in pairs]
        if prepare is not None:
            text = _PREPARE[prepare]()
            answers = [text(answer) for answer in answers]
            references = [[text(r) for r in texts] for texts in references]
        columns = native.score_answers(answers, references, [spec for _, spec in group])
        found.update(zip((m for m, _ in group), columns, strict=True))
    return found


def _weknora_columns(
    measures: Sequence[Measure], pairs: Sequence[tuple[str, Sequence[str]]]
) -> dict[Measure, list[float]]:
    """WeKnora's BLEU and ROUGE by the core, against each question's first reference."""
    specs = [
        bleu_spec(BLEU_WEIGHTS[int(m.param("n") or 4)])
        if m.family == "BLEU"
        else rouge_spec(m.family)
        for m in measures
    ]
    columns = weknora_columns([(answer, texts[0]) for answer, texts in pairs], specs)
    return dict(zip(measures, columns, strict=True))


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


def score_columns(
    measures: Sequence[Measure], profile: str, pairs: Sequence[tuple[str, Sequence[str]]]
) -> list[list[float]]:
    """The values of each answer measure under ``profile`` (checked by
    `check_answer_measures`) for each ``(answer, references)`` pair: BLEU and ROUGE computed by
    the core, batch-wise, ExactMatch and TokenF1 here."""
    for m in measures:
        if m.family in JUDGED_FAMILIES:
            raise MeasureError(
                f"{m.name} is graded by a judge, not computed from the texts: "
                "rankscope.evaluate_answers(..., judge=...) scores it"
            )
    squad: dict[str, Scorer] = {"ExactMatch": exact_match, "TokenF1": token_f1}
    kernels = [m for m in measures if m.family not in squad]
    found = (_weknora_columns if profile == "weknora" else _standard_columns)(kernels, pairs)
    return [
        found[m] if m in found else [squad[m.family](a, texts) for a, texts in pairs]
        for m in measures
    ]
