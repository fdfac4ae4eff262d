"""TREC files: trec_eval's conformance files, whitespace and comment rules, read by the core."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankscope import _core
from rankscope.errors import EmptyInputError, InputError, ParseError, RankscopeWarning
from rankscope.io import read_qrels, read_run, read_run_batches
from rankscope.io._files import Input, open_input
from rankscope.io._native import trec_qrels_table, trec_run_table

# -- trec_eval's conformance files ---------------------------------------------------------------


def test_conformance_qrels(conformance_dir: Path) -> None:
    qrels = read_qrels(conformance_dir / "qrels.test")
    assert len(qrels) == 3681
    assert qrels.query_ids == ["301", "302", "303"]
    assert qrels.frame.row(0) == ("301", "CR93E-10279", 0)
    assert qrels.frame["relevance"].value_counts(sort=True).rows() == [(0, 3120), (1, 561)]


def test_conformance_graded_qrels(conformance_dir: Path) -> None:
    qrels = read_qrels(conformance_dir / "qrels.rel_level")
    assert len(qrels) == 3681
    counts = qrels.frame["relevance"].value_counts().sort("relevance").rows()
    assert counts == [(-1, 304), (0, 2818), (1, 462), (2, 14), (3, 77), (4, 6)]


def test_conformance_run(conformance_dir: Path) -> None:
    run = read_run(conformance_dir / "results.test")
    assert len(run) == 1500
    assert run.name == "STANDARD"
    assert run.query_ids == ["301", "302", "303"]
    # "301\tQ0\tFR940202-2-00150\t104\t  2.129133\tSTANDARD": tab-separated, padded score.
    assert run.frame.row(0) == ("301", "FR940202-2-00150", 2.129133)


def test_conformance_truncated_run_with_trailing_fields(conformance_dir: Path) -> None:
    run = read_run(conformance_dir / "results.trunc")
    assert len(run) == 584
    assert run.name == "STANDARD"
    assert run.query_ids == ["301", "303"]
    # "301\tQ0\tFBIS3-27619\t99\t  2.138276\tSTANDARD more junk at": the junk is ignored.
    assert run.frame.row(0) == ("301", "FBIS3-27619", 2.138276)


@pytest.mark.parametrize("name", ["results.test", "results.trunc"])
def test_conformance_run_matches_a_python_split(conformance_dir: Path, name: str) -> None:
    lines = (conformance_dir / name).read_text().splitlines()
    expected = [(f[0], f[2], float(f[4])) for f in (line.split() for line in lines)]
    assert read_run(conformance_dir / name).frame.rows() == expected


# -- whitespace, comments, blank lines, line endings ---------------------------------------------


def _run_file(tmp_path: Path, content: bytes, name: str = "run.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\n", id="spaces"),
        pytest.param(b"q1\tQ0\td1\t1\t2.5\ttag\nq1\tQ0\td2\t2\t1\ttag\n", id="tabs"),
        pytest.param(b"q1  Q0\t d1 1 2.5   tag\n  q1 Q0 d2 2 1.0 tag  \n", id="mixed"),
        pytest.param(b"q1 Q0 d1 1 2.5 tag\r\nq1 Q0 d2 2 1 tag\r\n", id="crlf"),
        pytest.param(
            b"\xef\xbb\xbfq1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag", id="bom-no-final-newline"
        ),
        pytest.param(
            b"# a comment\n\nq1 Q0 d1 1 2.5 tag\n   # indented comment\n\t\nq1 Q0 d2 2 1 tag\n",
            id="comments-and-blank-lines",
        ),
        pytest.param(b"q1 Q0 d1 1 2.5 tag x y\nq1 Q0 d2 2 1 tag\tz\n", id="trailing-fields"),
        pytest.param(b"q1 Q0 d1 1 2.5 tag\x0b\nq1\x0cQ0 d2 2 1 tag\n", id="vt-ff"),
    ],
)
def test_whitespace_variants_read_the_same(tmp_path: Path, content: bytes) -> None:
    run = read_run(_run_file(tmp_path, content))
    assert run.name == "tag"
    assert run.frame.rows() == [("q1", "d1", 2.5), ("q1", "d2", 1.0)]


def test_ids_keep_leading_zeros_and_unicode(tmp_path: Path) -> None:
    content = "007 Q0 d\u00e9j\u00e0-vu 1 3 run\n007 Q0 \u00a0x 2 2e-3 run\n".encode()
    run = read_run(_run_file(tmp_path, content))
    # U+00A0 is not whitespace for TREC files (trec_eval's isspace() is ASCII).
    assert run.frame.rows() == [("007", "d\u00e9j\u00e0-vu", 3.0), ("007", "\u00a0x", 0.002)]


def test_name_argument_overrides_the_tag(tmp_path: Path) -> None:
    path = _run_file(tmp_path, b"q1 Q0 d1 1 2.5 tag\n")
    assert read_run(path, name="mine").name == "mine"


@pytest.mark.parametrize(
    ("content", "name"),
    [
        pytest.param(b"q1 Q0 d1 1 2.5 first\nq2 Q0 d2 1 1 last\n# end\n\n", "last", id="fast"),
        pytest.param(b"q1 Q0 d1 1 2.5 first\nq2 Q0 d2 1  1 last\n", "last", id="general"),
        pytest.param(b"q1 Q0 d1 1 2.5 first\nq2 Q0 d2 1 1 last x\r\n", "last", id="trailing"),
        pytest.param(
            b"".join(b"q%d Q0 d 1 1 t%d\n" % (i, i) for i in range(5000)) + b"#" * 70_000,
            "t4999",
            id="long-tail-comment",
        ),
        pytest.param(
            b"q1 Q0 d1 1 2.5 first\n" + b"q1 Q0 d2 1 1 " + b"x" * 70_000 + b"\n",
            "x" * 70_000,
            id="last-line-longer-than-the-tail",
        ),
    ],
)
def test_a_run_is_named_by_its_last_line_as_trec_eval_and_the_core_name_it(
    tmp_path: Path, content: bytes, name: str
) -> None:
    path = _run_file(tmp_path, content)
    assert read_run(path).name == name
    assert trec_run_table(Input("<bytes>", "", "", data=content), lenient=False)[1] == name
    assert _core.read_trec_run(str(path), path=str(path))[0].name == name
    assert {chunk.name for chunk in read_run_batches(path, chunk_bytes=64)} == {name}


def test_a_lenient_run_is_named_by_its_last_valid_line(tmp_path: Path) -> None:
    content = b"q1 Q0 d1 1 2.5 good\nq1 Q0 d2 2 nan bad\n# q1 Q0 d3 3 1.5 comment\nq1 Q0 d4\n"
    path = _run_file(tmp_path, content)
    with pytest.warns(RankscopeWarning):
        assert read_run(path, lenient=True).name == "good"
    with pytest.warns(RankscopeWarning):
        assert [chunk.name for chunk in read_run_batches(path, lenient=True)] == ["good"]
    assert _core.read_trec_run(str(path), path=str(path), lenient=True)[0].name == "good"


def test_qrels_accept_whole_float_grades_and_signs(tmp_path: Path) -> None:
    path = _run_file(tmp_path, b"q1 0 d1 2.0\nq1 0 d2 -1\nq1 0 d3 +3\nq1 0 d4 01\n", "qrels")
    assert read_qrels(path).frame["relevance"].to_list() == [2, -1, 3, 1]


def test_qrels_trailing_whitespace_is_not_a_field(tmp_path: Path) -> None:
    path = _run_file(tmp_path, b"q1 0 d1 1 \nq1\t0\td2\t0\t\n", "qrels")
    assert read_qrels(path).frame.rows() == [("q1", "d1", 1), ("q1", "d2", 0)]


def test_empty_field_between_tabs_is_a_missing_field(tmp_path: Path) -> None:
    # Runs of whitespace separate one field: "q1\t\td1..." has 5 fields, not 6 with an empty one.
    path = _run_file(tmp_path, b"q1\tQ0\td1\t1\t2.5\ttag\nq1\t\td2\t2\t1.0\ttag\n")
    with pytest.raises(ParseError, match=r":2: expected at least 6 .*; found 5"):
        read_run(path)


def test_padded_and_clean_files_read_the_same(tmp_path: Path) -> None:
    clean = read_run(_run_file(tmp_path, b"q1\tQ0\td1\t1\t2.5\ttag\n", "a"))
    padded = read_run(_run_file(tmp_path, b"q1\tQ0\td1\t1\t  2.5\ttag\n", "b"))
    assert clean.frame.equals(padded.frame)
    assert clean.frame.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
    )


@pytest.mark.parametrize(
    ("content", "rows"),
    [
        # trec_eval reads past the rank: one that is no integer is no problem
        (b"q1 Q0 d1 1.0 2.5 t\nq1 Q0 d2 - 1 t\n", [("q1", "d1", 2.5), ("q1", "d2", 1.0)]),
        (b"# a comment\nq1 Q0 d1 1 2.5 t\n#\n", [("q1", "d1", 2.5)]),
        # a '#' inside an id is no comment
        (b"q#1 Q0 d#1 1 2.5 t\nq1 Q0 #d 2 1 t\n", [("q#1", "d#1", 2.5), ("q1", "#d", 1.0)]),
    ],
)
def test_odd_ranks_comments_and_hashes(
    tmp_path: Path, content: bytes, rows: list[tuple[str, str, float]]
) -> None:
    assert read_run(_run_file(tmp_path, content)).frame.rows() == rows


def test_ids_of_every_length_read_back(tmp_path: Path) -> None:
    # Ids of up to 12 bytes are held inline in the Arrow views handed to polars, longer ones
    # point into the core's buffer; the last line's ids end the buffer.
    ids = ["d" * n for n in range(1, 40)] + ["\u00e9" * n for n in range(1, 12)]
    lines = [f"{'q' * (i % 15 + 1)} Q0 {doc} {i} {i} t" for i, doc in enumerate(ids)]
    path = _run_file(tmp_path, "\n".join(lines).encode())
    expected = [(f[0], f[2], float(f[4])) for f in (line.split() for line in lines)]
    assert read_run(path).frame.rows() == expected
    assert [row for chunk in read_run_batches(path, 64) for row in chunk.frame.rows()] == expected
    qrels = _run_file(
        tmp_path,
        "".join(
            f"{q} {i % 3} {d} 1\n"
            for q, i, d in ((f[0], int(f[3]), f[2]) for f in (line.split() for line in lines))
        ).encode(),
        "qrels",
    )
    assert read_qrels(qrels).frame.select("query_id", "doc_id").rows() == [
        (q, d) for q, d, _ in expected
    ]


def test_byte_scan_sees_every_block_of_a_file(tmp_path: Path) -> None:
    # The scan reads 4 MiB blocks: bytes at the start, across and after a block boundary, and
    # in the short last block are all found.
    block = 1 << 22
    content = bytearray(b"x" * (2 * block + 100))
    content[5], content[block - 1], content[block], content[2 * block + 50] = b"\r\x0b\x0c\x00"
    path = _run_file(tmp_path, bytes(content))
    assert open_input(path).present((b"\r", b"\x0b", b"\x0c", b"\x00", b"#")) == {
        b"\r",
        b"\x0b",
        b"\x0c",
        b"\x00",
    }
    assert open_input(path).present((b"#",)) == frozenset()
    with pytest.raises(ValueError, match="single bytes"):
        open_input(path).present((b"ab",))


def test_error_line_numbers_count_comments_and_blank_lines_on_the_fast_path(
    tmp_path: Path,
) -> None:
    content = b"# c\n\nq1\tQ0\td1\t1\t2.5\ttag\n#\nq1\tQ0\td2\t2\tx\ttag\n"
    with pytest.raises(ParseError) as raised:
        read_run(_run_file(tmp_path, content))
    assert raised.value.line == 5
    assert raised.value.text == "q1\tQ0\td2\t2\tx\ttag"


def test_errors_in_later_chunks_name_the_line_of_the_whole_file(tmp_path: Path) -> None:
    content = b"".join(b"q%d Q0 d 1 1 t\n" % i for i in range(100)) + b"q100 Q0 d 1 x t\n"
    path = _run_file(tmp_path, content)
    with pytest.raises(ParseError) as raised:
        list(read_run_batches(path, chunk_bytes=64))
    assert str(raised.value).startswith(f"{path}:101: score must be a finite number")
    assert (raised.value.line, raised.value.text) == (101, "q100 Q0 d 1 x t")


@pytest.mark.parametrize(
    ("content", "error", "line", "text"),
    [
        (b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 x t\n", ParseError, 2, "q1 Q0 d2 2 x t"),
        (b"# only a comment\n", EmptyInputError, None, None),
        (None, InputError, None, None),  # no such file
    ],
    ids=["parse", "empty-input", "input"],
)
def test_the_core_s_errors_are_rankscope_errors_with_their_fields(
    tmp_path: Path, content: bytes | None, error: type[Exception], line: int | None, text: str
) -> None:
    path = tmp_path / "run.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error) as raised:  # the core's reading, whose errors the bindings map
        trec_run_table(Input(str(path), "run", ".txt", path=str(path)), lenient=False)
    assert type(raised.value) is error
    assert isinstance(raised.value, InputError)
    assert (raised.value.source, raised.value.line, raised.value.text) == (str(path), line, text)


# -- the core's reading agrees with a plain Python reading -------------------------------------

_ID = st.text(alphabet="abcXYZ019-_.:#\u00e9", min_size=1, max_size=6).filter(
    lambda s: not s.startswith("#")
)
_SEPARATOR = st.sampled_from([" ", "\t", "  ", " \t", "\t\t "])
_SCORE = st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr) | st.integers(
    -(10**6), 10**6
).map(str)
_FILLER = st.sampled_from(["", "# comment", "   ", "\t# x"])


@st.composite
def _run_text(draw: st.DrawFn, uniform: bool) -> tuple[str, list[tuple[str, str, float]]]:
    separator = draw(st.sampled_from([" ", "\t"])) if uniform else None
    lines: list[str] = []
    expected: list[tuple[str, str, float]] = []
    for _ in range(draw(st.integers(1, 12))):
        if not uniform and draw(st.booleans()):
            lines.append(draw(_FILLER))
        query, doc, score = draw(_ID), draw(_ID), draw(_SCORE)
        fields = [query, "Q0", doc, str(draw(st.integers(0, 999))), score, "tag"]
        if not uniform and draw(st.booleans()):
            fields.append("extra")
        seps = [separator or draw(_SEPARATOR) for _ in fields[1:]]
        line = fields[0] + "".join(sep + field for sep, field in zip(seps, fields[1:], strict=True))
        lines.append(line)
        expected.append((query, doc, float(score)))
    return "\n".join(lines) + "\n", expected


def _reference(text: str) -> list[tuple[str, str, float]]:
    rows = []
    for line in text.split("\n"):
        fields = re.split(r"[ \t\r\x0b\x0c]+", line.strip(" \t\r\x0b\x0c"))
        if fields[0] and not fields[0].startswith("#"):
            rows.append((fields[0], fields[2], float(fields[4])))
    return rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.booleans().flatmap(_run_text))
def test_runs_read_as_python_splits_them(
    case: tuple[str, list[tuple[str, str, float]]],
) -> None:
    text, expected = case
    table, tag, _ = trec_run_table(Input("<test>", "", "", data=text.encode()), lenient=False)
    assert pl.DataFrame(table).rows() == expected
    assert _reference(text) == expected
    assert tag == "tag"


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.tuples(_ID, _ID, st.integers(-5, 5)), min_size=1, max_size=10),
    separator=st.sampled_from([" ", "\t"]),
)
def test_qrels_read_as_written(rows: list[tuple[str, str, int]], separator: str) -> None:
    text = "".join(separator.join([q, "0", d, str(g)]) + "\n" for q, d, g in rows)
    table, _ = trec_qrels_table(Input("<test>", "", "", data=text.encode()), lenient=False)
    frame = pl.DataFrame(table)
    assert frame.rows() == rows
    assert frame.schema == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}
    )
