"""The extras install what the code asks for: every missing-dependency message names an extra
that brings the package, and ``all`` brings every runtime extra."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
RUNTIME_EXTRAS = sorted(set(EXTRAS) - {"test", "all"})


def _requirement_name(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert name is not None, requirement
    return name.group(0).lower().replace("_", "-")


def _packages(extra: str) -> set[str]:
    """The distributions an extra installs, following ``rankscope[...]`` references."""
    found: set[str] = set()
    for requirement in EXTRAS[extra]:
        nested = re.fullmatch(r"rankscope\[([a-z0-9_,]+)\]", requirement.replace(" ", ""))
        if nested:
            for each in nested.group(1).split(","):
                found |= _packages(each)
        else:
            found.add(_requirement_name(requirement))
    return found


def _missing_dependency_calls() -> list[tuple[str, str, str]]:
    """(file, package, extra) of every ``MissingDependencyError("pkg", ..., "extra")`` and
    ``require(("pkg", ...), ..., "extra")``."""
    calls = []
    for path in sorted((ROOT / "src" / "rankscope").rglob("*.py")):
        if path.name == "errors.py":  # where both are defined (require passes its arguments on)
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or len(node.args) != 3:
                continue
            name = getattr(node.func, "id", "")
            if name not in ("MissingDependencyError", "require"):
                continue
            packages, _, extra = node.args
            assert isinstance(extra, ast.Constant), f"{path}: the extra must be a literal"
            listed = packages.elts if isinstance(packages, ast.Tuple) else [packages]
            for package in listed:
                # A package computed at run time (the service's imports) is checked by its extra.
                value = package.value if isinstance(package, ast.Constant) else ""
                calls.append((path.name, value, extra.value))
    return calls


def test_every_missing_dependency_message_names_an_extra_that_installs_the_package() -> None:
    calls = _missing_dependency_calls()
    assert len(calls) >= 8
    assert ("results.py", "pyarrow", "pandas") in calls
    for file, package, extra in calls:
        assert extra in EXTRAS, f"{file}: no extra named {extra!r}"
        if package:
            assert package.lower() in _packages(extra), f"{file}: [{extra}] lacks {package}"


def test_the_pandas_extra_brings_pyarrow_which_pandas_conversions_need() -> None:
    assert {"pandas", "pyarrow"} <= _packages("pandas")


def test_the_all_extra_brings_every_runtime_extra() -> None:
    assert RUNTIME_EXTRAS == [
        "answers",
        "cli",
        "judge",
        "pandas",
        "service",
        "spark",
        "stats",
        "zstd",
    ]
    everything = _packages("all")
    for extra in RUNTIME_EXTRAS:
        assert _packages(extra) <= everything, extra
