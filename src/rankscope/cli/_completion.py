"""``rankscope --completion bash|zsh|fish``: a shell completion script for every command and
its options.

The script is static: it is written once, from the parsers of every command (each module is
imported here, once), and completes without starting Python, so that the command line's lazy
loading of subcommands stays as it is. Install it with::

    rankscope --completion bash > ~/.local/share/bash-completion/completions/rankscope
    rankscope --completion zsh > "${fpath[1]}/_rankscope"    # or: source <(rankscope ...)
    rankscope --completion fish > ~/.config/fish/completions/rankscope.fish

Words after a command that are not options complete as file names.
"""

from __future__ import annotations

import argparse
import shlex

from rankscope.cli import SHELLS


def command_options() -> dict[str, tuple[str, list[str], list[str]]]:
    """Each command's summary, option strings and subcommands (``tasks list``, ...), in help
    order.

    Examples
    --------
    >>> options = command_options()
    >>> "--per-query" in options["evaluate"][1] and "--width" in options["measures"][1]
    True
    >>> "list" in options["tasks"][2]
    True
    """
    from rankscope.cli import COMMANDS, build_parser

    found: dict[str, tuple[str, list[str], list[str]]] = {}
    for name, (_, summary) in COMMANDS.items():
        command = _subcommands(build_parser(name))[name]
        options = [
            option
            for action in command._actions
            for option in action.option_strings
            if action.help != argparse.SUPPRESS
        ]
        found[name] = (summary, options, list(_subcommands(command)))
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (argparse keeps them only in its actions)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


TOP_LEVEL = ["--help", "--version", "--debug", "--completion"]


Commands = dict[str, tuple[str, list[str], list[str]]]


def _bash(commands: Commands) -> str:
    cases = "\n".join(
        f"        {shlex.quote(name)}) words={shlex.quote(' '.join(options))}"
        f" subs={shlex.quote(' '.join(subs))} ;;"
        for name, (_, options, subs) in commands.items()
    )
    top = " ".join([*commands, *TOP_LEVEL])
    return f"""# rankscope's completion for bash (rankscope --completion bash)
_rankscope() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} command="" words="" subs="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
            -*) ;;
            *) command=${{COMP_WORDS[i]}}; break ;;
        esac
    done
    if [[ -z $command && ${{COMP_WORDS[COMP_CWORD-1]}} == --completion ]]; then
        COMPREPLY=($(compgen -W "{" ".join(SHELLS)}" -- "$cur"))
        return
    fi
    case $command in
        "") words="{top}" ;;
{cases}
    esac
    if [[ -z $command || $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    elif [[ -n $subs && ${{COMP_WORDS[COMP_CWORD-1]}} == "$command" ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o default -o bashdefault -F _rankscope rankscope
"""


def _zsh(commands: Commands) -> str:
    return (
        "#compdef rankscope\n"
        "# rankscope's completion for zsh (rankscope --completion zsh): the bash completion\n"
        "# through zsh's bashcompinit.\n"
        "autoload -U +X bashcompinit && bashcompinit\n" + _bash(commands)
    )


def _fish(commands: Commands) -> str:
    lines = [
        "# rankscope's completion for fish (rankscope --completion fish)",
        "complete -c rankscope -n __fish_use_subcommand -l help -d 'show the help'",
        "complete -c rankscope -n __fish_use_subcommand -l version -d 'show the version'",
        "complete -c rankscope -n __fish_use_subcommand -l debug -d 'tracebacks of errors'",
        "complete -c rankscope -n __fish_use_subcommand -l completion -x -a "
        + shlex.quote(" ".join(SHELLS)),
    ]
    for name, (summary, options, subs) in commands.items():
        lines.append(
            f"complete -c rankscope -n __fish_use_subcommand -f -a {shlex.quote(name)}"
            f" -d {shlex.quote(summary)}"
        )
        condition = shlex.quote(f"__fish_seen_subcommand_from {name}")
        if subs:
            words = shlex.quote(" ".join(subs))
            lines.append(f"complete -c rankscope -n {condition} -f -a {words}")
        for option in options:
            if option.startswith("--"):
                flag = f"-l {shlex.quote(option[2:])}"
            elif len(option) == 2:
                flag = f"-s {shlex.quote(option[1:])}"
            else:  # trec_eval's one-dash long options
                flag = f"-o {shlex.quote(option[1:])}"
            lines.append(f"complete -c rankscope -n {condition} {flag}")
    return "\n".join(lines) + "\n"


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of `SHELLS`).

    Examples
    --------
    >>> print(script("bash").splitlines()[0])
    # rankscope's completion for bash (rankscope --completion bash)
    """
    commands = command_options()
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](commands)
