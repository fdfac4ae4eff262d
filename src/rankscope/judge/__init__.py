"""Judgements: what to judge next, the holes of a run, and how far two sets of judgements agree.

>>> from rankscope.judge import pool
>>> pool([{"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d3": 5.0}}], depth=1).to_dict()
{'q1': ['d1', 'd3']}

* `pool` and `write_pool`: the union of each run's top k per query, less what is judged, as a
  to-judge file (TREC qrels with a placeholder grade, or CSV/JSONL with the texts).
* `holes`: per run, Judged@k, the unjudged documents of its top k, and each measure with the
  holes judged not relevant and relevant (`RunHoles`).
* `judgement_agreement`: Cohen's κ, Krippendorff's α and the confusion matrix on the pairs two
  qrels share; `ranking_agreement`: Kendall's τ, τ_AP, Spearman's ρ and RBO between the
  leaderboards they give a set of runs, with the pairs of systems that swap.
* `tau_ap` and `rbo`: the two rank correlations written here, on plain lists.
* Judges (`Judge`): `ChatJudge` (any OpenAI-compatible chat-completions endpoint),
  `PromptJudge` (a function answering the prompt's messages) and `CallableJudge` (a function
  grading a pair itself: a cross-encoder); `RELEVANCE_PROMPT` (a `Prompt` to replace at will)
  and `read_grade`, the one rule an answer is read by. A `Judgement` is a grade or a failure
  of one of the kinds of `FAILURES`, never a guess.
* `judge_pairs`: a judge grades pairs into a store (SQLite or PostgreSQL), every call and
  grade committed as it arrives, resumed where it stopped; optionally calibrated first on a
  sample of human-judged pairs. `judged_qrels`: its grades as qrels, merged with human ones;
  `human_agreement`: how far they agree with human qrels where both judge.

κ, α, τ and ρ need the ``judge`` extra (scikit-learn, krippendorff, scipy), imported on first
use; so does `ChatJudge` (httpx).
"""

from rankscope.judge._agreement import (
    JudgementAgreement,
    MeasureAgreement,
    RankingAgreement,
    judgement_agreement,
    ranking_agreement,
)
from rankscope.judge._correlation import rbo, tau_ap
from rankscope.judge._holes import RunHoles, holes
from rankscope.judge._judges import (
    FAILURES,
    Call,
    CallableJudge,
    ChatJudge,
    Judge,
    Judgement,
    PromptJudge,
    Reply,
)
from rankscope.judge._judging import JudgingReport, human_agreement, judge_pairs, judged_qrels
from rankscope.judge._pool import PLACEHOLDER_GRADE, Pool, pool, write_pool
from rankscope.judge._prompt import DEFAULT_GRADES, RELEVANCE_PROMPT, Prompt, read_grade

__all__ = [
    "DEFAULT_GRADES",
    "FAILURES",
    "PLACEHOLDER_GRADE",
    "RELEVANCE_PROMPT",
    "Call",
    "CallableJudge",
    "ChatJudge",
    "Judge",
    "Judgement",
    "JudgementAgreement",
    "JudgingReport",
    "MeasureAgreement",
    "Pool",
    "Prompt",
    "PromptJudge",
    "RankingAgreement",
    "Reply",
    "RunHoles",
    "holes",
    "human_agreement",
    "judge_pairs",
    "judged_qrels",
    "judgement_agreement",
    "pool",
    "ranking_agreement",
    "rbo",
    "read_grade",
    "tau_ap",
    "write_pool",
]
