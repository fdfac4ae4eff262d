"""Files in and out: standard input and output, compression by extension or magic bytes.

A reader gets an `Input`: the file's path when it is a plain file on disk (polars then maps the
file itself, with no copy through Python), or its decompressed bytes otherwise (standard input,
``.gz``, ``.bz2``, ``.xz``, ``.zst``).
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

import importlib
import io
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, Any, NamedTuple, cast

from rankscope.errors import InputError, MissingDependencyError

__all__ = [
    "STDIN",
    "Input",
    "Stream",
    "compression_of",
    "open_input",
    "open_output",
    "open_plain",
    "open_stream",
]

STDIN = "-"
"""The path that stands for standard input (when reading) or standard output (when writing)."""

_BOM = b"\xef\xbb\xbf"
_HEAD_BYTES = 1 << 16
_SCAN_BLOCK = 1 << 22

COMPRESSIONS: dict[str, str] = {
    ".gz": "gzip",
    ".bz2": "bz2",
    ".xz": "xz",
    ".lzma": "xz",
    ".zst": "zstd",
    ".zstd": "zstd",
}


def _is_bz2(head: bytes) -> bool:
    # "BZh" is printable text, so require the block size digit and the block magic (pi) as well.
    return head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] == b"1AY&SY"


def _sniff_compression(head: bytes) -> str | None:
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if head.startswith(b"\x28\xb5\x2f\xfd"):
        return "zstd"
    if _is_bz2(head):
        return "bz2"
    return None


_CODECS = {"gzip": "gzip", "bz2": "bz2", "xz": "lzma"}
"""The standard library's module for each compression but zstd."""


def _codec(compression: str) -> Any:
    """The standard library's module for a compression other than zstd (its ``open`` reads
    and writes), imported when first needed: most inputs are plain."""
    return importlib.import_module(_CODECS[compression])


def _zstandard() -> Any:
    try:
        import zstandard
    except ImportError as error:
        raise MissingDependencyError(
            "zstandard", "Reading or writing .zst files", "zstd"
        ) from error
    return zstandard


def compression_of(path: str | os.PathLike[str]) -> str | None:
    """The compression of a file on disk (``"gzip"``, ``"bz2"``, ``"xz"``, ``"zstd"``) by its
    extension or, failing that, its first bytes; None for a plain file."""
    compression = _split_name(os.fspath(path))[2]
    if compression is not None:
        return compression
    with open(path, "rb") as handle:
        return _sniff_compression(handle.read(16))


def _decompress(data: bytes, compression: str, source: str) -> bytes:
    with ExitStack() as stack:
        return _decompressing(io.BytesIO(data), compression, source, stack).read()


def _split_name(name: str) -> tuple[str, str, str | None]:
    """``(stem, format extension, compression)`` of a file name.

    >>> _split_name("runs/bm25.trec.gz"), _split_name("qrels.TXT"), _split_name(".run")
    (('bm25', '.trec', 'gzip'), ('qrels', '.txt', None), ('.run', '', None))
    """
    stem, suffix = os.path.splitext(os.path.basename(name))
    compression = COMPRESSIONS.get(suffix.lower())
    if compression is not None:
        stem, suffix = os.path.splitext(stem)
    return stem, suffix.lower(), compression


