"""What in the data makes conventions matter: the causes of disagreement that are properties
of the qrels and the run (ties, scores equal as 32-bit floats, duplicates, negative grades,
graded judgements, queries missing, rankings shorter than the cut-off), found and counted.

A convention can change a number only where the data gives it something to decide: tie order
matters only where scores tie (and the tied documents' grades differ), float32 only where two
scores collide when rounded, the gain only where a grade is above 1. Each `Finding` says how
many queries and documents are concerned and which conventions (or options) it bears on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankscope.io.tables import DOC_ID, QUERY_ID, RELEVANCE, SCORE

if TYPE_CHECKING:
    import polars as pl

    from rankscope.io.tables import Qrels, Run

__all__ = ["Finding", "find_causes"]

SHOWN = 3
"""How many examples a finding names."""

SHOWN_TIED = 4
"""How many documents of a group of tied scores an example names."""


@dataclass(frozen=True)
class Finding:
    """One property of the data that lets a convention (or an option) change the measure.

    Attributes
    ----------
    cause
        A short name: ``ties``, ``float32_collisions``, ``duplicates``, ``negative_grades``,
        ``graded_judgements``, ``unjudged_retrieved``, ``self_retrieved``, ``deep_judgements``,
        ``short_rankings``, ``missing_queries``, ``unjudged_queries``, ``input_order``.
    summary
        What was found, as a sentence.
    queries
        How many queries are concerned.
    documents
        How many documents (or judgements, or groups of tied documents) are concerned.
    examples
        A few of them (``q1: d1 = d3 (0.5)``).
    bears_on
        The conventions and options it lets matter (``ordering``, ``complete``, ...).
    """

    cause: str
    summary: str
    queries: int
    documents: int
    examples: tuple[str, ...]
    bears_on: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        """The finding as plain values (for JSON)."""
        return {
            "cause": self.cause,
            "summary": self.summary,
            "queries": self.queries,
            "documents": self.documents,
            "examples": list(self.examples),
            "bears_on": list(self.bears_on),
        }


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _groups(frame: pl.DataFrame, key: str) -> tuple[int, int, int, int, tuple[str, ...]]:
    """Of groups of documents (``docs``, ``grades``: distinct gains, ``shown``: the score),
    how many, in how many queries, how many documents, how many with grades that differ, and
    examples (those whose grades differ first)."""
    import polars as pl

    if frame.is_empty():
        return 0, 0, 0, 0, ()
    differ = frame.filter(pl.col("grades") > 1)
    examples = pl.concat([differ, frame.filter(pl.col("grades") <= 1)]).head(SHOWN)
    shown = tuple(
        f"{query}: {' = '.join(docs[:SHOWN_TIED])}{' = ...' if len(docs) > SHOWN_TIED else ''} "
        f"({score:.9g})"
        for query, docs, score in examples.select(
            QUERY_ID, "docs", pl.col(key).cast(pl.Float64)
        ).iter_rows()
    )
    return (
        frame.height,
        frame[QUERY_ID].n_unique(),
        int(frame["n"].sum()),
        differ.height,
        shown,
    )


def find_causes(
    qrels: Qrels, run: Run, *, cutoff: int | None, relevance_level: int = 1
) -> list[Finding]:
    """The properties of ``qrels`` and ``run`` that let conventions matter, for a measure cut
    at ``cutoff`` (None: no cut-off), each counted (only those present).

    Examples
    --------
    >>> from rankscope.io import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"c": 2}})
    >>> run = Run.from_dict({"q1": {"a": 0.5, "b": 0.5}})
    >>> [finding.cause for finding in find_causes(qrels, run, cutoff=10)]
    ['missing_queries', 'graded_judgements', 'short_rankings', 'ties']
    >>> ties = find_causes(qrels, run, cutoff=10)[-1]
    >>> ties.summary.split(";")[0], ties.examples
    ('1 group of equal scores in 1 query (2 documents)', ('q1: a = b (0.5)',))
    """
    import polars as pl

    judged = qrels.frame.select(QUERY_ID, DOC_ID, RELEVANCE)
    ranked = run.frame.select(QUERY_ID, DOC_ID, SCORE).with_row_index("position")
    unique_judged = judged.unique([QUERY_ID, DOC_ID], keep="first", maintain_order=True)
    joined = ranked.join(unique_judged, on=[QUERY_ID, DOC_ID], how="left", maintain_order="left")
    gain = pl.col(RELEVANCE).fill_null(0).clip(lower_bound=0)
    found: list[Finding] = []

    judged_queries = set(judged[QUERY_ID].unique().to_list())
    run_queries = set(ranked[QUERY_ID].unique().to_list())
    missing = sorted(judged_queries - run_queries)
    if missing:
        found.append(
            Finding(
                "missing_queries",
                f"{_plural(len(missing), 'judged query', 'judged queries')} "
                f"{'has' if len(missing) == 1 else 'have'} no ranking in the run: left out of "
                "the mean, unless complete=True (trec_eval -c, ir_measures) scores them",
                len(missing),
                0,
                tuple(missing[:SHOWN]),
                ("complete", "missing_query_ranking"),
            )
        )
    unjudged_queries = sorted(run_queries - judged_queries)
    if unjudged_queries:
        found.append(
            Finding(
                "unjudged_queries",
                f"{_plural(len(unjudged_queries), 'query', 'queries')} of the run "
                f"{'has' if len(unjudged_queries) == 1 else 'have'} no judgements and "
                f"{'is' if len(unjudged_queries) == 1 else 'are'} ignored (a tool that scores "
                "them 0 gives a lower mean)",
                len(unjudged_queries),
                0,
                tuple(unjudged_queries[:SHOWN]),
                (),
            )
        )

    duplicates = ranked.group_by(QUERY_ID, DOC_ID).agg(pl.len().alias("n")).filter(pl.col("n") > 1)
    if not duplicates.is_empty():
        duplicates = duplicates.sort(QUERY_ID, DOC_ID)
        found.append(
            Finding(
                "duplicates",
                f"{_plural(duplicates.height, 'document')} ranked more than once in "
                f"{_plural(duplicates[QUERY_ID].n_unique(), 'query', 'queries')}: an error "
                "under trec, the first occurrence under keep_first, every one under keep_all",
                duplicates[QUERY_ID].n_unique(),
                duplicates.height,
                tuple(f"{q}: {d} x{n}" for q, d, n in duplicates.head(SHOWN).iter_rows()),
                ("duplicate_documents",),
            )
        )

    negative = judged.filter(pl.col(RELEVANCE) < 0)
    if not negative.is_empty():
        found.append(
            Finding(
                "negative_grades",
                f"{_plural(negative.height, 'judgement')} with a negative grade in "
                f"{_plural(negative[QUERY_ID].n_unique(), 'query', 'queries')}: unjudged "
                "(gain 0) under trec_eval's rules, dropped from the ranking by "
                "unjudged_documents='drop', relevant below relevance level 0",
                negative[QUERY_ID].n_unique(),
                negative.height,
                tuple(f"{q}: {d} = {g}" for q, d, g in negative.head(SHOWN).iter_rows()),
                ("unjudged_documents", "relevance_level"),
            )
        )

    graded = judged.filter(pl.col(RELEVANCE) > 1)
    if not graded.is_empty():
        found.append(
            Finding(
                "graded_judgements",
                f"{_plural(graded.height, 'judgement')} above grade 1 in "
                f"{_plural(graded[QUERY_ID].n_unique(), 'query', 'queries')}: the gain "
                "(grade or 2^grade - 1), binary relevance and the relevance level change "
                "graded measures there",
                graded[QUERY_ID].n_unique(),
                graded.height,
                tuple(f"{q}: {d} = {g}" for q, d, g in graded.head(SHOWN).iter_rows()),
                ("gain", "binary_relevance", "relevance_level"),
            )
        )

    unjudged = joined.filter(pl.col(RELEVANCE).is_null() | (pl.col(RELEVANCE) < 0))
    if not unjudged.is_empty():
        found.append(
            Finding(
                "unjudged_retrieved",
                f"{_plural(unjudged.height, 'retrieved document')} in "
                f"{_plural(unjudged[QUERY_ID].n_unique(), 'query', 'queries')} "
                f"{'has' if unjudged.height == 1 else 'have'} no judgement: non-relevant "
                "where unjudged documents are kept, gone from the ranking where they are dropped "
                "(trec_eval -J, condensed lists)",
                unjudged[QUERY_ID].n_unique(),
                unjudged.height,
                tuple(f"{q}: {d}" for q, d in unjudged.select(QUERY_ID, DOC_ID).head(SHOWN).rows()),
                ("unjudged_documents",),
            )
        )

    itself = ranked.filter(pl.col(QUERY_ID) == pl.col(DOC_ID))
    if not itself.is_empty():
        found.append(
            Finding(
                "self_retrieved",
                f"{_plural(itself.height, 'query', 'queries')} "
                f"{'retrieves' if itself.height == 1 else 'retrieve'} a document with "
                "the query's own id: BEIR's evaluation drops it (ignore_identical_ids=True), "
                "trec_eval keeps it",
                itself[QUERY_ID].n_unique(),
                itself.height,
                tuple(f"{q}: {d}" for q, d in itself.select(QUERY_ID, DOC_ID).head(SHOWN).rows()),
                (),
            )
        )

    if cutoff is not None:
        relevant_counts = (
            judged.filter(pl.col(RELEVANCE) >= 1)
            .group_by(QUERY_ID)
            .agg(pl.len().alias("relevant"))
            .filter(pl.col("relevant") > cutoff)
            .sort(QUERY_ID)
        )
        if not relevant_counts.is_empty():
            found.append(
                Finding(
                    "deep_judgements",
                    f"{_plural(relevant_counts.height, 'query', 'queries')} "
                    f"{'has' if relevant_counts.height == 1 else 'have'} more than {cutoff} "
                    f"relevant documents: an ideal ranking cut at {cutoff} (ndcg_cut.{cutoff}) "
                    f"is smaller than the whole one (ndcg with -M {cutoff})",
                    relevant_counts.height,
                    int(relevant_counts["relevant"].sum()),
                    tuple(f"{q}: {n} relevant" for q, n in relevant_counts.head(SHOWN).iter_rows()),
                    ("max_documents",),
                )
            )
        lengths = ranked.group_by(QUERY_ID).agg(pl.len().alias("retrieved"))
        relevant = (
            judged.filter(pl.col(RELEVANCE) >= max(relevance_level, 1))
            .group_by(QUERY_ID)
            .agg(pl.len().alias("relevant"))
        )
        short = (
            lengths.join(relevant, on=QUERY_ID, how="left")
            .with_columns(pl.col("relevant").fill_null(0))
            .filter(pl.col("retrieved") < cutoff)
            .sort(QUERY_ID)
        )
        if not short.is_empty():
            fewer = short.filter(pl.col("retrieved") < pl.min_horizontal("relevant", cutoff))
            found.append(
                Finding(
                    "short_rankings",
                    f"{_plural(short.height, 'query', 'queries')} "
                    f"{'retrieves' if short.height == 1 else 'retrieve'} fewer than "
                    f"{cutoff} documents (P@{cutoff} divides by {cutoff} or by the number "
                    f"retrieved); {fewer.height} of them fewer than "
                    f"{'its' if fewer.height == 1 else 'their'} relevant documents (an ideal "
                    "ranking capped by the retrieved ones is shorter)",
                    short.height,
                    int(short["retrieved"].sum()),
                    tuple(f"{q}: {n} retrieved" for q, n, _ in short.head(SHOWN).iter_rows()),
                    ("precision_denominator", "ideal_ranking"),
                )
            )

    ties = (
        joined.group_by(QUERY_ID, SCORE, maintain_order=True)
        .agg(pl.len().alias("n"), gain.n_unique().alias("grades"), pl.col(DOC_ID).alias("docs"))
        .filter(pl.col("n") > 1)
    )
    groups, queries, documents, differ, shown = _groups(ties, SCORE)
    if groups:
        found.append(
            Finding(
                "ties",
                f"{_plural(groups, 'group')} of equal scores in "
                f"{_plural(queries, 'query', 'queries')} ({_plural(documents, 'document')}); "
                f"in {differ} the tied documents' grades differ, so tie order changes the "
                "measure there",
                queries,
                documents,
                shown,
                ("ordering",),
            )
        )

    collisions = (
        joined.with_columns(pl.col(SCORE).cast(pl.Float32).alias("float32"))
        .group_by(QUERY_ID, "float32", maintain_order=True)
        .agg(
            pl.col(SCORE).n_unique().alias("distinct"),
            pl.len().alias("n"),
            gain.n_unique().alias("grades"),
            pl.col(DOC_ID).alias("docs"),
        )
        .filter(pl.col("distinct") > 1)
    )
    groups, queries, documents, differ, shown = _groups(collisions, "float32")
    if groups:
        found.append(
            Finding(
                "float32_collisions",
                f"{_plural(groups, 'group')} of distinct scores equal as 32-bit floats in "
                f"{_plural(queries, 'query', 'queries')} ({_plural(documents, 'document')}): "
                f"ties under float32 (trec_eval <= 9, pytrec_eval); in {differ} the grades "
                "differ",
                queries,
                documents,
                shown,
                ("score_precision",),
            )
        )

    unsorted = (
        joined.sort("position")
        .group_by(QUERY_ID, maintain_order=True)
        .agg((pl.col(SCORE).diff() > 0).any().alias("rises"))
        .filter(pl.col("rises"))
    )
    if not unsorted.is_empty():
        found.append(
            Finding(
                "input_order",
                f"{_plural(unsorted.height, 'query', 'queries')} "
                f"{'lists' if unsorted.height == 1 else 'list'} documents in an order "
                "other than by descending score: a tool that keeps the input's order ranks "
                "them otherwise",
                unsorted.height,
                0,
                tuple(unsorted[QUERY_ID].head(SHOWN).to_list()),
                ("ordering",),
            )
        )
    return found
