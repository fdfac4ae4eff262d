"""rankscope from Python on tables that polars read: ``Qrels.from_frame`` / ``Run.from_frame``.

The files are parsed by ``polars.scan_csv`` here rather than by rankscope's readers, which shows
what the readers add over a bare columnar parse.
"""

from _common import MEASURES, emit, paths
from _frames import read_with_polars

import rankscope

qrels, run = read_with_polars(*paths())
results = rankscope.evaluate(qrels, run, MEASURES)
emit(results.mean(), results.num_queries)
