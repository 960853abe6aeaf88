"""Does ``mode="auto"`` pick the faster path?  Incremental, recompute and auto side by side.

For each query kind and batch size, three ``StreamGraph`` objects (same
backend, same initial R-MAT graph) track the same query, one per mode:
``"incremental"``, ``"recompute"`` and ``"auto"`` (the default).  Every batch
of one :func:`~cugraph_stream.datasets.mixed_stream` is applied to the three
in turn (in each of the six orders in turn), each apply timed with the
device synchronised, and the three results are compared (values equal; for
PageRank within the bound ``2 * tol`` in L1).  After ``--warmup`` batches the
mean apply time of each mode is taken and the script prints, per point::

    auto / min(incremental, recompute)

(and the same of the medians, which a busy machine's spikes move less).
PageRank's recompute path in ``mode="auto"`` is not ``mode="recompute"``'s
computation from scratch but a warm restart from the last ranks, so for
PageRank a fourth graph times it (``auto-recompute``: auto with the cost
model's rates fixed so that it always recomputes), and the best is the
least of the four.
the issue-18 criterion: the chosen path is never more than 1.1x the faster
one.  It also prints how often auto took each path, and for a point above
``--limit`` why (``auto_reasons`` in the JSON, every point: how many
measured batches took each path for each kind of reason: the estimates, a
probe, an incremental update that gave up).  Exit status 1 on a
result mismatch; with ``--strict``, 3 when some point's ratio is above
``--limit`` (1.1).

Examples
--------
CPU (this project's 2-core machine)::

    python -m benchmarks.mode_choice --scale 16 --sizes 1,100,10000,100000

GPU::

    python -m benchmarks.mode_choice --backend gpu --scale 20 --sizes 1,100,10000,1000000
"""
from __future__ import annotations

import argparse
import collections
import itertools
import json
import sys
from time import perf_counter

import numpy as np

import cugraph_stream as cgs
from cugraph_stream.datasets import mixed_stream, rmat

from cugraph_stream.engine.cost_model import CostModel

from .common import choice_list, json_default, make_query, positive, sync_device, versions, write
from .common import machine_info as _machine

KINDS = ("sssp", "bfs", "wcc", "pagerank")
MODES = ("incremental", "recompute", "auto")
#: auto always taking its recompute path: PageRank's is a warm restart, not mode="recompute"'s
AUTO_RECOMPUTE = "auto-recompute"
ALWAYS_RECOMPUTE = {"incremental": (1e9, 0.0), "recompute": (0.0, 0.0)}


def modes_of(kind):
    """The modes timed for ``kind``: :data:`MODES`, and for PageRank :data:`AUTO_RECOMPUTE`."""
    return MODES + ((AUTO_RECOMPUTE,) if kind == "pagerank" else ())


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.mode_choice",
                                description="Time incremental, recompute and auto modes on the same stream.")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--scale", type=positive(int), default=14, help="R-MAT scale (default 14)")
    p.add_argument("--edge-factor", type=positive(int), default=16)
    p.add_argument("--sizes", type=lambda t: [int(x) for x in t.split(",")], default=[1, 100, 10_000],
                   help="batch sizes, comma-separated (default 1,100,10000)")
    p.add_argument("--batches", type=positive(int), default=12, help="measured batches per point (default 12)")
    p.add_argument("--warmup", type=int, default=3, help="batches per point not measured (default 3)")
    p.add_argument("--queries", type=choice_list(KINDS, "query kind(s)"), default=list(KINDS))
    p.add_argument("--delete-fraction", type=float, default=0.5)
    p.add_argument("--tol", type=float, default=1e-6, help="PageRank's tol")
    p.add_argument("--limit", type=float, default=1.1, help="largest acceptable auto/min ratio (default 1.1)")
    p.add_argument("--strict", action="store_true", help="exit 3 when a point is above --limit")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="also write the records to this JSON file")
    return p.parse_args(argv)


def _values(query):
    """The result's value column as a host NumPy array, in vertex order."""
    frame = query.result()
    column = frame[query.value_column]
    return column.to_numpy() if hasattr(column, "to_numpy") else np.asarray(column.get())


def _agree(kind, results, tol):
    first = results[0]
    for other in results[1:]:
        if kind == "pagerank":
            if not np.abs(first - other).sum() <= 2 * tol:
                return False
        elif not np.array_equal(first, other):
            return False
    return True


def reason_kind(reason):
    """The kind of a :class:`~cugraph_stream.report.QueryReport`'s ``path_reason``.

    >>> reason_kind("probe: recompute estimated 8.73 ms against 6.97 ms, its rates never timed")
    'probe'
    >>> reason_kind("estimated incremental 1.04 ms, recompute 8.8 ms (10046 changed)")
    'estimates'
    """
    for prefix, kind in (("probe", "probe"), ("gave up", "gave up"), ("estimated", "estimates")):
        if reason.startswith(prefix):
            return kind
    return reason


