"""Readers and writers: files and in-memory structures to `Qrels` and `Run`, and back.

Formats (detected from the extension and the first line, or named with ``format=``):

=========  ==================================================================================
trec       qrels ``query_id iteration doc_id relevance``; runs ``query_id Q0 doc_id rank score
           run_tag``; whitespace-separated, ``#`` comments and blank lines allowed
jsonl      one object per line: per judgement (``query_id``, ``doc_id``, ``relevance`` /
           ``score``), per query (``relevant_doc_ids`` / ``doc_ids`` lists, ``results``)
csv, tsv   a header row and named columns (BEIR's qrels are tsv)
parquet    named columns
=========  ==================================================================================

Any file may be compressed (.gz, .bz2, .xz, .zst); ``-`` is standard input or output. A JSON
file holding one object ``{query_id: {doc_id: value}}`` (ranx, pytrec_eval) reads as such.
`as_qrels` and `as_run` take anything `rankscope.evaluate` takes: files, dicts, frames (polars,
pandas, pyarrow, datasets, Arrow streams) and iterables of records (ir_datasets, ir_measures).
`read_corpus` and `read_queries` read the texts of documents and queries by id (BEIR's JSONL,
MS MARCO's TSV, WeKnora's Parquet).

Examples
--------
>>> import pathlib, tempfile
>>> from rankscope.io import Run, read_run, write_run
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_run(Run.from_lists({"q1": ["d2", "d1"]}, name="bm25"), folder / "run.jsonl.gz", "jsonl")
>>> read_run(folder / "run.jsonl.gz").frame.rows()
[('q1', 'd2', 2.0), ('q1', 'd1', 1.0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope._lazy import lazy_attributes
from rankscope.io._files import open_output
from rankscope.io._formats import FORMATS

if TYPE_CHECKING:
    from rankscope.io._inputs import as_qrels, as_run
    from rankscope.io._read import read_qrels, read_run
    from rankscope.io._stream import read_run_batches
    from rankscope.io._texts import read_corpus, read_queries
    from rankscope.io._write import write_qrels, write_run
    from rankscope.io.tables import Qrels, Run

__all__ = [
    "FORMATS",
    "Qrels",
    "Run",
    "as_qrels",
    "as_run",
    "open_output",
    "read_corpus",
    "read_qrels",
    "read_queries",
    "read_run",
    "read_run_batches",
    "write_qrels",
    "write_run",
]

# The readers, writers and tables use polars: they are imported on first use, so that
# importing rankscope (and reading TREC files with the core) does not load it.
__getattr__ = lazy_attributes(
    __name__,
    {
        "Qrels": "rankscope.io.tables",
        "Run": "rankscope.io.tables",
        "as_qrels": "rankscope.io._inputs",
        "as_run": "rankscope.io._inputs",
        "read_qrels": "rankscope.io._read",
        "read_run": "rankscope.io._read",
        "read_run_batches": "rankscope.io._stream",
        "read_corpus": "rankscope.io._texts",
        "read_queries": "rankscope.io._texts",
        "write_qrels": "rankscope.io._write",
        "write_run": "rankscope.io._write",
    },
)
