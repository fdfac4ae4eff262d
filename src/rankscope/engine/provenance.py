"""Provenance: what produced a report (inputs, profile, measures, command, version, date), so
that a table pasted into a paper or a page shared with a colleague says where it came from; and
the distinct names runs are reported under."""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

import os
import shlex
import time
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Provenance", "command_line", "distinct_names"]


def command_line(argv: Sequence[str]) -> str:
    """The command as typed: ``rankscope`` and its arguments, quoted for a shell.

    Examples
    --------
    >>> command_line(["compare", "qrels.txt", "my run.trec", "-m", "P(rel=2)@5"])
    "rankscope compare qrels.txt 'my run.trec' -m 'P(rel=2)@5'"
    """
    return shlex.join(["rankscope", *argv])


class Provenance(NamedTuple):
    """Where a report came from.

    Attributes
    ----------
    qrels
        The judgements: a file path, or a description of the object (``<dict>``).
    runs
        Each run's name and where it came from, in report order.
    profile
        The profile the runs were evaluated with.
    measures
        The measures, canonical names.
    command
        The command line, or how the Python API was called.
    version
        rankscope's version.
    created
        When the report was made: UTC, ISO 8601, to the second.
    """

    qrels: str
    runs: tuple[tuple[str, str], ...]
    profile: str
    measures: tuple[str, ...]
    command: str
    version: str
    created: str

    @classmethod
    def now(
        cls,
        *,
        qrels: str,
        runs: Sequence[tuple[str, str]],
        profile: str,
        measures: Sequence[str],
        command: str,
    ) -> "Provenance":
        """A provenance stamped with this version of rankscope and the current time."""
        from rankscope import __version__

        return cls(
            qrels=qrels,
            runs=tuple(runs),
            profile=profile,
            measures=tuple(measures),
            command=command,
            version=__version__,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )

    def lines(self) -> list[str]:
        """One ``label: value`` line per field, for text formats.

        Examples
        --------
        >>> stamp = Provenance("q.txt", (("bm25", "bm25.run"),), "trec", ("AP",),
        ...                    "rankscope compare q.txt bm25.run", "0.1.0", "2025-01-02T03:04:05Z")
        >>> print("\\n".join(stamp.lines()))
        qrels: q.txt
        runs: bm25 (bm25.run)
        profile: trec; measures: AP
        command: rankscope compare q.txt bm25.run
        rankscope 0.1.0, 2025-01-02T03:04:05Z
        """
        runs = ", ".join(
            name if name == source else f"{name} ({source})" for name, source in self.runs
        )
        return [
            f"qrels: {self.qrels}",
            f"runs: {runs}",
            f"profile: {self.profile}; measures: {', '.join(self.measures)}",
            f"command: {self.command}",
            f"rankscope {self.version}, {self.created}",
        ]

    def to_dict(self) -> dict[str, object]:
        """The fields as JSON-ready values."""
        return {
            "qrels": self.qrels,
            "runs": [{"name": name, "source": source} for name, source in self.runs],
            "profile": self.profile,
            "measures": list(self.measures),
            "command": self.command,
            "rankscope_version": self.version,
            "created": self.created,
        }


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
