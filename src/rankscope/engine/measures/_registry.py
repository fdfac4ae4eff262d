"""The registry of measures, as the compiled core holds it: each family's parameters,
aggregate, aliases, formula and citation, for parsing names and reporting.

The kernels and the registry live in the core (``crates/rankscope-core/src/measures``):
adding a measure is a kernel and one entry there; names parse there too, so Python and the
core read every name the same way. Answer measures (BLEU, ROUGE, exact match, token F1) are
registered here, for their names only: they score text pairs in `rankscope.answers`, and
`evaluate` refuses them.
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

import re
from collections.abc import Iterable
from typing import Literal, NamedTuple, cast

from rankscope import _core
from rankscope.engine.measures._names import Measure
from rankscope.errors import MeasureError

__all__ = ["ANSWER_FAMILIES", "FAMILIES", "Family", "measure", "parse_measures"]

Aggregate = Literal["mean", "geometric_mean", "sum", "count"]
CutoffKind = Literal["none", "optional", "required", "recall_level", "factor"]
Kind = Literal["ranking", "answer"]


class Family(NamedTuple):
    """A family of measures sharing one kernel: ``P`` covers ``P@5``, ``P(rel=2)@10``, ...

    Attributes
    ----------
    name
        Canonical spelling.
    summary
        One line: what the measure is.
    formula
        The formula (trec profile).
    citation
        Where the measure is defined.
    cutoff
        Whether ``@k`` is refused, optional, required, a recall level in [0, 1], or a
        positive factor.
    params
        Allowed parameters and the values each takes (``integer``, ``number``, ...).
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
        ``"ranking"`` (a kernel of the core) or ``"answer"`` (scores text pairs).
    """

    name: str
    summary: str
    formula: str
    citation: str
    cutoff: CutoffKind
    params: dict[str, str]
    aggregate: Aggregate
    bounded: bool
    aliases: tuple[str, ...]
    weknora: bool
    kind: Kind = "ranking"


def _answer_family(
    name: str,
    summary: str,
    citation: str,
    *,
    aliases: tuple[str, ...],
    params: dict[str, str] | None = None,
    weknora: bool = True,
) -> Family:
    """An answer measure: no cutoff, ``stem`` as its parameter unless said, mean aggregate.
    A parameter's description lists its values, separated by ``|``."""
    return Family(
        name=name,
        summary=summary,
        formula="per question, the best score over its references; mean over questions",
        citation=citation,
        cutoff="none",
        params={"stem": "True|False"} if params is None else params,
        aggregate="mean",
        bounded=True,
        aliases=aliases,
        weknora=weknora,
        kind="answer",
    )


_ROUGE = "Lin, ROUGE (2004); rouge-score (Google Research)"
ANSWER_FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        _answer_family(
            "BLEU",
            "sentence BLEU of an answer, 0-1 (sacrebleu: exp smoothing; n = highest n-gram "
            "order, default 4; tokenize = sacrebleu's tokenizer, default 13a, zh for Chinese; "
            "profile weknora: WeKnora's add-1 BLEU-n)",
            "Papineni et al., BLEU (ACL 2002); Post, sacrebleu (WMT 2018)",
            params={"n": "1|2|3|4", "tokenize": "13a|zh|intl|char|none"},
            aliases=("sacrebleu", "bleu4"),
        ),
        _answer_family(
            "ROUGE-1",
            "ROUGE-1 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
            _ROUGE,
            aliases=("rouge1",),
        ),
        _answer_family(
            "ROUGE-2",
            "ROUGE-2 F-measure of an answer (rouge-score; stem=True: Porter stemming)",
            _ROUGE,
            aliases=("rouge2",),
        ),
        _answer_family(
            "ROUGE-L",
            "ROUGE-L F-measure (longest common subsequence) of an answer (rouge-score; "
            "profile weknora: summary level)",
            _ROUGE,
            aliases=("rougeL",),
        ),
        _answer_family(
            "ExactMatch",
            "1 if the answer equals a reference after SQuAD's normalization, else 0",
            "Rajpurkar et al., SQuAD (EMNLP 2016)",
            params={},
            aliases=("EM", "exact_match", "exact"),
            weknora=False,
        ),
        _answer_family(
            "TokenF1",
            "F1 of the answer's and a reference's tokens after SQuAD's normalization",
            "Rajpurkar et al., SQuAD (EMNLP 2016)",
            params={},
            aliases=("token_f1",),
            weknora=False,
        ),
    ]
}
_ANSWER_LOOKUP = {
    alias.lower(): family.name
    for family in ANSWER_FAMILIES.values()
    for alias in (family.name, *family.aliases)
}
# Family[(k=v,...)][@cutoff]: how an answer measure's name is read.
_ANSWER_NAME = re.compile(
    r"^(?P<family>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>.+))?$"
)


def _answer_measure(text: str) -> Measure | None:
    """The answer measure ``text`` names, or None when it names none."""
    match = _ANSWER_NAME.match(text.strip())
    family_name = _ANSWER_LOOKUP.get(match["family"].lower()) if match else None
    if match is None or family_name is None:
        return None
    family = ANSWER_FAMILIES[family_name]
    if match["cutoff"] is not None:
        raise MeasureError(f"measure {family.name} takes no cutoff; got {text!r}")
    params: dict[str, str] = {}
    for item in filter(None, (match["params"] or "").split(",")):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise MeasureError(f"parameters are written key=value; got {item!r} in {text!r}")
        allowed = family.params.get(key)
        if allowed is None:
            names = ", ".join(family.params) or "none"
            raise MeasureError(
                f"measure {family.name} has no parameter {key!r} (parameters: {names}); "
                f"got {text!r}"
            )
        if value not in allowed.split("|"):
            raise MeasureError(
                f"parameter {key} of {family.name} must be one of "
                f"{allowed.replace('|', ', ')}; got {value!r} in {text!r}"
            )
        if key in params:
            raise MeasureError(f"parameter {key!r} given twice in {text!r}")
        params[key] = value
    return Measure(family.name, None, tuple(sorted(params.items())))


FAMILIES: dict[str, Family] = {
    entry["name"]: Family(
        name=entry["name"],
        summary=entry["summary"],
        formula=entry["formula"],
        citation=entry["citation"],
        cutoff=cast(CutoffKind, entry["cutoff"]),
        params=dict(entry["params"]),
        aggregate=cast(Aggregate, entry["aggregate"]),
        bounded=entry["bounded"],
        aliases=tuple(entry["aliases"]),
        weknora=entry["weknora"],
    )
    for entry in _core.families()
} | ANSWER_FAMILIES


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
    rankscope.errors.UnknownMeasureError: unknown measure 'nDGC'; did you mean nDCG, ...
    """
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        raise MeasureError(f"a measure is given by its name as a string; got {name!r}")
    answer = _answer_measure(name)
    if answer is not None:
        return answer
    family, cutoff, params, _ = _core.parse_measure(name)
    return Measure(family, cutoff, tuple(params))


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
