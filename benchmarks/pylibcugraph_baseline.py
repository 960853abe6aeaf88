"""Recomputation from scratch with pylibcugraph on the GPU, and GPU harness helpers.

:class:`PylibcugraphBaseline` rebuilds each snapshot as a pylibcugraph
``SGGraph`` and runs ``sssp``, ``bfs``, ``weakly_connected_components`` (on
the symmetrised snapshot) or ``pagerank`` (warm-started from the previous
snapshot's ranks).  :func:`to_device_frame` and :func:`warm_up_gpu_engine`
are what a GPU benchmark does before timing anything.  CuPy, cuDF and
pylibcugraph are imported by the caller (the GPU kit provides the last two).
"""
from __future__ import annotations

from time import perf_counter

import numpy as np

from .common import sync_device, timed


def to_device_frame(columns):
    """A cuDF DataFrame of ``columns`` (dict of CuPy arrays), or the dict without cuDF."""
    try:
        import cudf
    except ImportError:
        return columns
    return cudf.DataFrame(columns)


def warm_up_gpu_engine(cgs, seed=0):
    """Compile every kernel the runs use before timing.

    The engine's CUDA sources compile as whole modules, but CuPy compiles
    each of its own elementwise and reduction kernels on first use (about a
    second apiece when none is in CuPy's disk cache), and some are used only
    on large frontiers (the per-step launches after the one-block phases),
    by the hot-list cache (eviction, compaction, consolidation) or by cuDF
    batches.  So the warm-up streams random batches, as cuDF frames where
    cuDF is installed, through a graph large enough for levels over the
    one-block limit, in every placement, with a cache of tiny chunks that
    evicts every batch.  A quarter of the rows start at 64 hubs, so lists
    outgrow their room and move (relocation), as R-MAT's hubs do.
    """
    import cupy

    rng = np.random.default_rng(seed)
    n, m, rows = 40_000, 400_000, 4_000

    def frame(size, deletes):
        op = np.where(rng.random(size) < deletes, -1, 1).astype(np.int8)
        src = np.where(rng.random(size) < 0.25, rng.integers(0, 64, size), rng.integers(0, n, size))
        return to_device_frame({"src": cupy.asarray(src),
                                "dst": cupy.asarray(rng.integers(0, n, size)),
                                "weight": cupy.asarray(rng.uniform(1, 64, size).astype(np.float32)),
                                "op": cupy.asarray(op)})

    edges = frame(m, 0.0)
    edges["src"][0] = 0                       # the queries' source is a vertex
    for placement, extra in (("device", {}), ("host", {}),
                             ("cached", {"cache_budget": 1 << 20, "chunk_bytes": 1 << 16})):
        g = cgs.StreamGraph.from_edgelist(edges, weight="weight", backend="gpu", placement=placement, **extra)
        for query in (cgs.SSSP(0), cgs.BFS(0), cgs.WCC(), cgs.PageRank()):
            g.track(query)
        for _ in range(4):
            g.apply(frame(rows, 0.5), weight="weight", op="op")
        g.remove_vertices([1, 2])
    sync_device()


class PylibcugraphBaseline:
    """pylibcugraph on one snapshot.

    ``run`` times the algorithm alone (as cuGraph users who keep the graph
    on the GPU see it); the ``SGGraph`` construction before it is timed
    separately in ``last_graph_s``.

    Parameters
    ----------
    plc : module
        ``pylibcugraph``.
    cp : module
        ``cupy``.
    alpha, epsilon : float
        PageRank damping factor and pylibcugraph's convergence threshold.
    """

    def __init__(self, plc, cp, alpha=0.85, epsilon=1e-6):
        self.plc, self.cp = plc, cp
        self.alpha, self.epsilon = alpha, epsilon
        self.handle = plc.ResourceHandle()
        self.vertices = None
        self.previous_ranks = None
        self.last_graph_s = 0.0

    def graph(self, src, dst, w, symmetric=False, transposed=False):
        plc = self.plc
        props = plc.GraphProperties(is_symmetric=symmetric, is_multigraph=False)
        # SGGraph reads its input arrays in place: keep them alive as long as the graph
        self.inputs = (src, dst, w)
        sync_device()
        t0 = perf_counter()
        g = plc.SGGraph(resource_handle=self.handle, graph_properties=props, src_or_offset_array=src,
                        dst_or_index_array=dst, weight_array=w, store_transposed=transposed, renumber=True,
                        do_expensive_check=False, vertices_array=self.vertices)
        sync_device()
        self.last_graph_s = perf_counter() - t0
        return g

    def run(self, kind, src, dst, w, source, vertices):
        """Recompute ``kind`` on the snapshot; ``vertices`` lists every vertex of
        the graph now (isolated ones count for PageRank; cuGraph needs every
        edge endpoint listed).  Returns ``(result dict of CuPy arrays, seconds)``."""
        plc, cp = self.plc, self.cp
        self.vertices = vertices
        if kind == "sssp":
            g = self.graph(src, dst, w)
            (v, d, _), t = timed(lambda: plc.sssp(self.handle, g, source, np.inf, True, False))
            return {"vertex": v, "distance": d}, t
        if kind == "bfs":
            g = self.graph(src, dst, None)
            start = cp.asarray([source], dtype=src.dtype)
            (d, _, v), t = timed(lambda: plc.bfs(self.handle, g, start, False, -1, True, False))
            return {"vertex": v, "distance": d}, t
        if kind == "wcc":
            key = cp.unique(cp.minimum(src, dst) * (2 ** 31) + cp.maximum(src, dst))
            a, b = key // (2 ** 31), key % (2 ** 31)
            loops = a == b
            g = self.graph(cp.concatenate((a, b[~loops])), cp.concatenate((b, a[~loops])), None, symmetric=True)
            (v, labels), t = timed(lambda: plc.weakly_connected_components(self.handle, g, None, None, None,
                                                                           None, False))
            return {"vertex": v, "labels": labels}, t
        if kind == "pagerank":
            g = self.graph(src, dst, None, transposed=True)
            guess_v, guess_r = self.previous_ranks if self.previous_ranks else (None, None)
            (v, r), t = timed(lambda: plc.pagerank(self.handle, g, None, None, guess_v, guess_r, self.alpha,
                                                    self.epsilon, 500, False))
            self.previous_ranks = (v, r)
            return {"vertex": v, "pagerank": r}, t
        raise ValueError(f"kind: unknown query kind {kind!r}")
