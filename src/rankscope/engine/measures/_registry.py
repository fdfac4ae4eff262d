"""The registry of measures: each family's parameters, aggregate and aliases, for parsing
names and reporting.

The kernels live in the compiled core (``crates/rankscope-core/src/measures``), whose registry
holds the same families: adding a measure is a kernel and an entry there, plus one `Family`
entry here.
Answer measures (BLEU, ROUGE, exact match, token F1) are registered here too, for their names,
but score text pairs: their scorers live in `rankscope.answers`, and `evaluate` refuses them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from rankscope.engine.measures._names import NAME_PATTERN, TREC_PATTERN, Measure
from rankscope.errors import MeasureError, UnknownMeasureError

__all__ = ["FAMILIES", "Family", "measure", "parse_measures"]

Aggregate = Literal["mean", "geometric_mean", "sum", "count"]
CutoffKind = Literal["none", "optional", "required", "recall_level"]
Kind = Literal["ranking", "answer"]


@dataclass(frozen=True)
class Family:
    """A family of measures sharing one kernel: ``P`` covers ``P@5``, ``P(rel=2)@10``, ...

    Attributes
    ----------
    name
        Canonical spelling.
    summary
        One line: what the measure is.
    cutoff
        Whether ``@k`` is refused, optional, required, or a recall level in [0, 1].
    params
        Allowed parameters and their allowed values (None: any integer).
    aggregate
        How per-query values combine: mean, geometric mean (trec_eval's gm_*), or sum and
        count for the counting measures, as trec_eval prints them.
    bounded
        Whether values lie in [0, 1].
    aliases
        Other names (case-insensitive), including trec_eval's.
    weknora
        Whether the ``weknora`` profile defines the measure.
    kind
        ``"ranking"`` (scored by `rankscope.evaluate`) or ``"answer"`` (scored by
        `rankscope.evaluate_answers`, on generated answers against reference answers).
    """

    name: str
    summary: str
    cutoff: CutoffKind = "optional"
    params: dict[str, tuple[str, ...] | None] = field(default_factory=lambda: {"rel": None})
    aggregate: Aggregate = "mean"
    bounded: bool = True
    aliases: tuple[str, ...] = ()
    weknora: bool = False
    kind: Kind = "ranking"


def _answer_family(
    name: str,
    summary: str,
    *,
    aliases: tuple[str, ...],
    params: dict[str, tuple[str, ...] | None] | None = None,
    weknora: bool = True,
) -> Family:
    """An answer measure: no cutoff, ``stem`` as its parameter unless said, mean aggregate."""
    return Family(
        name,
        summary,
        cutoff="none",
        params={"stem": ("True", "False")} if params is None else params,
        aliases=aliases,
        weknora=weknora,
        kind="answer",
    )


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "nDCG",
            "normalized discounted cumulative gain; gain = grade (gain=exp: 2^grade-1)",
            params={"gain": ("linear", "exp")},
            aliases=("ndcg", "ndcg_cut"),
            weknora=True,
        ),
        Family(
            "AP",
            "average precision: mean of P@rank over relevant documents, / number relevant",
            aliases=("map", "map_cut", "mean_average_precision"),
            weknora=True,
        ),
        Family(
            "RR",
            "reciprocal rank of the first relevant document",
            aliases=("recip_rank", "mrr"),
            weknora=True,
        ),
        Family(
            "P",
            "precision: relevant in the top k / k (no k: relevant retrieved / retrieved)",
            aliases=("precision", "set_p"),
            weknora=True,
        ),
        Family(
            "R",
            "recall: relevant in the top k / number relevant",
            aliases=("recall", "set_recall"),
            weknora=True,
        ),
        Family(
            "Rprec",
            "precision at rank R, R = number relevant",
            cutoff="none",
            aliases=("r_prec", "r-prec"),
        ),
        Family(
            "Success",
            "1 if any relevant document is in the top k, else 0",
            cutoff="required",
            aliases=("success",),
        ),
        Family(
            "Bpref",
            "binary preference: relevant documents ranked above judged non-relevant ones",
            cutoff="none",
        ),
        Family(
            "GM_AP",
            "average precision, aggregated by geometric mean (floor 1e-5)",
            cutoff="none",
            aggregate="geometric_mean",
            aliases=("gm_map", "gmap"),
        ),
        Family(
            "IPrec",
            "interpolated precision at a recall level in [0, 1]",
            cutoff="recall_level",
            aliases=("iprec_at_recall",),
        ),
        Family(
            "NumRet",
            "number of documents retrieved (summed over queries)",
            cutoff="none",
            params={},
            aggregate="sum",
            bounded=False,
            aliases=("num_ret",),
        ),
        Family(
            "NumRel",
            "number of relevant judged documents (summed over queries)",
            cutoff="none",
            aggregate="sum",
            bounded=False,
            aliases=("num_rel",),
        ),
        Family(
            "NumRelRet",
            "number of relevant documents retrieved (summed over queries)",
            cutoff="none",
            aggregate="sum",
            bounded=False,
            aliases=("num_rel_ret",),
        ),
        Family(
            "NumQ",
            "number of queries evaluated",
            cutoff="none",
            params={},
            aggregate="count",
            bounded=False,
            aliases=("num_q",),
        ),
        _answer_family(
            "BLEU",
            "sentence BLEU of an answer, 0-1 (sacrebleu: exp smoothing; n = highest n-gram "
            "order, default 4; tokenize = sacrebleu's tokenizer, default 13a, zh for Chinese; "
            "profile weknora: WeKnora's add-1 BLEU-n)",
            params={"n": ("1", "2", "3", "4"), "tokenize": ("13a", "zh", "intl", "char", "none")},
            aliases=("sacrebleu", "bleu4"),
        ),
        _answer_family(
            "ROUGE-1",
            "ROUGE-1 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
            aliases=("rouge1",),
        ),
        _answer_family(
            "ROUGE-2",
            "ROUGE-2 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
            aliases=("rouge2",),
        ),
        _answer_family(
            "ROUGE-L",
            "ROUGE-L F-measure (longest common subsequence) of an answer (rouge-score; "
            "profile weknora: summary level)",
            aliases=("rougeL",),
        ),
        _answer_family(
            "ExactMatch",
            "1 if the answer equals a reference after SQuAD's normalization, else 0",
            params={},
            aliases=("EM", "exact_match", "exact"),
            weknora=False,
        ),
        _answer_family(
            "TokenF1",
            "F1 of the answer's and a reference's tokens after SQuAD's normalization",
            params={},
            aliases=("token_f1",),
            weknora=False,
        ),
    ]
}

_LOOKUP: dict[str, str] = {}
for _family in FAMILIES.values():
    for _alias in (_family.name, *_family.aliases):
        _LOOKUP[_alias.lower()] = _family.name
# trec_eval's "set" measures are the cutoff-free forms; a few names need their exact case.
_SET_ALIASES = {"set_p", "set_recall"}


def _suggest(name: str) -> str:
    import difflib  # only for this message: start-up stays short

    known = sorted({*FAMILIES, *(a for f in FAMILIES.values() for a in f.aliases)})
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(name.lower(), [n.lower() for n in known], n=3)
        close = [n for n in known if n.lower() in close]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown measure {name!r}{hint} (known: {', '.join(FAMILIES)})"


MAX_CUTOFF = 10**9


def _is_count(text: str) -> bool:
    """Whether ``text`` is an integer from 1 to MAX_CUTOFF in ASCII digits."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_CUTOFF


def _family_of(name: str) -> Family:
    try:
        return FAMILIES[_LOOKUP[name.lower()]]
    except KeyError:
        raise UnknownMeasureError(_suggest(name)) from None


def _cutoff(family: Family, text: str | None, name: str) -> int | float | None:
    if text is None:
        if family.cutoff in ("required", "recall_level"):
            raise MeasureError(
                f"measure {family.name} needs a cutoff, as in {family.name}@"
                f"{'0.5' if family.cutoff == 'recall_level' else '10'}; got {name!r}"
            )
        return None
    if family.cutoff == "none":
        raise MeasureError(f"measure {family.name} takes no cutoff; got {name!r}")
    if family.cutoff == "recall_level":
        try:
            level = float(text)
        except ValueError:
            level = math.nan
        if not 0.0 <= level <= 1.0:
            raise MeasureError(
                f"the recall level of {family.name} must be a number in [0, 1]; "
                f"got {text!r} in {name!r}"
            )
        return level
    if not _is_count(text):
        raise MeasureError(
            f"the cutoff of {family.name} must be an integer from 1 to {MAX_CUTOFF}; "
            f"got {text!r} in {name!r}"
        )
    return int(text)


def _params(family: Family, text: str | None, name: str) -> tuple[tuple[str, str], ...]:
    if not text:
        return ()
    params: dict[str, str] = {}
    for item in text.split(","):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise MeasureError(f"parameters are written key=value; got {item!r} in {name!r}")
        if key not in family.params:
            allowed = ", ".join(family.params) or "none"
            raise MeasureError(
                f"measure {family.name} has no parameter {key!r} (parameters: {allowed}); "
                f"got {name!r}"
            )
        choices = family.params[key]
        if choices is None:
            if not _is_count(value):
                raise MeasureError(
                    f"parameter {key} of {family.name} must be an integer from 1 to "
                    f"{MAX_CUTOFF}; got {value!r} in {name!r}"
                )
            value = str(int(value))
        elif value not in choices:
            raise MeasureError(
                f"parameter {key} of {family.name} must be one of {', '.join(choices)}; "
                f"got {value!r} in {name!r}"
            )
        if key in params:
            raise MeasureError(f"parameter {key!r} given twice in {name!r}")
        params[key] = value
    return tuple(sorted(params.items()))


def measure(name: str | Measure) -> Measure:
    """Parse a measure name (canonical, ir_measures-style or trec_eval) into a `Measure`.

    Examples
    --------
    >>> measure("nDCG@10"), measure("ndcg_cut.10"), measure("ndcg_cut_10")
    (nDCG@10, nDCG@10, nDCG@10)
    >>> measure("map"), measure("MRR"), measure("P_5"), measure("iprec_at_recall_0.10")
    (AP, RR, P@5, IPrec@0.1)
    >>> measure("nDCG(gain=exp)@3").name
    'nDCG(gain=exp)@3'
    >>> measure("nDGC@10")
    Traceback (most recent call last):
    ...
    rankscope.errors.UnknownMeasureError: unknown measure 'nDGC'; did you mean nDCG? (known: ...)
    """
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        raise MeasureError(f"a measure is given by its name as a string; got {name!r}")
    text = name.strip()
    match = NAME_PATTERN.match(text)
    if match and (match["params"] is not None or match["cutoff"] is not None):
        family = _family_of(match["family"])
        if match["family"].lower() in _SET_ALIASES and match["cutoff"] is not None:
            raise MeasureError(f"{match['family']} takes no cutoff; got {text!r}")
        return Measure(
            family.name,
            _cutoff(family, match["cutoff"], text),
            _params(family, match["params"], text),
        )
    trec = TREC_PATTERN.match(text)
    if trec is None:  # not trec_eval-shaped: a whole name such as ROUGE-L or rouge1
        family = _family_of(text)
        return Measure(family.name, _cutoff(family, None, text), ())
    family_name, cutoff = trec["family"], trec["cutoff"]
    family = _family_of(family_name)
    if family_name.lower() in _SET_ALIASES and cutoff is not None:
        raise MeasureError(f"{family_name} takes no cutoff; got {text!r}")
    if cutoff is not None and family.cutoff == "recall_level":
        cutoff = cutoff if not cutoff.startswith(".") else "0" + cutoff
    return Measure(family.name, _cutoff(family, cutoff, text), ())


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse one name or several into measures, dropping repeats and keeping the order.

    Examples
    --------
    >>> parse_measures(["nDCG@10", "ndcg_cut.10", "AP"])
    [nDCG@10, AP]
    """
    if isinstance(names, str | Measure):
        names = [names]
    result: list[Measure] = []
    for name in names:
        parsed = measure(name)
        if parsed not in result:
            result.append(parsed)
    if not result:
        raise MeasureError("no measure given; name at least one, e.g. 'nDCG@10'")
    return result
