"""`ranked_documents`: each query's documents in the order an evaluation ranks them.

Examples
--------
>>> from rankscope.io import Qrels, Run
>>> run = Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "c": 0.9}})
>>> qrels = Qrels.from_dict({"q1": {"b": 2}})
>>> ranked_documents(run, qrels).rows()
[('q1', 'c', 0.9, 1, None, False), ('q1', 'b', 0.5, 2, 2, True), ('q1', 'a', 0.5, 3, None, False)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankscope.engine._evaluate import plan
from rankscope.engine.profiles import Conventions

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ranked_documents"]


def ranked_documents(
    run: Any,
    qrels: Any = None,
    *,
    profile: str | Conventions = "trec",
    max_documents: int | None = None,
) -> pl.DataFrame:
    """Every query of ``run`` (judged or not, by query id, byte-wise), its documents in the
    order `rankscope.evaluate` ranks them under ``profile`` (``trec``: score descending, ties
    by document id descending), cut at ``max_documents``; with each document's grade in
    ``qrels`` (if given).

    Returns a frame of ``query_id``, ``doc_id``, ``score``, ``rank`` (1 for each query's
    first), ``relevance`` (the grade; null where ``qrels`` hold none) and ``judged``. A
    document ranked twice in one query is a `DuplicateDocumentError` (naming the query and
    the document), unless the profile keeps duplicates.
    """
    import polars as pl

    from rankscope import _core
    from rankscope.io._native import native_qrels, native_run

    settled = plan(None, profile, max_documents=max_documents)
    judged = None if qrels is None else native_qrels(qrels)
    return pl.DataFrame(_core.ranked_documents(native_run(run), settled, judged))
