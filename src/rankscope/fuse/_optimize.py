"""`optimize_fusion`: search a fusion method's parameters (and train it) on judged queries."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import polars as pl

from rankscope._progress import ProgressOption, steps
from rankscope.engine import evaluate, measure
from rankscope.errors import OptionError, RankscopeWarning
from rankscope.fuse._fuse import RunLike, as_runs, encode, fuse_encoded
from rankscope.fuse._methods import FusionMethod, check_params, method_named, norm_named
from rankscope.fuse._train import Judgements, train
from rankscope.io import as_qrels
from rankscope.io.tables import QUERY_ID, Qrels

__all__ = ["FusionSearch", "Trial", "optimize_fusion"]


@dataclass(frozen=True)
class Trial:
    """One tried configuration: the searched parameters and the metric's mean over queries."""

    params: dict[str, Any]
    score: float


@dataclass(frozen=True)
class FusionSearch:
    """What `optimize_fusion` found.

    ``params`` is ready for ``rankscope.fuse(runs, method, norm, params=search.params)``:
    the best searched parameters together with the trained ones (``probs``, ``log_odds``,
    ``map_scores``). ``trials`` lists every configuration tried, in the order tried.
    """

    method: str
    norm: str | None
    metric: str
    params: dict[str, Any]
    score: float
    trials: tuple[Trial, ...]

    def table(self) -> pl.DataFrame:
        """The trials as a table: one column per searched parameter, then the metric."""
        rows = [{**_shown(trial.params), self.metric: trial.score} for trial in self.trials]
        return pl.DataFrame(rows)


def _shown(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple | list) else v) for k, v in params.items()}


# ranx's default search of each method: (parameter, first, last, step).
_RANGES: dict[str, tuple[str, float, float, float]] = {
    "rrf": ("k", 10, 100, 10),
    "gmnz": ("gamma", 0.01, 1.0, 0.01),
    "logn_isr": ("sigma", 0.01, 1.0, 0.01),
    "rbc": ("phi", 0.01, 1.0, 0.01),
    "probfuse": ("n_segments", 1, 100, 1),
    "slidefuse": ("w", 1, 100, 1),
}
_WEIGHT_STEP = 0.1


def _digits(step: float) -> int:
    return max(0, -int(Decimal(str(step)).normalize().as_tuple().exponent))


def _grid(first: float, last: float, step: float) -> list[float]:
    """``first, first + step, ...`` up to ``last``, rounded to the step's decimals (exact
    counts, where a floating-point ``arange`` can add or drop the last value)."""
    if step <= 0:
        raise OptionError(f"step must be > 0; got {step:g}")
    count = math.floor((last - first) / step + 1e-9)
    digits = _digits(step)
    return [round(first + i * step, digits) for i in range(count + 1)]


def weight_grid(n_runs: int, step: float) -> Iterator[tuple[float, ...]]:
    """Every tuple of ``n_runs`` weights in multiples of ``step`` that sums to 1, in
    lexicographic order (the combinations ranx tries, without those its floating-point test
    ``sum == 1.0`` drops)."""
    units = round(1 / step)
    if step <= 0 or step > 1 or abs(units * step - 1) > 1e-9:
        raise OptionError(f"the weight step must divide 1 (0.1, 0.05, 0.25, ...); got {step:g}")
    digits = _digits(step)

    def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
        if parts == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in compositions(total - first, parts - 1):
                yield (first, *rest)

    for counts in compositions(units, n_runs):
        yield tuple(round(c * step, digits) for c in counts)


def _candidates(
    fusion: FusionMethod,
    n_runs: int,
    step: float | None,
    candidates: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]] | None,
) -> list[dict[str, Any]]:
    """The configurations to try, in order."""
    searched = {"n_segments"} if fusion.name == "probfuse" else set(fusion.params)
    searched -= set(fusion.trained)
    if candidates is not None:
        if isinstance(candidates, Mapping):
            names = list(candidates)
            configs = [
                dict(zip(names, values, strict=True))
                for values in itertools.product(*(candidates[n] for n in names))
            ]
        else:
            configs = [dict(c) for c in candidates]
        if not configs:
            raise OptionError("candidates hold no configuration to try")
        for config in configs:
            unknown = set(config) - searched
            if unknown:
                raise OptionError(
                    f"{fusion.name}: cannot search {', '.join(sorted(unknown))}; "
                    f"it searches {', '.join(sorted(searched)) or 'nothing'}"
                )
        return configs
    if fusion.weighted:
        return [{"weights": w} for w in weight_grid(n_runs, step or _WEIGHT_STEP)]
    if fusion.name in _RANGES:
        name, first, last, default_step = _RANGES[fusion.name]
        values = _grid(first, last, step or default_step)
        if name in ("k", "n_segments", "w"):
            return [{name: round(v)} for v in values]
        return [{name: v} for v in values]
    if fusion.trained:
        return [{}]
    raise OptionError(f"{fusion.name} has no parameter to optimize or train")


