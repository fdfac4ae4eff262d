"""trec_eval's measure families, its ``-m`` syntax, and its exact output format.

trec_eval prints lines ``measure<TAB>query<TAB>value``, the measure name left-justified to 22
characters, values with 4 decimals (counts as integers), families in the order of its measure
table (not the order of ``-m``), each family's parameters in ascending order, queries sorted
byte-wise and the summary (``all``) last.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankscope.engine.measures import FAMILIES, Measure, measure
from rankscope.engine.results import Results
from rankscope.errors import MeasureError

__all__ = [
    "ALL_TREC",
    "NOT_IMPLEMENTED",
    "OFFICIAL",
    "TrecMeasure",
    "format_trec_eval",
    "trec_eval_measures",
]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# trec_eval's measure table, in its order: family -> (rankscope family, default parameters).
# A family mapped to None is one rankscope does not implement yet.
_TABLE: dict[str, tuple[str | None, tuple[float, ...]]] = {
    "runid": ("runid", ()),
    "num_q": ("NumQ", ()),
    "num_ret": ("NumRet", ()),
    "num_rel": ("NumRel", ()),
    "num_rel_ret": ("NumRelRet", ()),
    "map": ("AP", ()),
    "gm_map": ("GM_AP", ()),
    "Rprec": ("Rprec", ()),
    "bpref": ("Bpref", ()),
    "recip_rank": ("RR", ()),
    "iprec_at_recall": ("IPrec", _RECALL_LEVELS),
    "P": ("P", _CUTS),
    "relstring": (None, ()),
    "recall": ("R", _CUTS),
    "infAP": (None, ()),
    "gm_bpref": (None, ()),
    "Rprec_mult": (None, ()),
    "utility": (None, ()),
    "11pt_avg": (None, ()),
    "binG": (None, ()),
    "G": (None, ()),
    "ndcg": ("nDCG", ()),
    "ndcg_rel": (None, ()),
    "Rndcg": (None, ()),
    "ndcg_cut": ("nDCG", _CUTS),
    "map_cut": ("AP", _CUTS),
    "relative_P": (None, ()),
    "success": ("Success", (1, 5, 10)),
    "set_P": ("P", ()),
    "set_relative_P": (None, ()),
    "set_recall": ("R", ()),
    "set_map": (None, ()),
    "set_F": (None, ()),
    "num_nonrel_judged_ret": (None, ()),
    "rbp": (None, ()),
    "rbp_resid": (None, ()),
    "unj": (None, ()),
}
ALL_TREC = tuple(_TABLE)
OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
NOT_IMPLEMENTED = tuple(name for name, (family, _) in _TABLE.items() if family is None)
# trec_eval prints these only in the summary (runid too).
_SUMMARY_ONLY = {"NumQ", "GM_AP"}


@dataclass(frozen=True)
class TrecMeasure:
    """One line kind of trec_eval output: its printed name and the measure behind it."""

    printed: str
    measure: Measure | None  # None for runid

    @property
    def summary_only(self) -> bool:
        return self.measure is None or self.measure.family in _SUMMARY_ONLY

    @property
    def is_count(self) -> bool:
        """Counts print as integers."""
        return self.measure is not None and FAMILIES[self.measure.family].aggregate in (
            "sum",
            "count",
        )


def _parameters(family: str, text: str) -> tuple[float, ...]:
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise MeasureError(
                f"trec_eval measure {family!r} takes numeric parameters; got {part!r}"
            ) from None
    return tuple(sorted(set(values)))


def _lines_of(family: str, params: tuple[float, ...]) -> list[TrecMeasure]:
    ours = _TABLE[family][0] or family
    if ours == "runid":
        return [TrecMeasure("runid", None)]
    if family == "iprec_at_recall":
        return [
            TrecMeasure(f"iprec_at_recall_{level:.2f}", measure(f"IPrec@{level!r}"))
            for level in params
        ]
    if params:
        # trec_eval reads integer cutoffs with strtol: 23.4 becomes 23.
        cuts = sorted({int(value) for value in params})
        return [TrecMeasure(f"{family}_{cut}", measure(f"{ours}@{cut}")) for cut in cuts]
    return [TrecMeasure(family, measure(ours))]


def trec_eval_measures(specs: list[str]) -> tuple[list[TrecMeasure], list[str]]:
    """The output lines for trec_eval ``-m`` arguments, in trec_eval's order.

    Returns the lines and the families that were asked for but are not implemented yet (the
    caller says so; the README keeps the list).

    Examples
    --------
    >>> lines, missing = trec_eval_measures(["P.10,5", "map"])
    >>> [line.printed for line in lines], missing
    (['map', 'P_5', 'P_10'], [])
    """
    wanted: dict[str, tuple[float, ...] | None] = {}
    skipped: list[str] = []
    for spec in specs or ["official"]:
        family, sep, text = spec.partition(".")
        if family in ("all_trec", "official"):
            for name in ALL_TREC if family == "all_trec" else OFFICIAL:
                if _TABLE[name][0] is None:
                    skipped.append(name)
                else:
                    wanted.setdefault(name, None)
            continue
        if family not in _TABLE:
            known = ", ".join(ALL_TREC)
            raise MeasureError(
                f"unknown trec_eval measure {family!r} in -m {spec!r} (known: all_trec, "
                f"official, {known})"
            )
        if _TABLE[family][0] is None or (family == "ndcg" and "=" in text):
            # ndcg.1=3,2=9 sets gains per grade: not implemented yet.
            skipped.append(family if family != "ndcg" else "ndcg (with gain parameters)")
            continue
        if sep and not _TABLE[family][1]:
            raise MeasureError(f"trec_eval measure {family!r} takes no parameters; got -m {spec!r}")
        wanted[family] = _parameters(family, text) if sep and text else None
    lines = [
        line
        for family in ALL_TREC
        if family in wanted
        for line in _lines_of(family, wanted[family] or _TABLE[family][1])
    ]
    return lines, list(dict.fromkeys(skipped))


def _value(line: TrecMeasure, value: float, run_name: str) -> str:
    if line.measure is None:
        return run_name
    if line.is_count:
        return str(round(value))
    return f"{value:.4f}"


def format_trec_eval(
    results: Results,
    lines: list[TrecMeasure],
    per_query: bool,
    summary: bool = True,
    run_name: str | None = None,
) -> str:
    """The text trec_eval prints for ``results``, byte for byte, for the given lines.

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AP", "NumQ"])
    >>> lines, _ = trec_eval_measures(["num_q", "map"])
    >>> print(format_trec_eval(results, lines, per_query=True), end="")
    map                   	q	1.0000
    num_q                 	all	1
    map                   	all	1.0000
    """
    run_name = run_name or results.run_name
    out: list[str] = []
    if per_query:
        columns = {
            line.printed: results.score_list(line.measure)
            for line in lines
            if line.measure is not None and not line.summary_only
        }
        for row, query_id in enumerate(results.query_ids):
            for line in lines:
                if line.printed in columns:
                    text = _value(line, columns[line.printed][row], run_name)
                    out.append(f"{line.printed:<22}\t{query_id}\t{text}\n")
    means = results.mean() if summary else {}
    for line in lines if summary else []:
        mean = means[line.measure.name] if line.measure is not None else 0.0
        out.append(f"{line.printed:<22}\tall\t{_value(line, mean, run_name)}\n")
    return "".join(out)
