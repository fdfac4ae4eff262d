"""What is installed: the extras install what the code asks for (every missing-dependency message
names an extra that brings the package, and ``all`` brings every runtime extra), and the wheels
of scripts/wheel install without a Rust toolchain and work (the slow part)."""

from __future__ import annotations

import ast
import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

# tomllib is 3.11's: on 3.10 (scripts/test's second CPython) these checks of the repository's
# pyproject.toml are left to the main Python's run.
tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
# The extras a user installs to run rankscope: not the tools of its tests and its site.
RUNTIME_EXTRAS = sorted(set(EXTRAS) - {"test", "docs", "all"})


def _requirement_name(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert name is not None, requirement
    return name.group(0).lower().replace("_", "-")


def _packages(extra: str) -> set[str]:
    """The distributions an extra installs, following ``rankscope[...]`` references."""
    found: set[str] = set()
    for requirement in EXTRAS[extra]:
        nested = re.fullmatch(r"rankscope\[([a-z0-9_,]+)\]", requirement.replace(" ", ""))
        if nested:
            for each in nested.group(1).split(","):
                found |= _packages(each)
        else:
            found.add(_requirement_name(requirement))
    return found


def _missing_dependency_calls() -> list[tuple[str, str, str]]:
    """(file, package, extra) of every ``MissingDependencyError("pkg", ..., "extra")`` and
    ``require(("pkg", ...), ..., "extra")``."""
    calls = []
    for path in sorted((ROOT / "src" / "rankscope").rglob("*.py")):
        if path.name == "errors.py":  # where both are defined (require passes its arguments on)
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or len(node.args) != 3:
                continue
            name = getattr(node.func, "id", "")
            if name not in ("MissingDependencyError", "require"):
                continue
            packages, _, extra = node.args
            assert isinstance(extra, ast.Constant), f"{path}: the extra must be a literal"
            listed = packages.elts if isinstance(packages, ast.Tuple) else [packages]
            for package in listed:
                # A package computed at run time (the service's imports) is checked by its extra.
                value = package.value if isinstance(package, ast.Constant) else ""
                calls.append((path.name, value, extra.value))
    return calls


def test_every_missing_dependency_message_names_an_extra_that_installs_the_package() -> None:
    calls = _missing_dependency_calls()
    assert len(calls) >= 8
    assert ("results.py", "pyarrow", "pandas") in calls
    for file, package, extra in calls:
        assert extra in EXTRAS, f"{file}: no extra named {extra!r}"
        if package:
            assert package.lower() in _packages(extra), f"{file}: [{extra}] lacks {package}"


def test_the_pandas_extra_brings_pyarrow_which_pandas_conversions_need() -> None:
    assert {"pandas", "pyarrow"} <= _packages("pandas")


def test_the_all_extra_brings_every_runtime_extra() -> None:
    assert RUNTIME_EXTRAS == [
        "answers",
        "cli",
        "judge",
        "pandas",
        "postgres",
        "service",
        "spark",
        "stats",
        "zstd",
    ]
    everything = _packages("all")
    for extra in RUNTIME_EXTRAS:
        assert _packages(extra) <= everything, extra


# --- the wheels ------------------------------------------------------------------------------
# scripts/wheel builds them (once per hash of the sources; dist/ is reused after that) and
# checks their contents; these tests install each into a fresh environment, as a user would.

SCRIPTS = ROOT / "scripts"
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# A machine path with Python's usual places and no Rust toolchain (cargo is in ~/.cargo/bin).
NO_CARGO_PATH = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])


