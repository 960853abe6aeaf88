"""GPU engine against pylibcugraph recomputation, on the same snapshots, in one run.

    python -m benchmarks.gpu_vs_pylibcugraph --scale 22 --edge-factor 16 --batches 10 --batch-size 10000

Protocol (issue 3): an R-MAT graph generated on the GPU (a=0.57, b=0.19,
c=0.19, weights uniform in [1, 64)); ``batches * batch_size`` distinct edges
drawn from it, half deleted from the initial graph G0 in the batches, half
left out of G0 and inserted (Grapin's protocol).  For each query kind a
fresh ``StreamGraph(backend="gpu")`` built from G0 tracks that query alone;
every batch's ``apply`` is timed (device synchronised), then pylibcugraph
recomputes the same snapshot with the graph already on the GPU (graph
construction not timed): ``sssp``, ``bfs``, ``weakly_connected_components``
on the symmetrised snapshot, and ``pagerank`` warm-started from the previous
snapshot's ranks.  Every snapshot's results are cross-checked (a mismatch
exits with status 1).  Last, one 1,000,000-row batch of new edges is applied
from a cuDF DataFrame and the ingestion rate reported.

pylibcugraph comes from the GPU kit (../shared/gpu/kit.py); without it the
engine is still timed and the baseline columns stay empty.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys

import numpy as np

from cugraph_stream.backends.gpu import engine_memory_pool

from .common import timed
from .pylibcugraph_baseline import PylibcugraphBaseline, warm_up_gpu_engine
from .pylibcugraph_baseline import to_device_frame as to_frame


def make_stream(cp, edges, batches, batch_size, seed):
    """G0 and the batches (as column dicts of CuPy arrays) plus, per snapshot,
    the mask of R-MAT edges present (the baseline's snapshot, independent of the engine)."""
    src, dst, w = (cp.asarray(edges[c]) for c in ("src", "dst", "weight"))
    m = int(src.size)
    total = batches * batch_size
    rng = cp.random.RandomState(seed)
    chosen = rng.permutation(m)[:total]
    deletes, inserts = chosen[: total // 2], chosen[total // 2:]
    present = cp.ones(m, dtype=bool)
    present[inserts] = False
    initial = {"src": src[present], "dst": dst[present], "weight": w[present]}
    ops = cp.concatenate((cp.full(deletes.size, -1, cp.int8), cp.ones(inserts.size, cp.int8)))
    order = rng.permutation(total)
    rows, ops = cp.concatenate((deletes, inserts))[order], ops[order]
    out, masks = [], []
    mask = present.copy()
    for b in range(batches):
        r, o = rows[b * batch_size:(b + 1) * batch_size], ops[b * batch_size:(b + 1) * batch_size]
        out.append({"src": src[r], "dst": dst[r], "weight": w[r], "op": o})
        mask = mask.copy()
        mask[r] = o == 1
        masks.append(mask)
    return (src, dst, w), initial, out, masks


def cross_check(kind, engine, base, tol):
    """Compare the engine's result frame with pylibcugraph's arrays; return a message or None."""
    import cupy as cp

    ev = cp.asarray(engine["vertex"].values)
    order = cp.argsort(base["vertex"])
    bv = base["vertex"][order]
    where = cp.searchsorted(bv, ev)
    where = cp.minimum(where, bv.size - 1)
    known = bv[where] == ev                      # engine vertices pylibcugraph saw
    if kind in ("sssp", "bfs"):
        ed = cp.asarray(engine["distance"].values)[known]
        bd = base["distance"][order][where[known]]
        if kind == "bfs":   # unreachable: int32 max here, the vertex dtype's max there
            ed = cp.where(ed == np.iinfo(np.int32).max, -1, ed.astype(cp.int64))
            bd = cp.where(bd >= np.iinfo(np.int32).max, -1, bd.astype(cp.int64))
            bad = ed != bd
        else:
            big = ed >= np.finfo(np.float32).max / 2
            bad = (big != (bd >= np.finfo(np.float32).max / 2)) | (~big & (cp.abs(ed - bd) > 1e-5 * cp.abs(bd)))
        if bool(bad.any()):
            first = cp.flatnonzero(bad)[:3]
            return (f"{kind}: {int(bad.sum())} distances differ, e.g. vertices {ev[known][first].tolist()}: "
                    f"engine {ed[first].tolist()} vs pylibcugraph {bd[first].tolist()}")
    elif kind == "wcc":
        el = cp.asarray(engine["labels"].values)[known]
        bl = base["labels"][order][where[known]].astype(cp.int64)
        _, e_id = cp.unique(el, return_inverse=True)
        _, b_id = cp.unique(bl, return_inverse=True)
        e_id, b_id = e_id.reshape(-1).astype(cp.int64), b_id.reshape(-1).astype(cp.int64)
        pairs = cp.unique(e_id * (int(b_id.max()) + 1) + b_id) if e_id.size else e_id
        if not int(pairs.size) == int(e_id.max() + 1 if e_id.size else 0) == int(b_id.max() + 1 if b_id.size else 0):
            return "wcc: the partitions differ"
    elif kind == "pagerank":
        er = cp.asarray(engine["pagerank"].values)[known]
        br = base["pagerank"][order][where[known]]
        l1 = float(cp.abs(er - br).sum())
        if l1 > tol + 1e-5:      # the engine's bound plus cuGraph's own stopping error
            return f"pagerank: L1 distance {l1:.2e}"
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=10000)
    ap.add_argument("--queries", default="sssp,bfs,wcc,pagerank")
    ap.add_argument("--ingest-rows", type=int, default=1_000_000)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--out", default=None, help="JSON file for all figures")
    args = ap.parse_args(argv)

    import cupy as cp

    import cugraph_stream as cgs
    from cugraph_stream.datasets import rmat

    try:
        import pylibcugraph as plc
    except ImportError:
        plc = None
    if args.no_baseline:
        plc = None
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    warm_up_gpu_engine(cgs)
    print(f"device: {device}; pylibcugraph: {getattr(plc, '__version__', 'not used')}", flush=True)

    (edges, t_gen) = timed(lambda: rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed, backend="gpu"))
    (all_edges, initial, batches, masks), _ = timed(
        lambda: make_stream(cp, edges, args.batches, args.batch_size, args.seed + 1))
    src, dst, w = all_edges
    print(f"R-MAT scale {args.scale}: {int(src.size)} edges (generated in {t_gen:.2f} s); "
          f"G0 {int(initial['src'].size)} edges; {args.batches} batches of {args.batch_size}", flush=True)
    source = int(cp.bincount(initial["src"]).argmax())
    makers = {"sssp": lambda: cgs.SSSP(source), "bfs": lambda: cgs.BFS(source), "wcc": lambda: cgs.WCC(),
              "pagerank": lambda: cgs.PageRank(tol=args.tol)}
    results = {"device": device, "args": vars(args), "queries": {}}
    failures = []
    for kind in args.queries.split(","):
        g, t_build = timed(lambda: cgs.StreamGraph.from_edgelist(to_frame(initial), weight="weight",
                                                                  backend="gpu"))
        q, t_track = timed(lambda g=g, kind=kind: g.track(makers[kind]()))
        baseline = PylibcugraphBaseline(plc, cp, epsilon=args.tol) if plc else None
        if baseline is not None and kind == "pagerank":     # warm start from G0's ranks
            try:
                baseline.run(kind, initial["src"], initial["dst"], initial["weight"], source,
                             cp.array(g.vertices().values, copy=True))
            except Exception as error:  # noqa: BLE001  (pylibcugraph raises many types)
                print("baseline warm-up failed:", error, flush=True)
        rows = []
        for b, (batch, mask) in enumerate(zip(batches, masks)):
            frame = to_frame(batch)
            report, t_apply = timed(lambda g=g, frame=frame: g.apply(frame, weight="weight"))
            row = {"batch": b, "apply_s": t_apply, "report": report.to_dict()}
            if baseline is not None:
                try:
                    base, t_base = baseline.run(kind, src[mask], dst[mask], w[mask], source,
                                                cp.array(g.vertices().values, copy=True))
                    row["baseline_s"] = t_base
                    problem = cross_check(kind, q.result(), base, args.tol)
                except Exception as error:  # noqa: BLE001  keep the engine's figures; report the baseline's fault
                    problem = f"baseline failed: {type(error).__name__}: {error}"
                if problem:
                    failures.append(f"{kind} batch {b}: {problem}")
                    print("MISMATCH", problem, flush=True)
            rows.append(row)
            print(f"{kind} batch {b}: apply {1e3 * t_apply:.2f} ms"
                  + (f", pylibcugraph {1e3 * row['baseline_s']:.2f} ms" if "baseline_s" in row else "")
                  + f"  {report!r}", flush=True)
        apply_ms = 1e3 * np.mean([r["apply_s"] for r in rows])
        measured = [r["baseline_s"] for r in rows if "baseline_s" in r]
        base_ms = 1e3 * np.mean(measured) if measured else float("nan")
        results["queries"][kind] = {"build_s": t_build, "track_s": t_track, "batches": rows,
                                    "mean_apply_ms": apply_ms, "mean_baseline_ms": base_ms}
        del g, q
        cp.get_default_memory_pool().free_all_blocks()
        engine_memory_pool().free_all_blocks()

    if args.ingest_rows:
        g = cgs.StreamGraph.from_edgelist(to_frame(initial), weight="weight", backend="gpu")
        n = 2 ** args.scale
        rng = cp.random.RandomState(args.seed + 7)
        batch = to_frame({"src": rng.randint(0, n, args.ingest_rows, dtype=cp.int64),
                          "dst": rng.randint(0, n, args.ingest_rows, dtype=cp.int64),
                          "weight": rng.uniform(1, 64, args.ingest_rows).astype(cp.float32),
                          "op": cp.ones(args.ingest_rows, dtype=cp.int8)})
        report, t = timed(lambda: g.apply(batch, weight="weight"))
        results["ingest"] = {"rows": args.ingest_rows, "seconds": t, "updates_per_s": args.ingest_rows / t,
                             "report": report.to_dict()}
        print(f"ingest: {args.ingest_rows} rows in {1e3 * t:.1f} ms = {args.ingest_rows / t / 1e6:.1f}M updates/s "
              f"{report!r}", flush=True)

    print("\n| query | mean apply (ms) | pylibcugraph (ms) | ratio | device |\n|---|---|---|---|---|")
    for kind, r in results["queries"].items():
        ratio = r["mean_baseline_ms"] / r["mean_apply_ms"]
        print(f"| {kind} | {r['mean_apply_ms']:.2f} | {r['mean_baseline_ms']:.2f} | {ratio:.1f}x | {device} |")
    results["failures"] = failures
    results["machine"] = {"python": platform.python_version(), "cupy": cp.__version__}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1, default=float)
    if failures:
        print("FAILED cross-checks:", *failures, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
