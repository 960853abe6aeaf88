"""Does the hot-list cache pay?  ``cached`` against ``host`` placement, per batch (issue 19, deliverable 4).

    python -m benchmarks.cache_pays                                   # the lent GPU: scale 22, < 3 minutes
    python -m benchmarks.cache_pays --backend cpu --scale 14 --batch-size 1000

One R-MAT graph (Graph500 quadrants, weights in [1, 64);
:func:`benchmarks.stream.workload.generate_edges`), cut into an initial graph
and a stream of mixed batches, half inserts, half deletes
(:func:`cugraph_stream.datasets.mixed_stream`),
is loaded three times: placement ``host`` (lists read in place from host
memory), ``cached`` (host plus the hot-list cache of ``--cache-fraction`` of
the adjacency bytes, refreshed when the refresh policy says it pays,
``engine/cache_policy.py``) and ``cached-full`` (the same cache refreshed in
full every batch: the behaviour before the policy).  Phase ``sssp`` tracks
SSSP from the hub; phase ``sssp+pagerank`` then tracks PageRank as well.
In each phase ``--warmup`` untimed batches run first, then ``--batches``
timed ones, each batch applied to the three graphs in turn (so that drift
of the machine hits them alike), the wall time of ``apply`` per batch
(the device synchronised: the transaction ends with a synchronisation).

Printed per phase and placement: mean and median ms per batch, the ratio of
the mean to ``host``'s, the refresh decisions (full / partial / skipped / cleared),
mean refresh ms (``BatchReport.times["cache"]``), the rest of the batch
(``other ms``: where the cache's hits and the hotness counts show), the
cache's hit ratio and host MB per batch (``BatchReport.host_bytes``, the
refresh's loads included).  Goal (GPU): ``cached`` / ``host`` <= 1.05 in every
phase.  ``--json PATH`` writes every batch's figures.  Results are checked
only by the engine's own consistency checks at the end (the cache against
the store, and the three placements' results against each other).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from time import perf_counter

import numpy as np

from benchmarks.common import json_default, machine_info, make_query, positive, versions, write
from cugraph_stream.engine.cache_policy import REFRESH_KINDS

PLACEMENTS = ("host", "cached", "cached-full")
PHASES = (("sssp", ("sssp",)), ("sssp+pagerank", ("sssp", "pagerank")))


def _always_full_policy(store):
    """A refresh policy that refreshes in full every batch (the behaviour before the policy)."""
    from cugraph_stream.engine.cache_policy import RefreshDecision, RefreshPolicy

    class AlwaysFull(RefreshPolicy):
        def decide_full(self):
            return RefreshDecision("full", "every batch (cached-full)")

    return AlwaysFull(store.refresh_policy.host_read_bandwidth)


def build_graphs(workload, backend, cache_fraction, placements=PLACEMENTS):
    """The graphs of ``placements`` (placement name -> (StreamGraph, build seconds))."""
    import cugraph_stream as cgs

    adjacency_bytes = len(workload.initial) * 2 * (4 + 4)      # both directions, int32 ids, float32 weights
    budget = int(cache_fraction * adjacency_bytes)
    graphs = {}
    for name in placements:
        options = {"placement": "host"} if name == "host" else {"placement": "cached", "cache_budget": budget}
        t0 = perf_counter()
        g = cgs.StreamGraph.from_edgelist(workload.initial, source="src", destination="dst",
                                          weight="weight", backend=backend, **options)
        if name == "cached-full":
            g._store.refresh_policy = _always_full_policy(g._store)
        graphs[name] = (g, perf_counter() - t0)
    return graphs, budget


def _batch_columns(frame, backend):
    """A batch as a dict of arrays on the backend's device (moved before the timing)."""
    if backend == "gpu":
        import cupy

        return {c: cupy.asarray(frame[c].to_numpy()) for c in ("src", "dst", "weight", "op")}
    return {c: frame[c].to_numpy() for c in ("src", "dst", "weight", "op")}


def run_phase(graphs, batches, warmup, backend, label):
    """Apply ``batches`` (warm-up ones first) to every graph in turn; return per placement
    the timed batches' records."""
    records = {name: [] for name in graphs}
    for b, frame in enumerate(batches):
        columns = _batch_columns(frame, backend)
        for name, (g, _) in graphs.items():
            t0 = perf_counter()
            report = g.apply(columns, source="src", destination="dst", weight="weight", op="op")
            wall = perf_counter() - t0
            if b < warmup:
                continue
            records[name].append({
                "batch": b, "wall_s": wall, "cache_s": report.times.get("cache", 0.0),
                "refresh": report.cache_refresh, "reason": report.cache_refresh_reason,
                "loaded_bytes": report.cache_loaded_bytes, "saved_bytes": report.cache_saved_bytes,
                "host_bytes": report.host_bytes, "hit_ratio": report.cache_hit_ratio})
        write(f"  {label} batch {b}{' (warm-up)' if b < warmup else ''}: "
              + ", ".join(f"{name} {1e3 * records[name][-1]['wall_s']:.1f} ms"
                          + (f" [{records[name][-1]['refresh']}]" if records[name][-1]["refresh"] else "")
                          for name in graphs if b >= warmup))
    return records


