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

κ, α, τ and ρ need the ``judge`` extra (scikit-learn, krippendorff, scipy), imported on first
use.
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
from rankscope.judge._pool import PLACEHOLDER_GRADE, Pool, pool, write_pool

__all__ = [
    "PLACEHOLDER_GRADE",
    "JudgementAgreement",
    "MeasureAgreement",
    "Pool",
    "RankingAgreement",
    "RunHoles",
    "holes",
    "judgement_agreement",
    "pool",
    "ranking_agreement",
    "rbo",
    "tau_ap",
    "write_pool",
]
