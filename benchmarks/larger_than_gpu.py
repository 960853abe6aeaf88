"""A graph larger than the GPU: R-MAT scale 27 in host memory, every snapshot certified (issue 19, deliverable 5).

    python -m benchmarks.larger_than_gpu                          # the lent H100: scale 27, edge factor 16
    python -m benchmarks.larger_than_gpu --scale 20 --pieces 8    # a quick check on the GPU
    python -m benchmarks.larger_than_gpu --backend cpu --scale 12 --pieces 4 --batch-size 1000

R-MAT scale 27 with edge factor 16 draws 2.15 billion edges (2.13 billion
after duplicates go): a store of 77 GB, 81 GB with both queries, where the
H100 has 79.2 GiB (85 GB) and ``placement="device"`` is estimated at 83.4
GiB, so the adjacency lives in pinned host memory (``--placement host``,
read in place by the GPU kernels; ``cached`` adds a GPU cache of the hot
lists).  Host memory is the binding constraint, so nothing holds the whole
edge list: the graph is :func:`cugraph_stream.datasets.rmat_pieces`
(``--pieces`` pieces, each regenerated from its seed whenever it is read,
weights a function of the edge) and ``from_edgelist`` loads it piece by
piece (``cugraph_stream.StreamGraph.from_edgelist`` of a sequence).  SSSP from ``--source`` (default vertex 0: the
hub of an R-MAT graph whose ids are not permuted) and PageRank
(``weighted=False``, tol 1e-6) are tracked, then ``--batches`` batches of
``--batch-size`` rows are applied: half deletes of present edges (rows of a
random piece, regenerated), half inserts between existing vertices (the
source of one random edge of that piece and the destination of another:
vertices drawn as often as they have edges), weights ``edge_weight``.

Every snapshot (after the load and after each batch) is certified exact
(``--check``, the default) by :mod:`benchmarks.certify`, streaming the
pieces again, never reading the engine's store: SSSP by Bellman's
conditions, PageRank by the residual of one power step (certified L1 error
``|Gx - x|_1 / (1 - alpha)``), plus the vertex set and the number of edges.
The certificate's setup (:func:`benchmarks.certify.summarize_base`: distinct
out-degrees and edges held by several pieces, a few passes over the pieces)
runs once before the load; a snapshot's check is one pass.  Check times are
printed apart and not counted in the engine's times.

Printed: the GPU's memory and what ``placement="device"`` would need
(``engine.placement.device_footprint``), the load (seconds, edges per
second, edges after the duplicates went), bytes per edge in total and per
device, the track times, per batch the apply time, SSSP and PageRank times
(``g.last_report``), host bytes read, cache hit ratio, syncs and launches,
and the certificates; then a line of means.  Each phase prints its time and
the time elapsed.  ``--pylibcugraph`` then frees the engine and tries
pylibcugraph on the same base graph (the pieces concatenated and
deduplicated on the device): its failure (out of memory) or its SSSP and
PageRank times.  ``--json PATH`` writes every figure.  The exit status is 1
when a certificate fails.
"""
from __future__ import annotations

import argparse
import gc
import json
import logging
import statistics
import sys
from time import perf_counter

import numpy as np

import cugraph_stream as cgs
from benchmarks.certify import (KEY_SHIFT, ChangeLog, certify_snapshot, certify_vertices, dense_column, edge_keys,
                                read_piece, summarize_base)
from benchmarks.common import (gpu_info, json_default, machine_info, make_query, positive, sync_device,
                               versions, write)
from cugraph_stream.datasets import DELETE, INSERT, edge_weight, rmat_pieces

