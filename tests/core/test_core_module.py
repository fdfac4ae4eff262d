"""The compiled core is importable as the private module rankscope._core."""

from rankscope import _core


def test_core_interns_ids() -> None:
    assert _core.count_distinct(["q2", "q1", "q2"]) == 2
    assert _core.count_distinct([]) == 0
