"""Profiles: named bundles of the conventions that evaluation tools disagree on.

Every convention is a field of :class:`Conventions` with a name that says what it decides.
A profile is one value of it. ``trec`` reproduces trec_eval 10, ``trec9`` trec_eval up to 9.0.8
(and so pytrec_eval and published BEIR numbers), ``weknora`` WeKnora's metric package.
"""

# No `from __future__ import annotations` in this module: typing.NamedTuple compiles each
# string annotation into a ForwardRef when the class is made, milliseconds of every start-up.

from typing import Literal, NamedTuple, get_args

from rankscope.errors import ProfileError

__all__ = ["PROFILES", "Conventions", "resolve_profile"]

Ordering = Literal["score_then_docid_desc", "as_given", "score_then_docid_asc"]
ScorePrecision = Literal["float64", "float32"]
DuplicatePolicy = Literal["error", "keep_first", "keep_all"]
Gain = Literal["linear", "exp"]
IdealRanking = Literal["judged", "judged_capped_by_retrieved"]
PrecisionDenominator = Literal["cutoff", "retrieved"]
APDenominator = Literal["relevant", "relevant_retrieved"]
RecallLevelRounding = Literal["nearest", "add_0.9_truncate"]
UnjudgedDocuments = Literal["keep", "drop"]
ZeroDivision = Literal["zero", "nan"]
MissingQueryRanking = Literal["empty", "placeholder"]


class Conventions(NamedTuple):
    """How a ranking is formed and how measures treat the contested cases.

    Values are checked where conventions are used (`resolve_profile`, `with_options`, and so
    every evaluation): a `ProfileError` names the field and the values it allows.

    Attributes
    ----------
    name
        The profile's name.
    ordering
        ``"score_then_docid_desc"``: sort each query's documents by score descending, ties by
        document id descending, byte-wise (trec_eval). ``"as_given"``: the order of the input.
        ``"score_then_docid_asc"``: ties by document id ascending (pyndeval, and so
        ir_measures' diversity measures).
    score_precision
        ``"float32"`` rounds scores to 32-bit floats before sorting (trec_eval <= 9.0.8).
    duplicate_documents
        A document id twice in one query's ranking: ``"error"``, ``"keep_first"`` (the first
        after sorting), or ``"keep_all"`` (every occurrence counts, as WeKnora does).
    binary_relevance
        Grades become 1 (``grade >= relevance_level``) or 0 before any measure sees them.
    gain
        Default gain of nDCG: ``"linear"`` (the grade) or ``"exp"`` (``2**grade - 1``).
    ideal_ranking
        ``"judged"``: the ideal DCG ranks all judged documents of the query by grade.
        ``"judged_capped_by_retrieved"``: as WeKnora, at most as many ideal positions as
        documents were retrieved (so returning fewer documents can raise nDCG).
    precision_denominator
        ``"cutoff"``: P@k divides by k (trec_eval). ``"retrieved"``: by the number retrieved.
    ap_denominator
        ``"relevant"``: AP divides by the number of relevant documents (trec_eval).
        ``"relevant_retrieved"``: by the number of relevant documents retrieved (WeKnora).
    recall_level_rounding
        How IPrec@r turns the recall level r into a number of relevant documents:
        ``"nearest"`` rounds ``r * R`` (trec_eval 10); ``"add_0.9_truncate"`` takes
        ``int(r * R + 0.9)`` (trec_eval <= 9.0.8, pytrec_eval).
    unjudged_documents
        ``"keep"``: retrieved documents without a judgement (absent from the qrels or with a
        negative grade) stay in the ranking as non-relevant (trec_eval). ``"drop"``: they
        leave the ranking before any measure is computed (trec_eval ``-J``).
    zero_division
        What a measure trec_eval computes as 0 divided by 0 gives: ``"zero"``, or ``"nan"`` as
        trec_eval 10 prints it (``-nan``): interpolated precision (IPrec, IPrecAvg) of an
        empty ranking (trec_eval ``-J`` with nothing judged retrieved, or ``-M0``) and RnDCG
        of a query whose relevant documents all have gain 0 (``-l0``). A mean over queries
        with a NaN is NaN. Named after scikit-learn's ``zero_division``.
    missing_query_ranking
        What a judged query absent from the run is scored on under ``complete=True``:
        ``"empty"`` (nothing retrieved), or ``"placeholder"`` as trec_eval 10 ``-c``: one
        unjudged document, after which trec_eval sets its ``num_ret``, ``utility``,
        ``rbp_resid`` and ``unj_*`` to 0, while measures with parameters of their own
        (``Utility(a=1,b=-1,c=0,d=1)``, ``TrecRBPResid(p=0.5)``) keep what the placeholder
        gives them.
    """

    name: str
    ordering: Ordering = "score_then_docid_desc"
    score_precision: ScorePrecision = "float64"
    duplicate_documents: DuplicatePolicy = "error"
    binary_relevance: bool = False
    gain: Gain = "linear"
    ideal_ranking: IdealRanking = "judged"
    precision_denominator: PrecisionDenominator = "cutoff"
    ap_denominator: APDenominator = "relevant"
    recall_level_rounding: RecallLevelRounding = "nearest"
    unjudged_documents: UnjudgedDocuments = "keep"
    zero_division: ZeroDivision = "zero"
    missing_query_ranking: MissingQueryRanking = "empty"

    def checked(self) -> "Conventions":
        """These conventions, once every field holds a value its type allows."""
        for field, value in zip(self._fields, self, strict=True):
            allowed = _ALLOWED[field]
            if allowed and value not in allowed:
                choices = ", ".join(repr(a) for a in allowed)
                raise ProfileError(f"{field} must be one of {choices}; got {value!r}")
        return self

    @property
    def keeps_duplicate_judgements(self) -> bool:
        """Whether a document judged twice counts twice in the ideal ranking (WeKnora's
        countGt). Only with binary relevance; otherwise a duplicate judgement is an error."""
        return self.duplicate_documents == "keep_all" and self.binary_relevance

    def with_options(self, **changes: object) -> "Conventions":
        """A copy with some conventions changed (validated)."""
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise ProfileError(
                f"unknown convention(s) {sorted(unknown)}; expected some of {sorted(self._fields)}"
            )
        return self._replace(**changes).checked()  # type: ignore[arg-type]


