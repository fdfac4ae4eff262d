"""Reading a TREC run in chunks of whole queries, with memory bounded by the chunk size.

`read_run_batches` hands out `Run` chunks that each hold whole queries: the native core reads
the run block by block (a plain file itself, a compressed file or standard input as this package
decompresses it), holds back the lines of each block's last query for the next block (provided
the file groups each query's lines together, as TREC runs do), and parses each chunk with the
reader of `read_run`, so errors name the line of the whole file. polars takes each chunk's
columns as an Arrow table without a copy.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack

from rankscope.errors import InputError
from rankscope.io._native import (
    DEFAULT_CHUNK_BYTES,
    is_trec_run_file,
    trec_run_chunks,
    warn_skipped,
)
from rankscope.io.tables import Run

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "is_trec_run_file",
    "read_run_batches",
]


def read_run_batches(
    path: str | os.PathLike[str],
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    *,
    lenient: bool = False,
    name: str | None = None,
) -> Iterator[Run]:
    """Read a TREC run file as a sequence of `Run` chunks, each holding whole queries.

    Parameters
    ----------
    path
        A TREC run file (``.gz``, ``.bz2``, ``.xz``, ``.zst`` decompressed as they stream), or
        ``"-"`` for standard input.
    chunk_bytes
        How much of the file to read at a time; a chunk holds about this much text (plus the
        rest of a query cut at the block's end).
    lenient
        Skip malformed lines (counted in one warning at the end) instead of raising.
    name
        The run's name; by default the tag of its last line, as trec_eval names a run (of a
        compressed file or standard input, which cannot be read from the end first: of the
        last line of its first chunk).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 a 1 3 t\\nq1 Q0 b 2 2 t\\nq2 Q0 c 1 1 t\\nq3 Q0 d 1 1 t\\n")
    >>> [chunk.frame["query_id"].to_list() for chunk in read_run_batches(path, chunk_bytes=20)]
    [['q1', 'q1', 'q2'], ['q3']]
    """
    if chunk_bytes < 1:
        raise InputError(f"chunk_bytes must be at least 1; got {chunk_bytes}")
    import polars as pl

    with ExitStack() as stack:
        chunks, source, stem = trec_run_chunks(path, chunk_bytes, lenient, stack)
        for table in chunks:
            yield Run(pl.DataFrame(table), name or chunks.name or stem or "run", source)
        warning = chunks.warning
    warn_skipped(warning, stacklevel=3)
