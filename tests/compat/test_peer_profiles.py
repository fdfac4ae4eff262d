"""Each peer's profile gives that peer's numbers, per query and as means, on generated data
with tied scores (also ties only float32 creates), graded and negative grades, unjudged
documents, empty rankings and queries missing from either side (the strategies of
`test_compat_pytrec_eval`; ranx's untied data of `test_ranx_names`).

- ``ir_measures``: its compat provider's Compat (whose ideal ranking orders equal grades by run
  score) and its default pipeline (pytrec_eval for nDCG, P, AP, RR, R).
- ``beir``: BEIR's ``EvaluateRetrieval.evaluate``, which is pytrec_eval over the run without
  each query's own id, means rounded to 5 decimals. BEIR's package pulls torch and
  sentence-transformers, so its call is written out here as BEIR's source makes it.
- ``sklearn``: ``sklearn.metrics.ndcg_score`` per query, ties averaged.
- ``torchmetrics``: ``RetrievalNormalizedDCG``'s values stored in ``tests/data`` by
  ``scripts/torchmetrics_reference.py`` (torch is too heavy for the test extra), and
  torchmetrics itself where it is installed.
- ``ranx``: ``ranx.evaluate`` (slow: numba compiles on first use).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from peer_child import in_child, ir_measures_values
from test_compat_pytrec_eval import pytrec_eval_in_child, qrels_strategy, run_strategy

import rankscope
from rankscope.engine.profiles import PROFILES

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

DATA = Path(__file__).resolve().parent.parent / "data"
EXAMPLES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def per_query(qrels: Qrels, run: Run, names: list[str], profile: Any, **options: Any) -> Any:
    """rankscope's ``{query: {name: value}}`` (its warnings on queries on one side only off)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return rankscope.evaluate(qrels, run, names, profile=profile, **options).to_dict()


def common(qrels: Qrels, run: Run) -> list[str]:
    """The queries both judged and ranked (none if nothing is judged: an error to evaluate)."""
    if not any(qrels.values()) or not any(run.values()):
        return []
    return sorted(q for q in run if qrels.get(q))


def assert_close(got: dict[Any, float], expected: dict[Any, float], tolerance: float) -> None:
    assert set(got) == set(expected), "evaluated queries or measures differ"
    mismatches = [
        (key, got[key], expected[key])
        for key in sorted(expected)
        if not math.isclose(got[key], expected[key], rel_tol=tolerance, abs_tol=tolerance)
    ]
    assert not mismatches, mismatches[:10]


def flat(values: dict[str, dict[str, float]]) -> dict[tuple[str, str], float]:
    return {(q, name): v for q, row in values.items() for name, v in row.items()}


# ir_measures ----------------------------------------------------------------------------------

COMPAT_NAMES = [
    "Compat",
    "Compat(p=0.8)",
    "Compat(normalize=False)",
    "Compat(p=0.5,normalize=False)",
]


def test_the_compat_example_of_equal_grades() -> None:
    """qrels {a: 2, b: 2}, run {a: -1.0}: ir_measures' ideal ranks b (unretrieved, 0.0) first."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = {"q": {"a": 2, "b": 2}}, {"q": {"a": -1.0}}
    (theirs,) = ir_measures.compat.iter_calc([ir_measures.parse_measure("Compat")], qrels, run)
    ours = rankscope.evaluate(qrels, run, "Compat", profile="ir_measures").mean()["Compat"]
    assert round(ours, 6) == round(theirs.value, 6) == 0.243590
    assert round(rankscope.evaluate(qrels, run, "Compat").mean()["Compat"], 6) == 0.756410


@EXAMPLES
@given(qrels=qrels_strategy, run=run_strategy)
def test_compat_is_the_compat_provider_s(qrels: Qrels, run: Run) -> None:
    """The compat provider ranks ties by doc id ascending at float64, where the profile ranks
    as pytrec_eval (ids descending, float32): with those two conventions as the provider's,
    every value is equal. It divides by zero for a query with nothing ranked and nothing
    relevant, which rankscope scores 0: those queries are left out of its run. As ir_measures
    scores every judged query (0 where the run has none), rankscope runs with ``complete``; a
    query the qrels list without a judgement is no judged query for rankscope."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {q: docs for q, docs in qrels.items() if docs}
    run = {
        q: docs
        for q, docs in run.items()
        if docs or any(grade > 0 for grade in qrels.get(q, {}).values())
    }
    assume(common(qrels, run))
    expected: dict[tuple[str, str], float] = {}
    for name in COMPAT_NAMES:
        for metric in ir_measures.compat.iter_calc([ir_measures.parse_measure(name)], qrels, run):
            expected[metric.query_id, name] = metric.value
    provider = PROFILES["ir_measures"].with_options(
        ordering="score_then_docid_asc", score_precision="float64"
    )
    ours = per_query(qrels, run, COMPAT_NAMES, provider, complete=True)
    assert_close(flat(ours), expected, 1e-12)


