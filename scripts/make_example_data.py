"""Write the bundled example data: graded qrels and two runs of 30 queries (deterministic).

Run from the repository root: ``python scripts/make_example_data.py``. The files land in
``examples/data/``: ``qrels.txt`` (TREC qrels), ``bm25.run`` and ``dense.run`` (TREC runs).
The "dense" system is built to be better on most queries and worse on a few.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "examples" / "data"
QUERIES = 30
DOCS_PER_QUERY = 60
RETRIEVED = 50


def main() -> None:
    rng = np.random.default_rng(20261130)
    OUT.mkdir(parents=True, exist_ok=True)
    qrels_lines: list[str] = []
    runs: dict[str, list[str]] = {"bm25": [], "dense": []}
    for q in range(QUERIES):
        qid = f"{q + 101}"
        docs = [f"D{q + 101:03d}-{d:04d}" for d in rng.choice(5000, DOCS_PER_QUERY, False)]
        grades = rng.choice([0, 0, 0, 0, 1, 1, 2, 3], size=DOCS_PER_QUERY)
        judged = rng.random(DOCS_PER_QUERY) < 0.5
        for doc, grade, is_judged in zip(docs, grades, judged, strict=True):
            if is_judged:
                qrels_lines.append(f"{qid} 0 {doc} {grade}")
        for name, skill in (("bm25", 0.6), ("dense", 1.0 if q % 7 else 0.2)):
            # Score = noisy function of the grade: more skill, better separation.
            scores = skill * grades + rng.normal(0.0, 1.2, DOCS_PER_QUERY)
            order = np.argsort(-scores, kind="stable")[:RETRIEVED]
            for rank, i in enumerate(order, start=1):
                runs[name].append(f"{qid} Q0 {docs[i]} {rank} {scores[i] + 10:.6f} {name}")
    (OUT / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    for name, lines in runs.items():
        (OUT / f"{name}.run").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
