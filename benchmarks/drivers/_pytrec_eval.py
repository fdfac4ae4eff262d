"""pytrec_eval as its users call it: its own parsers, then a RelevanceEvaluator for the six
measures. Shared by the end-to-end driver and the compute-only timing."""

from __future__ import annotations

from typing import Any

import pytrec_eval

# pytrec_eval's names of the six measures, and ours.
NAMES = {
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_3": "nDCG@3",
    "map": "AP",
    "recip_rank": "RR",
    "P_10": "P@10",
    "recall_10": "R@10",
}


MEASURE_SPEC = {"ndcg_cut.3,10", "map", "recip_rank", "P.10", "recall.10"}


def evaluator_and_run(qrels_path: str, run_path: str) -> tuple[Any, dict[str, dict[str, float]]]:
    """A RelevanceEvaluator built on the qrels file, and the run file parsed."""
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    return pytrec_eval.RelevanceEvaluator(qrels, MEASURE_SPEC), run
