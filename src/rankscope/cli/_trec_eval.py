"""``rankscope trec-eval [trec_eval's options] QRELS RUN``: a drop-in for trec_eval.

Takes every option of trec_eval 10's usage, in its short and long forms, with trec_eval's
meaning, and prints its exact output.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from rankscope.cli import COMMANDS
from rankscope.cli._common import load_judgements, load_ranking, reading
from rankscope.engine import evaluate
from rankscope.engine._evaluate import (
    evaluate_judgement_groups,
    evaluate_prefs,
    relevance_strings,
)
from rankscope.engine.measures import Measure, measure
from rankscope.engine.native import (
    TREC_EVAL_STOP_STATUS,
    PerQuery,
    trec_eval_check_grades,
    trec_eval_check_judgements,
    trec_eval_negative_first_query,
    trec_eval_no_common_queries,
    trec_eval_stop,
    trec_eval_undetermined,
)
from rankscope.engine.profiles import resolve_profile
from rankscope.engine.results import Results
from rankscope.errors import NoCommonQueriesError, OptionError, RankscopeWarning
from rankscope.report.results import write_text
from rankscope.report.trec_eval import (
    TrecMeasure,
    format_trec_eval,
    read_zscores,
    trec_eval_measures,
)

# trec_eval's version this command reproduces.
TREC_EVAL_VERSION = "10.0"

# -R formats, and the kind of judgements each holds.
_REL_INFO_FORMATS = {
    "qrels": "qrels",
    "prefs": "prefs",
    "qrels_prefs": "prefs",
    "qrels_jg": "qrels_jg",
}


class _Choice(argparse.Action):
    """An option whose value must be one of trec_eval's; refused with exit code 2."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        allowed: dict[str, str] = self.const
        if values not in allowed:
            raise OptionError(
                f"{option} {values!r}: trec_eval has no such format (it knows {', '.join(allowed)})"
            )
        setattr(namespace, self.dest, values)


class _Version(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        from importlib.metadata import version

        # trec_eval prints its version on standard error.
        print(
            f"trec_eval version {TREC_EVAL_VERSION} (rankscope {version('rankscope')})",
            file=sys.stderr,
        )
        parser.exit(0)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "trec-eval",
        help=COMMANDS["trec-eval"][1],
        description=(
            "A drop-in for trec_eval 10: the same options (short and long), the same output, "
            "byte for byte."
        ),
    )
    parser.add_argument("qrels", metavar="trec_rel_file", help="relevance judgements")
    parser.add_argument("run", metavar="trec_top_file", help="ranked results")
    parser.add_argument(
        "-v", "--version", nargs=0, action=_Version, help="print trec_eval's version and exit"
    )
    parser.add_argument(
        "-q",
        "--query_eval_wanted",
        "--query",
        dest="query",
        action="store_true",
        help="per-query values too",
    )
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE[.PARAMS]",
        help="a measure or nickname (official, all_trec, set, qrels_jg, all_prefs, prefs) with "
        "parameters such as P.5,10",
    )
    parser.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        "--all_queries",
        dest="all_queries",
        action="store_true",
        help="average over all judged queries, missing ones scoring 0",
    )
    parser.add_argument(
        "-l", "--level_for_rel", type=int, default=1, metavar="N", help="relevance level"
    )
    parser.add_argument("-n", "--nosummary", action="store_true", help="print no summary")
    parser.add_argument(
        "-D",
        "--Debug_level",
        dest="debug_level",
        metavar="N[.QID]",
        help="trec_eval's debug trace (not printed by rankscope); with .QID, evaluate QID only",
    )
    parser.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="judged_only",
        action="store_true",
        help="remove unjudged documents from each ranking before any measure",
    )
    parser.add_argument(
        "-N",
        "--Number_docs_in_coll",
        dest="collection_size",
        type=int,
        default=0,
        metavar="N",
        help="number of documents in the collection (utility)",
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="max_retrieved_per_topic",
        type=int,
        metavar="N",
        help="evaluate only the first N documents of each ranking",
    )
    parser.add_argument(
        "-R",
        "--Rel_info_format",
        dest="rel_info_format",
        action=_Choice,
        const=_REL_INFO_FORMATS,
        default="qrels",
        metavar="FORMAT",
        help="format of trec_rel_file: qrels; qrels_jg (the second column names a judgement "
        "group); prefs (query_id group subgroup doc_id level: preference judgements); "
        "qrels_prefs (qrels read as preferences, the second column naming the group)",
    )
    parser.add_argument(
        "-T",
        "--Results_format",
        dest="results_format",
        action=_Choice,
        const={"trec_results": "trec_results"},
        default="trec_results",
        metavar="FORMAT",
        help="format of trec_top_file: trec_results",
    )
    # trec_eval's -o takes no value, its long form one; obsolete there, without effect.
    parser.add_argument("-o", dest="old_format", action="store_true", help="without effect")
    parser.add_argument(
        "--Output_old_results_format", dest="old_format", metavar="X", help="without effect"
    )
    parser.add_argument(
        "-Z",
        "--Zscore",
        dest="zscores",
        metavar="FILE",
        help="print z-scores against FILE's per-query means and standard deviations "
        "(lines: query_id measure mean stddev)",
    )
    parser.add_argument(
        "--profile",
        choices=["trec", "trec9"],
        default="trec",
        help="trec (trec_eval 10, default) or trec9 (trec_eval 9: float32 scores)",
    )
    parser.add_argument(
        "--fix-trec-eval-quirks",
        dest="fix_quirks",
        action="store_true",
        help="the corrected values where trec_eval 10 has deterministic quirks: 0 rather than "
        "-nan for interpolated precision of an empty ranking (-J, -M0); under -c, a missing "
        "query scored on an empty ranking rather than trec_eval's placeholder document; "
        "without -c, a judged query missing from the run left out (with a warning) rather "
        "than ending the output with exit status 4",
    )
    parser.set_defaults(handler=run)


