"""WeKnora's generation metrics: the behaviours its code shows, and cases worked by hand from it.

Every expected value below is derived by hand from WeKnora's Go code
(``internal/application/service/metric``: ``common.go`` splits sentences and words, ``bleu.go``
with ``NewBLEUMetric(true, weights)``, ``rouge.go`` and ``rouge_score.go`` with
``NewRougeMetric(true, "rouge-N", "f")``), written as the formula it evaluates.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.answers._weknora import split_sentences, split_words
from rankscope.errors import OptionError
from rankscope.metric import (
    BLEU1_GRAM,
    BLEU3_GRAM,
    BLEU4_GRAM,
    BLEUMetric,
    GenerationMetrics,
    MetricInput,
    RougeMetric,
    generation_metrics,
)

EPSILON = 1e-8  # in WeKnora's F: 2 * p * r / (p + r + 1e-8)


def f_measure(p: float, r: float) -> float:
    return 2.0 * ((p * r) / (p + r + EPSILON))


ONE = f_measure(1.0, 1.0)  # 0.999999995: what identical texts get from ROUGE


def metrics(answer: str, reference: str) -> GenerationMetrics:
    return generation_metrics(MetricInput(generated_texts=answer, generated_gt=reference))


def assert_metrics(actual: GenerationMetrics, **expected: float) -> None:
    assert actual.as_dict() == pytest.approx(expected, rel=1e-12, abs=1e-15)


# The facts the issue lists, from running WeKnora's code.


@pytest.mark.parametrize(
    "text",
    ["The cat sat on the mat", "第一句话很长。第二句话。第三句", "Mixed 中文 and English, too!"],
)
def test_identical_texts_score_one_everywhere(text: str) -> None:
    assert_metrics(
        metrics(text, text), bleu1=1, bleu2=1, bleu4=1, rouge1=ONE, rouge2=ONE, rougel=ONE
    )


def test_letter_case_counts_for_rouge_only() -> None:
    assert_metrics(
        metrics("The Quick Brown Fox", "the quick brown fox"),
        bleu1=1,
        bleu2=1,
        bleu4=1,
        rouge1=0,
        rouge2=0,
        rougel=0,
    )


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ("First part. Second part. Third part.", "First part. Other words entirely. Third part."),
        ("今天很好。我们去公园。明天下雨", "今天很好。他们在家里。明天下雨"),
        # A decimal point ends a sentence too: "14 today" is the dropped second piece.
        ("Pi is 3.14 today", "Pi is 3.99 tomorrow"),
    ],
)
def test_the_splitter_drops_every_second_sentence(answer: str, reference: str) -> None:
    assert_metrics(
        metrics(answer, reference), bleu1=1, bleu2=1, bleu4=1, rouge1=ONE, rouge2=ONE, rougel=ONE
    )


@pytest.mark.parametrize("reference", ["Some reference answer.", "", "参考答案"])
def test_an_empty_answer_scores_zero(reference: str) -> None:
    assert_metrics(metrics("", reference), bleu1=0, bleu2=0, bleu4=0, rouge1=0, rouge2=0, rougel=0)


def test_an_empty_reference_does_not_score_zero_for_bleu() -> None:
    # Add-1 smoothing: p_n = (0 + 1) / (total_n + 1); BP = 1 (c > r = 0); p_4 = 0 (3 tokens).
    assert_metrics(
        metrics("x y z", ""),
        bleu1=1 / 4,
        bleu2=math.sqrt(1 / 4 * 1 / 3),
        bleu4=(1 / 4 * 1 / 3 * 1 / 2) ** 0.25,
        rouge1=0,
        rouge2=0,
        rougel=0,
    )


# The two splitters.


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One. Two. Three. Four. Five", ["One", "Three", "Five"]),
        ("One.. Three", ["One", "Three"]),  # the empty second piece is the one dropped
        ("  .Two. Three", ["Three"]),  # a blank first piece is no sentence
        ("第一句。第二句。第三句。", ["第一句", "第三句"]),
        ("Mixed. 中文。end", ["Mixed", "end"]),
        ("", []),
        ("no period", ["no period"]),
    ],
)
def test_split_sentences(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # ASCII runs keep , ! ? _ and digits; other punctuation is one token per character;
        # spaces, symbols ($) and letters outside ASCII (é) are dropped.
        (
            "Hello, world! It's café-time $5 (really?)",
            ["Hello,", "world!", "It", "'", "s", "caf", "-", "time", "5", "(", "really?", ")"],
        ),
        ("snake_case,and,commas", ["snake_case,and,commas"]),
        # Han runs go to jieba; the segmentations are those gojieba's own tests expect of
        # Cut(s, true) (jieba_test.go) and cppjieba's (segments_test.cpp, jieba_test.cpp).
        ("我来到北京清华大学", ["我", "来到", "北京", "清华大学"]),
        ("他来到了网易杭研大厦", ["他", "来到", "了", "网易", "杭研", "大厦"]),
        ("我来自北京邮电大学", ["我", "来自", "北京邮电大学"]),
        ("让我去了解一下", ["让", "我", "去", "了解", "一下"]),
        # Chinese punctuation is punctuation; Latin text inside Chinese is its own run.
        ("北京，UNIX、Linux！", ["北京", "，", "UNIX", "、", "Linux", "！"]),
    ],
)
def test_split_words(text: str, words: list[str]) -> None:
    assert split_words([text]) == words


# Cases worked by hand.


def test_english_answer_worked_by_hand() -> None:
    # Lower-cased for BLEU: c = [the quick brown fox jumps], r = [the quick brown dog jumps
    # over]. Clipped/total n-grams: 4/5, 2/4, 1/3 ("the quick brown"), 0/2; add-1 gives
    # p = 5/6, 3/5, 2/4, 1/3. BP = exp(1 - 6/5).
    p1, p2, p3, p4 = 5 / 6, 3 / 5, 2 / 4, 1 / 3
    bp = math.exp(1 - 6 / 5)
    # ROUGE keeps case: "The" is not "the". Unigrams: 3 shared (quick brown jumps) of 5 and 6;
    # bigrams: 1 shared (quick brown) of 4 and 5; the LCS is quick brown jumps: 3 words.
    assert_metrics(
        metrics("The quick brown fox jumps", "the quick brown dog jumps over"),
        bleu1=bp * p1,
        bleu2=bp * math.exp(0.5 * math.log(p1) + 0.5 * math.log(p2)),
        bleu4=bp * math.exp(sum(0.25 * math.log(p) for p in (p1, p2, p3, p4))),
        rouge1=f_measure(3 / 5, 3 / 6),
        rouge2=f_measure(1 / 4, 1 / 5),
        rougel=f_measure(3 / 5, 3 / 6),
    )


def test_rouge_counts_distinct_words_and_ngrams() -> None:
    # "the" twice in each. BLEU counts occurrences: unigrams 5/5, bigrams 3/4 (all but "cat
    # and"), trigrams 0/3, 4-grams 0/2 -> p = 1, 4/5, 1/4, 1/3; c = r, so BP = 1. ROUGE-1 sees
    # the same four distinct words; ROUGE-2 3 of 4 distinct bigrams each way. ROUGE-L: the LCS
    # is "the and the" (3 words long), whose distinct words are 2 of 4.
    assert_metrics(
        metrics("the cat and the dog", "the dog and the cat"),
        bleu1=1,
        bleu2=math.sqrt(4 / 5),
        bleu4=(4 / 5 * 1 / 4 * 1 / 3) ** 0.25,
        rouge1=ONE,
        rouge2=f_measure(3 / 4, 3 / 4),
        rougel=f_measure(2 / 4, 2 / 4),
    )


def test_rouge_n_runs_across_sentences_and_rouge_l_unites_sentence_lcs() -> None:
    # Answer sentences [alpha beta] and [gamma delta] (the 2nd piece is dropped); reference one
    # sentence. Bigrams of the answer run across its sentences: alpha beta, beta gamma,
    # gamma delta; 2 are in the reference's 2. ROUGE-L: the LCS with each answer sentence gives
    # {alpha, beta} and {gamma}: 3 of the answer's 4 distinct words, all 3 of the reference's.
    answer, reference = "alpha beta. dropped words here. gamma delta", "alpha beta gamma"
    p1, p2 = (3 + 1) / (4 + 1), (2 + 1) / (3 + 1)  # c = 4 > r = 3: BP = 1
    p3 = (1 + 1) / (2 + 1)  # alpha beta gamma
    p4 = (0 + 1) / (1 + 1)
    assert_metrics(
        metrics(answer, reference),
        bleu1=p1,
        bleu2=math.sqrt(p1 * p2),
        bleu4=(p1 * p2 * p3 * p4) ** 0.25,
        rouge1=f_measure(3 / 4, 1),
        rouge2=f_measure(2 / 3, 1),
        rougel=f_measure(3 / 4, 1),
    )


def test_chinese_answer_worked_by_hand() -> None:
    # jieba: 我/爱/北京 and 我/爱/北京/天安门. Every n-gram of the answer is in the reference,
    # so p_n = 1 where the answer has n-grams (p_4 = 0 is skipped, and its weight with it);
    # BP = exp(1 - 4/3).
    bp = math.exp(1 - 4 / 3)
    assert_metrics(
        metrics("我爱北京", "我爱北京天安门"),
        bleu1=bp,
        bleu2=bp,
        bleu4=bp,
        rouge1=f_measure(1, 3 / 4),
        rouge2=f_measure(1, 2 / 3),
        rougel=f_measure(1, 3 / 4),
    )


def test_chinese_with_punctuation_and_latin_worked_by_hand() -> None:
    # Answer: 操作系统/有/UNIX/和/Linux (5); reference: 操作系统/有/UNIX/、/Linux/、/DOS (7).
    # Lower-cased for BLEU. Unigrams: 4 of 5 clipped; bigrams: 操作系统 有, 有 UNIX: 2 of 4.
    # BP = exp(1 - 7/5). ROUGE-1: 4 distinct shared, of 5 and 6 (、 twice); ROUGE-2: 2 of 4
    # and 6; ROUGE-L: LCS 操作系统 有 UNIX Linux, 4 words.
    bp = math.exp(1 - 7 / 5)
    p1, p2 = 5 / 6, 3 / 5
    p3, p4 = (1 + 1) / (3 + 1), (0 + 1) / (2 + 1)
    assert_metrics(
        metrics("操作系统有UNIX和Linux", "操作系统有UNIX、Linux、DOS"),
        bleu1=bp * p1,
        bleu2=bp * math.sqrt(p1 * p2),
        bleu4=bp * (p1 * p2 * p3 * p4) ** 0.25,
        rouge1=f_measure(4 / 5, 4 / 6),
        rouge2=f_measure(2 / 4, 2 / 6),
        rougel=f_measure(4 / 5, 4 / 6),
    )


def test_bleu_without_smoothing_and_with_bleu3_weights() -> None:
    # No smoothing: p_2 = 0/1 is skipped, with its weight: BLEU = BP * exp(0.33 * log 1/2).
    # BLEU-3's weights are WeKnora's 0.33, not 1/3.
    example = MetricInput(generated_texts="a b", generated_gt="a c")
    assert BLEUMetric(False, BLEU3_GRAM).compute(example) == pytest.approx(
        math.exp(0.33 * math.log(1 / 2))
    )
    assert BLEUMetric(True, BLEU1_GRAM).compute(example) == pytest.approx(2 / 3)


def test_rouge_metric_precision_and_recall() -> None:
    example = MetricInput(generated_texts="a b c d", generated_gt="a b")
    assert RougeMetric(True, "rouge-1", "p").compute(example) == pytest.approx(2 / 4)
    assert RougeMetric(True, "rouge-1", "r").compute(example) == pytest.approx(1.0)
    assert RougeMetric(False, "rouge-2", "f").compute(example) == pytest.approx(f_measure(1 / 3, 1))
    assert RougeMetric(True, "rouge-5", "f").compute(example) == 0.0


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RougeMetric(True, "rouge-9", "f"), "unknown ROUGE metric 'rouge-9'"),
        (lambda: RougeMetric(True, "rouge-l", "x"), "ROUGE stats must be 'f', 'p' or 'r'"),
        (lambda: BLEUMetric(True, []), "BLEU weights are 1 to 4 numbers"),
    ],
)
def test_bad_metric_options_are_refused(build: object, message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(")):
        build()  # type: ignore[operator]


def test_generation_metrics_uses_weknoras_six_calculators() -> None:
    example = MetricInput(generated_texts="the cat sat on a mat", generated_gt="a cat sat here")
    result = generation_metrics(example)
    assert result.bleu4 == BLEUMetric(True, BLEU4_GRAM).compute(example)
    assert result.rougel == RougeMetric(True, "rouge-l", "f").compute(example)
    assert result.rounded(3).as_dict() == {k: round(v, 3) for k, v in result.as_dict().items()}


# Properties.

words = st.sampled_from(["alpha", "Beta", "gamma", "3", "x,", "北京", "天安门", "，", "!"])
sentence = st.lists(words, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(first=sentence, second=sentence, other=sentence, third=sentence)
def test_the_second_sentence_never_counts(first: str, second: str, other: str, third: str) -> None:
    answer = f"{first}. {second}. {third}"
    reference = f"{first}. {other}. {third}"
    assert metrics(answer, reference) == metrics(answer, answer)


@settings(max_examples=60, deadline=None)
@given(
    answer=st.lists(sentence, max_size=3).map(". ".join),
    reference=st.lists(sentence, max_size=3).map(". ".join),
)
def test_scores_lie_in_zero_one_and_bleu_ignores_case(answer: str, reference: str) -> None:
    result = metrics(answer, reference)
    assert all(0.0 <= value <= 1.0 for value in result.as_dict().values())
    lowered = metrics(answer.lower(), reference.upper())
    assert (lowered.bleu1, lowered.bleu2, lowered.bleu4) == (
        result.bleu1,
        result.bleu2,
        result.bleu4,
    )
