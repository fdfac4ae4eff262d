"""``rankscope measures``: every measure with its aliases and a one-line definition."""

from __future__ import annotations

import argparse
from typing import Any

from rankscope.cli import COMMANDS


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "measures",
        help=COMMANDS["measures"][1],
        description="List every measure family, its parameters, aliases and definition.",
    )
    parser.set_defaults(handler=run)


def _syntax(family: Any) -> str:
    params = "".join(f"({key}=...)" for key in family.params)
    cutoff = {"none": "", "optional": "[@k]", "required": "@k", "recall_level": "@r"}
    return f"{family.name}{params}{cutoff[family.cutoff]}"


def _scope(family: Any) -> str:
    if family.kind == "answer":
        return " [answers]" if family.weknora else " [answers, standard profile only]"
    return "" if family.weknora else " [trec profiles only]"


def run(args: argparse.Namespace) -> int:
    from rankscope.engine.measures import FAMILIES

    rows = [
        (
            _syntax(family),
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