DEFAULT_PIPELINE = ["nDCG@10", "nDCG", "P@5", "P(rel=2)@5", "AP", "RR", "R@10", "Rprec"]


@EXAMPLES
@given(qrels=qrels_strategy, run=run_strategy)
def test_the_default_pipeline_is_the_profile_s(qrels: Qrels, run: Run) -> None:
    """ir_measures computes these with pytrec_eval (in a child: it may crash on some queries
    without a relevant document retrieved); every judged query gets a value, 0 where the run
    does not rank it, which is rankscope's ``complete=True``."""
    pytest.importorskip("ir_measures")
    qrels = {q: docs for q, docs in qrels.items() if docs}
    assume(common(qrels, run))
    theirs = in_child(ir_measures_values, DEFAULT_PIPELINE, qrels, run)
    assume(theirs is not None)
    ours = per_query(qrels, run, DEFAULT_PIPELINE, "ir_measures", complete=True)
    ours = {q: row for q, row in ours.items() if q in theirs}
    assert_close(flat(ours), flat(theirs), 1e-12)


# BEIR -----------------------------------------------------------------------------------------

BEIR_CUTOFFS = [1, 3, 5, 10, 100, 1000]


def beir_evaluate(qrels: Qrels, results: Run) -> tuple[dict[str, float], ...]:
    """BEIR's ``EvaluateRetrieval.evaluate(qrels, results, k_values)`` as its source makes it,
    with ``ignore_identical_ids=True`` (its default), on a copy of the run (BEIR pops from the
    caller's): pytrec_eval's map_cut, ndcg_cut, recall and P at each k, averaged over the
    queries pytrec_eval scores, rounded to 5 decimals. None if pytrec_eval crashes."""
    results = {q: {d: s for d, s in docs.items() if d != q} for q, docs in results.items()}
    cutoffs = ",".join(str(k) for k in BEIR_CUTOFFS)
    strings = {f"map_cut.{cutoffs}", f"ndcg_cut.{cutoffs}", f"recall.{cutoffs}", f"P.{cutoffs}"}
    scores = pytrec_eval_in_child(qrels, results, strings)
    if scores is None or not scores:
        return ()
    out = []
    for key, theirs in (("NDCG", "ndcg_cut"), ("MAP", "map_cut"), ("Recall", "recall"), ("P", "P")):
        mean = {
            k: sum(s[f"{theirs}_{k}"] for s in scores.values()) / len(scores) for k in BEIR_CUTOFFS
        }
        out.append({f"{key}@{k}": round(mean[k], 5) for k in BEIR_CUTOFFS})
    return tuple(out)


def with_query_ids_as_documents(qrels: Qrels, run: Run) -> tuple[Qrels, Run]:
    """Documents d0 to d3 renamed q0 to q3, so that some queries retrieve (and judge) their
    own id, as on BEIR's data sets whose queries are documents of the corpus."""

    def rename(doc: str) -> str:
        return "q" + doc[1:] if doc in {"d0", "d1", "d2", "d3"} else doc

    return (
        {q: {rename(d): g for d, g in docs.items()} for q, docs in qrels.items()},
        {q: {rename(d): s for d, s in docs.items()} for q, docs in run.items()},
    )


