"""JSON documents holding one object ``{query_id: {doc_id: value}}``: the dicts of pytrec_eval
and ranx, as ``json.dump`` and ranx's ``Run.save`` / ``Qrels.save`` write them.

ranx's hub files wrap the object as ``{"metadata": {...}, "run": {...}}`` (or ``"qrels"``); the
run's name is then taken from the metadata. Such a file is told from JSON Lines by its content:
the whole file is one JSON value, an object whose values are all objects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rankscope.io._files import Input
from rankscope.io._formats import Kind

__all__ = ["NestedJson", "read_nested_json"]


@dataclass(frozen=True)
class NestedJson:
    """A parsed nested-JSON file: the mapping, and the run name its metadata gives (if any)."""

    mapping: Mapping[str, Any]
    name: str | None


def _unwrap(document: dict[str, Any], kind: Kind) -> tuple[Any, str | None]:
    """ranx hub's ``{"metadata", "run"|"qrels"}`` wrapper, or the document itself."""
    if set(document) == {"metadata", kind} and isinstance(document["metadata"], dict):
        run_meta = document["metadata"].get("run")
        name = run_meta.get("name") if isinstance(run_meta, dict) else None
        return document[kind], name if isinstance(name, str) and name else None
    return document, None


def read_nested_json(opened: Input, kind: Kind) -> NestedJson | None:
    """The file's mapping if it is one JSON object of objects; None if it is anything else
    (JSON Lines, for one), which the JSON Lines reader then reads and words errors for."""
    head = opened.head().lstrip()
    if not head.startswith(b"{"):
        return None
    text = opened.read_bytes()
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # several values (JSON Lines) or broken JSON: the line reader says where
    if not isinstance(document, dict):
        return None
    mapping, name = _unwrap(document, kind)
    if not isinstance(mapping, dict) or not mapping:
        return None
    if not all(isinstance(value, dict) for value in mapping.values()):
        return None
    return NestedJson(mapping, name)
