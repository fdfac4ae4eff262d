"""Types of the compiled core, ``rankscope._core`` (private: use ``rankscope``'s API)."""

from collections.abc import Callable, Mapping
from typing import Any, final

@final
class Qrels:
    """Judgements held by the core."""

    @property
    def source(self) -> str: ...
    def __len__(self) -> int: ...
    def without_subtopics(self) -> Qrels: ...

@final
class Run:
    """A run held by the core."""

    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    def __len__(self) -> int: ...

@final
class Column:
    """One measure's per-query values: a read-only float64 buffer."""

    def __len__(self) -> int: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

@final
class PerQuery:
    """Per-query values: rows by query id (byte-wise order), one column per measure."""

    def __init__(
        self,
        query_ids: list[str],
        names: list[str],
        aggregates: list[str],
        columns: list[list[float]],
    ) -> None: ...
    @property
    def names(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def query_ids(self) -> list[str]: ...
    def column(self, index: int) -> Column: ...
    def aggregates(self) -> list[float]: ...
    def to_dict(self, keys: list[tuple[str, int]] | None = None) -> dict[str, dict[str, float]]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def read_trec_qrels(
    source: str, *, path: str | None = None, data: bytes | None = None, lenient: bool = False
) -> tuple[Qrels, str | None]: ...
def read_trec_run(
    source: str, *, path: str | None = None, data: bytes | None = None, lenient: bool = False
) -> tuple[Run, str | None]: ...

class ArrowTable:
    """One record batch of the core's columns, exported through the Arrow PyCapsule stream
    interface (polars and pyarrow take it without a copy)."""

    def __len__(self) -> int: ...
    @property
    def columns(self) -> list[str]: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def read_trec_run_table(
    source: str, *, path: str | None = None, data: bytes | None = None, lenient: bool = False
) -> tuple[ArrowTable, str, str | None]: ...
def read_trec_qrels_table(
    source: str, *, path: str | None = None, data: bytes | None = None, lenient: bool = False
) -> tuple[ArrowTable, str | None]: ...
def parse_trec_run_rows(
    source: str, data: bytes, *, first_line: int = 1, lenient: bool = False
) -> tuple[ArrowTable, str, str | None]: ...
def parse_trec_qrels_rows(
    source: str, data: bytes, *, first_line: int = 1, lenient: bool = False
) -> tuple[ArrowTable, str | None]: ...
def last_trec_run_tag(path: str, source: str) -> str | None: ...

class TrecRunChunks:
    """A TREC run read a chunk of whole queries at a time: a plain file (``path``) or a binary
    file object (``file``)."""

    def __init__(
        self,
        source: str,
        *,
        chunk_bytes: int,
        lenient: bool = False,
        path: str | None = None,
        file: object | None = None,
    ) -> None: ...
    def __iter__(self) -> TrecRunChunks: ...
    def __next__(self) -> ArrowTable: ...
    @property
    def name(self) -> str | None: ...
    @property
    def warning(self) -> str | None: ...

def qrels_from_dict(mapping: Mapping[Any, Any], source: str = "<dict>") -> Qrels: ...
def run_from_dict(
    mapping: Mapping[Any, Any], name: str = "run", source: str | None = None
) -> Run: ...
def qrels_from_arrow(table: object, source: str = "<qrels>") -> Qrels: ...
def run_from_arrow(table: object, name: str = "run", source: str = "<run>") -> Run: ...
def evaluate(
    qrels: Qrels,
    run: Run,
    measures: list[str],
    conventions: list[tuple[str, str]],
    relevance_level: int,
    complete: bool,
    max_documents: int | None,
) -> tuple[PerQuery, list[str], list[str]]: ...
def evaluate_stream(
    qrels: Qrels,
    source: str,
    measures: list[str],
    conventions: list[tuple[str, str]],
    relevance_level: int,
    complete: bool,
    max_documents: int | None,
    *,
    chunk_bytes: int,
    lenient: bool,
    grouping: str,
    path: str | None = None,
    open: Callable[[], object] | None = None,
) -> tuple[PerQuery, list[str], list[str], str, list[str]]: ...
def evaluate_query(
    judged: list[tuple[str, int]],
    ranking: list[tuple[str, float]],
    measures: list[str],
    conventions: list[tuple[str, str]],
    relevance_level: int = 1,
    query_id: str = "q",
) -> list[float]: ...
def aggregate(values: list[float], how: str) -> float: ...
def relevance_strings(
    qrels: Qrels,
    run: Run,
    conventions: list[tuple[str, str]],
    relevance_level: int,
    complete: bool,
    max_documents: int | None,
    length: int,
) -> list[tuple[str, str]]: ...

# --- The measure registry (crates/rankscope-python/src/measures.rs) ---------------------------

GEOMETRIC_MEAN_FLOOR: float

def families() -> list[dict[str, Any]]: ...
def family(name: str) -> dict[str, Any] | None: ...
def family_names() -> list[str]: ...
def trec_eval_table() -> list[dict[str, Any]]: ...
def trec_eval_nicknames() -> list[tuple[str, list[str]]]: ...
def default_measures(profile: str, kind: str = "ranking") -> list[str] | None: ...
def parse_measure(
    name: str,
) -> tuple[str, int | float | None, list[tuple[str, str]], str, str | None]: ...
def build_measure(
    family: str, cutoff: str | None, params: list[tuple[str, str]]
) -> tuple[str, int | float | None, list[tuple[str, str]], str, str | None]: ...
def check_measures(measures: list[str], conventions: list[tuple[str, str]]) -> None: ...

# --- Preferences and judgement groups (crates/rankscope-python/src/prefs.rs) ---------------------

def evaluate_prefs(
    path: str,
    source: str,
    format: str,
    run: Run,
    measures: list[str],
    complete: bool = False,
    max_documents: int | None = None,
) -> tuple[PerQuery, list[str], list[str], str | None]: ...
def evaluate_judgement_groups(
    path: str,
    source: str,
    run: Run,
    measures: list[str],
    conventions: list[tuple[str, str]],
    relevance_level: int,
    complete: bool,
    max_documents: int | None,
) -> tuple[PerQuery, list[str], list[str], str | None]: ...

# --- Rank fusion (crates/rankscope-python/src/fuse.rs) ------------------------------------------

_Rows = tuple[bytes, bytes, bytes]
"""Rows as native-endian bytes: query codes (uint32), document codes (uint32), scores (float64)."""

_Ids = tuple[bytes, bytes]
"""A string column: the ids' byte lengths (uint32) and their bytes end to end."""

class FusionRuns:
    """Several runs' rankings over shared codes (document codes in the byte order of the ids).

    Errors are ``ValueError`` with args ``(message, kind, run, query, doc)``, ``kind`` one of
    ``"duplicate"``, ``"non_finite"``, ``"overflow"``, ``"parameter"``.
    """

    def __init__(
        self,
        runs: list[tuple[_Ids, _Ids, bytes]],
        extra_queries: _Ids | None = None,
    ) -> None: ...
    def query_ids(self) -> list[str]: ...
    def doc_ids(self) -> list[str]: ...
    def query_codes(self, lengths: bytes, ids: bytes) -> bytes: ...
    def doc_codes(self, lengths: bytes, ids: bytes) -> bytes: ...
    def normalize(self, norm: str) -> FusionRuns: ...
    def fuse(self, method_name: str, params: dict[str, object]) -> _Rows: ...
    def rows(self, index: int) -> _Rows: ...
    def train(
        self,
        kind: str,
        judged: bytes,
        relevant_queries: bytes,
        relevant_docs: bytes,
        n_segments: int = 0,
    ) -> list[list[float]]: ...
    def __len__(self) -> int: ...

def permuted_ranges(
    scores: bytes, topics: int, systems: int, rounds: int, state: int, increment: int
) -> bytes: ...
def sign_flip_means(
    differences: bytes, rounds: int, state: int, increment: int
) -> tuple[bytes, int]: ...
def bootstrap_means(
    values: bytes, rounds: int, state: int, increment: int, has_uint32: bool, uinteger: int
) -> tuple[bytes, int, bool, int]: ...
def t_two_sided(t: float, degrees: int) -> float: ...
