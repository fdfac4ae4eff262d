"""The standard answer measures agree with sacrebleu, rouge-score and SQuAD's definitions."""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

import rankscope
from rankscope.answers import exact_match, token_f1
from rankscope.errors import MeasureError, ProfileError, RankscopeWarning

# Generated answers: words with case, punctuation, inflections (for the stemmer), numbers.
WORDS = [
    "The", "the", "cat", "cats", "sat", "sitting", "on", "a", "mat", "mats", "Paris",
    "is", "capital", "of", "France", "running", "runs", "42", "3.14", "don't", "U.S.",
    "well-known", ",", ".", "!", "?", "(", ")", "é", "naïve", "ROUGE",
]  # fmt: skip
text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)
pairs = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(8)]), st.tuples(text, text), min_size=1
)


def rouge_f(kind: str, stem: bool, answer: str, reference: str) -> float:
    scores = rouge_scorer.RougeScorer([kind], use_stemmer=stem).score(reference, answer)
    return float(scores[kind].fmeasure)


@pytest.mark.filterwarnings("ignore:.*rouge-score's tokenizer finds no token")
@settings(max_examples=40, deadline=None)
@given(pairs=pairs)
def test_bleu_and_rouge_agree_with_the_reference_packages(
    pairs: dict[str, tuple[str, str]],
) -> None:
    references = {q: reference for q, (_, reference) in pairs.items()}
    answers = {q: answer for q, (answer, _) in pairs.items()}
    measures = [
        "BLEU",
        "BLEU(n=2)",
        "ROUGE-1",
        "ROUGE-2(stem=True)",
        "ROUGE-L",
        "rougeL(stem=True)",
    ]
    per_query = rankscope.evaluate_answers(references, answers, measures).to_dict()
    assert sorted(per_query) == sorted(pairs)
    bleu2 = sacrebleu.BLEU(effective_order=True, max_ngram_order=2)
    for q, (answer, reference) in pairs.items():
        expected = {
            "BLEU": sacrebleu.sentence_bleu(answer, [reference]).score / 100,
            "BLEU(n=2)": bleu2.sentence_score(answer, [reference]).score / 100,
            "ROUGE-1": rouge_f("rouge1", False, answer, reference),
            "ROUGE-2(stem=True)": rouge_f("rouge2", True, answer, reference),
            "ROUGE-L": rouge_f("rougeL", False, answer, reference),
            "ROUGE-L(stem=True)": rouge_f("rougeL", True, answer, reference),
        }
        assert per_query[q] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_stemming_changes_rouge() -> None:
    references, answers = {"q": "the cats were running"}, {"q": "the cat was running"}
    results = rankscope.evaluate_answers(references, answers, ["ROUGE-1", "ROUGE-1(stem=True)"])
    plain, stemmed = results.mean()["ROUGE-1"], results.mean()["ROUGE-1(stem=True)"]
    assert plain == pytest.approx(rouge_f("rouge1", False, answers["q"], references["q"]))
    assert stemmed > plain


def test_several_references_take_the_best() -> None:
    references = {"q": ["Paris is the capital of France", "Paris"]}
    results = rankscope.evaluate_answers(
        references, {"q": "Paris."}, ["BLEU", "ROUGE-L", "ExactMatch", "TokenF1"]
    )
    scores = results.to_dict()["q"]
    assert scores["BLEU"] == pytest.approx(
        sacrebleu.sentence_bleu("Paris.", references["q"]).score / 100
    )
    assert scores["ROUGE-L"] == pytest.approx(1.0)
    assert scores["ExactMatch"] == 1.0
    assert scores["TokenF1"] == 1.0


# SQuAD's evaluation script (v2.0's, whose normalization is v1.1's), as its reference.


