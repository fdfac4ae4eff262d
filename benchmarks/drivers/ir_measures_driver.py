"""ir_measures: its TREC readers and ``calc_aggregate`` (it picks pytrec_eval as provider)."""

import ir_measures
from _common import MEASURES, emit, paths

qrels_path, run_path = paths()
measures = [ir_measures.parse_measure(name) for name in MEASURES]
means = ir_measures.calc_aggregate(
    measures, ir_measures.read_trec_qrels(qrels_path), ir_measures.read_trec_run(run_path)
)
emit({str(m): v for m, v in means.items()})