class Input(NamedTuple):
    """One input file, read or mapped, ready for a reader (the core's for TREC files, polars'
    for the others).

    Attributes
    ----------
    source
        The name used in messages: the path as given, or ``<stdin>``.
    stem
        The file name without its extensions ('bm25' for 'runs/bm25.trec.gz'); '' for stdin.
    extension
        The format extension, lower case, after any compression extension ('.trec').
    path
        The file, when it is a plain file on disk; the readers read it directly.
    data
        The (decompressed) content otherwise.
    """

    source: str
    stem: str
    extension: str
    path: str | None = None
    data: bytes | None = None

    @property
    def polars_source(self) -> str | bytes:
        """What to hand to a polars reader: the path of a plain file, or the bytes."""
        if self.path is not None:
            return self.path
        return self.data if self.data is not None else b""

    def read_bytes(self) -> bytes:
        """The whole content (reads a plain file; used by fallbacks and small formats)."""
        if self.data is not None:
            return self.data
        if self.path is None:
            return b""
        with open(self.path, "rb") as file:
            data = file.read()
        return data[len(_BOM) :] if data.startswith(_BOM) else data

    def head(self) -> bytes:
        """The first 64 KiB, for sniffing the format."""
        if self.data is not None:
            return self.data[:_HEAD_BYTES]
        if self.path is None:
            return b""
        with open(self.path, "rb") as file:
            head = file.read(_HEAD_BYTES)
        return head[len(_BOM) :] if head.startswith(_BOM) else head

    def contains_any(self, needles: tuple[bytes, ...]) -> bool:
        """Whether any of the bytes (single bytes) occurs in the content."""
        return bool(self.present(needles))

    def present(self, needles: tuple[bytes, ...]) -> frozenset[bytes]:
        """Which of the bytes (single bytes) occur in the content: one pass at memchr speed.

        A file is read in blocks of 4 MiB into one buffer (the buffer keeps memory flat, where a
        mapping of the file would count it all as resident).
        """
        if any(len(needle) != 1 for needle in needles):
            raise ValueError(f"expected single bytes; got {needles!r}")
        if self.data is not None:
            return frozenset(needle for needle in needles if needle in self.data)
        if self.path is None:
            return frozenset()
        found: set[bytes] = set()
        wanted = set(needles)
        buffer = bytearray(_SCAN_BLOCK)
        with open(self.path, "rb", buffering=0) as file:
            while wanted and (size := file.readinto(buffer)):
                block = buffer if size == len(buffer) else buffer[:size]
                hits = {needle for needle in wanted if block.find(needle) >= 0}
                found |= hits
                wanted -= hits
        return frozenset(found)


def _read_stdin() -> bytes:
    stream: Any = getattr(sys.stdin, "buffer", sys.stdin)
    data = stream.read()
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def existing_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    """The path as text, and its name for messages (the same text); an `InputError` if it is
    missing or a folder (the core's check, as its readers make it for the native executable)."""
    from rankscope.io._native import check_input_file

    file = source = os.fspath(path)
    check_input_file(file, source)
    return file, source


def open_input(path: str | os.PathLike[str]) -> Input:
    """Open a file (or ``-`` for standard input) for reading, decompressing it if needed.

    Compression is recognized by the extension (.gz, .bz2, .xz, .zst) and, failing that, by the
    first bytes of the content.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.trec.gz").write_bytes(gzip.compress(b"q1 Q0 d1 1 2.5 bm25\\n"))
    >>> opened = open_input(folder / "run.trec.gz")
    >>> opened.stem, opened.extension, opened.read_bytes()
    ('run', '.trec', b'q1 Q0 d1 1 2.5 bm25\\n')
    """
    plain = open_plain(path)
    if plain is not None:
        return plain
    if isinstance(path, str) and path == STDIN:
        data = _read_stdin()
        compression = _sniff_compression(data[:16])
        if compression is not None:
            data = _decompress(data, compression, "<stdin>")
        return Input("<stdin>", "", "", data=_strip_bom(data))
    # A pipe or device (e.g. bash's <(...)), read only once; or a compressed or BOM-led file.
    file, source = existing_file(path)
    stem, extension, compression = _split_name(file)
    with open(file, "rb") as handle:
        data = handle.read()
    compression = compression or _sniff_compression(data[:16])
    if compression is not None:
        data = _decompress(data, compression, source)
    return Input(source, stem, extension, data=_strip_bom(data))


def open_plain(path: str | os.PathLike[str]) -> Input | None:
    """The `Input` of a plain file on disk (uncompressed, no BOM), which polars maps itself;
    None, having read at most 16 bytes, for anything `open_input` must read into memory:
    standard input, a pipe, a compressed or BOM-led file."""
    if isinstance(path, str) and path == STDIN:
        return None
    file, source = existing_file(path)
    stem, extension, compression = _split_name(file)
    if compression is not None or not os.path.isfile(file):
        return None
    with open(file, "rb") as handle:
        start = handle.read(16)
    if _sniff_compression(start) is not None or start.startswith(_BOM):
        return None
    return Input(source, stem, extension, path=file)


