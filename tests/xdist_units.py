"""How pytest-xdist's workers share the suite (``scripts/test -n 2 --dist loadfile``): the units
of work tests/conftest.py's scheduler hands out, and which go first. A module of its own, so
that tests/test_scheduling.py imports what the scheduler uses (each folder's conftest.py is a
module named ``conftest``)."""

from __future__ import annotations

# Under pytest-xdist with --dist loadfile (``scripts/test -n 2 --dist loadfile``), a
# file's tests run in one worker, so that its module-scoped fixtures (a browser, an executed
# notebook, the wheels' dist/) are set up once; the Spark tests share one worker too, so that
# one local Spark (a JVM, session-scoped in tests/spark/conftest.py) serves them all.
ONE_WORKER_FOLDERS = ("tests/spark/",)
# The tests that call ranx (every test whose file or function name says "ranx") share one
# worker too: numba compiles ranx's functions on their first call in a process, about a minute
# for ``ranx.evaluate`` alone on this project's 2 cores, and a worker that compiled them serves
# every later call from memory (and from its cache on disk, one per worker: tests/conftest.py).
RANX_UNIT = "ranx (numba)"
# The longest units of work are handed out first, one to each worker, while the rest (in
# xdist's order: the units with most tests first) fills in around them: the wheels' builds and
# installs (minutes), the Spark tests and ranx's. Last (where xdist's order by number of tests
# put them: 12 and 64 tests of 3,489) one of them ran alone at the end.
FIRST_UNITS = ("tests/test_packaging.py", "tests/spark/", RANX_UNIT)


def unit_of(nodeid: str, path: str) -> str:
    """The unit of work of the test ``nodeid`` in the file ``path``: its folder's, ranx's or
    its file's."""
    folder = next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), None)
    if folder is not None:
        return folder
    name = nodeid.rsplit("::", 1)[-1].split("[", 1)[0]  # the test's, its parameters left out
    return RANX_UNIT if "ranx" in f"{path}::{name}".lower() else path
