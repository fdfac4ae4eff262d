"""The built-in BM25 baseline: bm25s over the dataset's corpus, deterministic top k.

Text is lower-cased and cut into words; runs of CJK characters (which have no spaces between
words) become their single characters and their character bigrams, so the baseline works on
Chinese, Japanese and Korean questions such as WeKnora's sample. Documents that share no term
with the question are not returned; ties in score are broken by corpus order, so a ranking is
the same in every run (a resumed task must reproduce an uninterrupted one exactly).
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import numpy as np

from rankscope.errors import InputError, MissingDependencyError, require
from rankscope.service.sources.datasets import Dataset
from rankscope.service.sources.retrievers import Ranking, Retriever, corpus_digest

__all__ = ["BM25Retriever", "tokenize"]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]")


def tokenize(text: str) -> list[str]:
    """Lower-cased words; CJK runs as characters and character bigrams.

    >>> tokenize("Mac OS 操作系统")
    ['mac', 'os', '操', '作', '系', '统', '操作', '作系', '系统']
    """
    tokens: list[str] = []
    for match in _TOKEN.finditer(text.lower()):
        run = match.group()
        if _CJK_RUN.match(run):
            tokens.extend(run)
            tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            tokens.append(run)
    return tokens


class BM25Retriever(Retriever):
    """BM25 (Robertson et al., parameters ``k1`` and ``b``) over a dataset's corpus, via bm25s."""

    spec: dict[str, Any]

    def __init__(self, dataset: Dataset, spec: dict[str, Any]) -> None:
        if not dataset.has_corpus:
            raise InputError(
                f"the BM25 baseline needs a corpus; dataset {dataset.name!r} has none "
                "(give --corpus, or a WeKnora or BEIR directory)"
            )
        self.dataset = dataset
        self.spec = dict(spec)
        self._doc_ids: list[str] = []
        self._index: Any = None

    def check(self) -> list[tuple[str, str]]:
        """Read the corpus and keep its digest in the specification, refusing a corpus that
        changed since the task started (the index is built by `build`); the documents."""
        # Found, not imported: a pending task costs no memory for bm25s (and what it loads).
        require(("bm25s",), "the BM25 baseline", "service")
        documents = self.dataset.corpus()
        digest = corpus_digest(documents)
        expected = self.spec.get("corpus_digest")
        if expected is not None and expected != digest:
            raise InputError(
                f"the corpus of dataset {self.dataset.name!r} changed since the task started; "
                "BM25 rankings would differ from those already recorded"
            )
        self.spec["corpus_digest"] = digest
        return documents

    def build(self) -> None:
        """Read the corpus and index it (done by `open`)."""
        try:
            import bm25s  # type: ignore[import-untyped]
        except ImportError:
            raise MissingDependencyError("bm25s", "the BM25 baseline", "service") from None

        documents = self.check()
        index = bm25s.BM25(k1=float(self.spec.get("k1", 1.5)), b=float(self.spec.get("b", 0.75)))
        index.index([tokenize(text) for _, text in documents], show_progress=False)
        self._doc_ids = [doc_id for doc_id, _ in documents]
        self._index = index

    async def open(self, concurrency: int) -> None:
        if self._index is None:
            await asyncio.to_thread(self.build)

    def search(self, text: str, k: int) -> tuple[list[str], list[float]]:
        """The top ``k`` documents with a positive score, best first, ties by corpus order."""
        if self._index is None:
            self.build()
        tokens = tokenize(text)
        if not tokens:
            return [], []
        scores = np.asarray(self._index.get_scores(tokens), dtype=np.float64)
        matched = np.flatnonzero(scores > 0)
        order = matched[np.lexsort((matched, -scores[matched]))][:k]
        return [self._doc_ids[i] for i in order], [float(scores[i]) for i in order]

    async def retrieve(self, query_id: str, text: str, k: int) -> Ranking:
        started = time.perf_counter()
        doc_ids, scores = await asyncio.to_thread(self.search, text, k)
        return Ranking(doc_ids, scores, 1, time.perf_counter() - started)

    def describe(self) -> str:
        return f"bm25(k1={self.spec.get('k1', 1.5)}, b={self.spec.get('b', 0.75)})"
