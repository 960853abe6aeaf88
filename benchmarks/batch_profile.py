"""Where a batch's host time and kernel launches go: per engine step and per operator.

    python -m benchmarks.batch_profile --backend gpu --scale 22 --rows 1 --batches 200
    python -m benchmarks.batch_profile --backend cpu --scale 16 --rows 10000 --batches 5
    python -m benchmarks.batch_profile --backend gpu --scale 22 --rows 10000 --batches 20 --placement cached

A diagnostic for issue 17 (the per-batch floor), not a comparison: it
builds an R-MAT graph, tracks SSSP from its hub, applies a few untimed
batches, then applies ``--batches`` batches of ``--rows`` rows (pandas frames
for a single row, as a latency user sends them; column dicts otherwise)
with the engine's main steps and every operator wrapped.  For each it
prints the calls per batch, the *self* host time per batch (the time inside
it, less the wrapped steps it called) and, on the GPU where libcupti loads
(``benchmarks/device_calls.py``), the self kernel launches and syncs.
What no wrapped step accounts for is in ``apply``.  The wrappers cost about
a microsecond a call, so the total is a little above an unwrapped run's.

On the GPU an operator's host time is its launches, not its kernels (those
run later, and a wait pays for all the kernels queued before it).
``--sync-operators`` synchronises the device after every operator call, so
that each operator's self time includes its own kernels: the batch is then
slower (no launch overlaps a kernel), but the table says which operators
the device spends its time in.  ``--queries none`` tracks no query (the
store's update alone, as an ingestion):

    python -m benchmarks.batch_profile --backend gpu --scale 22 --rows 1000000 --batches 2 --queries none --sync-operators
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import time

import numpy as np
import pandas as pd

#: (module path, attribute path) of the engine steps to time, besides every operator
STEPS = [
    ("cugraph_stream.graph", "StreamGraph.apply"), ("cugraph_stream.graph", "StreamGraph._vertices_of"),
    ("cugraph_stream.graph", "StreamGraph._apply_rows"), ("cugraph_stream.graph", "StreamGraph._update_queries"),
    ("cugraph_stream.graph", "StreamGraph._publish"), ("cugraph_stream.graph", "reduce_batch"),
    ("cugraph_stream.graph", "reduce_rows_of_ends"),
    ("cugraph_stream.graph", "read_rows"), ("cugraph_stream.engine.store", "GraphStore.apply"),
    ("cugraph_stream.engine.store", "GraphStore._begin_delete"),
    ("cugraph_stream.engine.store", "GraphStore._finish_delete"),
    ("cugraph_stream.engine.store", "GraphStore._begin_insert"),
    ("cugraph_stream.engine.store", "GraphStore._finish_insert"),
    ("cugraph_stream.engine.store", "GraphStore._reweight"), ("cugraph_stream.engine.store", "GraphStore._follow_out"),
    ("cugraph_stream.engine.store", "GraphStore._follow_in"), ("cugraph_stream.engine.journal", "Journal.save"),
    ("cugraph_stream.engine.journal", "Journal.write"), ("cugraph_stream.engine.adjacency", "Adjacency.append"),
    ("cugraph_stream.engine.adjacency", "Adjacency.remove"), ("cugraph_stream.engine.adjacency", "Adjacency._move_lists"),
    ("cugraph_stream.engine.adjacency", "Adjacency._ensure_slots"),
    ("cugraph_stream.engine.store", "GraphStore._compact_if_needed"),
    ("cugraph_stream.engine.arc_index", "ArcIndex._reserve"), ("cugraph_stream.engine.arc_index", "ArcIndex.fit"),
    ("cugraph_stream.engine.arc_index", "ArcIndex.insert"),
    ("cugraph_stream.engine.arc_index", "ArcIndex.erase_entries"),
    ("cugraph_stream.engine.monotonic", "MonotonicEngine.correct"),
    ("cugraph_stream.engine.monotonic", "MonotonicEngine.converge"),
    ("cugraph_stream.engine.monotonic", "MonotonicEngine._record_changes"),
    # placements host and cached: read counts, hotness, the cache refresh
    ("cugraph_stream.engine.store", "GraphStore.record_reads"),
    ("cugraph_stream.engine.store", "GraphStore.refresh_cache"),
    ("cugraph_stream.engine.hotness", "Hotness.record"), ("cugraph_stream.engine.hotness", "Hotness.advance"),
    ("cugraph_stream.engine.store", "evict_changed"), ("cugraph_stream.engine.cache", "HotCache.evict"),
    ("cugraph_stream.engine.cache", "HotCache.load"), ("cugraph_stream.engine.cache", "HotCache.report_state"),
    ("cugraph_stream.engine.reads", "ReadCounters.add"), ("cugraph_stream.engine.cache", "HotCache._drop"),
    ("cugraph_stream.engine.cache", "HotCache._compact"), ("cugraph_stream.engine.cache", "HotCache._place"),
    # PageRank (--queries sssp,pagerank)
    ("cugraph_stream.engine.pagerank", "PageRankEngine.correct"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine.converge"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine._spread"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine._spread_plan"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine._refresh_residual"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine._push"),
    ("cugraph_stream.engine.pagerank", "PageRankEngine.error_bound"),
]


class StepProfiler:
    """Wraps callables so that each records calls, self seconds and (with a
    counter) self launches and syncs; nested wrapped calls are subtracted."""

    def __init__(self, counter=None):
        self.counter = counter
        self.stats = collections.defaultdict(lambda: [0, 0.0, 0, 0])
        self._stack = []

    def _now(self):
        c = self.counter
        return time.perf_counter(), (c.launches if c else 0), (c.syncs if c else 0)

    def wrap(self, name, function):
        def timed(*args, **kwargs):
            self._stack.append([self._now(), [0.0, 0, 0]])
            try:
                return function(*args, **kwargs)
            finally:
                start, child = self._stack.pop()
                end = self._now()
                total = [e - s for e, s in zip(end, start)]
                if self._stack:
                    parent = self._stack[-1][1]
                    for i in range(3):
                        parent[i] += total[i]
                record = self.stats[name]
                record[0] += 1
                for i in range(3):
                    record[i + 1] += total[i] - child[i]
        return timed


def synchronised(synchronize, function):
    """``function`` followed by ``synchronize()``, which the batch's counts
    (``BatchReport.syncs``) leave out: the profiler's wait, not the engine's."""
    from cugraph_stream.backends.base import DEVICE_CALLS

    def call(*args, **kwargs):
        result = function(*args, **kwargs)
        depth, DEVICE_CALLS.depth = DEVICE_CALLS.depth, 1     # (as if an operator called it)
        try:
            synchronize()
        finally:
            DEVICE_CALLS.depth = depth
        return result
    return call


@contextlib.contextmanager
def patched(profiler, ops, sync_operators=False):
    """Wrap :data:`STEPS` and every operator of ``ops`` for the duration of the
    block; ``sync_operators``: each operator synchronises the device before it
    returns (inside its timer)."""
    import importlib

    from cugraph_stream.backends.faults import operator_names

    undo = []
    for module_name, path in STEPS:
        owner = importlib.import_module(module_name)
        *parents, attribute = path.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
        setattr(owner, attribute, profiler.wrap(path, original))
        undo.append((owner, attribute, original))
    synchronize = ops.synchronize           # (unwrapped: its time goes to the operator it follows)
    for name in operator_names():
        operator = getattr(ops, name)
        if sync_operators and name != "synchronize":
            operator = synchronised(synchronize, operator)
        setattr(ops, name, profiler.wrap("op:" + name, operator))
    try:
        yield
    finally:
        for name in operator_names():
            ops.__dict__.pop(name, None)
        for owner, attribute, original in reversed(undo):
            setattr(owner, attribute, original)


def make_batches(xp, edges, rows, count, seed):
    """``count`` batches of ``rows`` rows: half deletions of G0 edges, half
    insertions of edges left out of G0 (a single row: an insertion); returns
    ``(g0, batches)`` as column dicts."""
    src, dst, w = (xp.asarray(edges[c]) for c in ("src", "dst", "weight"))
    rng = np.random.default_rng(seed)
    total = rows * count
    if 2 * total > int(src.size):
        raise SystemExit(f"{count} batches of {rows} rows draw {2 * total:,} distinct edges (half deleted, half "
                         f"inserted), more than the graph's {int(src.size):,}: raise --scale or lower --rows")
    chosen = xp.asarray(rng.permutation(int(src.size))[:2 * total])
    present = xp.ones(int(src.size), dtype=bool)
    present[chosen[total:]] = False
    g0 = {"src": src[present], "dst": dst[present], "weight": w[present]}
    batches = []
    deletes, inserts = rows // 2, rows - rows // 2
    for b in range(count):
        picks = xp.concatenate((chosen[b * deletes:(b + 1) * deletes],
                                chosen[total + b * inserts:total + (b + 1) * inserts]))
        op = xp.concatenate((-xp.ones(deletes, dtype=xp.int8), xp.ones(inserts, dtype=xp.int8)))
        batches.append({"src": src[picks], "dst": dst[picks], "weight": w[picks], "op": op})
    return g0, batches


def tracked_stream(ops, scale, edge_factor, rows, count, seed, warm=5, queries=("sssp",), mode="incremental",
                   placement="device", cache_fraction=0.125):
    """The diagnostics' workload: an R-MAT graph in ``placement`` (``cached``: a
    cache budget of ``cache_fraction`` of the adjacency bytes, 8 per edge
    and direction) with SSSP from its hub (and, in ``queries``, unweighted
    PageRank) tracked in ``mode``, and ``count`` batches of :func:`make_batches`
    (one-row batches as pandas frames, as a latency user sends them), of which
    the first ``warm`` are applied, untimed.  Returns ``(graph, hub, rest)``.

    >>> from cugraph_stream.backends import get_backend
    >>> graph, hub, rest = tracked_stream(get_backend("cpu"), 8, 4, 1, 7, 0)
    >>> len(rest), type(rest[0]).__name__, graph.last_report.rows
    (2, 'DataFrame', 1)
    """
    import cugraph_stream as cgs
    from cugraph_stream.datasets import rmat

    xp = ops.xp
    edges = rmat(scale, edge_factor=edge_factor, seed=seed, backend=ops.name)
    g0, batches = make_batches(xp, edges, rows, count, seed + 1)
    store = {"placement": placement}
    if placement == "cached":
        store["cache_budget"] = int(cache_fraction * int(g0["src"].size) * 2 * 8)
    graph = cgs.StreamGraph.from_edgelist(g0, source="src", destination="dst", weight="weight", backend=ops, **store)
    hub = int(ops.to_host(xp.bincount(g0["src"]).argmax()))
    if "sssp" in queries:
        graph.track(cgs.SSSP(hub, mode=mode))
    if "pagerank" in queries:
        graph.track(cgs.PageRank(weighted=False, mode=mode))
    if rows == 1:
        batches = [pd.DataFrame({k: ops.to_host(v) for k, v in b.items()}) for b in batches]
    for batch in batches[:warm]:
        graph.apply(batch, weight="weight")
    return graph, hub, batches[warm:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--rows", type=int, default=1, help="rows per batch")
    ap.add_argument("--batches", type=int, default=100, help="profiled batches (after 5 untimed ones)")
    ap.add_argument("--top", type=int, default=30, help="rows of the table")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("auto", "incremental", "recompute"), default="incremental",
                    help="the SSSP query's mode (default incremental: the path a batch's floor is about; auto "
                         "learns from timings the wrappers and CUPTI inflate; recompute: every batch pushes "
                         "from the source)")
    ap.add_argument("--queries", default="sssp", help="tracked queries, comma-separated: sssp, pagerank "
                                                       "(unweighted, as the benchmarks track it); none: no "
                                                       "query")
    ap.add_argument("--sync-operators", action="store_true",
                    help="synchronise the device after every operator call: each operator's self time "
                         "includes its kernels")
    ap.add_argument("--placement", choices=("device", "host", "cached"), default="device")
    ap.add_argument("--cache-fraction", type=float, default=0.125,
                    help="placement cached: the cache budget as a share of the adjacency bytes (8 per edge "
                         "and direction)")
    args = ap.parse_args(argv)

    from cugraph_stream.backends import get_backend

    ops = get_backend(args.backend)
    graph, hub, batches = tracked_stream(ops, args.scale, args.edge_factor, args.rows, args.batches + 5, args.seed,
                                         queries=[q for q in args.queries.split(",") if q != "none"],
                                         mode=args.mode, placement=args.placement,
                                         cache_fraction=args.cache_fraction)

    counter = None
    if args.backend == "gpu":
        from .device_calls import CuptiCounter

        counter = CuptiCounter() if CuptiCounter.available() else None
    profiler = StepProfiler(counter)
    with counter if counter is not None else contextlib.nullcontext(), patched(profiler, ops, args.sync_operators):
        ops.synchronize()
        start = time.perf_counter()
        for batch in batches:
            graph.apply(batch, weight="weight")
        ops.synchronize()
        wall = time.perf_counter() - start
    n = args.batches
    report = graph.last_report
    print(f"{args.backend}, placement {args.placement}: R-MAT scale {args.scale}, {graph.number_of_edges():,} "
          f"edges, queries {args.queries}{f' (source {hub})' if 'sssp' in args.queries else ''}; "
          f"{n} batches of {args.rows} rows: {1e6 * wall / n:,.0f} us a batch (wrapped"
          f"{', every operator synchronised' if args.sync_operators else ''}); "
          f"last report: {report.syncs} syncs, {report.launches} operator calls"
          + (f"; CUPTI: {counter.launches / n:.1f} launches, {counter.syncs / n:.1f} syncs a batch" if counter else ""))
    print("| step | calls / batch | self us / batch |" + (" self launches / batch | self syncs / batch |"
                                                          if counter else ""))
    print("| --- | ---: | ---: |" + (" ---: | ---: |" if counter else ""))
    ranked = sorted(profiler.stats.items(), key=lambda item: -item[1][1])
    for name, (calls, seconds, launches, syncs) in ranked[:args.top]:
        print(f"| {name} | {calls / n:.2f} | {1e6 * seconds / n:,.1f} |"
              + (f" {launches / n:.1f} | {syncs / n:.2f} |" if counter else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