_ALLOWED: dict[str, tuple[object, ...]] = {
    field: get_args(kind) for field, kind in Conventions.__annotations__.items()
}
"""Each convention's allowed values (its Literal's), empty where any value of its type goes."""

PROFILES: dict[str, Conventions] = {
    "trec": Conventions("trec"),
    "trec9": Conventions(
        "trec9", score_precision="float32", recall_level_rounding="add_0.9_truncate"
    ),
    "weknora": Conventions(
        "weknora",
        ordering="as_given",
        duplicate_documents="keep_all",
        binary_relevance=True,
        gain="exp",
        ideal_ranking="judged_capped_by_retrieved",
        precision_denominator="retrieved",
        ap_denominator="relevant_retrieved",
    ),
}


def resolve_profile(profile: str | Conventions) -> Conventions:
    """The conventions of a profile given by name (or as conventions already).

    Examples
    --------
    >>> resolve_profile("trec9").score_precision
    'float32'
    >>> resolve_profile("trac")
    Traceback (most recent call last):
    ...
    rankscope.errors.ProfileError: unknown profile 'trac'; expected one of 'trec', ...
    """
    if isinstance(profile, Conventions):
        return profile.checked()
    try:
        return PROFILES[profile]
    except (KeyError, TypeError):
        names = ", ".join(repr(name) for name in PROFILES)
        raise ProfileError(f"unknown profile {profile!r}; expected one of {names}") from None
