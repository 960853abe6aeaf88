"""Bytes per edge the store holds, and how fast it loads (issue 19).

Builds an R-MAT graph with ``StreamGraph.from_edgelist`` (timed: edges
loaded per second), tracks SSSP and PageRank, applies a mixed stream of
batches, and prints the bytes the graph holds per edge after the load and
after the stream: in total, per part (the out- and in-adjacency's slot and
per-vertex arrays, the arc index, the vertex table, each query's state) and
per memory (``g.memory_bytes(per_device=True)``: device and host).  The
slots per arc show the lists' slack, the laid-out slots per arc how much of
it lies before the end of the lists (the rest is end room that relocations
take as batches come).  Figures are read from the store's
arrays (``memory_bytes``), not from the process's memory.

Examples
--------
CPU::

    python -m benchmarks.store_bytes --scale 18

GPU, adjacency in host memory::

    python -m benchmarks.store_bytes --backend gpu --placement host --scale 24
"""
from __future__ import annotations

import argparse
import json
import sys
from time import perf_counter

import cugraph_stream as cgs
from cugraph_stream.backends import get_backend
from cugraph_stream.datasets import rmat

from .batch_profile import make_batches
from .common import positive, sync_device, write


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.store_bytes", description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--placement", choices=("device", "host", "cached"), default="device")
    p.add_argument("--cache-fraction", type=float, default=1 / 8,
                   help="with --placement cached: the cache budget as a share of the adjacency's "
                        "neighbours and weights (8 bytes per arc; default 1/8)")
    p.add_argument("--scale", type=positive(int), default=18)
    p.add_argument("--edge-factor", type=positive(int), default=16)
    p.add_argument("--batches", type=int, default=5)
    p.add_argument("--batch-size", type=positive(int), default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    return p.parse_args(argv)


def breakdown(g):
    """Bytes per part of the store and the queries (host ints)."""
    store = g._store
    parts = {}
    for name, adj in (("out", store.out), ("in", store.inn if store.directed else None)):
        if adj is None:
            continue
        ops = store.ops
        parts[f"{name} slots"] = ops.memory_bytes(adj.nbr, adj.wgt, adj.twin)
        parts[f"{name} per-vertex"] = ops.memory_bytes(adj.start, adj.degree, adj.capacity)
        parts[f"{name} slots per arc"] = adj.slot_capacity
        parts[f"{name} laid-out slots per arc"] = adj.end     # (up to the end of the lists: the rest is end room)
    parts["arc index"] = store.index.memory_bytes()
    parts["vertex table"] = store.vertices.memory_bytes()
    for query in g.queries:
        parts[f"query {type(query).__name__}"] = query.engine.memory_bytes()
    for _, adj, hotness in store.cached:
        parts["caches"] = parts.get("caches", 0) + adj.cache.memory_bytes() + hotness.memory_bytes()
    return parts


def describe(g, label):
    """One line per figure, per edge; returns them as a dict."""
    edges = g.number_of_edges()
    arcs = edges if g.directed else 2 * edges
    parts = breakdown(g)
    held = g.memory_bytes(per_device=True)
    figures = {"edges": edges, "bytes_per_edge": g.memory_bytes() / edges,
               "device_bytes_per_edge": held["device"] / edges, "host_bytes_per_edge": held["host"] / edges}
    write(f"{label}: {edges:,} edges, {figures['bytes_per_edge']:.1f} bytes per edge "
          f"(device {figures['device_bytes_per_edge']:.1f}, host {figures['host_bytes_per_edge']:.1f})")
    for name, value in parts.items():
        if name.endswith("slots per arc"):
            figures[name] = value / arcs
            write(f"  {name:<22} {value / arcs:8.2f}")
        else:
            figures[name] = value / edges
            write(f"  {name:<22} {value / edges:8.1f} bytes per edge")
    return figures


def main(argv=None):
    args = parse_args(argv)
    ops = get_backend(args.backend)
    edges = rmat(args.scale, args.edge_factor, seed=args.seed, backend=args.backend)
    initial, batches = make_batches(ops.xp, edges, args.batch_size, args.batches, args.seed + 1)
    source = int(ops.to_host(initial["src"][:1])[0])
    options = {}
    if args.placement == "cached":
        options["cache_budget"] = int(args.cache_fraction * int(initial["src"].size) * 2 * 8)
    sync_device()
    t0 = perf_counter()
    g = cgs.StreamGraph.from_edgelist(initial, source="src", destination="dst", weight="weight",
                                      backend=ops, placement=args.placement, **options)
    sync_device()
    load_s = perf_counter() - t0
    write(f"R-MAT scale {args.scale}, edge factor {args.edge_factor}, backend {args.backend}, "
          f"placement {args.placement}")
    write(f"load: {g.number_of_edges():,} edges in {load_s:.2f} s = {g.number_of_edges() / load_s / 1e6:.1f}M edges/s")
    phases = g.last_report.times
    write("  phases: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in phases.items()))
    g.track(cgs.SSSP(source=source))
    g.track(cgs.PageRank())
    figures = {"args": vars(args), "load_s": load_s, "load_phases_s": dict(phases),
               "after_load": describe(g, "after the load")}
    if batches:
        for batch in batches:
            g.apply(batch, source="src", destination="dst", weight="weight")
        figures["after_stream"] = describe(g, f"after {args.batches} batches of {args.batch_size:,} rows")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
