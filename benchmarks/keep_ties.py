"""How much invalidation does searching ties save?  Incremental deletions by KEEP_TIE_LEVELS.

For BFS and for SSSP on whole-number weights (where ties are common), one
:func:`~cugraph_stream.datasets.mixed_stream` of R-MAT batches is applied to
a fresh graph per value of
:data:`cugraph_stream.engine.monotonic.KEEP_TIE_LEVELS` (the levels below a
deleted tree edge where invalidation looks for another parent at the same
distance; 0 turns the search off).  Per value it prints the vertices
invalidated over the stream, the synchronisations requested, and the mean
apply time after the first batch, all from the batches' reports.  Every
graph's final result is checked against the first one's (values equal).

Examples
--------
CPU::

    python -m benchmarks.keep_ties --scale 16 --batches 6 --batch-size 10000

GPU::

    python -m benchmarks.keep_ties --backend gpu --scale 20
"""
from __future__ import annotations

import argparse
import sys
from time import perf_counter

import numpy as np

import cugraph_stream as cgs
import cugraph_stream.engine.monotonic as monotonic
from cugraph_stream.datasets import mixed_stream, rmat

from .common import positive, sync_device, write


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.keep_ties", description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--scale", type=positive(int), default=16)
    p.add_argument("--batches", type=positive(int), default=6)
    p.add_argument("--batch-size", type=positive(int), default=10_000)
    p.add_argument("--levels", type=lambda t: [int(x) for x in t.split(",")], default=[0, 1, 2, 3, 100],
                   help="KEEP_TIE_LEVELS values, comma-separated (default 0,1,2,3,100)")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args(argv)


def run(args, kind, edges, levels):
    """``(invalidated, syncs, mean apply ms after the first batch, result values)`` of one stream."""
    stream = mixed_stream(edges, args.batches, args.batch_size, seed=args.seed)
    source = int(np.argmax(np.bincount(stream.initial["src"].to_numpy())))
    g = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst", weight="weight",
                                      backend=args.backend)
    query = g.track(kind(source=source, mode="incremental"))
    invalidated = syncs = 0
    times = []
    saved, monotonic.KEEP_TIE_LEVELS = monotonic.KEEP_TIE_LEVELS, levels     # read by the engine per batch
    try:
        for batch in stream.batches:
            sync_device()
            start = perf_counter()
            report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
            sync_device()
            times.append(perf_counter() - start)
            invalidated += report.invalidated
            syncs += report.syncs
    finally:
        monotonic.KEEP_TIE_LEVELS = saved
    values = query.result()[query.value_column]
    values = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values.get())
    return invalidated, syncs, 1e3 * float(np.mean(times[1:] or times)), values


def main(argv=None):
    args = parse_args(argv)
    edges = rmat(args.scale, 16, seed=0, weight_dtype="float64")
    whole = edges.assign(weight=np.floor(edges["weight"]))
    write(f"# keep_ties: backend {args.backend}, R-MAT scale {args.scale}, {args.batches} x {args.batch_size:,} rows")
    write(f"{'query':18} {'levels':>6} {'invalidated':>12} {'syncs':>6} {'apply ms':>9}")
    status = 0
    for name, kind, graph in (("bfs", cgs.BFS, edges), ("sssp, whole weights", cgs.SSSP, whole)):
        first = None
        for levels in args.levels:
            invalidated, syncs, ms, values = run(args, kind, graph, levels)
            same = first is None or np.array_equal(first, values)
            first = values if first is None else first
            status |= not same
            write(f"{name:18} {levels:>6} {invalidated:>12,} {syncs:>6} {ms:>9.3f}{'' if same else '  MISMATCH'}")
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
