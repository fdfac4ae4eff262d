"""Fixtures of the service tests: a BEIR dataset on disk, an importable retriever module, and
the store's two back-ends (a SQLite file; a schema of a PostgreSQL server started by
``scripts/postgres``)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_helpers import RETRIEVER_MODULE, make_beir


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "beir")


@pytest.fixture
def toy_module(tmp_path: Path, beir_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An importable module ``toy_retrievers_<n>`` with ``search`` and ``ids_only``."""
    name = f"toy_retrievers_{abs(hash(str(tmp_path))) % 10**8}"
    directory = tmp_path / "modules"
    directory.mkdir()
    (directory / f"{name}.py").write_text(RETRIEVER_MODULE)
    monkeypatch.setenv("TOY_CORPUS", str(beir_dir / "corpus.jsonl"))
    monkeypatch.syspath_prepend(str(directory))
    yield name
    sys.modules.pop(name, None)


# --- the store's back-ends ------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


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
    script = ROOT / "scripts" / "postgres"
    running = subprocess.run([str(script), "url"], capture_output=True, text=True)
    if running.returncode == 0:  # started by someone else: theirs to stop
        yield running.stdout.strip()
        return
    started = subprocess.run([str(script), "start"], capture_output=True, text=True)
    if started.returncode != 0:
        pytest.skip(f"PostgreSQL could not be started: {started.stderr.strip()}")
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(script), "stop"], capture_output=True, text=True)


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
