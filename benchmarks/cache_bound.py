"""How much host traffic could a cache of this budget save at best?  (issue 19, deliverable 4)

    python -m benchmarks.cache_bound --scale 24                  # the lent GPU, a few minutes
    python -m benchmarks.cache_bound --backend cpu --scale 16 --batch-size 1000

Issue 19 asks ``cached`` to read at most 20% of ``host``'s bytes with a
cache of 1/8 of the adjacency bytes.  This measures how far any choice of
cached lists could go, from the engine's own record of the reads: the
workload of :mod:`benchmarks.cache_pays` (R-MAT, 10,000-row mixed batches,
SSSP from the hub and unweighted PageRank, placements ``host`` and
``cached``) runs ``--batches`` batches, then, from the hotness window (each
vertex's list reads over the last ``tau`` batches,
:class:`~cugraph_stream.engine.hotness.Hotness`), it computes

* the **window's host traffic**: every list read over the window, in the
  64-byte transactions a read of it from host memory costs (its neighbour
  ids, and its weights where the cache would hold them);
* the **best share a cache could save**: the lists ranked by transactions
  saved per cached byte (what the refresh's selection ranks by,
  :func:`~cugraph_stream.engine.cache_selection.list_values`), taken in that
  order while they fit the budget (a fractional knapsack: the last list in
  part, chunks ignored, so an upper bound on any selection of whole lists
  in whole chunks), with perfect foresight (the next window's reads are the
  last window's);
* the same bound for cached ids of fewer bytes (``--id-bytes``: compressed
  ids, say) and for larger budgets (``--budget-factors``);

and prints them beside what ``cached`` read against ``host`` in the same
batches (``BatchReport.host_bytes``).  Results are checked as in
:mod:`benchmarks.cache_pays` (cache against store, placements against each
other).
"""
from __future__ import annotations

import argparse
import json
import sys
from time import perf_counter

import numpy as np

from benchmarks.cache_pays import build_graphs, check_results, run_phase
from benchmarks.common import json_default, machine_info, make_query, positive, versions, write


def best_saved_share(ops, values, budget_bytes):
    """The largest share of ``values``' total worth that ``budget_bytes`` of cache can
    hold: a fractional knapsack over the lists of every part, densest first.

    ``values`` are :class:`~cugraph_stream.engine.cache_selection.ListValues`
    whose densities are comparable across parts (transactions saved per cached
    byte); the share is of the worth of every eligible list.

    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.cache_selection import ListValues
    >>> v = ListValues(np.arange(3), np.array([10, 20, 40]), np.array([1.0, 0.5, 0.25], np.float32))
    >>> best_saved_share(get_backend("cpu"), [v], 20)          # worth 10 + 10 + 10: the first, half the second
    0.5
    """
    xp = ops.xp
    density = xp.concatenate([part.density.astype(xp.float64) for part in values])
    cost = xp.concatenate([part.cost.astype(xp.float64) for part in values])
    worth = density * cost
    order = xp.argsort(-density, kind="stable")
    cost, worth = cost[order], worth[order]
    used = xp.cumsum(cost)
    full = int(xp.searchsorted(used, budget_bytes, side="right"))
    covered = float(worth[:full].sum())
    if full < cost.size:                                      # the next list, in part
        room = budget_bytes - (float(used[full - 1]) if full else 0.0)
        covered += float(worth[full]) * room / float(cost[full])
    total = float(worth.sum())
    return covered / total if total else 0.0


def window_bounds(graph, budget_bytes, id_bytes, budget_factors):
    """Per adjacency the window's host transactions, and the best shares a cache could
    save: with the caches' own entries and with ids of each of ``id_bytes`` bytes
    (weights as the cache holds them), for ``budget_bytes`` times each of
    ``budget_factors``."""
    from cugraph_stream.engine.cache_selection import list_values

    store = graph._store
    ops, bound = store.ops, store.vertex_bound
    caches = [(side, adj, adj.cache, hotness.score(upto=bound)) for side, adj, hotness in store.cached]
    traffic = {}
    for side, adj, cache, score in caches:
        every = list_values(ops, score, adj.degree, 1, cache.read_itemsizes)     # cost 1 a slot: worth = transactions
        traffic[side] = float((every.density.astype(np.float64) * every.cost).sum()) if every.cost.size else 0.0
    total = sum(traffic.values())
    rows = []
    for ids in [None] + list(id_bytes):
        parts = [list_values(ops, score, adj.degree,
                             cache.slot_bytes if ids is None else ids + cache.slot_bytes - cache.id_bytes,
                             cache.read_itemsizes, cache.chunk_slots) for _, adj, cache, score in caches]
        # the share is of the eligible lists' worth; lists over a chunk are never saved
        eligible = sum(float((p.density.astype(np.float64) * p.cost).sum()) for p in parts)
        for factor in budget_factors:
            share = best_saved_share(ops, parts, factor * budget_bytes) * eligible / total if total else 0.0
            rows.append({"id_bytes": caches[0][2].id_bytes if ids is None else ids,
                         "budget_bytes": factor * budget_bytes, "budget_factor": factor,
                         "best_saved_share": share, "best_host_share": max(1.0 - share, 0.0)})
    return traffic, rows