# The exit status of trec_eval for a judged query without results (and no -c), and for a
# measure it cannot calculate (the core's, as the native executable's).
EXIT_MISSING_QUERY = TREC_EVAL_STOP_STATUS

# trec_eval 10's deterministic quirks, as conventions (--fix-trec-eval-quirks leaves them).
_QUIRKS = {"zero_division": "nan", "missing_query_ranking": "placeholder"}


def _check_integer_grades(path: str) -> None:
    """Refuse a grade trec_eval would read otherwise than rankscope (the core words it)."""
    file = Path(path)
    if not file.is_file():
        return
    data = file.read_bytes()
    if data[:2] == b"\x1f\x8b":
        return  # compressed: trec_eval cannot read it anyway
    trec_eval_check_grades(data, path)


def _debug_query(text: str | None) -> str | None:
    """The query of ``-D N.QID``, if any."""
    if text is None:
        return None
    level, _, query = text.partition(".")
    if not level.lstrip("-").isdigit():
        raise OptionError(f"-D {text!r}: expected a debug level, N or N.QID")
    return query or None


def _results(
    evaluated: tuple[PerQuery, list[str], list[str], str | None],
    measures: list[Measure],
    run_name: str,
    complete: bool,
) -> Results:
    """Results of the core's evaluation of other judgements than qrels, warning of the run's
    unjudged queries as ``evaluate`` does."""
    values, unjudged, missing, warning = evaluated
    if warning is not None:
        warnings.warn(warning, RankscopeWarning, stacklevel=2)
    return Results(
        tuple(measures),
        values=values,
        run_name=run_name,
        unjudged_queries=tuple(unjudged),
        missing_queries=tuple(missing),
        complete=complete,
    )


def _preference_results(
    path: str, rel_info_format: str, ranking: Any, measures: list[Measure], options: dict[str, Any]
) -> Results:
    """The preference measures of the run against the preference judgements at ``path``."""
    with reading(path):
        evaluated = evaluate_prefs(
            path,
            rel_info_format,
            ranking,
            measures,
            complete=options["complete"],
            max_documents=options["max_documents"],
        )
    return _results(evaluated, measures, ranking.name, options["complete"])


def _judgement_group_results(
    path: str, ranking: Any, measures: list[Measure], options: dict[str, Any]
) -> Results:
    """Each measure for each judgement group of the qrels at ``path``, averaged over the groups
    judging the query (trec_eval's -R qrels_jg)."""
    with reading(path):
        evaluated = evaluate_judgement_groups(
            path,
            ranking,
            measures,
            profile=options["profile"],
            relevance_level=options["relevance_level"],
            complete=options["complete"],
            max_documents=options["max_documents"],
        )
    return _results(evaluated, measures, ranking.name, options["complete"])