def _script(*args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    if path is not None:
        environment["PATH"] = path
    return subprocess.run(
        ["bash", str(SCRIPTS / args[0]), *args[1:]],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=3600,
    )


@pytest.fixture(scope="module")
def dist() -> Path:
    """dist/ as scripts/wheel leaves it: a wheel per CPython 3.10-3.13 and the sdist."""
    done = _script("wheel")
    assert done.returncode == 0, done.stderr[-4000:]
    return ROOT / "dist"


@pytest.mark.slow
def test_scripts_wheel_builds_a_wheel_per_cpython_and_an_sdist(dist: Path) -> None:
    names = sorted(path.name for path in dist.glob("rankscope-*"))
    for version in PYTHONS:
        tag = "cp" + version.replace(".", "")
        wheels = [name for name in names if f"-{tag}-{tag}-" in name]
        assert len(wheels) == 1, (version, names)
        if sys.platform == "linux":
            assert "manylinux2014" in wheels[0] and "manylinux_2_17" in wheels[0], wheels
    sdists = [name for name in names if name.endswith(".tar.gz")]
    assert len(sdists) == 1, names
    with tarfile.open(dist / sdists[0]) as sdist:
        members = {member.split("/", 1)[1] for member in sdist.getnames() if "/" in member}
    assert {"Cargo.lock", "crates/rankscope-core/src/lib.rs", "src/rankscope/py.typed"} <= members


@pytest.mark.slow
def test_the_wheel_check_names_a_file_missing_from_a_wheel(dist: Path, tmp_path: Path) -> None:
    wheel = sorted(dist.glob("rankscope-*.whl"))[0]
    assert _script("wheel", "--check", str(wheel)).returncode == 0
    missing = "rankscope/service/web/console/templates/task.html"
    doctored = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(doctored, "w") as target:
        for item in source.infolist():
            if item.filename != missing:
                target.writestr(item, source.read(item))
    done = _script("wheel", "--check", str(doctored))
    assert done.returncode != 0
    assert f"{wheel.name} lacks {missing}" in done.stderr


def _with_door(wheel: Path, door: bytes, into: Path) -> Path:
    """A copy of ``wheel`` in the folder ``into`` whose scripts/rankscope is ``door``."""
    into.mkdir()
    doctored = into / wheel.name
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(doctored, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, door if item.filename.endswith("/scripts/rankscope") else data)
    return doctored


@pytest.mark.slow
def test_the_wheel_check_wants_the_native_executable_in_each_wheel(
    dist: Path, tmp_path: Path
) -> None:
    wheel = sorted(dist.glob("rankscope-*.whl"))[0]
    script = b"#!python\nimport sys\nfrom rankscope.cli import main\nsys.exit(main())\n"
    done = _script("wheel", "--check", str(_with_door(wheel, script, tmp_path / "script")))
    assert done.returncode != 0
    assert f"{wheel.name} lacks scripts/rankscope (the native executable)" in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="glibc's symbol versions")
def test_the_wheel_check_refuses_an_executable_linked_against_this_machines_glibc(
    dist: Path, tmp_path: Path
) -> None:
    # scripts/bootstrap's build of the executable, linked by the system's linker: it needs the
    # glibc it was linked on (2.34 on Debian 12), not manylinux2014's 2.17.
    host = ROOT / "target" / "release" / "rankscope"
    if not host.is_file():
        pytest.skip("no target/release/rankscope (scripts/bootstrap builds it)")
    libc, version = platform.libc_ver()
    if libc != "glibc" or tuple(map(int, version.split("."))) <= (2, 17):
        pytest.skip(f"this machine's C library ({libc} {version}) is no newer than 2.17")
    wheel = sorted(dist.glob("rankscope-*.whl"))[0]
    done = _script("wheel", "--check", str(_with_door(wheel, host.read_bytes(), tmp_path / "h")))
    assert done.returncode != 0
    assert f"{wheel.name} is not manylinux2014 (manylinux_2_17) compatible" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("version", PYTHONS)
