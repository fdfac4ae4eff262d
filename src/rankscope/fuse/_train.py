"""Training of the probabilistic fusion methods on judged queries.

ranx's ``*_train`` functions, computed in the core from each (normalised) run's hit lists:
for every judged query (sorted by id), 1 at each rank whose document is relevant
(grade >= ``relevance_level``), 0 elsewhere. A judged query a run lacks counts as an empty
ranking; queries without judgements are left out. MAPFuse's weights are each run's MAP by
rankscope's own ``AP`` (judged queries a run lacks scoring 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from rankscope.engine import evaluate
from rankscope.engine.native import FusionRuns
from rankscope.errors import InputError
from rankscope.fuse._fuse import EncodedRuns
from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, Qrels

__all__ = ["Judgements", "train"]


class Judgements:
    """Qrels in the codes of some encoded runs: which queries are judged, which pairs relevant."""

    def __init__(self, qrels: Qrels, encoded: EncodedRuns, relevance_level: int) -> None:
        frame = qrels.frame
        judged = np.zeros(len(encoded.query_ids), np.uint8)
        judged[encoded.query_codes(frame[QUERY_ID].unique())] = 1
        relevant = frame.filter(
            (pl.col(RELEVANCE) >= relevance_level) & pl.col(DOC_ID).is_in(encoded.doc_ids)
        )
        self.qrels = qrels
        self.judged = judged.tobytes()
        self.queries = encoded.query_codes(relevant[QUERY_ID]).tobytes()
        self.docs = encoded.doc_codes(relevant[DOC_ID]).tobytes()
        self.relevance_level = relevance_level


def train(
    method: str,
    encoded: EncodedRuns,
    normalized: FusionRuns,
    judgements: Judgements,
    n_segments: int = 0,
) -> dict[str, Any]:
    """The trained parameters of ``method`` (``probs``, ``map_scores`` or ``log_odds``)."""

    def core(kind: str) -> list[list[float]]:
        try:
            return normalized.train(
                kind, judgements.judged, judgements.queries, judgements.docs, n_segments
            )
        except ValueError as error:
            raise InputError(f"{method}: cannot train: {error.args[0]}") from None

    if method == "probfuse":
        return {"probs": core("probfuse")}
    if method == "segfuse":
        return {"probs": core("segfuse")}
    if method in ("posfuse", "slidefuse"):
        return {"probs": core("positions")}
    if method == "bayesfuse":
        return {"log_odds": core("bayesfuse")}
    if method == "mapfuse":
        scores = []
        for index in range(len(encoded.runs)):
            run = encoded.to_run(
                normalized.rows(index),
                encoded.runs[index].name,
                encoded.runs[index].query_ids,
            )
            results = evaluate(
                judgements.qrels,
                run,
                "AP",
                complete=True,
                relevance_level=judgements.relevance_level,
            )
            scores.append(results.mean()["AP"])
        return {"map_scores": scores}
    raise ValueError(f"{method} is not a trained method")
