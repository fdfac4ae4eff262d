"""What the layers above the engine use of the compiled core directly: fusion's runs held in
the core, the per-query values an evaluation returns, and aggregation as the core does it.

The engine (with `rankscope.io._native`) is the only package that imports the private
``rankscope._core``; `rankscope.fuse`, `rankscope.compat`, `rankscope.report` and the command
line reach the core through here; so do trec_eval's measure selection, text output and ``-Z``
file, and `rankscope evaluate`'s table, which the core renders for the Python command and the
native executable alike, as it words errors in the command line's terms; and
`rankscope.answers`' BLEU, ROUGE and tokenizers.

Examples
--------
>>> aggregate([1.0, 4.0], "geometric_mean"), aggregate([1.0, 4.0], "sum")
(2.0, 5.0)
"""

from rankscope import _core

__all__ = [
    "FusionRuns",
    "PerQuery",
    "aggregate",
    "answer_tokens",
    "format_results",
    "format_trec_eval",
    "in_cli_terms",
    "non_integer_grade",
    "read_zscores",
    "results_rows",
    "score_answers",
    "score_weknora_answers",
    "trec_eval_lines",
    "trec_eval_negative_first_query",
    "trec_eval_undetermined",
]

FusionRuns = _core.FusionRuns
"""Several runs' rankings held by the core over shared query and document codes, for fusion."""

PerQuery = _core.PerQuery
"""Per-query values of an evaluation: rows by query id (byte-wise), one column per measure."""

answer_tokens = _core.answer_tokens
"""The tokens of a text by a reference package's tokenizer (``13a``, ``zh``, ``char``, ``none``,
``rouge``)."""

score_answers = _core.score_answers
"""BLEU and ROUGE of a batch of answers against their references, one column per measure."""

score_weknora_answers = _core.score_weknora_answers
"""WeKnora's BLEU and ROUGE of a batch of answers, given as sentences of space-joined words."""


def aggregate(values: list[float], how: str) -> float:
    """Per-query values combined as the core combines them: ``"mean"``, ``"geometric_mean"``
    (trec_eval's, with its floor), ``"sum"``, ``"count"`` or ``"mean_of_values"`` (the answer
    measures': the mean of the values that are not NaN)."""
    return _core.aggregate(values, how)


trec_eval_lines = _core.trec_eval_lines
"""trec_eval's output lines for ``-m`` arguments, in its order: (printed name, canonical
measure name or None, relstring's length or None, judgements), warnings passed to a callback."""

format_trec_eval = _core.format_trec_eval
"""The text trec_eval prints for lines, per-query values and summaries, byte for byte."""

in_cli_terms = _core.in_cli_terms
"""An error's message in the command line's terms (message, the option an option error names
or None, whether the error is in the qrels), as the native executable prints it too."""

non_integer_grade = _core.non_integer_grade
"""The first qrels line whose grade is not an integer: (line, grade, text, as trec_eval reads
it), or None."""

trec_eval_undetermined = _core.trec_eval_undetermined
"""The warning for a trec_eval line (printed name, canonical measure name) whose value trec_eval
computes from memory it never wrote, or None."""

trec_eval_negative_first_query = _core.trec_eval_negative_first_query
"""Where trec_eval 10 stops before printing a line (qrels, ``-m`` arguments, ``-N``): the first
query it evaluates has only negative grades; (query id, trec_eval's measure name) or None."""

read_zscores = _core.read_zscores
"""trec_eval's ``-Z`` file (path, and its name in messages): ``{(query_id, measure): (mean,
stddev)}``."""

results_rows = _core.results_rows
"""`rankscope evaluate`'s header and rows of cells for runs given as (name, `PerQuery`, the
column of each heading): counts as integers, other values with 4 decimals (every digit when
``exact``)."""

format_results = _core.format_results
"""`rankscope evaluate`'s table of runs (as for `results_rows`) as text: ``"text"``, the aligned
table; ``"csv"``."""
