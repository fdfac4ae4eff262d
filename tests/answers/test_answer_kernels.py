"""The core's BLEU, ROUGE and tokenizers equal sacrebleu's and rouge-score's to the last bit,
on adversarial text (accents, CJK, emoji, punctuation runs, entities, unusual whitespace), with
several references and empty texts (the WeKnora kernels: ``test_weknora_oracle``)."""

from __future__ import annotations

import sys

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer, tokenize
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

import rankscope
from rankscope import _core

# Pieces that exercise every rule of the tokenizers: 13a's entities, <skipped> and "-\n";
# periods and commas beside digits; dashes after digits; characters whose lower case is ASCII
# (İ, the Kelvin sign); accents, combining marks, CJK, full-width forms, emoji; the
# whitespace Python's str.split() knows (U+001C..U+001F, NBSP, U+3000) and some it does not.
PIECES = [
    "the", "The", "cat", "CATS", "running", "3", ".", ",", "-", "3.14", "1,000", "5-3",
    "x-y", "&amp;", "&lt;", "&gt;", "&quot;", "&amp;lt;", "&", "<skipped>", "-\n", "\n",
    "don't", "U.S.", "...", ",,", "!?", "(", ")", "{", "}", "[", "]", "~", "`", "@", "/",
    "é", "naïve", "e\u0301", "İ", "\u212a", "ß", "Σ", "我爱北京", "天安门", "，", "。",
    "—", "…", "€", "\u2000", "\u2001", "\u2a6d", "\u2a6e", "\u2f81", "ｆｕｌｌ", "😀", "👍🏽",
    " ", "  ", "\t", "\x1c", "\x1f", "\xa0", "\u3000", "\u200b", "\x85",
    # Pieces of entities and of <skipped> that only joined pieces complete.
    "amp;", "lt;", "quot;", "&a", "<", ">", "<skip", "ped>", "--", ".5", ";",
]  # fmt: skip
text = st.lists(st.sampled_from(PIECES), max_size=16).map("".join)
spaced = st.lists(st.sampled_from(PIECES), max_size=16).map(" ".join)
texts = st.one_of(text, spaced)
REFERENCE_TOKENIZERS = {
    "13a": Tokenizer13a(),
    "zh": TokenizerZh(),
    "char": TokenizerChar(),
    "none": NoneTokenizer(),
}


@settings(max_examples=300, deadline=None)
@given(line=texts, tokenizer=st.sampled_from(sorted(REFERENCE_TOKENIZERS)))
def test_sacrebleu_tokenizers(line: str, tokenizer: str) -> None:
    # BLEU strips trailing whitespace before tokenizing (its _preprocess_segment).
    expected = REFERENCE_TOKENIZERS[tokenizer](line.rstrip()).split()
    assert _core.answer_tokens(line, tokenizer) == expected


@settings(max_examples=300, deadline=None)
@given(line=texts)
def test_rouge_tokenizer(line: str) -> None:
    assert _core.answer_tokens(line, "rouge") == tokenize.tokenize(line, None)


def every_character() -> str:
    """Every Unicode scalar value once, between letters."""
    return "a".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


def test_tokenizers_on_every_character() -> None:
    line = every_character()
    assert _core.answer_tokens(line, "rouge") == tokenize.tokenize(line, None)
    assert _core.answer_tokens(line, "zh") == TokenizerZh()(line.rstrip()).split()
    assert _core.answer_tokens(line, "13a") == Tokenizer13a()(line.rstrip()).split()


