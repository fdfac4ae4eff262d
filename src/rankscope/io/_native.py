"""Inputs handed to the compiled core: TREC files read natively, everything else converted.

A TREC file on disk is read by the core itself (in parallel, the GIL released); a compressed
file or standard input is decompressed here and its bytes parsed by the core. The core is the
only TREC reader there is: `read_run`, `read_qrels` and `read_run_batches` take its columns as
Arrow tables (`trec_run_table`, `trec_qrels_table`, `trec_run_chunks`). Other formats are read
by the readers of this package (polars) and handed over as an Arrow stream; dicts are walked by
the core directly. Nothing here imports numpy or polars unless a format needs it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from contextlib import ExitStack
from typing import Any

from rankscope import _core
from rankscope.errors import RankscopeWarning
from rankscope.io._files import STDIN, Input, open_input, open_plain, open_stream
from rankscope.io._formats import detect_format, normalize_format

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "NativeQrels",
    "NativeRun",
    "check_input_file",
    "is_trec_run_file",
    "native_qrels",
    "native_run",
    "trec_qrels_rows",
    "trec_qrels_table",
    "trec_run_chunks",
    "trec_run_rows",
    "trec_run_table",
    "trec_run_tag",
    "warn_skipped",
]

DEFAULT_CHUNK_BYTES = 128 * 1024 * 1024
"""How much of a run file a chunk of a streamed evaluation reads, unless told."""

NativeQrels = _core.Qrels
NativeRun = _core.Run
ArrowTable = _core.ArrowTable
PathLike = str | os.PathLike[str]


def warn_skipped(warning: str | None, stacklevel: int = 4) -> None:
    """Show the core's warning about lines skipped in lenient mode, if it gave one
    (``stacklevel`` as for `warnings.warn`, counted from the caller of this function)."""
    if warning is not None:
        warnings.warn(warning, RankscopeWarning, stacklevel=stacklevel)


def is_trec_run_file(path: PathLike) -> bool:
    """Whether ``path`` holds a TREC run, judged by its extension and first bytes."""
    if isinstance(path, str) and path == STDIN:
        return True  # standard input cannot be sniffed without consuming it
    with ExitStack() as stack:
        stream = open_stream(path, stack)
        head = stream.file.read(1 << 16)
    return detect_format(stream.extension, head) == "trec"


def _open_trec(path: PathLike, format: str | None) -> Input | None:
    """The opened input when it holds TREC lines (``format``, or by extension and first
    line), else None. Standard input, which can be read only once, is left to the Python
    readers."""
    if format is not None:
        format = normalize_format(format)
    if (isinstance(path, str) and path == STDIN) or format not in (None, "trec"):
        return None
    opened = open_plain(path) or open_input(path)
    if format is None and detect_format(opened.extension, opened.head()) != "trec":
        return None
    return opened


def _trec_source(opened: Input) -> dict[str, Any]:
    if opened.path is not None:
        return {"path": opened.path}
    return {"data": opened.data if opened.data is not None else b""}


def trec_run_table(opened: Input, lenient: bool) -> tuple[ArrowTable, str, str | None]:
    """A TREC run read by the core as an Arrow table (``query_id``, ``doc_id``, ``score``, in
    file order), its name (the tag of its last valid line) and the warning about lines skipped
    in lenient mode (for the caller to show)."""
    return _core.read_trec_run_table(opened.source, lenient=lenient, **_trec_source(opened))


def trec_qrels_table(opened: Input, lenient: bool) -> tuple[ArrowTable, str | None]:
    """TREC qrels read by the core as an Arrow table (``query_id``, ``doc_id``, ``relevance``,
    and ``subtopic`` when the second field holds more than one value), and the warning about
    lines skipped in lenient mode."""
    return _core.read_trec_qrels_table(opened.source, lenient=lenient, **_trec_source(opened))


def trec_run_rows(data: bytes, source: str, first_line: int = 1) -> tuple[ArrowTable, str]:
    """The rows of a piece of a TREC run read apart from the rest of its file (whole lines;
    ``first_line``: the number of its first line in the file) as an Arrow table, empty when it
    has none, and the tag of its last valid line."""
    table, tag, _ = _core.parse_trec_run_rows(source, data, first_line=first_line)
    return table, tag


def trec_qrels_rows(data: bytes, source: str, first_line: int = 1) -> ArrowTable:
    """The rows of a piece of TREC qrels, as `trec_run_rows` reads a piece of a run."""
    table, _ = _core.parse_trec_qrels_rows(source, data, first_line=first_line)
    return table


def check_input_file(path: str, source: str) -> None:
    """Refuse a path that cannot be read as a file, missing or a directory: the `InputError`
    (naming ``source``) the core's readers give, for the readers of every format."""
    _core.check_input_file(path, source)


