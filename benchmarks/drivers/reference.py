"""The reference means: rankscope under the ``trec`` and ``trec9`` profiles, on polars frames.

Prints ``{"trec": {measure: mean}, "trec9": {...}}``. The files are read by polars, not by
rankscope's readers, so the readers are checked against this as much as the other tools are.
"""

import json

from _common import MEASURES, paths
from _frames import read_with_polars

import rankscope

qrels, run = read_with_polars(*paths())
print(
    json.dumps(
        {
            profile: rankscope.evaluate(qrels, run, MEASURES, profile=profile).mean()
            for profile in ("trec", "trec9")
        }
    )
)
