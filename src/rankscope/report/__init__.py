"""Rendering: evaluation results as tables, JSON, CSV, Markdown and trec_eval text."""

from rankscope.report.results import FORMATS, render
from rankscope.report.trec_eval import format_trec_eval, trec_eval_measures

__all__ = ["FORMATS", "format_trec_eval", "render", "trec_eval_measures"]
