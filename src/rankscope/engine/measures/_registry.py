"""The registry of measures, as the compiled core holds it: each family's names and aliases by
tool, parameters, aggregate, trec_eval's names, ranx's, formula and citation.

The kernels and the registry live in the core (``crates/rankscope-core/src/measures``), each
family declared beside its kernel: adding a measure is a kernel and one entry there. Names
parse there too, answer measures' (BLEU, ROUGE, exact match, token F1) included, so every
entry point reads every name the same way. Answer measures score text pairs in
`rankscope.answers`; `evaluate` refuses them.
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal, NamedTuple, cast

from rankscope import _core
from rankscope.engine.measures._names import Measure, from_core
from rankscope.errors import MeasureError, ProfileError

__all__ = [
    "FAMILIES",
    "GEOMETRIC_MEAN_FLOOR",
    "Family",
    "Ranx",
    "TrecName",
    "default_measures",
    "given_measures",
    "measure",
    "parse_measures",
    "split_measures",
    "trec_eval_nicknames",
    "trec_eval_table",
]

Aggregate = Literal["mean", "geometric_mean", "sum", "count", "mean_of_values"]
CutoffKind = Literal["none", "optional", "required", "recall_level", "factor"]
Kind = Literal["ranking", "answer", "user"]
Reads = Literal["grades", "subtopics", "preferences"]
TrecStyle = Literal[
    "none", "cutoffs", "levels", "factors", "level_set", "utility", "pairs", "number"
]
TrecJudgements = Literal["qrels", "qrels_jg", "prefs", "any"]


class TrecName(NamedTuple):
    """One of trec_eval's names for a family's measures (or a line of its table that is not a
    measure: ``runid``, ``relstring``).

    Attributes
    ----------
    name
        The name (``ndcg_cut``; lines print ``ndcg_cut_10``).
    family
        The family ``-m`` reads it as; None for runid and relstring.
    position
        Its place in trec_eval 10's measure table, the order trec_eval prints in; None for a
        name trec_eval prints that ``-m`` reads as another family's (SetP's ``set_P``).
    style
        How ``-m name.params`` reads parameters: none; cutoffs, levels or factors (one line
        each); level_set (averaged into one line); utility (four coefficients); pairs
        (``grade=gain``, and ``p=`` for rbp); number (set_F's beta).
    defaults
        The parameters trec_eval uses when ``-m`` gives none.
    summary_only
        Whether trec_eval prints it only in the summary.
    judgements
        What it is computed from (``-R``): qrels, qrels_jg, prefs, or any.
    pytrec_eval
        Whether pytrec_eval (trec_eval 9) computes it.
    params
        The parameters of the measures it names, as names write them (usually empty).
    undetermined
        Why trec_eval's own value of it is not determined by its inputs (it reads memory it
        never wrote), or empty; the trec-eval command warns that it prints the corrected
        value there.
    """

    name: str
    family: str | None
    position: int | None
    style: TrecStyle
    defaults: tuple[float, ...]
    summary_only: bool
    judgements: TrecJudgements
    pytrec_eval: bool
    params: str
    undetermined: str = ""


class Ranx(NamedTuple):
    """How ranx names a family's measures: ``name[@k][-lN]``, or ``name.p`` for RBP.

    ``number`` says what follows the name (``cutoff``, ``persistence`` or ``none``), ``level``
    what ranx's ``-lN`` does (``rel``: sets ``rel=N``; ``zero_gains_below``: grades below N gain
    nothing), ``note`` how the measure compares with ranx's definition.
    """

    name: str
    number: Literal["cutoff", "persistence", "none"]
    level: Literal["rel", "zero_gains_below"]
    note: str


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
        Allowed parameters and the values each takes (``integer``, ``number``, ...; a default
        in brackets).
    aggregate
        How per-query values combine: mean, geometric mean (trec_eval's gm_*), or sum and
        count for the counting measures, as trec_eval prints them.
    bounded
        Whether values lie in [0, 1].
    aliases
        Other names (case-insensitive): trec_eval's, ir_measures', ranx's and other spellings.
    weknora
        Whether the ``weknora`` profile defines the measure.
    kind
        ``"ranking"`` (a kernel of the core), ``"answer"`` (scores text pairs) or ``"user"``
        (defined with `rankscope.measures.define`).
    tools
        The aliases by tool: ``(tool, name)`` pairs, tool ``trec_eval``, ``ir_measures`` or
        ``other``.
    trec_eval
        trec_eval's names for the family's measures.
    ranx
        ranx's name, if ranx has the measure.
    profiles
        The profiles that define it (answer measures: the answer profiles).
    reads
        What its kernel reads: grades, subtopics or preferences.
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
    tools: tuple[tuple[str, str], ...] = ()
    trec_eval: tuple[TrecName, ...] = ()
    ranx: Ranx | None = None
    profiles: tuple[str, ...] = ()
    reads: Reads = "grades"

    @property
    def syntax(self) -> str:
        """How a name of the family is written: ``nDCG(gain=exp|linear)[@k]``, ``P@k``, ...

        Examples
        --------
        >>> from rankscope.engine.measures import FAMILIES
        >>> FAMILIES["Unjudged"].syntax
        'Unjudged@k'
        >>> FAMILIES["Bpref"].syntax
        'Bpref(rel=integer)'
        """
        params = ",".join(f"{key}={kind}" for key, kind in self.params.items())
        return f"{self.name}{f'({params})' if params else ''}{_CUTOFF_SYNTAX[self.cutoff]}"

    @property
    def scope(self) -> str:
        """Where the family applies, as `rankscope measures` notes it after the summary
        (empty for a ranking measure every profile defines)."""
        if self.kind == "user":
            return " [user-defined]"
        if self.kind == "answer":
            return " [answers]" if self.weknora else " [answers, standard profile only]"
        return "" if self.weknora else " [trec profiles only]"


_CUTOFF_SYNTAX: dict[str, str] = {
    "none": "",
    "optional": "[@k]",
    "required": "@k",
    "recall_level": "@r",
    "factor": "@f",
}
"""How each kind of cut-off is written after a family's name."""


