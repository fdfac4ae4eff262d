"""File formats: their names, detection from extension and content, and column names.

Detection, in order: a format given by the caller; Parquet's magic bytes; the extension
(.jsonl/.ndjson/.json, .parquet/.pq); the first line that is neither blank nor a comment (a JSON
object means JSONL, a header naming known columns means TSV or CSV, three tab-separated fields
mean a TSV file without a header, as BEIR's qrels may be); a .csv extension; TREC otherwise. A
JSON file that holds one object ``{query_id: {doc_id: value}}`` (ranx's and pytrec_eval's
dicts) is told from JSON Lines by its content, when it is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from rankscope.errors import InputError
from rankscope.io._columns import DOC_ID, QUERY_ID, RELEVANCE, SCORE, SUBTOPIC

__all__ = [
    "FORMATS",
    "HEADERLESS_FIELDS",
    "Kind",
    "check_mapping",
    "column_names",
    "detect_format",
    "first_content_line",
    "headerless_line",
    "names_header",
    "normalize_format",
    "resolve_columns",
]

Kind = Literal["qrels", "run"]

FORMATS = ("trec", "jsonl", "csv", "tsv", "parquet")
"""The formats rankscope reads and writes."""

_ALIASES = {"beir": "tsv", "ndjson": "jsonl", "json": "jsonl", "pq": "parquet"}

_EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}

# Accepted names of each column, in order of preference (matched exactly, then ignoring case).
_COLUMN_NAMES: dict[Kind, dict[str, tuple[str, ...]]] = {
    "qrels": {
        QUERY_ID: ("query_id", "qid", "query-id"),
        DOC_ID: ("doc_id", "docid", "docno", "corpus-id", "pid"),
        RELEVANCE: ("relevance", "rel", "grade", "label", "score"),
    },
    "run": {
        QUERY_ID: ("query_id", "qid", "query-id"),
        DOC_ID: ("doc_id", "docid", "docno", "corpus-id", "pid"),
        SCORE: ("score",),
    },
}

# Accepted names of the optional subtopic column of diversity qrels (ir_measures and
# ir_datasets call TREC's second field `iteration`; pyndeval `subtopic_id`).
SUBTOPIC_NAMES = ("subtopic", "subtopic_id", "iteration")

_KNOWN_NAMES = frozenset(
    name.lower() for names in _COLUMN_NAMES.values() for group in names.values() for name in group
)


def column_names(kind: Kind) -> dict[str, tuple[str, ...]]:
    """Our column -> the names accepted for it in a header, in order of preference.

    Examples
    --------
    >>> column_names("run")["score"]
    ('score',)
    """
    return dict(_COLUMN_NAMES[kind])


def normalize_format(format: str) -> str:
    """The canonical name of a format (aliases: beir = tsv, json/ndjson = jsonl, pq = parquet).

    Examples
    --------
    >>> normalize_format("BEIR")
    'tsv'
    >>> normalize_format("xml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: unknown format 'xml'; known formats: trec, jsonl, csv, tsv, ...
    """
    name = format.strip().lower()
    name = _ALIASES.get(name, name)
    if name not in FORMATS:
        aliases = ", ".join(f"{alias} = {target}" for alias, target in _ALIASES.items())
        raise InputError(
            f"unknown format {format!r}; known formats: {', '.join(FORMATS)} (aliases: {aliases})"
        )
    return name


HEADERLESS_FIELDS = 3
"""A CSV/TSV file whose first line names no known column, and has this many fields, has no
header: its columns are query id, document id and grade (or score), in that order."""


def first_content_line(head: bytes) -> str:
    """The first line that is neither blank nor a ``#`` comment, stripped ('' if none)."""
    for raw in head.split(b"\n"):
        line = raw.decode("utf-8", errors="replace").strip()
        if line and not line.startswith("#"):
            return line
    return ""


def names_header(line: str, separator: str, extra_names: Iterable[str] = ()) -> bool:
    """Whether ``line`` is a header: it names a known column, or one of ``extra_names``."""
    names = _KNOWN_NAMES | {name.lower() for name in extra_names}
    fields = [field.strip().strip('"').lower() for field in line.split(separator)]
    return len(fields) > 1 and any(field in names for field in fields)


def headerless_line(line: str, separator: str) -> bool:
    """Whether ``line`` is the first data row of a file without a header: three fields, the
    last a number (a header, or a TREC line lacking a field, is not)."""
    fields = line.split(separator)
    if len(fields) != HEADERLESS_FIELDS:
        return False
    try:
        float(fields[-1])
    except ValueError:
        return False
    return True


def detect_format(
    extension: str, head: bytes, column_mapping: Mapping[str, str] | None = None
) -> str:
    """The format of a file from its extension and its first bytes.

    Examples
    --------
    >>> detect_format(".txt", b"301 Q0 FR940202-2-00150 1 2.13 STANDARD\\n")
    'trec'
    >>> detect_format("", b"query-id\\tcorpus-id\\tscore\\nq1\\td1\\t1\\n")
    'tsv'
    >>> detect_format(".test", b'{"query_id": "q1", "doc_ids": ["d1"]}\\n')
    'jsonl'
    >>> detect_format(".txt", b"q1\\td1\\t1\\n")  # BEIR's qrels without a header
    'tsv'
    """
    if head.startswith(b"PAR1"):
        return "parquet"
    if extension in _EXTENSIONS:
        return _EXTENSIONS[extension]
    line = first_content_line(head)
    if line.startswith("{"):
        return "jsonl"
    extra = (column_mapping or {}).values()
    if names_header(line, "\t", extra) or headerless_line(line, "\t"):
        return "tsv"
    if names_header(line, ",", extra):
        return "csv"
    if extension == ".csv":
        return "csv"
    return "trec"


def resolve_columns(
    kind: Kind,
    found: Sequence[str],
    column_mapping: Mapping[str, str],
    *,
    what: str,
    source: str,
) -> dict[str, str]:
    """Our column -> the column (or key) of the file that holds it.

    A name given in ``column_mapping`` must exist; otherwise the first accepted name present is
    taken, compared exactly and then ignoring case.

    Examples
    --------
    >>> resolve_columns("qrels", ["query-id", "corpus-id", "score"], {}, what="column", source="f")
    {'query_id': 'query-id', 'doc_id': 'corpus-id', 'relevance': 'score'}
    >>> resolve_columns("run", ["qid", "docno", "sim"], {}, what="column", source="f")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: f: no column for score: expected one named 'score' ...
    """
    resolved: dict[str, str] = {}
    lowered = {name.lower(): name for name in reversed(found)}
    listed = ", ".join(repr(name) for name in found)
    for ours, accepted in _COLUMN_NAMES[kind].items():
        if ours in column_mapping:
            theirs = column_mapping[ours]
            if theirs not in found:
                raise InputError(
                    f"no {what} {theirs!r} (given as {ours}={theirs!r}); found {listed}",
                    source=source,
                )
            resolved[ours] = theirs
            continue
        match = next((name for name in accepted if name in found), None)
        if match is None:
            match = next((lowered[name] for name in accepted if name in lowered), None)
        if match is None:
            names = " or ".join(repr(name) for name in accepted)
            raise InputError(
                f"no {what} for {ours}: expected one named {names} (or name it with {ours}=...); "
                f"found {listed}",
                source=source,
            )
        resolved[ours] = match
    return resolved


def find_subtopic(
    found: Sequence[str], column_mapping: Mapping[str, str], *, what: str, source: str
) -> str | None:
    """The column (or key, or field) of ``found`` holding the subtopic of diversity qrels: the
    one named ``subtopic=`` in ``column_mapping``, else the first of `SUBTOPIC_NAMES` present
    (compared exactly, then ignoring case); None when there is none.

    Examples
    --------
    >>> find_subtopic(["query_id", "iteration", "doc_id", "relevance"], {}, what="field",
    ...               source="f")
    'iteration'
    """
    if SUBTOPIC in column_mapping:
        theirs = column_mapping[SUBTOPIC]
        if theirs not in found:
            listed = ", ".join(repr(name) for name in found)
            raise InputError(
                f"no {what} {theirs!r} (given as subtopic={theirs!r}); found {listed}",
                source=source,
            )
        return theirs
    match = next((name for name in SUBTOPIC_NAMES if name in found), None)
    if match is None:
        lowered = {name.lower(): name for name in reversed(found)}
        match = next((lowered[name] for name in SUBTOPIC_NAMES if name in lowered), None)
    return match


def check_mapping(kind: Kind, column_mapping: Mapping[str, str], function: str) -> None:
    """Refuse keys of a column mapping that are not our column names."""
    allowed = tuple(_COLUMN_NAMES[kind]) + ((SUBTOPIC,) if kind == "qrels" else ())
    for key, value in column_mapping.items():
        if key not in allowed:
            raise TypeError(
                f"{function}() got an unexpected keyword argument {key!r}; the column mapping "
                f"takes {', '.join(allowed)}"
            )
        if not isinstance(value, str) or not value:
            raise TypeError(f"{function}(): {key}= must name a column; got {value!r}")