def main(argv=None):
    from benchmarks.stream.workload import generate_edges
    from cugraph_stream.datasets import mixed_stream

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--scale", type=positive(int), default=22)
    ap.add_argument("--edge-factor", type=positive(int), default=16)
    ap.add_argument("--batches", type=positive(int), default=6, help="batches applied before the bound is taken")
    ap.add_argument("--batch-size", type=positive(int), default=10_000)
    ap.add_argument("--cache-fraction", type=positive(float), default=0.125,
                    help="cache budget as a share of the adjacency bytes (8 per edge and direction)")
    ap.add_argument("--id-bytes", default="2",
                    help="comma-separated cached id sizes to bound as well (bytes per cached id: compressed ids)")
    ap.add_argument("--budget-factors", default="1,2", help="comma-separated multiples of the budget to bound")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    id_bytes = [int(x) for x in args.id_bytes.split(",") if x]
    factors = [float(x) for x in args.budget_factors.split(",") if x]

    t0 = perf_counter()
    edges, _ = generate_edges(args.scale, args.edge_factor, args.seed, "gpu" if args.backend == "gpu" else "cpu")
    workload = mixed_stream(edges, args.batches, args.batch_size, delete_fraction=0.5, seed=args.seed)
    del edges
    source = int(np.argmax(np.bincount(workload.initial["src"].to_numpy())))
    write(f"R-MAT scale {args.scale}: {len(workload.initial):,} edges in G0 ({perf_counter() - t0:.1f} s to make)")
    graphs, budget = build_graphs(workload, args.backend, args.cache_fraction, ("host", "cached"))
    queries = {kind: {name: g.track(make_query(kind, source)) for name, (g, _) in graphs.items()}
               for kind in ("sssp", "pagerank")}
    # the last tau batches fill the window; the ones before them let the policy settle
    records = run_phase(graphs, workload.batches, 0, args.backend, "sssp+pagerank")
    check_results(graphs, queries)
    cached = graphs["cached"][0]
    tau = cached._store.cached[0][2].tau
    last = slice(-tau, None)
    host_bytes = {name: float(np.mean([r["host_bytes"] for r in recs[last]])) for name, recs in records.items()}
    actual = host_bytes["cached"] / host_bytes["host"] if host_bytes["host"] else 0.0
    traffic, rows = window_bounds(cached, budget, id_bytes, factors)

    write(f"\nhotness window: the last {tau} batches; cache budget {budget / 2**20:.1f} MiB")
    write("window's host traffic if nothing were cached: "
          + ", ".join(f"{side} {64 * t / tau / 1e6:,.1f} MB a batch" for side, t in traffic.items()))
    write(f"measured over those batches: cached read {host_bytes['cached'] / 1e6:,.1f} MB a batch, host "
          f"{host_bytes['host'] / 1e6:,.1f} MB: **{actual:.1%}** of host's bytes "
          f"(refreshes: {', '.join(r['refresh'] for r in records['cached'][last])})")
    write("\n| cached id bytes | budget | best host share (any selection, perfect foresight) |")
    write("| ---: | ---: | ---: |")
    for row in rows:
        write(f"| {row['id_bytes']} | {row['budget_factor']:g}x ({row['budget_bytes'] / 2**20:.1f} MiB) | "
              f"{row['best_host_share']:.1%} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": vars(args), "machine": machine_info(), "versions": versions(),
                       "budget": budget, "tau": tau, "window_transactions": traffic,
                       "host_bytes": host_bytes, "actual_host_share": actual, "bounds": rows,
                       "batches": records}, f, indent=1, default=json_default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
