"""Generated inputs for comparing `rankscope trec-eval` with a real trec_eval 10 binary.

Each case is a qrels file, a run file and trec_eval options. The data are made to reach the
corners where implementations part: tied scores (broken by document id), negative and zero
grades, documents retrieved but unjudged, queries with no relevant document, queries with no
judged document retrieved (trec_eval's ``-J`` divides 0 by 0 there), queries judged but not
retrieved (an error without ``-c``, scored with ``-c``), queries retrieved but not judged, long
and short rankings, and every parameterised measure; and two corners of their own: a first
query (byte-wise) whose grades are all negative, and a run none of whose queries is judged;
and ``-Z`` with ``-c -D N.QID``, where the summary counts every judged query.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Case", "cases", "write_data"]


@dataclass(frozen=True)
class Data:
    """One generated pair of files and what they hold."""

    name: str
    qrels: Path
    run: Path
    #: Whether every judged query is retrieved (without -c trec_eval stops at the first that
    #: is not).
    complete: bool
    #: Per query and measure of ``official``, a mean and a standard deviation (``-Z``).
    zscores: Path
    #: The judged queries, in the qrels' order.
    judged: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    """trec_eval's options on one generated pair of files."""

    data: Data
    options: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.data.name}:{' '.join(self.options)}"


def _query_ids(rng: random.Random, n: int) -> list[str]:
    # Numbers, numbers with leading zeros and words: trec_eval sorts them byte-wise.
    ids: set[str] = set()
    while len(ids) < n:
        kind = rng.random()
        if kind < 0.5:
            ids.add(str(rng.randint(1, 500)))
        elif kind < 0.7:
            ids.add(f"0{rng.randint(1, 99)}")
        else:
            ids.add(f"q{rng.randint(1, 999)}-{rng.choice('abc')}")
    return sorted(ids)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def write_data(folder: Path, seed: int, *, complete: bool) -> Data:
    """A qrels file and a run file generated from ``seed``."""
    rng = random.Random(seed)
    queries = _query_ids(rng, rng.randint(6, 14))
    qrels: list[str] = []
    run: list[str] = []
    docs = [f"d{i}" for i in range(60)] + [f"D{i:03d}" for i in range(20)]
    judged_queries = queries[: len(queries) - 1]  # the last one is retrieved, never judged
    for number, query in enumerate(judged_queries):
        pool = rng.sample(docs, rng.randint(3, 30))
        grades = [-1, 0, 0, 1, 1, 2, 3] if number % 5 else [0, -1]  # some: nothing relevant
        for doc in pool:
            qrels.append(f"{query} 0 {doc} {rng.choice(grades)}")
    retrieved = queries if complete else [q for i, q in enumerate(queries) if i % 4 != 1]
    for number, query in enumerate(retrieved):
        judged = {line.split()[2] for line in qrels if line.split()[0] == query}
        if number % 6 == 3:
            # Nothing retrieved is judged: -J leaves an empty ranking.
            ranking = [d for d in docs if d not in judged][: rng.randint(1, 12)]
        else:
            ranking = rng.sample(docs, rng.randint(1, 45))
        scores = [round(rng.choice([rng.uniform(-3, 3), 1.0, 0.5, 0.0]), 3) for _ in ranking]
        for rank, (doc, score) in enumerate(zip(ranking, scores, strict=True), 1):
            run.append(f"{query} Q0 {doc} {rank} {score} tag{seed}")
    rng.shuffle(run)  # trec_eval ranks by score, not by line order
    zscores = [
        f"{query} {measure} {rng.uniform(0, 20):.4f} {rng.choice([0.5, 1.0, 2.5]):.4f}"
        for query in judged_queries
        for measure in ZSCORED
    ]
    kind = "complete" if complete else "incomplete"
    return Data(
        name=f"seed{seed}-{kind}",
        qrels=_write(folder / f"qrels.{seed}.{kind}", qrels),
        run=_write(folder / f"run.{seed}.{kind}", run),
        complete=complete,
        zscores=_write(folder / f"zscores.{seed}.{kind}", zscores),
        judged=tuple(judged_queries),
    )


# The measures of -m official that -Z turns into z-scores.
ZSCORED = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{level / 10:.2f}" for level in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)  # fmt: skip