def run(args: argparse.Namespace) -> int:
    only_query = _debug_query(args.debug_level)
    lines = trec_eval_measures(args.measures or [], args.collection_size)
    _warn_undetermined(lines)
    measures = [line.measure for line in lines if line.measure is not None]
    kind = _REL_INFO_FORMATS[args.rel_info_format]
    # Under -c, trec_eval sums num_rel over every line of the qrels with a grade above 0,
    # whatever -l says.
    complete_num_rel = measure("NumRel(rel=1)")
    counts_num_rel = args.all_queries and kind != "prefs"
    extra = [complete_num_rel] if counts_num_rel else []
    # runid alone still needs one measure to evaluate the run's queries.
    extra += [] if measures else [measure("NumQ")]
    profile = resolve_profile(args.profile)
    if args.judged_only:
        profile = profile.with_options(unjudged_documents="drop")
    if not args.fix_quirks:
        profile = profile.with_options(**_QUIRKS)
    zscores = read_zscores(args.zscores) if args.zscores is not None else None
    trec_eval_check_judgements([(line.printed, line.judgements) for line in lines], kind)
    ranking = load_ranking(args.run, "trec", lenient=False)
    options: dict[str, Any] = {
        "profile": profile,
        "complete": args.all_queries,
        "relevance_level": args.level_for_rel,
        "max_documents": args.max_retrieved_per_topic,
    }
    negative_first = None
    if kind == "prefs":
        results = _preference_results(
            args.qrels, args.rel_info_format, ranking, [*measures, *extra], options
        )
    elif kind == "qrels_jg":
        results = _judgement_group_results(args.qrels, ranking, [*measures, *extra], options)
    else:
        _check_integer_grades(args.qrels)
        # trec_eval ignores the second field: a document judged under two is judged twice.
        qrels = load_judgements(args.qrels, "trec", lenient=False).without_subtopics()
        try:
            results = evaluate(qrels, ranking, [*measures, *extra], **options)
        except NoCommonQueriesError as error:
            # With -D N.QID trec_eval evaluates QID alone: judged, the run lacks it (the core
            # says where trec_eval stops).
            if only_query is not None:
                stop = _stop(args, only_query, qrels.query_ids(), [], args.all_queries, None)
                if stop is not None:
                    print(f"rankscope: error: {stop[1]}", file=sys.stderr)
                    return stop[2]
            # trec_eval stops at its first judged query, which the run lacks (the core says
            # when).
            message = trec_eval_no_common_queries(
                str(error), qrels, complete=args.all_queries, fix_quirks=args.fix_quirks
            )
            if message is None:
                raise
            print(f"rankscope: error: {message}", file=sys.stderr)
            return EXIT_MISSING_QUERY
        negative_first = trec_eval_negative_first_query(
            qrels, list(args.measures or []), args.collection_size, only_query
        )
    # Where trec_eval stops, if it does (the core decides): before printing anything, or after
    # the queries before its first judged query without results, with no summary.
    query_ids = [query for query in results.query_ids if only_query in (None, query)]
    missing = list(results.missing_queries)
    stop = _stop(args, only_query, missing, query_ids, results.complete, negative_first)
    if stop is not None and stop[0] is None:
        print(f"rankscope: error: {stop[1]}", file=sys.stderr)
        return stop[2]
    relstring = next((line.relstring for line in lines if line.relstring is not None), None)
    strings = None
    if relstring is not None and args.query and kind == "qrels":
        strings = relevance_strings(qrels, ranking, relstring, **options)
    summary_from: dict[str, TrecMeasure] = {}
    if counts_num_rel:
        summary_from = {"num_rel": TrecMeasure("num_rel", complete_num_rel)}
    printed: Results | None = results
    summary_of = None
    absent = 0
    if stop is not None and stop[0] is not None:
        shown = query_ids[: stop[0]]
        printed = results.only_queries(shown) if shown else None
    elif only_query is not None:
        printed = results.only_queries([only_query])
        if results.complete:
            summary_of = _debug_query_summary(results, only_query, complete_num_rel)
            # Under -Z the core counts the other judged queries in the summary itself.
            absent = len(results.query_ids) - 1
    text = (
        ""
        if printed is None
        else format_trec_eval(
            printed,
            lines,
            per_query=args.query,
            summary=not args.nosummary and stop is None,
            summary_from=summary_from,
            relstrings=strings,
            zscores=zscores,
            summary_of=summary_of,
            absent=absent,
        )
    )
    write_text(text, None)
    if stop is not None:
        print(f"rankscope: error: {stop[1]}", file=sys.stderr)
        return stop[2]
    return 0


def _debug_query_summary(results: Results, only_query: str, num_rel: Measure) -> Results:
    """What trec_eval 10 summarises under -c with -D N.QID: it evaluates QID alone and divides
    by the number of judged queries, every other one counting 0 (floored in a geometric mean);
    ``num_rel``, which it sums over the whole qrels under -c, as it is."""
    ids = results.query_ids
    kept = [query == only_query for query in ids]
    columns = [
        values
        if m.name == num_rel.name
        else [value if keep else 0.0 for keep, value in zip(kept, values, strict=True)]
        for m, values in ((m, results.score_list(m)) for m in results.measures)
    ]
    return results._with_values(ids, columns)


def _stop(
    args: argparse.Namespace,
    only_query: str | None,
    missing: list[str],
    query_ids: list[str],
    complete: bool,
    negative_first: tuple[str, str] | None,
) -> tuple[int | None, str, int] | None:
    """Where trec_eval stops on these queries, as the core decides it (`trec_eval_stop`): None,
    or (the queries printed first, None when nothing is; the message; the exit status)."""
    return trec_eval_stop(
        missing,
        query_ids,
        complete=complete,
        only_query=only_query,
        fix_quirks=args.fix_quirks,
        negative_first=negative_first,
        qrels=args.qrels,
        run=args.run,
    )


def _warn_undetermined(lines: list[TrecMeasure]) -> None:
    """Warn, once per line kind, where trec_eval's own value depends on memory it never wrote
    (the registry says where): what this command prints is the corrected computation's."""
    for line in lines:
        if line.measure is None:
            continue
        message = trec_eval_undetermined(line.printed, line.measure.name)
        if message is not None:
            warnings.warn(message, RankscopeWarning, stacklevel=2)
