"""The diversity measures agree, query by query, with ndeval as ir_measures runs it (its
pyndeval provider), on generated diversity qrels: several graded subtopics per query,
documents relevant to several subtopics or to none, judged non-relevant, negatively graded
and unjudged documents, tied scores, queries without a relevant subtopic and empty rankings.

pyndeval breaks score ties by document id ascending, so rankscope is asked for that ordering
(``score_then_docid_asc``); ndeval's own ``-traditional`` order is trec_eval's, rankscope's
default. pyndeval returns unrounded doubles: agreement is to 1e-9.
"""

from __future__ import annotations

import math
import random
from typing import Any

import ir_measures
import pytest

import rankscope
from rankscope.cli import main
from rankscope.engine.measures import FAMILIES
from rankscope.engine.profiles import resolve_profile
from rankscope.io import as_qrels

# ndeval computes cutoffs up to 20 only.
MEASURES = [
    "alpha_nDCG@5",
    "alpha_nDCG@10",
    "alpha_nDCG@20",
    "alpha_nDCG(alpha=0.3)@10",
    "alpha_nDCG(judged_only=True)@10",
    "alpha_nDCG(rel=2)@10",
    "alpha_DCG@1",
    "alpha_DCG@10",
    "ERR_IA@1",
    "ERR_IA@5",
    "ERR_IA@20",
    "ERR_IA(rel=2)@10",
    "nERR_IA@5",
    "nERR_IA@20",
    "nERR_IA(judged_only=True)@10",
    "P_IA@5",
    "P_IA@20",
    "P_IA(rel=2)@10",
    "AP_IA",
    "AP_IA(judged_only=True)",
    "StRecall@5",
    "StRecall@20",
    "NRBP",
    "NRBP(alpha=0.3,beta=0.8)",
    "nNRBP",
]

ASCENDING_TIES = resolve_profile("trec").with_options(ordering="score_then_docid_asc")


def generated(seed: int) -> tuple[list[ir_measures.Qrel], dict[str, dict[str, float]]]:
    """Diversity qrels (as ir_measures' records) and a run (as a dict) for one seed."""
    rng = random.Random(seed)
    qrels: list[ir_measures.Qrel] = []
    run: dict[str, dict[str, float]] = {}
    for q in range(rng.randint(3, 9)):
        query = f"q{q}"
        subtopics = [str(s) for s in rng.sample(range(1, 8), rng.randint(1, 4))]
        docs = [f"d{d:02d}" for d in range(rng.randint(4, 30))]
        # Most queries have relevant subtopics; some have none (every grade 0 or below).
        nothing_relevant = rng.random() < 0.15
        for doc in docs:
            if rng.random() < 0.3:
                continue  # never judged: unjudged wherever retrieved
            for subtopic in rng.sample(subtopics, rng.randint(1, len(subtopics))):
                grade = rng.choice([-1, 0, 0, 1, 1, 2, 3])
                if nothing_relevant:
                    grade = min(grade, 0)
                qrels.append(ir_measures.Qrel(query, doc, grade, subtopic))
        if rng.random() < 0.1:
            run[query] = {}  # an empty ranking
            continue
        retrieved = rng.sample(docs + [f"u{u}" for u in range(5)], rng.randint(1, len(docs)))
        # Few distinct scores: many ties.
        run[query] = {doc: float(rng.randint(0, 6)) for doc in retrieved}
    run["not-judged"] = {"d00": 1.0}
    return qrels, run


def reference(
    measures: list[Any], qrels: list[Any], run: dict[str, Any]
) -> dict[str, dict[str, float]]:
    """``{measure: {query: value}}`` from ir_measures' pyndeval provider, one measure at a
    time (given measures needing different invocations of pyndeval at once, the provider
    hands the run to the first only: the others score 0 everywhere)."""
    values: dict[str, dict[str, float]] = {str(m): {} for m in measures}
    judged = {(q.query_id, q.doc_id) for q in qrels}
    for measure in measures:
        given, ranked = measure, run
        if "judged_only" in measure.SUPPORTED_PARAMS and measure["judged_only"]:
            # The provider's own filter fails on the run it is handed (a generator); this is
            # what it means to do: drop documents without any judgement first.
            given = measure(judged_only=False)
            ranked = {
                q: {d: s for d, s in docs.items() if (q, d) in judged} for q, docs in run.items()
            }
        for metric in ir_measures.pyndeval.iter_calc([given], qrels, ranked):
            values[str(measure)][metric.query_id] = metric.value
    return values


@pytest.mark.parametrize("seed", range(12))
def test_per_query_values_agree_with_pyndeval(seed: int) -> None:
    qrels, run = generated(seed)
    measures = [ir_measures.parse_measure(name) for name in MEASURES]
    expected = reference(measures, qrels, run)
    # ir_measures scores a judged query with an empty ranking 0, as complete=True does.
    results = rankscope.evaluate(qrels, run, MEASURES, profile=ASCENDING_TIES, complete=True)
    got = results.to_dict()
    for name in MEASURES:
        ours = rankscope.measure(name).name
        assert ours == str(ir_measures.parse_measure(name)), "prints back as ir_measures does"
        theirs = expected[str(ir_measures.parse_measure(name))]
        assert sorted(theirs) == results.query_ids, name
        for query, value in theirs.items():
            if math.isnan(value):
                # ndeval divides 0 by 0 for a query without a relevant subtopic (nNRBP).
                assert ours == "nNRBP" and got[query][ours] == 0.0
                continue
            assert got[query][ours] == pytest.approx(value, abs=1e-9), (name, query)


