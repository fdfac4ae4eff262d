"""The layers drawn in DESIGN.md: only the engine and `rankscope.io._native` import the private
compiled core; every error class is exported once, in `rankscope.errors`'s tree."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import rankscope
import rankscope.errors

SOURCE = Path(rankscope.__file__).parent
ALLOWED = ("engine/", "io/_native.py")


def _imports_core(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that import ``rankscope._core`` (in any form)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        if any(name == "rankscope._core" or name.startswith("rankscope._core.") for name in names):
            lines.append(node.lineno)
    return lines


def test_only_the_engine_and_the_native_reader_import_the_core() -> None:
    offenders = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative.startswith(ALLOWED):
            continue
        offenders += [f"{relative}:{line}" for line in _imports_core(ast.parse(path.read_text()))]
    assert offenders == []


def test_the_rule_sees_every_form_of_import() -> None:
    forms = [
        "import rankscope._core",
        "from rankscope import _core",
        "from rankscope._core import X",
    ]
    assert [_imports_core(ast.parse(form)) for form in forms] == [[1], [1], [1]]
    assert _imports_core(ast.parse("from rankscope import engine")) == []


def _error_classes() -> set[type[BaseException]]:
    """Every exception and warning class rankscope defines, in any module."""
    import rankscope.service  # its errors are in the tree too

    found: set[type[BaseException]] = set()
    pending: list[type[BaseException]] = [rankscope.errors.RankscopeError, Warning]
    while pending:
        for child in pending.pop().__subclasses__():
            if child.__module__.startswith("rankscope"):
                found.add(child)
            pending.append(child)
    return found | {rankscope.errors.RankscopeError}


def test_every_error_class_is_exported_and_drawn_in_the_tree() -> None:
    tree = inspect.getdoc(rankscope.errors) or ""
    for cls in _error_classes():
        module = __import__(cls.__module__, fromlist=["__all__"])
        assert cls.__name__ in module.__all__, cls
        assert f" {cls.__name__} " in f" {tree} ".replace("\n", " "), cls
        for base in cls.__bases__:
            if base.__module__.startswith("rankscope"):
                assert base in _error_classes()
