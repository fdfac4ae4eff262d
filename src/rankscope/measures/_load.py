"""Measures from a module: what ``--measures-from`` runs."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

from rankscope.engine.measures._user import defined, loading
from rankscope.errors import InputError

__all__ = ["FILE_MODULES", "load"]

FILE_MODULES = "rankscope_measures_"
"""How the names of the modules `load` runs from files begin (then a digest of the path)."""


def load(source: str | Path) -> list[str]:
    """Run a Python file (or import a module by its dotted name) that defines measures with
    `rankscope.measures.define`; the names of the measures it defined.

    A file is run under a module name of its own (``rankscope_measures_<digest>``), so that
    two files of the same name do not clash; running it again defines its measures again.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mine.py").write_text(
    ...     "from rankscope.measures import define\\n"
    ...     "define('Retrieved', lambda ranked, judged, *, k, rel: len(ranked[:k]))\\n"
    ... )
    >>> load(folder / "mine.py")
    ['Retrieved']
    >>> from rankscope.measures import undefine
    >>> undefine("Retrieved")
    True
    >>> load(folder / "missing.py")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: .../missing.py: no such file (--measures-from takes a Python ...
    """
    before = {name: id(d) for name, d in defined().items()}
    text = str(source)
    path = Path(text)
    try:
        if path.suffix == ".py" or path.exists() or "/" in text:
            with loading(str(path.resolve())):
                _run_file(path)
        else:
            with loading(text):
                module = sys.modules.get(text)
                if module is None:
                    importlib.import_module(text)
                else:
                    importlib.reload(module)
    except InputError:
        raise
    except ModuleNotFoundError as error:
        raise InputError(
            f"no such module ({error}); --measures-from takes a Python file or a "
            "module's dotted name",
            source=text,
        ) from error
    except Exception as error:
        raise InputError(
            f"defining its measures raised {type(error).__name__}: {error}", source=text
        ) from error
    return [name for name, d in defined().items() if before.get(name) != id(d)]


def _run_file(path: Path) -> None:
    if not path.is_file():
        raise InputError(
            "no such file (--measures-from takes a Python file or a module's dotted name)",
            source=str(path),
        )
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode(), usedforsecurity=False).hexdigest()[:12]
    name = f"{FILE_MODULES}{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise InputError("not a Python file", source=str(path))
    module = importlib.util.module_from_spec(spec)
    # Registered first, so that pickle finds the module's functions by name (and dataclasses
    # their module) while it runs.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
