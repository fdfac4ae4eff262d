"""The core's sacrebleu tokenizers alone: ``13a`` and ``zh`` over generated lines, and BLEU
through ``13a``, in one process (median of ``--repeats`` calls after one warm-up).

The lines mix words, numbers with periods, commas and dashes, punctuation runs, 13a's entities
and ``<skipped>``, accents, CJK and emoji, so that every rule of the tokenizers runs. Each row
is the median wall and CPU seconds of one call over every line (``rankscope._core``'s
``answer_tokens`` for one line at a time, ``score_answers`` for the batch); the tokens' count is
printed to show what was done.

Prints the table; ``--json FILE`` also writes the medians, for comparing two builds run in turn
(``benchmarks/RESULTS-answers.md`` gives the command). Usage:
python3 benchmarks/tokenizers.py [--lines N] [--repeats N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from launcher import timed
from rankscope import _core

PIECES = [
    "the", "The", "cat", "sat", "running", "Paris", "3", "42", "3.14", "1,000", "5-3", "x-y",
    "U.S.", "don't", "(ok)", "...", "!?", "&amp;", "&lt;b&gt;", "&quot;", "<skipped>", "e.g.,",
    "é", "naïve", "我爱北京", "天安门，", "😀", "—", "end.", "a/b", "#1", "$5", "[1]", "-",
]  # fmt: skip


def lines(rng: random.Random, count: int) -> list[str]:
    """``count`` lines of 5-60 pieces, joined by spaces (one in ten pieces glued on)."""
    out = []
    for _ in range(count):
        pieces = [rng.choice(PIECES) for _ in range(rng.randint(5, 60))]
        out.append("".join(p if rng.random() < 0.1 else f" {p}" for p in pieces).strip())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the medians here")
    args = parser.parse_args()
    text = lines(random.Random(17), args.lines)
    references = [[line] for line in reversed(text)]
    tokens = {t: sum(len(_core.answer_tokens(line, t)) for line in text) for t in ("13a", "zh")}
    rows = {
        "13a tokens": timed(lambda: [_core.answer_tokens(x, "13a") for x in text], args.repeats),
        "zh tokens": timed(lambda: [_core.answer_tokens(x, "zh") for x in text], args.repeats),
        "BLEU (13a), batch": timed(
            lambda: _core.score_answers(text, references, [("BLEU", 4, "13a")]), args.repeats
        ),
    }
    print(f"{args.lines} lines, {tokens['13a']} 13a tokens, {tokens['zh']} zh tokens")
    print("| what | median s | CPU s |")
    print("|---|---:|---:|")
    for name, (wall, cpu) in rows.items():
        print(f"| {name} | {wall:.4f} | {cpu:.4f} |")
    if args.json:
        args.json.write_text(json.dumps({name: list(row) for name, row in rows.items()}) + "\n")


if __name__ == "__main__":
    main()