def trec_run_tag(path: str, source: str) -> str | None:
    """The tag of the last valid line of a plain TREC run file (the run's name, as trec_eval
    names it), read from the file's end; None when no line is valid."""
    return _core.last_trec_run_tag(path, source)


def trec_run_chunks(
    path: PathLike, chunk_bytes: int, lenient: bool, stack: ExitStack
) -> tuple[_core.TrecRunChunks, str, str]:
    """A TREC run read by the core in chunks of whole queries (Arrow tables), the name of the
    input for messages, and the file's stem. A plain file is read by the core; a compressed one
    or standard input is decompressed here as the core asks for blocks (``stack`` closes it).
    """
    plain = open_plain(path)
    if plain is not None and plain.path is not None:
        chunks = _core.TrecRunChunks(
            plain.source, chunk_bytes=chunk_bytes, lenient=lenient, path=plain.path
        )
        return chunks, plain.source, plain.stem
    stream = open_stream(path, stack)
    chunks = _core.TrecRunChunks(
        stream.source, chunk_bytes=chunk_bytes, lenient=lenient, file=stream.file
    )
    return chunks, stream.source, stream.stem


def read_native_qrels(
    path: PathLike, lenient: bool = False, format: str | None = None
) -> NativeQrels:
    """Judgements from a file of any format `rankscope.io.read_qrels` reads (``format``: as
    there, detected when None)."""
    opened = _open_trec(path, format)
    if opened is not None:
        qrels, warning = _core.read_trec_qrels(
            opened.source, lenient=lenient, **_trec_source(opened)
        )
        warn_skipped(warning)
        return qrels
    from rankscope.io._read import read_qrels

    return native_qrels(read_qrels(path, format=format, lenient=lenient))


def read_native_run(path: PathLike, lenient: bool = False, format: str | None = None) -> NativeRun:
    """A run from a file of any format `rankscope.io.read_run` reads, named as it names it."""
    opened = _open_trec(path, format)
    if opened is not None:
        run, warning = _core.read_trec_run(opened.source, lenient=lenient, **_trec_source(opened))
        warn_skipped(warning)
        return run
    from rankscope.io._read import read_run

    return native_run(read_run(path, format=format, lenient=lenient))


def native_qrels(qrels: Any, lenient: bool = False) -> NativeQrels:
    """The core's judgements from a `Qrels`, a ``{query_id: {doc_id: grade}}`` mapping or a
    file path (already the core's: returned as is)."""
    if isinstance(qrels, NativeQrels):
        return qrels
    if isinstance(qrels, Mapping):
        return _core.qrels_from_dict(qrels)
    if isinstance(qrels, str | os.PathLike):
        return read_native_qrels(qrels, lenient)
    # Frames, ir_datasets' records and the rest: as `as_qrels` reads them (it says what it
    # takes when it cannot).
    from rankscope.io._inputs import as_qrels

    table = as_qrels(qrels, lenient=lenient)
    return _core.qrels_from_arrow(table.frame, table.source)


def native_run(run: Any, lenient: bool = False) -> NativeRun:
    """The core's run from a `Run`, ``{query_id: {doc_id: score}}``, ``{query_id: [doc_id]}``
    or a file path."""
    if isinstance(run, NativeRun):
        return run
    if isinstance(run, Mapping):
        return _core.run_from_dict(run)
    if isinstance(run, str | os.PathLike):
        return read_native_run(run, lenient)
    from rankscope.io._inputs import as_run

    table = as_run(run, lenient=lenient)
    return _core.run_from_arrow(table.frame, table.name, table.source, list(table.empty_queries))