#: PageRank as tracked here (weighted=False: the certificate's power step counts edges, not weights)
ALPHA, TOL = 0.85, 1e-6
#: bytes per edge the cache budget is a share of: neighbour and weight (4 + 4) per arc, two arcs
ADJACENCY_BYTES_PER_EDGE = 16


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.larger_than_gpu", description=__doc__.splitlines()[0],
                                epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=("cpu", "gpu"), default="gpu")
    p.add_argument("--scale", type=positive(int), default=27)
    p.add_argument("--edge-factor", type=positive(int), default=16)
    p.add_argument("--pieces", type=positive(int), default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--placement", choices=("host", "cached"), default="host")
    p.add_argument("--cache-fraction", type=positive(float), default=1 / 8,
                   help="with --placement cached: the cache budget as a share of the adjacency's neighbour "
                        f"and weight bytes ({ADJACENCY_BYTES_PER_EDGE} per drawn edge; default 1/8)")
    p.add_argument("--batches", type=int, default=10)
    p.add_argument("--batch-size", type=positive(int), default=10_000)
    p.add_argument("--piece-rows", type=positive(int), default=None,
                   help="rows from_edgelist loads at a time (its piece_rows; default: the loader's)")
    p.add_argument("--source", type=int, default=0,
                   help="SSSP source (default 0: the hub of an R-MAT graph whose ids are not permuted)")
    p.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                   help="certify every snapshot exact (default on; --no-check skips it)")
    p.add_argument("--check-range-rows", type=positive(int), default=None,
                   help="edge keys the certificate's setup holds at a time (default: 4 pieces' draws); "
                        "fewer: more passes over the pieces, less memory")
    p.add_argument("--pylibcugraph", action="store_true",
                   help="at the end, try pylibcugraph on the base graph (GPU; off by default)")
    p.add_argument("--log", action=argparse.BooleanOptionalAction, default=True,
                   help="print the package's DEBUG log to stderr with the seconds since the start "
                        "(the load's ranges, each call's phases; default on)")
    p.add_argument("--json", default=None, help="also write every figure to this JSON file")
    return p.parse_args(argv)


class PhaseClock:
    """Prints each phase's seconds and the seconds elapsed since the run began."""

    def __init__(self):
        self.start = perf_counter()
        self.phases = {}

    def done(self, name, since):
        seconds = perf_counter() - since
        self.phases[name] = self.phases.get(name, 0.0) + seconds
        write(f"  [{name}: {seconds:.1f} s; elapsed {perf_counter() - self.start:.1f} s]")
        return seconds


# ---------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------

def make_batch(pieces, log, rng, rows, xp):
    """A batch of ``rows`` rows: half deletes of present edges, half inserts.

    Deletes are rows of random pieces (regenerated) that the change log does not
    mark deleted; inserts join the source of one random row to the destination of
    another (existing vertices, drawn as often as they have edges), never a self
    loop nor an edge this batch deletes.  Every key appears once; weights are
    :func:`~cugraph_stream.datasets.rmat.edge_weight`; ``op`` is int8 ``1`` / ``-1``
    (``datasets.INSERT`` / ``DELETE``).  Returns a dict of ``xp`` arrays.
    """
    want_deletes, want_inserts = rows // 2, rows - rows // 2
    deletes, inserts = np.empty(0, np.int64), np.empty(0, np.int64)
    for _ in range(4 * len(pieces)):
        if deletes.size >= want_deletes and inserts.size >= want_inserts:
            break
        piece = read_piece(pieces, int(rng.integers(len(pieces))), xp)
        size = int(piece.keys.size)
        if size == 0:
            continue
        picks = xp.asarray(rng.integers(0, size, 2 * want_deletes + 1))
        candidates = _to_host(piece.keys[picks])
        changed, present = log.lookup(candidates)
        candidates = candidates[~changed | present]
        deletes = _first_new(np.concatenate((deletes, candidates)), want_deletes, inserts)
        ends = xp.asarray(rng.integers(0, size, (2, 2 * want_inserts + 1)))
        src, dst = _to_host(piece.src[ends[0]]), _to_host(piece.dst[ends[1]])
        candidates = edge_keys(np, src[src != dst], dst[src != dst])
        inserts = _first_new(np.concatenate((inserts, candidates)), want_inserts, deletes)
        del piece
    keys = np.concatenate((deletes, inserts))
    op = np.concatenate((np.full(deletes.size, DELETE), np.full(inserts.size, INSERT)))
    order = rng.permutation(keys.size)
    keys, op = keys[order], op[order]
    src, dst = keys >> KEY_SHIFT, keys & ((1 << KEY_SHIFT) - 1)
    batch = {"src": src, "dst": dst, "weight": edge_weight(np, src, dst), "op": op}
    return {name: xp.asarray(column) for name, column in batch.items()}