def _strip_bom(data: bytes) -> bytes:
    return data[len(_BOM) :] if data.startswith(_BOM) else data


@contextmanager
def open_output(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file to write to, compressed according to the extension; ``-`` is stdout.

    .gz, .bz2, .xz and .zst files are compressed (.zst needs the ``zstandard`` package). Standard
    output is flushed, not closed, at the end.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt.gz"
    >>> with open_output(target) as file:
    ...     _ = file.write(b"hello\\n")
    >>> gzip.decompress(target.read_bytes())
    b'hello\\n'
    """
    if isinstance(path, str) and path == STDIN:
        stream: IO[bytes] = sys.stdout.buffer
        try:
            yield stream
        finally:
            stream.flush()
        return
    compression = COMPRESSIONS.get(os.path.splitext(path)[1].lower())
    if compression is None:
        with open(path, "wb") as plain:
            yield plain
    elif compression != "zstd":
        with _codec(compression).open(path, "wb") as compressed:
            yield cast(IO[bytes], compressed)
    else:
        compressor = _zstandard().ZstdCompressor()
        with open(path, "wb") as raw, compressor.stream_writer(raw) as zstd_file:
            yield zstd_file


class Stream(NamedTuple):
    """A file opened for reading in pieces, decompressed on the fly (see `open_stream`)."""

    file: IO[bytes]
    source: str
    stem: str
    extension: str


class _CheckedReader:
    """A decompressing reader whose codec errors become an `InputError` naming the file."""

    def __init__(self, reader: Any, compression: str, source: str) -> None:
        self._reader = reader
        self._compression = compression
        self._source = source

    def read(self, size: int = -1) -> bytes:
        try:
            data: bytes = self._reader.read(size)
        except Exception as error:  # each codec raises its own exception types
            raise InputError(
                f"cannot decompress the file as {self._compression}: {error}",
                source=self._source,
            ) from error
        return data


def _decompressing(raw: IO[bytes], compression: str, source: str, stack: ExitStack) -> IO[bytes]:
    reader: Any
    if compression == "zstd":
        reader = _zstandard().ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    else:
        reader = _codec(compression).open(raw, "rb")
    return cast(IO[bytes], _CheckedReader(stack.enter_context(reader), compression, source))


def open_stream(path: str | os.PathLike[str], stack: ExitStack) -> Stream:
    """Open a file (or ``-``) to read in pieces, decompressing it on the fly, for readers whose
    memory must not grow with the file. ``stack`` closes what was opened.

    Examples
    --------
    >>> import contextlib, gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.trec.gz"
    >>> _ = path.write_bytes(gzip.compress(b"q1 Q0 d1 1 2.5 bm25\\n"))
    >>> with contextlib.ExitStack() as stack:
    ...     stream = open_stream(path, stack)
    ...     stream.stem, stream.extension, stream.file.read(5)
    ('run', '.trec', b'q1 Q0')
    """
    if isinstance(path, str) and path == STDIN:
        raw = cast(IO[bytes], getattr(sys.stdin, "buffer", sys.stdin))
        peek = getattr(raw, "peek", None)
        compression = _sniff_compression(peek(16)[:16]) if peek is not None else None
        if compression is not None:
            raw = _decompressing(raw, compression, "<stdin>", stack)
        return Stream(raw, "<stdin>", "", "")
    file, source = existing_file(path)
    stem, extension, compression = _split_name(file)
    raw = stack.enter_context(open(file, "rb"))  # noqa: SIM115 (closed by the exit stack)
    if compression is None and os.path.isfile(file):
        compression = _sniff_compression(raw.read(16))
        raw.seek(0)
    if compression is not None:
        raw = _decompressing(raw, compression, source, stack)
    return Stream(raw, source, stem, extension)
