"""``rankscope measures``: every measure with its aliases and a one-line definition."""

from __future__ import annotations

import argparse
from typing import Any

from rankscope.engine.measures import FAMILIES, Family


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "measures",
        help="list every measure with its aliases and definition",
        description="List every measure family, its parameters, aliases and definition.",
    )
    parser.set_defaults(handler=run)


def _syntax(name: str) -> str:
    family = FAMILIES[name]
    params = "".join(f"({key}=...)" for key in family.params)
    cutoff = {"none": "", "optional": "[@k]", "required": "@k", "recall_level": "@r"}
    return f"{name}{params}{cutoff[family.cutoff]}"


def _scope(family: Family) -> str:
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
    for syntax, aliases, summary in rows:
        print(f"{syntax:<{widths[0]}}  {aliases:<{widths[1]}}  {summary}")
    return 0
