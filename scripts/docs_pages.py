"""The documentation site's generated pages: a MkDocs hook (``mkdocs.yml``'s ``hooks``).

Written at build time from the sources, never committed, so that they cannot drift:

- ``measures.md`` from the registry (`rankscope.engine.measures.FAMILIES`, as ``rankscope
  measures`` lists it);
- ``profiles.md`` from the core's profiles and conventions (`rankscope.engine.profiles`);
- ``cli.md`` from the command line's argparse parsers (`rankscope.cli.build_parser`);
- ``http-api.md`` and ``openapi.json`` from the OpenAPI schema of the service's FastAPI app;
- ``api/*.md``, one page per public package (and per public module of ``rankscope.compat``),
  each rendering its ``__all__`` with mkdocstrings, and the API reference's place in the nav.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "rankscope"

# Public modules that are not packages: the error tree and the peers' APIs of rankscope.compat
# (a package without an __all__ of its own: its modules are what one imports).
MODULES = ["rankscope.errors", "rankscope.compat.pytrec_eval", "rankscope.compat.ir_measures"]


def public_packages() -> list[str]:
    """Every package of rankscope with an ``__all__`` and no private part in its name, in
    order (``rankscope`` first), then `MODULES`."""
    found = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        parts = init.parent.relative_to(PACKAGE.parent).parts
        if any(part.startswith("_") for part in parts):
            continue
        if _has_all(init):
            found.append(".".join(parts))
    return found + MODULES


def _has_all(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)
        for node in tree.body
    )


def _page(name: str) -> str:
    return f"api/{name}.md"


# --- the pages ------------------------------------------------------------------------------


def measures_page() -> str:
    from rankscope.engine.measures import FAMILIES, default_measures
    from rankscope.engine.profiles import PROFILES

    lines = [
        "# Measures",
        "",
        "Every measure family of the registry, as `rankscope measures` lists it: the syntax (a",
        "value in brackets is a parameter's default, which names leave out), the aliases",
        "(trec_eval's names among them), the definition, the formula and where it is defined.",
        "Any measure name is read by `rankscope.measure(name)`; `rankscope.evaluate` and every",
        "command's `-m` take the same names. This page is generated from the registry when the",
        "site is built.",
        "",
        "## Default measures",
        "",
        "Without `-m` (or `measures=`), a profile's defaults are computed:",
        "",
        "| profile | default measures |",
        "|---|---|",
    ]
    for profile in PROFILES:
        lines.append(f"| `{profile}` | {', '.join(f'`{m}`' for m in default_measures(profile))} |")
    lines += ["", "## Every measure", ""]
    for family in FAMILIES.values():
        lines += [
            f"### `{family.syntax}`",
            "",
            f"{_escape(family.summary)}{_escape(family.scope)}",
            "",
            f"- aliases: {', '.join(f'`{a}`' for a in family.aliases) or 'none'}",
            f"- formula: {_escape(family.formula)}",
            f"- source: {_escape(family.citation)}",
        ]
        if family.ranx is not None:
            lines.append(f"- ranx's name: `{family.ranx.name}`: {_escape(family.ranx.note)}")
        lines.append("")
    return "\n".join(lines)


def profiles_page() -> str:
    from rankscope.engine.profiles import CONVENTIONS, PROFILES

    names = list(PROFILES)
    lines = [
        "# Profiles and conventions",
        "",
        "Every convention that evaluation tools disagree on is a named field of",
        "`rankscope.Conventions`; a profile is one value of it. `trec` (the default) reproduces",
        "trec_eval 10, `trec9` trec_eval 9 (and so pytrec_eval and published BEIR numbers),",
        "`weknora` WeKnora's metric package; `ir_measures`, `ranx`, `beir`, `sklearn` and",
        "`torchmetrics` the peers of those names, each checked against that tool. Choose one",
        "with `profile=` (or `--profile`); change one convention with",
        "`PROFILES['trec'].with_options(...)` or the options of `evaluate`.",
        "This page is generated from the core's table when the site is built.",
        "",
        "## The profiles",
        "",
        "| convention | " + " | ".join(f"`{name}`" for name in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for field, _, _ in CONVENTIONS:
        values = [f"`{getattr(PROFILES[name], field)}`" for name in names]
        lines.append(f"| `{field}` | " + " | ".join(values) + " |")
    lines += ["", "## The conventions", ""]
    for field, summary, values in CONVENTIONS:
        lines += [f"### `{field}`", "", _escape(summary), ""]
        lines += [f"- `{value}`: {_escape(meaning)}" for value, meaning in values]
        lines.append("")
    return "\n".join(lines)


def cli_page() -> str:
    from rankscope.cli import COMMANDS, build_parser

    lines = [
        "# The command line",
        "",
        "Every command of `rankscope` with its options, as `rankscope COMMAND --help` prints",
        "them (this page is generated from the command line's parsers when the site is built).",
        "",
        "## rankscope",
        "",
        "```text",
        _help(build_parser()),
        "```",
        "",
    ]
    for command in COMMANDS:
        parser = _subparser(build_parser(command), command)
        lines += [f"## rankscope {command}", "", "```text", _help(parser), "```", ""]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    lines += [f"### rankscope {command} {name}", ""]
                    lines += ["```text", _help(child), "```", ""]
    return "\n".join(lines)


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            child: argparse.ArgumentParser = action.choices[command]
            return child
    raise LookupError(command)


def _help(parser: argparse.ArgumentParser) -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "82"  # 80 columns of help: the width of the page's code blocks
    try:
        return parser.format_help().rstrip()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def openapi_schema() -> dict[str, Any]:
    from rankscope.service import EvaluationService, create_app

    with tempfile.TemporaryDirectory(prefix="rankscope-docs-") as folder:
        service = EvaluationService(Path(folder) / "tasks.db")
        try:
            schema: dict[str, Any] = create_app(service).openapi()
        finally:
            service.close()
    return schema


def http_api_page(schema: dict[str, Any]) -> str:
    info = schema.get("info", {})
    lines = [
        "# The HTTP API",
        "",
        f"`rankscope serve` answers the JSON API below ({_escape(info.get('title', ''))},",
        f"version {info.get('version', '')}), beside the web console at `/` and the API's",
        "interactive documentation at `/docs`. Its OpenAPI schema is",
        "[openapi.json](openapi.json), written from the FastAPI application when the site is",
        "built; a running server serves the same at `/openapi.json`.",
        "",
    ]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            lines += [f"## `{method.upper()} {path}`", ""]
            for key in ("summary", "description"):
                if operation.get(key):
                    lines += [_escape(operation[key]).strip(), ""]
            parameters = operation.get("parameters", [])
            if parameters:
                lines += [
                    "| parameter | in | type | required | description |",
                    "|---|---|---|---|---|",
                ]
                lines += [
                    f"| `{p['name']}` | {p['in']} | {_type(p.get('schema', {}))} | "
                    f"{'yes' if p.get('required') else 'no'} | "
                    f"{_cell(p.get('description') or p.get('schema', {}).get('description', ''))} |"
                    for p in parameters
                ]
                lines.append("")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                lines += [f"Body ({media}): {_type(content.get('schema', {}))}.", ""]
            answers = ", ".join(
                f"{status} ({_escape(answer.get('description', ''))})"
                for status, answer in operation.get("responses", {}).items()
            )
            if answers:
                lines += [f"Answers: {answers}.", ""]
    lines += ["## Schemas", ""]
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        lines += [f"### {name}", ""]
        if component.get("description"):
            lines += [_escape(component["description"]).strip(), ""]
        properties = component.get("properties", {})
        if properties:
            required = set(component.get("required", []))
            lines += ["| field | type | required | description |", "|---|---|---|---|"]
            lines += [
                f"| `{field}` | {_type(value)} | {'yes' if field in required else 'no'} | "
                f"{_cell(value.get('description', ''))} |"
                for field, value in properties.items()
            ]
            lines.append("")
        elif component.get("enum"):
            lines += ["One of " + ", ".join(f"`{v}`" for v in component["enum"]) + ".", ""]
    return "\n".join(lines)


def _type(schema: dict[str, Any]) -> str:
    """A JSON schema's type in a few words: a component by its name (a link), a union joined."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            return " or ".join(_type(each) for each in schema[union])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    return str(kind)


