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

import numpy as np
import numpy.typing as npt

__all__ = ["RankedBatch", "segment_count", "segment_first", "segment_sum"]

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
        Query ids, in output order.
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
    _cache: dict[object, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_retrieved(self) -> IntArray:
        """Documents retrieved per query."""
        return np.diff(self.offsets)

    @cached_property
    def query_of_row(self) -> IntArray:
        """For each retrieved document, the index of its query."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int64), self.num_retrieved)

    @cached_property
    def rank_index(self) -> IntArray:
        """For each retrieved document, its 0-based rank within its query."""
        return np.arange(self.grades.size, dtype=np.int64) - np.repeat(
            self.offsets[:-1], self.num_retrieved
        )

    def relevant(self, level: int) -> BoolArray:
        """For each retrieved document, whether its grade is at least ``level``."""
        key = ("relevant", level)
        if key not in self._cache:
            self._cache[key] = self.grades >= level
        return self._cache[key]

    def num_relevant(self, level: int) -> IntArray:
        """Judged documents with grade at least ``level``, per query."""
        key = ("num_relevant", level)
        if key not in self._cache:
            if self.num_distinct_relevant is not None:
                self._cache[key] = self.num_distinct_relevant
            else:
                self._cache[key] = segment_count(self.judged >= level, self.judged_offsets)
        return self._cache[key]

    def num_judged_nonrelevant(self, level: int) -> IntArray:
        """Judged documents with ``0 <= grade < level``, per query."""
        key = ("num_nonrelevant", level)
        if key not in self._cache:
            mask = (self.judged >= 0) & (self.judged < level)
            self._cache[key] = segment_count(mask, self.judged_offsets)
        return self._cache[key]

    def num_relevant_retrieved(self, level: int, cutoff: int | None = None) -> IntArray:
        """Relevant documents among the first ``cutoff`` retrieved (all if None), per query."""
        key = ("num_relevant_retrieved", level, cutoff)
        if key not in self._cache:
            mask = self.relevant(level)
            if cutoff is not None:
                mask = mask & (self.rank_index < cutoff)
            self._cache[key] = segment_count(mask, self.offsets)
        return self._cache[key]


def segment_count(mask: BoolArray, offsets: IntArray) -> IntArray:
    """Number of True values in each segment ``mask[offsets[q]:offsets[q + 1]]``.

    Examples
    --------
    >>> segment_count(np.array([True, False, True, True]), np.array([0, 2, 2, 4]))
    array([1, 0, 2])
    """
    running = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return running[offsets[1:]] - running[offsets[:-1]]


def segment_sum(values: FloatArray, offsets: IntArray) -> FloatArray:
    """Sum of each segment, added in order within the segment (no cross-query cancellation).

    Examples
    --------
    >>> segment_sum(np.array([0.5, 1.0, 2.0]), np.array([0, 1, 1, 3]))
    array([0.5, 0. , 3. ])
    """
    sums = np.zeros(offsets.size - 1, dtype=np.float64)
    if values.size == 0:
        return sums
    starts = offsets[:-1]
    nonempty = np.flatnonzero(offsets[1:] > starts)
    if nonempty.size:
        sums[nonempty] = np.add.reduceat(values[: offsets[-1]], starts[nonempty])
    return sums


def segment_first(mask: BoolArray, offsets: IntArray) -> IntArray:
    """Offset within its segment of the first True value, or -1 where there is none.

    Examples
    --------
    >>> segment_first(np.array([False, True, True, False]), np.array([0, 3, 4]))
    array([ 1, -1])
    """
    rows = np.flatnonzero(mask)
    queries = np.searchsorted(offsets, rows, side="right") - 1
    first = np.full(offsets.size - 1, -1, dtype=np.int64)
    if rows.size:
        is_first = np.concatenate(([True], queries[1:] != queries[:-1]))
        first[queries[is_first]] = rows[is_first] - offsets[queries[is_first]]
    return first