def trec_name(entry: dict[str, object]) -> TrecName:
    """A `TrecName` from the core's description of it."""
    return TrecName(
        name=cast(str, entry["name"]),
        family=cast("str | None", entry["family"]),
        position=cast("int | None", entry["position"]),
        style=cast(TrecStyle, entry["style"]),
        defaults=tuple(cast("list[float]", entry["defaults"])),
        summary_only=cast(bool, entry["summary_only"]),
        judgements=cast(TrecJudgements, entry["judgements"]),
        pytrec_eval=cast(bool, entry["pytrec_eval"]),
        params=cast(str, entry["params"]),
        undetermined=cast(str, entry["undetermined"]),
    )


def _other_names(
    name: str, aliases: list[tuple[str, str, str]], ranx: tuple[str, str, str, str] | None
) -> tuple[str, ...]:
    """Every other name a family answers to (each once, whatever its case): its tools'
    aliases, then ranx's name."""
    names: dict[str, str] = {name.lower(): name}
    for other in [alias for _, alias, _ in aliases] + ([ranx[0]] if ranx else []):
        names.setdefault(other.lower(), other)
    return tuple(names.values())[1:]


def _family(entry: dict[str, object]) -> Family:
    aliases = cast("list[tuple[str, str, str]]", entry["aliases"])
    profiles = tuple(cast("list[str]", entry["profiles"]))
    ranx = cast("tuple[str, str, str, str] | None", entry["ranx"])
    return Family(
        name=cast(str, entry["name"]),
        summary=cast(str, entry["summary"]),
        formula=cast(str, entry["formula"]),
        citation=cast(str, entry["citation"]),
        cutoff=cast(CutoffKind, entry["cutoff"]),
        params=dict(cast("list[tuple[str, str]]", entry["params"])),
        aggregate=cast(Aggregate, entry["aggregate"]),
        bounded=cast(bool, entry["bounded"]),
        aliases=_other_names(cast(str, entry["name"]), aliases, ranx),
        weknora="weknora" in profiles,
        kind=cast(Kind, entry["kind"]),
        tools=tuple((tool, name) for tool, name, _ in aliases),
        trec_eval=tuple(trec_name(t) for t in cast("list[dict[str, object]]", entry["trec_eval"])),
        ranx=None if ranx is None else Ranx(*ranx),  # type: ignore[arg-type]
        profiles=profiles,
        reads=cast(Reads, entry["reads"]),
    )


