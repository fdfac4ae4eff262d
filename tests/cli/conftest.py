"""The `door` fixture: a test that requests it runs once through each of the command line's
doors (see doors.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from doors import CURRENT, DOORS, NATIVE


@pytest.fixture(params=DOORS)
def door(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "native" and NATIVE is None:
        pytest.skip(
            "no native rankscope executable: scripts/bootstrap builds it (cargo build --release "
            "-p rankscope-cli), or set RANKSCOPE_NATIVE"
        )
    token = CURRENT.set(request.param)
    yield request.param
    CURRENT.reset(token)
