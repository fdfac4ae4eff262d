"""``rankscope measures [FILTER]``: every measure (or those a filter picks) with its aliases,
definition, formula and source, wrapped at word boundaries for the terminal's width."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from rankscope.cli import COMMANDS, _terminal_columns
from rankscope.cli._common import ANSWER_PROFILE_NAMES, PROFILE_NAMES, add_measures_from_option
from rankscope.engine.measures import FAMILIES, Family, default_measures
from rankscope.errors import OptionError

TOOLS = ("trec_eval", "ir_measures", "ranx")
KINDS = {"answer": "answer", "answers": "answer", "ranking": "ranking", "user": "user"}
READS = ("grades", "subtopics", "preferences")
INDENT = " " * 4


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "measures",
        help=COMMANDS["measures"][1],
        description=(
            "List every measure family: its syntax and parameters, aliases (trec_eval's names "
            "among them), definition, formula and where it is defined. A value in brackets is "
            "a parameter's default, which names leave out (RBP(p=0.8) is RBP). FILTER keeps the "
            "families whose name or an alias contains it (nDCG, map, ndcg_cut), the family of a "
            "measure (nDCG@10), a tool's (trec_eval, ir_measures, ranx), a profile's (trec, "
            "weknora, ...), the answer, ranking or user-defined measures (user: those "
            "--measures-from defines), or those that read grades, subtopics or preferences."
        ),
    )
    parser.add_argument("filter", nargs="?", metavar="FILTER", help="which measures to list")
    parser.add_argument(
        "--width",
        type=int,
        metavar="COLUMNS",
        help="wrap at this width (default: the terminal's; piped output is not wrapped)",
    )
    add_measures_from_option(parser)
    parser.set_defaults(handler=run)


def _tool_names(family: Family, tool: str) -> bool:
    """Whether ``tool`` has a name for the family (ir_measures: its canonical names too)."""
    if tool == "ranx":
        return family.ranx is not None
    if tool == "trec_eval":
        return bool(family.trec_eval)
    return family.kind == "ranking" and (
        any(t == tool for t, _ in family.tools) or family.name in _IR_MEASURES
    )


_IR_MEASURES = frozenset(
    (
        "alpha_DCG",
        "alpha_nDCG",
        "AP",
        "AP_IA",
        "BPM",
        "Bpref",
        "Compat",
        "ERR",
        "ERR_IA",
        "infAP",
        "INSQ",
        "INST",
        "IPrec",
        "Judged",
        "nDCG",
        "NERR10",
        "NERR11",
        "NERR8",
        "NERR9",
        "nERR_IA",
        "nNRBP",
        "NRBP",
        "NumQ",
        "NumRel",
        "NumRelRet",
        "NumRet",
        "P",
        "P_IA",
        "R",
        "RBP",
        "Rprec",
        "RR",
        "SDCG",
        "SetAP",
        "SetF",
        "SetP",
        "SetR",
        "StRecall",
        "Success",
    )
)
"""ir_measures' measure names that are rankscope's canonical names too."""


def chosen(text: str | None) -> list[Family]:
    """The families a filter picks, in the registry's order (every one without a filter).

    Examples
    --------
    >>> [family.name for family in chosen("ndcg_cut")]
    ['nDCG']
    >>> [family.name for family in chosen("nDCG@10")][:3]
    ['nDCG']
    """
    families = list(FAMILIES.values())
    if text is None:
        return families
    wanted = text.casefold()
    if wanted in TOOLS:
        return [f for f in families if _tool_names(f, wanted)]
    if wanted in KINDS:
        return [f for f in families if f.kind == KINDS[wanted]]
    if wanted in READS:
        return [f for f in families if f.kind != "answer" and f.reads == wanted]
    if wanted in {*PROFILE_NAMES, *ANSWER_PROFILE_NAMES}:
        return [f for f in families if wanted in f.profiles]
    if "@" in wanted or "(" in wanted:
        from rankscope.engine.measures import measure

        try:
            name = measure(text).family
        except Exception:
            name = None
        return [f for f in families if f.name == name]
    return [f for f in families if any(wanted in name.casefold() for name in (f.name, *f.aliases))]


def _width(args: argparse.Namespace) -> int | None:
    """The width to wrap at: ``--width``, else the terminal's; None (no wrapping) when piped."""
    if args.width is not None:
        if args.width < 20:
            raise OptionError(f"--width must be at least 20; found {args.width}")
        return int(args.width)
    return _terminal_columns() if sys.stdout.isatty() else None


def _printer(width: int | None) -> Any:
    """``show(label, text, first)``: prints ``first + label + text``, wrapped at word
    boundaries to ``width`` (if any), continued under the text's start."""

    def show(label: str, text: str, first: str = INDENT) -> None:
        line = f"{first}{label}{text}"
        if width is None or len(line) <= width:
            print(line)
            return
        later = " " * (len(first) + len(label) or 2)  # a family's syntax hangs by two
        print(
            textwrap.fill(
                text,
                width,
                initial_indent=f"{first}{label}",
                subsequent_indent=later,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )

    return show


def run(args: argparse.Namespace) -> int:
    families = chosen(args.filter)
    if not families:
        raise OptionError(
            f"no measure matches {args.filter!r}; a filter is part of a name or alias (ndcg, "
            f"map), a measure (nDCG@10), a tool ({', '.join(TOOLS)}), a profile "
            f"({', '.join(dict.fromkeys((*PROFILE_NAMES, *ANSWER_PROFILE_NAMES)))}), answer, "
            f"ranking, or what measures read ({', '.join(READS)})"
        )
    width = _width(args)

    show = _printer(width)

    for family in families:
        show("", family.syntax, first="")
        show("aliases: ", ", ".join(family.aliases) or "-")
        show("", family.summary + family.scope)
        show("formula: ", family.formula)
        show("source:  ", family.citation)
    if args.filter is not None:
        _show_ranx(families, show)
        return 0
    print()
    print("Default measures (without -m), by profile:")
    for profile in PROFILE_NAMES:
        show(f"{profile}: ", ", ".join(default_measures(profile)))
    for profile in ANSWER_PROFILE_NAMES:
        show(f"{profile} (answers): ", ", ".join(default_measures(profile, "answer")))
    _show_ranx(families, show)
    return 0


def _show_ranx(families: list[Family], show: Any) -> None:
    forms = {"cutoff": "[@k]", "persistence": ".p", "none": ""}
    named = [
        (f"{ranx.name}{forms[ranx.number]}", family.name, ranx.note)
        for family in families
        if (ranx := family.ranx) is not None
    ]
    if not named:
        return
    print()
    show(
        "",
        "ranx's names (any k; -lN sets the relevance level, as in ranx; ties: rankscope orders "
        "equal scores by document id, descending):",
        first="",
    )
    width = max(len(name) for name, _, _ in named)
    for name, ours, note in named:
        show(f"{name:<{width}}  = ", f"{ours}: {note}")
