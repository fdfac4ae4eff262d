"""pytrec_eval (pytrec-eval-terrier): its parsers, a RelevanceEvaluator, the mean per measure."""

import pytrec_eval
from _common import emit, paths
from _pytrec_eval import NAMES, evaluator_and_run

evaluator, run = evaluator_and_run(*paths())
per_query = evaluator.evaluate(run)
means = {
    ours: pytrec_eval.compute_aggregated_measure(theirs, [v[theirs] for v in per_query.values()])
    for theirs, ours in NAMES.items()
}
emit(means, len(per_query))