def _cell(text: str) -> str:
    """Text for a table cell: one line, no column break."""
    return _escape(" ".join(text.split())).replace("|", "\\|")


def api_index_page(names: list[str]) -> str:
    lines = [
        "# API reference",
        "",
        "Every public name of rankscope, package by package: what `__all__` of each package",
        "exports, with its numpydoc docstring (generated from the sources when the site is",
        "built).",
        "",
    ]
    lines += [f"- [`{name}`]({name}.md)" for name in names]
    return "\n".join(lines)


def api_page(name: str) -> str:
    return f"# `{name}`\n\n::: {name}\n    options:\n      show_root_heading: false\n"


def _escape(text: str) -> str:
    """Text for a Markdown line: its code spans (between backticks) kept, and no HTML,
    emphasis or link (a cross-reference) read into the rest."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code span
        return _plain(text).replace("`", "\\`")
    return "`".join(part if inside % 2 else _plain(part) for inside, part in enumerate(parts))


def _plain(text: str) -> str:
    for special in "\\*_[]":
        text = text.replace(special, "\\" + special)
    return text.replace("<", "&lt;")


# --- the hook -------------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """The API reference in the nav: its index, then a page per public package. (And jieba,
    which Material's search segments Chinese text with, told not to narrate its loading.)"""
    with contextlib.suppress(ImportError):
        import jieba

        jieba.setLogLevel(logging.WARNING)
    reference = [{name: _page(name)} for name in public_packages()]
    nav = config.nav or []
    for index, entry in enumerate(nav):
        if isinstance(entry, dict) and entry.get("API reference") == "api/index.md":
            nav[index] = {"API reference": [{"Overview": "api/index.md"}, *reference]}
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages (and the OpenAPI schema) to the site's files."""
    schema = openapi_schema()
    names = public_packages()
    generated = {
        "measures.md": measures_page(),
        "profiles.md": profiles_page(),
        "cli.md": _quiet(cli_page),
        "http-api.md": http_api_page(schema),
        "openapi.json": json.dumps(schema, indent=2),
        "api/index.md": api_index_page(names),
        **{_page(name): api_page(name) for name in names},
    }
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    return files


def _quiet(build: Any) -> str:
    """A page built with anything the parsers' imports print on the way swallowed."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        page: str = build()
    return page
