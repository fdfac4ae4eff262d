"""`rankscope.spark.evaluate` against the in-memory `rankscope.evaluate`: identical per-query
values and means, to the last bit, on generated data; the same errors."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest
from polars.testing import assert_frame_equal
from spark_data import MEASURES, WEKNORA_MEASURES, generated

import rankscope
import rankscope.spark
from rankscope.errors import (
    DuplicateDocumentError,
    EmptyInputError,
    InputError,
    OptionError,
    RankscopeWarning,
    UnknownMeasureError,
)

# A slow group (a local Spark cluster): left out by `scripts/test --quick`.
pytestmark = pytest.mark.slow


def in_memory(
    qrels: pd.DataFrame, run: pd.DataFrame, measures: list[str] | None, **options: Any
) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        return rankscope.evaluate(
            rankscope.Qrels.from_df(qrels), rankscope.Run.from_df(run), measures, **options
        )


def on_spark(
    spark: Any, qrels: pd.DataFrame, run: pd.DataFrame, measures: list[str], **options: Any
) -> rankscope.spark.SparkResults:
    return rankscope.spark.evaluate(
        spark.createDataFrame(qrels), spark.createDataFrame(run), measures, **options
    )


def assert_identical(expected: rankscope.Results, spark_results: Any) -> None:
    """Means and per-query values equal bit for bit (==, not approximately)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        means = spark_results.mean()
        results = spark_results.to_results()
    assert means == expected.mean()  # exact: the same floats
    assert_frame_equal(results.per_query, expected.per_query, check_exact=True)
    assert results.mean() == expected.mean()
    assert results.missing_queries == expected.missing_queries
    assert results.unjudged_queries == expected.unjudged_queries
    assert (results.profile, results.complete) == (expected.profile, expected.complete)
    # The Spark DataFrame holds the same rows.
    rows = sorted(tuple(row) for row in spark_results.per_query.collect())
    assert rows == sorted(expected.per_query.rows())
    assert spark_results.per_query.columns == expected.per_query.columns


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame]:
    return generated()


@pytest.mark.parametrize(
    ("options", "partitions", "rows_per_chunk"),
    [
        ({}, None, rankscope.spark.DEFAULT_ROWS_PER_CHUNK),
        ({"complete": True}, 3, 40),  # several partitions, many chunks in each
        ({"complete": True, "profile": "trec9", "relevance_level": 2}, 5, 1),
        ({"max_documents": 7}, 2, 100),
    ],
    ids=["default", "complete-3-partitions", "trec9-level2-5-partitions", "max-documents"],
)
def test_per_query_values_and_means_equal_in_memory_to_the_last_bit(
    spark: Any,
    data: tuple[pd.DataFrame, pd.DataFrame],
    options: dict[str, Any],
    partitions: int | None,
    rows_per_chunk: int,
) -> None:
    qrels, run = data
    expected = in_memory(qrels, run, MEASURES, **options)
    # The data has what the test is about: ties, unjudged and missing queries.
    assert run.duplicated(["query_id", "score"]).any()
    assert expected.unjudged_queries and expected.missing_queries
    results = on_spark(
        spark, qrels, run, MEASURES, partitions=partitions, rows_per_chunk=rows_per_chunk, **options
    )
    assert_identical(expected, results)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        scored = set(results.to_results().query_ids)
    assert (
        set(expected.missing_queries) <= scored
        if options.get("complete")
        else not (set(expected.missing_queries) & scored)
    )


