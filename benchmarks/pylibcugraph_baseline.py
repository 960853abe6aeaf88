"""Recomputation from scratch with pylibcugraph on the GPU, and GPU harness helpers.

:class:`PylibcugraphBaseline` rebuilds each snapshot as a pylibcugraph
``SGGraph`` and runs ``sssp``, ``bfs``, ``weakly_connected_components`` (on
the symmetrised snapshot) or ``pagerank`` (warm-started from the previous
snapshot's ranks), in one of three :data:`VARIANTS`:

* ``"int32"``: pylibcugraph at its fastest where renumbering does not pay.
  The snapshot's vertices are numbered 0..n-1 (their rank among the sorted
  vertex ids, outside the timed region) and the graph is built on int32
  arrays with ``renumber=False`` and ``vertices_array = arange(n)``: no
  renumbering inside the graph build, no un-renumbering of the results
  inside the algorithm call, 32-bit ids and edge offsets.  Results are
  mapped back to the caller's ids after the clock stops.  Usable while
  :func:`int32_fits`.
* ``"int32-renumbered"``: the same int32 numbering, but ``renumber=True``.
  Only a renumbered graph gets cuGraph's degree segments (its build sorts
  vertices by degree: ``segment_offsets``, which some kernels use for hub
  vertices), at the price of translating ids inside the algorithm call;
  which variant is faster depends on the algorithm and the graph, so both
  run.
* ``"int64-renumbered"`` (the default, what the ``stream`` suite runs): the
  caller's int64 ids, ``renumber=True``; the algorithm call then includes
  pylibcugraph's translation of the source, the warm start and the results
  between its internal and the caller's ids.

:func:`to_device_frame` and :func:`warm_up_gpu_engine` are what a GPU
benchmark does before timing anything.  CuPy, cuDF and pylibcugraph are
imported by the caller (the GPU kit provides the last two); ``cp`` may be
NumPy where a test stands in for pylibcugraph.
"""
from __future__ import annotations

from time import perf_counter

import numpy as np

from .common import sync_device, timed

#: the ways a snapshot is handed to pylibcugraph (see the module docstring)
VARIANTS = ("int32", "int32-renumbered", "int64-renumbered")