def squad_normalize(s: str) -> str:
    s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def squad_f1(gold: str, prediction: str) -> float:
    gold_tokens, prediction_tokens = (
        squad_normalize(gold).split(),
        squad_normalize(prediction).split(),
    )
    if not gold_tokens or not prediction_tokens:
        return float(gold_tokens == prediction_tokens)
    same = sum((Counter(gold_tokens) & Counter(prediction_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(prediction_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


@settings(max_examples=200, deadline=None)
@given(answer=text, reference=text)
def test_exact_match_and_token_f1_follow_squad(answer: str, reference: str) -> None:
    assert exact_match(answer, [reference]) == float(
        squad_normalize(answer) == squad_normalize(reference)
    )
    assert token_f1(answer, [reference]) == pytest.approx(squad_f1(reference, answer))


@pytest.mark.parametrize(
    ("answer", "reference", "em", "f1"),
    [
        ("The Eiffel Tower", "eiffel tower!", 1.0, 1.0),
        ("an apple, a pear", "apple pear", 1.0, 1.0),
        ("in 1889", "1889", 0.0, 2 * (1 / 2 * 1) / (1 / 2 + 1)),
        ("red red red", "red", 0.0, 2 * (1 / 3 * 1) / (1 / 3 + 1)),  # counts are clipped
        ("", "", 1.0, 1.0),
        ("the", "", 1.0, 1.0),  # only an article: empty once normalized
        ("something", "", 0.0, 0.0),
    ],
)
def test_squad_cases(answer: str, reference: str, em: float, f1: float) -> None:
    assert exact_match(answer, [reference]) == em
    assert token_f1(answer, [reference]) == pytest.approx(f1)


@pytest.mark.parametrize(
    ("measures", "profile", "error", "message"),
    [
        (["nDCG@10"], "standard", MeasureError, "nDCG@10 scores rankings, not answers"),
        (["BLEU@4"], "standard", MeasureError, "measure BLEU takes no cutoff"),
        (["BLEU(n=5)"], "standard", MeasureError, "parameter n of BLEU must be one of 1, 2"),
        (["ROUGE-1(stem=yes)"], "standard", MeasureError, "must be one of True, False"),
        (["ROUGE-3"], "standard", MeasureError, "unknown measure 'ROUGE-3'"),
        (["ExactMatch"], "weknora", ProfileError, "ExactMatch is not defined by the weknora"),
        (["ROUGE-L(stem=True)"], "weknora", ProfileError, "not defined by the weknora"),
        (["BLEU(tokenize=zh)"], "weknora", ProfileError, "not defined by the weknora"),
        (["BLEU(tokenize=mecab)"], "standard", MeasureError, "must be one of 13a, zh"),
        (["BLEU"], "trec", ProfileError, "unknown answer profile 'trec'"),
        (None, "trec", ProfileError, "unknown answer profile 'trec'"),
    ],
)
def test_bad_measures_and_profiles(
    measures: list[str] | None, profile: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        rankscope.evaluate_answers({"q": "a"}, {"q": "a"}, measures, profile=profile)


def test_evaluate_refuses_answer_measures() -> None:
    with pytest.raises(MeasureError, match=r"use rankscope\.evaluate_answers"):
        rankscope.evaluate({"q": {"d": 1}}, {"q": ["d"]}, ["nDCG@10", "ROUGE-L"])


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("ROUGE-L", "ROUGE-L"),
        ("rougeL", "ROUGE-L"),
        ("rouge1", "ROUGE-1"),
        ("ROUGE-2(stem=True)", "ROUGE-2(stem=True)"),
        ("bleu", "BLEU"),
        ("BLEU(n=2)", "BLEU(n=2)"),
        ("BLEU(tokenize=zh,n=2)", "BLEU(n=2,tokenize=zh)"),
        ("EM", "ExactMatch"),
        ("exact_match", "ExactMatch"),
        ("token_f1", "TokenF1"),
        ("r-prec", "Rprec"),  # whole-name aliases with a hyphen now parse too
    ],
)
def test_answer_measure_names(name: str, canonical: str) -> None:
    parsed = rankscope.measure(name)
    assert parsed.name == canonical
    assert rankscope.measure(parsed.name) == parsed


@settings(max_examples=25, deadline=None)
@given(pairs=pairs, n=st.sampled_from(["1", "4"]), tokenize=st.sampled_from(["zh", "intl", "char"]))
def test_bleu_tokenizers_agree_with_sacrebleu(
    pairs: dict[str, tuple[str, str]], n: str, tokenize: str
) -> None:
    name = f"BLEU(n={n},tokenize={tokenize})"
    per_query = rankscope.evaluate_answers(
        {q: reference for q, (_, reference) in pairs.items()},
        {q: answer for q, (answer, _) in pairs.items()},
        name,
    ).to_dict()
    bleu = sacrebleu.BLEU(effective_order=True, max_ngram_order=int(n), tokenize=tokenize)
    for q, (answer, reference) in pairs.items():
        expected = bleu.sentence_score(answer, [reference]).score / 100
        assert per_query[q][name] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_chinese_text_needs_the_zh_tokenizer_and_warns_for_rouge() -> None:
    references, answers = {"q": "我爱北京天安门"}, {"q": "我爱北京"}
    with pytest.warns(RankscopeWarning, match="rouge-score's tokenizer finds no token"):
        results = rankscope.evaluate_answers(
            references, answers, ["BLEU", "BLEU(tokenize=zh)", "ROUGE-L"]
        )
    means = results.mean()
    assert means["BLEU"] == 0.0  # 13a: one token each, and they differ
    assert means["BLEU(tokenize=zh)"] == pytest.approx(
        sacrebleu.BLEU(tokenize="zh", effective_order=True)
        .sentence_score("我爱北京", ["我爱北京天安门"])
        .score
        / 100
    )
    assert means["BLEU(tokenize=zh)"] > 0.3
    assert means["ROUGE-L"] == 0.0
