"""Other tools' APIs over rankscope's core, so that moving over is one changed import.

- `rankscope.compat.pytrec_eval`: ``RelevanceEvaluator``, ``parse_qrel``, ``parse_run``,
  ``supported_measures``, ``compute_aggregated_measure``, with pytrec_eval's keys and values.
- `rankscope.compat.ir_measures`: ``iter_calc``, ``calc_aggregate``, ``evaluator``, with
  ir_measures' measure objects (or their names) and result shapes.

Import the module you need (``from rankscope.compat import pytrec_eval``); neither imports
the tool it stands in for.
"""
