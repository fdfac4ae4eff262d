"""pytrec_eval (pytrec-eval-terrier): its parsers, a RelevanceEvaluator, the mean per measure."""

import pytrec_eval
from _common import emit, paths

NAMES = {
    "ndcg_cut_10": "nDCG@10",
    "ndcg_cut_3": "nDCG@3",
    "map": "AP",
    "recip_rank": "RR",
    "P_10": "P@10",
    "recall_10": "R@10",
}

qrels_path, run_path = paths()
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(
    qrels, {"ndcg_cut.3,10", "map", "recip_rank", "P.10", "recall.10"}
)
per_query = evaluator.evaluate(run)
means = {
    ours: pytrec_eval.compute_aggregated_measure(theirs, [v[theirs] for v in per_query.values()])
    for theirs, ours in NAMES.items()
}
emit(means, len(per_query))
