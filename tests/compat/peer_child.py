"""Peers called in a child process of their own: pytrec_eval reads memory it never wrote on some
queries without relevant or judged documents retrieved (it crashes, or returns NaN), so each
call runs in a fresh process whose crash is seen as ``None``.

The children are forked from multiprocessing's fork server, a small process that imported only
this module and the peers it calls, not from the test process: forking the test process (numpy,
pandas, numba's LLVM, the core...) for each of a property test's examples cost about 0.1 s a
call on a loaded machine, more than the comparison itself. This module imports nothing of
rankscope, hypothesis or pytest, so that the server stays small."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

_CONTEXT = multiprocessing.get_context("forkserver")
# Imported once by the server (where the tests' sys.path is the server's), not by each child.
_CONTEXT.set_forkserver_preload(["peer_child", "pytrec_eval", "ir_measures"])


def in_child(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` computed in a child process (``function`` a module-level function of
    this module, ``args`` picklable); None if the child crashes or fails."""
    mine, theirs = _CONTEXT.Pipe(duplex=False)
    child = _CONTEXT.Process(target=_send, args=(theirs, function, args), daemon=True)
    child.start()
    theirs.close()  # the child holds its own copy: a crash closes the pipe
    try:
        result = mine.recv()
    except EOFError:
        result = None
    finally:
        mine.close()
    child.join()
    return result if child.exitcode == 0 else None


def _send(connection: Connection, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    connection.send(function(*args))
    connection.close()


def pytrec_eval_dicts(
    qrels: dict[str, Any], run: dict[str, Any], measures: set[str], options: dict[str, Any]
) -> Any:
    """pytrec_eval's ``RelevanceEvaluator(qrels, measures, **options).evaluate(run)``."""
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)


def ir_measures_values(names: list[str], qrels: dict[str, Any], run: dict[str, Any]) -> Any:
    """ir_measures' default pipeline: ``{query: {measure: value}}`` of ``iter_calc``."""
    import ir_measures

    values: dict[str, dict[str, float]] = {}
    measures = [ir_measures.parse_measure(name) for name in names]
    for metric in ir_measures.iter_calc(measures, qrels, run):
        values.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    return values