def _first_new(keys, count, exclude):
    """The first ``count`` distinct keys of ``keys`` (in order) not in ``exclude``."""
    _, first = np.unique(keys, return_index=True)
    distinct = keys[np.sort(first)]
    distinct = distinct[~np.isin(distinct, np.asarray(exclude, dtype=np.int64))]
    return distinct[:count]


def _to_host(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------

def batch_figures(report, wall_s, queries):
    """The figures of one batch from its ``BatchReport``: wall and engine seconds, each
    query's seconds (correct + compute) and path, host bytes, cache, syncs, launches."""
    per_query = {q.name: q for q in report.queries}
    figures = {"wall_s": wall_s, "total_s": report.total_s, "rows": report.rows,
               "inserted": report.inserted, "deleted": report.deleted, "unchanged": report.unchanged,
               "host_bytes": report.host_bytes, "cache_hit_ratio": report.cache_hit_ratio,
               "syncs": report.syncs, "launches": report.launches}
    for kind, query in queries.items():
        q = per_query.get(query.name)
        figures[f"{kind}_s"] = (q.correct_s + q.compute_s) if q is not None else float("nan")
        figures[f"{kind}_path"] = q.path if q is not None else None
    return figures


def certify(pieces, log, base, sssp, pagerank, g, source, xp, num_vertex_ids):
    """Certify the engine's SSSP and PageRank results and its vertex and edge counts on
    the snapshot ``pieces`` + ``log``; returns a dict of the outcome."""
    t0 = perf_counter()
    result = sssp.result()
    dist, _ = dense_column(result, "distance", num_vertex_ids, xp, np.inf)
    pred, vertices = dense_column(result, "predecessor", num_vertex_ids, xp, -1)
    del result
    ranks, _ = dense_column(pagerank.result(), "pagerank", num_vertex_ids, xp, 0.0)
    expected_vertices, missing, extra = certify_vertices(base, log, vertices, xp)
    del vertices
    sssp_cert, pagerank_cert = certify_snapshot(pieces, log, xp, base=base, sssp=(source, dist, pred),
                                                pagerank=(ranks, ALPHA, TOL))
    del dist, pred, ranks
    release_device_memory()
    edges = g.number_of_edges()
    counts_ok = missing == 0 and extra == 0 and pagerank_cert.edges == edges
    return {"passed": sssp_cert.passed and pagerank_cert.passed and counts_ok,
            "sssp": sssp_cert.summary(), "sssp_violations": sssp_cert.violations,
            "pagerank": pagerank_cert.summary(), "pagerank_residual_l1": pagerank_cert.residual_l1,
            "pagerank_error_bound": pagerank_cert.error_bound,
            "vertices": expected_vertices, "vertices_missing": missing, "vertices_extra": extra,
            "edges_certified": pagerank_cert.edges, "edges_engine": edges, "seconds": perf_counter() - t0}


def _mean(values):
    """The mean of the values that are not None (NaN when none is)."""
    known = [value for value in values if value is not None]
    return statistics.fmean(known) if known else float("nan")


def _check_line(check):
    verdict = "PASS" if check["passed"] else "FAIL"
    line = (f"    check {verdict} ({check['seconds']:.1f} s): SSSP {'exact' if 'NOT' not in check['sssp'] else 'NOT exact'}"
            f", PageRank certified L1 error <= {check['pagerank_error_bound']:.2e}")
    if not check["passed"]:
        line += (f"\n      {check['sssp']}\n      {check['pagerank']}\n      vertices {check['vertices']:,} "
                 f"(missing {check['vertices_missing']}, extra {check['vertices_extra']}), edges certified "
                 f"{check['edges_certified']:,} vs engine {check['edges_engine']:,}")
    return line


def _gib(n):
    return n / 2**30


def _size(n):
    """Bytes in GiB, or MiB below one GiB."""
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def describe_fit(info, footprint):
    """Lines on the GPU's memory against ``placement="device"``'s estimated footprint."""
    need = footprint.total
    if info is None or "memory_bytes" not in info:
        return [f"placement='device' would need about {_size(need)} of device memory "
                f"(adjacency {_size(footprint.adjacency)}, arc index {_size(footprint.index)}, "
                f"per vertex {_size(footprint.per_vertex)}); no GPU here"]
    have = info["memory_bytes"]
    verdict = "does NOT fit" if need > have else "fits"
    return [f"GPU: {info.get('name', '?')}, {_size(have)}",
            f"placement='device' would need about {_size(need)} (adjacency {_size(footprint.adjacency)}, "
            f"arc index {_size(footprint.index)}, per vertex {_size(footprint.per_vertex)}): {verdict}"]


# ---------------------------------------------------------------------------
# pylibcugraph
# ---------------------------------------------------------------------------

def try_pylibcugraph(pieces, source, base, xp):
    """pylibcugraph's SSSP and PageRank on the base graph, the pieces concatenated and
    deduplicated on the device; returns ``{"stage", "error"}`` where it fails (out of
    memory, most likely) or the seconds of each step."""
    try:
        import pylibcugraph as plc
    except ImportError as error:
        return {"stage": "import", "error": str(error)}
    from .pylibcugraph_baseline import PylibcugraphBaseline

    out, stage = {}, "concatenate"
    try:
        t0 = perf_counter()
        keys = xp.empty(int(pieces.rows), dtype=xp.int64)      # an upper bound of the rows
        filled = 0
        for i in range(len(pieces)):
            piece = read_piece(pieces, i, xp)
            keys[filled:filled + piece.keys.size] = piece.keys
            filled += int(piece.keys.size)
            del piece
        stage = "deduplicate"
        keys = xp.unique(keys[:filled])
        stage = "columns"
        src, dst = keys >> KEY_SHIFT, keys & ((1 << KEY_SHIFT) - 1)
        del keys
        weight = edge_weight(xp, src, dst)
        vertices = xp.flatnonzero(base.vertices) if base is not None else xp.unique(xp.concatenate((src, dst)))
        sync_device()
        out["prepare_s"] = perf_counter() - t0
        baseline = PylibcugraphBaseline(plc, xp, alpha=ALPHA, epsilon=TOL)
        for kind in ("sssp", "pagerank"):
            stage = kind
            _, seconds = baseline.run(kind, src, dst, weight, source, vertices)
            out[f"{kind}_graph_s"], out[f"{kind}_s"] = baseline.last_graph_s, seconds
            gc.collect()
    except Exception as error:          # out of memory, in CuPy or in pylibcugraph's C++: report it
        out.update(stage=stage, error=f"{type(error).__name__}: {str(error)[:300]}")
    return out


def release_device_memory():
    """Give the blocks CuPy's default pool and the engine's pool cache back to the
    device: the engine sizes its load from the free device memory, and the
    certificates need room next to the engine, so what either used must not
    stay held."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()
        from cugraph_stream.backends.gpu import engine_memory_pool

        engine_memory_pool().free_all_blocks()      # what the engine's pool keeps for its next batch


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

def main(argv=None):
    args = parse_args(argv)
    if not args.log:
        return run(args)
    logger = logging.getLogger("cugraph_stream")
    handler, level = logging.StreamHandler(sys.stderr), logger.level
    handler.setFormatter(logging.Formatter("%(relativeCreated)10.0f ms  %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        return run(args)
    finally:                # (a caller's logging, as it was)
        logger.removeHandler(handler)
        logger.setLevel(level)


def run(args):
    """The preset with parsed ``args`` (see :func:`parse_args`); the exit status."""
    from cugraph_stream.engine.placement import device_footprint

    clock = PhaseClock()
    pieces = rmat_pieces(args.scale, args.edge_factor, args.pieces, seed=args.seed, backend=args.backend)
    xp = pieces.xp
    results = {"config": vars(args), "machine": machine_info(), "gpu": gpu_info()}
    write(f"R-MAT scale {args.scale}, edge factor {args.edge_factor}: {pieces.rows:,} draws in {len(pieces)} "
          f"pieces; backend {args.backend}, placement {args.placement}; SSSP from {args.source}, "
          f"PageRank(weighted=False, tol={TOL:g})")
    write(f"host memory {_gib(results['machine']['memory_bytes'] or 0):.1f} GiB")

    base = None
    if args.check:
        t0 = perf_counter()
        base = summarize_base(pieces, xp, range_rows=args.check_range_rows)
        release_device_memory()
        write(f"certificate setup: {base.edges:,} distinct edges, {int(base.vertices.sum()):,} vertices, "
              f"{int(base.repeated_keys.size):,} edges in several pieces ({base.passes} passes over the "
              f"pieces, {_size(base.memory_bytes())})")
        results["check_setup"] = {"edges": base.edges, "vertices": int(base.vertices.sum()),
                                  "repeated_edges": int(base.repeated_keys.size), "passes": base.passes,
                                  "seconds": clock.done("check setup", t0)}
    edges_estimate = base.edges if base is not None else pieces.rows
    vertices_estimate = int(base.vertices.sum()) if base is not None else pieces.num_vertex_ids
    footprint = device_footprint(vertices_estimate, edges_estimate, directed=True, weight_dtype="float32",
                                 queries=2)
    for line in describe_fit(results["gpu"], footprint):
        write(line)
    results["device_footprint"] = {"adjacency": footprint.adjacency, "index": footprint.index,
                                   "per_vertex": footprint.per_vertex, "total": footprint.total}

    options = {"source": "src", "destination": "dst", "weight": "weight", "backend": args.backend,
               "placement": args.placement}
    if args.piece_rows is not None:
        options["piece_rows"] = args.piece_rows
    if args.placement == "cached":
        options["cache_budget"] = int(args.cache_fraction * pieces.rows * ADJACENCY_BYTES_PER_EDGE)
    sync_device()
    t0 = perf_counter()
    g = cgs.StreamGraph.from_edgelist(pieces, **options)
    sync_device()
    load_s = clock.done("load", t0)
    edges = g.number_of_edges()
    held = g.memory_bytes(per_device=True)
    write(f"load: {edges:,} edges after duplicates, {g.number_of_vertices():,} vertices in {load_s:.1f} s "
          f"= {pieces.rows / load_s / 1e6:.1f}M rows/s, {edges / load_s / 1e6:.1f}M edges/s")
    write(f"store: {g.memory_bytes() / edges:.1f} bytes per edge (device {held['device'] / edges:.1f}, "
          f"host {held['host'] / edges:.1f}); device {_size(held['device'])}, host {_size(held['host'])}")
    results["load"] = {"seconds": load_s, "edges": edges, "vertices": g.number_of_vertices(),
                       "phases_s": dict(g.last_report.times), "memory_bytes": held}

    queries, track_s = {}, {}
    for kind in ("sssp", "pagerank"):
        t0 = perf_counter()
        queries[kind] = g.track(make_query(kind, args.source, mode="auto", alpha=ALPHA, tol=TOL, weighted=False))
        sync_device()
        track_s[kind] = clock.done(f"track {kind}", t0)
    held = g.memory_bytes(per_device=True)
    write(f"with both queries: {g.memory_bytes() / edges:.1f} bytes per edge (device {held['device'] / edges:.1f}, "
          f"host {held['host'] / edges:.1f})")
    results["track_s"], results["memory_bytes_tracked"] = track_s, held

    log = ChangeLog()
    checks = []
    if args.check:
        t0 = perf_counter()
        checks.append(certify(pieces, log, base, queries["sssp"], queries["pagerank"], g, args.source, xp,
                              pieces.num_vertex_ids))
        write("snapshot 0 (the load):")
        write(_check_line(checks[-1]))
        clock.done("check", t0)

    rng = np.random.default_rng(args.seed + 1)
    records = []
    write(f"{args.batches} batches of {args.batch_size:,} rows (half deletes, half inserts):")
    for b in range(args.batches):
        t0 = perf_counter()
        batch = make_batch(pieces, log, rng, args.batch_size, xp)
        release_device_memory()
        make_s = perf_counter() - t0
        sync_device()
        t0 = perf_counter()
        report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
        sync_device()
        record = batch_figures(report, perf_counter() - t0, queries)
        record["make_s"] = make_s
        clock.phases["batches"] = clock.phases.get("batches", 0.0) + record["wall_s"]
        log.record(batch)
        del batch
        write(f"  batch {b}: apply {1e3 * record['wall_s']:.1f} ms (SSSP {1e3 * record['sssp_s']:.1f} ms "
              f"[{record['sssp_path']}], PageRank {1e3 * record['pagerank_s']:.1f} ms [{record['pagerank_path']}]), "
              f"host {record['host_bytes'] / 1e6:.1f} MB read, cache hit ratio {record['cache_hit_ratio']:.2f}, "
              f"{record['syncs']} syncs, {record['launches']} launches; +{record['inserted']} "
              f"-{record['deleted']} ={record['unchanged']}")
        if args.check:
            t0 = perf_counter()
            checks.append(certify(pieces, log, base, queries["sssp"], queries["pagerank"], g, args.source, xp,
                                  pieces.num_vertex_ids))
            write(_check_line(checks[-1]))
            clock.done("check", t0)
        records.append(record)
    results["batches"], results["checks"] = records, checks

    if records:
        means = {name: _mean(r[name] for r in records)
                 for name in ("wall_s", "sssp_s", "pagerank_s", "host_bytes", "cache_hit_ratio", "syncs",
                              "launches", "make_s")}
        results["means"] = means
        checked = (f"; {sum(c['passed'] for c in checks)}/{len(checks)} snapshots certified exact, mean check "
                   f"{statistics.fmean(c['seconds'] for c in checks):.1f} s" if checks else "; not checked")
        write(f"mean over {len(records)} batches: apply {1e3 * means['wall_s']:.1f} ms, SSSP "
              f"{1e3 * means['sssp_s']:.1f} ms, PageRank {1e3 * means['pagerank_s']:.1f} ms, host "
              f"{means['host_bytes'] / 1e6:.1f} MB, hit ratio {means['cache_hit_ratio']:.2f}, "
              f"{means['syncs']:.0f} syncs, {means['launches']:.0f} launches; making a batch "
              f"{means['make_s']:.2f} s{checked}")

    if args.pylibcugraph:
        del g, queries
        gc.collect()
        release_device_memory()
        t0 = perf_counter()
        outcome = try_pylibcugraph(pieces, args.source, base, xp)
        clock.done("pylibcugraph", t0)
        results["pylibcugraph"] = outcome
        if "error" in outcome:
            write(f"pylibcugraph on the base graph: failed at {outcome['stage']}: {outcome['error']}")
        else:
            write(f"pylibcugraph on the base graph: SSSP {outcome['sssp_s']:.2f} s (graph "
                  f"{outcome['sssp_graph_s']:.2f} s), PageRank {outcome['pagerank_s']:.2f} s (graph "
                  f"{outcome['pagerank_graph_s']:.2f} s)")

    results["phases_s"] = clock.phases
    results["versions"] = versions()
    write(f"elapsed {perf_counter() - clock.start:.1f} s: "
          + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in clock.phases.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=json_default)
    return 0 if all(c["passed"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