GEOMETRIC_MEAN_FLOOR: float = _core.GEOMETRIC_MEAN_FLOOR
"""trec_eval's floor for geometric means (gm_map, gm_bpref): ``exp(mean(ln(max(v, floor))))``."""


class _Registry(Mapping[str, Family]):
    """Every family by canonical name, in the order `rankscope measures` lists them: a
    read-only mapping over the core's registry, each family read when first asked for (start-up
    reads none)."""

    def __init__(self) -> None:
        self._families: dict[str, Family] = {}
        self._names: list[str] | None = None

    def __getitem__(self, name: str) -> Family:
        found = self._families.get(name)
        if found is None:
            entry = _core.family(name)
            if entry is None:
                raise KeyError(name)
            found = self._families[name] = _family(entry)
        return found

    def __iter__(self) -> Iterator[str]:
        if self._names is None:
            self._names = _core.family_names()
        return iter(self._names)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._families or name in list(self))

    def __repr__(self) -> str:
        return f"FAMILIES({', '.join(self)})"

    def forget(self, name: str) -> None:
        """Read the list of families, and the family ``name``, again (one was defined or
        removed)."""
        self._names = None
        for known in [known for known in self._families if known.lower() == name.lower()]:
            del self._families[known]


FAMILIES: Mapping[str, Family] = _Registry()
"""Every family by canonical name, in the order `rankscope measures` lists them."""


def measure(name: str | Measure | Any) -> Measure:
    """Parse a measure name (canonical, ir_measures-style, trec_eval's or ranx's), or one of
    ir_measures' measure objects, into a `Measure`.

    Examples
    --------
    >>> measure("nDCG@10"), measure("ndcg_cut.10"), measure("ndcg_cut_10")
    (nDCG@10, nDCG@10, nDCG@10)
    >>> measure("map"), measure("MRR"), measure("P_5"), measure("iprec_at_recall_0.10")
    (AP, RR, P@5, IPrec@0.1)
    >>> measure("nDCG(gain=exp)@3").name
    'nDCG(gain=exp)@3'
    >>> measure("rbp.95"), measure("ndcg@10-l2")  # ranx's names
    (RBP(p=0.95), nDCG(gains=1:0.0)@10)
    >>> measure("nDGC@10")
    Traceback (most recent call last):
    ...
    rankscope.errors.UnknownMeasureError: unknown measure 'nDGC'; did you mean nDCG, ...
    >>> measure("nDCG@10,AP")
    Traceback (most recent call last):
    ...
    rankscope.errors.MeasureError: 'nDCG@10,AP' names 2 measures (nDCG@10, AP); measure() reads
    one: parse_measures and evaluate read lists
    """
    if isinstance(name, Measure):
        return name
    try:
        return from_core(_core.parse_measure(str(name) if _is_ir_measures(name) else name))
    except MeasureError:
        several = split_measures(name) if isinstance(name, str) and "," in name else []
        if len(several) < 2:
            raise
        raise MeasureError(
            f"{name!r} names {len(several)} measures ({', '.join(several)}); measure() reads "
            "one: parse_measures and evaluate read lists",
            measure=name,
        ) from None


def parse_measures(names: str | Measure | Iterable[str | Measure] | Any) -> list[Measure]:
    """Parse one name or several into measures, dropping repeats and keeping the order.

    Each may be a name, a `Measure`, one of ir_measures' measure objects, or a string listing
    several names separated by commas (see `given_measures` for the rule).

    Examples
    --------
    >>> parse_measures(["nDCG@10", "ndcg_cut.10", "AP"])
    [nDCG@10, AP]
    >>> parse_measures("nDCG@10, P(rel=2)@5,AP")
    [nDCG@10, P(rel=2)@5, AP]
    """
    return [from_core(parsed) for parsed in _core.parse_measures(given_measures(names))]


