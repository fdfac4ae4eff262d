"""ranx's metric names: what each means in rankscope, and how it compares with ranx's.

Every ranx name parses as a rankscope measure (`rankscope.measure("ndcg@10")`), with ranx's
definition: five are kernels of their own in the core (``hits``, ``f1``, ``dcg``,
``dcg_burges``, ``ndcg_burges``), the others are the trec_eval family that computes the same
numbers. Two differences hold for every name: ranx orders documents with equal scores
arbitrarily (an unstable sort), rankscope by document id, descending; and ranx's ``-l2``
suffix (a relevance level in the name) is written ``(rel=2)`` here, on the measures that take
it (``hits(rel=2)@10``, ``P(rel=2)@10``). ``bpref`` keeps trec_eval's meaning (see below).
"""

from __future__ import annotations

__all__ = ["RANX_NAMES"]

# ranx's name -> (what it parses to, how it compares with ranx's definition).
RANX_NAMES: dict[str, tuple[str, str]] = {
    "hits@k": ("hits@k", "ranx's: the number of relevant documents in the top k"),
    "hit_rate@k": ("Success@k", "the same definition (1 if a relevant document is in the top k)"),
    "precision@k": ("P@k", "the same definition (divided by k even when fewer were retrieved)"),
    "recall@k": ("R@k", "the same definition"),
    "f1@k": ("f1@k", "ranx's: harmonic mean of P@k and R@k"),
    "r-precision": ("Rprec", "the same definition"),
    "mrr@k": ("RR@k", "the same definition"),
    "map@k": ("AP@k", "the same definition: divided by all relevant documents, as map_cut"),
    "ndcg@k": (
        "nDCG@k",
        "the same definition (gain = grade); ranx's ndcg@k-l2, which drops the gains of "
        "grades below 2, is not offered",
    ),
    "ndcg_burges@k": ("ndcg_burges@k", "ranx's: gain 2^grade - 1; nDCG(gain=exp)@k at rel=1"),
    "dcg@k": ("dcg@k", "ranx's: DCG, not normalized, gain = grade"),
    "dcg_burges@k": ("dcg_burges@k", "ranx's: DCG, not normalized, gain 2^grade - 1"),
    "bpref": (
        "Bpref",
        "trec_eval's bpref, which ranx's equals where ranx defines it: ranx divides by zero "
        "for a query without relevant documents (in its parallel loop, that query and the "
        "following ones get 0), gives NaN for one without judged non-relevant documents, and "
        "counts negative grades as judged non-relevant (trec_eval: unjudged)",
    ),
}