def int32_fits(num_vertices, num_edges):
    """Whether a snapshot can be an int32 graph: vertex numbers and edge
    offsets below 2^31 - 1 (edges counted twice: WCC runs on the symmetrised
    snapshot)."""
    limit = int(np.iinfo(np.int32).max)
    return int(num_vertices) < limit and 2 * int(num_edges) < limit


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
    evicts every batch, one batch naming more new vertices than one block
    sorts (a large ingest's), then single-row pandas batches (the latency
    mode's input).  A quarter of the rows start at 64 hubs, so lists outgrow their
    room and move (relocation), as R-MAT's hubs do.
    """
    import cupy
    import pandas as pd

    rng = np.random.default_rng(seed)
    n, m, rows = 40_000, 400_000, 4_000

    def columns(size, deletes):
        op = np.where(rng.random(size) < deletes, -1, 1).astype(np.int8)
        src = np.where(rng.random(size) < 0.25, rng.integers(0, 64, size), rng.integers(0, n, size))
        return {"src": src, "dst": rng.integers(0, n, size),
                "weight": rng.uniform(1, 64, size).astype(np.float32), "op": op}

    def frame(size, deletes):
        return to_device_frame({k: cupy.asarray(v) for k, v in columns(size, deletes).items()})

    edges = frame(m, 0.0)
    edges["src"][0] = 0                       # the queries' source is a vertex
    for placement, extra in (("device", {}), ("host", {}),
                             ("cached", {"cache_budget": 1 << 20, "chunk_bytes": 1 << 16})):
        g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="weight", backend="gpu", placement=placement, **extra)
        for query in (cgs.SSSP(0), cgs.BFS(0), cgs.WCC(), cgs.PageRank()):
            g.track(query)
        for _ in range(4):
            g.apply(frame(rows, 0.5), weight="weight", op="op")
        # inserts naming more new vertices than one block sorts (the ingest's path: without
        # it the first ingest of a machine compiled CuPy's sort, 131 ms against 8.9 ms after)
        fresh = frame(3 * rows, 0.0)
        fresh["src"] += n
        g.apply(fresh, weight="weight", op="op")
        for _ in range(8):
            g.apply(pd.DataFrame(columns(1, 0.5)), weight="weight", op="op")
        g.remove_vertices([1, 2])
    sync_device()


class PylibcugraphBaseline:
    """pylibcugraph on one snapshot.

    ``run`` times the algorithm alone (as cuGraph users who keep the graph
    on the GPU see it); the ``SGGraph`` construction before it is timed
    separately in ``last_graph_s``, and the int32 variants' numbering of the
    snapshot (and of its results back) in neither.

    Parameters
    ----------
    plc : module
        ``pylibcugraph``.
    cp : module
        ``cupy`` (the array module of the snapshots' arrays).
    alpha, epsilon : float
        PageRank damping factor and pylibcugraph's convergence threshold.
    variant : {"int32", "int32-renumbered", "int64-renumbered"}
        How the snapshot is handed to pylibcugraph (module docstring).
    """

    def __init__(self, plc, cp, alpha=0.85, epsilon=1e-6, variant="int64-renumbered"):
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.plc, self.cp = plc, cp
        self.alpha, self.epsilon = alpha, epsilon
        self.variant = variant
        self.handle = plc.ResourceHandle()
        self.vertices = None          # the graph's vertices_array, in the graph's numbering
        #: (vertex ids as the caller numbers them, ranks) of the last PageRank: the next warm start
        self.previous_ranks = None
        self.last_graph_s = 0.0

    def graph(self, src, dst, w, symmetric=False, transposed=False):
        """An ``SGGraph`` of ``src, dst, w`` (already in the graph's numbering)."""
        plc = self.plc
        props = plc.GraphProperties(is_symmetric=symmetric, is_multigraph=False)
        # SGGraph reads its input arrays in place: keep them alive as long as the graph
        self.inputs = (src, dst, w)
        sync_device()
        t0 = perf_counter()
        g = plc.SGGraph(resource_handle=self.handle, graph_properties=props, src_or_offset_array=src,
                        dst_or_index_array=dst, weight_array=w, store_transposed=transposed,
                        renumber=self.variant != "int32", do_expensive_check=False,
                        vertices_array=self.vertices)
        sync_device()
        self.last_graph_s = perf_counter() - t0
        return g

    def run(self, kind, src, dst, w, source, vertices):
        """Recompute ``kind`` on the snapshot ``src, dst, w``; ``vertices`` lists
        every vertex of the graph now, sorted (isolated ones count for PageRank;
        cuGraph needs every edge endpoint listed); ``source`` is one of them.
        Returns ``(result dict of arrays, seconds)``; the result's ``vertex``
        column holds the caller's ids in either variant."""
        plc, cp = self.plc, self.cp
        if self.variant.startswith("int32"):
            if not int32_fits(vertices.size, src.size):
                raise ValueError(f"{vertices.size} vertices / {src.size} edges do not fit an int32 graph")

            def number(ids):                  # the caller's ids -> 0..n-1 (not timed)
                return cp.searchsorted(vertices, ids).astype(cp.int32)

            src, dst = number(src), number(dst)
            source = int(cp.searchsorted(vertices, cp.asarray([source], dtype=vertices.dtype))[0])
            self.vertices = cp.arange(vertices.size, dtype=cp.int32)

            def back(v):                      # 0..n-1 -> the caller's ids (not timed)
                return vertices[v.astype(cp.int64)]
        else:
            self.vertices = vertices

            def back(v):
                return v
        if kind == "sssp":
            g = self.graph(src, dst, w)
            (v, d, _), t = timed(lambda: plc.sssp(self.handle, g, source, np.inf, True, False))
            return {"vertex": back(v), "distance": d}, t
        if kind == "bfs":
            g = self.graph(src, dst, None)
            start = cp.asarray([source], dtype=src.dtype)
            (d, _, v), t = timed(lambda: plc.bfs(self.handle, g, start, False, -1, True, False))
            return {"vertex": back(v), "distance": d}, t
        if kind == "wcc":
            lo = cp.minimum(src, dst).astype(cp.int64)
            hi = cp.maximum(src, dst).astype(cp.int64)
            span = int(hi.max()) + 1 if hi.size else 1
            key = cp.unique(lo * span + hi)         # each undirected edge once
            a, b = (key // span).astype(src.dtype), (key % span).astype(src.dtype)
            loops = a == b
            g = self.graph(cp.concatenate((a, b[~loops])), cp.concatenate((b, a[~loops])), None, symmetric=True)
            (v, labels), t = timed(lambda: plc.weakly_connected_components(self.handle, g, None, None, None,
                                                                           None, False))
            return {"vertex": back(v), "labels": labels}, t
        if kind == "pagerank":
            g = self.graph(src, dst, None, transposed=True)
            guess_v, guess_r = self._warm_start(vertices)
            (v, r), t = timed(lambda: plc.pagerank(self.handle, g, None, None, guess_v, guess_r, self.alpha,
                                                    self.epsilon, 500, False))
            v = back(v)
            self.previous_ranks = (v, r)
            return {"vertex": v, "pagerank": r}, t
        raise ValueError(f"kind: unknown query kind {kind!r}")

    def _warm_start(self, vertices):
        """The previous ranks as pylibcugraph's initial guess, in the graph's numbering."""
        if self.previous_ranks is None:
            return None, None
        ids, ranks = self.previous_ranks
        if not self.variant.startswith("int32"):
            return ids, ranks
        cp = self.cp
        where = cp.minimum(cp.searchsorted(vertices, ids), vertices.size - 1)
        kept = vertices[where] == ids           # vertices removed since: no guess
        return where[kept].astype(cp.int32), ranks[kept]