def test_the_wheel_installs_where_there_is_no_cargo_and_passes_the_smoke_test(
    dist: Path, version: str, tmp_path: Path
) -> None:
    assert shutil.which("cargo", path=NO_CARGO_PATH) is None
    venv = tmp_path / "venv"
    installed = _script(
        "wheel", "--install", str(venv), "cli,service", "--python", version, path=NO_CARGO_PATH
    )
    assert installed.returncode == 0, installed.stderr[-4000:]
    python = venv / "bin" / "python"
    reported = subprocess.run([str(python), "--version"], capture_output=True, text=True)
    assert reported.stdout.startswith(f"Python {version}."), reported.stdout
    smoke = subprocess.run(
        [str(python), str(SCRIPTS / "wheel_smoke.py"), str(ROOT / "examples" / "data")],
        cwd=tmp_path,  # not the repository: src/ must not be what is imported
        env={"PATH": os.pathsep.join([str(venv / "bin"), NO_CARGO_PATH]), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    for line in (
        "rankscope is the installed package",
        "rankscope._core imports",
        "the installed rankscope is the native executable (rankscope)",
        "rankscope trec-eval prints what python -m rankscope trec-eval prints",
        "rankscope serves trec-eval itself, no Python beside it",
        "rankscope evaluate prints the mean AP",
        "rankscope serve answers / with the console page",
        "rankscope serve serves /static/console/console.css",
    ):
        assert f"wheel smoke: {line}" in smoke.stdout, smoke.stdout
    _check_the_native_door(venv, tmp_path)


def _check_the_native_door(venv: Path, cwd: Path) -> None:
    """The environment's ``bin/rankscope`` is the native executable (not a Python script): it
    serves ``trec-eval`` with the Python command line's output to the byte, and hands
    ``measures`` to the environment's Python, which it finds beside itself."""
    door = venv / "bin" / "rankscope"
    assert door.read_bytes()[:2] != b"#!", door.read_bytes()[:200]
    if sys.platform == "linux":
        assert door.read_bytes()[:4] == b"\x7fELF"
    # Only the environment and the system on the path: no RANKSCOPE_PYTHON, no other Python.
    environment = {"PATH": os.pathsep.join([str(venv / "bin"), NO_CARGO_PATH]), "HOME": str(cwd)}
    data = ROOT / "examples" / "data"
    files = [str(data / "qrels.txt"), str(data / "bm25.run")]

    def run(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(command), cwd=cwd, env=environment, capture_output=True, text=True, timeout=300
        )

    python = [str(venv / "bin" / "python"), "-m", "rankscope"]
    measures = run(str(door), "measures")
    assert measures.returncode == 0, measures.stderr
    assert "ndcg_cut" in measures.stdout
    assert measures.stdout == run(*python, "measures").stdout
    trec_eval = ["trec-eval", "-m", "map", "-m", "ndcg_cut.10", *files]
    served = run(str(door), *trec_eval)
    assert served.returncode == 0, served.stderr
    assert re.search(r"^map\s+all\s+0\.\d{4}$", served.stdout, re.MULTILINE), served.stdout
    assert served.stdout == run(*python, *trec_eval).stdout
    # Served by the executable itself: a copy with no Python beside it prints the same, and
    # has nothing to hand a command to.
    alone = cwd / "alone" / door.name
    alone.parent.mkdir()
    shutil.copy2(door, alone)
    assert run(str(alone), *trec_eval).stdout == served.stdout
    handed = run(str(alone), "measures")
    assert handed.returncode == 3, handed
    assert "no Python interpreter to run this command with" in handed.stderr


@pytest.mark.skipif(
    not os.environ.get("RANKSCOPE_TEST_WHEEL"), reason="scripts/test --wheel sets it (CI)"
)
def test_the_suite_runs_against_the_installed_wheel_not_the_source() -> None:
    import rankscope
    import rankscope._core

    package = Path(rankscope.__file__).resolve().parent
    assert package != ROOT / "src" / "rankscope" and "site-packages" in package.parts, package
    assert Path(rankscope._core.__file__ or "").resolve().parent == package
    assert (package / "service" / "web" / "console" / "templates" / "base.html").is_file()
    # scripts/wheel --into left the wheel's native door as the environment's rankscope, the one
    # the command line's tests run through then (tests/cli/doors.py).
    door = Path(sysconfig.get_path("scripts")) / "rankscope"
    assert door.read_bytes()[:2] != b"#!", door


# --- the native executable in the wheels (scripts/wheel_door.py) ------------------------------
# scripts/wheel and the release workflow put it in through the same script; these tests run it
# on a small wheel of its shape, and on scripts/wheel's own (above, through --check).

sys.path.insert(0, str(SCRIPTS))
wheel_door = pytest.importorskip("wheel_door")  # scripts/wheel_door.py
NATIVE = Path(shutil.which("true") or "/bin/true")  # an executable of this machine's format


def _digest(content: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()


def _small_wheel(folder: Path, entry_points: str) -> Path:
    """A wheel shaped as maturin writes rankscope's: a module, its metadata, an entry point."""
    name = "rankscope-0.0.1"
    files = {
        "rankscope/__init__.py": b"",
        f"{name}.dist-info/METADATA": b"Metadata-Version: 2.1\nName: rankscope\nVersion: 0.0.1\n",
        f"{name}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
        b"Tag: cp311-cp311-linux_x86_64\n",
        f"{name}.dist-info/entry_points.txt": entry_points.encode(),
    }
    wheel = folder / f"{name}-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, content in files.items():
            archive.writestr(path, content)
        record = "".join(
            f"{path},sha256={_digest(content)},{len(content)}\n" for path, content in files.items()
        )
        record += f"{name}.dist-info/RECORD,,\n"
        archive.writestr(f"{name}.dist-info/RECORD", record)
    return wheel


@pytest.mark.parametrize("suffix", ["", ".exe"])
def test_wheel_door_puts_the_executable_in_place_of_the_entry_point(
    tmp_path: Path, suffix: str
) -> None:
    entry_points = "[console_scripts]\nrankscope = rankscope.cli:main\nother = rankscope.x:y\n"
    wheel = _small_wheel(tmp_path, entry_points)
    assert wheel_door.check(wheel) == "scripts/rankscope (the native executable)"
    door = tmp_path / f"rankscope{suffix}"
    shutil.copy2(NATIVE, door)
    wheel_door.put(door, wheel)
    with zipfile.ZipFile(wheel) as archive:
        name = f"rankscope-0.0.1.data/scripts/rankscope{suffix}"
        assert archive.read(name) == NATIVE.read_bytes()
        assert archive.getinfo(name).external_attr >> 16 & 0o111  # executable once installed
        points = archive.read("rankscope-0.0.1.dist-info/entry_points.txt").decode()
        record = archive.read("rankscope-0.0.1.dist-info/RECORD").decode()
    assert "rankscope =" not in points and "other = rankscope.x:y" in points
    assert re.search(rf"^{re.escape(name)},sha256=[\w-]+,{NATIVE.stat().st_size}$", record, re.M)
    assert wheel_door.check(wheel) is None


def test_wheel_door_refuses_a_script_and_names_a_wheel_that_keeps_its_entry_point(
    tmp_path: Path,
) -> None:
    wheel = _small_wheel(tmp_path, "[console_scripts]\nrankscope = rankscope.cli:main\n")
    script = tmp_path / "rankscope"
    script.write_text("#!/usr/bin/env python\n")
    with pytest.raises(SystemExit, match="is not a native executable"):
        wheel_door.put(script, wheel)
    # A native door beside an entry point an installer would write over it.
    both = tmp_path / "both" / wheel.name
    both.parent.mkdir()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(both, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        target.writestr("rankscope-0.0.1.data/scripts/rankscope", NATIVE.read_bytes())
    expected = "scripts/rankscope in place of the entry point (it names one too)"
    assert wheel_door.check(both) == expected
    # Pip's Windows launchers are executables too, carrying their script as a zip.
    assert not wheel_door.is_native(b"MZ\x90\x00" + b"PK\x03\x04__main__.py")
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "wheel_door.py"), "check", str(both)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert f"wheel: {both.name} lacks {expected}" in done.stderr


@pytest.mark.slow  # dist/: scripts/wheel builds every wheel once
def test_the_executable_taken_out_of_maturins_wheel_is_the_one_in_the_wheels(
    dist: Path, tmp_path: Path
) -> None:
    (carrier,) = (ROOT / "target" / "door-wheel").glob("*.whl")
    door = wheel_door.extract(carrier, tmp_path)
    assert door.name == "rankscope" and os.access(door, os.X_OK)
    for wheel in dist.glob("rankscope-*.whl"):
        with zipfile.ZipFile(wheel) as archive:
            (name,) = [n for n in archive.namelist() if wheel_door.DOOR.fullmatch(n)]
            assert archive.read(name) == door.read_bytes(), wheel.name


def test_the_release_workflow_puts_the_executable_in_every_platforms_wheels() -> None:
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    for job in ("linux", "macos", "windows"):
        steps = workflow["jobs"][job]["steps"]
        names = [step.get("name", step.get("uses")) for step in steps]
        built = names.index("Build the native executable")
        assert "crates/rankscope-cli/Cargo.toml" in steps[built]["with"]["args"], job
        wheels = steps[names.index("Build wheels")]["with"]
        assert steps[built]["with"]["target"] == wheels["target"], job
        assert steps[built]["with"].get("manylinux") == wheels.get("manylinux"), job
        put = steps[names.index("Put the native executable in each wheel")]["run"]
        for command in ("wheel_door.py extract", "wheel_door.py put", "wheel_door.py check"):
            assert command in put, (job, command)
        assert built < names.index("Put the native executable in each wheel") < len(names) - 1
        assert names[-1] == "actions/upload-artifact@v4", job
    smoke = " ".join(step.get("run", "") for step in workflow["jobs"]["test"]["steps"])
    assert "scripts/wheel_smoke.py" in smoke
