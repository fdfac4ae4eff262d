"""What a client of the server may make it do: read datasets under its data roots, import the
callables and call the URLs its allow-lists admit (as retrievers and as generators)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankscope.service.sources.allow import LOOPBACK_URLS, check_allowed
from rankscope.service.sources.datasets import Dataset, load_dataset
from rankscope.service.sources.files import checked_path, within_roots
from rankscope.service.sources.retrievers import parse_retriever_spec
from rankscope.service.tasks.info import TaskInfo

__all__ = ["Policy"]

_DATASET_KEYS = ("path", "split", "queries", "qrels", "corpus", "name")


@dataclass(frozen=True)
class Policy:
    """A server's limits.

    Attributes
    ----------
    data_roots
        Directories the datasets must lie in (resolved).
    allowed_callables
        ``module:name`` patterns of the callables a client may name (none by default).
    allowed_urls
        Patterns of the retriever URLs a client may name (loopback by default).
    """

    data_roots: tuple[Path, ...]
    allowed_callables: tuple[str, ...] = ()
    allowed_urls: tuple[str, ...] = LOOPBACK_URLS

    @classmethod
    def make(
        cls,
        data_roots: Sequence[str | Path] | None,
        allowed_callables: Sequence[str],
        allowed_urls: Sequence[str] | None,
    ) -> Policy:
        """The policy, with the working directory as the root when none is given."""
        roots = data_roots if data_roots else [os.getcwd()]
        return cls(
            tuple(Path(root).resolve() for root in roots),
            tuple(allowed_callables),
            LOOPBACK_URLS if allowed_urls is None else tuple(allowed_urls),
        )

    def dataset(self, given: str | Mapping[str, Any]) -> Dataset:
        """Read a client's dataset (a directory, or the options of `load_dataset`), relative
        paths taken from the first data root."""
        options = {"path": given} if isinstance(given, str) else dict(given)
        unknown = sorted(set(options) - set(_DATASET_KEYS))
        if unknown:
            from rankscope.errors import InputError

            raise InputError(f"unknown dataset options {unknown}; expected some of {_DATASET_KEYS}")
        for key in ("path", "queries", "qrels", "corpus"):
            value = options.get(key)
            if value is not None:
                options[key] = str(self.data_roots[0] / value)
        return load_dataset(
            **{key: value for key, value in options.items() if value is not None},
            data_roots=self.data_roots,
        )

    def retriever(self, given: str | Mapping[str, Any]) -> dict[str, Any]:
        """A client's retriever specification, checked against the allow-lists."""
        spec = parse_retriever_spec(given)
        check_allowed(spec, self.allowed_callables, self.allowed_urls)
        return spec

    def generator(self, given: str | Mapping[str, Any]) -> dict[str, Any]:
        """A client's generator specification, checked against the allow-lists."""
        from rankscope.service.sources.generators import parse_generator_spec

        spec = parse_generator_spec(given)
        check_allowed(spec, self.allowed_callables, self.allowed_urls, role="generator")
        return spec

    def judge(self, given: str | Mapping[str, Any]) -> dict[str, Any]:
        """A client's judge specification, checked against the allow-lists."""
        from rankscope.service.sources.judges import check_judge, parse_judge_spec

        spec = parse_judge_spec(given)
        check_judge(spec, self.allowed_callables, self.allowed_urls)
        return spec

    def data_file(self, given: str) -> str:
        """A client's file (relative paths taken from the first data root), checked to be a
        regular file inside the data roots."""
        from rankscope.service.sources.files import regular_file

        with within_roots(self.data_roots):
            return str(regular_file(self.data_roots[0] / given))

    def check_resume(self, info: TaskInfo) -> None:
        """Refuse to resume a task whose retriever, generator, judge of answers or dataset the
        policy does not admit."""
        check_allowed(info.retriever, self.allowed_callables, self.allowed_urls)
        if info.generator is not None:
            check_allowed(
                info.generator, self.allowed_callables, self.allowed_urls, role="generator"
            )
        if info.spec.answer_judge is not None:
            from rankscope.service.sources.judges import check_judge

            check_judge(info.spec.answer_judge["judge"], self.allowed_callables, self.allowed_urls)
        with within_roots(self.data_roots):
            for value in (info.dataset.get("location") or {}).values():
                if isinstance(value, str) and os.path.isabs(value):
                    checked_path(value)
