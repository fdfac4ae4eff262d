"""rankscope from Python: ``evaluate`` given the two file paths (it reads them itself, a run in
chunks read ahead on a second core when it can), then ``.mean()``."""

from _common import MEASURES, emit, paths

import rankscope

qrels_path, run_path = paths()
results = rankscope.evaluate(qrels_path, run_path, MEASURES)
emit(results.mean(), results.per_query.height)
