"""Rendering: evaluation results as tables, JSON, CSV, Markdown and trec_eval text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope._lazy import lazy_attributes

if TYPE_CHECKING:
    from rankscope.report.results import FORMATS, render
    from rankscope.report.trec_eval import format_trec_eval, trec_eval_measures

__all__ = ["FORMATS", "format_trec_eval", "render", "trec_eval_measures"]

# Loaded on first use: a command that writes JSON needs neither trec_eval's tables nor the
# other renderers' modules.
__getattr__ = lazy_attributes(
    __name__,
    {
        "FORMATS": "rankscope.report.results",
        "render": "rankscope.report.results",
        "format_trec_eval": "rankscope.report.trec_eval",
        "trec_eval_measures": "rankscope.report.trec_eval",
    },
)
