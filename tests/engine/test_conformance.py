"""trec_eval's own regression outputs: every value of every implemented measure must match.

The expected files were produced by trec_eval 10 on real TREC data (see the README beside
them). Values are compared as trec_eval prints them: 4 decimals, counts as integers.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

import rankscope
from rankscope.io import read_qrels, read_run

CASES = [
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test.a", "qrels.test", "results.test", {}),
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_documents": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}),
]


def expected_values(path: Path) -> dict[tuple[str, str], str]:
    values = {}
    for line in path.read_text().splitlines():
        name, query, value = line.split("\t")
        values[(name.strip(), query)] = value
    return values


# trec_eval names that mean another measure elsewhere: rankscope's RBP is ir_measures'.
TREC_EVAL_ONLY = {"rbp": "TrecRBP", "rbp_resid": "TrecRBPResid"}


def implemented(names: set[str]) -> dict[str, rankscope.Measure]:
    found = {}
    for name in names:
        try:
            found[name] = rankscope.measure(TREC_EVAL_ONLY.get(name, name))
        except rankscope.MeasureError:
            continue
    return found


@pytest.mark.parametrize(("expected", "qrels", "run", "options"), CASES)
def test_every_value_matches_trec_eval(
    conformance_dir: Path, expected: str, qrels: str, run: str, options: dict[str, Any]
) -> None:
    wanted = expected_values(conformance_dir / expected)
    measures = implemented({name for name, _ in wanted})
    assert len(measures) >= 60 if expected != "out.test" else len(measures) >= 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        results = rankscope.evaluate(
            read_qrels(conformance_dir / qrels),
            read_run(conformance_dir / run),
            list(measures.values()),
            **options,
        )
    per_query, means = results.to_dict(), results.mean()
    checked = 0
    for (name, query), value in wanted.items():
        if name not in measures:
            continue
        got = (
            means[measures[name].name] if query == "all" else per_query[query][measures[name].name]
        )
        printed = f"{got:.4f}" if "." in value else str(round(got))
        assert printed == value, f"{expected}: {name} {query}: expected {value}, got {printed}"
        checked += 1
    assert checked >= 20


def test_all_trec_runid_is_the_run_tag(conformance_dir: Path) -> None:
    assert read_run(conformance_dir / "results.test").name == "STANDARD"
