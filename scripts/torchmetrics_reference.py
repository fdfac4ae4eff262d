"""Write torchmetrics' nDCG of generated data to ``tests/data/torchmetrics_ndcg.json``.

torch is too heavy for the test extra, so the values the ``torchmetrics`` profile is checked
against are computed once with torchmetrics itself, in a virtual environment of their own,
and stored beside the data they were computed on::

    python3 -m venv /tmp/torchmetrics-venv
    /tmp/torchmetrics-venv/bin/pip install torch torchmetrics
    /tmp/torchmetrics-venv/bin/python scripts/torchmetrics_reference.py
    rm -rf /tmp/torchmetrics-venv

The data (seeded) has graded and negative grades, tied scores (also ties that only float32
creates), unjudged documents retrieved, relevant documents not retrieved, queries without a
relevant document and queries retrieving one document. torchmetrics sees each judged query of
the run as a list of items: ``preds`` the scores (float32, torch's default), ``target`` the
grades of the retrieved documents (0 where unjudged; negative grades given as 0, the gain
rankscope gives them), ``indexes`` the query. Each query is computed on its own
(``RetrievalNormalizedDCG(top_k=k)`` over that query alone) and all together (the mean
torchmetrics reports).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "torchmetrics_ndcg.json"
CUTOFFS = [None, 1, 3, 5, 10]
SCORES = [0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, -1.5, 3.25, 0.125, 7.0]


def generate(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """40 judged queries ranked, each with ties; grades -1 to 3."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(40):
        docs = [f"d{i}" for i in rng.sample(range(30), 20)]
        grades = [0, 0] if q % 9 == 4 else [-1, 0, 0, 1, 1, 2, 3]
        qrels[f"q{q:02d}"] = {d: rng.choice(grades) for d in docs[:12]}
        length = 1 if q % 11 == 6 else rng.randint(2, 15)
        run[f"q{q:02d}"] = {d: rng.choice(SCORES) for d in docs[4 : 4 + length]}
    return qrels, run


def main() -> int:
    import torch
    import torchmetrics
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    qrels, run = generate(20261201)
    queries = sorted(q for q in run if q in qrels)
    values: dict[str, dict[str, float]] = {}
    means: dict[str, float] = {}
    for k in CUTOFFS:
        name = "nDCG" if k is None else f"nDCG@{k}"
        all_preds, all_target, all_indexes = [], [], []
        for index, q in enumerate(queries):
            preds = torch.tensor(list(run[q].values()), dtype=torch.float32)
            target = torch.tensor([max(qrels[q].get(d, 0), 0) for d in run[q]])
            one = RetrievalNormalizedDCG(top_k=k)
            one.update(preds, target, indexes=torch.zeros(len(preds), dtype=torch.long))
            values.setdefault(q, {})[name] = float(one.compute())
            all_preds.append(preds)
            all_target.append(target)
            all_indexes.append(torch.full((len(preds),), index, dtype=torch.long))
        together = RetrievalNormalizedDCG(top_k=k)
        together.update(torch.cat(all_preds), torch.cat(all_target), torch.cat(all_indexes))
        means[name] = float(together.compute())
    reference = {
        "tool": f"torchmetrics {torchmetrics.__version__}, torch {torch.__version__}",
        "qrels": qrels,
        "run": run,
        "values": values,
        "means": means,
    }
    OUT.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({len(queries)} queries, {len(CUTOFFS)} measures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
