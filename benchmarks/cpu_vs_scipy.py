"""CPU engine against recomputation from scratch with SciPy, batch by batch.

Protocol (Grapin's evaluation): an R-MAT graph (a=0.57, b=0.19, c=0.19,
weights uniform in [1, 64)) is split by :func:`cugraph_stream.datasets.mixed_stream`
into an initial graph and batches of mixed insertions and deletions.  For
each query kind a fresh ``StreamGraph`` (CPU backend) tracks one query
(SSSP/BFS from the vertex with the largest out-degree) and every batch is
timed twice:

* ``apply``: ``g.apply(batch)``, which leaves the tracked query exact;
* ``baseline``: what one would do without the engine: build a
  ``scipy.sparse.csr_matrix`` from the current edge arrays (timed) and run
  ``dijkstra`` (SSSP), ``breadth_first_order`` (BFS),
  ``connected_components(connection="weak")`` (WCC) or a sparse PageRank
  power iteration (cold, and warm-started from the previous snapshot's
  ranks) on it.

Then the same batches are applied back to back to a second graph from G0,
each timed with nothing between them (:func:`run_back_to_back`; its result
must equal the checked graph's): the engine's time for a stream applied as it
arrives, beside the mean baseline, as ``gpu_vs_pylibcugraph`` reports it
(``--no-back-to-back`` skips it).

The baseline's edge arrays are kept by the benchmark with NumPy from the same
rows (not read back from the engine, and not timed).  After every batch the
engine's result is checked against the baseline's; a mismatch makes the run
exit with status 1.  Finally one large batch of insert rows is applied to a
graph with no query tracked, for the raw update rate.  The stream of each
kind and the large batch start after a full garbage collection, untimed
(``benchmarks.common.collect_garbage``).

Run ``python -m benchmarks.cpu_vs_scipy --help`` for the options.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from time import perf_counter

import numpy as np

import cugraph_stream as cgs
from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot, check_edges, check_result

from .common import (
    choice_list,
    collect_garbage,
    json_default,
    make_query,
    positive,
    progress,
    versions,
    write,
)
from .common import machine_info as _machine
from .scipy_baseline import SciPyBaseline

KINDS = ("sssp", "bfs", "wcc", "pagerank")
SMALL_SCALE = 12


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------

def _scale(text):
    if text == "small":
        return SMALL_SCALE
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'small', got {text!r}") from None
    if not 1 <= value <= 31:
        raise argparse.ArgumentTypeError(f"must be in [1, 31], got {value}")
    return value


_queries = choice_list(KINDS, "query kind(s)")


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.cpu_vs_scipy",
        description="Time StreamGraph.apply (CPU backend) against SciPy recomputation.",
    )
    p.add_argument("--scale", type=_scale, default=20,
                   help=f"R-MAT scale, or 'small' (= {SMALL_SCALE}); default 20")
    p.add_argument("--edge-factor", type=positive(int), default=16)
    p.add_argument("--batches", type=positive(int), default=10)
    p.add_argument("--batch-size", type=positive(int), default=10000)
    p.add_argument("--delete-fraction", type=float, default=0.5)
    p.add_argument("--queries", type=_queries, default=list(KINDS),
                   help="comma-separated subset of " + ",".join(KINDS))
    p.add_argument("--mode", choices=("auto", "incremental", "recompute"), default="auto",
                   help="mode of the tracked queries (default auto, StreamGraph's default: the cost model "
                        "picks the incremental update or a recomputation, PageRank's a warm restart, "
                        "per batch; before 2026-11-28 the default was incremental)")
    p.add_argument("--alpha", type=float, default=0.85, help="PageRank damping factor")
    p.add_argument("--tol", type=positive(float), default=1e-6,
                   help="PageRank L1 tolerance, engine and baseline alike (default 1e-6)")
    p.add_argument("--ingest-rows", type=int, default=None,
                   help="rows of the ingestion batch (default min(1000000, edge_factor * "
                        "2**scale); 0 skips it)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-back-to-back", dest="back_to_back", action="store_false",
                   help="skip applying the same batches again back to back (see run_back_to_back)")
    p.add_argument("--out", default=None,
                   help="JSON file for all figures (default results/cpu_vs_scipy_s<scale>.json)")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    args = p.parse_args(argv)
    if not 0.0 <= args.delete_fraction <= 1.0:
        p.error(f"--delete-fraction must be in [0, 1], got {args.delete_fraction}")
    if not 0.0 < args.alpha < 1.0:
        p.error(f"--alpha must be in (0, 1), got {args.alpha}")
    if args.ingest_rows is None:
        args.ingest_rows = min(1_000_000, args.edge_factor << args.scale)
    if args.ingest_rows < 0:
        p.error(f"--ingest-rows must be at least 0, got {args.ingest_rows}")
    if args.out is None:
        args.out = os.path.join("results", f"cpu_vs_scipy_s{args.scale}.json")
    return args


def machine_info():
    """This machine and the versions of the packages the run uses."""
    return {**_machine(), **versions(("numpy", "scipy", "pandas", "cugraph_stream"))}


# ---------------------------------------------------------------------------
# one query kind over the whole stream
# ---------------------------------------------------------------------------

_HEADER = (f"{'query':<9} {'batch':>5} {'rows':>7} {'apply ms':>10} {'baseline ms':>12} "
           f"{'speedup':>8} {'csr ms':>8} {'edges scanned':>14} {'check':>6}")


def _line(kind, i, row):
    speed = row["baseline_s"] / row["apply_s"] if row["apply_s"] > 0 else math.inf
    extra = ""
    if "warm_s" in row:
        extra = f"  warm {1e3 * row['warm_s']:.1f} ms ({row['warm_iterations']} it)"
    return (f"{kind:<9} {i:>5} {row['rows']:>7} {1e3 * row['apply_s']:>10.2f} "
            f"{1e3 * row['baseline_s']:>12.2f} {speed:>7.1f}x {1e3 * row['csr_s']:>8.1f} "
            f"{row['edges_scanned']:>14} {'ok' if not row['problems'] else 'FAIL':>6}{extra}")


def run_kind(kind, stream, snapshot0, source, args, check_store=False):
    """Stream all batches into a fresh graph tracking one ``kind`` query."""
    t0 = perf_counter()
    g = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst",
                                      weight="weight", directed=True, backend="cpu",
                                      weight_dtype="float32")
    build_s = perf_counter() - t0
    t0 = perf_counter()
    q = g.track(make_query(kind, source, args.mode, args.alpha, args.tol))
    track_s = perf_counter() - t0
    src = None if kind in ("wcc", "pagerank") else source

    snapshot = snapshot0.copy()
    baseline = SciPyBaseline(kind, src, args.alpha, args.tol)
    first = baseline.run(snapshot)
    problems0 = check_result(kind, q.result(), snapshot, source=src, alpha=args.alpha,
                             tol=args.tol, reference=first.pop("reference"))
    record = {"kind": kind, "build_s": build_s, "track_s": track_s,
              "initial": {**first, "problems": problems0}, "batches": []}
    if problems0:
        write(f"{kind}: initial result differs from the baseline: {problems0}")
    write(_HEADER)
    collect_garbage()       # (the setup's garbage, not inside a timed batch of either side)
    for i, batch in enumerate(progress(stream, len(stream), kind, args.no_progress)):
        t0 = perf_counter()
        report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
        apply_s = perf_counter() - t0
        snapshot.apply(batch, weight="weight", op="op")  # the baseline's arrays: not timed
        base = baseline.run(snapshot)
        reference = base.pop("reference")
        problems = check_result(kind, q.result(), snapshot, source=src, alpha=args.alpha,
                                tol=args.tol, reference=reference)
        row = {"batch": i, "rows": len(batch), "apply_s": apply_s,
               "report_total_s": report.total_s, "edges_scanned": report.edges_scanned,
               "inserted": report.inserted, "deleted": report.deleted,
               "invalidated": report.invalidated, "activated": report.activated,
               "times": dict(report.times), **base, "problems": problems}
        if kind == "pagerank":
            row["reference_error"] = float(reference["error"])
        record["batches"].append(row)
        write(_line(kind, i, row))
        for p in problems:
            write(f"    MISMATCH {kind} batch {i}: {p}")
    if args.back_to_back:
        record["back_to_back_s"], record["back_to_back_problems"] = run_back_to_back(kind, stream, source, args, q)
        for p in record["back_to_back_problems"]:
            write(f"    MISMATCH {kind} back to back: {p}")
    if check_store:
        t0 = perf_counter()
        record["edges_problems"] = check_edges(g.edges(), snapshot)
        for p in record["edges_problems"]:
            write(f"    MISMATCH edges(): {p}")
        record["edges_check_s"] = perf_counter() - t0
    g.untrack(q)
    return g, record


def run_back_to_back(kind, stream, source, args, checked_query):
    """The same batches applied back to back to another graph from G0, each timed
    with nothing between them; its result must then equal ``checked_query``'s
    (PageRank's within twice ``tol``: its sums run in no fixed order).
    Returns ``(seconds of each batch, problems)``.

    Why: between the checked run's batches run SciPy and the cross-check,
    which evict the engine's store and code from the CPU's caches (R-MAT 16
    on this project's VM: about 3.2 ms a 10,000-row SSSP batch alone, 5 ms
    between SciPy's runs); a stream applied as it arrives, with no
    recomputation beside it, runs as here.  ``gpu_vs_pylibcugraph`` reports
    the same pair of figures."""
    from .ab_constants import agree, values_of

    g = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst", weight="weight",
                                      directed=True, backend="cpu", weight_dtype="float32")
    q = g.track(make_query(kind, source, args.mode, args.alpha, args.tol))
    batches = list(stream)
    collect_garbage()
    seconds = []
    for batch in batches:
        t0 = perf_counter()
        g.apply(batch, source="src", destination="dst", weight="weight", op="op")
        seconds.append(perf_counter() - t0)
    same = agree(kind, values_of(q), values_of(checked_query), tol=args.tol)
    write(f"{kind} back to back: {len(seconds)} batches, median {1e3 * np.median(seconds):.2f} ms, "
          f"mean {1e3 * np.mean(seconds):.2f} ms")
    return seconds, [] if same else ["results differ from the checked run's"]


def ingestion(g, args):
    """Apply one large batch of insert rows to ``g`` (no query tracked)."""
    rows = args.ingest_rows
    ef = max(1, -(-2 * rows // (1 << args.scale)))
    pool = rmat(args.scale, edge_factor=ef, seed=args.seed + 1)
    rng = np.random.default_rng(args.seed + 1)
    pick = rng.choice(len(pool), size=min(rows, len(pool)), replace=False)
    batch = pool.take(pick).reset_index(drop=True)
    batch["op"] = np.int8(1)
    collect_garbage()
    t0 = perf_counter()
    report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
    apply_s = perf_counter() - t0
    return {"rows": len(batch), "apply_s": apply_s, "rows_per_s": len(batch) / apply_s,
            "inserted": report.inserted, "weight_updated": report.weight_updated,
            "unchanged": report.unchanged, "new_vertices": report.new_vertices,
            "times": dict(report.times)}


# ---------------------------------------------------------------------------
# summary
# ---------------------------------------------------------------------------

def summarize(records, num_edges):
    rows = []
    for rec in records:
        b = rec["batches"]
        if not b:
            continue
        apply_ms = 1e3 * float(np.mean([r["apply_s"] for r in b]))
        base_ms = 1e3 * float(np.mean([r["baseline_s"] for r in b]))
        apply_med = 1e3 * float(np.median([r["apply_s"] for r in b]))
        base_med = 1e3 * float(np.median([r["baseline_s"] for r in b]))
        csr_ms = 1e3 * float(np.mean([r["csr_s"] for r in b]))
        scanned = float(np.mean([r["edges_scanned"] for r in b]))
        ok = not any(r["problems"] for r in b) and not rec["initial"]["problems"]
        ok = ok and not rec.get("back_to_back_problems")
        rows.append({"query": rec["kind"], "apply_ms": apply_ms, "baseline_ms": base_ms,
                     "apply_median_ms": apply_med, "baseline_median_ms": base_med,
                     "csr_ms": csr_ms, "speedup": base_ms / apply_ms,
                     "edges_scanned": scanned, "scanned_fraction": scanned / max(num_edges, 1),
                     "ok": ok, **_back_to_back(rec.get("back_to_back_s"), base_ms)})
        if rec["kind"] == "pagerank" and any("warm_s" in r for r in b):
            b2b = _back_to_back(rec.get("back_to_back_s"), 1e3 * float(np.mean([r["warm_s"] for r in b
                                                                                 if "warm_s" in r])))
            warm = [r["warm_s"] for r in b if "warm_s" in r]
            warm_ms = 1e3 * float(np.mean(warm))
            rows.append({"query": "pagerank (warm baseline)", "apply_ms": apply_ms,
                         "baseline_ms": warm_ms, "apply_median_ms": apply_med,
                         "baseline_median_ms": 1e3 * float(np.median(warm)), "csr_ms": csr_ms,
                         "speedup": warm_ms / apply_ms, "edges_scanned": scanned,
                         "scanned_fraction": scanned / max(num_edges, 1), "ok": ok, **b2b})
    return rows


def _back_to_back(seconds, baseline_ms):
    """The back-to-back figures of a summary row (none where not run): the mean and
    median apply time and the mean baseline's ratio to that mean."""
    if not seconds:
        return {}
    mean_ms = 1e3 * float(np.mean(seconds))
    return {"apply_back_to_back_ms": mean_ms, "apply_back_to_back_median_ms": 1e3 * float(np.median(seconds)),
            "speedup_back_to_back": baseline_ms / mean_ms}


def markdown(summary, machine, config, ingest):
    lines = [
        (f"R-MAT scale {config['scale']}, edge factor {config['edge_factor']}: "
         f"{config['num_vertices']} vertices, {config['num_edges']} edges in G0; "
         f"{config['batches']} batches x {config['batch_size']} rows "
         f"({config['delete_fraction']:.0%} deletions); mode {config['mode']}"),
        "",
        ("| query | mean apply (ms) | mean baseline (ms) | of which CSR build (ms) "
         "| speedup (baseline/apply) | median apply / baseline (ms) "
         "| edges scanned / batch | scanned / \\|E\\| | check |"),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in summary:
        lines.append(
            f"| {r['query']} | {r['apply_ms']:.1f} | {r['baseline_ms']:.1f} | "
            f"{r['csr_ms']:.1f} | {r['speedup']:.1f}x | "
            f"{r['apply_median_ms']:.1f} / {r['baseline_median_ms']:.1f} | "
            f"{r['edges_scanned']:,.0f} | "
            f"{r['scanned_fraction']:.3f} | {'OK' if r['ok'] else 'MISMATCH'} |")
    b2b = [r for r in summary if "apply_back_to_back_ms" in r]
    if b2b:
        lines += ["", "The same batches applied back to back to another graph from G0 (nothing between them; "
                      "the baseline as above):", ""]
        lines += [f"* {r['query']}: mean {r['apply_back_to_back_ms']:.2f} ms, median "
                  f"{r['apply_back_to_back_median_ms']:.2f} ms, {r['speedup_back_to_back']:.1f}x" for r in b2b]
    if ingest:
        lines += ["", (f"Ingestion: one batch of {ingest['rows']:,} insert rows, no query "
                       f"tracked: {ingest['apply_s']:.2f} s = {ingest['rows_per_s']:,.0f} "
                       f"updates/s ({ingest['inserted']:,} new edges, "
                       f"{ingest['weight_updated']:,} weight updates).")]
    lines += ["", f"Initial build (from_edgelist, {config['num_edges']:,} edges): "
                  + ", ".join(f"{k} {v:.2f} s" for k, v in config["build_s"].items())]
    lines += ["", "Machine: " + "; ".join(f"{k} {v}" for k, v in machine.items())]
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    machine = machine_info()
    t0 = perf_counter()
    edges = rmat(args.scale, edge_factor=args.edge_factor, a=0.57, b=0.19, c=0.19,
                 seed=args.seed, weights=(1.0, 64.0))
    gen_s = perf_counter() - t0
    total = args.batches * args.batch_size
    if total > len(edges):
        print(f"error: --batches * --batch-size = {total} exceeds the {len(edges)} edges "
              f"of the graph", file=sys.stderr)
        return 2
    t0 = perf_counter()
    stream = mixed_stream(edges, args.batches, args.batch_size,
                          delete_fraction=args.delete_fraction, seed=args.seed)
    snapshot0 = EdgeSnapshot.from_frame(stream.initial, weight="weight")
    prep_s = perf_counter() - t0
    del edges
    initial_src = stream.initial["src"].to_numpy()
    source = int(np.argmax(np.bincount(initial_src))) if initial_src.size else 0
    print(f"R-MAT scale {args.scale}: {len(stream.initial):,} edges in G0, "
          f"{snapshot0.num_vertices:,} vertices; generated in {gen_s:.1f} s, stream and "
          f"baseline arrays in {prep_s:.1f} s; source {source}", flush=True)

    records = []
    g = None
    for j, kind in enumerate(args.queries):
        if g is not None:
            del g
        g, rec = run_kind(kind, stream, snapshot0, source, args, check_store=(j == 0))
        records.append(rec)

    ingest = None
    if args.ingest_rows > 0 and g is not None:
        ingest = ingestion(g, args)
        print(f"ingestion: {ingest['rows']:,} insert rows in {ingest['apply_s']:.2f} s = "
              f"{ingest['rows_per_s']:,.0f} updates/s", flush=True)

    config = {k: v for k, v in vars(args).items() if k not in ("out", "no_progress")}
    config.update(num_vertices=snapshot0.num_vertices, num_edges=len(stream.initial),
                  source=source, build_s={r["kind"]: r["build_s"] for r in records})
    summary = summarize(records, len(stream.initial))
    table = markdown(summary, machine, config, ingest)
    print()
    print(table)

    failed = [f"{r['kind']}" for r in records
              if r["initial"]["problems"] or any(b["problems"] for b in r["batches"])
              or r.get("edges_problems") or r.get("back_to_back_problems")]
    out_dir = os.path.dirname(args.out)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"config": config, "machine": machine, "summary": summary,
                   "ingestion": ingest, "runs": records, "markdown": table,
                   "ok": not failed}, f, indent=1, default=json_default)
    print(f"\nfigures written to {args.out}")
    if failed:
        print(f"FAILED: results differ from the SciPy baseline for {', '.join(failed)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