@EXAMPLES
@given(qrels=qrels_strategy, run=run_strategy)
def test_beir_is_beir_s_evaluate(qrels: Qrels, run: Run) -> None:
    qrels, run = with_query_ids_as_documents(qrels, run)
    assume(common(qrels, run))
    theirs = beir_evaluate(qrels, run)
    assume(theirs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        means = rankscope.evaluate(qrels, run, profile="beir").mean()
    beir_names = {"NDCG": "nDCG", "MAP": "AP", "Recall": "R", "P": "P"}
    ours = {}
    for values in theirs:
        for name in values:
            family, k = name.split("@")
            ours[name] = round(means[f"{beir_names[family]}@{k}"], 5)
    expected = {name: value for values in theirs for name, value in values.items()}
    assert ours == expected


def test_beir_drops_a_query_s_own_id_and_pytrec_eval_does_not() -> None:
    qrels = {"q1": {"q1": 1, "d1": 1}}
    run = {"q1": {"q1": 2.0, "d1": 1.0}}
    assert rankscope.evaluate(qrels, run, "P@1", profile="beir").mean() == {"P@1": 1.0}
    ours = rankscope.evaluate(qrels, run, "nDCG@10", profile="beir").mean()["nDCG@10"]
    # d1 alone at rank 1, both judged relevant: 1 / (1 + 1/log2(3)).
    assert ours == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert rankscope.evaluate(qrels, run, "nDCG@10", profile="trec9").mean() == {"nDCG@10": 1.0}


# scikit-learn ---------------------------------------------------------------------------------

SKLEARN_CUTOFFS = [None, 1, 3, 5]


@EXAMPLES
@given(qrels=qrels_strategy, run=run_strategy)
def test_sklearn_is_ndcg_score(qrels: Qrels, run: Run) -> None:
    """Each judged query's ranking as ``ndcg_score`` takes it: ``y_true`` the retrieved
    documents' grades (0 unjudged; negative ones as 0, which ``ndcg_score`` requires),
    ``y_score`` their scores. ``ndcg_score`` refuses a list of one document, so queries ranking
    fewer than two are left out; the mean of a matrix of queries is the mean of their values."""
    metrics = pytest.importorskip("sklearn.metrics")
    import numpy as np

    run = {q: docs for q, docs in run.items() if len(docs) >= 2}
    queries = common(qrels, run)
    assume(queries)
    names = ["nDCG" if k is None else f"nDCG@{k}" for k in SKLEARN_CUTOFFS]
    expected: dict[tuple[str, str], float] = {}
    for q in queries:
        y_true = np.asarray([[max(qrels[q].get(d, 0), 0) for d in run[q]]])
        y_score = np.asarray([list(run[q].values())])
        for k, name in zip(SKLEARN_CUTOFFS, names, strict=True):
            expected[q, name] = float(metrics.ndcg_score(y_true, y_score, k=k))
    ours = per_query(qrels, run, names, "sklearn")
    ours = {q: row for q, row in ours.items() if q in queries}
    assert_close(flat(ours), expected, 1e-12)


GAINS = {0: 0.0, 1: 3.0, 2: 9.0, 3: 27.0}
"""The gains of ``nDCG(gains=...)`` below, by grade (``gains=`` leaves other grades at 0)."""


@EXAMPLES
@given(qrels=qrels_strategy, run=run_strategy)
def test_sklearn_ties_reach_every_dcg_measure(qrels: Qrels, run: Run) -> None:
    """Under ``tied_scores="averaged"`` every DCG measure averages its gains over each group of
    tied scores, as ``dcg_score`` and ``ndcg_score`` (``ignore_ties=False``) do with the gains
    as ``y_true``: ranx's ``dcg`` (the grade), ``dcg_burges`` and ``ndcg_burges``
    (``2^grade - 1``), and ``nDCG`` with ``gains=``."""
    metrics = pytest.importorskip("sklearn.metrics")
    import numpy as np

    run = {q: docs for q, docs in run.items() if len(docs) >= 2}
    queries = common(qrels, run)
    assume(queries)
    gains_text = ";".join(f"{grade}:{gain:g}" for grade, gain in GAINS.items())
    gain_of = {
        "dcg": lambda g: float(max(g, 0)),
        "dcg_burges": lambda g: 2.0 ** max(g, 0) - 1.0,
        "ndcg_burges": lambda g: 2.0 ** max(g, 0) - 1.0,
        f"nDCG(gains={gains_text})": lambda g: GAINS.get(g, 0.0),
    }
    score = {
        "dcg": metrics.dcg_score,
        "dcg_burges": metrics.dcg_score,
        "ndcg_burges": metrics.ndcg_score,
        f"nDCG(gains={gains_text})": metrics.ndcg_score,
    }
    names: list[str] = []
    expected: dict[tuple[str, str], float] = {}
    for family, gain in gain_of.items():
        for k in SKLEARN_CUTOFFS:
            name = family if k is None else f"{family}@{k}"
            names.append(name)
            for q in queries:
                y_true = np.asarray([[gain(qrels[q].get(d, 0)) for d in run[q]]])
                y_score = np.asarray([list(run[q].values())])
                expected[q, name] = float(score[family](y_true, y_score, k=k))
    ours = per_query(qrels, run, names, "sklearn")
    ours = {q: {n: row[n] for n in names} for q, row in ours.items() if q in queries}
    printed = {n: rankscope.engine.measures.measure(n).name for n in names}
    expected = {(q, printed[n]): v for (q, n), v in expected.items()}
    ours = {q: {printed[n]: v for n, v in row.items()} for q, row in ours.items()}
    assert_close(flat(ours), expected, 1e-12)


def test_sklearn_ties_share_positions_in_dcg_with_gains() -> None:
    """Two documents tied at the top, one relevant: each takes half of its gain at both
    positions, where the order of ``ordering`` puts it first or second."""
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    # dcg_burges' gain of grade 1 is 1, nDCG(gains=1:3)'s 3 over an ideal DCG of 3.
    half = (1.0 + 1.0 / math.log2(3)) / 2
    for name, value in [("dcg_burges@2", half), ("nDCG(gains=1:3)@2", half)]:
        ours = rankscope.evaluate(qrels, run, name, profile="sklearn").mean()
        assert list(ours.values()) == [pytest.approx(value, abs=1e-15)], name
        ordered = rankscope.evaluate(qrels, run, name, profile="trec").mean()
        assert list(ordered.values()) != list(ours.values()), name


def test_sklearn_averages_ties_as_its_docstring_example() -> None:
    """ndcg_score's own example: true relevance [10, 0, 0, 1, 5], scores [1, 0, 0, 0, 1]."""
    metrics = pytest.importorskip("sklearn.metrics")
    grades = [10, 0, 0, 1, 5]
    scores = [1.0, 0.0, 0.0, 0.0, 1.0]
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
    for k in (None, 1):
        name = "nDCG" if k is None else f"nDCG@{k}"
        ours = rankscope.evaluate(qrels, run, name, profile="sklearn").mean()[name]
        assert ours == pytest.approx(metrics.ndcg_score([grades], [scores], k=k), abs=1e-12)
    assert rankscope.evaluate(qrels, run, "nDCG@1", profile="sklearn").mean() == {"nDCG@1": 0.75}


# torchmetrics ---------------------------------------------------------------------------------


def torchmetrics_reference() -> dict[str, Any]:
    reference: dict[str, Any] = json.loads((DATA / "torchmetrics_ndcg.json").read_text())
    return reference


def test_torchmetrics_is_its_stored_values() -> None:
    reference = torchmetrics_reference()
    qrels, run, values = reference["qrels"], reference["run"], reference["values"]
    names = list(reference["means"])
    ours = per_query(qrels, run, names, "torchmetrics")
    # torchmetrics computes in float32.
    assert_close(flat(ours), flat(values), 2e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        means = rankscope.evaluate(qrels, run, names, profile="torchmetrics").mean()
    assert_close(means, reference["means"], 2e-6)
    # The conventions it stands on: ties averaged (float32 ties too), nothing judged outside
    # the ranking; under trec's conventions the values differ.
    trec = per_query(qrels, run, names, "trec")
    assert sum(abs(trec[q][n] - values[q][n]) > 1e-3 for q in values for n in names) > 10


def test_torchmetrics_itself_where_installed() -> None:
    torch = pytest.importorskip("torch", reason="torchmetrics needs torch (not in the test extra)")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    reference = torchmetrics_reference()
    qrels, run = reference["qrels"], reference["run"]
    for q, docs in run.items():
        preds = torch.tensor(list(docs.values()), dtype=torch.float32)
        target = torch.tensor([max(qrels[q].get(d, 0), 0) for d in docs])
        metric = retrieval.RetrievalNormalizedDCG(top_k=3)
        metric.update(preds, target, indexes=torch.zeros(len(preds), dtype=torch.long))
        ours = per_query({q: qrels[q]}, {q: docs}, ["nDCG@3"], "torchmetrics")[q]["nDCG@3"]
        assert ours == pytest.approx(float(metric.compute()), abs=2e-6)


# ranx -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ranx_is_ranx_s_evaluate() -> None:
    """On untied data (ranx orders tied documents as numba's quicksort leaves them)."""
    ranx = pytest.importorskip("ranx")
    from test_ranx_names import generate

    qrels, run = generate(13)
    names = ["ndcg@10", "map@100", "mrr@100", "ndcg", "precision@5", "recall@20", "ndcg_burges@5"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, return_mean=False)
    results = rankscope.evaluate(qrels, run, names, profile="ranx").to_dict()
    ours = {(q, n): results[q][n] for q in results for n in names}
    expected = {
        (q, n): float(v) for n in names for q, v in zip(sorted(qrels), theirs[n], strict=True)
    }
    assert_close(ours, expected, 1e-12)
    defaults = rankscope.evaluate(qrels, run, profile="ranx").mean()
    assert list(defaults) == ["nDCG@10", "AP@100", "RR@100"]
