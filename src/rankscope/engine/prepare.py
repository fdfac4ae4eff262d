"""Prepare: validate, de-duplicate, order and join a run with its qrels into a `RankedBatch`.

All the work is done by polars on whole columns (multi-threaded); the result is a handful of
numpy arrays. The batch's queries come in no particular order; results are sorted by id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from rankscope.engine.batch import UNJUDGED, RankedBatch
from rankscope.engine.profiles import Conventions
from rankscope.errors import DuplicateDocumentError, InputError
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE, Qrels, Run

__all__ = ["NoCommonQueriesError", "Prepared", "check_qrels", "prepare", "prepare_query"]

_ORDER = "_order"
_QUERY_INDEX = "_query_index"
_QUERY_CODE = "_query_code"


class NoCommonQueriesError(InputError):
    """No query of the run has judgements (so there is nothing to evaluate)."""


@dataclass(frozen=True, eq=False)
class Prepared:
    """A batch with what was left out on the way.

    Attributes
    ----------
    batch
        The queries to evaluate.
    unjudged_queries
        Query ids of the run that have no judgements (ignored, as trec_eval does).
    missing_queries
        Judged query ids absent from the run (scored 0 under ``complete``, else left out).
    """

    batch: RankedBatch
    unjudged_queries: list[str]
    missing_queries: list[str]


def _offsets(counts: np.ndarray) -> np.ndarray:
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _duplicate_error(frame: pl.DataFrame, what: str, source: str) -> DuplicateDocumentError:
    dup = frame.filter(pl.struct(QUERY_ID, DOC_ID).is_duplicated()).row(0, named=True)
    rule = (
        "each document may be judged once per query"
        if what == "qrels"
        else "each document may be ranked once per query (evaluate(..., "
        "duplicate_documents='keep_first') keeps the first, as ranked by score)"
    )
    return DuplicateDocumentError(
        f"document {dup[DOC_ID]!r} appears more than once in the {what} of query "
        f"{dup[QUERY_ID]!r}; {rule}",
        source=source,
    )


# A 64-bit key per (query_id, doc_id) pair: hashing two short strings is far cheaper than
# comparing them, and every use below stays exact (equal pairs always have equal keys; where
# keys meet, the strings are compared).
_PAIR_KEY = pl.col(DOC_ID).hash(0x5EED).xor(pl.col(QUERY_ID).hash(0xD0C)).alias("_pair_key")


def _has_duplicates(frame: pl.DataFrame, keys: pl.Series | None = None) -> bool:
    """Whether a (query_id, doc_id) pair occurs twice (``keys``: the frame's pair keys, if
    already computed).

    Distinct keys mean distinct pairs; only rows whose keys repeat (true duplicates or, rarely,
    collisions) are compared as strings.
    """
    keys = frame.select(_PAIR_KEY).to_series() if keys is None else keys
    if keys.n_unique() == frame.height:
        return False
    candidates = frame.filter(keys.is_duplicated())
    return bool(candidates.select(pl.struct(QUERY_ID, DOC_ID).is_duplicated().any()).item())


def _with_grades(ranked: pl.DataFrame, grades: pl.DataFrame, keys: pl.Series) -> pl.DataFrame:
    """``ranked`` (order kept) with the relevance of each (query_id, doc_id) from ``grades``,
    null where not judged. Joined on the pair keys (``keys``, ranked's) and checked; by strings
    on a collision."""
    keyed = grades.select(
        _PAIR_KEY, RELEVANCE, pl.col(QUERY_ID).alias("_q"), pl.col(DOC_ID).alias("_d")
    )
    if keyed["_pair_key"].n_unique() == keyed.height:
        joined = ranked.with_columns(keys).join(
            keyed, on="_pair_key", how="left", maintain_order="left"
        )
        same = pl.col("_q").is_null() | (
            (pl.col("_q") == pl.col(QUERY_ID)) & (pl.col("_d") == pl.col(DOC_ID))
        )
        if joined.select(same.all()).item():
            return joined.drop("_pair_key", "_q", "_d")
    return ranked.join(grades, on=[QUERY_ID, DOC_ID], how="left", maintain_order="left")


def _ordered_run(frame: pl.DataFrame, conventions: Conventions) -> pl.DataFrame:
    """The rows grouped by query, in rank order within each query.

    Queries are grouped by an integer code of their id (sorting on it is several times cheaper
    than on the strings); their order in the result is therefore arbitrary.
    """
    code = pl.col(QUERY_ID).cast(pl.Categorical).to_physical().alias(_QUERY_CODE)
    if conventions.ordering == "as_given":
        return (
            frame.with_row_index(_ORDER)
            .with_columns(code)
            .sort([_QUERY_CODE, _ORDER], maintain_order=True)
            .drop(_ORDER, _QUERY_CODE)
        )
    score = pl.col(SCORE)
    if conventions.score_precision == "float32":
        score = score.cast(pl.Float32).cast(pl.Float64)
    return (
        frame.with_columns(score, code)
        .sort([_QUERY_CODE, SCORE, DOC_ID], descending=[False, True, True], maintain_order=True)
        .drop(_QUERY_CODE)
    )


def check_qrels(qrels: Qrels, conventions: Conventions) -> None:
    """Refuse a document judged twice in one query (unless the profile counts duplicates)."""
    if not conventions.keeps_duplicate_judgements and _has_duplicates(qrels.frame):
        raise _duplicate_error(qrels.frame, "qrels", qrels.source)


def prepare(
    qrels: Qrels,
    run: Run,
    conventions: Conventions,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_documents: int | None = None,
    qrels_checked: bool = False,
) -> Prepared:
    """Join ``run`` with ``qrels`` under ``conventions`` into a `RankedBatch`.

    Parameters
    ----------
    relevance_level
        Used only by profiles with binary relevance, whose grades become 0 or 1 here.
    complete
        Include judged queries absent from the run, with an empty ranking.
    max_documents
        Keep only the first ``max_documents`` of each query's ranking (trec_eval ``-M``).
    qrels_checked
        The qrels were already checked with `check_qrels` (streaming checks them once).
    """
    judgements = qrels.frame
    if not qrels_checked:
        check_qrels(qrels, conventions)

    judged_queries = judgements.select(pl.col(QUERY_ID).unique())
    run_queries = run.frame.select(pl.col(QUERY_ID).unique())
    unjudged = run_queries.join(judged_queries, on=QUERY_ID, how="anti")[QUERY_ID]
    missing = judged_queries.join(run_queries, on=QUERY_ID, how="anti")[QUERY_ID]
    common = judged_queries.join(run_queries, on=QUERY_ID)
    if common.height == 0 and not complete:
        raise NoCommonQueriesError(
            f"no query of the run ({run.source}) is judged in the qrels ({qrels.source}): "
            f"the run has {run_queries.height} queries, the qrels {judged_queries.height}, "
            "none in common; check that the query ids match"
        )

    rows = run.frame
    if unjudged.len():
        rows = rows.filter(~pl.col(QUERY_ID).is_in(unjudged.implode()))
    # From here on rows are grouped by query, and every join keeps the left order, so rank
    # order survives to the arrays. The batch's queries come in the order of the groups.
    ranked = _ordered_run(rows, conventions)
    if conventions.duplicate_documents == "keep_first":
        ranked = ranked.unique([QUERY_ID, DOC_ID], keep="first", maintain_order=True)
    blocks = ranked[QUERY_ID].rle().struct.unnest()
    lengths = blocks["len"].to_numpy().astype(np.int64)
    if max_documents is not None and lengths.max(initial=0) > max_documents:
        starts = np.repeat(_offsets(lengths)[:-1], lengths)
        keep = np.arange(ranked.height) - starts < max_documents
        ranked = ranked.filter(pl.Series(keep))
        lengths = np.minimum(lengths, max_documents)
    # As trec_eval: duplicates are looked for in what is evaluated, after the cut at -M.
    keys = ranked.select(_PAIR_KEY).to_series()
    if conventions.duplicate_documents == "error" and _has_duplicates(ranked, keys):
        raise _duplicate_error(ranked, "run", run.source)

    grade_of = judgements.unique([QUERY_ID, DOC_ID], keep="first")
    relevance = pl.col(RELEVANCE)
    if conventions.binary_relevance:
        relevance = (relevance >= relevance_level).cast(pl.Int64)
    ranked = _with_grades(ranked, grade_of.select(QUERY_ID, DOC_ID, relevance), keys)

    # The batch's queries: the run's, in the order of its groups, then (complete) the missing.
    evaluated = blocks.select(pl.col("value").alias(QUERY_ID))
    if complete:
        evaluated = pl.concat([evaluated, missing.sort().to_frame(QUERY_ID)])
    evaluated = evaluated.with_row_index(_QUERY_INDEX)
    judged = (
        judgements.join(evaluated, on=QUERY_ID)
        .select(_QUERY_INDEX, relevance)
        .sort([_QUERY_INDEX, RELEVANCE], descending=[False, True])
    )
    num_queries = evaluated.height
    retrieved_counts = np.zeros(num_queries, dtype=np.int64)
    retrieved_counts[: lengths.size] = lengths
    judged_counts = np.bincount(judged[_QUERY_INDEX].to_numpy(), minlength=num_queries)
    distinct = None
    if conventions.keeps_duplicate_judgements:
        distinct_rows = grade_of.join(evaluated, on=QUERY_ID).filter(relevance >= 1)
        distinct = np.bincount(
            distinct_rows[_QUERY_INDEX].to_numpy(), minlength=num_queries
        ).astype(np.int64)

    batch = RankedBatch(
        query_ids=evaluated[QUERY_ID].to_list(),
        offsets=_offsets(retrieved_counts),
        grades=ranked[RELEVANCE].fill_null(UNJUDGED).to_numpy().astype(np.int64, copy=False),
        judged_offsets=_offsets(judged_counts),
        judged=judged[RELEVANCE].to_numpy().astype(np.int64, copy=False),
        num_distinct_relevant=distinct,
    )
    return Prepared(batch, sorted(unjudged.to_list()), sorted(missing.to_list()))


def prepare_query(
    judged: Sequence[tuple[str, int]],
    ranking: Sequence[tuple[str, float]],
    conventions: Conventions,
    *,
    relevance_level: int = 1,
    query_id: str = "q",
) -> RankedBatch:
    """A one-query `RankedBatch` from Python lists, without building tables.

    The same rules as :func:`prepare` (ordering, float32 scores, duplicates, binary relevance),
    for the single-query paths: WeKnora's metric API and the service, which score one question
    at a time. ``judged`` holds ``(doc_id, grade)`` pairs, ``ranking`` ``(doc_id, score)``
    pairs; an empty ranking gives a query with nothing retrieved.

    Examples
    --------
    >>> from rankscope.engine.profiles import PROFILES
    >>> batch = prepare_query([("a", 2), ("b", 0)], [("b", 0.5), ("a", 0.5), ("c", 0.9)],
    ...                       PROFILES["trec"])
    >>> batch.grades.tolist(), batch.judged.tolist()
    ([-1, 0, 2], [2, 0])
    """
    if not conventions.keeps_duplicate_judgements and len({d for d, _ in judged}) != len(judged):
        frame = pl.DataFrame({QUERY_ID: [query_id] * len(judged), DOC_ID: [d for d, _ in judged]})
        raise _duplicate_error(frame, "qrels", f"<judgements of query {query_id}>")
    ordered: Sequence[tuple[str, float]] = ranking
    if conventions.ordering == "score_then_docid_desc":
        if conventions.score_precision == "float32":
            ordered = [(doc, float(np.float32(score))) for doc, score in ranking]
        # Python's sort is stable with reverse=True: score, then doc id, both descending.
        ordered = sorted(ordered, key=lambda pair: (pair[1], pair[0]), reverse=True)
    docs = [doc for doc, _ in ordered]
    if conventions.duplicate_documents != "keep_all" and len(set(docs)) != len(docs):
        if conventions.duplicate_documents == "error":
            frame = pl.DataFrame({QUERY_ID: [query_id] * len(docs), DOC_ID: docs})
            raise _duplicate_error(frame, "run", f"<ranking of query {query_id}>")
        docs = list(dict.fromkeys(docs))
    grade_of: dict[str, int] = {}
    for doc, grade in judged:
        grade_of.setdefault(doc, grade)
    judged_grades = [grade for _, grade in judged]
    if conventions.binary_relevance:
        grade_of = {doc: int(grade >= relevance_level) for doc, grade in grade_of.items()}
        judged_grades = [int(grade >= relevance_level) for grade in judged_grades]
    grades = [grade_of.get(doc, UNJUDGED) for doc in docs]
    distinct = None
    if conventions.keeps_duplicate_judgements:
        distinct = np.array([sum(grade >= 1 for grade in grade_of.values())], dtype=np.int64)
    return RankedBatch(
        query_ids=[query_id],
        offsets=np.array([0, len(grades)], dtype=np.int64),
        grades=np.array(grades, dtype=np.int64),
        judged_offsets=np.array([0, len(judged_grades)], dtype=np.int64),
        judged=np.sort(np.array(judged_grades, dtype=np.int64))[::-1].copy(),
        num_distinct_relevant=distinct,
    )
