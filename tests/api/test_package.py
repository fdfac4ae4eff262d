"""What `import rankscope` gives: every subpackage reachable as an attribute, loaded on first
use, `dir()` listing the public API, and neither numpy nor polars loaded by the import."""

from __future__ import annotations

import json
import subprocess
import sys
from types import ModuleType

import pytest

import rankscope

SUBPACKAGES = ("answers", "compare", "compat", "engine", "fuse", "io", "judge", "metric", "spark")


def _in_a_fresh_process(code: str) -> object:
    """What ``code`` prints as JSON on its last line, run in a new interpreter."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_import_loads_no_subpackage_and_neither_numpy_nor_polars() -> None:
    loaded = _in_a_fresh_process(
        "import json, sys\n"
        "import rankscope\n"
        f"names = {[*(f'rankscope.{name}' for name in SUBPACKAGES), 'numpy', 'polars']!r}\n"
        "print(json.dumps([name for name in names if name in sys.modules]))\n"
    )
    assert loaded == []


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_each_subpackage_is_an_attribute_after_import_rankscope(name: str) -> None:
    # A fresh process, so that no earlier test imported the subpackage already.
    found = _in_a_fresh_process(
        "import json, rankscope\n"
        f"module = getattr(rankscope, {name!r})\n"
        "print(json.dumps([type(module).__name__, module.__name__]))\n"
    )
    assert found[1] == f"rankscope.{name}" and found[0] in ("module", "_CallablePackage")


def test_the_readme_spelling_works() -> None:
    run = rankscope.io.read_run("examples/data/bm25.run")
    assert isinstance(rankscope.io, ModuleType) and run.name == "bm25"
    assert rankscope.compare.paired_t_test is not None
    assert rankscope.metric.NDCGMetric(10).k == 10


def test_fuse_is_the_package_and_its_function() -> None:
    assert isinstance(rankscope.fuse, ModuleType) and "rrf" in rankscope.fuse.METHODS
    fused = rankscope.fuse([{"q": {"a": 1.0}}, {"q": {"b": 2.0}}], "sum", norm=None)
    assert fused.frame.rows() == [("q", "b", 2.0), ("q", "a", 1.0)]


def test_dir_lists_the_public_api_and_the_subpackages() -> None:
    names = dir(rankscope)
    assert set(rankscope.__all__) <= set(names)
    assert set(SUBPACKAGES) <= set(names)
    assert "evaluate" in names and "Results" in names and "lazy_attributes" not in names
    assert names == sorted(names)


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'rankscope' has no attribute 'nope'"):
        rankscope.nope  # noqa: B018
    assert not hasattr(rankscope, "evaluat")
