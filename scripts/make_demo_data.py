"""Write the bundled demo dataset: 300 questions in BEIR's layout, with graded judgements
(deterministic, seeded).

Run from the repository root: ``python scripts/make_demo_data.py``. The files land in
``examples/demo/``: ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``,
``text``) and ``qrels/test.tsv`` (BEIR's qrels with its header). Each question asks about one
aspect of one thing ("How long does the northern lynx live?"). Its passages are judged 2 (the
aspect of that very thing, often worded with a synonym of the question's words rather than the
words themselves), 1 (the thing, another aspect; or the aspect of a close relative) or 0 (the
same aspect of another thing, written with the question's words). So a lexical retriever such
as BM25 ranks the relevant passages high but not always first, and the scores of the bundled
``rankscope run`` example spread over the questions.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "examples" / "demo"
SEED = 20261201
QUESTIONS = 300

THINGS = [
    "lynx",
    "heron",
    "otter",
    "falcon",
    "badger",
    "salmon",
    "beetle",
    "walrus",
    "gecko",
    "moose",
    "maple",
    "cedar",
    "orchid",
    "fern",
    "willow",
    "cactus",
    "tulip",
    "birch",
    "lotus",
    "juniper",
    "copper",
    "cobalt",
    "quartz",
    "basalt",
    "granite",
    "nickel",
    "obsidian",
    "marble",
    "zinc",
    "garnet",
]
KINDS = [
    "northern",
    "southern",
    "alpine",
    "coastal",
    "desert",
    "river",
    "island",
    "giant",
    "dwarf",
    "spotted",
]
# aspect: (the question's template, the words an answer uses: the question's own, and synonyms)
ASPECTS = {
    "lifespan": (
        "How long does the {kind} {thing} live?",
        ["live", "long", "years"],
        ["lifespan", "decades", "survives", "age"],
    ),
    "habitat": (
        "Where is the {kind} {thing} found?",
        ["found", "where"],
        ["habitat", "occurs", "range", "terrain", "native"],
    ),
    "colour": (
        "What colour is the {kind} {thing}?",
        ["colour", "color"],
        ["hue", "shade", "pigment", "tint", "appearance"],
    ),
    "size": (
        "How big does the {kind} {thing} grow?",
        ["big", "grow", "size"],
        ["reaches", "length", "height", "large", "measures"],
    ),
    "uses": (
        "What is the {kind} {thing} used for?",
        ["used", "use"],
        ["purpose", "applied", "valued", "employed", "serves"],
    ),
    "history": (
        "When was the {kind} {thing} first described?",
        ["first", "described"],
        ["discovered", "recorded", "century", "catalogued"],
    ),
    "threats": (
        "What threatens the {kind} {thing}?",
        ["threatens", "threat"],
        ["danger", "decline", "loss", "pressure", "risk"],
    ),
}
FILLER = [
    "the",
    "a",
    "of",
    "and",
    "in",
    "to",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "as",
    "by",
    "this",
    "from",
    "at",
    "are",
    "was",
    "its",
    "which",
    "be",
    "or",
    "has",
    "have",
    "their",
    "also",
    "often",
    "some",
    "most",
    "many",
    "these",
    "can",
    "other",
    "more",
    "than",
    "into",
    "over",
]


def _sentence(rng: random.Random, words: list[str], length: int) -> str:
    """``length`` words: ``words`` spread among filler words, as a sentence."""
    chosen = list(words) + [rng.choice(FILLER) for _ in range(max(0, length - len(words)))]
    rng.shuffle(chosen)
    text = " ".join(chosen)
    return text[:1].upper() + text[1:] + "."


def _passage(rng: random.Random, thing: str, kind: str | None, aspect: str, lexical: float) -> str:
    """A passage on one aspect of a thing: each of the aspect's words is the question's own
    with probability ``lexical``, else a synonym."""
    _, own, synonyms = ASPECTS[aspect]
    words = [thing] if kind is None else [kind, thing]
    words += [
        rng.choice(own) if rng.random() < lexical else rng.choice(synonyms)
        for _ in range(rng.randint(2, 4))
    ]
    return " ".join(_sentence(rng, words, rng.randint(9, 14)) for _ in range(2))


def main() -> None:
    rng = random.Random(SEED)
    combinations = [(t, k, a) for t in THINGS for k in KINDS for a in ASPECTS]
    chosen = rng.sample(combinations, QUESTIONS)
    corpus: list[dict[str, str]] = []
    queries: list[dict[str, str]] = []
    qrels: list[tuple[str, str, int]] = []

    def add(title: str, text: str) -> str:
        doc_id = f"doc{len(corpus) + 1:04d}"
        corpus.append({"_id": doc_id, "title": title, "text": text})
        return doc_id

    for number, (thing, kind, aspect) in enumerate(chosen, start=1):
        query_id = f"q{number:03d}"
        queries.append({"_id": query_id, "text": ASPECTS[aspect][0].format(kind=kind, thing=thing)})
        title = f"{kind} {thing}"
        # The answer, in words the question shares only sometimes.
        qrels.append((query_id, add(title, _passage(rng, thing, kind, aspect, 0.3)), 2))
        # The same thing on another aspect, and the same aspect of its kind's relative.
        other = rng.choice([a for a in ASPECTS if a != aspect])
        qrels.append((query_id, add(title, _passage(rng, thing, kind, other, 0.5)), 1))
        if rng.random() < 0.6:
            qrels.append((query_id, add(thing, _passage(rng, thing, None, aspect, 0.6)), 1))
        # The same aspect of another thing of the same kind, in the question's own words.
        decoy = rng.choice([t for t in THINGS if t != thing])
        qrels.append((query_id, add(f"{kind} {decoy}", _passage(rng, decoy, kind, aspect, 0.9)), 0))

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "qrels").mkdir(exist_ok=True)
    for name, rows in (("corpus.jsonl", corpus), ("queries.jsonl", queries)):
        lines = (json.dumps(row, ensure_ascii=False) for row in rows)
        (OUT / name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    tsv = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{g}" for q, d, g in qrels)]
    (OUT / "qrels" / "test.tsv").write_text("\n".join(tsv) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(queries)} questions, {len(corpus)} passages, {len(qrels)} judgements")


if __name__ == "__main__":
    main()
