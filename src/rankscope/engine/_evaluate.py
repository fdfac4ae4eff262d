"""`evaluate`: from qrels, a run and measure names to per-query values and aggregates.

What the user asks (measure names, a profile or `Conventions`, the options) crosses into the
core once, as given: `plan` has the core parse and check all of it and returns the settled
request, which every evaluating call of the core then takes.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any, cast, overload

from rankscope import _core
from rankscope._progress import ProgressOption, shown, steps
from rankscope.engine.measures import FAMILIES, Measure, given_measures, measure, split_measures
from rankscope.engine.measures._names import measures_of
from rankscope.engine.profiles import Conventions, conventions_of, profile_spec
from rankscope.engine.results import Results, ResultsByRun
from rankscope.errors import (
    EmptyInputError,
    InputError,
    MeasureError,
    RankscopeError,
    RankscopeWarning,
)
from rankscope.io._files import STDIN, open_plain, open_stream
from rankscope.io._native import (
    DEFAULT_CHUNK_BYTES,
    NativeQrels,
    NativeRun,
    is_trec_run_file,
    native_qrels,
    native_run,
    trec_run_tag,
)

if TYPE_CHECKING:
    import polars as pl

    from rankscope.io.tables import Qrels, Run

__all__ = [
    "STREAM_THRESHOLD_BYTES",
    "Plan",
    "counts_progress",
    "evaluate",
    "evaluate_judgement_groups",
    "evaluate_native",
    "evaluate_prefs",
    "evaluate_query",
    "judgements",
    "native_ranking",
    "plan",
    "ranked_documents",
    "relevance_strings",
]

Plan = _core.Plan
"""Measures, conventions and options settled by the core (`plan`), ready to evaluate with."""

STREAM_THRESHOLD_BYTES: int = _core.STREAM_THRESHOLD_BYTES
"""TREC run files at least this large are never read whole unless ``stream=False`` (the core's
threshold, which the native executable follows too)."""

CHUNKED_MIN_BYTES: int = _core.CHUNKED_MIN_BYTES
"""Smaller run files are read whole (fastest); larger ones in chunks, to bound memory (the
core's threshold, which the native executable follows too)."""

PathLike = str | os.PathLike[str]


def _reading(run: Any, stream: bool | None) -> str:
    """How to read ``run``: ``"whole"`` into memory; ``"chunks"``, in chunks of whole queries
    if the file is grouped by query (else whole); or ``"stream"``, block by block whatever it
    holds (asked for, or large)."""
    if stream is True and not isinstance(run, str | os.PathLike):
        raise InputError(
            f"stream=True needs the run as a file path; a {type(run).__name__} is already in memory"
        )
    if not isinstance(run, str | os.PathLike) or stream is False:
        return "whole"
    if stream is None:
        if str(run) == STDIN or not os.path.isfile(run):
            return "whole"  # standard input or a pipe can be read only once
        size = os.stat(run).st_size
        if size < CHUNKED_MIN_BYTES or not is_trec_run_file(run):
            return "whole"
        return "stream" if size >= STREAM_THRESHOLD_BYTES else "chunks"
    if not is_trec_run_file(run):
        raise InputError(
            "only TREC run files can be streamed; read this one in memory (stream=False)",
            source=str(run),
        )
    return "stream"


class _Counted:
    """A file whose reads advance a progress display by the mebibytes read so far."""

    def __init__(self, file: IO[bytes], advance: Callable[..., None]) -> None:
        self.file, self.advance, self.done = file, advance, 0

    def read(self, size: int = -1) -> bytes:
        data = self.file.read(size)
        self.done += len(data)
        self.advance(self.done >> 20)
        return data


def counts_progress(run: Any, stream: bool | None = None) -> bool:
    """Whether `evaluate`'s ``progress`` shows the reading of ``run`` (with ``stream`` as
    given to it): a plain TREC run file read in chunks or streamed."""
    if _reading(run, stream) == "whole":
        return False
    return open_plain(cast(PathLike, run)) is not None


def _stream(
    qrels: NativeQrels,
    run: PathLike,
    settled: _core.Plan,
    grouping: str,
    progress: ProgressOption = None,
) -> tuple[_core.PerQuery, list[str], list[str], str]:
    """The core's streaming evaluation of a TREC run file: a plain file read by the core, a
    compressed one (or standard input) decompressed here as the core asks for blocks. With
    ``progress`` shown, a plain file is read here too, counting the mebibytes read."""
    plain = open_plain(run)
    with ExitStack() as stack:
        source = plain.source if plain is not None else "<stdin>" if str(run) == STDIN else str(run)
        path = plain.path if plain is not None else None
        opened: Callable[[], Any] | None = None
        if path is None:

            def opened() -> IO[bytes]:
                return open_stream(run, stack).file

        elif shown(progress):
            mebibytes = (os.path.getsize(path) >> 20) + 1
            advance = stack.enter_context(steps(mebibytes, f"reading {source} (MiB)", progress))

            def opened() -> _Counted:
                return _Counted(stack.enter_context(open(path, "rb")), advance)

        values, unjudged, missing, run_name, notes = _core.evaluate_stream(
            qrels,
            source,
            settled,
            grouping=grouping,
            path=path if opened is None else None,
            open=opened,
        )
        if path is not None and opened is not None:  # named as the core names a file it reads
            run_name = trec_run_tag(path, source) or run_name
    for note in notes:
        warnings.warn(note, RankscopeWarning, stacklevel=4)
    return values, unjudged, missing, run_name


def plan(
    measures: str | Measure | Iterable[str | Measure] | None = None,
    profile: str | Conventions = "trec",
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    lenient: bool = False,
) -> _core.Plan:
    """Measures, profile and options as the user gave them, settled by the core in one call:
    names parsed (repeats dropped; a string may list several, see
    `rankscope.engine.measures.given_measures`), conventions resolved, every option checked,
    and the profile's support of each measure, before any input is read. ``measures=None``
    plans the profile's default measures, as the command line computes without ``-m``.

    Examples
    --------
    >>> settled = plan(["ndcg_cut.10", "nDCG@10", "AP"], "trec9", relevance_level=2)
    >>> measures_of(settled), settled.relevance_level
    ([nDCG@10, AP], 2)
    >>> measures_of(plan(None, "weknora"))
    [P, R, nDCG@3, nDCG@10, RR, AP]
    >>> plan("AP", max_documents=-1)
    Traceback (most recent call last):
    ...
    rankscope.errors.OptionError: max_documents must be an integer >= 0; got -1
    """
    return _core.plan(
        None if measures is None else given_measures(measures),
        profile_spec(profile),
        defaults=True,
        duplicate_documents=duplicate_documents,
        relevance_level=relevance_level,
        max_documents=max_documents,
        chunk_bytes=chunk_bytes,
        complete=complete,
        lenient=lenient,
    )


def given_names(
    measures: str | Measure | Iterable[str | Measure] | None, settled: Sequence[Measure]
) -> tuple[str, ...]:
    """The name of each settled measure as the caller gave it (the first name given for it:
    ``"map@5"``, ``"ndcg_cut.10"``, ir_measures' ``str()``), else its canonical name.

    Examples
    --------
    >>> given_names("map@5, mrr, AP@5", measures_of(plan("map@5, mrr, AP@5")))
    ('map@5', 'mrr')
    >>> given_names(None, measures_of(plan(None, "weknora")))
    ('P', 'R', 'nDCG@3', 'nDCG@10', 'RR', 'AP')
    """
    first: dict[Measure, str] = {}
    for given in [] if measures is None else given_measures(measures):
        for name in split_measures(given) if isinstance(given, str) else [given]:
            try:
                first.setdefault(measure(name), name if isinstance(name, str) else str(name))
            except (MeasureError, TypeError):
                continue  # the core read it otherwise (or refused it): canonical then
    return tuple(first.get(m, m.name) for m in settled)


def _settled_without_measures(profile: str | Conventions, **options: Any) -> _core.Plan:
    """A plan of no measure (for `relevance_strings` and `ranked_documents`)."""
    return _core.plan(None, profile_spec(profile), **options)


@overload
def evaluate(
    qrels: Qrels | NativeQrels | Mapping[Any, Any] | PathLike | Any,
    run: Mapping[str, Run | NativeRun | PathLike | pl.DataFrame],
    measures: str | Measure | Iterable[str | Measure] | None = None,
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    stream: bool | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    lenient: bool = False,
    progress: ProgressOption = None,
) -> ResultsByRun: ...


@overload
def evaluate(
    qrels: Qrels | NativeQrels | Mapping[Any, Any] | PathLike | Any,
    run: Run | NativeRun | Mapping[Any, Any] | PathLike | Any,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    stream: bool | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    lenient: bool = False,
    progress: ProgressOption = None,
) -> Results: ...


def evaluate(
    qrels: Qrels | NativeQrels | Mapping[Any, Any] | PathLike | Any,
    run: Run | NativeRun | Mapping[Any, Any] | PathLike | Any,
    measures: str | Measure | Iterable[str | Measure] | None = None,
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    *,
    max_documents: int | None = None,
    duplicate_documents: str | None = None,
    stream: bool | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    lenient: bool = False,
    progress: ProgressOption = None,
) -> Results | ResultsByRun:
    """Evaluate a run against qrels: per-query values and aggregates of each measure.

    Parameters
    ----------
    qrels
        Judgements: a `Qrels`, ``{query_id: {doc_id: grade}}``, a file path, a frame (polars,
        pandas, pyarrow, ``datasets.Dataset``, any Arrow stream) with the usual column names,
        or an iterable of records such as ir_datasets' ``qrels_iter()`` or ir_measures'
        ``Qrel`` tuples (see `rankscope.io.as_qrels`).
    run
        Rankings: a `Run`, ``{query_id: {doc_id: score}}``, ``{query_id: [doc_id, ...]}``, a
        file path (any format `rankscope.io.read_run` reads), a frame, or an iterable of
        records such as ``scoreddocs_iter()`` or ir_measures' ``ScoredDoc`` tuples. Or several
        runs by name, ``{"bm25": run, "dense": run}`` (each in any of those forms): each is
        evaluated against the same qrels, and the results come as one `ResultsByRun`.

        A run given empty in memory (``{}``, an empty frame or list) retrieved nothing: every
        judged query scores as a query with nothing retrieved (0 for NDCG, AP, P, ...), as
        ir_measures scores it. Qrels given empty in memory judge nothing: no query is
        evaluated (every aggregate is NaN), with a `RankscopeWarning`. An empty file is an
        error, either way.
    measures
        Names such as ``"nDCG@10"``, ``"AP"``, ``"P(rel=2)@5"`` or trec_eval's ``"ndcg_cut.10"``
        (or a list of them); a string listing several, separated by commas
        (``"nDCG@10, AP"``; a string that is itself one valid name stays one measure:
        ``"P(rel=2,judged_only=True)@5"``); ir_measures' measure objects (``nDCG@10``,
        ``P(rel=2)@5``, read by their names). None (the default): the profile's default
        measures, as the command line computes without ``-m`` (``weknora``: WeKnora's six).
        The values are keyed by the names given (``"map@5"`` stays ``"map@5"``; see
        `Results`), the defaults by their canonical names.
    profile
        ``"trec"`` (trec_eval 10, the default), ``"trec9"`` (scores rounded to float32 before
        sorting, as trec_eval <= 9.0.8 and pytrec_eval) or ``"weknora"``.
    complete
        Score judged queries missing from the run as 0 and include them in the aggregates
        (trec_eval ``-c``). Otherwise they are left out.
    relevance_level
        Lowest grade that counts as relevant for binary measures (trec_eval ``-l``). Any
        integer, compared as trec_eval compares it: below 1 judged non-relevant documents
        count as relevant; below 0, in the measures that compare grades directly, so do
        retrieved documents absent from the qrels (grade -1) and, below -1, pooled but unjudged
        ones (a negative grade in the qrels, -2).
    max_documents
        Evaluate only the first ``max_documents`` of each ranking (trec_eval ``-M``); 0 leaves
        every ranking empty.
    duplicate_documents
        Override the profile's policy for a document ranked twice in one query:
        ``"error"``, ``"keep_first"`` or ``"keep_all"``.
    stream
        For a TREC run file. None (the default): a plain file of ``CHUNKED_MIN_BYTES`` or more
        is read in chunks of whole queries, the next chunk read by the core on another
        thread while this one is scored, when it is grouped by query; anything else is read
        whole (from ``STREAM_THRESHOLD_BYTES`` on, as with
        True). True: evaluate it block by block whatever it holds, with memory bounded by
        ``chunk_bytes``; a run whose queries are not grouped is spread over partition files
        on disk first (with a warning). False: read it whole. The values are identical either
        way.
    chunk_bytes
        How much of the run file a streamed chunk reads.
    lenient
        For inputs given as file paths: skip malformed lines (counted in a warning) instead of
        raising at the first.
    progress
        For a plain TREC run file read in chunks or streamed (see ``stream``): ``True``, a bar
        of the mebibytes read on standard error when it is a terminal; or a callable, called
        with ``(done, total)`` in mebibytes as the core reads. The file is then read through
        Python rather than by the core's own reader (the values are the same). Nothing for
        the other inputs.

    Examples
    --------
    >>> import rankscope
    >>> qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d5": 0.9, "d4": 0.1}}
    >>> results = rankscope.evaluate(qrels, run, ["nDCG@2", "P@2", "RR"])
    >>> results.mean()
    {'nDCG@2': 0.6955..., 'P@2': 0.5, 'RR': 0.75}
    >>> results.to_dict()["q2"]
    {'nDCG@2': 0.6309297535714575, 'P@2': 0.5, 'RR': 0.5}

    Ties in score are broken by document id, descending, as trec_eval does; the order of the
    input does not matter:

    >>> rankscope.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, "RR").mean()
    {'RR': 0.5}

    Several measures in one string, and the profile's defaults without any:

    >>> rankscope.evaluate(qrels, run, "P@2, RR").mean()
    {'P@2': 0.5, 'RR': 0.75}

    Names as the peers write them key the values (the canonical names find them too):

    >>> means = rankscope.evaluate(qrels, run, ["ndcg_cut.2", "mrr"]).mean()
    >>> means, means["nDCG@2"]
    ({'ndcg_cut.2': 0.6955..., 'mrr': 0.75}, 0.6955...)

    An empty run retrieved nothing, for every judged query:

    >>> rankscope.evaluate(qrels, {}, ["nDCG@2", "NumRel"]).to_dict()
    {'q1': {'nDCG@2': 0.0, 'NumRel': 2.0}, 'q2': {'nDCG@2': 0.0, 'NumRel': 1.0}}
    >>> list(rankscope.evaluate(qrels, run, profile="weknora").mean())
    ['P', 'R', 'nDCG@3', 'nDCG@10', 'RR', 'AP']

    The qrels come first; a run given in their place is refused with a hint:

    >>> rankscope.evaluate(run, qrels, "RR")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: <dict>: relevance must be an integer grade; found 0.9 ...
    """
    settled = plan(
        measures,
        profile,
        relevance_level=relevance_level,
        complete=complete,
        max_documents=max_documents,
        duplicate_documents=duplicate_documents,
        chunk_bytes=chunk_bytes,
        lenient=lenient,
    )
    names = given_names(measures, measures_of(settled))
    if isinstance(run, Mapping) and _holds_runs(run):
        return _evaluate_runs(qrels, run, settled, names, stream, lenient, progress)
    return _evaluate_run(qrels, run, settled, names, stream, lenient, progress)


def _evaluate_runs(
    qrels: Any,
    runs: Mapping[Any, Any],
    settled: _core.Plan,
    names: tuple[str, ...],
    stream: bool | None,
    lenient: bool,
    progress: ProgressOption,
) -> ResultsByRun:
    """Each run of ``{name: run}`` evaluated against the same qrels (read once), by name."""
    for name in runs:
        if not isinstance(name, str) or not name:
            raise InputError(f"run names must be non-empty strings; got {name!r}")
    judged = judgements(qrels, lenient)
    return ResultsByRun(
        {
            name: _evaluate_run(
                qrels if judged is None else judged, run, settled, names, stream, lenient, progress
            ).renamed(name)
            for name, run in runs.items()
        }
    )


def _evaluate_run(
    qrels: Any,
    run: Any,
    settled: _core.Plan,
    names: tuple[str, ...],
    stream: bool | None,
    lenient: bool,
    progress: ProgressOption,
) -> Results:
    """`evaluate` of one run under a settled plan."""
    how = _reading(run, stream)
    judged = judgements(qrels, lenient)
    if judged is None:
        return _nothing_judged(run, settled, names, lenient)
    scored: tuple[_core.PerQuery, list[str], list[str], str] | None = None
    if how != "whole":
        path = cast(PathLike, run)  # only files are streamed
        if how == "chunks":
            # A large file: in chunks of whole queries if it is grouped by query. If not, or
            # on any error, reading it whole decides (and words the error as always).
            try:
                scored = _stream(judged, path, settled, "grouped", progress)
            except RankscopeError:
                scored = None
        else:  # block by block, grouped or not
            scored = _stream(judged, path, settled, "detect", progress)
    if scored is not None:
        values, unjudged, missing, run_name = scored
        if not run_name:
            run_name = os.path.splitext(os.path.basename(str(run)))[0]
    else:
        ranking = _ranking(run, qrels, lenient)
        if ranking is None:
            ranking = _nothing_retrieved(judged)
        values, unjudged, missing = _core.evaluate(judged, ranking, settled)
        run_name = ranking.name
    if unjudged:
        shown = ", ".join(unjudged[:5])
        more = "..." if len(unjudged) > 5 else ""
        warnings.warn(
            f"{len(unjudged)} queries of run {run_name!r} have no judgements and were "
            f"ignored: {shown}{more}",
            RankscopeWarning,
            stacklevel=3,
        )
    return Results(
        measures=tuple(measures_of(settled)),
        values=values,
        profile=conventions_of(settled).name,
        run_name=run_name,
        unjudged_queries=tuple(unjudged),
        missing_queries=tuple(missing),
        complete=settled.complete,
        names=names,
    )


def _nothing_retrieved(judged: NativeQrels) -> NativeRun:
    """The run given empty in memory: it retrieved nothing for any judged query."""
    return _core.run_from_dict({query_id: {} for query_id in judged.query_ids()})


def native_ranking(run: Any, judged: NativeQrels, lenient: bool = False) -> NativeRun:
    """The core's run (see `rankscope.io._native.native_run`), as `evaluate` reads it: one
    given empty in memory retrieved nothing for any query ``judged`` judges (a file without
    results is an error). For the adapters that evaluate with the core themselves
    (`rankscope.compat`)."""
    try:
        return native_run(run, lenient)
    except EmptyInputError:
        if isinstance(run, str | os.PathLike):
            raise
        return _nothing_retrieved(judged)


def _nothing_judged(
    run: Any, settled: _core.Plan, names: tuple[str, ...], lenient: bool
) -> Results:
    """The results of a run against qrels given empty in memory: no query evaluated, every
    query of the run unjudged (said in a warning), as ir_measures returns them."""
    ranking = _ranking(run, None, lenient)
    unjudged = [] if ranking is None else ranking.query_ids()
    run_name = "run" if ranking is None else ranking.name
    warnings.warn(
        f"the qrels hold no judgements: no query of run {run_name!r} is evaluated "
        f"({len(unjudged)} unjudged); every aggregate is NaN",
        RankscopeWarning,
        stacklevel=4,
    )
    measures = measures_of(settled)
    return Results(
        measures=tuple(measures),
        values=_core.PerQuery(
            [],
            [m.name for m in measures],
            [FAMILIES[m.family].aggregate for m in measures],
            [[] for _ in measures],
        ),
        profile=conventions_of(settled).name,
        run_name=run_name,
        unjudged_queries=tuple(unjudged),
        complete=settled.complete,
        names=names,
    )


def _swapped(function: str = "evaluate", second: str = "run") -> str:
    """The hint of arguments given in the wrong order, to ``function(qrels, second)``."""
    return (
        f"were the qrels and the {second} given in the wrong order? The qrels come first: "
        f"{function}(qrels, {second})"
    )


_NOT_A_GRADE = re.compile(r"relevance must be an integer grade; found -?[0-9]+\.[0-9]*[1-9]")
_NAME_IT = re.compile(r"\(or name it with (query_id|doc_id|relevance|score)=\.\.\.\)")


def judgements(
    qrels: Any, lenient: bool = False, function: str = "evaluate", second: str = "run"
) -> NativeQrels | None:
    """The core's qrels, with the errors of `evaluate` (and of the other functions that take
    qrels first, ``function(qrels, second)``): a score with a fraction where a grade was expected,
    or a dict of runs (a run or runs given first), said so; a missing column named as
    `rankscope.io`'s readers take it (`evaluate` takes no column names). None for qrels
    given empty in memory (a file without judgements is an error).

    Examples
    --------
    >>> judgements({"bm25": {"q1": {"d1": 0.5}}}, function="compare_runs", second="runs")
    Traceback (most recent call last):
    ...
    rankscope.errors.InputError: <dict>: relevance must be an integer grade; found {'d1': 0.5}
    for query 'bm25', document 'q1': were the qrels and the runs given in the wrong order? The
    qrels come first: compare_runs(qrels, runs)
    """
    try:
        return native_qrels(qrels, lenient)
    except EmptyInputError:
        if isinstance(qrels, str | os.PathLike):
            raise
        return None
    except InputError as error:
        hint = ""
        in_memory = not isinstance(qrels, str | os.PathLike)  # the core words it for files
        if in_memory and (
            _NOT_A_GRADE.match(error.message) or (isinstance(qrels, Mapping) and _holds_runs(qrels))
        ):
            hint = f": {_swapped(function, second)}"
        raise _reworded(error, _reader("qrels", qrels), hint) from None


def _ranking(run: Any, qrels: Any, lenient: bool) -> NativeRun | None:
    """The core's run, with the errors of `evaluate`: a missing column named as
    `rankscope.io`'s readers take it; and a warning when dicts of float grades and integer
    scores suggest the qrels and the run were swapped. None for a run given empty in memory
    (a file without results is an error)."""
    try:
        ranking = native_run(run, lenient)
    except EmptyInputError:
        if isinstance(run, str | os.PathLike):
            raise
        return None
    except InputError as error:
        raise _reworded(error, _reader("run", run), "") from None
    if (
        isinstance(qrels, Mapping)
        and isinstance(run, Mapping)
        and _first_value(qrels, float)
        and _first_value(run, int)
    ):
        warnings.warn(
            f"the qrels hold float grades and the run integer scores: {_swapped()}",
            RankscopeWarning,
            stacklevel=4,
        )
    return ranking


def _holds_runs(data: Mapping[Any, Any]) -> bool:
    """Whether a mapping that is no valid run is ``{name: run}``: its first value a file path,
    a `Run` or a frame, or a mapping of queries to rankings (mappings or lists)."""
    first = next(iter(data.values()), None)
    if isinstance(first, Mapping):
        inner = next(iter(first.values()), None)
        return isinstance(inner, Mapping | list | tuple)
    if isinstance(first, str | os.PathLike):
        return os.path.isfile(first)
    return isinstance(first, NativeRun) or any(
        hasattr(first, name) for name in ("frame", "columns", "__arrow_c_stream__")
    )


def _first_value(nested: Mapping[Any, Any], kind: type) -> bool:
    """Whether the first value of the first query of ``{query: {doc: value}}`` is a ``kind``
    (not a bool): enough to tell judgements from scores, at no cost."""
    for docs in nested.values():
        if isinstance(docs, Mapping):
            for value in docs.values():
                return isinstance(value, kind) and not isinstance(value, bool)
        return False
    return False


def _reader(kind: str, data: Any) -> str:
    """The function of `rankscope.io` that reads ``data`` as ``kind`` with column names."""
    return f"read_{kind}" if isinstance(data, str | os.PathLike) else f"as_{kind}"


def _reworded(error: InputError, reader: str, hint: str) -> InputError:
    """``error`` with ``hint`` added and a column named as ``rankscope.io.<reader>`` takes it."""
    message = _NAME_IT.sub(rf"(or name it with rankscope.io.{reader}(..., \1=...))", error.message)
    if not hint and message == error.message:
        return error
    return type(error)(
        message + hint,
        source=error.source,
        line=error.line,
        text=error.text,
        query=error.query,
        document=error.document,
    )


def evaluate_native(
    qrels: NativeQrels, run: NativeRun, settled: _core.Plan
) -> tuple[_core.PerQuery, list[str], list[str]]:
    """The core's evaluation of judgements and a run it holds, under a `plan`: the per-query
    values (labelled with the measures' canonical names, rows by query id), the queries of the
    run without judgements and the judged queries missing from the run. For adapters that
    shape results their own way (`rankscope.compat`)."""
    return _core.evaluate(qrels, run, settled)


def evaluate_query(
    judged: Sequence[tuple[str, int]],
    ranking: Sequence[tuple[str, float]],
    measures: str | Measure | Iterable[str | Measure] | _core.Plan | None = None,
    conventions: Conventions | None = None,
    *,
    relevance_level: int = 1,
    query_id: str = "q",
) -> list[float]:
    """Every measure's value for one query given as lists, by the core: ``judged`` holds
    ``(doc_id, grade)`` pairs, ``ranking`` ``(doc_id, score)`` pairs (empty: nothing
    retrieved). The rules of `evaluate`, for the paths that score one question at a time
    (WeKnora's metric API, the service). ``measures`` are taken as `evaluate` takes them
    (None: the profile's defaults), or a `plan` already settled (then ``conventions`` and
    ``relevance_level`` are the plan's).

    Examples
    --------
    >>> from rankscope.engine.profiles import PROFILES
    >>> from rankscope.engine.measures import measure
    >>> evaluate_query([("a", 2), ("b", 0)], [("b", 0.5), ("a", 0.5), ("c", 0.9)],
    ...                [measure("RR"), measure("P@2")], PROFILES["trec"])
    [0.3333333333333333, 0.0]
    >>> evaluate_query([("a", 2)], [("a", 0.5)], "RR, P@1")
    [1.0, 1.0]
    """
    if isinstance(measures, _core.Plan):
        settled = measures
    else:
        given = None if measures is None else tuple(given_measures(measures))
        settled = _planned(given, conventions or "trec", relevance_level)
    return _core.evaluate_query(list(judged), list(ranking), settled, query_id)


@lru_cache(maxsize=256)
def _planned(
    measures: tuple[Any, ...] | None, conventions: str | Conventions, relevance_level: int
) -> _core.Plan:
    """The plan of one-question evaluations, settled once for each set of measures."""
    return plan(measures, conventions, relevance_level=relevance_level)


def relevance_strings(
    qrels: NativeQrels,
    run: NativeRun,
    length: int,
    *,
    profile: str | Conventions = "trec",
    complete: bool = False,
    relevance_level: int = 1,
    max_documents: int | None = None,
) -> dict[str, str]:
    """trec_eval's relstring of each query: the grades of its first ``length`` documents as
    characters (``0``-``9``, ``>`` above 9, ``-`` not judged, ``.`` judged with a negative
    grade), with the options of :func:`evaluate`."""
    settled = _settled_without_measures(
        profile,
        complete=complete,
        relevance_level=relevance_level,
        max_documents=max_documents,
    )
    return dict(_core.relevance_strings(qrels, run, settled, max(length, 0)))


def evaluate_prefs(
    path: str,
    rel_info_format: str,
    run: NativeRun,
    measures: Sequence[Measure],
    *,
    complete: bool = False,
    max_documents: int | None = None,
) -> tuple[_core.PerQuery, list[str], list[str], str | None]:
    """Preference measures of ``run`` against the preference judgements in the file at
    ``path`` (``rel_info_format``: trec_eval's ``-R``, ``prefs`` or ``qrels_prefs``): the
    per-query values, the unjudged and missing queries, and the warning about unjudged
    queries (if any)."""
    settled = plan(list(measures), complete=complete, max_documents=max_documents)
    return _core.evaluate_prefs(path, path, rel_info_format, run, settled)


def evaluate_judgement_groups(
    path: str,
    run: NativeRun,
    measures: Sequence[Measure],
    *,
    profile: str | Conventions = "trec",
    relevance_level: int = 1,
    complete: bool = False,
    max_documents: int | None = None,
) -> tuple[_core.PerQuery, list[str], list[str], str | None]:
    """Each measure of ``run`` for each judgement group of the qrels at ``path``, averaged
    over the groups judging the query (trec_eval's ``-R qrels_jg``), with the unjudged and
    missing queries and the warning about unjudged queries."""
    settled = plan(
        list(measures),
        profile,
        relevance_level=relevance_level,
        complete=complete,
        max_documents=max_documents,
    )
    return _core.evaluate_judgement_groups(path, path, run, settled)


def ranked_documents(
    run: Any,
    qrels: Any = None,
    *,
    profile: str | Conventions = "trec",
    max_documents: int | None = None,
) -> pl.DataFrame:
    """Every query of ``run`` (judged or not, by query id, byte-wise), its documents in the
    order `rankscope.evaluate` ranks them under ``profile`` (``trec``: score descending, ties
    by document id descending), cut at ``max_documents``; with each document's grade in
    ``qrels`` (if given).

    Returns a frame of ``query_id``, ``doc_id``, ``score``, ``rank`` (1 for each query's
    first), ``relevance`` (the grade; null where ``qrels`` hold none) and ``judged``. A
    document ranked twice in one query is a `DuplicateDocumentError` (naming the query and
    the document), unless the profile keeps duplicates.

    Examples
    --------
    >>> from rankscope.io import Qrels, Run
    >>> run = Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "c": 0.9}})
    >>> ranked_documents(run, Qrels.from_dict({"q1": {"b": 2}})).rows()
    [('q1', 'c', 0.9, 1, None, False),
     ('q1', 'b', 0.5, 2, 2, True),
     ('q1', 'a', 0.5, 3, None, False)]
    """
    import polars as pl

    settled = _settled_without_measures(profile, max_documents=max_documents)
    judged = None if qrels is None else native_qrels(qrels)
    return pl.DataFrame(_core.ranked_documents(native_run(run), settled, judged))
