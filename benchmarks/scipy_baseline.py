"""Recomputation from scratch with SciPy: what one does today without the engine.

For every snapshot, build a ``scipy.sparse.csr_matrix`` from the snapshot's
edge arrays (timed) and run ``dijkstra`` (SSSP), ``breadth_first_order``
(BFS), ``connected_components(connection="weak")`` (WCC) or a sparse PageRank
power iteration (cold, and warm-started from the previous snapshot's ranks).
The snapshot's arrays come from :class:`cugraph_stream.verify.EdgeSnapshot`
(kept with NumPy, independent of the engine; not timed).
"""

from __future__ import annotations

from time import perf_counter

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order, connected_components, dijkstra

from cugraph_stream.verify import bfs_levels, pagerank_operator, reference_pagerank


class SciPyBaseline:
    """Recompute one query from scratch on every snapshot, timing each step.

    Parameters
    ----------
    kind : {"sssp", "bfs", "wcc", "pagerank"}
    source : int or None
        External id of the source vertex (SSSP, BFS).
    alpha, tol : float
        PageRank damping factor and L1 error bound.

    ``run(snapshot)`` returns a dict with ``csr_s`` (build), ``algo_s``,
    ``baseline_s`` (their sum) and ``reference`` (the result in the format of
    :mod:`cugraph_stream.verify`'s references, rows in sorted vertex order);
    PageRank adds ``iterations`` and, from the second snapshot on, the
    warm-started ``warm_algo_s``, ``warm_iterations`` and ``warm_s``.
    """

    def __init__(self, kind, source, alpha, tol):
        self.kind = kind
        self.source = source
        self.alpha = alpha
        self.tol = tol
        self._prev = None  # (vertices, ranks) of the previous snapshot (warm start)

    def run(self, snapshot):
        src, dst, w = snapshot.coo()  # arrays of the snapshot: not timed
        n = snapshot.num_vertices
        vertices = snapshot.vertices()
        out = {}
        if self.kind == "pagerank":
            t0 = perf_counter()
            op = pagerank_operator(src, dst, n)
            out["csr_s"] = perf_counter() - t0
            t0 = perf_counter()
            cold = reference_pagerank(op, alpha=self.alpha, tol=self.tol)
            out["algo_s"] = perf_counter() - t0
            out["iterations"] = cold["iterations"]
            if self._prev is not None:
                t0 = perf_counter()
                x0 = np.full(n, 1.0 / n)
                prev_v, prev_x = self._prev
                pos = np.minimum(np.searchsorted(vertices, prev_v), n - 1)
                hit = vertices[pos] == prev_v
                x0[pos[hit]] = prev_x[hit]
                warm = reference_pagerank(op, alpha=self.alpha, tol=self.tol, x0=x0)
                out["warm_algo_s"] = perf_counter() - t0
                out["warm_iterations"] = warm["iterations"]
                out["warm_s"] = out["csr_s"] + out["warm_algo_s"]
            else:
                warm = cold
            self._prev = (vertices.copy(), warm["pagerank"])
            out["reference"] = cold
        else:
            s = int(np.searchsorted(vertices, self.source)) if self.source is not None else None
            t0 = perf_counter()
            csr = scipy.sparse.csr_matrix((w, (src, dst)), shape=(n, n))
            out["csr_s"] = perf_counter() - t0
            t0 = perf_counter()
            if self.kind == "sssp":
                dist, pred = dijkstra(csr, directed=True, indices=s, return_predecessors=True)
                out["algo_s"] = perf_counter() - t0
                out["reference"] = {"distance": dist, "predecessor": pred}
            elif self.kind == "bfs":
                order, pred = breadth_first_order(csr, s, directed=True,
                                                  return_predecessors=True)
                out["algo_s"] = perf_counter() - t0
                # Levels from the BFS tree (SciPy gives no distances): not timed.
                out["reference"] = {"distance": bfs_levels(order, pred, n)}
            else:
                _, labels = connected_components(csr, directed=True, connection="weak")
                out["algo_s"] = perf_counter() - t0
                out["reference"] = {"component": labels}
        out["baseline_s"] = out["csr_s"] + out["algo_s"]
        return out
