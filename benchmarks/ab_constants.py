"""Small effects, measured where they show: batches alternating between settings
of module constants, in one process, on one graph.

    python -m benchmarks.ab_constants --scale 22 --rows 1 --batches 2000 --queries sssp,wcc,bfs \\
        --arm "guess=cugraph_stream.graph:SPECULATIVE_ROWS=16" \\
        --arm "lookup first=cugraph_stream.graph:SPECULATIVE_ROWS=0"
    python -m benchmarks.ab_constants --scale 22 --rows 10000 --batches 40 \\
        --arm "four launches=cugraph_stream.backends.gpu:_ONE_BLOCK_REMOVE=4096" \\
        --arm "one block=cugraph_stream.backends.gpu:_ONE_BLOCK_REMOVE=65536"

Why.  The lent GPU machines of one session ran the same code up to 2x apart,
and two runs on one machine 10-30% apart, so a change worth 1-2% of a batch
(a wait fewer, a launch fewer) cannot be seen by comparing runs.  Here the
settings share the process, the graph, the stream and the machine's state:
batch ``i`` runs under arm ``(i // --block) % arms``, every arm sees the same
mix of batches, and each arm's figures are compared with the first arm's.

Arms.  ``--arm "NAME=module:ATTRIBUTE=VALUE[;module:ATTRIBUTE=VALUE...]"``,
two or more; ``VALUE`` is a Python literal.  The attribute is set on the
module before each batch of the arm (and put back at the end): name the
module that reads the constant when a batch runs (a constant another module
imported by value keeps its own copy).

Workload: ``benchmarks.gpu_vs_pylibcugraph``'s (an R-MAT graph, its stream,
its source; ``--weights``, ``--source``).  ``--rows 1``: the latency mode's
single rows as pandas frames; more rows: batches of that many rows of the
stream as the batch mode gives them (cuDF frames where cuDF is installed,
else column dicts of device arrays).  ``--warmup`` batches run first
(alternating too) and are not timed.  ``--between-ms`` runs that long of
other host work (``benchmarks.common.OtherWork``) before each apply: the
batches as they run amid a pipeline's other code, with their code and data
out of the CPU's caches.  Each query kind runs on a fresh graph,
in ``mode="incremental"`` (``auto``'s cost model would learn from both arms
and could change paths between them).

Check.  After the last batch the graph tracks the same query again in
``mode="recompute"`` (computed from scratch on the current graph) and the
values of both results must be equal (SSSP, BFS, WCC), or, for PageRank
(unweighted, ``tol`` 1e-6, as ``benchmarks.gpu_vs_pylibcugraph`` tracks it),
within L1 distance ``2 * tol`` (each is within ``tol`` of the exact ranks,
its sums made in no fixed order); a mismatch makes the script exit with
status 1.

Output: per query and arm the batches timed, the median, p90, p99 and mean
apply time, the mean syncs and launches, and the mean against the first
arm's; ``--out`` writes them as JSON.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys

import numpy as np

from .common import OtherWork, json_default, machine_info, make_query, positive, timed, zero_or_more
from .gpu_vs_pylibcugraph import Bench, Stream, non_negative, pick_source, query_list, to_host

#: the query kinds whose incremental and recomputed values must be equal
CHECKED_KINDS = ("sssp", "bfs", "wcc")
#: the query kinds whose values must agree within twice their L1 error bound, and that bound
BOUNDED_KINDS = {"pagerank": 1e-6}


class Arm:
    """One setting: ``name`` and the ``(module, attribute, value)`` it sets.

    >>> arm = Arm.parse("fast=json:__name__='x';json:__doc__=None")
    >>> arm.name, [(m.__name__, a, v) for m, a, v in arm.settings]
    ('fast', [('json', '__name__', 'x'), ('json', '__doc__', None)])
    """

    def __init__(self, name, settings):
        self.name, self.settings = name, settings

    @classmethod
    def parse(cls, text):
        name, sep, rest = text.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"an arm is NAME=module:ATTRIBUTE=VALUE[;...], got {text!r}")
        settings = []
        for part in rest.split(";"):
            target, sep, literal = part.partition("=")
            module_name, colon, attribute = target.strip().partition(":")
            if not sep or not colon or not attribute:
                raise ValueError(f"a setting is module:ATTRIBUTE=VALUE, got {part!r} in arm {name!r}")
            module = importlib.import_module(module_name)
            if not hasattr(module, attribute):
                raise ValueError(f"module {module_name} has no attribute {attribute!r} (arm {name!r})")
            try:
                value = ast.literal_eval(literal.strip())
            except (ValueError, SyntaxError):
                raise ValueError(f"{literal.strip()!r} is not a Python literal (arm {name!r})") from None
            settings.append((module, attribute, value))
        return cls(name.strip(), settings)

    def apply(self):
        for module, attribute, value in self.settings:
            setattr(module, attribute, value)


def saved_settings(arms):
    """The current values of every attribute an arm sets, as an :class:`Arm` that puts them back."""
    seen = {}
    for arm in arms:
        for module, attribute, _ in arm.settings:
            seen.setdefault((module, attribute), getattr(module, attribute))
    return Arm("saved", [(module, attribute, value) for (module, attribute), value in seen.items()])


def arm_text(text):
    """argparse type of ``--arm``."""
    try:
        return Arm.parse(text)
    except (ValueError, ImportError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_workload_arguments(ap, batches_help, warmup_help):
    """The arguments :func:`workload` reads, ``--queries``, ``--backend`` and ``--out``
    (``benchmarks.ab_revisions`` takes them too)."""
    ap.add_argument("--scale", type=positive(int), default=22)
    ap.add_argument("--edge-factor", type=positive(int), default=16)
    ap.add_argument("--rows", type=positive(int), default=1, help="rows per batch (1: pandas single rows)")
    ap.add_argument("--batches", type=positive(int), default=1000, help=batches_help)
    ap.add_argument("--warmup", type=non_negative, default=None, help=warmup_help)
    ap.add_argument("--queries", type=query_list, default=["sssp"], help="of sssp,bfs,wcc,pagerank (default sssp)")
    ap.add_argument("--weights", choices=("real", "integer"), default="real")
    ap.add_argument("--source", choices=("hub", "random"), default="hub")
    ap.add_argument("--seed", type=non_negative, default=0)
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--between-ms", type=zero_or_more(float), default=0.0,
                    help="milliseconds of other host work before each apply (benchmarks.common.OtherWork: "
                         "batches as they run amid a pipeline's other code); default 0, back to back")
    ap.add_argument("--out", default=None, help="JSON file for the figures")


def check_queries(ap, args):
    """Refuse query kinds whose values :func:`agree` cannot compare."""
    known = CHECKED_KINDS + tuple(BOUNDED_KINDS)
    unchecked = [kind for kind in args.queries if kind not in known]
    if unchecked:
        ap.error(f"queries of {', '.join(known)} only (got {', '.join(unchecked)})")


def agree(kind, first, second, tol=None):
    """Whether two results of ``kind`` (:func:`values_of`) are the same answer:
    equal, or for :data:`BOUNDED_KINDS` within twice their L1 error bound
    (``tol`` where given: the bound the queries were tracked with).

    >>> import numpy as np
    >>> agree("sssp", np.array([0.0, 1.5]), np.array([0.0, 1.5]))
    True
    >>> agree("pagerank", np.array([0.5, 0.5]), np.array([0.5 + 4e-7, 0.5 - 4e-7]))
    True
    >>> agree("pagerank", np.array([0.5, 0.5]), np.array([0.5 + 2e-6, 0.5 - 2e-6]))
    False
    """
    if kind in BOUNDED_KINDS:
        bound = BOUNDED_KINDS[kind] if tol is None else tol
        return first.shape == second.shape and float(np.abs(first - second).sum()) <= 2 * bound
    return bool(np.array_equal(first, second))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ab_constants", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arm", type=arm_text, action="append", required=True, dest="arms",
                    help="NAME=module:ATTRIBUTE=VALUE[;module:ATTRIBUTE=VALUE...] (two or more)")
    ap.add_argument("--block", type=positive(int), default=1, help="consecutive batches an arm runs in turn")
    add_workload_arguments(ap, "timed batches in all (over every arm)",
                           "untimed batches first (default: 20 single rows, else 4 batches)")
    args = ap.parse_args(argv)
    if len(args.arms) < 2:
        ap.error("give two arms or more")
    if args.batches < len(args.arms) * args.block:
        ap.error(f"--batches {args.batches} leaves an arm without a timed batch "
                 f"({len(args.arms)} arms of --block {args.block})")
    check_queries(ap, args)
    if args.warmup is None:
        args.warmup = 20 if args.rows == 1 else 4
    return args


def workload(args, xp):
    """``(bench, frames)``: the stream's :class:`~benchmarks.gpu_vs_pylibcugraph.Bench`
    and the batches to apply, warm-up ones first."""
    import cugraph_stream as cgs
    from cugraph_stream.datasets import rmat

    count = args.warmup + args.batches
    edges = rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed, backend=args.backend)
    # one draw of every row (Grapin's: distinct R-MAT edges, half deleted from G0, half
    # inserted), cut into the batches: no snapshot masks kept per batch
    stream = Stream.grapin(xp, edges, 1, count * args.rows, args.seed + 1, weights=args.weights,
                           id_bound=2 ** args.scale)
    source, _ = pick_source(xp, stream.initial["src"], args.source, args.seed + 3)
    bench_args = argparse.Namespace(backend=args.backend, engine_mode="incremental", tol=1e-6, stop="error")
    bench = Bench(bench_args, xp, cgs, None, stream, source)
    (rows,) = stream.batches
    columns = ("src", "dst", "weight", "op")
    if args.rows == 1:
        import pandas as pd

        rows = {c: to_host(rows[c]) for c in columns}
        frames = [pd.DataFrame({c: rows[c][i:i + 1] for c in columns}) for i in range(count)]
    else:
        frames = [bench.frame({c: rows[c][i * args.rows:(i + 1) * args.rows] for c in columns})
                  for i in range(count)]
    return bench, frames


def values_of(query):
    """``query``'s values, sorted by vertex, as a NumPy array."""
    from cugraph_stream.verify import to_pandas

    frame = to_pandas(query.result()).sort_values("vertex")
    return frame[query.value_column].to_numpy()


