"""The fusion methods and normalisations: names, parameters, defaults, and their checks.

This table is the one place that knows a method; `fuse`, `optimize_fusion` and the command
line read it. The formulas live with the kernels in the native core (``crates/rankscope-core/
src/fuse``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from rankscope.errors import OptionError

__all__ = ["METHODS", "NORMS", "FusionMethod", "check_params", "method_named", "norm_named"]


@dataclass(frozen=True)
class FusionMethod:
    """A fusion method: its ranx name, what it computes, and its parameters.

    ``params`` are the parameters `fuse` accepts; ``defaults`` those it fills in when not
    given; ``trained`` the parameters `optimize_fusion` estimates from judgements (a method
    with some cannot run before it is trained).
    """

    name: str
    summary: str
    reference: str
    params: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    trained: tuple[str, ...] = ()

    @property
    def weighted(self) -> bool:
        """Whether the method takes one weight per run."""
        return "weights" in self.params


_FOX = "Fox & Shaw, Combination of multiple searches, TREC-2 (1993)"
_MOURAO = "Mourão et al., Multimodal medical information retrieval, CMIG 39 (2015)"
_WU = "Wu & Crestani, Data fusion with estimated weights, CIKM (2002)"
_BORDA = "Aslam & Montague, Models for metasearch, SIGIR (2001)"
_CONDORCET = "Montague & Aslam, Condorcet fusion for improved retrieval, CIKM (2002)"

METHODS: dict[str, FusionMethod] = {
    m.name: m
    for m in (
        FusionMethod("sum", "CombSUM: sum of the scores", _FOX),
        FusionMethod("mnz", "CombMNZ: sum of the scores x number of runs retrieving", _FOX),
        FusionMethod("max", "CombMAX: highest score", _FOX),
        FusionMethod("min", "CombMIN: lowest score (missing counts as 1e9)", _FOX),
        FusionMethod("med", "CombMED: median of the scores of the runs retrieving", _FOX),
        FusionMethod("anz", "CombANZ: mean of the scores of the runs retrieving", _FOX),
        FusionMethod(
            "gmnz",
            "CombGMNZ: sum of the scores x (runs retrieving)^gamma",
            "Lee, Analyses of multiple evidence combination, SIGIR (1997)",
            params=("gamma",),
        ),
        FusionMethod(
            "rrf",
            "Reciprocal rank fusion: sum of 1 / (k + rank)",
            "Cormack et al., Reciprocal rank fusion outperforms Condorcet, SIGIR (2009)",
            params=("k",),
            defaults={"k": 60},
        ),
        FusionMethod("isr", "ISR: sum of 1 / rank^2 x runs retrieving", _MOURAO),
        FusionMethod("log_isr", "log_ISR: sum of 1 / rank^2 x ln(runs retrieving)", _MOURAO),
        FusionMethod(
            "logn_isr",
            "logN_ISR: sum of 1 / rank^2 x ln(runs retrieving + sigma)",
            _MOURAO,
            params=("sigma",),
            defaults={"sigma": 0.01},
        ),
        FusionMethod("bordafuse", "BordaFuse: sum of Borda points", _BORDA),
        FusionMethod(
            "w_bordafuse",
            "Weighted BordaFuse: weighted sum of Borda points",
            _BORDA,
            params=("weights",),
        ),
        FusionMethod("condorcet", "Condorcet fusion: pairwise majority order", _CONDORCET),
        FusionMethod(
            "w_condorcet",
            "Weighted Condorcet fusion: pairwise weighted-majority order",
            _CONDORCET,
            params=("weights",),
        ),
        FusionMethod("wsum", "Weighted sum of the scores", _WU, params=("weights",)),
        FusionMethod(
            "wmnz",
            "Weighted MNZ: sum of the scores x sum of the weights of the runs retrieving",
            _WU,
            params=("weights",),
        ),
        FusionMethod(
            "mixed",
            "Mixed: weighted sum of the scores x sqrt(runs retrieving)",
            _WU,
            params=("weights",),
        ),
        FusionMethod(
            "rbc",
            "Rank-biased centroid: sum of (1 - phi) phi^(rank - 1)",
            "Bailey et al., Retrieval consistency in the presence of query variations, "
            "SIGIR (2017)",
            params=("phi",),
        ),
        FusionMethod(
            "probfuse",
            "ProbFuse: trained relevance probability of the rank's segment / segment number",
            "Lillis et al., ProbFuse: a probabilistic approach to data fusion, SIGIR (2006)",
            params=("probs",),
            trained=("probs",),
        ),
        FusionMethod(
            "segfuse",
            "SegFuse: trained relevance probability of the rank's segment x (score + 1)",
            "Shokouhi, Segmentation of search engine results for effective data-fusion, "
            "ECIR (2007)",
            params=("probs",),
            trained=("probs",),
        ),
        FusionMethod(
            "slidefuse",
            "SlideFuse: trained relevance probability averaged over a window of ranks",
            "Lillis et al., Extending probabilistic data fusion using sliding windows, ECIR (2008)",
            params=("probs", "w"),
            trained=("probs",),
        ),
        FusionMethod(
            "mapfuse",
            "MAPFuse: the run's trained MAP / rank",
            "Lillis et al., Estimating probabilities for effective data fusion, SIGIR (2010)",
            params=("map_scores",),
            trained=("map_scores",),
        ),
        FusionMethod(
            "posfuse",
            "PosFuse: trained relevance probability of the rank",
            "Lillis et al., Estimating probabilities for effective data fusion, SIGIR (2010)",
            params=("probs",),
            trained=("probs",),
        ),
        FusionMethod(
            "bayesfuse",
            "BayesFuse: sum of the trained log-odds of relevance of the rank",
            "Aslam & Montague, Models for metasearch, SIGIR (2001)",
            params=("log_odds",),
            trained=("log_odds",),
        ),
    )
}

NORMS: dict[str, str] = {
    "min-max": "(s - min) / (max - min)",
    "min-max-inverted": "(max - s) / (max - min): low scores first",
    "max": "s / max",
    "sum": "(s - min) / (sum - min * n)",
    "zmuv": "(s - mean) / standard deviation",
    "rank": "1 - (rank - 1) / n",
    "borda": "1 - (rank - 1) / c, over the c documents of every run; (c - n + 1) / 2c if missed",
}
"""The normalisations and their formulas, per query (divisors floored at 1e-9)."""

_NORM_ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}


def method_named(name: str) -> FusionMethod:
    """The method of that name, or an `OptionError` listing the names."""
    try:
        return METHODS[name]
    except (KeyError, TypeError):
        raise OptionError(
            f"unknown fusion method {name!r}; expected one of {', '.join(METHODS)}"
        ) from None


def norm_named(name: str | None) -> str | None:
    """The canonical name of a normalisation (None and "none": no normalisation)."""
    if name is None or name == "none":
        return None
    name = _NORM_ALIASES.get(name, name)
    if name not in NORMS:
        raise OptionError(
            f"unknown normalization {name!r}; expected one of {', '.join(NORMS)} or None"
        )
    return name


def _number(method: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise OptionError(f"{method}: {name} must be a number; got {value!r}")
    if not math.isfinite(value):
        raise OptionError(f"{method}: {name} must be finite; got {value!r}")
    return float(value)


def _numbers(method: str, name: str, values: Any, length: int | None = None) -> list[float]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise OptionError(f"{method}: {name} must be a list of numbers; got {values!r}")
    numbers = [_number(method, name, v) for v in values]
    if length is not None and len(numbers) != length:
        raise OptionError(
            f"{method}: {name} needs one value per run ({length}); got {len(numbers)}"
        )
    return numbers


def _items(method: str, name: str, values: Any) -> list[Any]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise OptionError(f"{method}: {name} must be a list of lists; got {values!r}")
    return list(values)


def check_params(
    method: FusionMethod, params: Mapping[str, Any] | None, n_runs: int
) -> dict[str, Any]:
    """The method's parameters, defaults filled in and every value checked."""
    given = dict(params or {})
    unknown = sorted(set(given) - set(method.params))
    if unknown:
        accepted = ", ".join(method.params) or "none"
        raise OptionError(
            f"{method.name} takes no parameter {', '.join(unknown)}; it accepts: {accepted}"
        )
    values = {**method.defaults, **given}
    if method.weighted and "weights" not in values:
        values["weights"] = [1.0] * n_runs
    missing = [p for p in method.params if p not in values]
    if missing:
        hint = (
            f"; train it with rankscope.optimize_fusion(qrels, runs, method={method.name!r})"
            if set(missing) & set(method.trained)
            else ""
        )
        raise OptionError(f"{method.name} needs the parameter {', '.join(missing)}{hint}")
    name = method.name
    checked: dict[str, Any] = {}
    for param, value in values.items():
        if param == "weights" or param == "map_scores":
            checked[param] = _numbers(name, param, value, n_runs)
        elif param in ("probs", "log_odds"):
            lists = [_numbers(name, param, v) for v in _items(name, param, value)]
            if len(lists) != n_runs:
                raise OptionError(f"{name}: {param} needs one list per run ({n_runs})")
            checked[param] = lists
        elif param == "w":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise OptionError(f"{name}: w must be an integer >= 0; got {value!r}")
            checked[param] = value
        else:
            checked[param] = _number(name, param, value)
    if "k" in checked and checked["k"] < 0:
        raise OptionError(f"rrf: k must be >= 0; got {checked['k']:g}")
    if "sigma" in checked and not 0.0 <= checked["sigma"] <= 1.0:
        raise OptionError(f"logn_isr: sigma must lie in [0, 1]; got {checked['sigma']:g}")
    if "phi" in checked and not 0.0 <= checked["phi"] <= 1.0:
        raise OptionError(f"rbc: phi must lie in [0, 1]; got {checked['phi']:g}")
    if name == "probfuse" and any(len(p) == 0 for p in checked["probs"]):
        raise OptionError("probfuse: every run needs at least one segment probability")
    return checked
