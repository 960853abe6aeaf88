"""BFS recomputed from scratch per batch: the direction-optimising operator
(``Backend.bfs_levels``) against the generic push it replaced, and against
SciPy ``breadth_first_order`` (CPU) or pylibcugraph ``bfs`` (``--backend gpu``,
where importable) on the same snapshot, all in the same run.

An R-MAT graph (:func:`cugraph_stream.datasets.rmat`, Graph500 quadrants) is
split by :func:`~cugraph_stream.datasets.mixed_stream` into an initial graph
and batches of insertions and deletions.  Two graphs track
``BFS(source, mode="recompute")`` from the vertex of largest out-degree: one
as shipped (level by level), one with its engine's ``levels`` switched off
(the label-correcting push of ``ops.converge``, what BFS recomputes ran
before).  Per batch it prints the recompute time of each (the query's
``correct`` + ``compute`` phases of the ``BatchReport``), the baseline's
algorithm time (and its CSR build), and the ratios baseline / levels and
push / levels.  Distances of the two engines must agree with each other and
with the baseline; a mismatch exits with status 1.

    python -m benchmarks.bfs_recompute --scale 16 --batches 5
"""
from __future__ import annotations

import argparse
import statistics
import sys
from time import perf_counter

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order

import cugraph_stream as cgs
from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot, bfs_levels


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.bfs_recompute", description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=16, help="R-MAT scale (2**scale vertex ids)")
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--batches", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--undirected", action="store_true", help="an undirected graph (default: directed)")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def _sync(backend):
    if backend == "gpu":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


class _Baseline:
    """SciPy ``breadth_first_order`` (CPU) or pylibcugraph ``bfs`` (GPU) on a snapshot."""

    def __init__(self, backend, directed):
        self.directed = directed
        self.name = "scipy"
        self.plc = None
        if backend == "gpu":
            try:
                import cupy
                import pylibcugraph

                from .pylibcugraph_baseline import PylibcugraphBaseline
            except ImportError as error:
                print(f"pylibcugraph not importable ({error}): SciPy on the host is the baseline", flush=True)
            else:
                self.cp, self.name = cupy, "pylibcugraph"
                self.plc = PylibcugraphBaseline(pylibcugraph, cupy, variant="int32")

    def run(self, snapshot, source):
        """``(distances by sorted vertex, csr_s, algo_s)``."""
        src, dst, _ = snapshot.coo()
        vertices = snapshot.vertices()
        n = snapshot.num_vertices
        if not self.directed:
            src, dst = np.concatenate((src, dst)), np.concatenate((dst, src))
        if self.plc is not None:
            cp = self.cp
            ids = cp.asarray(vertices)
            result, algo_s = self.plc.run("bfs", cp.asarray(vertices[src]), cp.asarray(vertices[dst]), None,
                                          int(vertices[source]), ids)
            order = cp.argsort(result["vertex"])
            d = cp.asnumpy(result["distance"][order]).astype(np.int64)
            return np.where(d >= np.iinfo(np.int32).max, -1, d), self.plc.last_graph_s, algo_s
        t0 = perf_counter()
        csr = scipy.sparse.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n))
        csr_s = perf_counter() - t0
        t0 = perf_counter()
        order, pred = breadth_first_order(csr, source, directed=True, return_predecessors=True)
        algo_s = perf_counter() - t0
        d = np.full(n, -1, np.int64)
        d[order] = bfs_levels(order, pred, n)[order]
        return d, csr_s, algo_s


def _recompute_s(report, query):
    return report.times.get(f"{query.name}:correct", 0.0) + report.times.get(f"{query.name}:compute", 0.0)


def _distances(query):
    frame = query.result()
    if hasattr(frame, "to_pandas"):
        frame = frame.to_pandas()
    d = frame["distance"].to_numpy().astype(np.int64)
    return np.where(d == np.iinfo(np.int32).max, -1, d)


def main(argv=None):
    args = parse_args(argv)
    directed = not args.undirected
    edges = rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed, weights=None, directed=directed)
    stream = mixed_stream(edges, args.batches, args.batch_size, seed=args.seed, directed=directed, weight=None)
    initial_src = stream.initial["src"].to_numpy()
    source = int(np.argmax(np.bincount(initial_src)))
    snapshot = EdgeSnapshot.from_frame(stream.initial, weight=None, directed=directed)
    graphs, queries = {}, {}
    for variant in ("levels", "push"):
        g = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst", directed=directed,
                                          backend=args.backend)
        queries[variant] = g.track(cgs.BFS(source, mode="recompute"))
        graphs[variant] = g
    queries["push"].engine.levels = False           # the generic push: BFS recomputes before bfs_levels
    baseline = _Baseline(args.backend, directed)
    print(f"R-MAT scale {args.scale} ({'directed' if directed else 'undirected'}): {len(stream.initial):,} edges, "
          f"source {source}, backend {args.backend}, {args.batches} batches of {args.batch_size} rows; "
          f"baseline {baseline.name}", flush=True)
    print(f"{'batch':>5} {'levels ms':>10} {'push ms':>10} {baseline.name + ' ms':>16} {'csr ms':>8} "
          f"{'base/levels':>11} {'push/levels':>11} {'reached':>9}", flush=True)
    rows, failed = [], False
    for i, batch in enumerate(stream):
        times = {}
        for variant, g in graphs.items():
            report = g.apply(batch, source="src", destination="dst", op="op")
            _sync(args.backend)
            times[variant] = _recompute_s(report, queries[variant])
        snapshot.apply(batch, op="op")
        vertex_ids = snapshot.vertices()
        want, csr_s, algo_s = baseline.run(snapshot, int(np.searchsorted(vertex_ids, source)))
        got = {v: _distances(q) for v, q in queries.items()}
        if not (np.array_equal(got["levels"], got["push"]) and np.array_equal(got["levels"], want)):
            print(f"    MISMATCH at batch {i}: distances differ", flush=True)
            failed = True
        row = (times["levels"], times["push"], algo_s, csr_s)
        rows.append(row)
        print(f"{i:>5} {1e3 * row[0]:>10.2f} {1e3 * row[1]:>10.2f} {1e3 * algo_s:>16.2f} {1e3 * csr_s:>8.2f} "
              f"{algo_s / row[0]:>11.2f} {row[1] / row[0]:>11.2f} {int((want >= 0).sum()):>9,}", flush=True)
    if rows:
        med = [statistics.median(c) for c in zip(*rows)]
        print(f"median: levels {1e3 * med[0]:.2f} ms, push {1e3 * med[1]:.2f} ms, {baseline.name} "
              f"{1e3 * med[2]:.2f} ms (+ csr {1e3 * med[3]:.2f} ms); {baseline.name}/levels "
              f"{med[2] / med[0]:.2f}, push/levels {med[1] / med[0]:.2f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
