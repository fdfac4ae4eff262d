"""The ``rankscope`` command line: a thin shell over the library.

Each subcommand lives in its own module with ``add_parser(subparsers)``, which registers its
arguments and sets ``handler`` to a function ``(args) -> int``. This module dispatches and turns
errors into one clear message and an exit code.

Exit codes
----------
0  success
1  invalid input: a file, measure, profile or option value the command cannot use
2  invalid command line (unknown option, missing argument)
3  an optional dependency is missing (the message names the install command)
70 an internal error (a bug): the message asks for a report; ``--debug`` shows the traceback
130 interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from rankscope.errors import MissingDependencyError, RankscopeError, RankscopeWarning

__all__ = ["EXIT_DEPENDENCY", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_DEPENDENCY = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand registered, or only ``command``'s when it is known (the
    other subcommands' modules are then not even imported: start-up stays short)."""
    from rankscope import __version__
    from rankscope.cli import _measures

    parser = argparse.ArgumentParser(
        prog="rankscope",
        description="Exact, fast evaluation of ranked retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"rankscope {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback for internal errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, commands in _SUBCOMMANDS.items():
        if command is not None and command not in commands:
            continue
        module = _import_subcommand(name)
        if isinstance(module, ModuleType):
            module.add_parser(subparsers)
        else:
            for each in commands:
                _add_broken(subparsers, each, module)
    if command is None or command == "measures":
        _measures.add_parser(subparsers)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if it is one of ours (None: build them all,
    for the help or the error message)."""
    for arg in argv:
        if not arg.startswith("-"):
            known = {c for commands in _SUBCOMMANDS.values() for c in commands} | {"measures"}
            return arg if arg in known else None
    return None


# Subcommand modules, in help order, with the commands each registers.
_SUBCOMMANDS = {
    "_evaluate": ("evaluate",),
    "_trec_eval": ("trec-eval",),
    "_compare": ("compare",),
    "_answers": ("answers",),
    "_service": ("run", "tasks", "serve"),
}


def _import_subcommand(name: str) -> ModuleType | ImportError:
    """The module, or the error that kept it from importing (the other commands still work)."""
    import importlib

    try:
        return importlib.import_module(f"rankscope.cli.{name}")
    except ImportError as error:
        return error


def _add_broken(subparsers: Any, command: str, error: ImportError) -> None:
    def report(args: argparse.Namespace) -> int:
        print(
            f"rankscope: internal error: the {command} command could not be loaded: {error}\n"
            "This is a bug in rankscope (or a damaged installation); please report it.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL

    parser = subparsers.add_parser(command, help="(unavailable: could not be loaded)")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    parser.set_defaults(handler=report)


def _show_warning(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
    print(f"rankscope: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except RankscopeError as error:  # raised by options that refuse themselves
        print(f"rankscope: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", RankscopeWarning)
            warnings.showwarning = _show_warning
            code: int = args.handler(args)
        return code
    except MissingDependencyError as error:
        print(f"rankscope: {error}", file=sys.stderr)
        return EXIT_DEPENDENCY
    except RankscopeError as error:
        print(f"rankscope: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("rankscope: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`); that is not an error.
        sys.stderr.close()
        return EXIT_OK
    except OSError as error:
        print(f"rankscope: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as error:
        if args.debug:
            raise
        print(
            f"rankscope: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in rankscope; please report it with the command you ran "
            "(rerun with --debug for the traceback).",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
