"""`compare_runs`: evaluate several runs on the same qrels and compare them with a baseline, in
one call, returning a report that renders as Markdown, LaTeX, HTML, JSON or a DataFrame."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rankscope._progress import ProgressOption, steps
from rankscope.compare._pairs import default_correction
from rankscope.compare._report import ComparisonReport, build_report
from rankscope.engine import Measure, evaluate, judgements, plan
from rankscope.engine.measures._names import measures_of
from rankscope.engine.provenance import Provenance, distinct_names
from rankscope.errors import EmptyInputError, InputError
from rankscope.io import as_run

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
    measures: str | Measure | Iterable[str | Measure] | None = None,
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = None,
    alpha: float = 0.05,
    profile: str = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    seed: int | None = 0,
    n_resamples: int = 10_000,
    pairs: str | Sequence[tuple[str, str]] = "baseline",
    baselines: Sequence[str] | None = None,
    progress: ProgressOption = None,
) -> ComparisonReport:
    """Evaluate ``runs`` against ``qrels`` and test each against the baseline, per measure; or
    compare every pair, several baselines, or chosen pairs.

    Parameters
    ----------
    qrels
        Judgements, in any form `rankscope.evaluate` takes.
    runs
        ``{name: run}`` (any form `rankscope.evaluate` takes), or a list of runs named by their
        own names (TREC tags, file names; made distinct where they repeat).
    measures
        Measures, as `rankscope.evaluate` takes them (None: the profile's defaults).
    baseline
        The name of the run the others are compared with (default: the first).
    test, correction, alpha, seed, n_resamples
        The test: a paired test (``t``, ``wilcoxon``, ``randomization``, ``bootstrap``) of each
        pair, with the correction for testing every pair on every measure (``holm``, the
        default, ``bonferroni``, ``bh``, ``none``); or a test over all the runs at once,
        ``tukey`` (Tukey's HSD, topics as blocks) or ``randomized-tukey`` (the randomized Tukey
        HSD test), which adjust for every pair themselves (leave ``correction`` unset). Then
        the level, and the resampling (see `rankscope.compare.compare_pairs`).
    pairs
        ``"baseline"`` (default): each run against the baseline, or against each of
        ``baselines``; ``"all"``: every pair of runs; or a list of ``(first, second)`` run
        names (``second`` tested against ``first``).
    baselines
        Several baselines at once (with ``pairs="baseline"``): every other run is compared with
        each of them.
    progress
        ``True``: a bar on standard error, when it is a terminal, of the runs evaluated and
        then of the bootstrap intervals (computed here rather than when first read); or a
        callable, called with ``(done, total)`` after each step.
    profile, complete, relevance_level
        As for `rankscope.evaluate`. Without ``complete`` the comparison is restricted to the
        queries every run holds (with a warning naming those left out).

    Returns
    -------
    ComparisonReport
        ``to_markdown()``, ``to_latex()``, ``to_html()``, ``to_json()``, ``to_dataframe()``;
        in Jupyter it shows its summary table. When pairs were compared, the reports show the
        pairwise matrix, a compact letter display and the ANOVA table of every measure.

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

    Every pair, by Tukey's HSD with topics as blocks:

    >>> runs = {"bm25": {f"q{i}": ["x", "a"] for i in range(8)},
    ...         "dense": {f"q{i}": ["a"] for i in range(8)},
    ...         "mixed": {f"q{i}": ["a"] if i % 2 else ["x", "a"] for i in range(8)}}
    >>> every = rankscope.compare_runs(qrels, runs, "RR", pairs="all", test="tukey")
    >>> every
    ComparisonReport(3 pairs of 3 runs; 8 queries; 3 of 3 differences significant)
    >>> frame = every.to_dataframe()
    >>> [(a, b, round(p, 4)) for a, b, p in frame.select("baseline", "system", "p_value").rows()]
    [('bm25', 'dense', 0.0), ('bm25', 'mixed', 0.0153), ('dense', 'mixed', 0.0153)]
    """
    wanted = measures_of(plan(measures, profile))
    judged = judgements(qrels, function="compare_runs", second="runs")
    if judged is None:
        raise EmptyInputError("qrels hold no judgements: there is nothing to compare")
    named = _named_runs(runs)
    if len(named) < 2:
        raise InputError(f"compare_runs needs a baseline and at least one run; got {len(named)}")
    names = [name for name, _ in named]
    resolved = default_correction(test, correction, "compare_runs")
    if baseline is not None:
        if baseline not in names:
            raise InputError(f"no run named {baseline!r} to be the baseline; runs: {names}")
        named.sort(key=lambda pair: pair[0] != baseline)  # stable: the others keep their order
    results = []
    with steps(len(named), "evaluating runs", progress) as advance:
        for done, (_, run) in enumerate(named, 1):
            results.append(
                evaluate(
                    judged,
                    run,
                    wanted,
                    profile=profile,
                    complete=complete,
                    relevance_level=relevance_level,
                )
            )
            advance(done)
    provenance = Provenance.now(
        qrels=judged.source,
        runs=[(name, run.source) for name, run in named],
        profile=results[0].profile,
        measures=[m.name for m in wanted],
        command=f"rankscope.compare_runs(test={test!r}, correction={resolved!r}, alpha={alpha}"
        + _pairs_argument(pairs, baselines)
        + ")",
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
        pairs=pairs,
        baselines=baselines,
        progress=progress,
    )


def _pairs_argument(pairs: str | Sequence[tuple[str, str]], baselines: Sequence[str] | None) -> str:
    """``, pairs=...`` and ``, baselines=...`` for the provenance, when not the defaults."""
    text = "" if isinstance(pairs, str) and pairs == "baseline" else f", pairs={pairs!r}"
    return text + (f", baselines={list(baselines)!r}" if baselines else "")
