"""Reading a TREC run in chunks of whole queries, with memory bounded by the chunk size.

`read_run_batches` hands out `Run` chunks that each hold whole queries (the rows of the last
query of a block are held back and joined to the next block, provided the file groups each
query's lines together, as TREC runs do): any TREC run (plain, compressed, or standard input),
read block by block; each block is cut at its last newline and parsed by the same parser as
`read_run` (told the line number the block starts at, so errors name the right line). The
native core streams TREC files itself; this reader serves Python's readers and formats.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from typing import IO

import polars as pl

from rankscope.errors import EmptyInputError, InputError
from rankscope.io._files import Input, open_plain, open_stream
from rankscope.io._lines import Skipped
from rankscope.io._native import DEFAULT_CHUNK_BYTES, is_trec_run_file
from rankscope.io._trec import RUN_FIELDS, last_run_tag, parse_run
from rankscope.io.tables import QUERY_ID, Run

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "is_trec_run_file",
    "read_run_batches",
]


def _blocks(stream: IO[bytes], size: int) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines, each with the 1-based number of its first line."""
    line = 1
    rest = b""
    while True:
        data = stream.read(size)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data  # no newline yet: a line longer than the block
            continue
        block, rest = data[:cut], data[cut:]
        yield block, line
        line += block.count(b"\n")
    if rest:
        yield rest, line


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
    skipped = Skipped()
    found_rows = False
    if name is None:
        plain = open_plain(path)
        name = last_run_tag(plain) if plain is not None else None
    with ExitStack() as stack:
        stream = open_stream(path, stack)
        source, stem = stream.source, stream.stem

        def tables() -> Iterator[pl.DataFrame]:
            nonlocal skipped, found_rows, name
            for block, first_line in _blocks(stream.file, chunk_bytes):
                try:
                    parsed = parse_run(
                        Input(source, stem, ".trec", data=block),
                        lenient=lenient,
                        first_line=first_line,
                    )
                except EmptyInputError:
                    continue  # a block of comments, blank lines (or, if lenient, bad lines only)
                skipped = skipped + parsed.skipped
                found_rows = True
                if name is None:
                    name = parsed.tag or stem or "run"
                yield parsed.frame

        for frame in _whole_queries(tables()):
            yield Run(frame, name or "run", source)
    if not found_rows:
        raise EmptyInputError(f"file holds no TREC run lines; expected {RUN_FIELDS}", source=source)
    skipped.warn(source)


def _whole_queries(tables: Iterable[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """The rows of ``tables`` again, cut at query boundaries: the rows of the last query of a
    table are held back and joined to the next (every table handed out holds whole queries,
    provided the file groups each query's lines together)."""
    pending: pl.DataFrame | None = None
    for table in tables:
        frame = table if pending is None else pl.concat([pending, table])
        runs = frame[QUERY_ID].rle_id()
        held = int((runs == runs.max()).sum())  # the last query's rows, at the end
        pending = frame.tail(held)
        if frame.height > held:
            yield frame.head(frame.height - held)
    if pending is not None and pending.height:
        yield pending
