"""`RankedBatch`: every query of an evaluation as contiguous arrays, and segment arithmetic.

A batch holds Q queries. Two ragged arrays are stored flat with offsets:

* ``grades[offsets[q]:offsets[q + 1]]``: the grade of each retrieved document of query q, in
  rank order (-1 for a document without judgement);
* ``judged[judged_offsets[q]:judged_offsets[q + 1]]``: every judgement of query q, grades sorted
  in descending order (the ideal ranking).

Kernels compute one float per query from these with array operations over all queries at once.
The helpers below are the few segment operations they need.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["RankedBatch", "Rows", "segment_count"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

UNJUDGED = -1  # grade of a retrieved document absent from the qrels


@dataclass(frozen=True, eq=False)
class RankedBatch:
    """Rankings and judgements of a set of queries, in contiguous arrays.

    Attributes
    ----------
    query_ids
        Query ids, in the order of the arrays (any order; results are sorted by id).
    offsets
        ``Q + 1`` offsets into ``grades``.
    grades
        Grades of retrieved documents in rank order; -1 where not judged.
    judged_offsets
        ``Q + 1`` offsets into ``judged``.
    judged
        Each query's judged grades, sorted descending.
    num_distinct_relevant
        Per query, relevant documents counted once each when the qrels hold duplicates (only
        the ``weknora`` profile keeps duplicate judgements; otherwise ``None``).
    """

    query_ids: list[str]
    offsets: IntArray
    grades: IntArray
    judged_offsets: IntArray
    judged: IntArray
    num_distinct_relevant: IntArray | None = None
    _cache: dict[object, Any] = field(default_factory=dict, repr=False)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_retrieved(self) -> IntArray:
        """Documents retrieved per query."""
        return np.diff(self.offsets)

    def rows_at_least(self, level: int) -> Rows:
        """The retrieved documents with grade >= ``level``, in rank order, query by query."""
        key = ("rows_at_least", level)
        if key not in self._cache:
            self._cache[key] = self._rows(np.flatnonzero(self.grades >= level))
        rows: Rows = self._cache[key]
        return rows

    def judged_nonrelevant_rows(self, level: int) -> Rows:
        """The retrieved documents judged non-relevant (``0 <= grade < level``)."""
        key = ("judged_nonrelevant_rows", level)
        if key not in self._cache:
            grades = self.grades
            self._cache[key] = self._rows(np.flatnonzero((grades >= 0) & (grades < level)))
        rows: Rows = self._cache[key]
        return rows

    def _rows(self, positions: IntArray) -> Rows:
        queries = np.searchsorted(self.offsets, positions, side="right") - 1
        return Rows(positions, queries, positions - self.offsets[queries], self.num_queries)

    def num_relevant(self, level: int) -> IntArray:
        """Judged documents with grade at least ``level``, per query."""
        key = ("num_relevant", level)
        if key not in self._cache:
            if self.num_distinct_relevant is not None:
                self._cache[key] = self.num_distinct_relevant
            else:
                self._cache[key] = segment_count(self.judged >= level, self.judged_offsets)
        counts: IntArray = self._cache[key]
        return counts

    def num_judged_nonrelevant(self, level: int) -> IntArray:
        """Judged documents with ``0 <= grade < level``, per query."""
        key = ("num_nonrelevant", level)
        if key not in self._cache:
            mask = (self.judged >= 0) & (self.judged < level)
            self._cache[key] = segment_count(mask, self.judged_offsets)
        counts: IntArray = self._cache[key]
        return counts

    def num_relevant_retrieved(self, level: int, cutoff: int | None = None) -> IntArray:
        """Relevant documents among the first ``cutoff`` retrieved (all if None), per query."""
        key = ("num_relevant_retrieved", level, cutoff)
        if key not in self._cache:
            self._cache[key] = self.rows_at_least(level).within(cutoff).count()
        counts: IntArray = self._cache[key]
        return counts


@dataclass(frozen=True, eq=False)
class Rows:
    """A subset of a batch's retrieved documents, in batch order (query, then rank).

    Attributes
    ----------
    positions
        Indexes into the batch's ``grades``.
    queries
        The query index of each.
    ranks
        The 0-based rank of each within its query.
    num_queries
        Queries in the batch (for per-query results).
    """

    positions: IntArray
    queries: IntArray
    ranks: IntArray
    num_queries: int

    def within(self, cutoff: int | IntArray | None) -> Rows:
        """The rows ranked above ``cutoff`` (one value, or one per query)."""
        if cutoff is None:
            return self
        limit = cutoff if isinstance(cutoff, int) else cutoff[self.queries]
        keep = self.ranks < limit
        return Rows(self.positions[keep], self.queries[keep], self.ranks[keep], self.num_queries)

    def count(self) -> IntArray:
        """Rows per query."""
        return np.bincount(self.queries, minlength=self.num_queries).astype(np.int64)

    def sum(self, values: FloatArray) -> FloatArray:
        """Per-query sum of one value per row, added in rank order."""
        sums = np.bincount(self.queries, weights=values, minlength=self.num_queries)
        return sums.astype(np.float64, copy=False)

    def count_so_far(self) -> IntArray:
        """For each row, how many rows of its query come before it, itself included."""
        per_query = self.count()
        starts = np.concatenate(([0], np.cumsum(per_query)[:-1]))
        so_far: IntArray = np.arange(1, self.positions.size + 1) - np.repeat(starts, per_query)
        return so_far

    def first(self) -> Rows:
        """The first row of each query that has one."""
        is_first = np.empty(self.queries.size, dtype=bool)
        is_first[:1] = True
        np.not_equal(self.queries[1:], self.queries[:-1], out=is_first[1:])
        return Rows(
            self.positions[is_first], self.queries[is_first], self.ranks[is_first], self.num_queries
        )


def segment_count(mask: BoolArray, offsets: IntArray) -> IntArray:
    """Number of True values in each segment ``mask[offsets[q]:offsets[q + 1]]``.

    Examples
    --------
    >>> segment_count(np.array([True, False, True, True]), np.array([0, 2, 2, 4]))
    array([1, 0, 2])
    """
    running = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return running[offsets[1:]] - running[offsets[:-1]]
