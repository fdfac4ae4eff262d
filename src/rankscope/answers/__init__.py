"""Answer measures: generated answers scored against reference answers.

`evaluate_answers` returns the same `rankscope.Results` as `rankscope.evaluate`, so the
answer half of a RAG evaluation is compared, reported and exported like the retrieval half.
The measures' runtime packages (sacrebleu, rouge-score, jieba, regex) come with the
``answers`` extra (``pip install 'rankscope[answers]'``) and are imported only when a measure
needs them.
"""

from rankscope.answers._evaluate import evaluate_answers
from rankscope.answers._scorers import ANSWER_PROFILES, DEFAULT_MEASURES, exact_match, token_f1

__all__ = ["ANSWER_PROFILES", "DEFAULT_MEASURES", "evaluate_answers", "exact_match", "token_f1"]
