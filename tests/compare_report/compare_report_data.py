"""Small fixed and generated inputs for the comparison reports, in memory and as TREC files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

import rankscope
from rankscope.engine.results import Results

QUERIES = [f"q{i:02d}" for i in range(12)]
# Every query has one relevant document "a"; where it is ranked sets RR and P@1.
FIXED_QRELS = {query: {"a": 1, "b": 0} for query in QUERIES}
FIXED_RUNS: dict[str, dict[str, list[str]]] = {
    # RR 0.5 everywhere, P@1 0.
    "bm25": {query: ["b", "a"] for query in QUERIES},
    # RR 1 on ten queries and 1/3 on two: clearly better than bm25.
    "better": {query: ["a"] if i < 10 else ["b", "x", "a"] for i, query in enumerate(QUERIES)},
    # RR 1 and 1/3 alternately: +0.5 and -0.17 against bm25, not significant on 12 queries.
    "mixed": {query: ["a"] if i % 2 == 0 else ["b", "x", "a"] for i, query in enumerate(QUERIES)},
}
FIXED_MEASURES = ["RR", "P@1"]


def evaluate_lists(
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    measures: Sequence[str],
    complete: bool = False,
) -> list[Results]:
    """Evaluate ranked lists, one `Results` per run, named after its key."""
    return [
        rankscope.evaluate(
            qrels, rankscope.Run.from_lists(run, name=name), measures, complete=complete
        )
        for name, run in runs.items()
    ]


def generated_data(
    n_queries: int = 25, systems: Sequence[str] = ("bm25", "dense"), seed: int = 7
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, dict[str, float]]]]:
    """Graded qrels and scored runs; each later system ranks relevant documents higher."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {name: {} for name in systems}
    for q in range(n_queries):
        query = f"{q + 1:03d}"
        docs = [f"D{q + 1:03d}-{d:03d}" for d in range(40)]
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=len(docs))
        qrels[query] = {doc: int(g) for doc, g in zip(docs[:20], grades[:20], strict=True)}
        for strength, name in enumerate(systems):
            noise = rng.random(len(docs))
            boost = 0.35 * strength * np.array([qrels[query].get(doc, 0) for doc in docs])
            runs[name][query] = {
                doc: float(score) for doc, score in zip(docs, noise + boost, strict=True)
            }
    return qrels, runs


def write_qrels(path: Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    lines = [
        f"{query} 0 {doc} {grade}\n" for query, docs in qrels.items() for doc, grade in docs.items()
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def write_run(path: Path, run: Mapping[str, Mapping[str, float]], tag: str) -> Path:
    lines = []
    for query, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: -item[1])
        lines.extend(
            f"{query} Q0 {doc} {rank} {score:.6f} {tag}\n"
            for rank, (doc, score) in enumerate(ranked, 1)
        )
    path.write_text("".join(lines), encoding="utf-8")
    return path


def write_trec_files(
    folder: Path,
    n_queries: int = 25,
    systems: Sequence[str] = ("bm25", "dense"),
    drop: Mapping[str, Sequence[str]] | None = None,
) -> tuple[str, list[str]]:
    """Write generated qrels and runs (less the queries in ``drop``) as TREC files.

    Returns the qrels path and the run paths, in the order of ``systems``.
    """
    qrels, runs = generated_data(n_queries, systems)
    for name, queries in (drop or {}).items():
        for query in queries:
            del runs[name][query]
    qrels_path = write_qrels(folder / "qrels.txt", qrels)
    run_paths = [str(write_run(folder / f"{name}.run", run, name)) for name, run in runs.items()]
    return str(qrels_path), run_paths
