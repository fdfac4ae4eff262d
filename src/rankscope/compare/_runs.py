"""`compare_runs`: evaluate several runs on the same qrels and compare them with a baseline, in
one call, returning a report that renders as Markdown, LaTeX, HTML, JSON or a DataFrame."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rankscope.compare._report import ComparisonReport, build_report
from rankscope.engine import Measure, evaluate, parse_measures
from rankscope.engine.provenance import Provenance, distinct_names
from rankscope.errors import InputError
from rankscope.io import as_qrels, as_run

__all__ = ["ComparisonReport", "compare_runs"]


def _named_runs(runs: Mapping[str, Any] | Sequence[Any]) -> list[tuple[str, Any]]:
    """(name, run) pairs: the keys of a mapping, else each run's own name (made distinct)."""
    if isinstance(runs, Mapping):
        for name in runs:
            if not isinstance(name, str) or not name:
                raise InputError(f"run names must be non-empty strings; got {name!r}")
        return [(name, as_run(run, name=name)) for name, run in runs.items()]
    if isinstance(runs, str | os.PathLike) or not isinstance(runs, Sequence):
        raise InputError(
            "runs must be a dict {name: run} or a list of runs (the first is the baseline); "
            f"got {type(runs).__name__}"
        )
    loaded = [as_run(run) for run in runs]
    names = distinct_names([run.name for run in loaded], [run.source for run in loaded])
    return list(zip(names, loaded, strict=True))


def compare_runs(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    measures: str | Measure | Iterable[str | Measure],
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    profile: str = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    seed: int | None = 0,
    n_resamples: int = 10_000,
) -> ComparisonReport:
    """Evaluate ``runs`` against ``qrels`` and test each against the baseline, per measure.

    Parameters
    ----------
    qrels
        Judgements, in any form `rankscope.evaluate` takes.
    runs
        ``{name: run}`` (any form `rankscope.evaluate` takes), or a list of runs named by their
        own names (TREC tags, file names; made distinct where they repeat).
    measures
        Measure names, as for `rankscope.evaluate`.
    baseline
        The name of the run the others are compared with (default: the first).
    test, correction, alpha, seed, n_resamples
        As for `rankscope.compare.compare`: the paired test (``t``, ``wilcoxon``,
        ``randomization``, ``bootstrap``), the correction for testing every run on every measure
        (``holm``, ``bonferroni``, ``bh``, ``none``), the level, and the resampling.
    profile, complete, relevance_level
        As for `rankscope.evaluate`. Without ``complete`` the comparison is restricted to the
        queries every run holds (with a warning naming those left out).

    Returns
    -------
    ComparisonReport
        ``to_markdown()``, ``to_latex()``, ``to_html()``, ``to_json()``, ``to_dataframe()``;
        in Jupyter it shows its summary table.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> report = rankscope.compare_runs(
    ...     qrels,
    ...     {"bm25": {f"q{i}": ["x", "a"] for i in range(8)},
    ...      "dense": {f"q{i}": ["a"] for i in range(8)}},
    ...     ["RR", "P@1"],
    ...     test="randomization",
    ... )
    >>> report
    ComparisonReport(dense vs bm25; 8 queries; 2 of 2 differences significant)
    >>> print(report.to_markdown().split("\\n\\n")[0])
    | run | RR | P@1 |
    | --- | ---: | ---: |
    | bm25 (baseline) | 0.5000 | 0.0000 |
    | dense | **1.0000**† | **1.0000**† |
    """
    wanted = parse_measures(measures)
    judgements = as_qrels(qrels)
    named = _named_runs(runs)
    if len(named) < 2:
        raise InputError(f"compare_runs needs a baseline and at least one run; got {len(named)}")
    names = [name for name, _ in named]
    if baseline is not None:
        if baseline not in names:
            raise InputError(f"no run named {baseline!r} to be the baseline; runs: {names}")
        named.sort(key=lambda pair: pair[0] != baseline)  # stable: the others keep their order
    results = [
        evaluate(
            judgements,
            run,
            wanted,
            profile=profile,
            complete=complete,
            relevance_level=relevance_level,
        )
        for _, run in named
    ]
    provenance = Provenance.now(
        qrels=judgements.source,
        runs=[(name, run.source) for name, run in named],
        profile=results[0].profile,
        measures=[m.name for m in wanted],
        command=f"rankscope.compare_runs(test={test!r}, correction={correction!r}, alpha={alpha})",
    )
    return build_report(
        results[0],
        results[1:],
        names=[name for name, _ in named],
        test=test,
        correction=correction,
        alpha=alpha,
        seed=seed,
        n_resamples=n_resamples,
        provenance=provenance,
    )
