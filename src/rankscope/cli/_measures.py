"""``rankscope measures``: every measure with its aliases, definition, formula and source."""

from __future__ import annotations

import argparse
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import ANSWER_PROFILE_NAMES, PROFILE_NAMES
from rankscope.engine.measures import FAMILIES, default_measures


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
    print("Default measures (without -m), by profile:")
    for profile in PROFILE_NAMES:
        print(f"{indent}{profile}: {', '.join(default_measures(profile))}")
    for profile in ANSWER_PROFILE_NAMES:
        print(f"{indent}{profile} (answers): {', '.join(default_measures(profile, 'answer'))}")
    print()
    print(
        "ranx's names (any k; -lN sets the relevance level, as in ranx; ties: rankscope orders "
        "equal scores by document id, descending):"
    )
    forms = {"cutoff": "[@k]", "persistence": ".p", "none": ""}
    named = [
        (f"{ranx.name}{forms[ranx.number]}", family.name, ranx.note)
        for family in FAMILIES.values()
        if (ranx := family.ranx) is not None
    ]
    width = max(len(name) for name, _, _ in named)
    for name, ours, note in named:
        print(f"{indent}{name:<{width}}  = {ours}: {note}")
    return 0
