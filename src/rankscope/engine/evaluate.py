"""`evaluate`: from qrels, a run and measure names to per-query values and aggregates."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from rankscope.engine.batch import RankedBatch
from rankscope.engine.measures import FAMILIES, Measure, parse_measures
from rankscope.engine.prepare import prepare
from rankscope.engine.profiles import Conventions, resolve_profile
from rankscope.engine.results import Results
from rankscope.errors import InputError, ProfileError, RankscopeWarning
from rankscope.io.tables import QUERY_ID, Qrels, Run

__all__ = ["compute", "evaluate"]


def _as_qrels(qrels: Qrels | Mapping[Any, Any]) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    raise InputError(
        f"qrels must be a Qrels or a dict {{query_id: {{doc_id: grade}}}}; "
        f"got {type(qrels).__name__}"
    )


def _as_run(run: Run | Mapping[Any, Any]) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        lists = all(not isinstance(v, Mapping) for v in run.values())
        return Run.from_lists(run) if lists and run else Run.from_dict(run)
    raise InputError(
        f"run must be a Run, a dict {{query_id: {{doc_id: score}}}} or {{query_id: [doc_id]}}; "
        f"got {type(run).__name__}"
    )


def _check_profile_support(measures: list[Measure], conventions: Conventions) -> None:
    if not conventions.binary_relevance:
        return
    for m in measures:
        family = FAMILIES[m.family]
        if not family.weknora:
            supported = ", ".join(f.name for f in FAMILIES.values() if f.weknora)
            raise ProfileError(
                f"{m.name} is not defined by the {conventions.name} profile "
                f"(it defines {supported}); use profile='trec'"
            )
        if m.relevance_level is not None:
            raise ProfileError(
                f"{m.name}: the {conventions.name} profile has binary relevance; set "
                "relevance_level on evaluate() instead of rel= on the measure"
            )
        if m.family != "nDCG" and m.cutoff is not None:
            raise ProfileError(
                f"{m.name}: the {conventions.name} profile defines {m.family} over the whole "
                f"ranking, without a cutoff; use {m.family} or profile='trec'"
            )


def compute(
    batch: RankedBatch,
    measures: Iterable[Measure],
    conventions: Conventions,
    relevance_level: int = 1,
) -> dict[Measure, Any]:
    """Every measure's per-query values on a prepared batch, in one pass over shared arrays."""
    level_default = 1 if conventions.binary_relevance else relevance_level
    return {
        m: FAMILIES[m.family].kernel(batch, m, conventions, m.relevance_level or level_default)
        for m in measures
    }


def evaluate(
    qrels: Qrels | Mapping[Any, Any],
    run: Run | Mapping[Any, Any],
    measures: str | Measure | Iterable[str | Measure],
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
) -> Results:
    """Evaluate a run against qrels: per-query values and aggregates of each measure.

    Parameters
    ----------
    qrels
        Judgements: a `Qrels`, or ``{query_id: {doc_id: grade}}``.
    run
        Rankings: a `Run`, ``{query_id: {doc_id: score}}`` or ``{query_id: [doc_id, ...]}``.
    measures
        Names such as ``"nDCG@10"``, ``"AP"``, ``"P(rel=2)@5"`` or trec_eval's ``"ndcg_cut.10"``.
    profile
        ``"trec"`` (trec_eval 10, the default), ``"trec9"`` (scores rounded to float32 before
        sorting, as trec_eval <= 9.0.8 and pytrec_eval) or ``"weknora"``.
    complete
        Score judged queries missing from the run as 0 and include them in the aggregates
        (trec_eval ``-c``). Otherwise they are left out.
    relevance_level
        Lowest grade that counts as relevant for binary measures (trec_eval ``-l``).
    max_documents
        Evaluate only the first ``max_documents`` of each ranking (trec_eval ``-M``).
    duplicate_documents
        Override the profile's policy for a document ranked twice in one query:
        ``"error"``, ``"keep_first"`` or ``"keep_all"``.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d5": 0.9, "d4": 0.1}}
    >>> results = rankscope.evaluate(qrels, run, ["nDCG@2", "P@2", "RR"])
    >>> results.mean()
    {'nDCG@2': 0.6955..., 'P@2': 0.5, 'RR': 0.75}
    >>> results.to_dict()["q2"]
    {'nDCG@2': 0.6309297535714575, 'P@2': 0.5, 'RR': 0.5}

    Ties in score are broken by document id, descending, as trec_eval does; the order of the
    input does not matter:

    >>> rankscope.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, "RR").mean()
    {'RR': 0.5}
    """
    conventions = resolve_profile(profile)
    if duplicate_documents is not None:
        conventions = conventions.with_options(duplicate_documents=duplicate_documents)
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
        raise InputError(f"relevance_level must be an integer >= 1; got {relevance_level!r}")
    if relevance_level < 1:
        raise InputError(f"relevance_level must be an integer >= 1; got {relevance_level}")
    if max_documents is not None and (not isinstance(max_documents, int) or max_documents < 1):
        raise InputError(f"max_documents must be an integer >= 1; got {max_documents!r}")
    wanted = parse_measures(measures)
    _check_profile_support(wanted, conventions)
    qrels, run = _as_qrels(qrels), _as_run(run)

    prepared = prepare(
        qrels,
        run,
        conventions,
        relevance_level=relevance_level,
        complete=complete,
        max_documents=max_documents,
    )
    if prepared.unjudged_queries:
        shown = ", ".join(prepared.unjudged_queries[:5])
        more = "..." if len(prepared.unjudged_queries) > 5 else ""
        warnings.warn(
            f"{len(prepared.unjudged_queries)} queries of run {run.name!r} have no judgements "
            f"and were ignored: {shown}{more}",
            RankscopeWarning,
            stacklevel=2,
        )
    values = compute(prepared.batch, wanted, conventions, relevance_level)
    per_query = pl.DataFrame(
        {QUERY_ID: prepared.batch.query_ids, **{m.name: values[m] for m in wanted}},
        schema={QUERY_ID: pl.String, **{m.name: pl.Float64 for m in wanted}},
    )
    return Results(
        measures=tuple(wanted),
        per_query=per_query,
        profile=conventions.name,
        run_name=run.name,
        unjudged_queries=tuple(prepared.unjudged_queries),
        missing_queries=tuple(prepared.missing_queries),
        complete=complete,
    )
