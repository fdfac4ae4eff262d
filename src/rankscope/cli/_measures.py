"""``rankscope measures``: every measure with its aliases, definition, formula and source."""

from __future__ import annotations

import argparse
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.engine.measures import FAMILIES
from rankscope.engine.measures._ranx import RANX_NAMES


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "measures",
        help=COMMANDS["measures"][1],
        description=(
            "List every measure family: its syntax and parameters, aliases (trec_eval's names "
            "among them), definition, formula and where it is defined. A value in brackets is "
            "a parameter's default, which names leave out (RBP(p=0.8) is RBP)."
        ),
    )
    parser.set_defaults(handler=run)


def _syntax(name: str) -> str:
    family = FAMILIES[name]
    params = ",".join(f"{key}={kind}" for key, kind in family.params.items())
    params = f"({params})" if params else ""
    cutoff = {
        "none": "",
        "optional": "[@k]",
        "required": "@k",
        "recall_level": "@r",
        "factor": "@f",
    }
    return f"{name}{params}{cutoff[family.cutoff]}"


def _scope(family: Any) -> str:
    if family.kind == "answer":
        return " [answers]" if family.weknora else " [answers, standard profile only]"
    return "" if family.weknora else " [trec profiles only]"


def run(args: argparse.Namespace) -> int:
    rows = [
        (
            _syntax(family.name),
            ", ".join(family.aliases) or "-",
            family.summary + _scope(family),
        )
        for family in FAMILIES.values()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    print(f"{'measure':<{widths[0]}}  {'aliases':<{widths[1]}}  definition")
    indent = " " * 4
    for (syntax, aliases, summary), family in zip(rows, FAMILIES.values(), strict=True):
        print(f"{syntax:<{widths[0]}}  {aliases:<{widths[1]}}  {summary}")
        print(f"{indent}formula: {family.formula}")
        print(f"{indent}source:  {family.citation}")
    print()
    print("ranx's names (any k; ties: rankscope orders equal scores by document id, descending):")
    width = max(len(name) for name in RANX_NAMES)
    for name, (ours, how) in RANX_NAMES.items():
        print(f"{indent}{name:<{width}}  = {ours}: {how}")
    return 0
