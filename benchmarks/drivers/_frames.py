"""TREC files read by polars alone: the bare columnar read, and `Qrels`/`Run` built from it."""

from __future__ import annotations

import polars as pl

RUN_SCHEMA = {
    "query_id": pl.String,
    "q0": pl.String,
    "doc_id": pl.String,
    "rank": pl.Int64,
    "score": pl.Float64,
    "tag": pl.String,
}
QRELS_SCHEMA = {
    "query_id": pl.String,
    "iteration": pl.String,
    "doc_id": pl.String,
    "relevance": pl.Int64,
}


def read_run_frame(path: str) -> pl.DataFrame:
    """The columns an evaluation needs (query, document, score), parsed by polars."""
    scan = pl.scan_csv(path, separator=" ", has_header=False, schema=RUN_SCHEMA)
    return scan.select("query_id", "doc_id", "score").collect()


def read_qrels_frame(path: str) -> pl.DataFrame:
    scan = pl.scan_csv(path, separator=" ", has_header=False, schema=QRELS_SCHEMA)
    return scan.select("query_id", "doc_id", "relevance").collect()


def read_with_polars(qrels_path: str, run_path: str) -> tuple[object, object]:
    """rankscope's `Qrels` and `Run` from frames that polars read."""
    from rankscope.io import Qrels, Run

    qrels = Qrels.from_frame(read_qrels_frame(qrels_path), source=qrels_path)
    run = Run.from_frame(read_run_frame(run_path), source=run_path)
    return qrels, run


def read_with_rankscope(qrels_path: str, run_path: str) -> tuple[object, object]:
    """rankscope's own readers when this installation has them, else polars frames."""
    try:
        from rankscope.io import read_qrels, read_run
    except ImportError:
        return read_with_polars(qrels_path, run_path)
    return read_qrels(qrels_path), read_run(run_path)