def optimize_fusion(
    qrels: Qrels | Mapping[Any, Any] | str,
    runs: Sequence[RunLike],
    method: str = "wsum",
    metric: str = "nDCG@100",
    norm: str | None = "min-max",
    *,
    step: float | None = None,
    candidates: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]] | None = None,
    profile: str = "trec",
    relevance_level: int = 1,
    progress: ProgressOption = None,
) -> FusionSearch:
    """Search (and train) a fusion method's parameters on judged queries, as ranx's
    ``optimize_fusion`` does, scoring each configuration with rankscope's measures.

    Every configuration is fused with `fuse` and evaluated with `rankscope.evaluate`
    (``metric``'s mean over the judged queries of the fused run). The best is the first with
    the highest score (ranx keeps the last).

    The search, unless ``candidates`` is given, is ranx's: ``k`` in 10, 20, ..., 100 for
    ``rrf``; ``gamma``, ``sigma``, ``phi`` in 0.01, 0.02, ..., 1 for ``gmnz``, ``logn_isr``,
    ``rbc``; every combination of weights in multiples of 0.1 summing to 1 for the weighted
    methods (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``); the number of
    segments 1..100 for ``probfuse``, the window ``w`` 1..100 for ``slidefuse``. ``step``
    changes the grid's step. The trained methods (``probfuse``, ``segfuse``, ``slidefuse``,
    ``mapfuse``, ``posfuse``, ``bayesfuse``) are trained on ``qrels`` (see
    ``rankscope.fuse._train``); those with nothing to search give one trial.

    Parameters
    ----------
    qrels
        Judgements: a `Qrels`, ``{query_id: {doc_id: grade}}``, or a file.
    runs
        Two or more runs (as for `fuse`).
    method, norm
        As for `fuse` (``wsum`` by default, as ranx).
    metric
        A rankscope measure name, e.g. ``"nDCG@10"``, ``"AP"``, ``"ndcg_cut.10"``.
    step
        The grid's step (weights: 0.1; ``k``: 10; ``gamma``, ``sigma``, ``phi``: 0.01).
    candidates
        Configurations to try instead of the grid: ``{"k": [20, 60]}`` (every combination)
        or ``[{"weights": [0.7, 0.3]}, {"weights": [0.5, 0.5]}]``.
    profile, relevance_level
        As for `rankscope.evaluate`; ``relevance_level`` is also the lowest relevant grade
        for training.
    progress
        ``True`` for a bar of the trials on standard error (on a terminal), or a function
        called with ``(trials done, trials)`` after each.

    Returns
    -------
    FusionSearch
        The best ``params`` (trained ones included), its ``score``, and every trial.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d4": 1}}
    >>> bm25 = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}}
    >>> dense = {"q1": {"d3": 0.9, "d2": 0.5}, "q2": {"d4": 0.8, "d5": 0.7}}
    >>> search = rankscope.optimize_fusion(qrels, [bm25, dense], "wsum", "AP", step=0.5)
    >>> search.params, round(search.score, 4)
    ({'weights': [0.0, 1.0]}, 0.9167)
    >>> [(trial.params["weights"], round(trial.score, 4)) for trial in search.trials]
    [([0.0, 1.0], 0.9167), ([0.5, 0.5], 0.75), ([1.0, 0.0], 0.6667)]
    """
    fusion = method_named(method)
    norm = norm_named(norm)
    name = measure(metric).name
    judged = as_qrels(qrels)
    loaded = as_runs(runs)
    configs = _candidates(fusion, len(loaded), step, candidates)
    encoded = encode(loaded, extra_query_ids=judged.frame[QUERY_ID].unique())
    normalized = encoded.normalized(norm)
    judgements = Judgements(judged, encoded, relevance_level)
    trained: dict[str, Any] = {}
    if fusion.trained and fusion.name != "probfuse":
        trained = train(fusion.name, encoded, normalized, judgements)

    trials: list[Trial] = []
    chosen: list[dict[str, Any]] = []
    with steps(len(configs), f"{fusion.name}: trials", progress) as advance:
        for config in configs:
            searched = {k: v for k, v in config.items() if k != "n_segments"}
            if fusion.name == "probfuse":
                n_segments = config.get("n_segments")
                if type(n_segments) is not int or n_segments < 1:  # bool is refused too
                    raise OptionError(
                        f"probfuse: n_segments must be an integer >= 1; got {n_segments!r}"
                    )
                trained = train("probfuse", encoded, normalized, judgements, n_segments)
            params = {**_shown(searched), **trained}
            fused = fuse_encoded(
                encoded, fusion.name, norm, check_params(fusion, params, len(loaded)), fusion.name
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RankscopeWarning)
                results = evaluate(
                    judged, fused, name, profile=profile, relevance_level=relevance_level
                )
            trials.append(Trial(_shown(config), results.mean()[name]))
            chosen.append(params)
            advance(len(trials))
    best = max(range(len(trials)), key=lambda i: (trials[i].score, -i))
    return FusionSearch(fusion.name, norm, name, chosen[best], trials[best].score, tuple(trials))
