"""Types of the native core, ``rankscope._core`` (built from crates/rankscope-python)."""

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
