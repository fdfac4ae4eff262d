"""Shared fixtures: paths to the reference data kept inside the repository, and the service
store's two back-ends (a SQLite file; a schema of a PostgreSQL server started by
``scripts/postgres``)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from xdist_units import FIRST_UNITS, unit_of

ROOT = Path(__file__).resolve().parent.parent


# --- workers ----------------------------------------------------------------------------------
# Which tests share a worker, and which go first: tests/xdist_units.py.


def _numba_cache_of_this_worker(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker gets numba caches of its own (ranx's functions are
    compiled with ``cache=True``): ``$NUMBA_CACHE_DIR/<worker>``, by default under
    ``build/numba-cache/``. Numba's cache is one index per function (signature -> data file) and
    one data file per signature; a process that saves a signature reads the index, takes the
    first free data file's number and writes the index, then the data file. Two processes that
    save two signatures of one function at once (ranx compiles each function for int64
    judgements and float64 scores, and again for every width of document id) can both take
    number 1: the index then names one signature and the file holds the other's machine code,
    which the next process to load it runs on arrays of the wrong type (wrong values, no
    error). Set before the test modules import ranx (its functions find their cache when they
    are decorated); the subprocesses the tests start inherit it."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is None:  # one process (or the controller, which imports no test module)
        return
    shared = os.environ.get("NUMBA_CACHE_DIR") or str(ROOT / "build" / "numba-cache")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(shared, worker)
    if "numba" in sys.modules:  # imported already (by a plugin): it reads the variable again
        sys.modules["numba"].core.config.reload_config()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid, super()._split_scope(nodeid))

        def _assign_work_unit(self, node: Any) -> None:
            for first in reversed(FIRST_UNITS):  # those not handed out yet go to the front
                if first in self.workqueue:
                    self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return FileScheduling(config, log)


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """With ``--durations=N``, pytest's slowest tests are followed by the slowest files: the
    setup, call and teardown times of a file's tests summed (a module-scoped fixture counts
    in the file that uses it), so that what to speed up is seen by file (``N=0``: every file)."""
    shown = config.getoption("durations", None)
    if shown is None:
        return
    totals: defaultdict[str, float] = defaultdict(float)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                totals[report.nodeid.split("::")[0]] += report.duration
    slowest = sorted(totals.items(), key=lambda item: -item[1])
    terminalreporter.write_sep("=", f"slowest files ({sum(totals.values()):.1f} s of test time)")
    for path, seconds in slowest[: shown or None]:
        terminalreporter.write_line(f"{seconds:8.2f}s {path}")


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """trec_eval's own test files (qrels, runs, expected outputs)."""
    path = ROOT / "tests" / "data" / "trec_eval"
    if not path.is_dir():
        pytest.fail(f"the trec_eval conformance files are missing: {path}")
    return path


@pytest.fixture(scope="session")
def weknora_samples_dir() -> Path:
    """WeKnora's sample evaluation dataset (Parquet)."""
    path = ROOT / "examples" / "weknora_samples"
    if not path.is_dir():
        pytest.fail(f"WeKnora's sample dataset is missing: {path}")
    return path


# --- the store's back-ends ------------------------------------------------------------------


def _postgres(command: str) -> subprocess.CompletedProcess[str]:
    """``scripts/postgres COMMAND`` (``url``, ``start``, ``stop``)."""
    script = ROOT / "scripts" / "postgres"
    return subprocess.run([str(script), command], capture_output=True, text=True)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist without ``$RANKSCOPE_TEST_POSTGRES``, the controller starts the
    PostgreSQL server for its workers and stops it at the end, as ``scripts/test`` does: each
    worker's session would otherwise start it and stop it under the others. Each worker sets
    its own numba cache (`_numba_cache_of_this_worker`)."""
    _numba_cache_of_this_worker(config)
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not workers or os.environ.get("RANKSCOPE_TEST_POSTGRES"):
        return
    if _postgres("url").returncode == 0:  # started by someone else: theirs to stop
        return
    started = _postgres("start")
    if started.returncode == 0:  # else each worker's fixture says why it skips
        os.environ["RANKSCOPE_TEST_POSTGRES"] = started.stdout.strip()
        config.add_cleanup(lambda: _postgres("stop"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for the tests: ``$RANKSCOPE_TEST_POSTGRES`` (what
    ``scripts/test`` starts), else one ``scripts/postgres`` starts for this session and stops
    after it; the tests that need it are skipped, saying why, where it cannot be started."""
    given = os.environ.get("RANKSCOPE_TEST_POSTGRES")
    if given:
        yield given
        return
    pytest.importorskip("psycopg", reason="psycopg is not installed (the test extra)")
    running = _postgres("url")
    if running.returncode == 0:  # started by someone else: theirs to stop
        yield running.stdout.strip()
        return
    started = _postgres("start")
    if started.returncode != 0:
        pytest.skip(f"PostgreSQL could not be started: {started.stderr.strip()}")
    try:
        yield started.stdout.strip()
    finally:
        _postgres("stop")


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A store of its own on the server: the URL of a fresh schema, dropped afterwards."""
    psycopg = pytest.importorskip("psycopg")
    schema = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in postgres_server else "?"
    try:
        yield f"{postgres_server}{separator}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store is: a SQLite file, then a PostgreSQL schema (the same tests for
    both back-ends)."""
    if request.param == "sqlite":
        return str(tmp_path / "tasks.db")
    return str(request.getfixturevalue("postgres_url"))
