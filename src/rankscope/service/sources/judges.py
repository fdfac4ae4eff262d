"""Judges of the service's tasks, from their specifications: an OpenAI-compatible
chat-completions endpoint (``{"type": "http", "url": ..., "model": ...}``), a callable
``module:function`` grading a pair itself (``{"type": "callable", "target": ...}``) or one
answering the judge's prompts (``{"type": "prompt", "target": ...}``: a function of the
chat messages returning the answer text, as `rankscope.judge.PromptJudge`), checked
against the server's allow-lists as retrievers and generators are, and built again from the
stored specification to resume a task.

>>> spec = parse_judge_spec({"type": "http", "url": "http://127.0.0.1:8000/v1", "model": "m"})
>>> spec["url"], spec["retries"]
('http://127.0.0.1:8000/v1/chat/completions', 4)
>>> build_judge(spec).describe()
'm at http://127.0.0.1:8000/v1/chat/completions'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rankscope.errors import InputError
from rankscope.service.sources.allow import check_allowed, import_target

if TYPE_CHECKING:
    from rankscope.judge import Judge, Prompt

__all__ = ["JUDGE_FIELDS", "build_judge", "check_judge", "parse_judge_spec"]

JUDGE_FIELDS = {
    "http": (
        "url",
        "model",
        "api_key_env",
        "temperature",
        "max_tokens",
        "seed",
        "timeout",
        "retries",
        "backoff",
        "prices",
    ),
    "callable": ("target", "thresholds"),
    "prompt": ("target",),
}
"""The fields of each kind of judge's specification (besides ``type``)."""


def parse_judge_spec(given: str | Mapping[str, Any]) -> dict[str, Any]:
    """A judge's whole specification, its defaults filled in and its values checked (by
    building the judge): ``"module:function"`` or a mapping with ``type``."""
    if isinstance(given, str):
        given = {"type": "callable", "target": given}
    kind = given.get("type")
    if kind not in JUDGE_FIELDS:
        raise InputError(f"a judge's type is http, callable or prompt; found {kind!r}")
    unknown = sorted(set(given) - {"type", *JUDGE_FIELDS[kind]})
    if unknown:
        raise InputError(
            f"unknown options {unknown} of a {kind} judge; expected some of "
            f"{list(JUDGE_FIELDS[kind])}"
        )
    if kind in ("callable", "prompt"):
        target = given.get("target")
        if not isinstance(target, str) or ":" not in target:
            raise InputError(f"a {kind} judge names its module:function; found {target!r}")
        if kind == "prompt":
            return {"type": "prompt", "target": target}
        thresholds = given.get("thresholds")
        return {
            "type": "callable",
            "target": target,
            "thresholds": None if thresholds is None else [float(t) for t in thresholds],
        }
    if not given.get("url") or not given.get("model"):
        raise InputError("an http judge needs its url and model")
    from rankscope.judge import ChatJudge

    options = {key: given[key] for key in JUDGE_FIELDS["http"] if given.get(key) is not None}
    if "prices" in options:
        options["prices"] = tuple(options["prices"])
    judge = ChatJudge(options.pop("url"), options.pop("model"), **options)
    return {"type": "http", **{key: value for key, value in judge.spec.items() if key != "type"}}


def check_judge(
    spec: Mapping[str, Any],
    allowed_callables: Sequence[str] | None,
    allowed_urls: Sequence[str] | None,
) -> None:
    """Refuse a judge the allow-lists do not admit (as `check_allowed` does a retriever): the
    one check of every judge the service builds, of judging tasks and of answers alike."""
    imported = {**spec, "type": "callable"} if spec.get("type") == "prompt" else spec
    check_allowed(imported, allowed_callables, allowed_urls, role="judge")


def build_judge(
    spec: Mapping[str, Any],
    *,
    prompt: Prompt | None = None,
    grades: Sequence[int] | None = None,
    allowed_callables: Sequence[str] | None = None,
    allowed_urls: Sequence[str] | None = None,
) -> Judge:
    """The judge of a specification (`parse_judge_spec`), with the task's prompt and scale;
    an endpoint's calls check its address against ``allowed_urls``."""
    from rankscope.judge import (
        DEFAULT_GRADES,
        RELEVANCE_PROMPT,
        CallableJudge,
        ChatJudge,
        PromptJudge,
    )

    scale = tuple(grades) if grades is not None else DEFAULT_GRADES
    if spec["type"] == "prompt":
        function = import_target(str(spec["target"]), "judge", allowed_callables)
        return PromptJudge(
            function, spec=dict(spec), grades=scale, prompt=prompt or RELEVANCE_PROMPT
        )
    if spec["type"] == "callable":
        function = import_target(str(spec["target"]), "judge", allowed_callables)
        thresholds = spec.get("thresholds")
        return CallableJudge(function, thresholds=thresholds, spec=dict(spec), grades=scale)
    from rankscope.service.sources.http import HTTPEndpoint

    options = {key: spec[key] for key in JUDGE_FIELDS["http"] if spec.get(key) is not None}
    if "prices" in options:
        options["prices"] = tuple(options["prices"])
    url, model = options.pop("url"), options.pop("model")
    options.update(prompt=prompt or RELEVANCE_PROMPT, grades=scale)
    endpoint = HTTPEndpoint(
        ChatJudge(url, model, **options).endpoint_spec(), "the HTTP judge", allowed_urls
    )
    return ChatJudge(url, model, endpoint=endpoint, **options)