def test_subtopic_qrels_from_files_frames_and_records_agree(tmp_path: Any) -> None:
    """The TREC file's second field, a frame's ``iteration`` column and the records'
    ``iteration`` field are all the subtopic."""
    qrels, run = generated(3)
    path = tmp_path / "qrels.txt"
    path.write_text(
        "".join(f"{q.query_id} {q.iteration} {q.doc_id} {q.relevance}\n" for q in qrels)
    )
    import polars as pl

    frame = pl.DataFrame(
        {
            "query_id": [q.query_id for q in qrels],
            "doc_id": [q.doc_id for q in qrels],
            "relevance": [q.relevance for q in qrels],
            "iteration": [q.iteration for q in qrels],
        }
    )
    names = ["alpha_nDCG@10", "AP_IA", "nDCG@10"]
    values = [
        rankscope.evaluate(source, run, names, profile=ASCENDING_TIES).to_dict()
        for source in (qrels, path, frame, rankscope.io.read_qrels(path))
    ]
    assert values[0] == values[1] == values[2] == values[3]


def test_a_document_judged_twice_for_one_subtopic_is_an_error() -> None:
    qrels = [
        ir_measures.Qrel("q1", "d1", 1, "1"),
        ir_measures.Qrel("q1", "d1", 0, "1"),
        ir_measures.Qrel("q1", "d1", 1, "2"),
    ]
    with pytest.raises(rankscope.errors.DuplicateDocumentError, match="for subtopic '1'"):
        rankscope.evaluate(qrels, {"q1": {"d1": 1.0}}, ["alpha_nDCG@10"])


def test_other_measures_see_a_document_s_highest_grade_over_subtopics() -> None:
    qrels = [
        ir_measures.Qrel("q1", "d1", 0, "1"),
        ir_measures.Qrel("q1", "d1", 2, "2"),
        ir_measures.Qrel("q1", "d2", 1, "1"),
    ]
    assert as_qrels(qrels).has_subtopics
    results = rankscope.evaluate(qrels, {"q1": {"d2": 2.0, "d1": 1.0}}, ["nDCG@2", "NumRel"])
    # Ideal: grades 2, 1; ranking: 1, 2.
    ideal = 2 + 1 / math.log2(3)
    assert results.to_dict()["q1"] == pytest.approx(
        {"nDCG@2": (1 + 2 / math.log2(3)) / ideal, "NumRel": 2.0}
    )


@pytest.mark.parametrize(
    ("given", "printed"),
    [
        ("alpha_nDCG(alpha=0.5)@20", "alpha_nDCG@20"),
        ("alpha_nDCG(alpha=0.3,judged_only=True)@5", "alpha_nDCG(alpha=0.3,judged_only=True)@5"),
        ("NRBP(beta=0.5,rel=2)", "NRBP(rel=2)"),
        ("P_IA(judged_only=False)@10", "P_IA@10"),
        ("MAP_IA", "AP_IA"),
        ("strec@10", "StRecall@10"),
        # Without rel=, the evaluation's relevance level applies: an explicit rel=1 is kept.
        ("NRBP(beta=0.5,rel=1)", "NRBP(rel=1)"),
    ],
)
def test_names_print_as_ir_measures_prints_them(given: str, printed: str) -> None:
    assert rankscope.measure(given).name == printed
    if given not in ("strec@10", "NRBP(beta=0.5,rel=1)"):
        assert str(ir_measures.parse_measure(given)) == printed


def test_diversity_measures_need_a_cutoff_where_ndeval_has_one() -> None:
    with pytest.raises(rankscope.errors.MeasureError, match="needs a cutoff, as in alpha_nDCG@10"):
        rankscope.measure("alpha_nDCG")


def test_rankscope_measures_lists_them_with_formula_and_citation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["measures"]) == 0
    listed = capsys.readouterr().out
    for name in ("alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA", "AP_IA", "StRecall", "NRBP"):
        family = FAMILIES[name]
        assert "ndeval" in family.citation and family.formula in listed, name
    assert "alpha_nDCG(alpha=number [0.5]" in listed


def test_the_generated_data_holds_every_case() -> None:
    """The agreement above is not vacuous: over its seeds the data hold ties, empty rankings,
    unjudged and negatively graded documents, documents relevant to several subtopics, queries
    without a relevant subtopic, and every measure takes values other than 0."""
    cases: set[str] = set()
    nonzero: set[str] = set()
    for seed in range(12):
        qrels, run = generated(seed)
        judged = {(q.query_id, q.doc_id) for q in qrels}
        relevant: dict[str, set[str]] = {}
        for q in qrels:
            if q.relevance >= 1:
                relevant.setdefault(q.query_id, set()).add(q.iteration)
                if any(
                    o.doc_id == q.doc_id
                    and o.iteration != q.iteration
                    and o.relevance >= 1
                    and o.query_id == q.query_id
                    for o in qrels
                ):
                    cases.add("relevant to several subtopics")
            if q.relevance < 0:
                cases.add("negative grade")
        for query, docs in run.items():
            scores = list(docs.values())
            cases |= {"ties"} if len(set(scores)) < len(scores) else set()
            cases |= {"empty ranking"} if not docs else set()
            cases |= {"unjudged"} if any((query, d) not in judged for d in docs) else set()
        judged_queries = {q.query_id for q in qrels}
        if judged_queries - set(relevant):
            cases.add("no relevant subtopic")
        values = rankscope.evaluate(qrels, run, MEASURES, profile=ASCENDING_TIES).to_dict()
        nonzero |= {m for by_measure in values.values() for m, v in by_measure.items() if v > 0}
    assert cases == {
        "relevant to several subtopics",
        "negative grade",
        "ties",
        "empty ranking",
        "unjudged",
        "no relevant subtopic",
    }
    assert nonzero == {rankscope.measure(name).name for name in MEASURES}
