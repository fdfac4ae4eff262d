"""rankscope from Python: ``evaluate`` given the two file paths (the core reads them itself,
a large run in chunks of whole queries), then ``.mean()``."""

from _common import MEASURES, emit, paths

import rankscope

qrels_path, run_path = paths()
results = rankscope.evaluate(qrels_path, run_path, MEASURES)
emit(results.mean(), results.num_queries)
