"""Pools: what to judge next, the union of each run's top documents (TREC's depth-k pooling)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from rankscope._progress import ProgressOption
from rankscope.errors import InputError, OptionError
from rankscope.io import Qrels, as_qrels, read_corpus, read_queries, write_qrels
from rankscope.io._formats import normalize_format
from rankscope.io._write import write_table
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE
from rankscope.judge._ranked import RANK, QrelsLike, RunLike, as_run_list, check_depth, ranked

__all__ = ["PLACEHOLDER_GRADE", "Pool", "pool", "write_pool"]

PLACEHOLDER_GRADE = -1
"""The grade a to-judge file gives every pair until it is judged: negative, so that trec_eval
and rankscope read such a pair as not judged (gain 0), whatever a tool does with the file."""

RUNS = "runs"
BEST_RANK = "best_rank"
QUERY_TEXT = "query"
DOC_TEXT = "document"

TextsLike = Mapping[str, str] | str | os.PathLike[str]


@dataclass(frozen=True, eq=False)
class Pool:
    """The pairs to judge: every (query, document) some run ranks in its top ``depth``, less
    those already judged.

    Attributes
    ----------
    frame
        ``query_id``, ``doc_id``, ``runs`` (how many runs rank the document in their top
        ``depth``) and ``best_rank`` (its best rank among them), sorted by query id, then
        document id (byte-wise).
    depth
        The pool's depth.
    run_names
        The runs pooled, in the order given.
    judged
        Pairs in the runs' top ``depth`` left out because the existing qrels judge them.
    """

    frame: pl.DataFrame
    depth: int
    run_names: tuple[str, ...]
    judged: int = 0

    def __len__(self) -> int:
        return self.frame.height

    @property
    def query_ids(self) -> list[str]:
        """The queries with something to judge, sorted."""
        return self.frame[QUERY_ID].unique().sort().to_list()

    def to_dict(self) -> dict[str, list[str]]:
        """``{query_id: [doc_id, ...]}``, documents sorted by id."""
        pooled: dict[str, list[str]] = {}
        for query_id, doc_id in self.frame.select(QUERY_ID, DOC_ID).iter_rows():
            pooled.setdefault(query_id, []).append(doc_id)
        return pooled

    def to_qrels(self, placeholder: int = PLACEHOLDER_GRADE) -> Qrels:
        """The pool as judgements, every pair graded ``placeholder`` (no pair when nothing is
        left to judge)."""
        frame = self.frame.select(QUERY_ID, DOC_ID, pl.lit(placeholder, pl.Int64).alias(RELEVANCE))
        return Qrels(frame, source="<pool>")  # ids from validated runs: nothing to check again

    def __repr__(self) -> str:
        queries = self.frame[QUERY_ID].n_unique()
        return (
            f"Pool({self.frame.height} pairs, {queries} queries, depth {self.depth}, "
            f"{len(self.run_names)} runs, {self.judged} already judged)"
        )


def pool(
    runs: Sequence[RunLike],
    depth: int = 10,
    qrels: QrelsLike | None = None,
    *,
    lenient: bool = False,
    progress: ProgressOption = None,
) -> Pool:
    """Pool runs to depth ``depth``: the union of each run's top ``depth`` documents of each
    query, less the pairs ``qrels`` already judge.

    Each run is ranked as evaluations rank it (score descending, ties by document id
    descending, as trec_eval), so a pool of depth k holds exactly the documents that decide
    every measure cut at k.

    Parameters
    ----------
    runs
        One or more runs: `Run` objects, dicts or files (any format `rankscope.io.read_run`
        reads).
    depth
        How many of each ranking's first documents to pool.
    qrels
        Existing judgements (a `Qrels`, a dict or a file): pairs they hold, whatever the grade,
        are left out.
    lenient
        For files: skip malformed lines (counted in a warning) instead of stopping.
    progress
        ``True``: a bar of the runs read on standard error, when it is a terminal; or a
        callable, called with ``(done, total)`` after each run.

    Raises
    ------
    DuplicateDocumentError
        When a run ranks a document twice for one query.

    Examples
    --------
    >>> bm25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> dense = {"q1": {"d4": 0.9, "d2": 0.8, "d1": 0.1}}
    >>> pooled = pool([bm25, dense], depth=2, qrels={"q1": {"d1": 1}})
    >>> pooled.to_dict(), pooled.judged
    ({'q1': ['d2', 'd4']}, 1)
    >>> pooled.frame.rows()  # query, document, how many runs pooled it, its best rank
    [('q1', 'd2', 2, 2), ('q1', 'd4', 1, 1)]
    """
    depth = check_depth(depth, "depth")
    runs_read = as_run_list(runs, lenient, progress)
    tops = [frame.select(QUERY_ID, DOC_ID, RANK) for frame in ranked(runs_read, depth=depth)]
    pooled = (
        pl.concat(tops)
        .group_by(QUERY_ID, DOC_ID)
        .agg(
            pl.len().cast(pl.Int64).alias(RUNS), pl.col(RANK).min().cast(pl.Int64).alias(BEST_RANK)
        )
    )
    before = pooled.height
    if qrels is not None:
        judged = as_qrels(qrels, lenient=lenient).frame.select(QUERY_ID, DOC_ID).unique()
        pooled = pooled.join(judged, on=[QUERY_ID, DOC_ID], how="anti")
    return Pool(
        pooled.sort(QUERY_ID, DOC_ID),
        depth,
        tuple(run.name for run in runs_read),
        judged=before - pooled.height,
    )


def _texts(given: TextsLike, ids: pl.Series, what: str, option: str) -> dict[str, str]:
    """The texts of ``ids`` (a dict, or a file read with `rankscope.io`); every one must be
    there."""
    wanted = set(ids.to_list())
    if isinstance(given, Mapping):
        texts = {str(key): value for key, value in given.items() if str(key) in wanted}
        source = f"the {option} given"
    else:
        reader = read_corpus if what == "document" else read_queries
        texts = reader(given, ids=wanted)
        source = os.fspath(given)
    missing = sorted(wanted - texts.keys())
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise InputError(
            f"{len(missing)} pooled {what}s have no text in it: {shown}", source=source
        )
    return texts


def write_pool(
    pooled: Pool,
    path: str | os.PathLike[str],
    format: str = "trec",
    *,
    corpus: TextsLike | None = None,
    queries: TextsLike | None = None,
    placeholder: int = PLACEHOLDER_GRADE,
) -> None:
    """Write a to-judge file: the pool's pairs, each graded ``placeholder`` until judged.

    Parameters
    ----------
    pooled
        The pool.
    path
        The file to create or replace (compressed by its extension), or ``"-"`` for standard
        output.
    format
        ``"trec"``: qrels lines ``query_id 0 doc_id placeholder``. ``"csv"``, ``"tsv"``,
        ``"jsonl"``, ``"parquet"``: the columns ``query_id``, ``doc_id``, ``relevance``,
        ``runs`` and ``best_rank``, and ``query`` and ``document`` with their texts when
        ``queries`` and ``corpus`` are given. Either form reads back as qrels once graded.
    corpus, queries
        ``{id: text}``, or a file `rankscope.io.read_corpus` (`read_queries`) reads; every
        pooled document (query) must have its text.
    placeholder
        The grade of a pair not judged yet (negative: read as not judged).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> pooled = pool([{"q1": {"d1": 2.0, "d2": 1.0}}], depth=2)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "to-judge.csv"
    >>> write_pool(pooled, path, "csv", corpus={"d1": "first", "d2": "second"},
    ...            queries={"q1": "a question"})
    >>> print(path.read_text(), end="")
    query_id,query,doc_id,document,relevance,runs,best_rank
    q1,a question,d1,first,-1,1,1
    q1,a question,d2,second,-1,1,2
    """
    if isinstance(placeholder, bool) or not isinstance(placeholder, int):
        raise OptionError(f"placeholder must be an integer grade; got {placeholder!r}")
    fmt = normalize_format(format)
    if fmt == "trec":
        for option, value in (("corpus", corpus), ("queries", queries)):
            if value is not None:
                raise OptionError(
                    f"{option}: a TREC qrels file holds no text; write csv, tsv, jsonl or "
                    "parquet to include it"
                )
        write_qrels(pooled.to_qrels(placeholder), path, "trec")
        return
    frame = pooled.frame.select(
        QUERY_ID, DOC_ID, pl.lit(placeholder, pl.Int64).alias(RELEVANCE), RUNS, BEST_RANK
    )
    columns: list[Any] = [QUERY_ID]
    if queries is not None:
        texts = _texts(queries, frame[QUERY_ID], "query", "queries")
        frame = frame.with_columns(
            pl.col(QUERY_ID).replace_strict(texts, return_dtype=pl.String).alias(QUERY_TEXT)
        )
        columns.append(QUERY_TEXT)
    columns.append(DOC_ID)
    if corpus is not None:
        texts = _texts(corpus, frame[DOC_ID], "document", "corpus")
        frame = frame.with_columns(
            pl.col(DOC_ID).replace_strict(texts, return_dtype=pl.String).alias(DOC_TEXT)
        )
        columns.append(DOC_TEXT)
    write_table(frame.select(*columns, RELEVANCE, RUNS, BEST_RANK), path, fmt)
