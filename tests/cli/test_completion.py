"""``rankscope --completion bash|zsh|fish``: a static script that completes every command, its
options and subcommands, and file names, without starting Python. The bash script is run in
bash as bash's completion calls it; zsh's is bash's through bashcompinit; fish's is read."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rankscope.cli import COMMANDS, EXIT_OK, main
from rankscope.cli._completion import command_options, script

ROOT = Path(__file__).resolve().parents[2]


def printed(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(["--completion", shell])
    assert stopped.value.code in (None, EXIT_OK)
    out = capsys.readouterr().out
    assert out == script(shell)
    return out


def complete(bash_script: str, *words: str) -> list[str]:
    """What bash's completion offers for the command line ``words`` (the last being the word
    under the cursor), in the repository's folder."""
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    line = " ".join(f"'{word}'" for word in words)
    program = (
        f"{bash_script}\nCOMP_WORDS=(rankscope {line}); COMP_CWORD={len(words)}; _rankscope; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "-c", program], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return [word for word in done.stdout.splitlines() if word]


def test_bash_completes_commands_options_subcommands_and_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bash = printed(capsys, "bash")
    assert complete(bash, "") == [*COMMANDS, "--help", "--version", "--debug", "--completion"]
    assert complete(bash, "co") == ["compare"]
    assert complete(bash, "evaluate", "--per") == ["--per-query"]
    assert complete(bash, "--debug", "measures", "--w") == ["--width"]
    assert complete(bash, "tasks", "re") == ["resume"]
    assert complete(bash, "--completion", "z") == ["zsh"]
    assert complete(bash, "evaluate", "examples/data/qr") == ["examples/data/qrels.txt"]
    assert complete(bash, "trec-eval", "-q", "--Judged") == ["--Judged_docs_only"]


def test_every_option_of_every_command_is_in_the_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bash, fish = printed(capsys, "bash"), printed(capsys, "fish")
    options = command_options()
    assert list(options) == list(COMMANDS)
    for name, (summary, flags, subs) in options.items():
        assert flags and all(flag in bash for flag in flags), name
        assert f"-a {shlex.quote(name)} -d {shlex.quote(summary)}" in fish
        for sub in subs:
            assert sub in bash and sub in fish
    assert "complete -c rankscope -n '__fish_seen_subcommand_from evaluate' -l per-query" in fish
    assert "complete -c rankscope -n '__fish_seen_subcommand_from trec-eval' -s J" in fish


def test_zsh_uses_the_bash_completion(capsys: pytest.CaptureFixture[str]) -> None:
    zsh = printed(capsys, "zsh")
    assert zsh.startswith("#compdef rankscope\n")
    assert "bashcompinit" in zsh and zsh.endswith(script("bash"))
    if shutil.which("zsh") is not None:
        done = subprocess.run(["zsh", "-n", "-c", zsh], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_help_stays_lazy() -> None:
    """``--help`` names the option without importing any command's module."""
    program = (
        "import sys\nfrom rankscope.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('rankscope.cli.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert "--completion {bash,zsh,fish}" in done.stdout
    assert done.stdout.splitlines()[-1] == "[]"
