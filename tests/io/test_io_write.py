"""Writers: exact TREC text, round trips through every format and compression, stdout."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankscope.errors import InputError
from rankscope.io import (
    FORMATS,
    Qrels,
    Run,
    open_output,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)

EXTENSIONS = {"trec": ".trec", "jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "parquet": ".pq"}


def test_trec_run_text_ranks_within_each_query_in_table_order(tmp_path: Path) -> None:
    run = Run.from_dict({"q2": {"a": 0.5, "b": 3.0}, "q1": {"c": 1e-7}}, name="bm25")
    path = tmp_path / "run.trec"
    write_run(run, path)
    assert path.read_text() == "q2 Q0 a 1 0.5 bm25\nq2 Q0 b 2 3.0 bm25\nq1 Q0 c 1 1e-7 bm25\n"


def test_trec_qrels_text(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    write_qrels(Qrels.from_dict({"q1": {"d1": 2, "d2": -1}}), path)
    assert path.read_text() == "q1 0 d1 2\nq1 0 d2 -1\n"


def test_jsonl_and_csv_text(tmp_path: Path) -> None:
    run = Run.from_dict({"q1": {"d,1": 0.25}})
    write_run(run, tmp_path / "run.jsonl", format="jsonl")
    assert (tmp_path / "run.jsonl").read_text() == (
        '{"query_id":"q1","doc_id":"d,1","score":0.25}\n'
    )
    write_run(run, tmp_path / "run.csv", format="csv")
    assert (tmp_path / "run.csv").read_text() == 'query_id,doc_id,score\nq1,"d,1",0.25\n'


def test_scores_read_back_exactly(tmp_path: Path) -> None:
    scores = {"a": 0.1 + 0.2, "b": 5e-324, "c": -1.7976931348623157e308, "d": 123456789.123456789}
    run = Run.from_dict({"q": scores}, name="x")
    for fmt in FORMATS:
        path = tmp_path / f"run{EXTENSIONS[fmt]}"
        write_run(run, path, format=fmt)
        assert read_run(path).frame["score"].to_list() == list(scores.values()), fmt


_ID = st.text(alphabet="abcXYZ0189-_.:\u00e9\u4e2d", min_size=1, max_size=8).filter(
    lambda s: not s.startswith("#")
)


@st.composite
def _runs(draw: st.DrawFn) -> Run:
    rows = draw(
        st.lists(
            st.tuples(_ID, _ID, st.floats(allow_nan=False, allow_infinity=False)),
            min_size=1,
            max_size=15,
        )
    )
    nested: dict[str, dict[str, float]] = {}
    for query, doc, score in rows:
        nested.setdefault(query, {})[doc] = score
    return Run.from_dict(nested, name="sys-1")


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(run=_runs(), fmt=st.sampled_from(FORMATS), suffix=st.sampled_from(["", ".gz", ".bz2"]))
def test_run_round_trip(tmp_path: Path, run: Run, fmt: str, suffix: str) -> None:
    path = tmp_path / f"sys-1{EXTENSIONS[fmt]}{suffix}"
    write_run(run, path, format=fmt)
    back = read_run(path)
    assert back.frame.equals(run.frame)
    assert back.name == "sys-1"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    judgements=st.dictionaries(
        _ID, st.dictionaries(_ID, st.integers(-2, 4), min_size=1), min_size=1
    ),
    fmt=st.sampled_from(FORMATS),
    suffix=st.sampled_from(["", ".xz", ".zst"]),
)
def test_qrels_round_trip(
    tmp_path: Path, judgements: dict[str, dict[str, int]], fmt: str, suffix: str
) -> None:
    qrels = Qrels.from_dict(judgements)
    path = tmp_path / f"qrels{EXTENSIONS[fmt]}{suffix}"
    write_qrels(qrels, path, format=fmt)
    assert read_qrels(path).frame.equals(qrels.frame)


def test_trec_refuses_whitespace_in_ids_before_creating_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    with pytest.raises(InputError) as raised:
        write_run(Run.from_dict({"q 1": {"d1": 1.0}}), path)
    assert str(raised.value) == (
        f"{path}: query_id 'q 1' holds whitespace, which the TREC format cannot represent; "
        "write JSONL, CSV or Parquet instead"
    )
    assert not path.exists()


def test_trec_refuses_a_query_id_that_would_read_as_a_comment(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="query_id '#1' starts with '#', which would read back"):
        write_run(Run.from_dict({"#1": {"d1": 1.0}}), tmp_path / "run.trec")
    write_run(Run.from_dict({"q1": {"#1": 1.0}}), tmp_path / "run.trec")
    assert read_run(tmp_path / "run.trec").frame.rows() == [("q1", "#1", 1.0)]


def test_trec_refuses_a_run_name_with_whitespace(tmp_path: Path) -> None:
    run = dataclasses.replace(Run.from_dict({"q1": {"d1": 1.0}}), name="my run")
    with pytest.raises(InputError, match="the run name 'my run' is not a valid TREC run tag"):
        write_run(run, tmp_path / "run.trec")
    write_run(run, tmp_path / "run.jsonl", format="jsonl")  # other formats do not carry it
    assert read_run(tmp_path / "run.jsonl").frame.equals(run.frame)


def test_unknown_write_format(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format 'xlsx'; known formats: trec, jsonl"):
        write_qrels(Qrels.from_dict({"q": {"d": 1}}), tmp_path / "q.xlsx", format="xlsx")


def test_writers_check_the_table_type(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="write_run\\(\\) expects a Run; got dict"):
        write_run({"q": {"d": 1.0}}, tmp_path / "run")  # type: ignore[arg-type]


def test_write_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    write_qrels(Qrels.from_dict({"q1": {"d1": 1}}), "-", format="tsv")
    assert capsysbinary.readouterr().out == b"query_id\tdoc_id\trelevance\nq1\td1\t1\n"


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz", ".zst"])
def test_open_output_compresses_by_extension(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"out.txt{suffix}"
    with open_output(path) as file:
        file.write(b"q1 Q0 d1 1 2.5 tag\n")
    raw = path.read_bytes()
    assert (raw == b"q1 Q0 d1 1 2.5 tag\n") == (suffix == "")
    assert read_run(path).frame.rows() == [("q1", "d1", 2.5)]


def test_open_output_gzip_is_standard(tmp_path: Path) -> None:
    path = tmp_path / "out.gz"
    with open_output(path) as file:
        file.write(b"hello\n")
    assert gzip.decompress(path.read_bytes()) == b"hello\n"
