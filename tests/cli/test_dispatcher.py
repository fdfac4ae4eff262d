"""The dispatcher: exit codes, messages instead of tracebacks, resilience to a broken command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rankscope import cli


def test_a_command_that_cannot_be_loaded_does_not_break_the_others(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = cli._import_subcommand

    def broken_compare(name: str) -> object:
        if name == "_compare":
            return ImportError("cannot import name 'nothing'")
        return real(name)

    monkeypatch.setattr(cli, "_import_subcommand", broken_compare)
    assert cli.main(["measures"]) == cli.EXIT_OK
    assert "nDCG" in capsys.readouterr().out
    assert cli.main(["compare", "a", "b", "c"]) == cli.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "the compare command could not be loaded: cannot import name 'nothing'" in err


def test_usage_errors_exit_2_without_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rankscope", "evaluate"], capture_output=True, text=True
    )
    assert done.returncode == cli.EXIT_USAGE
    assert "the following arguments are required: QRELS, RUN" in done.stderr
    assert "Traceback" not in done.stderr


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rankscope", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.startswith("rankscope ")
