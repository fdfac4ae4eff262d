"""Runs grouped by query, evaluated range by range where they are read: ranges cut at query
boundaries, the numbers of the in-memory evaluation, and the shuffle when a run is not grouped."""

from __future__ import annotations

import io
import itertools
import random
import warnings
from pathlib import Path
from typing import Any

import pytest
from spark_data import MEASURES, generated

import rankscope
import rankscope.spark
from rankscope.errors import RankscopeWarning
from rankscope.spark._grouped import query_bounds


def _grouped_text(seed: int) -> bytes:
    rng = random.Random(seed)
    lines = []
    for q in range(rng.randint(1, 30)):
        if rng.random() < 0.2:
            lines.append("# a comment")
        if rng.random() < 0.1:
            lines.append("")
        for d in range(rng.randint(1, 12)):
            doc = "d" * rng.choice((1, 1, 1, 200)) + str(d)  # now and then a long line
            lines.append(f"q{q}\tQ0 {doc} {d + 1} {rng.random():.4f} run")
    return ("\n".join(lines) + ("\n" if rng.random() < 0.7 else "")).encode()


@pytest.mark.parametrize("seed", range(12))
def test_ranges_cut_at_query_boundaries_cover_the_file_once(seed: int) -> None:
    text = _grouped_text(seed)
    file = io.BytesIO(text)
    size = len(text)
    for step in (1, 7, 64, 500, size + 1):
        cuts = [*range(0, size, step), size]
        bounds = [query_bounds(file, a, b, size) for a, b in itertools.pairwise(cuts)]
        # Consecutive, from 0 to the end: every byte read once.
        assert bounds[0][0] == 0 and bounds[-1][1] == size
        assert all(b[1] == c[0] for b, c in itertools.pairwise(bounds))
        # No query in two ranges.
        seen: set[bytes] = set()
        for first, last in bounds:
            queries = {
                line.split()[0]
                for line in text[first:last].split(b"\n")
                if line.strip() and not line.startswith(b"#")
            }
            assert not queries & seen, (step, first, last)
            seen |= queries


def _write(frame: Any, path: Path, run: bool) -> str:
    with path.open("w") as out:
        for row in frame.itertuples(index=False):
            if run:
                out.write(f"{row.query_id} Q0 {row.doc_id} 0 {row.score} tag\n")
            else:
                out.write(f"{row.query_id} 0 {row.doc_id} {row.relevance}\n")
    return str(path)


@pytest.fixture
def small_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rankscope.spark._read, "RANGE_BYTES", 300)  # many ranges, many cuts


# 14 queries in the run, 4.7 kB: 16 ranges of 300 bytes, cut inside queries, 5 of them holding
# no query's start (empty); each range is a Spark task, the tests' cost.
QUERIES = 20


@pytest.mark.slow  # a local Spark
@pytest.mark.parametrize("options", [{}, {"complete": True}], ids=["default", "complete"])
def test_a_grouped_run_gives_the_in_memory_numbers(
    spark: Any, tmp_path: Path, small_ranges: None, options: dict[str, Any]
) -> None:
    qrels, run = generated(queries=QUERIES)
    run = run.sort_values("query_id", kind="stable")  # grouped, queries in no particular order
    qrels_path = _write(qrels, tmp_path / "qrels", run=False)
    run_path = _write(run, tmp_path / "run", run=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        expected = rankscope.evaluate(qrels_path, run_path, MEASURES, **options)
    frame, name = rankscope.spark.read_run(spark, run_path)
    judged = rankscope.spark.read_qrels(spark, qrels_path)
    results = rankscope.spark.evaluate(judged, frame, MEASURES, run_name=name, **options)
    with pytest.warns(RankscopeWarning, match="have no judgements and were ignored"):
        means = results.mean()
    assert means == expected.mean()
    with pytest.warns(RankscopeWarning, match="have no judgements"):
        got = results.to_results()
    assert got.query_ids == expected.query_ids
    assert got.per_query.equals(expected.per_query)
    assert got.missing_queries == expected.missing_queries
    assert got.unjudged_queries == expected.unjudged_queries


@pytest.mark.slow  # a local Spark
def test_a_run_not_grouped_is_evaluated_again_with_a_shuffle(
    spark: Any, tmp_path: Path, small_ranges: None
) -> None:
    qrels, run = generated(queries=QUERIES)  # rows shuffled: queries scattered over the file
    qrels_path = _write(qrels, tmp_path / "qrels", run=False)
    run_path = _write(run, tmp_path / "run", run=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        expected = rankscope.evaluate(qrels_path, run_path, MEASURES)
    frame, _ = rankscope.spark.read_run(spark, run_path)
    results = rankscope.spark.evaluate(
        rankscope.spark.read_qrels(spark, qrels_path), frame, MEASURES
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankscopeWarning)
        means = results.mean()
    assert means == expected.mean()
    messages = [str(w.message) for w in caught]
    assert any(
        "is not grouped by query" in m and "evaluating it again with a shuffle by query" in m
        for m in messages
    ), messages


@pytest.mark.slow  # a local Spark
@pytest.mark.parametrize("options", [{}, {"complete": True}], ids=["default", "complete"])
def test_files_are_evaluated_range_by_range_with_the_in_memory_numbers(
    spark: Any, tmp_path: Path, small_ranges: None, options: dict[str, Any]
) -> None:
    # What the command line runs: one plain Spark job over the run's ranges, the judged
    # queries the run lacks added on the driver.
    qrels, run = generated(queries=QUERIES)
    run = run.sort_values("query_id", kind="stable")
    qrels_path = _write(qrels, tmp_path / "qrels", run=False)
    run_path = _write(run, tmp_path / "run", run=True)
    expected, in_memory = _warned(
        lambda: rankscope.evaluate(qrels_path, run_path, MEASURES, **options)
    )
    results, on_spark = _warned(
        lambda: rankscope.spark.evaluate_files(spark, qrels_path, [run_path], MEASURES, **options)
    )
    (got,) = results
    assert on_spark == in_memory and in_memory  # the unjudged queries, word for word
    assert got.run_name == expected.run_name
    assert got.query_ids == expected.query_ids
    assert got.per_query.equals(expected.per_query)
    assert got.mean() == expected.mean()
    assert got.missing_queries == expected.missing_queries
    assert got.unjudged_queries == expected.unjudged_queries


@pytest.mark.slow  # a local Spark
def test_files_not_grouped_are_evaluated_again_with_a_shuffle(
    spark: Any, tmp_path: Path, small_ranges: None
) -> None:
    qrels, run = generated(queries=QUERIES)  # queries scattered over the file
    qrels_path = _write(qrels, tmp_path / "qrels", run=False)
    run_path = _write(run, tmp_path / "run", run=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        expected = rankscope.evaluate(qrels_path, run_path, MEASURES, complete=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankscopeWarning)
        (got,) = rankscope.spark.evaluate_files(
            spark, qrels_path, [run_path], MEASURES, complete=True
        )
    assert got.per_query.equals(expected.per_query)
    assert got.mean() == expected.mean()
    regrouped = [str(w.message) for w in caught if "is not grouped by query" in str(w.message)]
    assert len(regrouped) == 1, [str(w.message) for w in caught]
    assert regrouped[0].startswith(f"{run_path}: the run is not grouped by query: '")
    assert regrouped[0].endswith("evaluating it again with a shuffle by query")


def _warned(action: Any) -> tuple[Any, list[str]]:
    """What ``action()`` returns, and the messages of the rankscope warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RankscopeWarning)
        value = action()
    return value, [str(w.message) for w in caught if issubclass(w.category, RankscopeWarning)]
