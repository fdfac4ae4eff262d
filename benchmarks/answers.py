"""Answer measures: rankscope.evaluate_answers beside the reference packages called directly.

Generates deterministic question/answer pairs (English, and Chinese for WeKnora's jieba path),
times in one process (median of ``--repeats`` calls after one warm-up):

* rankscope.evaluate_answers with BLEU, ROUGE-1, ROUGE-2, ROUGE-L (profile standard), computed
  by the core's kernels, and the same values computed by calling sacrebleu.sentence_bleu and
  rouge-score's RougeScorer in a plain loop (the target: >= 10x the loop's speed);
* profile weknora (WeKnora's six generation metrics), English and Chinese (jieba).

Each row gives the median wall time and the median CPU time of the process (every thread):
on a shared machine the CPU times are the steadier ratio.

Writes benchmarks/RESULTS-answers.md (keeping the sections below its table). Usage:
python3 benchmarks/answers.py [--pairs N]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import sacrebleu
from rouge_score import rouge_scorer

import rankscope
from launcher import timed

HERE = Path(__file__).resolve().parent
ENGLISH_TEXT = (
    "the a cat dog sat ran on under mat table Paris France capital is of river city answer "
    "question system model retrieval passage running runs quickly, slowly. 42 3.5"
)
ENGLISH = ENGLISH_TEXT.split()
CHINESE = [*"计算机的操作系统有哪些北京天安门我爱中国科学院大学网络速度快今天天气很好", "，", "。"]


def texts(rng: random.Random, vocabulary: list[str], pairs: int, joiner: str) -> dict[str, str]:
    return {
        f"q{i}": joiner.join(rng.choice(vocabulary) for _ in range(rng.randint(5, 40)))
        for i in range(pairs)
    }


def direct(references: dict[str, str], answers: dict[str, str]) -> dict[str, list[float]]:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    values: dict[str, list[float]] = {"BLEU": [], "ROUGE-1": [], "ROUGE-2": [], "ROUGE-L": []}
    for q in sorted(references):
        values["BLEU"].append(sacrebleu.sentence_bleu(answers[q], [references[q]]).score / 100)
        scores = scorer.score(references[q], answers[q])
        for name, kind in (("ROUGE-1", "rouge1"), ("ROUGE-2", "rouge2"), ("ROUGE-L", "rougeL")):
            values[name].append(scores[kind].fmeasure)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rng = random.Random(17)
    references, answers = (texts(rng, ENGLISH, args.pairs, " ") for _ in range(2))
    chinese_references, chinese_answers = (texts(rng, CHINESE, args.pairs, "") for _ in range(2))
    measures = ["BLEU", "ROUGE-1", "ROUGE-2", "ROUGE-L"]

    results = rankscope.evaluate_answers(references, answers, measures)
    expected = direct(references, answers)
    agrees = all(list(results.scores(m)) == expected[m] for m in measures)
    rows = [
        (
            "sacrebleu + rouge-score, called in a loop",
            timed(lambda: direct(references, answers), args.repeats),
        ),
        (
            "rankscope.evaluate_answers, standard",
            timed(lambda: rankscope.evaluate_answers(references, answers, measures), args.repeats),
        ),
        (
            "rankscope.evaluate_answers, weknora (English)",
            timed(
                lambda: rankscope.evaluate_answers(references, answers, profile="weknora"),
                args.repeats,
            ),
        ),
        (
            "rankscope.evaluate_answers, weknora (Chinese, jieba)",
            timed(
                lambda: rankscope.evaluate_answers(
                    chinese_references, chinese_answers, profile="weknora"
                ),
                args.repeats,
            ),
        ),
    ]
    baseline = rows[0][1]
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        "# Answer measures: benchmark results",
        "",
        "Written by `benchmarks/answers.py`; do not edit by hand. The command:",
        "",
        "```",
        f"python3 benchmarks/answers.py --pairs {args.pairs} --repeats {args.repeats}",
        "```",
        "",
        f"- Date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; commit {commit}",
        f"- Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; sacrebleu {sacrebleu.__version__}; load average "
        f"{load:.1f} at the start (other processes share the machine: compare ratios, CPU "
        "times first)",
        f"- {args.pairs} generated pairs of 5-40 tokens; median of {args.repeats} calls in one "
        "process after a warm-up.",
        f"- rankscope's BLEU and ROUGE equal the packages' values (exactly): "
        f"{'yes' if agrees else 'NO'}.",
        "",
        "| what | median s | CPU s | ms CPU per question | speed-up (wall) | speed-up (CPU) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, (seconds, cpu) in rows:
        per_question = 1000 * cpu / args.pairs
        lines.append(
            f"| {name} | {seconds:.3f} | {cpu:.3f} | {per_question:.3f} | "
            f"{baseline[0] / seconds:.1f}x | {baseline[1] / cpu:.1f}x |"
        )
    results_file = HERE / "RESULTS-answers.md"
    # Sections below the table (``## ...``: comparisons of two builds) are kept.
    previous = results_file.read_text() if results_file.exists() else ""
    kept = previous[previous.index("\n## ") :] if "\n## " in previous else ""
    results_file.write_text("\n".join(lines) + "\n" + kept)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