def summarize(records):
    """Per placement: mean/median ms, decisions, refresh ms, hit ratio, host MB, ratio to host."""
    rows = {}
    for name, recs in records.items():
        wall = [r["wall_s"] for r in recs]
        decisions = {kind: sum(r["refresh"] == kind for r in recs) for kind in REFRESH_KINDS}
        rows[name] = {"mean_ms": 1e3 * statistics.fmean(wall), "median_ms": 1e3 * statistics.median(wall),
                      "decisions": decisions, "cache_ms": 1e3 * statistics.fmean(r["cache_s"] for r in recs),
                      "other_ms": 1e3 * statistics.fmean(r["wall_s"] - r["cache_s"] for r in recs),
                      "hit_ratio": statistics.fmean(r["hit_ratio"] for r in recs),
                      "host_mb": statistics.fmean(r["host_bytes"] for r in recs) / 1e6}
    for row in rows.values():
        row["ratio_to_host"] = row["mean_ms"] / rows["host"]["mean_ms"]
    return rows


def print_table(phase, rows):
    write(f"\n{phase}: ms per batch (wall, device synchronised)")
    write("| placement | mean ms | median ms | / host | refresh full/partial/skipped/cleared | refresh ms | "
          "other ms | hit ratio | host MB/batch |")
    write("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, row in rows.items():
        d = row["decisions"]
        decisions = "-" if name == "host" else f"{d['full']}/{d['partial']}/{d['skipped']}/{d['cleared']}"
        write(f"| {name} | {row['mean_ms']:.2f} | {row['median_ms']:.2f} | {row['ratio_to_host']:.3f} | "
              f"{decisions} | {row['cache_ms']:.2f} | {row['other_ms']:.2f} | {row['hit_ratio']:.2f} | "
              f"{row['host_mb']:.1f} |")


def check_results(graphs, queries):
    """The cache agrees with the store, and the placements' results agree with ``host``'s."""
    for name, (g, _) in graphs.items():
        g._store.check_cache()
    for kind, per_graph in queries.items():
        reference = _host_frame(per_graph["host"].result()).sort_values("vertex").reset_index(drop=True)
        for name, query in per_graph.items():
            got = _host_frame(query.result()).sort_values("vertex").reset_index(drop=True)
            column = "pagerank" if kind == "pagerank" else "distance"
            if kind == "pagerank":
                ok = np.allclose(got[column].to_numpy(), reference[column].to_numpy(), rtol=0, atol=1e-5)
            else:
                ok = np.array_equal(got[column].to_numpy(), reference[column].to_numpy())
            if not ok:
                raise AssertionError(f"{kind}: placement {name} disagrees with host")


def _host_frame(frame):
    return frame.to_pandas() if hasattr(frame, "to_pandas") else frame


def main(argv=None):
    from benchmarks.stream.workload import generate_edges
    from cugraph_stream.datasets import mixed_stream

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--scale", type=positive(int), default=22)
    ap.add_argument("--edge-factor", type=positive(int), default=16)
    ap.add_argument("--batches", type=positive(int), default=10, help="timed batches per phase")
    ap.add_argument("--warmup", type=int, default=3, help="untimed batches first, per phase")
    ap.add_argument("--batch-size", type=positive(int), default=10_000)
    ap.add_argument("--cache-fraction", type=positive(float), default=0.125,
                    help="cache budget as a share of the adjacency bytes (8 per edge and direction)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-cached-full", action="store_true",
                    help="leave out placement cached-full (a full refresh every batch)")
    ap.add_argument("--json", help="write every batch's figures here")
    args = ap.parse_args(argv)
    placements = PLACEMENTS[:2] if args.no_cached_full else PLACEMENTS

    per_phase = args.warmup + args.batches
    generate = "gpu" if args.backend == "gpu" else "cpu"
    t0 = perf_counter()
    edges, _ = generate_edges(args.scale, args.edge_factor, args.seed, generate)
    workload = mixed_stream(edges, len(PHASES) * per_phase, args.batch_size, delete_fraction=0.5, seed=args.seed)
    del edges
    initial_src = workload.initial["src"].to_numpy()
    source = int(np.argmax(np.bincount(initial_src)))          # the hub: most out-edges
    write(f"R-MAT scale {args.scale}: {len(workload.initial):,} edges in G0, "
          f"{len(PHASES) * per_phase} batches of {args.batch_size:,} ({perf_counter() - t0:.1f} s to make)")
    graphs, budget = build_graphs(workload, args.backend, args.cache_fraction, placements)
    write("built: " + ", ".join(f"{name} {seconds:.1f} s" for name, (_, seconds) in graphs.items())
          + f"; cache budget {budget / 2**20:.1f} MiB")
    first = next(iter(graphs.values()))[0]._store
    bandwidth = graphs["cached"][0]._store.refresh_policy.host_read_bandwidth
    write(f"host read bandwidth (refresh policy): {bandwidth / 1e9:.1f} GB/s "
          f"({'measured' if args.backend == 'gpu' else 'prior'}); vertices {first.num_vertices:,}")
    queries, results = {}, {"config": vars(args), "machine": machine_info(), "versions": versions(),
                            "cache_budget": budget, "host_read_bandwidth": bandwidth, "phases": {}}
    for p, (phase, kinds) in enumerate(PHASES):
        for kind in kinds:
            if kind in queries:
                continue
            queries[kind] = {}
            for name, (g, _) in graphs.items():
                t0 = perf_counter()
                queries[kind][name] = g.track(make_query(kind, source))
                write(f"  track {kind} on {name}: {perf_counter() - t0:.2f} s")
        batches = workload.batches[p * per_phase:(p + 1) * per_phase]
        records = run_phase(graphs, batches, args.warmup, args.backend, phase)
        rows = summarize(records)
        print_table(phase, rows)
        results["phases"][phase] = {"summary": rows, "batches": records}
    check_results(graphs, queries)
    write("\nresults agree across placements; every cache agrees with its store")
    worst = max(results["phases"][phase]["summary"]["cached"]["ratio_to_host"] for phase, _ in PHASES)
    write(f"worst cached / host: {worst:.3f} (goal on the GPU: <= 1.05)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=json_default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
