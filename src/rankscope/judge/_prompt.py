"""What a judge is asked, and how its answer is read.

The relevance prompt is rankscope's own wording in the manner of UMBRELA (Upadhyay et al.,
2024, after Thomas et al., 2024): a 0-3 scale with a sentence per grade, a word on weighing the
searcher's intent and the passage's trustworthiness, and the grade asked for on the last line.
Replace it with `Prompt` (or ``rankscope judge --prompt FILE``): a template is text in which
``{query}`` and ``{passage}`` are replaced (nothing else is: braces of its own stay as they
are); the answer is read by the same rule whatever the wording.

The rule (`read_grade`): the grade is the **last** whole number of the scale that stands alone
in the answer. A number inside a word or a longer number (``A2``, ``2024``), a decimal
(``2.5``), a denominator (``/3``, ``out of 3``), one after a hyphen (the end of a range
``0-3``, a sign ``-1``) or a number outside the scale is not a grade.
An answer without one has no grade: the pair is recorded as failed, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rankscope.errors import OptionError

__all__ = ["DEFAULT_GRADES", "RELEVANCE_PROMPT", "Prompt", "check_grades", "read_grade"]

DEFAULT_GRADES = (0, 1, 2, 3)
"""The relevance scale: 0 (nothing to do with the query) to 3 (the answer, plainly)."""

RELEVANCE_SYSTEM = (
    "You judge how relevant a passage is to a search query, as an assessor building a test "
    "collection does. You are careful, consistent and brief."
)
RELEVANCE_TEMPLATE = """\
Grade how well the passage answers the query, on this scale:
3 = the passage is about the query and states its answer plainly;
2 = the passage holds some of the answer, or the answer buried in unrelated text;
1 = the passage is on the query's topic but does not answer it;
0 = the passage has nothing to do with the query.

Think of what the person who typed the query most likely wants. Weigh how well the passage \
meets that need and how far it can be trusted, then settle on a single grade.

Query: {query}

Passage: {passage}

Write the grade alone on the last line, as: Grade: N"""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A run of digits that is not part of a word or a longer number, not a decimal's, not a
# denominator (after "/" or "out of").
_STANDALONE = re.compile(r"(?<![\w.,/-])(?<!out of )(\d+)(?![\w]|[.,]\d)", re.IGNORECASE)


@dataclass(frozen=True)
class Prompt:
    """A prompt's messages: an optional system message and a user message template.

    Attributes
    ----------
    template
        The user message; its placeholders (``{query}`` and ``{passage}`` for relevance) are
        replaced by the texts, any other brace is kept as written.
    system
        The system message, or None to send none.
    fields
        The placeholders the template must hold.

    Examples
    --------
    >>> prompt = Prompt("Is {passage} about {query}? Grade 0-3. {note}", None)
    >>> prompt.messages(query="bm25", passage="a ranking function")
    [{'role': 'user', 'content': 'Is a ranking function about bm25? Grade 0-3. {note}'}]
    >>> Prompt("Rate this passage: {passage}")
    Traceback (most recent call last):
    ...
    rankscope.errors.OptionError: the prompt template must hold {query}; it holds {passage}
    """

    template: str
    system: str | None = None
    fields: tuple[str, ...] = ("query", "passage")

    def __post_init__(self) -> None:
        if not isinstance(self.template, str) or not self.template.strip():
            raise OptionError("the prompt template must be a non-empty text")
        found = set(_PLACEHOLDER.findall(self.template))
        for name in self.fields:
            if name not in found:
                held = ", ".join(f"{{{f}}}" for f in self.fields if f in found) or "none"
                raise OptionError(f"the prompt template must hold {{{name}}}; it holds {held}")

    def messages(self, **texts: str) -> list[dict[str, str]]:
        """The chat messages with the texts put in, in one pass (a text's own braces are never
        read as placeholders)."""
        content = _PLACEHOLDER.sub(
            lambda found: texts[found.group(1)] if found.group(1) in texts else found.group(0),
            self.template,
        )
        sent = [] if self.system is None else [{"role": "system", "content": self.system}]
        return [*sent, {"role": "user", "content": content}]

    def to_dict(self) -> dict[str, str | None]:
        """The prompt as a task keeps it."""
        return {"template": self.template, "system": self.system}


RELEVANCE_PROMPT = Prompt(RELEVANCE_TEMPLATE, RELEVANCE_SYSTEM)
"""rankscope's relevance prompt (see the module's docstring)."""


def check_grades(grades: Sequence[int]) -> tuple[int, ...]:
    """A scale: distinct integers >= 0, ascending, at least two.

    >>> check_grades([0, 1, 2])
    (0, 1, 2)
    """
    values = tuple(grades)
    if (
        len(values) < 2
        or any(isinstance(g, bool) or not isinstance(g, int) or g < 0 for g in values)
        or list(values) != sorted(set(values))
    ):
        raise OptionError(
            f"a scale is two or more distinct integers >= 0 in ascending order; got {grades!r}"
        )
    return values


def read_grade(answer: str, grades: Sequence[int] = DEFAULT_GRADES) -> int | None:
    """The grade an answer gives: the last whole number of the scale standing alone in it, or
    None when it has none.

    Examples
    --------
    >>> read_grade("Relevance: 2"), read_grade("##final score: 2"), read_grade("Grade: 3.")
    (2, 2, 3)
    >>> read_grade("The passage covers 2 of the 3 aspects... Grade: 1")
    1
    >>> read_grade("I'd say 2/3"), read_grade("2 out of 3"), read_grade("2.5")
    (2, 2, None)
    >>> read_grade("Grade: 7"), read_grade("In 2024 it was rated A2") is None
    (None, True)
    """
    allowed = set(grades)
    found = [int(digits) for digits in _STANDALONE.findall(answer)]
    on_scale = [value for value in found if value in allowed]
    return on_scale[-1] if on_scale else None
