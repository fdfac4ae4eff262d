"""How the suite's tests are shared between pytest-xdist's workers (tests/xdist_units.py): a
file's tests in one worker, the Spark folder in one, every test that calls ranx in one (numba
compiles ranx once per process), and the longest units handed out first."""

from __future__ import annotations

from pathlib import Path

import pytest

from xdist_units import FIRST_UNITS, ONE_WORKER_FOLDERS, RANX_UNIT, unit_of

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("nodeid", "unit"),
    [
        ("tests/cli/test_evaluate_command.py::test_x[trec]", "tests/cli/test_evaluate_command.py"),
        ("tests/spark/test_read.py::test_x", "tests/spark/"),
        ("tests/spark/test_ranx_like.py::test_x", "tests/spark/"),  # the folder wins
        ("tests/fuse/test_fuse_ranx.py::test_fixed_runs_agree[0-sum]", RANX_UNIT),
        ("tests/explain/test_against.py::test_ranx_json_is_reproduced_by_trec", RANX_UNIT),
        ("tests/compat/test_peer_profiles.py::test_ranx_is_ranx_s_evaluate", RANX_UNIT),
        # the ranx profile of rankscope as a parameter is not ranx
        (
            "tests/compat/test_peer_profiles.py::test_profile[ranx]",
            "tests/compat/test_peer_profiles.py",
        ),
        ("tests/engine/test_x.py::TestRanx::test_y[a]", "tests/engine/test_x.py"),
    ],
)
def test_each_test_has_the_unit_of_its_folder_ranx_or_file(nodeid: str, unit: str) -> None:
    assert unit_of(nodeid, nodeid.split("::", 1)[0]) == unit


def test_the_units_handed_out_first_exist() -> None:
    assert set(ONE_WORKER_FOLDERS) <= set(FIRST_UNITS) and RANX_UNIT in FIRST_UNITS
    for unit in FIRST_UNITS:
        if unit != RANX_UNIT:
            assert (TESTS.parent / unit).exists(), unit
    ranx_files = sorted(path.name for path in TESTS.rglob("test_*ranx*.py"))
    assert len(ranx_files) >= 4, ranx_files  # their tests all go to ranx's unit
