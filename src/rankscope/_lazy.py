"""Attributes of a package imported on first use (PEP 562), for the parts that need numpy or
polars: `import rankscope` must load neither."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["callable_package", "lazy_attributes", "lazy_dir"]


def lazy_attributes(
    package: str, homes: dict[str, str], submodules: Iterable[str] = ()
) -> Callable[[str], Any]:
    """A module ``__getattr__`` giving each name of ``homes`` from the module named beside it,
    and each of ``submodules`` (the package's own subpackages, ``package.name``), imported when
    the name is first asked for (then kept in the package)."""
    subpackages = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in subpackages:
            # Importing a submodule binds it in its package: later lookups do not come here.
            return importlib.import_module(f"{package}.{name}")
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def lazy_dir(public: Iterable[str], submodules: Iterable[str] = ()) -> Callable[[], list[str]]:
    """A module ``__dir__`` listing the public names and subpackages, loaded or not, so that
    tab completion finds them before first use."""
    names = sorted({*public, *submodules})

    def __dir__() -> list[str]:
        return list(names)

    return __dir__


def callable_package(package: str, function: Callable[..., Any]) -> None:
    """Make the package ``package`` callable as ``function``: ``rankscope.fuse`` and
    ``rankscope.explain`` name both a package and its function, and calling the package calls
    the function, so that either meaning works whatever was imported first."""

    class _CallablePackage(types.ModuleType):
        __doc__ = f"The package {package}, callable as its function {function.__name__}."

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

    sys.modules[package].__class__ = _CallablePackage
