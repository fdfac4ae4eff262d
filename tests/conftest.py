"""Shared fixtures: paths to the reference data kept inside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    """trec_eval's own test files (qrels, runs, expected outputs)."""
    path = ROOT / "tests" / "data" / "trec_eval"
    if not path.is_dir():
        pytest.fail(f"the trec_eval conformance files are missing: {path}")
    return path


@pytest.fixture(scope="session")
def weknora_samples_dir() -> Path:
    """WeKnora's sample evaluation dataset (Parquet)."""
    path = ROOT / "examples" / "weknora_samples"
    if not path.is_dir():
        pytest.fail(f"WeKnora's sample dataset is missing: {path}")
    return path
