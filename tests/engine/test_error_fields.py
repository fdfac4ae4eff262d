"""The core's errors carry structured fields, exposed as attributes of the exceptions."""

from __future__ import annotations

from typing import Any

import pytest

import rankscope
from rankscope.engine import PROFILES

QRELS = {"q1": {"d1": 1, "d2": 0}}
RUN = {"q1": {"d1": 0.5, "d2": 0.4}}


def raised(call: Any) -> rankscope.RankscopeError:
    with pytest.raises(rankscope.RankscopeError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    ("name", "measure", "part"),
    [
        ("nDGC@10", "nDGC@10", "nDGC"),
        ("P@0", "P@0", "0"),
        ("nDCG(gain=log)@10", "nDCG(gain=log)@10", "gain=log"),
        ("nDCG(rel=2)@10", "nDCG(rel=2)@10", "rel"),
        ("Success", "Success", None),
    ],
)
def test_measure_errors_name_the_measure_and_the_part(
    name: str, measure: str, part: str | None
) -> None:
    error = raised(lambda: rankscope.measure(name))
    assert isinstance(error, rankscope.MeasureError)
    assert (error.measure, error.part) == (measure, part)


def test_an_unknown_measure_suggests_close_names() -> None:
    error = raised(lambda: rankscope.evaluate(QRELS, RUN, ["AP", "nDGC@10"]))
    assert isinstance(error, rankscope.UnknownMeasureError)
    assert error.suggestions == ["nDCG", "RnDCG", "nDCGRel"]
    assert error.errors() == {
        "measure": "nDGC@10",
        "part": "nDGC",
        "suggestions": ["nDCG", "RnDCG", "nDCGRel"],
    }


@pytest.mark.parametrize(
    ("options", "option", "value", "allowed"),
    [
        ({"max_documents": -1}, "max_documents", "-1", ()),
        ({"relevance_level": 1.5}, "relevance_level", "1.5", ()),
        ({"max_documents": True}, "max_documents", "True", ()),
        ({"chunk_bytes": "big"}, "chunk_bytes", "'big'", ()),
        ({"complete": "no"}, "complete", "'no'", ("True", "False")),
        ({"lenient": 1}, "lenient", "1", ("True", "False")),
    ],
)
def test_option_errors_name_the_option_and_the_value(
    options: dict[str, Any], option: str, value: str, allowed: tuple[str, ...]
) -> None:
    error = raised(lambda: rankscope.evaluate(QRELS, RUN, "AP", **options))
    assert isinstance(error, rankscope.OptionError)
    assert (error.option, error.value, error.allowed) == (option, value, allowed)


def test_profile_errors_name_the_profile_the_convention_and_the_values_allowed() -> None:
    error = raised(lambda: rankscope.evaluate(QRELS, RUN, "AP", profile="trac"))
    assert isinstance(error, rankscope.ProfileError)
    assert (error.convention, error.value, error.allowed) == (
        None,
        "'trac'",
        ("trec", "trec9", "weknora", "ir_measures", "ranx", "beir", "sklearn", "torchmetrics"),
    )
    error = raised(lambda: rankscope.evaluate(QRELS, RUN, "AP", duplicate_documents="merge"))
    assert isinstance(error, rankscope.ProfileError)
    assert (error.convention, error.allowed) == (
        "duplicate_documents",
        ("error", "keep_first", "keep_all"),
    )
    error = raised(lambda: PROFILES["trec"].with_options(gain="bogus"))
    assert isinstance(error, rankscope.ProfileError)
    assert (error.convention, error.value, error.allowed) == ("gain", "'bogus'", ("linear", "exp"))


def test_a_measure_the_profile_does_not_define_names_what_it_defines() -> None:
    error = raised(lambda: rankscope.evaluate(QRELS, RUN, "Bpref", profile="weknora"))
    assert isinstance(error, rankscope.ProfileError)
    assert (error.profile, error.value) == ("weknora", "Bpref")
    assert {"nDCG", "P", "R", "RR", "AP"} <= set(error.allowed)


def test_a_document_ranked_twice_names_the_query_and_the_document() -> None:
    run = {"q1": ["d1", "d2", "d1"]}
    error = raised(lambda: rankscope.evaluate(QRELS, run, "AP", profile="trec"))
    assert isinstance(error, rankscope.DuplicateDocumentError)
    assert (error.query, error.document) == ("q1", "d1")
    assert error.errors()["query"] == "q1"


def test_input_errors_keep_source_line_and_text(tmp_path: Any) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 x t\n")
    error = raised(lambda: rankscope.evaluate(QRELS, str(path), "AP"))
    assert isinstance(error, rankscope.ParseError)
    assert (error.source, error.line, error.text) == (str(path), 2, "q1 Q0 d2 2 x t")