def reference_values(answer: str, references: list[str]) -> dict[str, float]:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    rouge = scorer.score_multi(references, answer)
    bleu2 = sacrebleu.BLEU(effective_order=True, max_ngram_order=2)
    bleu_zh = sacrebleu.BLEU(effective_order=True, tokenize="zh")
    return {
        "BLEU": sacrebleu.sentence_bleu(answer, references).score / 100.0,
        "BLEU(n=2)": bleu2.sentence_score(answer, references).score / 100.0,
        "BLEU(tokenize=zh)": bleu_zh.sentence_score(answer, references).score / 100.0,
        "ROUGE-1": rouge["rouge1"].fmeasure,
        "ROUGE-2": rouge["rouge2"].fmeasure,
        "ROUGE-L": rouge["rougeL"].fmeasure,
    }


@pytest.mark.filterwarnings("ignore:.*rouge-score's tokenizer finds no token")
@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=6
    )
)
def test_bleu_and_rouge_equal_the_packages_exactly(pairs: list[tuple[str, list[str]]]) -> None:
    references = {f"q{i}": refs for i, (_, refs) in enumerate(pairs)}
    answers = {f"q{i}": answer for i, (answer, _) in enumerate(pairs)}
    measures = ["BLEU", "BLEU(n=2)", "BLEU(tokenize=zh)", "ROUGE-1", "ROUGE-2", "ROUGE-L"]
    per_query = rankscope.evaluate_answers(references, answers, measures).to_dict()
    for q, answer in answers.items():
        assert per_query[q] == reference_values(answer, references[q])


@pytest.mark.parametrize(
    ("answer", "references"),
    [
        ("", [""]),
        ("", ["a reference"]),
        ("an answer", [""]),
        ("an answer", ["", "an answer too"]),
        ("   ", ["\n"]),
        ("a b c d e", ["a b c d e"]),  # sacrebleu's 100.00000000000004
        ("a b", ["a b c", "a", "b a b a"]),  # the closest reference length, a tie
        ("Paris.", ["Paris is the capital of France", "Paris"]),
    ],
)
def test_edge_cases_equal_the_packages(answer: str, references: list[str]) -> None:
    measures = ["BLEU", "BLEU(n=2)", "BLEU(tokenize=zh)", "ROUGE-1", "ROUGE-2", "ROUGE-L"]
    per_query = rankscope.evaluate_answers({"q": references}, {"q": answer}, measures)
    assert per_query.to_dict()["q"] == reference_values(answer, references)


def test_a_large_batch_is_scored_on_every_thread_alike() -> None:
    # Above the core's parallel threshold: the same values, in the same order.
    pairs = {f"q{i:05d}": (f"the cat {i} sat", f"a cat {i % 7} sat on it") for i in range(3000)}
    results = rankscope.evaluate_answers(
        {q: r for q, (_, r) in pairs.items()},
        {q: a for q, (a, _) in pairs.items()},
        ["BLEU", "ROUGE-L"],
    ).to_dict()
    for q in ("q00000", "q01234", "q02999"):
        answer, reference = pairs[q]
        expected = reference_values(answer, [reference])
        assert results[q] == {"BLEU": expected["BLEU"], "ROUGE-L": expected["ROUGE-L"]}


def test_unknown_tokenizer_and_kernel_are_refused() -> None:
    with pytest.raises(rankscope.errors.MeasureError, match="no tokenizer has that name"):
        _core.answer_tokens("a", "mecab")
    with pytest.raises(rankscope.errors.MeasureError, match="order must be 1 to 4"):
        _core.score_answers(["a"], [["a"]], [("BLEU", 5, "13a")])
    with pytest.raises(rankscope.errors.InputError, match="1 answers but 2 lists"):
        _core.score_answers(["a"], [["a"], ["b"]], [("BLEU", 4, "13a")])
    with pytest.raises(rankscope.errors.MeasureError, match=r"ROUGE-1 \.\.\. ROUGE-5"):
        _core.score_weknora_answers([["a"]], [["a"]], [("ROUGE-6", [], "f")])
    with pytest.raises(rankscope.errors.MeasureError, match="1 to 4 weights"):
        _core.score_weknora_answers([["a"]], [["a"]], [("BLEU", [0.2] * 5, "smoothed")])
