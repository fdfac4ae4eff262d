"""Sakai's worked example: the per-topic scores of three systems on twenty topics (Table 5.1
of Sakai, *Laboratory Experiments in Information Retrieval*, 2018), which the docstrings of the
tests over many systems use."""

from __future__ import annotations

TABLE_5_1 = {
    "A": [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30,
          0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50, 0.20, 0.10],
    "B": [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30,
          0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60, 0.30, 0.20],
    "C": [0.00, 0.00, 0.20, 0.10, 0.30, 0.30, 0.10, 0.20, 0.40, 0.40,
          0.40, 0.30, 0.30, 0.20, 0.20, 0.20, 0.10, 0.50, 0.40, 0.30],
}  # fmt: skip
"""System -> per-topic scores (aligned by topic)."""
