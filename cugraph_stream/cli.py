"""Command-line interface: ``cugraph-stream demo``, ``replay`` and ``doctor``.

``demo`` streams mixed updates into an R-MAT graph with SSSP, BFS, WCC and
PageRank tracked, then checks the final results against SciPy.  ``replay``
applies an update file to an edge file with the queries you name and writes
the final results as Parquet.  ``doctor`` reports the backends, GPU packages
and devices this install finds (:mod:`cugraph_stream.doctor`).  Run
``cugraph-stream --help`` (or ``python -m cugraph_stream --help``) for the
options.

``demo`` and ``replay --check`` compare results with the independent
references of :mod:`cugraph_stream.verify`.

Examples
--------
>>> from cugraph_stream.cli import main
>>> main(["demo", "--scale", "8", "--batches", "2", "--batch-size", "50",
...       "--out", tempfile.mkdtemp(), "--quiet"])
0
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile  # noqa: F401  (used by the module doctest)
import time

import numpy as np
import pandas as pd

from . import doctor as _doctor
from ._version import __version__
from .pipes import run_command
from .queries import KINDS, lookup, make
from .verify import EdgeSnapshot, check_edges, check_result, to_pandas

__all__ = ["main"]

PROG = "cugraph-stream"
#: how --query names each kind, e.g. "sssp:SOURCE, bfs:SOURCE, widest:SOURCE, wcc or pagerank"
_QUERY_SPECS = [f"{cls.short_name}:SOURCE" if cls.takes_source else cls.short_name for cls in KINDS.values()]
_QUERY_SPECS_TEXT = ", ".join(_QUERY_SPECS[:-1]) + " or " + _QUERY_SPECS[-1]


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------

def _build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Standing graph queries kept exact while the graph changes.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser(
        "demo",
        help="stream mixed updates into an R-MAT graph and check the results",
        description=(
            "Generate an R-MAT graph, split it into an initial graph and batches of "
            "mixed insertions and deletions (Grapin's protocol), stream the batches "
            "with SSSP, BFS, WCC and PageRank tracked, check the final results "
            "against SciPy and write them as Parquet."
        ),
    )
    demo.add_argument("--scale", type=_int_at_least(1), default=16,
                      help="log2 of the number of vertex ids (default 16)")
    demo.add_argument("--edge-factor", type=_int_at_least(1), default=16,
                      help="edges drawn per vertex id (default 16)")
    demo.add_argument("--batches", type=_int_at_least(0), default=10,
                      help="number of batches (default 10)")
    demo.add_argument("--batch-size", type=_int_at_least(1), default=10000,
                      help="rows per batch (default 10000)")
    demo.add_argument("--delete-fraction", type=float, default=0.5,
                      help="fraction of the updates that are deletions (default 0.5)")
    demo.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    demo.add_argument("--seed", type=_int_at_least(0), default=0)
    demo.add_argument("--tol", type=float, default=1e-6,
                      help="PageRank tolerance (L1 error, default 1e-6)")
    demo.add_argument("--out", default="demo-out",
                      help="directory for the result Parquet files (default ./demo-out)")
    demo.add_argument("--quiet", action="store_true",
                      help="no progress bar and no per-batch lines")
    demo.set_defaults(func=_demo)

    replay = sub.add_parser(
        "replay",
        help="apply an update file to an edge file and write the query results",
        description=(
            "Build a graph from an edge file, track the queries given with --query, "
            "apply the update file batch by batch and write each query's final "
            "result to --out as Parquet. Files are CSV or Parquet, by extension."
        ),
    )
    replay.add_argument("--edges", required=True, metavar="FILE",
                        help="initial edges (.csv or .parquet): source, destination[, weight]")
    replay.add_argument("--updates", required=True, metavar="FILE",
                        help="update rows (.csv or .parquet): source, destination, [weight,] op")
    replay.add_argument("--query", action="append", type=_query_spec, required=True,
                        metavar="SPEC",
                        help=f"{_QUERY_SPECS_TEXT} (repeat for several)")
    split = replay.add_mutually_exclusive_group()
    split.add_argument("--batch-size", type=_int_at_least(1), metavar="N",
                       help="cut the updates into batches of N rows")
    split.add_argument("--batch-column", metavar="COL",
                       help="one batch per value of COL, in order of first appearance")
    direction = replay.add_mutually_exclusive_group()
    direction.add_argument("--directed", dest="directed", action="store_true", default=True,
                           help="directed graph (default)")
    direction.add_argument("--undirected", dest="directed", action="store_false",
                           help="undirected graph")
    replay.add_argument("--source", default="src", help="source column (default src)")
    replay.add_argument("--destination", default="dst",
                        help="destination column (default dst)")
    replay.add_argument("--weight", default=None,
                        help="weight column (default: 'weight' where present, else "
                             "unweighted: inserts get weight 1)")
    replay.add_argument("--op", default="op",
                        help="operation column of the updates: insert/delete or 1/-1 "
                             "(default op)")
    replay.add_argument("--weight-dtype", choices=("float32", "float64"), default="float32")
    replay.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    replay.add_argument("--alpha", type=float, default=0.85, help="PageRank damping factor")
    replay.add_argument("--tol", type=float, default=1e-6, help="PageRank tolerance")
    replay.add_argument("--out", default="replay-out",
                        help="directory for the result Parquet files (default ./replay-out)")
    replay.add_argument("--check", action="store_true",
                        help="check the final results against a from-scratch SciPy computation")
    replay.add_argument("--quiet", action="store_true",
                        help="no progress bar and no per-batch lines")
    replay.set_defaults(func=_replay)

    doctor = sub.add_parser(
        "doctor",
        help="report the backends, GPU packages and CUDA devices this install finds",
        description=(
            "Report Python and the platform, the package version, the CUDA sources, which "
            "backends can run (and why one cannot), the optional packages installed and "
            "the CUDA devices CuPy sees (same as python -m cugraph_stream.doctor)."
        ),
    )
    _doctor.add_arguments(doctor)
    doctor.set_defaults(func=_doctor.run)
    return parser


def _int_at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value
    parse.__name__ = "integer"
    return parse


def _query_spec(text):
    """``(short name, source or None)`` of a ``--query`` argument such as ``sssp:0``."""
    name, _, arg = text.partition(":")
    try:
        cls = lookup(name)
    except ValueError:
        raise argparse.ArgumentTypeError(f"unknown query {text!r}; expected {_QUERY_SPECS_TEXT}") from None
    kind = cls.short_name
    if cls.takes_source:
        try:
            return kind, int(arg)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{kind} needs an integer source vertex, as in {kind}:0; got {text!r}"
            ) from None
    if arg:
        raise argparse.ArgumentTypeError(f"{kind} takes no argument, got {text!r}")
    return kind, None


def main(argv=None):
    """Run the ``cugraph-stream`` command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 1 when a check fails, 2 for bad input
        (argparse usage errors exit with status 2 through ``SystemExit``),
        141 when standard output's reader closed the pipe early (nothing is
        printed about it; see :func:`cugraph_stream.pipes.run_command`).

    Examples
    --------
    >>> try:
    ...     main(["--version"])             # argparse exits after printing it
    ... except SystemExit as exit:
    ...     print("status", exit.code)      # doctest: +ELLIPSIS
    cugraph-stream 0...
    status 0
    """
    return run_command(_main, argv)


def _main(argv):
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:         # an OSError, but no bad input: the reader went away
        raise
    except (ValueError, OSError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"{PROG} {args.command}: error: {message}", file=sys.stderr)
        return 2


def _progress(iterable, total, quiet, desc):
    if quiet:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional
        return iterable
    # disable=None: no bar where stderr is not a terminal (logs, pipes).
    return tqdm(iterable, total=total, desc=desc, unit="batch", file=sys.stderr,
                leave=False, disable=None)


def _say(text, quiet=False):
    if quiet:
        return
    try:
        from tqdm import tqdm
    except ImportError:
        print(text)
    else:
        tqdm.write(text, file=sys.stdout)


def _result_name(kind, source):
    return kind if source is None else f"{kind}_{source}"


def _write_results(results, out):
    os.makedirs(out, exist_ok=True)
    paths = []
    for name, frame in results.items():
        path = os.path.join(out, f"{name}.parquet")
        frame.to_parquet(path, index=False)
        paths.append(path)
    return paths


def _demo(args):
    import cugraph_stream as cgs
    from cugraph_stream.datasets import mixed_stream, rmat

    if not 0.0 <= args.delete_fraction <= 1.0:
        raise ValueError(f"--delete-fraction must be in [0, 1], got {args.delete_fraction}")
    if not args.tol > 0:
        raise ValueError(f"--tol must be positive, got {args.tol}")
    quiet = args.quiet
    t0 = time.perf_counter()
    edges = rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed)
    total = args.batches * args.batch_size
    if total > len(edges):
        raise ValueError(
            f"--batches * --batch-size = {total} exceeds the {len(edges)} edges of the "
            f"R-MAT graph; use a larger --scale"
        )
    stream = mixed_stream(edges, args.batches, args.batch_size,
                          delete_fraction=args.delete_fraction, seed=args.seed)
    _say(f"R-MAT scale {args.scale}, edge factor {args.edge_factor}: {len(edges)} edges; "
         f"initial graph {len(stream.initial)} edges, {len(stream)} batches of "
         f"{args.batch_size} rows ({stream.num_inserts} inserts, {stream.num_deletes} deletes)"
         f" [{time.perf_counter() - t0:.2f}s]", quiet)

    t0 = time.perf_counter()
    initial = stream.initial
    g = cgs.StreamGraph.from_edgelist(initial, source="src", destination="dst",
                                      weight="weight", directed=True, backend=args.backend)
    source = _hub(initial["src"].to_numpy())
    queries = {}
    for kind in ("sssp", "bfs", "wcc", "pagerank"):
        q = g.track(make(kind, source, tol=args.tol))
        queries[kind, q.source] = q
    _say(f"graph built and queries tracked (source {source}) "
         f"[{time.perf_counter() - t0:.2f}s]", quiet)

    snapshot = EdgeSnapshot.from_frame(initial, weight="weight", directed=True)
    t0 = time.perf_counter()
    for i, batch in enumerate(_progress(stream, len(stream), quiet, "batches")):
        report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
        snapshot.apply(batch, weight="weight", op="op")
        _say(f"batch {i}: {report!r}", quiet)
    stream_s = time.perf_counter() - t0

    results = {_result_name(k, s): to_pandas(q.result()) for (k, s), q in queries.items()}
    problems = check_edges(to_pandas(g.edges()), snapshot)
    for (kind, src), q in queries.items():
        name = _result_name(kind, src)
        found = check_result(kind, results[name], snapshot, source=src, tol=args.tol,
                             weighted=getattr(q, "uses_weights", False))
        problems += [f"{name}: {p}" for p in found]
    paths = _write_results(results, args.out)
    if problems:
        print(f"{PROG} demo: results differ from a from-scratch recompute:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    if not quiet:
        print(f"streamed {len(stream)} batches in {stream_s:.2f}s; "
              f"{g.number_of_vertices()} vertices, {g.number_of_edges()} edges")
        print("check against SciPy (SSSP, BFS, WCC, PageRank power iteration): OK")
        print("results written: " + ", ".join(paths))
    return 0


def _hub(src):
    """Vertex with the most out-edges (smallest such id), or 0 for no edges."""
    if len(src) == 0:
        return 0
    ids, counts = np.unique(src, return_counts=True)
    return int(ids[np.argmax(counts)])


def _read_table(path, what):
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".zip", ".xz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if not os.path.exists(path):
        raise ValueError(f"{what}: file {path!r} does not exist")
    if name.endswith(".csv"):
        try:
            return pd.read_csv(path)
        except pd.errors.EmptyDataError:
            raise ValueError(f"{what}: file {path!r} is empty") from None
    if name.endswith((".parquet", ".pq")):
        try:
            return pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several types for bad files
            raise ValueError(f"{what}: cannot read {path!r} as Parquet ({exc})") from None
    raise ValueError(f"{what}: file {path!r} must end in .csv or .parquet")


def _split_batches(updates, batch_size, batch_column):
    """Cut the update rows into batches (views of ``updates``, rows in order)."""
    n = len(updates)
    if batch_column is not None:
        if batch_column not in updates.columns:
            raise ValueError(f"--batch-column: column {batch_column!r} not found in the "
                             f"updates (columns: {list(map(str, updates.columns))})")
        codes, _ = pd.factorize(updates[batch_column], use_na_sentinel=False)
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=codes.max() + 1 if n else 0)
        bounds = np.concatenate([[0], np.cumsum(counts)])
        ordered = updates.iloc[order].reset_index(drop=True)
        return [ordered.iloc[bounds[i]:bounds[i + 1]] for i in range(len(counts))]
    size = batch_size if batch_size is not None else max(n, 1)
    return [updates.iloc[i:i + size] for i in range(0, n, size)]


def _replay(args):
    import cugraph_stream as cgs

    if not 0.0 < args.alpha < 1.0:
        raise ValueError(f"--alpha must be in (0, 1), got {args.alpha}")
    if not args.tol > 0:
        raise ValueError(f"--tol must be positive, got {args.tol}")
    edges = _read_table(args.edges, "--edges")
    updates = _read_table(args.updates, "--updates")
    for what, frame in (("--edges", edges), ("--updates", updates)):
        for option, column in (("--source", args.source), ("--destination", args.destination)):
            if column not in frame.columns:
                raise ValueError(f"{what}: no column {column!r} (set it with {option}); "
                                 f"columns: {list(map(str, frame.columns))}")
    if args.op not in updates.columns:
        raise ValueError(f"--updates: no column {args.op!r} (set it with --op); "
                         f"columns: {list(map(str, updates.columns))}")
    if args.weight is None:
        edge_weight = "weight" if "weight" in edges.columns else None
        update_weight = "weight" if "weight" in updates.columns else None
    else:
        for what, frame in (("--edges", edges), ("--updates", updates)):
            if args.weight not in frame.columns:
                raise ValueError(f"{what}: no column {args.weight!r} (given with --weight); "
                                 f"columns: {list(map(str, frame.columns))}")
        edge_weight = update_weight = args.weight

    quiet = args.quiet
    g = cgs.StreamGraph.from_edgelist(edges, source=args.source, destination=args.destination,
                                      weight=edge_weight, directed=args.directed,
                                      backend=args.backend, weight_dtype=args.weight_dtype)
    tracked = {}
    for kind, source in args.query:
        name = _result_name(kind, source)
        if name in tracked:
            continue
        tracked[name] = (kind, source, g.track(make(kind, source, alpha=args.alpha, tol=args.tol)))
    snapshot = None
    if args.check:
        snapshot = EdgeSnapshot.from_frame(edges, source=args.source,
                                           destination=args.destination, weight=edge_weight,
                                           directed=args.directed,
                                           weight_dtype=args.weight_dtype)
    batches = _split_batches(updates, args.batch_size, args.batch_column)
    _say(f"{g.number_of_vertices()} vertices, {g.number_of_edges()} edges; "
         f"{len(updates)} update rows in {len(batches)} batches; "
         f"tracking {', '.join(tracked)}", quiet)
    for i, batch in enumerate(_progress(batches, len(batches), quiet, "batches")):
        try:
            report = g.apply(batch, source=args.source, destination=args.destination,
                             weight=update_weight, op=args.op)
        except ValueError as exc:
            raise ValueError(f"batch {i}: {exc}") from None
        if snapshot is not None:
            snapshot.apply(batch, source=args.source, destination=args.destination,
                           weight=update_weight, op=args.op)
        _say(f"batch {i}: {report!r}", quiet)

    results = {name: to_pandas(q.result()) for name, (_, _, q) in tracked.items()}
    paths = _write_results(results, args.out)
    _say("results written: " + ", ".join(paths), quiet)
    if snapshot is not None:
        problems = check_edges(to_pandas(g.edges()), snapshot)
        for name, (kind, source, q) in tracked.items():
            problems += [f"{name}: {p}" for p in check_result(
                kind, results[name], snapshot, source=source, alpha=args.alpha,
                tol=args.tol, weighted=getattr(q, "uses_weights", False))]
        if problems:
            print(f"{PROG} replay: results differ from a from-scratch recompute:",
                  file=sys.stderr)
            for p in problems:
                print(f"  {p}", file=sys.stderr)
            return 1
        _say("check against SciPy: OK", quiet)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
