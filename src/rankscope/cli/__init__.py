"""The ``rankscope`` command line: a thin shell over the library.

Each subcommand lives in its own module with ``add_parser(subparsers)``, which registers its
arguments and sets ``handler`` to a function ``(args) -> int``. This module dispatches and turns
errors into one clear message and an exit code.

Exit codes
----------
0  success
1  invalid input: a file the command cannot use
2  invalid command line: an unknown option, a missing argument, a bad option value (a measure,
   profile, format, test...); the message names the flag
3  an optional dependency is missing (the message names the install command)
70 an internal error (a bug): the message asks for a report; ``--debug`` shows the traceback
130 interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from rankscope.errors import (
    MeasureError,
    MissingDependencyError,
    OptionError,
    ProfileError,
    RankscopeError,
    RankscopeWarning,
)

__all__ = ["EXIT_DEPENDENCY", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_DEPENDENCY = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with only ``command``'s arguments registered when it is known (the other
    subcommands' modules are not even imported), else every subcommand by name and summary
    (for the help and the error message; no module is imported: ``--help`` stays fast)."""
    from rankscope import __version__

    parser = _Parser(
        prog="rankscope",
        description="Exact, fast evaluation of ranked retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"rankscope {__version__}")
    parser.add_argument("--debug", action="store_true", help="show a traceback for internal errors")
    parser.add_argument(
        "--completion",
        choices=SHELLS,
        action=_Completion,
        help="print a completion script for the shell (rankscope.cli._completion says where to "
        "put it)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    if command is None:
        for name, (_, summary) in COMMANDS.items():
            subparsers.add_parser(name, help=summary, add_help=False)
        return parser
    module_name = COMMANDS[command][0]
    module = _import_subcommand(module_name)
    if isinstance(module, ModuleType):
        module.add_parser(subparsers)
    else:
        for each in (name for name, (owner, _) in COMMANDS.items() if owner == module_name):
            _add_broken(subparsers, each, module)
    return parser


SHELLS = ("bash", "zsh", "fish")
"""The shells ``--completion`` writes a script for."""


class _Completion(argparse.Action):
    """``--completion SHELL``: print the script and exit, as ``--version`` does (the script's
    module, which imports every command, is loaded only then)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from rankscope.cli._completion import script

        sys.stdout.write(script(str(values)))
        parser.exit()


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized to the terminal as argparse sizes it but without
    importing shutil: argparse makes a formatter for every option it registers, and shutil
    (with the compression modules it loads) costs a tenth of a small evaluation's run."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` gives it: ``$COLUMNS``, else the
    width of standard output's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    """argparse's parser with `_Formatter` for its help; subcommands' parsers are made of the
    same class (argparse's default)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if it is one of ours (None: list them all,
    for the help or the error message)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


COMMANDS = {
    "evaluate": ("_evaluate", "evaluate one or more runs against qrels"),
    "trec-eval": ("_trec_eval", "trec_eval's command line and output, byte for byte"),
    "compare": ("_compare", "compare runs with a baseline: significance tests, tables, a report"),
    "answers": ("_answers", "score generated answers against reference answers (BLEU, ROUGE)"),
    "run": ("_service", "evaluate a live retriever on a dataset, keeping every result"),
    "tasks": ("_service", "list, show, resume, cancel, export or compare stored evaluation tasks"),
    "serve": ("_service", "serve the evaluation API and web console over HTTP"),
    "worker": ("_service", "run the pending evaluation tasks of a shared store"),
    "fuse": ("_fuse", "fuse several runs into one (RRF, CombSUM, BordaFuse, ProbFuse, ...)"),
    "explain": ("_explain", "why a measure differs between profiles, or from another tool"),
    "measures": ("_measures", "list every measure, its aliases and its definition"),
    "pool": ("_pool", "pool runs to a depth: the pairs to judge next, as a to-judge file"),
    "holes": ("_holes", "Judged@k, unjudged documents, and how far holes could move each measure"),
    "agree": ("_agree", "agreement of two qrels: kappa, alpha, their leaderboards' tau and RBO"),
    "judge": ("_judge", "grade pairs with an LLM judge, resumably, into qrels; calibrate it"),
}
"""Each command, in help order: the module that registers it (``add_parser``) and its summary
(shown by ``rankscope --help`` without importing the module)."""


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
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command(arguments))
    try:
        args = parser.parse_args(arguments)
    except RankscopeError as error:  # raised by options that refuse themselves
        print(f"rankscope: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    args.argv = arguments  # for the provenance of reports
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
        from rankscope.cli._common import in_cli_terms

        message = in_cli_terms(error, getattr(args, "qrels", None))
        print(f"rankscope: error: {message}", file=sys.stderr)
        # A measure, profile or option value is part of the command line: a usage error.
        usage = isinstance(error, MeasureError | ProfileError | OptionError)
        return EXIT_USAGE if usage else EXIT_INPUT
    except KeyboardInterrupt:
        print("rankscope: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:
        if _is_broken_pipe(error):
            # The reader of our output went away (e.g. `| head`); that is not an error.
            _discard_stdout()
            return EXIT_OK
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


def _is_broken_pipe(error: OSError) -> bool:
    """Whether writing failed because the reader of standard output went away.

    Python raises ``BrokenPipeError``; writers in compiled code (polars, the core) raise a plain
    ``OSError`` whose message carries the operating system's code.
    """
    return isinstance(error, BrokenPipeError) or "(os error 32)" in str(error)


def _discard_stdout() -> None:
    """Point standard output at /dev/null so that the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (e.g. captured in tests): nothing to flush
        pass
