"""Smoke test of an installed rankscope (a wheel in a fresh environment, with the cli and service
extras): the native core imports, the installed ``rankscope`` is the native executable (not a
script, nor an installer's launcher of one) and serves ``trec-eval`` itself, as
``python -m rankscope trec-eval`` prints it, ``rankscope evaluate`` scores the example runs, and
``rankscope serve`` answers ``/`` with the console page and serves the stylesheet it links.

Run it with the environment's Python, from outside the repository (so that ``src/`` is not the
package imported)::

    VENV/bin/python scripts/wheel_smoke.py examples/data

It exits 0 and prints one line per check, or exits 1 naming the check that failed.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wheel_door import is_native  # scripts/wheel_door.py, beside this file

STARTUP_SECONDS = 60.0


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(f"wheel smoke: FAILED: {message}")
    print(f"wheel smoke: {message}")


def command(name: str) -> str:
    """The console script ``name`` installed beside this interpreter."""
    folder = Path(sys.executable).parent
    for candidate in (folder / name, folder / f"{name}.exe"):
        if candidate.exists():
            return str(candidate)
    sys.exit(f"wheel smoke: FAILED: no {name} command beside {sys.executable}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8")


def check_native_door(qrels: Path, run: Path) -> None:
    """The installed ``rankscope`` is the native executable: it serves ``trec-eval`` with the
    Python command line's output, and so does a copy of it with no Python beside it."""
    door = Path(command("rankscope"))
    check(
        is_native(door.read_bytes()),
        f"the installed rankscope is the native executable ({door.name})",
    )
    trec_eval = ["trec-eval", "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run)]

    def output(program: list[str]) -> str:
        done = subprocess.run([*program, *trec_eval], capture_output=True, text=True, timeout=120)
        check(
            done.returncode == 0, f"{Path(program[0]).name} trec-eval exits 0 ({done.stderr[:200]})"
        )
        return done.stdout

    served = output([str(door)])
    check(
        served == output([sys.executable, "-m", "rankscope"]),
        "rankscope trec-eval prints what python -m rankscope trec-eval prints",
    )
    with tempfile.TemporaryDirectory() as alone:
        copy = Path(alone) / door.name
        shutil.copy2(door, copy)
        check(
            output([str(copy)]) == served, "rankscope serves trec-eval itself, no Python beside it"
        )


def main(data: Path) -> None:
    import rankscope
    import rankscope._core

    package = Path(rankscope.__file__).parent
    check("site-packages" in package.parts, f"rankscope is the installed package ({package})")
    core = Path(rankscope._core.__file__ or "")
    check(core.parent == package, f"rankscope._core imports ({core.name})")

    qrels, run = data / "qrels.txt", data / "bm25.run"
    check_native_door(qrels, run)
    done = subprocess.run(
        [command("rankscope"), "evaluate", str(qrels), str(run), "-m", "nDCG@10,AP"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    check(done.returncode == 0, f"rankscope evaluate exits 0 ({done.stderr.strip()[:200]})")
    expected = rankscope.evaluate(str(qrels), str(run), ["AP"]).mean()["AP"]
    mean = f"{expected:.4f}"
    check(mean in done.stdout, f"rankscope evaluate prints the mean AP {mean}")

    port = free_port()
    with tempfile.TemporaryDirectory() as home:
        server = subprocess.Popen(
            [command("rankscope"), "serve", "--port", str(port), "--db", f"{home}/tasks.db"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "HOME": home},
        )
        try:
            page = ""
            deadline = time.monotonic() + STARTUP_SECONDS
            while time.monotonic() < deadline and server.poll() is None:
                try:
                    status, page = get(f"http://127.0.0.1:{port}/")
                    break
                except OSError:
                    time.sleep(0.2)
            check(server.poll() is None, "rankscope serve is running")
            console = "<title>" in page and "rankscope" in page
            check(console, "rankscope serve answers / with the console page")
            stylesheet = re.search(r'href="(/[^"]*\.css)"', page)
            check(stylesheet is not None, "the console page links its stylesheet")
            assert stylesheet is not None
            status, css = get(f"http://127.0.0.1:{port}{stylesheet.group(1)}")
            check(status == 200 and len(css) > 100, f"rankscope serve serves {stylesheet.group(1)}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]).resolve())
