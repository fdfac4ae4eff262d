"""trec_eval's measure families, its ``-m`` syntax, and its exact output format.

trec_eval prints lines ``measure<TAB>query<TAB>value``, the measure name left-justified to 22
characters, values with 4 decimals (counts as integers), families in the order of its measure
table (not the order of ``-m``), each family's parameters in ascending order, queries sorted
byte-wise and the summary (``all``) last.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

from rankscope.engine.measures import FAMILIES, Measure, measure
from rankscope.engine.measures._registry import (
    GEOMETRIC_MEAN_FLOOR,
    TrecJudgements,
    TrecName,
    trec_eval_nicknames,
    trec_eval_table,
)
from rankscope.engine.results import Results
from rankscope.errors import MeasureError, RankscopeWarning

__all__ = [
    "ALL_TREC",
    "OFFICIAL",
    "TrecMeasure",
    "format_trec_eval",
    "trec_eval_measures",
]

# trec_eval's measure table, in its order (the order it prints families in), and its
# nicknames: the core's registry, by trec_eval name.
_TABLE: dict[str, TrecName] = {entry.name: entry for entry in trec_eval_table()}
_NICKNAMES: dict[str, tuple[str, ...]] = trec_eval_nicknames()
ALL_TREC = _NICKNAMES["all_trec"]
OFFICIAL = _NICKNAMES["official"]


@dataclass(frozen=True)
class TrecMeasure:
    """One line kind of trec_eval output: its printed name and the measure behind it."""

    printed: str
    measure: Measure | None  # None for runid and relstring
    relstring: int | None = None  # relstring's length
    judgements: TrecJudgements = "qrels"  # what it is computed from (trec_eval's -R)

    @property
    def summary_only(self) -> bool:
        if self.measure is None:
            return self.relstring is None  # runid
        return any(entry.summary_only for entry in FAMILIES[self.measure.family].trec_eval)

    @property
    def is_count(self) -> bool:
        """Counts print as integers."""
        return self.measure is not None and FAMILIES[self.measure.family].aggregate in (
            "sum",
            "count",
        )


def _numbers(family: str, spec: str, text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError:
            raise MeasureError(
                f"trec_eval measure {family!r} takes numeric parameters; got {part!r} in "
                f"-m {spec!r}"
            ) from None
    return values


def _distinct_sorted(family: str, spec: str, values: list[float]) -> list[float]:
    """trec_eval refuses a parameter list with a value twice (``-m P.5,5``)."""
    if len(set(values)) != len(values):
        repeated = sorted({v for v in values if values.count(v) > 1})
        shown = ", ".join(f"{v:g}" for v in repeated)
        raise MeasureError(
            f"trec_eval measure {family!r} lists {shown} twice in -m {spec!r}; trec_eval "
            "refuses repeated parameters"
        )
    return sorted(values)


def _pairs(family: str, spec: str, text: str) -> dict[str, float]:
    pairs: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not name or not math.isfinite(number):
            raise MeasureError(
                f"trec_eval measure {family!r} takes name=value parameters (e.g. "
                f"{family}.1=3,2=9); got {part!r} in -m {spec!r}"
            )
        if name in pairs:
            raise MeasureError(f"trec_eval measure {family!r} sets {name!r} twice in -m {spec!r}")
        pairs[name] = number
    return pairs


def _warn_close_gains(spec: str, gains: dict[int, float]) -> None:
    """Warn where trec_eval's order of gains is the C library's: its comparator truncates the
    difference of two gains to an integer, so gains less than 1 apart (among those given and
    the grades' own gains) compare equal and qsort may put them either way."""
    if not gains:
        return
    table = {grade: float(grade) for grade in range(max(0, max(gains)) + 1)} | gains
    values = sorted(set(table.values()))
    if any(later - earlier < 1 for earlier, later in itertools.pairwise(values)):
        warnings.warn(
            f"-m {spec}: gains less than 1 apart; trec_eval 10 compares gains by their "
            "difference truncated to an integer, so the order it sorts them in (and its value) "
            "depends on the C library; this prints the value with the gains in order",
            RankscopeWarning,
            stacklevel=3,
        )


def _lines_of(family: str, spec: str, text: str | None, collection_size: int) -> list[TrecMeasure]:
    entry = _TABLE[family]
    if entry.family is None:  # runid and relstring are lines, not measures
        if family == "runid":
            return [TrecMeasure("runid", None, judgements=entry.judgements)]
        values = _numbers(family, spec, text) if text else list(entry.defaults)
        printed = f"{family}_{text}" if text else family
        return [TrecMeasure(printed, None, relstring=int(values[0]))]
    ours = entry.family
    style = entry.style
    judgements = entry.judgements

    def line(printed: str, name: str) -> TrecMeasure:
        return TrecMeasure(printed, measure(name), judgements=judgements)

    if text is not None and style == "none":
        warnings.warn(
            f"trec_eval measure {family!r} takes no parameters; {text!r} ignored in "
            f"-m {spec!r}, as trec_eval does",
            RankscopeWarning,
            stacklevel=2,
        )
    given = text is not None and text != "" and style != "none"
    # A one-line family with parameters prints them as given: utility_2,-1,0,0.
    printed = f"{family}_{text}" if given else family
    if style == "none":
        return [line(family, ours)]
    if style == "pairs":
        # trec_eval's pairs set the gains of grades and (rbp's) p: the family's own parameters.
        takes = FAMILIES[ours].params
        pairs = _pairs(family, spec, text) if given and text else {}
        gains = {k: v for k, v in pairs.items() if k.lstrip("+-").isdigit()}
        _warn_close_gains(spec, {int(k): v for k, v in gains.items()})
        params = []
        if gains and "gains" in takes:
            params.append("gains=" + ";".join(f"{int(k)}:{v!r}" for k, v in sorted(gains.items())))
        if "p" in pairs and "p" in takes:
            params.append(f"p={pairs['p']!r}")
        name = f"{ours}({','.join(params)})" if params else ours
        return [line(printed, name)]
    values = _numbers(family, spec, text) if given and text else list(entry.defaults)
    if style == "utility":
        if len(values) != 4:
            raise MeasureError(
                f"trec_eval measure 'utility' takes 4 coefficients (a,b,c,d); got -m {spec!r}"
            )
        a, b, c, d = values
        size = f"n={float(collection_size)!r}" if collection_size else ""
        if given:
            name = f"{ours}(a={a!r},b={b!r},c={c!r},d={d!r}{',' if size else ''}{size})"
        else:  # trec_eval's coefficients: the measure it prints as plain utility
            name = f"{ours}({size})" if size else ours
        return [line(printed, name)]
    if style == "number":
        return [line(printed, f"{ours}(beta={values[0]!r})")]
    if style == "level_set":
        if not given:
            return [line(family, ours)]
        levels = ";".join(repr(v) for v in _distinct_sorted(family, spec, values))
        return [line(printed, f"{ours}(levels={levels})")]
    if style in ("levels", "factors"):
        return [
            line(f"{family}_{level:.2f}", f"{ours}@{level!r}")
            for level in _distinct_sorted(family, spec, values)
        ]
    # trec_eval reads integer cutoffs with strtol: 23.4 becomes 23.
    cuts = _distinct_sorted(family, spec, [float(int(v)) for v in values])
    return [line(f"{family}_{int(cut)}", f"{ours}@{int(cut)}") for cut in cuts]


def trec_eval_measures(specs: list[str], collection_size: int = 0) -> list[TrecMeasure]:
    """The output lines for trec_eval ``-m`` arguments, in trec_eval's order.

    ``collection_size`` is trec_eval's ``-N`` (utility's last term).

    Examples
    --------
    >>> [line.printed for line in trec_eval_measures(["P.10,5", "map"])]
    ['map', 'P_5', 'P_10']
    """
    wanted: dict[str, tuple[str, str | None]] = {}
    for spec in specs or ["official"]:
        family, sep, text = spec.partition(".")
        if family in _NICKNAMES:
            for name in _NICKNAMES[family]:
                wanted.setdefault(name, (name, None))
            continue
        if family not in _TABLE:
            known = ", ".join([*_NICKNAMES, *_TABLE])
            raise MeasureError(
                f"unknown trec_eval measure {family!r} in -m {spec!r} (known: {known})"
            )
        # As trec_eval: the first -m with parameters decides them, over bare names and
        # nicknames given before or after it.
        if sep and wanted.get(family, (spec, None))[1] is None:
            wanted[family] = (spec, text)
        else:
            wanted.setdefault(family, (spec, None))
    return [
        line
        for family in _TABLE
        if family in wanted
        for line in _lines_of(family, wanted[family][0], wanted[family][1], collection_size)
    ]


def _value(line: TrecMeasure, value: float, run_name: str) -> str:
    if line.measure is None:
        return run_name
    if line.is_count:
        return str(round(value))
    return _number(value)


def _number(value: float) -> str:
    """A value as trec_eval's ``%6.4f`` prints it; NaN as the ``-nan`` of 0.0 / 0.0 on the
    machines trec_eval runs on (x86 and ARM set the sign of that NaN)."""
    if math.isnan(value):
        return "  -nan"
    return f"{value:.4f}"


# trec_eval's value for a query or measure without a mean in the z-score file.
MISSING_ZSCORE = -1000000.0


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's ``-Z`` file: lines ``query_id measure mean stddev`` (measures by their
    printed names), as ``{(query_id, measure): (mean, stddev)}``."""
    from rankscope.errors import ParseError

    table: dict[tuple[str, str], tuple[float, float]] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields:
                continue
            problem = None
            if len(fields) != 4:
                problem = f"expected 4 fields (query_id measure mean stddev); found {len(fields)}"
            else:
                try:
                    table[fields[0], fields[1]] = (float(fields[2]), float(fields[3]))
                except ValueError:
                    problem = "mean and stddev must be numbers"
            if problem:
                raise ParseError(problem, source=path, line=number, text=line.rstrip("\r\n"))
    return table


def _zscore(value: float, mean_stddev: tuple[float, float] | None) -> float:
    """As trec_eval: (value - mean) / stddev; 0 for a stddev of 0 and the mean itself."""
    if mean_stddev is None:
        return MISSING_ZSCORE
    mean, stddev = mean_stddev
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def format_trec_eval(
    results: Results,
    lines: list[TrecMeasure],
    per_query: bool,
    summary: bool = True,
    run_name: str | None = None,
    summary_from: dict[str, TrecMeasure] | None = None,
    relstrings: dict[str, str] | None = None,
    zscores: dict[tuple[str, str], tuple[float, float]] | None = None,
) -> str:
    """The text trec_eval prints for ``results``, byte for byte, for the given lines.

    ``summary_from`` maps a printed name to the line whose aggregate its summary shows
    instead (trec_eval's num_rel under ``-c``); ``relstrings`` holds the relstring of each
    query (per query only, as trec_eval prints it). With ``zscores`` (trec_eval's ``-Z``),
    every value becomes its z-score against the file's mean and standard deviation for its
    query and printed name, the summaries aggregate the z-scores, and names get a ``Z``.

    Examples
    --------
    >>> import rankscope
    >>> results = rankscope.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["AP", "NumQ"])
    >>> lines = trec_eval_measures(["num_q", "map"])
    >>> print(format_trec_eval(results, lines, per_query=True), end="")
    map                   	q	1.0000
    num_q                 	all	1
    map                   	all	1.0000
    """
    run_name = run_name or results.run_name
    summary_from = summary_from or {}
    if zscores is not None:
        return _format_zscores(
            results, lines, per_query, summary, run_name, zscores, relstrings, summary_from
        )
    out: list[str] = []
    if per_query:
        columns = {
            line.printed: results.score_list(line.measure)
            for line in lines
            if line.measure is not None and not line.summary_only
        }
        for row, query_id in enumerate(results.query_ids):
            for line in lines:
                if line.relstring is not None:
                    text = (relstrings or {}).get(query_id, "")
                    out.append(f"{line.printed:<22}\t{query_id}\t'{text}'\n")
                elif line.printed in columns:
                    text = _value(line, columns[line.printed][row], run_name)
                    out.append(f"{line.printed:<22}\t{query_id}\t{text}\n")
    means = results.mean() if summary else {}
    for line in lines if summary else []:
        if line.relstring is not None:
            continue
        source = summary_from.get(line.printed, line)
        mean = means[source.measure.name] if source.measure is not None else 0.0
        out.append(f"{line.printed:<22}\tall\t{_value(line, mean, run_name)}\n")
    return "".join(out)


def _format_zscores(
    results: Results,
    lines: list[TrecMeasure],
    per_query: bool,
    summary: bool,
    run_name: str,
    zscores: dict[tuple[str, str], tuple[float, float]],
    relstrings: dict[str, str] | None,
    summary_from: dict[str, TrecMeasure],
) -> str:
    from rankscope.engine.native import aggregate

    query_ids = results.query_ids

    def geometric(measure: Measure) -> bool:
        return FAMILIES[measure.family].aggregate == "geometric_mean"

    def query_values(measure: Measure) -> list[float]:
        values = results.score_list(measure)
        if geometric(measure):
            # trec_eval's gm_* keep log(max(value, floor)) per query: the z-score is of that.
            floor = GEOMETRIC_MEAN_FLOOR
            return [math.log(max(value, floor)) for value in values]
        return values

    converted = {
        line.printed: [
            _zscore(value, zscores.get((query_id, line.printed)))
            for query_id, value in zip(query_ids, query_values(line.measure), strict=True)
        ]
        for line in lines
        if line.measure is not None
    }
    out: list[str] = []
    for row, query_id in enumerate(query_ids if per_query else []):
        for line in lines:
            if line.relstring is not None:
                text = (relstrings or {}).get(query_id, "")
                out.append(f"{line.printed:<22}\t{query_id}\t'{text}'\n")
            elif line.measure is not None and not line.summary_only:
                value = converted[line.printed][row]
                out.append(f"Z{line.printed:<22}\t{query_id}\t{_number(value)}\n")
    means = results.mean() if summary and summary_from else {}
    for line in lines if summary else []:
        if line.measure is None:
            if line.relstring is None:
                out.append(f"{line.printed:<22}\tall\t{run_name}\n")
            continue
        source = summary_from.get(line.printed)
        if source is not None and source.measure is not None:
            # trec_eval's summary of num_rel under -c is its count of relevant judgements,
            # not a z-score.
            value = means[source.measure.name]
        elif geometric(line.measure):
            value = math.exp(aggregate(converted[line.printed], "mean"))
        else:
            how = FAMILIES[line.measure.family].aggregate
            value = aggregate(converted[line.printed], how)
        out.append(f"Z{line.printed:<22}\tall\t{_number(value)}\n")
    return "".join(out)
