"""Fill the holes of a run's judgements with a judge, and see how far to trust it.

WeKnora's sample dataset (``examples/weknora_samples/``) with half of its qrels hidden: a run
ranks the corpus, ``pool`` finds the documents of its top 4 that the remaining qrels do not
judge (the holes), a judge grades them into a store (resumable: run this again with the same
``--db`` and nothing is asked twice), and the judge's grades are compared with the hidden
ones, and the run's measures with the holes unjudged, filled by the judge, and fully judged.

The judge here is a deterministic stand-in, the character-bigram overlap of query and passage
with a threshold (`rankscope.judge.CallableJudge`); with a real model, put in its place::

    judge = ChatJudge("http://127.0.0.1:8000/v1", "Qwen2.5-7B-Instruct", grades=(0, 1))

Run it: ``python examples/judge_holes.py [--db judging.db]``.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import rankscope
from rankscope.io import read_corpus, read_qrels, read_queries
from rankscope.judge import CallableJudge, judge_pairs, judged_qrels, judgement_agreement, pool

SAMPLES = Path(__file__).resolve().parent / "weknora_samples"
MEASURES = ["P@4", "nDCG@4", "AP"]
THRESHOLD = 0.25


def bigrams(text: str) -> set[str]:
    """The character bigrams of a text's words (Chinese has no spaces: bigrams stand in for
    words)."""
    kept = "".join(ch for ch in text.lower() if ch.isalnum())
    return {kept[i : i + 2] for i in range(len(kept) - 1)}


def overlap(query: str, passage: str) -> float:
    """The share of the query's bigrams found in the passage."""
    wanted = bigrams(query)
    return len(wanted & bigrams(passage)) / max(len(wanted), 1)


def grade(query: str, passage: str) -> int:
    """The stand-in judge's grade: relevant (1) when a quarter of the query's bigrams are in
    the passage (``rankscope judge --python examples.judge_holes:grade``)."""
    return int(overlap(query, passage) >= THRESHOLD)


def main(db: Path) -> None:
    queries = read_queries(SAMPLES / "queries.parquet")
    corpus = read_corpus(SAMPLES / "corpus.parquet")
    qrels = read_qrels(SAMPLES / "qrels.parquet").to_dict()

    # A run: every passage, by overlap with the question (best first).
    run = {
        qid: {doc: overlap(text, passage) for doc, passage in corpus.items()}
        for qid, text in queries.items()
    }
    # Hide every other judgement, in document order.
    visible: dict[str, dict[str, int]] = {}
    hidden: dict[str, dict[str, int]] = {}
    for qid, judged in qrels.items():
        for i, (doc, grade) in enumerate(sorted(judged.items())):
            (hidden if i % 2 else visible).setdefault(qid, {})[doc] = grade
    holes = pool([run], depth=4, qrels=visible)
    print(f"{len(holes)} holes in the run's top 4: {holes.to_dict()}")

    judge = CallableJudge(overlap, thresholds=(THRESHOLD,), grades=(0, 1))
    report = judge_pairs(holes, judge, queries=queries, corpus=corpus, store=db)
    print(
        f"judged {report.graded} of {report.total} ({report.failed} failed, "
        f"{report.resumed} judged by an earlier run), task {report.task_id}"
    )
    filled: dict[str, dict[str, int]] = {}
    by_judge: dict[str, dict[str, int]] = {}
    for qid, doc, grade, source in judged_qrels(db, report.task_id, visible).rows():
        filled.setdefault(qid, {})[doc] = grade
        if source == "judge":
            by_judge.setdefault(qid, {})[doc] = grade
    print(f"the judge's grades: {by_judge}; the hidden ones: {hidden}")

    agreement = judgement_agreement(hidden, by_judge)
    print(
        f"agreement with the hidden qrels on {agreement.shared} pairs: same grade "
        f"{agreement.same_grade:.4f}, Cohen's kappa {agreement.kappa:.4f}"
        + (" (undefined: one grade only on both sides)" if math.isnan(agreement.kappa) else "")
    )
    for label, judgements in (
        ("holes unjudged", visible),
        ("holes judged", filled),
        ("fully judged", qrels),
    ):
        means = rankscope.evaluate(judgements, run, MEASURES).mean()
        shown = "  ".join(f"{name} {means[name]:.4f}" for name in MEASURES)
        print(f"{label:>15}: {shown}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="the judging store (default: a temporary file)")
    given = parser.parse_args().db
    if given is not None:
        main(given)
    else:
        with tempfile.TemporaryDirectory() as directory:
            main(Path(directory) / "judging.db")
