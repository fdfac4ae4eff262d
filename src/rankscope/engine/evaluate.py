"""`evaluate`: from qrels, a run and measure names to per-query values and aggregates."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, cast

import polars as pl

from rankscope.engine.compute import compute
from rankscope.engine.measures import FAMILIES, Measure, parse_measures
from rankscope.engine.prepare import prepare
from rankscope.engine.profiles import Conventions, resolve_profile
from rankscope.engine.results import Results
from rankscope.engine.stream import closing_iterator, evaluate_chunks, read_ahead
from rankscope.errors import (
    InputError,
    MeasureError,
    OptionError,
    ProfileError,
    RankscopeError,
    RankscopeWarning,
)
from rankscope.io import read_run_batches
from rankscope.io._files import STDIN
from rankscope.io._inputs import as_qrels, as_run
from rankscope.io._stream import (
    DEFAULT_CHUNK_BYTES,
    FastPathUnavailable,
    is_trec_run_file,
    read_run_chunks,
)
from rankscope.io.tables import QUERY_ID, Qrels, Run

__all__ = ["STREAM_THRESHOLD_BYTES", "evaluate"]

STREAM_THRESHOLD_BYTES = 2 * 1024**3
"""TREC run files at least this large are never read whole unless ``stream=False``."""

CHUNKED_MIN_BYTES = 64 * 1024**2
"""Smaller run files are read whole: chunks read ahead pay for their threads on larger ones."""

PathLike = str | os.PathLike[str]


def _reading(run: Any, stream: bool | None) -> str:
    """How to read ``run``: ``"whole"`` into memory; ``"chunks"``, in chunks of whole queries
    read ahead on another core if the fast reader takes the file and it is grouped by query
    (else whole); or ``"stream"``, block by block whatever it holds (asked for, or large)."""
    if stream is True and not isinstance(run, str | os.PathLike):
        raise InputError(
            f"stream=True needs the run as a file path; a {type(run).__name__} is already in memory"
        )
    if not isinstance(run, str | os.PathLike) or stream is False:
        return "whole"
    if stream is None:
        path = Path(run)
        if str(run) == STDIN or not path.is_file():
            return "whole"  # standard input or a pipe can be read only once
        size = path.stat().st_size
        if size < CHUNKED_MIN_BYTES or not is_trec_run_file(run):
            return "whole"
        return "stream" if size >= STREAM_THRESHOLD_BYTES else "chunks"
    if not is_trec_run_file(run):
        raise InputError(
            "only TREC run files can be streamed; read this one in memory (stream=False)",
            source=str(run),
        )
    return "stream"


def _read_ahead_chunks(path: PathLike, chunk_bytes: int) -> Iterator[Run]:
    """`read_run_chunks`, the next chunk read on another core while this one is scored."""
    return read_ahead(read_run_chunks(path, chunk_bytes))


def _evaluate_chunks(
    qrels: Qrels,
    chunks: Callable[[], Iterable[Run]],
    measures: list[Measure],
    conventions: Conventions,
    **options: Any,
) -> tuple[pl.DataFrame, list[str], list[str], str]:
    """`evaluate_chunks` (grouped: True unless said), and the name of the run (that of its first
    chunk; '' if none)."""
    names: list[str] = []

    def named() -> Iterator[Run]:
        with closing_iterator(chunks()) as each:
            for chunk in each:
                names.append(chunk.name)
                yield chunk

    options.setdefault("grouped", True)
    per_query, unjudged, missing = evaluate_chunks(qrels, named, measures, conventions, **options)
    return per_query, unjudged, missing, names[0] if names else ""


def _check_profile_support(measures: list[Measure], conventions: Conventions) -> None:
    for m in measures:
        if FAMILIES[m.family].kind == "answer":
            raise MeasureError(
                f"{m.name} scores generated answers, not rankings; use "
                "rankscope.evaluate_answers (command line: rankscope answers)"
            )
    if not conventions.binary_relevance:
        return
    for m in measures:
        family = FAMILIES[m.family]
        if not family.weknora:
            supported = ", ".join(
                f.name for f in FAMILIES.values() if f.weknora and f.kind == "ranking"
            )
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


def evaluate(
    qrels: Qrels | Mapping[Any, Any] | PathLike | Any,
    run: Run | Mapping[Any, Any] | PathLike | Any,
    measures: str | Measure | Iterable[str | Measure],
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    stream: bool | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    lenient: bool = False,
) -> Results:
    """Evaluate a run against qrels: per-query values and aggregates of each measure.

    Parameters
    ----------
    qrels
        Judgements: a `Qrels`, ``{query_id: {doc_id: grade}}``, a file path, a frame (polars,
        pandas, pyarrow, ``datasets.Dataset``, any Arrow stream) with the usual column names,
        or an iterable of records such as ir_datasets' ``qrels_iter()`` or ir_measures'
        ``Qrel`` tuples (see `rankscope.io.as_qrels`).
    run
        Rankings: a `Run`, ``{query_id: {doc_id: score}}``, ``{query_id: [doc_id, ...]}``, a
        file path (any format `rankscope.io.read_run` reads), a frame, or an iterable of
        records such as ``scoreddocs_iter()`` or ir_measures' ``ScoredDoc`` tuples.
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
    stream
        For a TREC run file. None (the default): a plain file of ``CHUNKED_MIN_BYTES`` or more
        is read in chunks of whole queries, the next chunk read (by polars, on another core)
        while this one is scored, when it is grouped by query and passes the fast reader's
        checks; anything else is read whole (from ``STREAM_THRESHOLD_BYTES`` on, as with
        True). True: evaluate it block by block whatever it holds, with memory bounded by
        ``chunk_bytes``; a run whose queries are not grouped is spread over partition files
        on disk first (with a warning). False: read it whole. The values are identical either
        way.
    chunk_bytes
        How much of the run file a streamed chunk reads.
    lenient
        For inputs given as file paths: skip malformed lines (counted in a warning) instead of
        raising at the first.

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
    for option, value in (
        ("relevance_level", relevance_level),
        ("max_documents", max_documents),
        ("chunk_bytes", chunk_bytes),
    ):
        if value is None and option == "max_documents":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise OptionError(f"{option} must be an integer >= 1; got {value!r}")
    for option, flag in (("complete", complete), ("lenient", lenient)):
        if not isinstance(flag, bool):
            raise OptionError(f"{option} must be True or False; got {flag!r}")
    wanted = parse_measures(measures)
    _check_profile_support(wanted, conventions)
    judgements = as_qrels(qrels, lenient=lenient)

    how = _reading(run, stream)
    scored: tuple[pl.DataFrame, list[str], list[str], str] | None = None
    path = cast(PathLike, run)
    options: dict[str, Any] = {
        "relevance_level": relevance_level,
        "complete": complete,
        "max_documents": max_documents,
    }
    if how == "chunks":
        # Most run files: polars reads the next chunk while this one is scored.
        chunks = partial(_read_ahead_chunks, path, chunk_bytes)
        try:
            scored = _evaluate_chunks(judgements, chunks, wanted, conventions, **options)
        except (FastPathUnavailable, RankscopeError):
            # Not for the fast reader, not grouped, or an error that a check of a later chunk
            # might have overtaken: reading the run whole decides, and words any error.
            scored = None
    elif how == "stream":  # any TREC file, block by block (grouped or not)
        blocks = partial(read_run_batches, path, chunk_bytes, lenient=lenient)
        scored = _evaluate_chunks(judgements, blocks, wanted, conventions, grouped=None, **options)
    if scored is not None:
        per_query, unjudged, missing, run_name = scored
        if not run_name:
            run_name = Path(str(run)).stem
    else:
        ranking = as_run(run, lenient=lenient)
        prepared = prepare(
            judgements,
            ranking,
            conventions,
            relevance_level=relevance_level,
            complete=complete,
            max_documents=max_documents,
        )
        values = compute(prepared.batch, wanted, conventions, relevance_level)
        per_query = pl.DataFrame(
            {QUERY_ID: prepared.batch.query_ids, **{m.name: values[m] for m in wanted}},
            schema={QUERY_ID: pl.String, **{m.name: pl.Float64 for m in wanted}},
        ).sort(QUERY_ID)
        unjudged, missing = prepared.unjudged_queries, prepared.missing_queries
        run_name = ranking.name
    if unjudged:
        shown = ", ".join(unjudged[:5])
        more = "..." if len(unjudged) > 5 else ""
        warnings.warn(
            f"{len(unjudged)} queries of run {run_name!r} have no judgements and were "
            f"ignored: {shown}{more}",
            RankscopeWarning,
            stacklevel=2,
        )
    return Results(
        measures=tuple(wanted),
        per_query=per_query,
        profile=conventions.name,
        run_name=run_name,
        unjudged_queries=tuple(unjudged),
        missing_queries=tuple(missing),
        complete=complete,
    )