def given_measures(measures: str | Measure | Iterable[str | Measure] | Any) -> list[Any]:
    """The measures a caller gave, as a list the core reads: each a name (or a string of
    names separated by commas), a `Measure`, or one of ir_measures' measure objects (read by
    its name, ``str(measure)``: ir_measures is not imported for it).

    A string is one measure when the whole string is one valid name, whatever commas it holds
    (``P(rel=2,judged_only=True)@5``, ir_measures' ``nDCG(gains={0:0,1:4})``); otherwise it
    is split at the commas outside parentheses and braces (``"nDCG@10, AP"``) and each piece
    is a name. trec_eval's ``-m P.5,10`` is not a name here (write ``"P@5,P@10"``).

    Examples
    --------
    >>> given_measures("nDCG@10")
    ['nDCG@10']
    >>> given_measures(("AP", measure("RR")))
    ['AP', RR]
    """
    if isinstance(measures, str | Measure) or _is_ir_measures(measures):
        measures = [measures]
    elif not isinstance(measures, Iterable):
        return [measures]  # refused by the core, which shows it
    return [str(m) if _is_ir_measures(m) else m for m in measures]


def _is_ir_measures(value: object) -> bool:
    """Whether ``value`` is one of ir_measures' measure objects (``nDCG@10``, ``P(rel=2)@5``)."""
    return type(value).__module__.partition(".")[0] == "ir_measures" and hasattr(value, "NAME")


def split_measures(text: str) -> list[str]:
    """The names a string lists, by the rule of `given_measures`: the whole string when it is
    one name, else its pieces between commas outside parentheses and braces.

    Examples
    --------
    >>> split_measures("P(rel=2)@5, AP,")
    ['P(rel=2)@5', 'AP']
    >>> split_measures("nDCG(gains={0:0,1:4})@10")
    ['nDCG(gains={0:0,1:4})@10']
    """
    return list(_core.split_measures(text))


def trec_eval_table() -> list[TrecName]:
    """trec_eval 10's measure table in its order (the order it prints in): every name it
    reads with ``-m``, runid and relstring among them (with no family).

    Examples
    --------
    >>> [(entry.name, entry.family) for entry in trec_eval_table()[:3]]
    [('runid', None), ('num_q', 'NumQ'), ('num_ret', 'NumRet')]
    """
    return [trec_name(entry) for entry in _core.trec_eval_table()]


def trec_eval_nicknames() -> dict[str, tuple[str, ...]]:
    """trec_eval's nicknames (``official``, ``all_trec``, ``set``, ``all_prefs``, ``prefs``,
    ``qrels_jg``), each with the trec_eval names it stands for.

    Examples
    --------
    >>> trec_eval_nicknames()["qrels_jg"]
    ('runid', 'num_q', 'map_avgjg', 'P_avgjg', 'Rprec_mult_avgjg')
    """
    return {nickname: tuple(names) for nickname, names in _core.trec_eval_nicknames()}


def default_measures(profile: str, kind: Kind = "ranking") -> tuple[str, ...]:
    """What a profile computes when no measure is named: a ranking profile's (``trec``,
    ``trec9``, ``weknora``), or with ``kind="answer"`` an answer profile's (``standard``,
    ``weknora``).

    Examples
    --------
    >>> default_measures("weknora")
    ('P', 'R', 'nDCG@3', 'nDCG@10', 'RR', 'AP')
    >>> default_measures("standard", "answer")
    ('BLEU', 'ROUGE-1', 'ROUGE-2', 'ROUGE-L', 'ExactMatch', 'TokenF1')
    """
    names = _core.default_measures(profile, kind)
    if names is None:
        raise ProfileError(f"unknown {'answer ' if kind == 'answer' else ''}profile {profile!r}")
    return tuple(names)
