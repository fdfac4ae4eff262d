"""``rankscope fuse RUN RUN ... --method rrf``: several runs into one (ranx's fusion methods)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rankscope.cli import COMMANDS, EXIT_OK, EXIT_USAGE
from rankscope.cli._common import add_input_options, load_qrels, load_run
from rankscope.errors import InputError, OptionError

__all__ = ["add_parser", "output_format", "parse_param", "run"]

_COMPRESSED = {".gz", ".bz2", ".xz", ".zst"}
_FORMAT_OF_EXTENSION = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def parse_param(text: str) -> tuple[str, list[int | float]]:
    """``NAME=VALUE`` or ``NAME=V1,V2,...`` (values to search with ``--optimize``)."""
    name, equals, values = text.partition("=")
    if not equals or not name or not values:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE (e.g. k=60); got {text!r}")
    parsed: list[int | float] = []
    for value in values.split(","):
        try:
            parsed.append(int(value))
        except ValueError:
            try:
                parsed.append(float(value))
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"the value of {name} must be a number; got {value!r}"
                ) from None
    return name, parsed


def _weights(text: str) -> list[float]:
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers (e.g. 0.7,0.3); got {text!r}"
        ) from None


def output_format(path: str) -> str:
    """The run format a file name asks for (after any compression suffix); TREC otherwise."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return _FORMAT_OF_EXTENSION.get(suffixes[-1], "trec") if suffixes else "trec"


def add_parser(subparsers: Any) -> None:
    from rankscope.fuse import METHODS, NORMS

    parser = subparsers.add_parser(
        "fuse",
        help=COMMANDS["fuse"][1],
        description=(
            "Fuse runs with ranx's methods and normalisations, with ranx's results and "
            "rankscope's tie rule (score descending, document id descending). Trained methods "
            "(probfuse, segfuse, slidefuse, mapfuse, posfuse, bayesfuse) train on --qrels; "
            "--optimize searches a method's parameters on --qrels."
        ),
    )
    parser.add_argument("runs", metavar="RUN", nargs="+", help="runs to fuse, two or more")
    parser.add_argument(
        "--method", choices=list(METHODS), default="rrf", help="fusion method (default rrf)"
    )
    parser.add_argument(
        "--norm",
        choices=[*NORMS, "none"],
        default="min-max",
        help="score normalisation before fusing (default min-max, as ranx)",
    )
    parser.add_argument(
        "--param",
        dest="params",
        action="append",
        type=parse_param,
        default=[],
        metavar="NAME=VALUE",
        help="a method parameter: k=60 (rrf), gamma (gmnz), sigma (logn_isr), phi (rbc), "
        "w (slidefuse); with --optimize, NAME=V1,V2,... are the values to try (repeatable)",
    )
    parser.add_argument("--weights", type=_weights, metavar="W1,W2,...", help="one weight per run")
    parser.add_argument("--qrels", metavar="QRELS", help="judgements to train or optimize on")
    parser.add_argument(
        "--optimize",
        metavar="MEASURE",
        help="search the method's parameters for the best MEASURE on --qrels (e.g. nDCG@10)",
    )
    parser.add_argument(
        "--step", type=float, metavar="STEP", help="grid step of --optimize (weights: 0.1)"
    )
    parser.add_argument(
        "-o", "--output", default="-", metavar="FILE", help="the fused run (default stdout)"
    )
    parser.add_argument(
        "-f",
        "--format",
        dest="output_format",
        metavar="FORMAT",
        help="output format: trec, jsonl, csv, tsv, parquet (default: from --output's "
        "extension, else trec)",
    )
    parser.add_argument("--name", help="the fused run's name (TREC tag; default the method)")
    add_input_options(parser)
    parser.set_defaults(handler=run)


def _options(args: argparse.Namespace) -> tuple[dict[str, list[Any]], list[float] | None]:
    """The ``--param`` values by name and the ``--weights``, checked against the other options
    before any file is read."""
    from rankscope.fuse import METHODS
    from rankscope.fuse._methods import check_params
    from rankscope.io._formats import normalize_format

    method = METHODS[args.method]
    if len(args.runs) < 2:
        raise OptionError(f"fuse needs at least two runs; got {len(args.runs)}")
    if args.output_format is not None:
        try:
            normalize_format(args.output_format)
        except InputError as error:
            raise OptionError(f"--format: {error}") from None
    if args.optimize and not args.qrels:
        raise OptionError("--optimize needs --qrels (the judgements to optimize on)")
    if method.trained and not args.qrels:
        raise OptionError(f"{method.name} is trained on judgements: give them with --qrels")
    if args.qrels and not (method.trained or args.optimize):
        raise OptionError(f"--qrels is for training or --optimize; {method.name} needs neither")
    if args.step is not None and not args.optimize:
        raise OptionError("--step sets the grid of --optimize")
    if args.weights is not None and args.optimize:
        raise OptionError("--weights with --optimize: the search sets the weights")
    params: dict[str, list[Any]] = {}
    for name, values in args.params:
        if name in params:
            raise OptionError(f"--param {name} given twice")
        if len(values) > 1 and not args.optimize:
            raise OptionError(f"--param {name}: several values are tried only with --optimize")
        params[name] = values
    searchable = set(method.params) | ({"n_segments"} if method.name == "probfuse" else set())
    unknown = sorted(set(params) - searchable)
    if unknown:
        accepted = ", ".join(sorted(searchable)) or "none"
        raise OptionError(f"{method.name} takes no parameter {', '.join(unknown)} ({accepted})")
    if not args.qrels:
        fixed = {name: values[0] for name, values in params.items()}
        if args.weights is not None:
            fixed["weights"] = args.weights
        check_params(method, fixed, len(args.runs))
    return params, args.weights


def run(args: argparse.Namespace) -> int:
    from rankscope.fuse import fuse, optimize_fusion
    from rankscope.io import write_run

    try:
        given, weights = _options(args)
        norm = None if args.norm == "none" else args.norm
        fmt = args.output_format or output_format(args.output)
    except OptionError as error:
        print(f"rankscope: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    runs = [load_run(path, args.run_format, args.lenient) for path in args.runs]
    params: dict[str, Any] = {name: values[0] for name, values in given.items()}
    if weights is not None:
        params["weights"] = weights
    if args.qrels:
        qrels = load_qrels(args.qrels, args.qrels_format, args.lenient)
        search = optimize_fusion(
            qrels,
            runs,
            args.method,
            args.optimize or "nDCG@100",
            norm,
            step=args.step,
            candidates=given or None,
            progress=True,  # a bar of the trials on a terminal, nothing when piped
        )
        shown = {k: v for k, v in search.params.items() if k not in ("probs", "log_odds")}
        print(
            f"rankscope: {search.method}: {search.metric} = {search.score:.4f} on the "
            f"judged queries with {shown or 'the trained parameters'} "
            f"(best of {len(search.trials)} tried)",
            file=sys.stderr,
        )
        params = search.params
    fused = fuse(runs, args.method, norm, params, name=args.name)
    write_run(fused, args.output, fmt)
    return EXIT_OK
