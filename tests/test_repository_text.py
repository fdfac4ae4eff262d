"""The repository's text names nothing that exists only on the machine it was written on: every
command it shows runs with public tools and the project's own scripts, from the checkout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Built from pieces, so that this file does not hold what it looks for.
MACHINE_ONLY = (
    "farm" + "-bench",  # a timing tool of the machine only (benchmarks/ab.py is the public one)
    "/" + "work" + "/",  # the machine's checkouts and tools (/path/to/trec_eval in docs)
)


def _tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [ROOT / name for name in listed.decode().split("\0") if name]


def _text(path: Path) -> str | None:
    """The file's text (bytes that are not UTF-8 replaced), or None for a binary file (one
    holding a NUL byte) or a path that is not a file in the work tree."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):  # deleted in the work tree, or a submodule
        return None
    return None if b"\0" in data else data.decode("utf-8", errors="replace")


def machine_only_names(root: Path, paths: list[Path]) -> list[str]:
    """``path:line: name`` (``path`` relative to ``root``) for each line of a text file among
    ``paths`` naming one of ``MACHINE_ONLY``."""
    found = []
    for path in paths:
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            found += [f"{path.relative_to(root)}:{number}: {n}" for n in MACHINE_ONLY if n in line]
    return found


def test_tracked_text_names_no_machine_only_tool_or_path() -> None:
    paths = _tracked_files()
    assert len(paths) > 100 and ROOT / "CHANGELOG.md" in paths
    assert machine_only_names(ROOT, paths) == []


def test_the_scan_finds_each_name_in_a_text_file_and_passes_over_binary_ones(
    tmp_path: Path,
) -> None:
    text = tmp_path / "notes.md"
    text.write_text("fine\ntimed with " + MACHINE_ONLY[0] + " -n 7\ncd " + MACHINE_ONLY[1] + "x\n")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\0\1" + MACHINE_ONLY[0].encode())
    latin = tmp_path / "old.txt"
    latin.write_bytes(b"\xe9t\xe9 " + MACHINE_ONLY[1].encode())
    found = machine_only_names(tmp_path, [text, binary, latin, tmp_path / "gone.md"])
    assert found == [
        f"notes.md:2: {MACHINE_ONLY[0]}",
        f"notes.md:3: {MACHINE_ONLY[1]}",
        f"old.txt:1: {MACHINE_ONLY[1]}",
    ]
