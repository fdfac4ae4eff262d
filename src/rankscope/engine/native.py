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
    "TREC_EVAL_STOP_STATUS",
    "FusionRuns",
    "PerQuery",
    "aggregate",
    "answer_tokens",
    "format_results",
    "format_trec_eval",
    "in_cli_terms",
    "read_zscores",
    "results_rows",
    "score_answers",
    "score_weknora_answers",
    "trec_eval_check_grades",
    "trec_eval_check_judgements",
    "trec_eval_lines",
    "trec_eval_negative_first_query",
    "trec_eval_no_common_queries",
    "trec_eval_stop",
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

trec_eval_check_grades = _core.trec_eval_check_grades
"""Refuse qrels (their bytes, and the file's name) at their first grade that is not an integer,
which trec_eval reads otherwise: a `ParseError` naming the line."""

trec_eval_check_judgements = _core.trec_eval_check_judgements
"""Refuse the first trec_eval line (printed name, judgements) that trec_eval computes only from
other judgements than ``-R``'s (given as ``trec_eval_lines`` names them): an `OptionError`."""

trec_eval_undetermined = _core.trec_eval_undetermined
"""The warning for a trec_eval line (printed name, canonical measure name) whose value trec_eval
computes from memory it never wrote, or None."""

trec_eval_negative_first_query = _core.trec_eval_negative_first_query
"""trec_eval 10's first query evaluated (qrels, ``-m`` arguments, ``-N``, ``-D N.QID``'s query
or None) where it has only negative grades, and the measure it would stop at: (query id,
measure) or None; `trec_eval_stop` decides."""

trec_eval_stop = _core.trec_eval_stop
"""Where trec_eval 10 stops (the missing queries, the query ids printed, byte-wise; keywords
``complete``, ``only_query`` of ``-D N.QID``, ``fix_quirks``, ``negative_first`` as
`trec_eval_negative_first_query` gives it, ``qrels`` and ``run`` as named): None where it does
not; else (how many of the query ids it prints without a summary, or None where it stops before
printing anything; the message; the exit status). Raises `OptionError` where
``--fix-trec-eval-quirks`` makes the stop an error (``-D N.QID``, QID not judged)."""

trec_eval_no_common_queries = _core.trec_eval_no_common_queries
"""The message where trec_eval stops at its first judged query (the error's message, the
qrels), no query of the run being judged; None under ``complete`` (``-c``) or ``fix_quirks``
(``--fix-trec-eval-quirks``), where the error is the error."""

TREC_EVAL_STOP_STATUS: int = _core.TREC_EVAL_STOP_STATUS
"""The exit status trec_eval 10 ends with where it stops, and so does ``rankscope trec-eval``."""

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
