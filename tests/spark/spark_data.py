"""Generated qrels and runs for the Spark tests: deterministic, with what makes evaluation hard.

Ties in score (scores on a coarse grid), graded and negative judgements, queries with no
relevant document, queries of the run without judgements, judged queries missing from the run,
integer-looking and non-ASCII ids (byte-wise order differs from code-point order for them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MEASURES = [
    "nDCG@10",
    "nDCG",
    "nDCG(gain=exp)@5",
    "AP",
    "AP@5",
    "RR",
    "P@5",
    "P(rel=2)@5",
    "R@20",
    "Rprec",
    "Success@1",
    "Bpref",
    "GM_AP",
    "IPrec@0.5",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "NumQ",
]
"""Every family of the trec profile, with cut-offs and a relevance level."""

WEKNORA_MEASURES = ["nDCG@10", "nDCG@3", "P", "R", "RR", "AP"]


def query_ids(count: int) -> list[str]:
    return [f"q{i:03d}" if i % 7 else f"{i}é" for i in range(count)]


def generated(seed: int = 7, queries: int = 60) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) as pandas DataFrames, in a shuffled row order."""
    rng = np.random.default_rng(seed)
    ids = query_ids(queries)
    judged = ids[: queries - 8]  # the last 8 only in the run: unjudged
    ranked = ids[6:]  # the first 6 only in the qrels: missing from the run
    qrels_rows = []
    for query in judged:
        docs = rng.choice(80, size=int(rng.integers(1, 25)), replace=False)
        # Some queries have no relevant document at all.
        top = 0 if rng.random() < 0.1 else 3
        for doc in docs:
            qrels_rows.append((query, f"d{doc}", int(rng.integers(-1, top + 1))))
    run_rows = []
    for query in ranked:
        docs = rng.choice(80, size=int(rng.integers(1, 40)), replace=False)
        for doc in docs:
            run_rows.append((query, f"d{doc}", float(rng.integers(0, 6)) / 2))  # many ties
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return (
        qrels.sample(frac=1.0, random_state=seed).reset_index(drop=True),
        run.sample(frac=1.0, random_state=seed + 1).reset_index(drop=True),
    )