def timing_figures(rows):
    """The batches, p50, p90, p99 and mean milliseconds, mean syncs and launches of
    ``rows``: ``(seconds, syncs, launches)`` per timed batch."""
    times = np.array([r[0] for r in rows]) * 1e3
    return {"batches": int(times.size), "p50_ms": float(np.median(times)),
            "p90_ms": float(np.percentile(times, 90)), "p99_ms": float(np.percentile(times, 99)),
            "mean_ms": float(times.mean()), "syncs": float(np.mean([r[1] for r in rows])),
            "launches": float(np.mean([r[2] for r in rows]))}


def run_query(bench, frames, kind, args):
    """Apply ``frames`` to a fresh graph tracking ``kind``, alternating the arms;
    ``(figures per arm, checked)``."""
    g, query, _ = bench.new_graph(kind)
    timings = [[] for _ in args.arms]
    other_work = OtherWork(args.between_ms)
    for i, frame in enumerate(frames):
        arm = (i // args.block) % len(args.arms)
        args.arms[arm].apply()
        other_work.run()
        _, seconds, counts = bench.apply_timed(g, frame)
        if i >= args.warmup:
            timings[arm].append((seconds, counts.get("syncs") or 0, counts.get("launches") or 0))
    saved = saved_settings(args.arms)
    args.arms[0].apply()                # (the recomputation runs under the first arm)
    scratch = g.track(make_query(kind, bench.source, mode="recompute"))
    saved.apply()
    checked = agree(kind, values_of(query), values_of(scratch))
    figures = []
    for arm, rows in zip(args.arms, timings):
        figures.append({"arm": arm.name, **timing_figures(rows)})
    first = figures[0]["mean_ms"]
    for figure in figures:
        figure["mean_vs_first"] = figure["mean_ms"] / first
    del g, query, scratch
    bench.free()
    return figures, checked


def print_table(kind, figures, checked):
    print(f"\n{kind} ({'results equal to a recomputation' if checked else 'RESULTS DIFFER from a recomputation'})")
    print("| arm | batches | p50 (ms) | p90 (ms) | p99 (ms) | mean (ms) | mean / first arm | syncs | launches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in figures:
        print(f"| {f['arm']} | {f['batches']} | {f['p50_ms']:.3f} | {f['p90_ms']:.3f} | {f['p99_ms']:.3f} | "
              f"{f['mean_ms']:.3f} | {f['mean_vs_first']:.3f} | {f['syncs']:.2f} | {f['launches']:.1f} |", flush=True)


def main(argv=None):
    args = parse_args(argv)
    if args.backend == "gpu":
        from cugraph_stream.backends import available_backends

        reason = available_backends().get("gpu")
        if reason:
            print(f"cannot run: the GPU backend is unavailable here ({reason}); --backend cpu runs on the CPU",
                  flush=True)
            return 2
        import cupy as xp

        import cugraph_stream as cgs

        from .pylibcugraph_baseline import warm_up_gpu_engine

        _, seconds = timed(lambda: warm_up_gpu_engine(cgs))
        print(f"warm-up (kernel compilation) {seconds:.1f} s", flush=True)
    else:
        xp = np
    saved = saved_settings(args.arms)
    try:
        try:
            bench, frames = workload(args, xp)
        except ValueError as error:         # (more rows than the R-MAT graph has edges)
            print(f"cannot run: {error}", flush=True)
            return 2
        print(f"R-MAT scale {args.scale}, {args.backend}: {len(frames)} batches of {args.rows} rows "
              f"({args.warmup} untimed), arms {', '.join(arm.name for arm in args.arms)} in turn, "
              f"{args.block} batch(es) each", flush=True)
        results = {}
        for kind in args.queries:
            figures, checked = run_query(bench, frames, kind, args)
            print_table(kind, figures, checked)
            results[kind] = {"arms": figures, "checked": checked}
    finally:
        saved.apply()
    if args.out:
        config = {k: v for k, v in vars(args).items() if k != "arms"}
        config["arms"] = {arm.name: [f"{m.__name__}:{a}={v!r}" for m, a, v in arm.settings] for arm in args.arms}
        with open(args.out, "w") as f:
            json.dump({"config": config, "machine": machine_info(), "queries": results}, f, indent=1,
                      default=json_default)
        print(f"wrote {args.out}")
    return 0 if all(r["checked"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
