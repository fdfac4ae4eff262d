"""Distinct names for runs: two runs with the same tag must not print as two rows named alike."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

__all__ = ["distinct_names"]


def distinct_names(names: Sequence[str], sources: Sequence[str]) -> list[str]:
    """Each run's name; where names repeat, the file names of those runs; where those repeat
    too, ``#1``, ``#2``... after them.

    Examples
    --------
    >>> distinct_names(["bm25", "dense"], ["a/x.run", "b/x.run"])
    ['bm25', 'dense']
    >>> distinct_names(["STANDARD", "STANDARD", "other"], ["runs/a.trec", "runs/b.trec", "c"])
    ['a.trec', 'b.trec', 'other']
    >>> distinct_names(["tag", "tag"], ["x/run.txt", "y/run.txt"])
    ['run.txt#1', 'run.txt#2']
    """
    counts = Counter(names)
    chosen = [
        name if counts[name] == 1 else os.path.basename(source) or name
        for name, source in zip(names, sources, strict=True)
    ]
    repeated = Counter(chosen)
    seen: Counter[str] = Counter()
    unique = []
    for name in chosen:
        seen[name] += 1
        unique.append(name if repeated[name] == 1 else f"{name}#{seen[name]}")
    return unique