# Options run on every data set whose judged queries are all retrieved.
WHEN_COMPLETE: list[tuple[str, ...]] = [
    ("-q", "-m", "all_trec"),
    ("-m", "all_trec"),
    ("-q", "-J", "-m", "all_trec"),
    ("-q", "-l2", "-m", "all_trec"),
    ("-q", "-l0", "-m", "all_trec"),
    ("-q", "-l-1", "-m", "all_trec"),
    ("-q", "-l-2", "-m", "official"),
    ("-q", "-J", "-l0", "-m", "official"),
    ("-q", "-M0", "-m", "all_trec"),
    ("-q", "-M5", "-m", "all_trec"),
    ("-q", "-N", "100", "-m", "set"),
    ("-q", "-R", "qrels_prefs", "-m", "all_prefs"),
    ("-q", "-R", "qrels_jg", "-m", "qrels_jg"),
    (
        "-q",
        "-m",
        "P.2,7",
        "-m",
        "recall.3,50",
        "-m",
        "ndcg_cut.3,11",
        "-m",
        "map_cut.4",
        "-m",
        "success.2,3",
        "-m",
        "relative_P.6",
        "-m",
        "iprec_at_recall.0.15,0.5",
        "-m",
        "Rprec_mult.0.5,1.5",
        "-m",
        "11pt_avg.0.25,0.75",
        "-m",
        "set_F.0.5",
        "-m",
        "utility.2,-1,0,1",
        "-m",
        "ndcg.1=2,2=5,3=9",
        "-m",
        "relstring.15",
    ),
]

# Options run on every data set, judged queries missing from the run included.
ALWAYS: list[tuple[str, ...]] = [
    ("-q", "-c", "-m", "all_trec"),
    ("-c", "-m", "all_trec"),
    ("-q", "-c", "-J", "-m", "all_trec"),
    ("-q", "-c", "-M3", "-m", "official"),
    ("-q", "-c", "-M0", "-m", "all_trec"),
    ("-q", "-c", "-l0", "-m", "all_trec"),
    ("-q", "-c", "-N", "50", "-m", "utility.1,-1,0,1"),
    ("-q", "-c", "-m", "rbp_resid.p=0.5"),
    ("-q", "-c", "-m", "utility"),
    ("-q", "-c", "-m", "rbp_resid"),
    ("-q", "-m", "official"),  # without -c a judged query missing from the run is an error
]


# Options run on the corner data sets (``corners``).
ON_CORNERS: list[tuple[str, ...]] = [
    ("-q", "-m", "all_trec"),
    ("-c", "-m", "official"),
    ("-q", "-m", "P.5", "-m", "map"),
    ("-m", "num_q"),
    ("-m", "runid", "-m", "ndcg_cut.5"),
    # -D N.QID: QID evaluated alone; judged, or not (in the disjoint run only, or nowhere).
    ("-q", "-D", "0.1b", "-m", "map"),
    ("-q", "-D", "0.9z", "-m", "map"),
    ("-D", "0.7x", "-m", "P.5"),
    ("-q", "-c", "-D", "0.1b", "-m", "official"),
]


def corners(folder: Path) -> list[Data]:
    """Where trec_eval 10 stops before printing: its first query (byte-wise) judged with
    negative grades only, whose count of documents per grade it sizes to nothing (a later such
    query is scored); a run of queries none of which is judged (it stops at its first judged
    query, without ``-c``); and, with ``-D N.QID``, a QID not judged (exit status 7)."""
    written: list[Data] = []
    qrels = ["0a 0 d1 -1", "0a 0 d2 -1", "1b 0 d1 1", "1b 0 d3 0", "2c 0 d2 -1"]
    run = [f"{q} Q0 {d} {r} {s} corner" for q in ("0a", "1b", "2c") for r, (d, s) in
           enumerate([("d1", 2.0), ("d2", 1.0), ("d3", 1.0)], 1)]  # fmt: skip
    disjoint_run = ["9z Q0 d1 1 1.0 corner", "8y Q0 d2 1 1.0 corner"]
    for name, lines, ranking in (
        ("negative-first", qrels, run),
        ("disjoint", qrels[2:], disjoint_run),
    ):
        written.append(
            Data(
                name=name,
                qrels=_write(folder / f"qrels.{name}", lines),
                run=_write(folder / f"run.{name}", ranking),
                complete=name != "disjoint",
                zscores=_write(folder / f"zscores.{name}", []),
            )
        )
    return written


def cases(folder: Path, seeds: range) -> list[Case]:
    """Every case for the data made from ``seeds``, and the corners."""
    found: list[Case] = [Case(data, option) for data in corners(folder) for option in ON_CORNERS]
    for seed in seeds:
        for complete in (True, False):
            data = write_data(folder, seed, complete=complete)
            options = [*WHEN_COMPLETE, *ALWAYS] if complete else ALWAYS
            found.extend(Case(data, option) for option in options)
            zscored = ("-q", "-c", "-Z", str(data.zscores), "-m", "official")
            found.append(Case(data, zscored))
            # -c -D N.QID -Z: QID alone z-scored, the summary over every judged query (the
            # first, retrieved; the second, not retrieved when the data are incomplete).
            for query in data.judged[:2]:
                debug = ("-c", "-D", f"0.{query}", "-Z", str(data.zscores), "-m", "official")
                found.append(Case(data, debug))
            if complete:
                found.append(Case(data, ("-Z", str(data.zscores), "-m", "official")))
    return found