def test_the_weknora_profile_ranks_in_the_order_of_the_dataframe(
    spark: Any, data: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    qrels, run = data
    # Duplicates count under weknora; the order given decides the ranking, not the scores.
    run = pd.concat([run, run.iloc[::5]], ignore_index=True)
    expected = in_memory(qrels, run, WEKNORA_MEASURES, profile="weknora")
    assert_identical(
        expected, on_spark(spark, qrels, run, WEKNORA_MEASURES, profile="weknora", partitions=3)
    )
    # Without measures, the profile's defaults: WeKnora's six, as in memory.
    defaults = rankscope.spark.evaluate(
        spark.createDataFrame(qrels), spark.createDataFrame(run), profile="weknora"
    )
    assert defaults.measures == ("P", "R", "nDCG@3", "nDCG@10", "RR", "AP")
    assert_identical(in_memory(qrels, run, None, profile="weknora"), defaults)


def test_a_document_ranked_twice_is_refused_under_trec_with_the_in_memory_message(
    spark: Any, data: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    qrels, run = data
    judged = run[run["query_id"].isin(qrels["query_id"])]
    twice = pd.concat([run, judged.iloc[[3]]], ignore_index=True)
    with pytest.raises(DuplicateDocumentError) as memory_error:
        in_memory(qrels, twice, ["AP"])
    results = on_spark(spark, qrels, twice, ["AP"], run_source="<DataFrame>")
    with pytest.raises(DuplicateDocumentError) as spark_error:
        results.mean()
    assert str(spark_error.value) == str(memory_error.value)
    # Keeping the first occurrence, as in memory.
    expected = in_memory(qrels, twice, MEASURES, duplicate_documents="keep_first")
    kept = on_spark(spark, qrels, twice, MEASURES, duplicate_documents="keep_first", partitions=3)
    assert_identical(expected, kept)


def test_unjudged_queries_are_counted_in_the_in_memory_warning(
    spark: Any, data: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    qrels, run = data
    with pytest.warns(RankscopeWarning) as memory_warning:
        rankscope.evaluate(rankscope.Qrels.from_df(qrels), rankscope.Run.from_df(run), "AP")
    with pytest.warns(RankscopeWarning) as spark_warning:
        on_spark(spark, qrels, run, ["AP"]).mean()

    def messages(caught: Any) -> list[str]:
        return [str(w.message) for w in caught if w.category is RankscopeWarning]

    assert messages(spark_warning) == messages(memory_warning)


def test_a_run_with_no_judged_query_is_refused_unless_complete(spark: Any) -> None:
    qrels = pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["d", "d"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["x"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(InputError, match="none in common"):
        on_spark(spark, qrels, run, ["AP"]).mean()
    expected = in_memory(qrels, run, ["AP", "NumRel"], complete=True)
    assert_identical(expected, on_spark(spark, qrels, run, ["AP", "NumRel"], complete=True))


def test_bad_values_are_refused_with_the_in_memory_message(spark: Any) -> None:
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["d"], "relevance": ["x"]})
    run = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["d", "e"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match="relevance must be an integer grade; found 'x'"):
        on_spark(spark, qrels, run, ["AP"]).mean()
    qrels["relevance"] = [1]
    # Rows, not pandas: Spark would turn pandas' NaN into null.
    rows = spark.createDataFrame(
        [("a", "d", 1.0), ("a", "e", float("inf"))], "query_id string, doc_id string, score double"
    )
    expected = "score must be a finite number; found inf for query 'a', document 'e'"
    with pytest.raises(InputError, match=expected):
        rankscope.spark.evaluate(spark.createDataFrame(qrels), rows, ["AP"]).to_results()


def test_columns_are_mapped_by_keyword_and_ids_may_be_integers(spark: Any) -> None:
    qrels = pd.DataFrame({"qid": [1, 1, 2], "docno": [10, 11, 12], "rel": [1, 0, 2]})
    run = pd.DataFrame({"qid": [1, 1, 2], "docno": [11, 10, 12], "sim": [0.5, 0.4, 0.1]})
    results = rankscope.spark.evaluate(
        spark.createDataFrame(qrels),
        spark.createDataFrame(run.rename(columns={"sim": "score"})).withColumnRenamed(
            "score", "sim"
        ),
        ["RR", "P@1"],
        query_id="qid",
        doc_id="docno",
        relevance="rel",
        score="sim",
    )
    expected = rankscope.evaluate(
        rankscope.Qrels.from_df(qrels, query_id="qid", doc_id="docno", relevance="rel"),
        rankscope.Run.from_df(run, query_id="qid", doc_id="docno", score="sim"),
        ["RR", "P@1"],
    )
    assert_identical(expected, results)


def test_options_and_names_are_checked_before_any_spark_job(spark: Any) -> None:
    qrels = spark.createDataFrame(
        pd.DataFrame({"query_id": ["a"], "doc_id": ["d"], "relevance": [1]})
    )
    run = spark.createDataFrame(pd.DataFrame({"query_id": ["a"], "doc_id": ["d"], "score": [1.0]}))
    with pytest.raises(UnknownMeasureError, match="unknown measure 'nDGC'; did you mean nDCG"):
        rankscope.spark.evaluate(qrels, run, ["nDGC@10"])
    with pytest.raises(OptionError, match="partitions must be an integer >= 1; got 0"):
        rankscope.spark.evaluate(qrels, run, ["AP"], partitions=0)
    with pytest.raises(InputError, match=r"run needs the columns .*missing \['sim'\]"):
        rankscope.spark.evaluate(qrels, run, ["AP"], score="sim")
    floats = spark.createDataFrame(
        pd.DataFrame({"query_id": [1.0], "doc_id": ["d"], "score": [1.0]})
    )
    with pytest.raises(
        InputError, match="column 'query_id' of the run must hold strings or integers"
    ):
        rankscope.spark.evaluate(qrels, floats, ["AP"])


def test_an_empty_run_is_refused(spark: Any) -> None:
    qrels = spark.createDataFrame(
        pd.DataFrame({"query_id": ["a"], "doc_id": ["d"], "relevance": [1]})
    )
    empty = spark.createDataFrame([], "query_id string, doc_id string, score double")
    with pytest.raises(EmptyInputError, match="run holds no results"):
        rankscope.spark.evaluate(qrels, empty, ["AP"], complete=True).mean()


def test_spark_results_feed_compare_unchanged(spark: Any) -> None:
    from rankscope.compare import build_report

    qrels, run = generated(seed=3, queries=30)
    better = run.assign(score=run["score"] + (run["doc_id"].str.len() % 2))
    memory = [in_memory(qrels, r, ["AP", "nDCG@10"]) for r in (run, better)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        spark_side = [
            on_spark(spark, qrels, r, ["AP", "nDCG@10"]).to_results() for r in (run, better)
        ]
    kwargs: dict[str, Any] = {
        "names": ["base", "other"],
        "test": "randomization",
        "n_resamples": 200,
    }
    expected = build_report(memory[0], memory[1:], **kwargs).comparison
    got = build_report(spark_side[0], spark_side[1:], **kwargs).comparison
    assert got == expected
