"""The column names of `Qrels` and `Run` tables (here, apart from the tables, so that format
detection needs no polars)."""

__all__ = ["DOC_ID", "QUERY_ID", "RELEVANCE", "SCORE", "SUBTOPIC"]

QUERY_ID = "query_id"
DOC_ID = "doc_id"
RELEVANCE = "relevance"
SCORE = "score"
SUBTOPIC = "subtopic"
"""The optional column of diversity qrels: the subtopic (intent) a judgement is for."""
