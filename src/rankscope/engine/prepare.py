"""Prepare: validate, de-duplicate, order and join a run with its qrels into a `RankedBatch`.

All the work is done by polars on whole columns (multi-threaded); the result is a handful of
numpy arrays. The batch's queries come in no particular order; results are sorted by id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from rankscope.engine.batch import UNJUDGED, RankedBatch
from rankscope.engine.profiles import Conventions
from rankscope.errors import DuplicateDocumentError, NoCommonQueriesError
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE, Qrels, Run

__all__ = ["NoCommonQueriesError", "Prepared", "check_qrels", "prepare", "prepare_query"]

_ORDER = "_order"
_QUERY_INDEX = "_query_index"
_QUERY_CODE = "_query_code"
_ROW = "_row"
_CHECK_BESIDE_ROWS = 500_000  # runs at least this long are checked for duplicates on a thread


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


def _grades(ranked: pl.DataFrame, grades: pl.DataFrame, keys: pl.Series) -> np.ndarray:
    """The grade of each row of ``ranked`` from ``grades`` (query_id, doc_id, relevance),
    `UNJUDGED` where not judged.

    Only the judged rows are looked up: an inner join of ``keys`` (ranked's pair keys) with the
    judgements' keys finds them, the strings of those rows are compared, and the grades are put
    in place; on a collision, a join by strings decides.
    """
    keyed = grades.select(
        _PAIR_KEY, RELEVANCE, pl.col(QUERY_ID).alias("_q"), pl.col(DOC_ID).alias("_d")
    )
    if keyed["_pair_key"].n_unique() == keyed.height:
        matched = keys.to_frame().with_row_index(_ROW).join(keyed, on="_pair_key", how="inner")
        rows = matched[_ROW]
        same = (ranked[QUERY_ID].gather(rows) == matched["_q"]) & (
            ranked[DOC_ID].gather(rows) == matched["_d"]
        )
        if bool(same.all()):
            values = np.full(ranked.height, UNJUDGED, dtype=np.int64)
            values[rows.to_numpy()] = matched[RELEVANCE].to_numpy()
            return values
    joined = ranked.join(grades, on=[QUERY_ID, DOC_ID], how="left", maintain_order="left")
    return joined[RELEVANCE].fill_null(UNJUDGED).to_numpy().astype(np.int64, copy=False)


@dataclass(frozen=True)
class _Groups:
    """Rows grouped by query: the query id of each group and its number of rows, in order."""

    queries: pl.Series
    lengths: np.ndarray

    @classmethod
    def of(cls, frame: pl.DataFrame) -> _Groups:
        blocks = frame[QUERY_ID].rle().struct.unnest()
        return cls(blocks["value"], blocks["len"].to_numpy().astype(np.int64))

    @property
    def contiguous(self) -> bool:
        """Whether each query's rows are together (no query id names two groups)."""
        return self.queries.n_unique() == self.queries.len()

    def row_mask(self, keep: np.ndarray) -> pl.Series:
        """A row filter keeping the groups where ``keep`` is true."""
        return pl.Series(np.repeat(keep, self.lengths))


def _sorted_run(frame: pl.DataFrame, conventions: Conventions) -> pl.DataFrame:
    """The rows grouped by query and sorted into rank order within each query.

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
    return (
        frame.with_columns(code)
        .sort([_QUERY_CODE, SCORE, DOC_ID], descending=[False, True, True], maintain_order=True)
        .drop(_QUERY_CODE)
    )


def _ties_in_order(frame: pl.DataFrame, groups: _Groups) -> pl.DataFrame | None:
    """``frame`` (grouped by query) in rank order when its scores already descend within each
    query, reordering only the runs of tied scores; None when a score rises within a query.

    Most run files are written in rank order, so checking it is far cheaper than sorting: one
    pass over the scores and, for the rows tied with the row before, a comparison of document ids.
    """
    # Neighbours compared, not subtracted: float32 scores may overflow to inf, and inf ties.
    score = frame[SCORE].to_numpy()
    query_starts = np.cumsum(groups.lengths)[:-1] - 1  # pairs (i - 1, i) where row i starts one
    rises = score[1:] > score[:-1]
    rises[query_starts] = False
    if bool(rises.any()):
        return None
    ties = score[1:] == score[:-1]
    ties[query_starts] = False
    tied = np.flatnonzero(ties) + 1  # rows tied with the row before, in the same query
    if tied.size == 0:
        return frame
    docs = frame[DOC_ID]
    if bool((docs.gather(tied) <= docs.gather(tied - 1)).all()):
        # Ties already by document id descending (equal ids are duplicates, refused later).
        return frame
    tied_with_previous = np.zeros(frame.height, dtype=bool)
    tied_with_previous[tied] = True
    in_tie = tied_with_previous.copy()
    in_tie[tied - 1] = True
    rows = np.flatnonzero(in_tie)
    run_of_ties = np.cumsum(~tied_with_previous)[rows]
    reordered = (
        pl.DataFrame({"_tie": run_of_ties, _ROW: rows, DOC_ID: docs.gather(rows)})
        .sort(["_tie", DOC_ID], descending=[False, True], maintain_order=True)[_ROW]
        .to_numpy()
    )
    order = np.arange(frame.height)
    order[rows] = reordered  # the runs of ties keep their places, reordered within
    return frame[order]


def _ranked(frame: pl.DataFrame, conventions: Conventions) -> tuple[pl.DataFrame, _Groups, bool]:
    """The rows grouped by query, in rank order within each query; the groups; and whether the
    rows are still in the order given.

    A run already grouped by query and in rank order (as run files are usually written) is
    checked and kept as it is; otherwise it is sorted. The order of the queries is arbitrary.
    """
    if conventions.score_precision == "float32":
        frame = frame.with_columns(pl.col(SCORE).cast(pl.Float32).cast(pl.Float64))
    groups = _Groups.of(frame)
    if groups.contiguous:
        if conventions.ordering == "as_given":
            return frame, groups, True
        ordered = _ties_in_order(frame, groups)
        if ordered is not None:
            return ordered, groups, ordered is frame
    ordered = _sorted_run(frame, conventions)
    return ordered, _Groups.of(ordered), False


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

    # Duplicates are looked for in the whole run on another core, beside the ordering and the
    # grade lookup. Only if a pair occurs twice is what is evaluated looked at again: as
    # trec_eval, a duplicate counts only in a judged query and within the cut at -M.
    keys = run.frame.select(_PAIR_KEY).to_series()
    beside = run.frame.height >= _CHECK_BESIDE_ROWS  # a thread pays only on large runs
    with ThreadPoolExecutor(1) if beside else contextlib.nullcontext() as checking:
        duplicated: Future[bool] | None = None
        if conventions.duplicate_documents == "error":
            if checking is not None:
                duplicated = checking.submit(_has_duplicates, run.frame, keys)
            else:
                duplicated = Future()
                duplicated.set_result(_has_duplicates(run.frame, keys))
        # From here on rows are grouped by query, in rank order within each, and every step
        # keeps that order. The batch's queries come in the order of the groups.
        ranked, groups, same_rows = _ranked(run.frame, conventions)
        judged_queries = judgements[QUERY_ID].unique()
        is_judged = groups.queries.is_in(judged_queries.implode())
        unjudged = groups.queries.filter(~is_judged)
        missing = judged_queries.filter(~judged_queries.is_in(groups.queries.implode()))
        if not bool(is_judged.any()) and not complete:
            raise NoCommonQueriesError(
                f"no query of the run ({run.source}) is judged in the qrels ({qrels.source}): "
                f"the run has {groups.queries.len()} queries, the qrels {judged_queries.len()}, "
                "none in common; check that the query ids match"
            )
        if unjudged.len():
            keep_query = is_judged.to_numpy()
            ranked = ranked.filter(groups.row_mask(keep_query))
            groups = _Groups(groups.queries.filter(is_judged), groups.lengths[keep_query])
            same_rows = False
        if conventions.duplicate_documents == "keep_first":
            ranked = ranked.unique([QUERY_ID, DOC_ID], keep="first", maintain_order=True)
            groups = _Groups.of(ranked)
            same_rows = False
        lengths = groups.lengths
        if max_documents is not None and lengths.max(initial=0) > max_documents:
            starts = np.repeat(_offsets(lengths)[:-1], lengths)
            keep = np.arange(ranked.height) - starts < max_documents
            ranked = ranked.filter(pl.Series(keep))
            lengths = np.minimum(lengths, max_documents)
            same_rows = False
        if not same_rows:
            keys = ranked.select(_PAIR_KEY).to_series()
        grade_of = (  # checked above to hold each pair once, unless the profile keeps repeats
            judgements.unique([QUERY_ID, DOC_ID], keep="first")
            if conventions.keeps_duplicate_judgements
            else judgements
        )
        relevance = pl.col(RELEVANCE)
        if conventions.binary_relevance:
            relevance = (relevance >= relevance_level).cast(pl.Int64)
        grades = _grades(ranked, grade_of.select(QUERY_ID, DOC_ID, relevance), keys)
        if (
            duplicated is not None
            and duplicated.result()
            and (same_rows or _has_duplicates(ranked, keys))
        ):
            raise _duplicate_error(ranked, "run", run.source)

    # The batch's queries: the run's, in the order of its groups, then (complete) the missing.
    evaluated = groups.queries.alias(QUERY_ID).to_frame()
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
        grades=grades,
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
