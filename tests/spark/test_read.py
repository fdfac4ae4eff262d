"""Spark's TREC reader: files cut into byte ranges, each read by the core on an executor."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rankscope.errors import InputError, ParseError
from rankscope.io import read_qrels, read_run
from rankscope.spark._read import _ranges, _run_name, read_range
from rankscope.spark._read import read_run as spark_read_run

LINES = [f"q{i // 7} Q0 d{i} {i} {i / 3} t{i}\n" for i in range(300)]


def _rows_by_ranges(path: Path, kind: Any, range_bytes: int) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for file, start, end in _ranges([str(path)], range_bytes):
        rows.extend(pl.DataFrame(read_range(file, start, end, kind)).rows())
    return rows


@pytest.mark.parametrize("range_bytes", [1, 7, 23, 24, 25, 100, 1 << 20])
def test_ranges_read_every_line_once_in_file_order(tmp_path: Path, range_bytes: int) -> None:
    # Ranges of every size: cut inside lines, just before and just after a newline.
    path = tmp_path / "run.txt"
    path.write_text("# a comment\n" + "".join(LINES[:100]) + "\n" + "".join(LINES[100:]))
    assert _rows_by_ranges(path, "run", range_bytes) == read_run(path).frame.rows()
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(
        b"\xef\xbb\xbf" + b"".join(b"q%d 0 d%d %d\n" % (i, i, i % 3) for i in range(99))
    )
    assert _rows_by_ranges(qrels, "qrels", range_bytes) == read_qrels(qrels).frame.rows()


@pytest.mark.parametrize("range_bytes", [1, 50, 1000, 1 << 20])
def test_an_error_in_any_range_names_the_line_of_the_whole_file(
    tmp_path: Path, range_bytes: int
) -> None:
    path = tmp_path / "run.txt"
    lines = [*LINES]
    lines[211] = "q30 Q0 dx 1 nope t\n"
    path.write_text("".join(lines))
    with pytest.raises(ParseError) as raised:
        _rows_by_ranges(path, "run", range_bytes)
    assert (raised.value.source, raised.value.line) == (str(path), 212)
    assert str(raised.value) == (
        f"{path}:212: score must be a finite number; found 'nope'\n    q30 Q0 dx 1 nope t"
    )


def test_a_compressed_file_is_one_range_read_whole(tmp_path: Path) -> None:
    plain = tmp_path / "run.txt"
    plain.write_text("".join(LINES))
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    sniffed = tmp_path / "run.trec"  # gzip without its extension
    sniffed.write_bytes(packed.read_bytes())
    for path in (packed, sniffed):
        assert _ranges([str(path)], 100) == [(str(path), 0, -1)]
        assert _rows_by_ranges(path, "run", 100) == read_run(plain).frame.rows()
        assert _run_name(str(path)) == "t299"  # the file is smaller than the head read
    broken = tmp_path / "broken.gz"
    broken.write_bytes(packed.read_bytes()[:-30])  # cut short
    with pytest.raises(InputError, match=f"^{broken}: cannot decompress the file as gzip"):
        _rows_by_ranges(broken, "run", 100)


@pytest.mark.slow  # a local Spark cluster: left out by `scripts/test --quick`
def test_the_run_is_named_by_the_last_line_of_its_last_file(spark: Any, tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.run").write_text("".join(LINES[:150]))
    (parts / "b.run").write_text("".join(LINES[150:]) + "# the end\n")
    (parts / "_SUCCESS").write_text("")
    frame, name = spark_read_run(spark, str(parts))
    assert name == "t299"
    rows = [tuple(row) for row in frame.collect()]
    assert rows == [(f[0], f[2], float(f[4])) for f in (line.split() for line in LINES)]
