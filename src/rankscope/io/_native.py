"""Inputs handed to the compiled core: TREC files read natively, everything else converted.

A TREC file on disk is read by the core itself (in parallel, the GIL released); a compressed
file or standard input is decompressed here and its bytes parsed by the core. Other formats are
read by the readers of this package (polars) and handed over as an Arrow stream; dicts are
walked by the core directly. Nothing here imports numpy or polars unless a format needs it.
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
    "is_trec_run_file",
    "native_qrels",
    "native_run",
]

DEFAULT_CHUNK_BYTES = 128 * 1024 * 1024
"""How much of a run file a chunk of a streamed evaluation reads, unless told."""

NativeQrels = _core.Qrels
NativeRun = _core.Run
PathLike = str | os.PathLike[str]


def _warn_skipped(warning: str | None) -> None:
    if warning is not None:
        warnings.warn(warning, RankscopeWarning, stacklevel=4)


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
        _warn_skipped(warning)
        return qrels
    from rankscope.io._read import read_qrels

    return native_qrels(read_qrels(path, format=format, lenient=lenient))


def read_native_run(path: PathLike, lenient: bool = False, format: str | None = None) -> NativeRun:
    """A run from a file of any format `rankscope.io.read_run` reads, named as it names it."""
    opened = _open_trec(path, format)
    if opened is not None:
        run, warning = _core.read_trec_run(opened.source, lenient=lenient, **_trec_source(opened))
        _warn_skipped(warning)
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
    return _core.run_from_arrow(table.frame, table.name, table.source)
