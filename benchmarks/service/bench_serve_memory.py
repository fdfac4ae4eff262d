"""Memory of ``rankscope serve`` with 40 pending tasks, against the same server idle.

The script makes a BEIR dataset (a corpus of ``--docs`` documents), starts ``rankscope serve``
on a free loopback port with ``--max-running 1``, and reads the server's resident memory
(VmRSS) when it is idle (started, the task list read once). It then submits one task whose HTTP
retriever never answers (it holds the one running place) and ``--tasks`` BM25 tasks, which
wait, pending; and reads the memory again once they are all stored. Each reading is the median
of five, a second apart. Run it with another rankscope on ``PYTHONPATH`` to measure that one.

Usage: python benchmarks/service/bench_serve_memory.py [--tasks 40] [--docs 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

WORDS = [f"w{i}" for i in range(5000)]
API = "/api/v1/evaluations"


def make_dataset(root: Path, n_docs: int, n_queries: int = 200) -> None:
    rng = random.Random(0)
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as out:
        for i in range(n_docs):
            out.write(json.dumps({"_id": f"d{i}", "text": " ".join(rng.choices(WORDS, k=40))}))
            out.write("\n")
    with (root / "queries.jsonl").open("w") as out, (root / "qrels" / "test.tsv").open("w") as q:
        q.write("query-id\tcorpus-id\tscore\n")
        for i in range(n_queries):
            out.write(json.dumps({"_id": f"q{i}", "text": " ".join(rng.choices(WORDS, k=5))}))
            out.write("\n")
            q.write(f"q{i}\td{rng.randrange(n_docs)}\t1\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def silent_server() -> int:
    """A loopback port that accepts connections and never answers (a retriever that hangs)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            connection, _ = server.accept()
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    return int(server.getsockname()[1])


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def median_rss(pid: int) -> float:
    readings = []
    for _ in range(5):
        time.sleep(1.0)
        readings.append(rss_mib(pid))
    return statistics.median(readings)


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--docs", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        make_dataset(root / "beir", args.docs)
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "rankscope", "serve", "--port", str(port), "--max-running",
             "1", "--data-root", str(root), "--db", str(root / "tasks.db")],
            stderr=subprocess.DEVNULL,
            env={**os.environ},
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    call(base, "GET", API)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            idle = median_rss(server.pid)
            hanging = f"http://127.0.0.1:{silent_server()}/search"
            call(base, "POST", API, {"dataset": "beir", "retriever": {"type": "http",
                 "url": hanging, "timeout": 3600, "retries": 0}})  # fmt: skip
            for _ in range(args.tasks):
                call(base, "POST", API, {"dataset": "beir", "retriever": "bm25"})
            pending = call(base, "GET", API + "?status=pending")["total"]
            loaded = median_rss(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"corpus {args.docs} documents; {pending} pending tasks (and one running)")
    print(f"idle server      {idle:8.1f} MiB")
    print(f"{pending} pending      {loaded:8.1f} MiB")
    print(f"ratio            {loaded / idle:8.2f}x")


if __name__ == "__main__":
    main()
