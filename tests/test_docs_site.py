"""The documentation site (built by ``scripts/docs``, a step of ``scripts/test`` before pytest)
documents every public name: each name of ``rankscope.__all__`` and of every public
subpackage's ``__all__`` is an object of the API reference, as mkdocstrings' inventory
(``build/site/objects.inv``) lists them, and the generated pages are there."""

from __future__ import annotations

import ast
import importlib
import json
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "build" / "site"
PACKAGE = ROOT / "src" / "rankscope"


def _all_of(path: Path) -> list[str] | None:
    """A module's ``__all__``, read from its source (no import), or None without one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return [str(name) for name in value]
    return None


def public_names() -> dict[str, list[str]]:
    """Every package of rankscope without a private part in its name that has an ``__all__``,
    with it (``rankscope`` itself among them)."""
    found = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        parts = init.parent.relative_to(PACKAGE.parent).parts
        names = _all_of(init)
        if names is not None and not any(part.startswith("_") for part in parts):
            found[".".join(parts)] = names
    return found


@pytest.fixture(scope="module")
def inventory() -> set[str]:
    """The names of mkdocstrings' inventory: Sphinx's format, version 2 (four header lines,
    then zlib-compressed lines ``name domain:role priority uri display``). Read here rather
    than with mkdocstrings, which the environments testing a wheel do not install."""
    path = SITE / "objects.inv"
    if not path.exists():
        pytest.fail(f"{path} is missing: build the site first (scripts/docs)")
    header, _, _, _, body = path.read_bytes().split(b"\n", 4)
    assert header == b"# Sphinx inventory version 2", header
    lines = zlib.decompress(body).decode("utf-8").splitlines()
    return {line.split(" ", 1)[0] for line in lines if line.split(" ", 2)[1].startswith("py:")}


def test_the_public_packages_are_found() -> None:
    packages = public_names()
    assert {"rankscope", "rankscope.io", "rankscope.engine", "rankscope.service"} <= set(packages)
    assert "__version__" in packages["rankscope"] and "evaluate" in packages["rankscope"]
    # What the test reads from the sources is what the packages export.
    for package, names in packages.items():
        assert names == list(importlib.import_module(package).__all__), package


@pytest.mark.parametrize("package", sorted(public_names()))
def test_every_public_name_is_in_the_api_reference(package: str, inventory: set[str]) -> None:
    missing = [name for name in public_names()[package] if f"{package}.{name}" not in inventory]
    assert not missing, f"not in the API reference: {', '.join(missing)}"


def test_the_generated_pages_are_built() -> None:
    measures = (SITE / "measures.html").read_text(encoding="utf-8")
    from rankscope.engine.measures import FAMILIES

    assert all(f"<code>{name}" in measures for name in FAMILIES), "a measure is missing"
    cli = (SITE / "cli.html").read_text(encoding="utf-8")
    from rankscope.cli import COMMANDS

    assert all(f"rankscope {command}" in cli for command in COMMANDS)
    schema = json.loads((SITE / "openapi.json").read_text(encoding="utf-8"))
    assert "/api/v1/evaluations" in schema["paths"]
    http = (SITE / "http-api.html").read_text(encoding="utf-8")
    for path, operations in schema["paths"].items():
        for method in operations:
            assert f"{method.upper()} {path}" in http, (method, path)
    assert all(f'id="{name.lower()}"' in http for name in schema["components"]["schemas"])
    profiles = (SITE / "profiles.html").read_text(encoding="utf-8")
    assert "score_precision" in profiles and "weknora" in profiles
