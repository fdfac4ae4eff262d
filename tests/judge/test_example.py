"""``examples/judge_holes.py`` runs as documented: WeKnora's sample with half its qrels
hidden, the holes filled by the stand-in judge into a store, the agreement with the hidden
qrels and the measures printed; run again on the same store, it asks nothing twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rankscope.service.store import open_store
from rankscope.service.store.judging import judging_calls

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judge_holes.py"

EXPECTED = """\
2 holes in the run's top 4: {{'1': ['2', '4']}}
judged 2 of 2 (0 failed, {resumed} judged by an earlier run), task {task}
the judge's grades: {{'1': {{'2': 1, '4': 1}}}}; the hidden ones: {{'1': {{'2': 1, '4': 1}}}}
agreement with the hidden qrels on 2 pairs: same grade 1.0000, Cohen's kappa nan \
(undefined: one grade only on both sides)
 holes unjudged: P@4 0.5000  nDCG@4 0.5706  AP 0.4167
   holes judged: P@4 1.0000  nDCG@4 1.0000  AP 1.0000
   fully judged: P@4 1.0000  nDCG@4 1.0000  AP 1.0000
"""


def run_example(db: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--db", str(db)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_example_fills_the_holes_and_prints_the_agreement(tmp_path: Path) -> None:
    db = tmp_path / "judging.db"
    first = run_example(db)
    store = open_store(db)
    try:
        (task,), _ = store.list_tasks(kind="judging")
        assert len(judging_calls(store, task["id"])) == 2
    finally:
        store.close()
    assert first == EXPECTED.format(resumed=0, task=task["id"])
    again = run_example(db)
    assert again == EXPECTED.format(resumed=2, task=task["id"])
    store = open_store(db)
    try:
        assert len(judging_calls(store, task["id"])) == 2  # nothing asked twice
    finally:
        store.close()
