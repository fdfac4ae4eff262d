"""Readers and writers: files and in-memory structures to `Qrels` and `Run`, results out."""

from rankscope.io.tables import Qrels, Run

__all__ = ["Qrels", "Run"]
