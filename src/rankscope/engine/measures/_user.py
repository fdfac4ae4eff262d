"""Measures defined by users: a Python function registered as a family of the core's registry.

The core parses the family's names with the same grammar as the built-in ones, checks its
parameters, lists it, and aggregates its values; for each batch of queries it calls back here
once, with the batch's arrays, and this module hands them to the function as numpy views: per
query (slices of the batch's arrays, no copy per document) or, with ``vectorized=True``, all
at once with their offsets.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rankscope import _core
from rankscope.errors import MeasureError, UserMeasureError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Definition", "define", "defined", "definitions_of", "loading", "undefine"]

Cutoff = Literal["none", "optional", "required"]
Aggregate = Literal["mean", "geometric_mean", "sum"]
Default = bool | int | float | Sequence[str]


@dataclass(frozen=True)
class Definition:
    """What `define` was given for a measure: enough to define it again elsewhere (a Spark
    executor, a service resuming a task). The function must pickle there (a module's
    function, or cloudpickle's by value)."""

    name: str
    fn: Callable[..., Any]
    params: tuple[tuple[str, Default], ...]
    cutoff: Cutoff
    aggregate: Aggregate
    bounded: bool
    vectorized: bool
    summary: str
    source: str | None = None
    """The file or module that defined it (`rankscope.measures.load`), if one did."""

    def register(self) -> str:
        """Register this definition in the core (replacing one of the same name); the
        family's name."""
        scorer = _Scorer(self.fn, self.vectorized)
        origin = f"defined by {_origin(self.fn)}"
        rest = (inspect.getdoc(self.fn) or "").partition("\n")[2]
        formula = " ".join(rest.split()) or (
            "fn(ranked, offsets, judged, judged_offsets, k, rel, ...)"
            if self.vectorized
            else "fn(ranked, judged, k, rel, ...) per query"
        )
        name: str = _core.define_measure(
            self.name,
            self.summary,
            formula,
            origin,
            self.cutoff,
            [(key, _given(value)) for key, value in self.params],
            self.aggregate,
            self.bounded,
            scorer,
        )
        _DEFINED[name.lower()] = self
        _forget(name)
        return name


_DEFINED: dict[str, Definition] = {}


def define(
    name: str,
    fn: Callable[..., Any],
    *,
    params: Mapping[str, Default] | None = None,
    cutoff: Cutoff = "optional",
    aggregate: Aggregate = "mean",
    bounded: bool = False,
    vectorized: bool = False,
    summary: str | None = None,
) -> str:
    """Register ``fn`` as the measure family ``name``; see `rankscope.measures.define`."""
    if not isinstance(name, str):
        raise MeasureError(f"a measure's name is a string; got {name!r}", measure=repr(name))
    if not callable(fn):
        raise MeasureError(f"{name}: fn must be callable; got {fn!r}", measure=name)
    if summary is None:
        summary = (inspect.getdoc(fn) or "").strip().partition("\n")[0] or name
    definition = Definition(
        name=name,
        fn=fn,
        params=tuple((params or {}).items()),
        cutoff=cutoff,
        aggregate=aggregate,
        bounded=bool(bounded),
        vectorized=bool(vectorized),
        summary=summary,
        source=_LOADING[-1] if _LOADING else None,
    )
    try:
        return definition.register()
    except ValueError as error:
        if isinstance(error, MeasureError):
            raise
        raise MeasureError(f"{name}: {error}", measure=name) from None


def undefine(name: str) -> bool:
    """Remove the measure defined as ``name``; whether there was one."""
    found: bool = _core.undefine_measure(name)
    _DEFINED.pop(name.lower(), None)
    _forget(name)
    return found


def defined() -> dict[str, Definition]:
    """The measures defined in this process, by name, in the order they were defined."""
    return {definition.name: definition for definition in _DEFINED.values()}


def definitions_of(measures: Iterable[str]) -> tuple[Definition, ...]:
    """The definitions of the user-defined measures among ``measures`` (names), each once."""
    from rankscope.engine.measures._registry import FAMILIES, measure

    found: dict[str, Definition] = {}
    for name in measures:
        family = measure(name).family
        definition = _DEFINED.get(family.lower())
        if definition is not None and FAMILIES[family].kind == "user":
            found.setdefault(family, definition)
    return tuple(found.values())


_LOADING: list[str] = []


@contextmanager
def loading(source: str) -> Iterator[None]:
    """Definitions made inside name ``source`` as the module that made them."""
    _LOADING.append(source)
    try:
        yield
    finally:
        _LOADING.pop()


def _forget(name: str) -> None:
    """Let the registry's mapping read the families again."""
    from rankscope.engine.measures._registry import FAMILIES

    forget = getattr(FAMILIES, "forget", None)
    if forget is not None:
        forget(name)


def _given(value: Default) -> object:
    """A default as the core reads it: words as a list, the rest as they are."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    return value


def _origin(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    qualname = getattr(fn, "__qualname__", None) or repr(fn)
    return f"{module}.{qualname}"


class _Scorer:
    """What the core calls once per batch: the arrays as numpy views, ``fn`` per query or once,
    the values checked."""

    def __init__(self, fn: Callable[..., Any], vectorized: bool) -> None:
        self.fn = fn
        self.vectorized = vectorized

    def __call__(
        self,
        measure: str,
        params: dict[str, Any],
        cutoff: int | None,
        relevance_level: int,
        query_ids: list[str],
        grades: bytes,
        offsets: bytes,
        judged: bytes,
        judged_offsets: bytes,
    ) -> npt.NDArray[np.float64]:
        import numpy as np

        ranked = np.frombuffer(grades, dtype=np.int64)
        starts = np.frombuffer(offsets, dtype=np.int64)
        ideal = np.frombuffer(judged, dtype=np.int64)
        ideal_starts = np.frombuffer(judged_offsets, dtype=np.int64)
        options = {"k": cutoff, "rel": relevance_level, **params}
        if self.vectorized:
            return self._all(measure, query_ids, (ranked, starts, ideal, ideal_starts), options)
        values = np.empty(len(query_ids), dtype=np.float64)
        fn = self.fn
        bounds, ideal_bounds = starts.tolist(), ideal_starts.tolist()
        for q in range(len(query_ids)):
            try:
                value = fn(
                    ranked[bounds[q] : bounds[q + 1]],
                    ideal[ideal_bounds[q] : ideal_bounds[q + 1]],
                    **options,
                )
            except Exception as error:
                raise _raised(measure, query_ids[q], error) from error
            try:
                values[q] = value
            except (TypeError, ValueError):
                raise _not_a_number(measure, query_ids[q], value) from None
            if not math.isfinite(values[q]):
                raise _not_a_number(measure, query_ids[q], value)
        return values

    def _all(
        self,
        measure: str,
        query_ids: list[str],
        arrays: tuple[npt.NDArray[np.int64], ...],
        options: dict[str, Any],
    ) -> npt.NDArray[np.float64]:
        import numpy as np

        try:
            returned = self.fn(*arrays, **options)
        except Exception as error:
            raise _raised(measure, None, error) from error
        try:
            values = np.asarray(returned, dtype=np.float64)
        except (TypeError, ValueError):
            raise _not_a_number(measure, None, returned) from None
        if values.shape != (len(query_ids),):
            raise UserMeasureError(
                f"{measure}: expected one value per query ({len(query_ids)}); got an array of "
                f"shape {values.shape}",
                measure=measure,
            )
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            first = int(bad[0])
            raise _not_a_number(measure, query_ids[first], values[first])
        return np.ascontiguousarray(values)


def _raised(measure: str, query: str | None, error: Exception) -> UserMeasureError:
    where = "" if query is None else f" on query {query!r}"
    return UserMeasureError(
        f"{measure} raised{where}: {type(error).__name__}: {error}", measure=measure, query=query
    )


def _not_a_number(measure: str, query: str | None, value: object) -> UserMeasureError:
    where = "for every query" if query is None else f"for query {query!r}"
    return UserMeasureError(
        f"{measure} must give a finite number {where}; got {value!r}",
        measure=measure,
        query=query,
    )
