"""rankscope from Python: its TREC readers, then ``evaluate(...).mean()``."""

from _common import MEASURES, emit, paths

import rankscope
from rankscope.io import read_qrels, read_run

qrels_path, run_path = paths()
results = rankscope.evaluate(read_qrels(qrels_path), read_run(run_path), MEASURES)
emit(results.mean(), results.per_query.height)
