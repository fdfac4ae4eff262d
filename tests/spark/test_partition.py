"""The executors' side without Spark: chunks of whole queries, and queries that only one of
the two inputs holds, against the in-memory evaluation."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import rankscope
from rankscope.errors import RankscopeWarning
from rankscope.spark._partition import (
    EVALUATED,
    MISSING,
    QRELS_SIDE,
    RUN_SIDE,
    SCORED_MISSING,
    SIDE,
    STATUS,
    UNJUDGED,
    Task,
    evaluate_partition,
    results_of,
)

MEASURES = ("AP", "nDCG@5", "NumRel", "NumRet")


def task(complete: bool, rows_per_chunk: int = 1) -> Task:
    return Task(
        measures=MEASURES,
        options={"profile": "trec", "complete": complete},
        complete=complete,
        profile="trec",
        run_name="run",
        qrels_source="<qrels>",
        run_source="<run>",
        rows_per_chunk=rows_per_chunk,
    )


def rows(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> pl.DataFrame:
    """Both inputs in one table sorted by query id, as an executor receives them."""
    judged = [(q, d, g, None, QRELS_SIDE) for q, docs in qrels.items() for d, g in docs.items()]
    ranked = [(q, d, None, s, RUN_SIDE) for q, docs in run.items() for d, s in docs.items()]
    return pl.DataFrame(
        judged + ranked,
        schema={
            "query_id": pl.String,
            "doc_id": pl.String,
            "relevance": pl.Int64,
            "score": pl.Float64,
            SIDE: pl.Int8,
        },
        orient="row",
    ).sort("query_id", SIDE, maintain_order=True)


def evaluated(frame: pl.DataFrame, each: Task, batch_rows: int = 2) -> pl.DataFrame:
    batches = frame.to_arrow().to_batches(max_chunksize=batch_rows)
    out = [pl.from_arrow(b) for b in evaluate_partition(iter(batches), each)]
    return pl.concat([o for o in out if isinstance(o, pl.DataFrame)])


QRELS = {"a": {"x": 1, "y": 2}, "b": {"x": 1}, "c": {"z": 3, "w": 0}, "e": {"x": 1}}
RUN = {"a": {"x": 0.5, "y": 0.5, "z": 0.1}, "c": {"w": 2.0, "z": 1.0}, "d": {"x": 1.0}}


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("rows_per_chunk", [1, 3, 100])
def test_chunks_of_whole_queries_give_the_in_memory_results(
    complete: bool, rows_per_chunk: int
) -> None:
    each = task(complete, rows_per_chunk)
    frame = evaluated(rows(QRELS, RUN), each)
    assert frame["query_id"].is_duplicated().sum() == 0  # a query is never split
    statuses = dict(zip(frame["query_id"], frame[STATUS], strict=True))
    assert statuses == {
        "a": EVALUATED,
        "c": EVALUATED,
        "d": UNJUDGED,
        "b": SCORED_MISSING if complete else MISSING,
        "e": SCORED_MISSING if complete else MISSING,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        expected = rankscope.evaluate(QRELS, RUN, list(MEASURES), complete=complete)
    got = results_of(frame, each)
    assert got.per_query.equals(expected.per_query)
    assert got.mean() == expected.mean()
    assert (got.missing_queries, got.unjudged_queries) == (
        expected.missing_queries,
        expected.unjudged_queries,
    )


def test_a_chunk_of_judged_queries_only_is_scored_when_complete() -> None:
    # Queries b and e alone: no run rows at all in the chunk.
    frame = evaluated(rows({"b": QRELS["b"], "e": {"x": 1, "y": 1}}, {}), task(True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        expected = rankscope.evaluate(
            {"b": QRELS["b"], "e": {"x": 1, "y": 1}, "a": QRELS["a"]},
            {"a": RUN["a"]},
            list(MEASURES),
            complete=True,
        ).per_query.filter(pl.col("query_id").is_in(["b", "e"]))
    assert frame[STATUS].to_list() == [SCORED_MISSING, SCORED_MISSING]
    assert results_of(frame, task(True)).per_query.equals(expected)
    assert expected["NumRel"].to_list() == [1.0, 2.0]  # not a row of zeros


def test_how_queries_are_spread_over_partitions_does_not_change_the_mean() -> None:
    each = task(False)
    whole = evaluated(rows(QRELS, RUN), each)
    split = pl.concat(
        [
            evaluated(rows({"a": QRELS["a"]}, {"a": RUN["a"]}), each),
            evaluated(rows({k: QRELS[k] for k in "bce"}, {k: RUN[k] for k in "cd"}), each),
        ]
    )
    assert results_of(split, each).mean() == results_of(whole, each).mean()
