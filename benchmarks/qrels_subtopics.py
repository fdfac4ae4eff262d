"""What keeping the qrels' subtopic (TREC's second field) costs on the hot path.

The core now keeps each qrels line's second field as its subtopic (an interned code per row),
and the join looks up a per-document highest grade when a document is judged for several
subtopics. This times, in two builds side by side (this checkout's Python and ``--baseline``,
the Python of a build without the change), alternating, in fresh processes:

* ``read``: the core reading a qrels file (``rankscope._core.read_trec_qrels``);
* ``evaluate``: ``rankscope.evaluate`` of nDCG@10 and AP from the qrels and run files;

and reports the median (over processes) of each process's best of 5 with the ratio (the
best of 5 resists the noise of a shared machine). Writes ``RESULTS-subtopics.md`` (with the
command and the load average).

    python3 benchmarks/generate.py      # data/ (medium: 10,000 queries, 1M run lines)
    .venv/bin/python benchmarks/qrels_subtopics.py --baseline ../main/.venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from run import written_command

HERE = Path(__file__).resolve().parent

SNIPPET = """
import json, sys, time
from rankscope import _core
import rankscope
qrels, run, what = sys.argv[1:4]
best = float("inf")
for _ in range(5):
    start = time.perf_counter()
    if what == "read":
        _core.read_trec_qrels(qrels, path=qrels)
    else:
        rankscope.evaluate(qrels, run, ["nDCG@10", "AP"], stream=False)
    best = min(best, time.perf_counter() - start)
print(json.dumps(best))
"""


def timed(python: str, qrels: Path, run: Path, what: str) -> float:
    out = subprocess.run(
        [python, "-c", SNIPPET, str(qrels), str(run), what],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return float(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="Python of a build without subtopics")
    parser.add_argument("--size", default="medium")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    qrels = HERE / "data" / f"{args.size}.qrels"
    run = HERE / "data" / f"{args.size}.run"
    pythons = {"with subtopics": sys.executable, "baseline": args.baseline}
    load_before = os.getloadavg()[0]
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.runs + 1):  # the first round warms the caches and is dropped
        for what in ("read", "evaluate"):
            for label, python in pythons.items():
                times.setdefault((label, what), []).append(timed(python, qrels, run, what))
    load_after = os.getloadavg()[0]
    # The baseline's path is this machine's: shown as BASELINE_PYTHON, what the option means.
    shown = written_command(
        "python benchmarks/qrels_subtopics.py", sys.argv[1:], {"--baseline": "BASELINE_PYTHON"}
    )
    lines = [
        "# Keeping the qrels' subtopic: cost on the hot path",
        "",
        f"`{shown}` (BASELINE_PYTHON: the `.venv/bin/python` of a build without subtopics): "
        f"{args.size} files "
        f"({qrels.stat().st_size >> 20} MB qrels, {run.stat().st_size >> 20} MB run), "
        f"median of {args.runs} fresh processes' best of 5, alternating; load average "
        f"{load_before:.2f} before, {load_after:.2f} after.",
        "",
        "| step | with subtopics (s) | baseline (s) | ratio |",
        "|---|---|---|---|",
    ]
    for what in ("read", "evaluate"):
        ours = statistics.median(times[("with subtopics", what)][1:])
        theirs = statistics.median(times[("baseline", what)][1:])
        lines.append(f"| {what} | {ours:.4f} | {theirs:.4f} | {ours / theirs:.2f} |")
    text = "\n".join(lines) + "\n"
    (HERE / "RESULTS-subtopics.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
