"""ranx: ``Qrels.from_file`` / ``Run.from_file`` and ``evaluate`` (numba-compiled measures)."""

from _common import emit, paths
from ranx import Qrels, Run, evaluate

NAMES = {
    "ndcg@10": "nDCG@10",
    "ndcg@3": "nDCG@3",
    "map": "AP",
    "mrr": "RR",
    "precision@10": "P@10",
    "recall@10": "R@10",
}

qrels_path, run_path = paths()
qrels = Qrels.from_file(qrels_path, kind="trec")
run = Run.from_file(run_path, kind="trec")
means = evaluate(qrels, run, list(NAMES))
emit({ours: means[theirs] for theirs, ours in NAMES.items()}, len(run))