def run_point(args, kind, size, edges):
    """Time the three modes on one stream of ``size``-row batches; return the record."""
    warmup = args.warmup
    total = min(warmup + args.batches, len(edges) // size)      # distinct edges the stream can draw
    if total - warmup < 2:
        warmup = max(0, total - 2)
    stream = mixed_stream(edges, total, size, delete_fraction=args.delete_fraction, seed=args.seed)
    source = int(np.argmax(np.bincount(stream.initial["src"].to_numpy())))
    modes = modes_of(kind)
    graphs, queries = {}, {}
    for mode in modes:
        g = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst", weight="weight",
                                          backend=args.backend)
        queries[mode] = g.track(make_query(kind, source, mode="auto" if mode == AUTO_RECOMPUTE else mode,
                                           tol=args.tol))
        if mode == AUTO_RECOMPUTE:
            queries[mode].cost_model = CostModel(args.backend, rates=ALWAYS_RECOMPUTE)
        graphs[mode] = g
    times = {mode: [] for mode in modes}
    paths = {"incremental": 0, "recompute": 0}
    reasons = collections.Counter()
    mismatches = 0
    orders = list(itertools.permutations(modes))
    for i, batch in enumerate(stream.batches):
        # the orders cycle through all permutations: a recompute sweeps the caches, and each
        # mode must follow it as often as the others (a rotation had auto follow it 2 times in 3)
        order = orders[i % len(orders)]
        for mode in order:
            sync_device()
            start = perf_counter()
            report = graphs[mode].apply(batch, source="src", destination="dst", weight="weight", op="op")
            sync_device()
            if i >= warmup:
                times[mode].append(perf_counter() - start)
                if mode == "auto":
                    path = report.queries[0].path
                    paths[path] += 1
                    reasons[f"{path}: {reason_kind(report.queries[0].path_reason)}"] += 1
        if not _agree(kind, [_values(queries[mode]) for mode in modes], args.tol):
            mismatches += 1
    mean = {mode: float(np.mean(times[mode])) for mode in modes}
    median = {mode: float(np.median(times[mode])) for mode in modes}
    paths_timed = [mode for mode in modes if mode != "auto"]
    return {"kind": kind, "batch_size": size, "measured_batches": total - warmup,
            "ms": {m: 1e3 * t for m, t in mean.items()}, "median_ms": {m: 1e3 * t for m, t in median.items()},
            "auto_over_best": mean["auto"] / min(mean[m] for m in paths_timed),
            "median_auto_over_best": median["auto"] / min(median[m] for m in paths_timed),
            "auto_paths": paths, "auto_reasons": dict(sorted(reasons.items())), "mismatched_batches": mismatches}


def main(argv=None):
    args = parse_args(argv)
    edges = rmat(args.scale, args.edge_factor, seed=args.seed, weight_dtype="float64")
    write(f"# mode_choice: backend {args.backend}, R-MAT scale {args.scale} ({len(edges):,} edges), "
          f"{args.batches} measured batches per point after {args.warmup}; {_machine()}")
    write(f"{'query':9} {'rows':>8} {'incremental':>12} {'recompute':>10} {'auto':>9} {'auto/best':>10} "
          f"{'(medians)':>9}  auto took (inc/rec)  auto's recompute  [mean ms per batch]")
    records = []
    for kind in args.queries:
        for size in args.sizes:
            record = run_point(args, kind, size, edges)
            records.append(record)
            ms, over = record["ms"], record["auto_over_best"] > args.limit
            flag = "  OVER (" + ", ".join(f"{k} {n}" for k, n in record["auto_reasons"].items()) + ")" if over else ""
            flag += "  MISMATCH" if record["mismatched_batches"] else ""
            write(f"{kind:9} {size:>8,} {ms['incremental']:>10.3f}ms {ms['recompute']:>8.3f}ms "
                  f"{ms['auto']:>7.3f}ms {record['auto_over_best']:>9.2f}x "
                  f"{record['median_auto_over_best']:>8.2f}x  "
                  f"{record['auto_paths']['incremental']:>8}/{record['auto_paths']['recompute']:<10}"
                  + (f"{ms[AUTO_RECOMPUTE]:>9.3f}ms" if AUTO_RECOMPUTE in ms else f"{'-':>11}") + flag)
    worst = max(r["auto_over_best"] for r in records)
    over = [r for r in records if r["auto_over_best"] > args.limit]
    write(f"worst auto/best {worst:.2f}x; {len(over)} of {len(records)} points above {args.limit}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": vars(args), "versions": versions(), "records": records}, f, indent=1,
                      default=json_default)
    if any(r["mismatched_batches"] for r in records):
        return 1
    return 3 if args.strict and over else 0


if __name__ == "__main__":
    sys.exit(main())
