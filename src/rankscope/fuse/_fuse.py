"""`fuse`: several runs into one, in the native core.

The runs cross into the core as integer codes: query and document ids are replaced by their
position among the sorted distinct ids of all runs (so that the core's tie rule, document id
descending, is a comparison of codes), and the fused rows come back as codes, turned into ids
by one gather each.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import polars as pl

from rankscope.engine.native import FusionRuns
from rankscope.errors import DuplicateDocumentError, InputError, OptionError
from rankscope.fuse._methods import check_params, method_named, norm_named
from rankscope.io import as_run
from rankscope.io.tables import DOC_ID, QUERY_ID, SCORE, Run

__all__ = ["EncodedRuns", "as_runs", "encode", "fuse", "fuse_encoded"]

RunLike = Run | Mapping[Any, Any] | str | os.PathLike[str]


def as_runs(runs: Sequence[RunLike], lenient: bool = False) -> list[Run]:
    """The runs as `Run` objects (files are read, dicts converted); at least two."""
    if isinstance(runs, Run | Mapping | str | os.PathLike) or not isinstance(runs, Sequence):
        raise OptionError(f"runs must be a list of runs; got {type(runs).__name__}")
    if len(runs) < 2:
        raise OptionError(f"fusion needs at least two runs; got {len(runs)}")
    return [as_run(run, lenient=lenient) for run in runs]


def _id_bytes(ids: pl.Series) -> tuple[bytes, bytes]:
    """A string column for the core: the ids' byte lengths (uint32) and their bytes end to
    end."""
    lengths = ids.str.len_bytes().cast(pl.UInt32).to_numpy().tobytes()
    return lengths, ids.str.join("").item().encode()


@dataclass(frozen=True)
class EncodedRuns:
    """Runs in the core (`core`), with the sorted ids their codes stand for."""

    runs: list[Run]
    core: FusionRuns
    query_ids: pl.Series
    doc_ids: pl.Series

    def query_codes(self, ids: pl.Series) -> np.ndarray[Any, np.dtype[np.uint32]]:
        """The codes of query ids (all of them known to the core)."""
        return np.frombuffer(self.core.query_codes(*_id_bytes(ids)), np.uint32)

    def doc_codes(self, ids: pl.Series) -> np.ndarray[Any, np.dtype[np.uint32]]:
        """The codes of document ids (all of them known to the core)."""
        return np.frombuffer(self.core.doc_codes(*_id_bytes(ids)), np.uint32)

    def normalized(self, norm: str | None) -> FusionRuns:
        """The runs in the core, normalised (``norm`` already checked)."""
        return self.core if norm is None else self.core.normalize(norm)

    @cached_property
    def every_query(self) -> list[str]:
        """Every query of any of the runs, those they hold empty too, sorted."""
        with_rows = pl.concat([run.frame[QUERY_ID].unique() for run in self.runs]).unique()
        return sorted({*with_rows.to_list(), *(q for run in self.runs for q in run.empty_queries)})

    def to_run(
        self, columns: tuple[bytes, bytes, bytes], name: str, holding: list[str] | None = None
    ) -> Run:
        """A `Run` from fused (or normalised) rows given as code bytes, holding the queries
        ``holding`` too (those without rows as its empty queries): by default every query of
        the runs, as a fused run holds them."""
        queries, docs, scores = columns
        frame = pl.DataFrame(
            [
                self.query_ids.gather(np.frombuffer(queries, np.uint32)).alias(QUERY_ID),
                self.doc_ids.gather(np.frombuffer(docs, np.uint32)).alias(DOC_ID),
                pl.Series(SCORE, np.frombuffer(scores, np.float64)),
            ]
        )
        # Ids come from validated runs and the core refuses non-finite scores: no checks again.
        every = self.every_query if holding is None else holding
        return Run(frame, name=name, source="<fused>", empty_queries=every)

    def core_error(self, error: ValueError) -> InputError:
        return _core_error(error, self.runs, self.query_ids, self.doc_ids)


def _core_error(
    error: ValueError, runs: list[Run], query_ids: pl.Series, doc_ids: pl.Series
) -> InputError:
    """An error of the core, with the run, query and document it names as ids."""
    if len(error.args) != 5:  # not about a row: a bad argument
        return InputError(str(error))
    message, kind, run, query, doc = error.args
    if kind == "duplicate":
        return DuplicateDocumentError(
            f"document {doc_ids[doc]!r} appears twice in query {query_ids[query]!r}",
            source=runs[run].source,
        )
    if kind == "overflow":
        return InputError(
            f"the fused score of document {doc_ids[doc]!r} in query {query_ids[query]!r} "
            "overflowed; normalize the scores (norm=...)"
        )
    return InputError(str(message))


def encode(runs: list[Run], extra_query_ids: pl.Series | None = None) -> EncodedRuns:
    """Hand the runs to the core; ``extra_query_ids`` (judged queries) join the query codes."""
    columns = [
        (
            _id_bytes(run.frame[QUERY_ID]),
            _id_bytes(run.frame[DOC_ID]),
            run.frame[SCORE].to_numpy().tobytes(),
        )
        for run in runs
    ]
    extra = None if extra_query_ids is None else _id_bytes(extra_query_ids)
    try:
        core = FusionRuns(columns, extra)
    except ValueError as error:
        # The error names codes; the ids are the sorted distinct ids of the runs.
        queries = pl.concat([run.frame[QUERY_ID] for run in runs]).unique().sort()
        docs = pl.concat([run.frame[DOC_ID] for run in runs]).unique().sort()
        raise _core_error(error, runs, queries, docs) from None
    query_ids = pl.Series(QUERY_ID, core.query_ids(), pl.String)
    doc_ids = pl.Series(DOC_ID, core.doc_ids(), pl.String)
    return EncodedRuns(runs, core, query_ids, doc_ids)


def fuse_encoded(
    encoded: EncodedRuns, method: str, norm: str | None, params: dict[str, Any], name: str
) -> Run:
    """Fuse runs already in the core (method, norm and params already checked)."""
    try:
        columns = encoded.normalized(norm).fuse(method, params)
    except ValueError as error:
        raise encoded.core_error(error) from None
    return encoded.to_run(columns, name)


def fuse(
    runs: Sequence[RunLike],
    method: str = "rrf",
    norm: str | None = "min-max",
    params: Mapping[str, Any] | None = None,
    *,
    name: str | None = None,
) -> Run:
    r"""Fuse several runs into one, with ranx's methods and normalisations.

    Each run's scores are first normalised per query (``norm``), then combined per document
    (``method``). The results are those of ranx 0.3's ``fuse`` given the same rankings, to the
    last bit: same documents, same scores, same order, with one difference on purpose — ties
    are broken by the ``trec`` rule, everywhere:

    * the runs are ranked by score descending, ties by document id descending (byte-wise), so
      that rank-based methods (``rrf``, ``isr``, ``bordafuse``, ...) see a fixed order;
    * after ``min-max-inverted`` and ``borda`` (the normalisations that change the order) the
      runs are ranked again by the same rule on their normalised scores;
    * the fused documents are ranked by fused score descending, ties by document id
      descending.

    ranx orders ties with an unstable sort, so its order of tied documents can change with the
    input; rankscope's never does.

    A document a run did not retrieve gets nothing from that run (each method's convention
    for missing documents is ranx's: ``max`` counts it as -1e9, ``min`` as 1e9, ``bordafuse``
    gives it the run's unranked points, ``bayesfuse`` the lowest log-odds). A query a run does
    not hold is, for that run, a query it retrieved nothing for; the fused run holds every
    query of any run (ranx refuses runs whose queries differ), a query that every run left
    empty among its `Run.empty_queries` (evaluated as retrieving nothing; a TREC file written
    from it has no line for it).

    Parameters
    ----------
    runs
        Two or more runs: `Run` objects, ``{query_id: {doc_id: score}}`` dicts, or files.
    method
        One of `rankscope.fuse.METHODS`: ``rrf`` (the default), ``sum``, ``mnz``, ``max``,
        ``min``, ``med``, ``anz``, ``gmnz``, ``isr``, ``log_isr``, ``logn_isr``,
        ``bordafuse``, ``w_bordafuse``, ``condorcet``, ``w_condorcet``, ``wsum``, ``wmnz``,
        ``mixed``, ``rbc``, and the trained ``probfuse``, ``segfuse``, ``slidefuse``,
        ``mapfuse``, ``posfuse``, ``bayesfuse``.
    norm
        ``"min-max"`` (ranx's default, for every method), ``"min-max-inverted"``, ``"max"``,
        ``"sum"``, ``"zmuv"``, ``"rank"``, ``"borda"``, or None to fuse the raw scores.
    params
        The method's parameters, as ranx names them: ``k`` for ``rrf`` (default 60),
        ``gamma`` for ``gmnz``, ``sigma`` for ``logn_isr`` (default 0.01), ``phi`` for
        ``rbc``, ``weights`` (one per run, default 1 each) for the weighted methods, and for
        the trained methods what `optimize_fusion` returns (``probs``, ``w``, ``map_scores``,
        ``log_odds``).
    name
        The fused run's name (its TREC tag); the method's name by default.

    Returns
    -------
    Run
        Every query of any run, its documents ranked by fused score.

    Raises
    ------
    OptionError
        Unknown method or normalisation, missing or bad parameters, fewer than two runs.
    DuplicateDocumentError
        A run ranks a document twice in one query.

    References
    ----------
    Each method's citation is in ``rankscope.fuse.METHODS[name].reference``; for example
    Cormack, Clarke & Büttcher, "Reciprocal rank fusion outperforms Condorcet and individual
    rank learning methods", SIGIR 2009: :math:`\mathrm{RRF}(d) = \sum_r 1 / (k + rank_r(d))`.

    Examples
    --------
    >>> import rankscope
    >>> bm25 = {"q1": {"d1": 2.0, "d2": 1.0}}
    >>> dense = {"q1": {"d2": 0.9, "d3": 0.8}}
    >>> fused = rankscope.fuse([bm25, dense], method="rrf")
    >>> [(doc, round(score, 5)) for _, doc, score in fused.frame.rows()]
    [('d2', 0.03252), ('d1', 0.01639), ('d3', 0.01613)]

    Ties fall to the larger document id:

    >>> rankscope.fuse([{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}], "sum", norm=None).frame.rows()
    [('q1', 'b', 1.0), ('q1', 'a', 1.0)]
    """
    fusion = method_named(method)
    norm = norm_named(norm)
    loaded = as_runs(runs)
    checked = check_params(fusion, params, len(loaded))
    return fuse_encoded(encode(loaded), fusion.name, norm, checked, name or fusion.name)
